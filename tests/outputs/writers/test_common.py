"""The JSON text every output writes (the indenting encoder against json.dumps, and the safe text), and the
workbook's archive: written once through ReproducibleZip, the bytes reproducible_zip makes of the same entries
stored (its route before: a stored archive deflated again entry by entry)."""

from __future__ import annotations

import enum
import io
import json
import re
import zipfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bom.outputs.writers.common import (
    _JSON_RAW,
    ReproducibleZip,
    _json_escape,
    indented,
    json_safe,
    json_text,
    markdown_text,
    reproducible_zip,
    terminal_text,
)
from bom.roles import Tier


class _Count(enum.IntEnum):
    ONE = 1


_SCALAR = (st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=True)
           | st.text(max_size=8) | st.sampled_from([Tier.SCALE_OUT, _Count.ONE]))
_KEY = st.text(max_size=5) | st.integers(-5, 5) | st.floats(allow_nan=False, width=16) | st.booleans() | st.none()
_TREE = st.recursive(_SCALAR, lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
                     | st.dictionaries(_KEY, inner, max_size=4), max_leaves=16)


def _dumps(data: object) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2)


@settings(max_examples=100, deadline=None)
@given(_TREE)
def test_indented_writes_what_json_dumps_writes(data):
    """Any tree of scalars (str, int and float enums among them, NaN, controls and line breaks in text),
    lists, tuples and dicts (keys of every kind json takes), leaf, mixed and empty containers."""
    assert indented(data) == _dumps(data)


@settings(max_examples=50, deadline=None)
@given(_TREE, st.integers(0, 3))
def test_a_shared_list_is_written_where_it_stands(data, depth):
    """A list met again (each site's arrivals, one list for alike sites) at its own depth each time."""
    shared = [data, {"x": [data]}]
    tree: object = shared
    for _ in range(depth):
        tree = {"a": tree, "b": [shared, tree]}
    assert indented([shared, tree, {"c": shared}]) == _dumps([shared, tree, {"c": shared}])


def test_what_json_refuses_is_refused_alike():
    for bad in ({"a": {1, 2}}, [object()], {("t",): 1}, {"k": [1, {"j": b"x"}]}):
        with pytest.raises(TypeError) as ours:
            indented(bad)
        with pytest.raises(TypeError) as theirs:
            _dumps(bad)
        assert str(ours.value) == str(theirs.value)


def test_a_schedule_like_tree_and_json_text():
    """Sites sharing their arrivals, as the build's JSON holds them; json_text takes the same path."""
    arrivals = [{"sku": f"P-{i}", "lead_time_days": 84.0 + i, "lead_time_source": "estimate: \"52\" weeks\n",
                 "arrives": None if i % 3 else "2027-12-06", "tier": Tier.SCALE_OUT} for i in range(30)]
    data = {"in_service": [{"site": s, "also_last": [], "chain": [{"days": 7}], "arrivals": arrivals}
                           for s in range(1, 11)], "warnings": ["\u2028", "\x7f"]}
    assert indented(data) == _dumps(data)
    assert json_text(data, indent=2) == json_safe(_dumps(data))


_BRACES = st.text(alphabet="{}[]\0\n\",: ", max_size=6)


@settings(max_examples=120, deadline=None)
@given(st.lists(st.dictionaries(_KEY | _BRACES, _SCALAR | _BRACES | st.lists(_SCALAR, max_size=3)
                                | st.dictionaries(_KEY, _SCALAR | st.lists(_SCALAR, max_size=2), max_size=3),
                                max_size=5), max_size=6), st.integers(0, 2))
def test_a_list_of_dicts_is_written_as_json_dumps_writes(rows, depth):
    """A list of dicts (a report's lines, its order) is one C-encoder call split where dicts meet: flat dicts,
    dicts holding lists and dicts, empty ones, text holding braces, NUL and newlines, at any depth."""
    data: object = rows
    for _ in range(depth):
        data = {"x": data, "n": 1}
    assert json_text(data, indent=2) == json_safe(_dumps(data))


@given(st.text())
def test_json_safe_escapes_what_the_pattern_escapes(text):
    """The ASCII fast path returns only text the pattern has nothing to escape in."""
    assert json_safe(text) == _JSON_RAW.sub(_json_escape, text)


def _markdown_slow(value: object) -> str:
    """markdown_text as it was before its fast path: every value through the terminal's rules and the escapes."""
    text = terminal_text(str(value).replace("\r", " ").replace("\n", " ").replace("\t", " "))
    return re.sub(r"([\\|<>`])", r"\\\1", text)


#: What markdown_text changes, and its neighbours: plain text is drawn with them often.
_MD_EDGES = "\x00\x08\t\n\x0b\r\x1b\x1f\x7f\x80\x85\x9b\x9f\xa0[]0;m\\|<>`*_#\u061c\u200e\u2028\u202e\u2069\udc80é"


@given(st.text() | st.text(alphabet=_MD_EDGES + "ab 1", max_size=12) | st.sampled_from([Tier.SCALE_OUT]))
def test_markdown_text_fast_path_is_the_escaping_it_skips(text):
    """Text the fast path returns as it is is what the full escaping would have returned."""
    assert markdown_text(text) == _markdown_slow(text)


CORE = ('<cp:coreProperties xmlns:dcterms="http://purl.org/dc/terms/"><dcterms:created xsi:type="x">'
        "2031-05-05T10:00:00Z</dcterms:created><dcterms:modified>2031-05-05T10:00:00Z</dcterms:modified>"
        "</cp:coreProperties>")
ENTRIES = (("[Content_Types].xml", b"<Types/>"), ("docProps/core.xml", CORE), ("xl/worksheets/sheet1.xml",
           "<sheetData>" + "<row>é 中</row>" * 500 + "</sheetData>"), ("xl/empty.xml", b""))


def test_written_once_is_the_stored_archive_made_reproducible() -> None:
    stored = io.BytesIO()
    with zipfile.ZipFile(stored, "w", zipfile.ZIP_STORED) as archive:
        for name, data in ENTRIES:
            archive.writestr(name, data)
    once = io.BytesIO()
    with ReproducibleZip(once, "2027-02-03T00:00:00Z") as archive:
        for name, data in ENTRIES:
            archive.writestr(name, data)
        assert archive.namelist() == [name for name, _ in ENTRIES]
    assert once.getvalue() == reproducible_zip(stored.getvalue(), "2027-02-03T00:00:00Z")
    core = zipfile.ZipFile(io.BytesIO(once.getvalue())).read("docProps/core.xml")
    assert core.count(b"2027-02-03T00:00:00Z") == 2 and b"2031" not in core
    assert {i.date_time for i in zipfile.ZipFile(io.BytesIO(once.getvalue())).infolist()} == {(1980, 1, 1, 0, 0, 0)}
