"""The report tables written in Python are what jinja wrote from the templates' loops, hostile text included."""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markupsafe import Markup

from bom.outputs.writers.common import price_ranges, range_source
from bom.outputs.writers.diagram import Boundary, Box, Diagram, Text, Wire
from bom.outputs.writers.documents import (
    _context,
    _env,
    html_bom_rows,
    html_order_rows,
    html_power_rows,
    html_site_rows,
    markdown_order_rows,
    markdown_power_rows,
)
from bom.outputs.writers.tables import html_rows, html_values, markdown_rows
from bom.roles import RackKind, Tier
from tests.paths import ROOT

#: Text a value may hold: markup, entities, controls (visible_text's and an escape sequence), the tables'
#: own separator, Markdown's escapes, a lone surrogate.
_EDGES = "<>&'\"\x00\x07\x1b[31m\x85\x9b\t\n\r\ue000\ue001|`\\\u202e\udc80é "
_TEXT = st.text(max_size=12) | st.text(alphabet=_EDGES + "ab1", max_size=10)


class _Odd(str):
    """Text whose str() is not its text (as a (str, Enum) member's), the text holding a control."""

    def __str__(self) -> str:
        return "odd<&"


_VALUE = (_TEXT | st.none() | st.integers(-10**9, 10**9) | st.floats(allow_nan=True)
          | st.sampled_from([Tier.SCALE_OUT, RackKind.COMPUTE, dt.date(2027, 3, 1), Markup("<br>"), Markup("a&amp;b"),
                            _Odd("a\x07<b"), _Odd("plain"), Markup("\ue001")]))

#: The templates' loops as they were (report.html.j2 before its tables were written in Python).
LOOPS = Path(__file__).parent / "loops"
OLD_BOM = (LOOPS / "bom.html.j2").read_text()
OLD_ORDER = (LOOPS / "order.html.j2").read_text()


@functools.cache
def _template(env_html: bool, text: str):
    return _env(env_html).from_string(text)


def _jinja(env_html: bool, text: str, **ctx: object) -> str:
    return _template(env_html, text).render(**ctx)


@functools.cache
def _report(path: Path | None = None):
    """A scenario's report, the default's without a path (built here: a drawn test's arguments are shown)."""
    from bom.catalog.load import load_catalog
    from bom.inputs.scenario import load_scenario
    from bom.pipeline import build_scenario, report_of

    scenario, src = load_scenario(path)
    return report_of(build_scenario(scenario, src, load_catalog()), load_catalog())


@given(st.lists(_VALUE, max_size=8))
def test_each_value_is_what_the_template_writes(values):
    """One escape over a table's joined cells is each cell's `{{ v }}`: HTML and Markdown."""
    assert html_values(values) == [_jinja(True, "{{ v }}", v=v) for v in values]
    assert markdown_rows("|{}", values) == "".join("|" + _jinja(False, "{{ v }}", v=v) for v in values)
    assert str(html_rows("<td>{}</td>\n", values)) == "".join(
        _jinja(True, "<td>{{ v }}</td>\n", v=v) for v in values)


def test_rows_must_be_filled():
    with pytest.raises(ValueError, match="do not fill"):
        html_rows("<td>{}</td><td>{}</td>", ["a", "b", "c"])
    with pytest.raises(ValueError, match="without a value"):
        markdown_rows("|", ["a"])


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_bom_rows_are_the_old_loop(data):
    """The BOM table's rows with hostile text in every text field, units and ranges or none."""
    default_report = _report()
    lines = [dataclasses.replace(x, description=data.draw(_TEXT), sku=data.draw(_TEXT), fabric=data.draw(_TEXT),
                                 unit=data.draw(st.sampled_from(["each", "km"]) | _TEXT),
                                 price_source=data.draw(st.sampled_from(["estimate", "list"]) | _TEXT),
                                 unit_price_range_source=data.draw(st.none() | _TEXT),
                                 unit_price_low_usd=(low := data.draw(st.none() | st.floats(0, 1e7))),
                                 unit_price_high_usd=None if low is None else 2 * low)
             for x in data.draw(st.lists(st.sampled_from(range(len(default_report.lines))), max_size=6))
             for x in [default_report.lines[x]]]
    assert str(html_bom_rows(lines)) == _jinja(True, OLD_BOM, lines=lines, range_source=range_source)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_order_rows_are_the_old_loop(data):
    """The order table's rows: split by site or not (the first line decides the columns), quotes' dates, flags."""
    default_report = _report()
    sites = data.draw(st.integers(0, 3))
    order = [dataclasses.replace(
        o, description=data.draw(_TEXT), unit=data.draw(st.sampled_from(["each", "km"]) | _TEXT),
        quote_ref=data.draw(_TEXT), vendor=data.draw(_TEXT), price_source=data.draw(_TEXT),
        flags=tuple(data.draw(st.lists(_TEXT, max_size=2))),
        valid_until=data.draw(st.none() | st.just(dt.date(2027, 1, 31))),
        per_site=data.draw(st.none() | st.just(tuple(float(k * 3) for k in range(sites)))) if sites else None)
        for k in data.draw(st.lists(st.sampled_from(range(len(default_report.order))), max_size=5))
        for o in [default_report.order[k]]]
    ranges = price_ranges(default_report.lines)
    assert str(html_order_rows(order, ranges)) == _jinja(True, OLD_ORDER, order=order, ranges=ranges,
                                                          range_source=range_source)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_markdown_order_rows_are_the_old_loop(data):
    """The summary's order rows: hostile text (pipes, backticks, line breaks, controls) cleaned as before."""
    default_report = _report()
    order = [dataclasses.replace(
        o, sku=data.draw(_TEXT), unit=data.draw(st.sampled_from(["each", "km"]) | _TEXT),
        quote_ref=data.draw(_TEXT), price_source=data.draw(_TEXT), flags=tuple(data.draw(st.lists(_TEXT, max_size=2))),
        valid_until=data.draw(st.none() | st.just(dt.date(2027, 1, 31))))
        for k in data.draw(st.lists(st.sampled_from(range(len(default_report.order))), max_size=5))
        for o in [default_report.order[k]]]
    ranges = price_ranges(default_report.lines)
    assert markdown_order_rows(order, ranges) == _jinja(False, (LOOPS / "order.md.j2").read_text(), order=order,
                                                        ranges=ranges, range_source=range_source)


@pytest.mark.parametrize("path", [None, ROOT / "tests/golden/scenarios/ring-three-sites.yaml"],
                         ids=["default", "ring-three-sites"])
def test_power_and_site_rows_are_the_old_loops(path):
    """The power plan's and the sites' tables of a one-site and a three-site build, in both documents."""
    r = _report(path)
    ctx = _context(r)
    plan, across = ctx["power_plan"], r.totals.scale_across

    def old(name: str, html: bool = True, **kw: object) -> str:
        return _jinja(html, (LOOPS / name).read_text(), **kw)

    assert plan is not None
    assert [str(x) for x in html_power_rows(plan)] == [old("power.html.j2", power_plan=plan),
                                                       old("ups.html.j2", power_plan=plan)]
    assert list(markdown_power_rows(plan)) == [old("power.md.j2", False, power_plan=plan),
                                               old("ups.md.j2", False, power_plan=plan)]
    assert markdown_power_rows(None) == html_power_rows(None) == ("", "")
    sites = html_site_rows(r)
    if r.model.cluster.site_count == 1:
        assert sites == ("", "")
        return
    assert [str(x) for x in sites] == [old("sites.html.j2", model=r.model, dci=across.dci),
                                       old("pairs.html.j2", dci=across.dci, across=across)]


def test_rack_groups_sharing_a_plan_are_written_as_groups_each_with_its_own():
    """Rack groups alike share one RackPower (alike sites' racks; here each group of a three-site build and a
    copy of it with more racks): the power section's rows and the workbook's Power sheet, made once a plan,
    are those of the same groups each given its own copy of the plan."""
    from bom.outputs.writers.xlsx import write_xlsx

    r = _report(ROOT / "tests/golden/scenarios/ring-three-sites.yaml")
    power = r.model.power

    def with_groups(groups):  # type: ignore[no-untyped-def]
        return dataclasses.replace(r, model=dataclasses.replace(r.model, power=dataclasses.replace(
            power, groups=tuple(groups))))

    twice = [*power.groups, *(dataclasses.replace(g, racks=g.racks + 1) for g in power.groups)]
    shared, apart = with_groups(twice), with_groups(dataclasses.replace(g, plan=dataclasses.replace(g.plan))
                                                    for g in twice)
    assert len({id(g.plan) for g in shared.model.power.groups}) == len(power.groups)
    assert len({id(g.plan) for g in apart.model.power.groups}) == len(twice)
    assert _context(shared)["power_plan"] == _context(apart)["power_plan"]
    assert write_xlsx(shared) == write_xlsx(apart)


_NUMBER = st.integers(-10**6, 10**6) | st.floats(allow_nan=True, allow_infinity=True)
_ROW = st.builds(lambda label, note, kind, gating, x, w, y: SimpleNamespace(
    label=label, note=note, kind=kind, gating=gating, x=x, w=w, y=y),
    _TEXT | st.sampled_from([_Odd("a\x07<b"), "x" * 50 + "<&>"]), _TEXT,
    st.sampled_from(["part", "step", "unknown", "<&>"]), st.booleans(), _NUMBER, _NUMBER, st.integers(0, 2000))
_TICKS = st.lists(st.builds(lambda x, label: SimpleNamespace(x=x, label=label), _NUMBER, _TEXT), max_size=4)


@settings(max_examples=80, deadline=None)
@given(st.lists(_ROW, max_size=6), _TICKS, _NUMBER, st.integers(0, 3000), st.integers(4, 30))
def test_timeline_is_what_its_template_drew(rows, ticks, done, height, row_h):
    """A timeline written in Python is what its template (loops/timeline.svg.j2) drew with autoescape: hostile
    labels and notes, any number, bars of every kind, gating or not, no bars or ticks at all."""
    from bom.outputs.writers.documents import timeline_svg

    chart = SimpleNamespace(rows=rows, ticks=ticks, done=done, height=height, row_h=row_h)
    assert timeline_svg(chart) == _jinja(True, (LOOPS / "timeline.svg.j2").read_text(), t=chart)


@pytest.mark.parametrize("path", [None, ROOT / "tests/golden/scenarios/ring-three-sites.yaml"],
                         ids=["default", "ring-three-sites"])
def test_the_reports_timelines_are_what_their_template_drew(path):
    from bom.outputs.writers.documents import _chart, timeline_svg

    for s in _report(path).schedule:
        chart = _chart(s)
        assert timeline_svg(chart) == _jinja(True, (LOOPS / "timeline.svg.j2").read_text(), t=chart)


_BOX = st.builds(lambda x, y, w, h, kind, fill: Box(x, y, w, h, kind, fill), _NUMBER, _NUMBER, _NUMBER, _NUMBER,
                 st.sampled_from(["site", "site-dot", "layer", "<&>"]) | _TEXT, _TEXT)
_WIRE = st.builds(lambda x1, y1, x2, y2, medium, cy, dashed, path: Wire(x1, y1, x2, y2, medium, cy, dashed, path),
                  _NUMBER, _NUMBER, _NUMBER, _NUMBER, st.sampled_from(["copper", "optical", "mixed", "coherent",
                                                                        "boundary"]),
                  st.none() | _NUMBER, st.booleans(), st.just("") | _TEXT)
_BOUNDARY = st.builds(lambda y, x1, x2, tier, n: Boundary(y, x1, x2, tier, n, n + 1, n * 2), _NUMBER, _NUMBER, _NUMBER,
                      _TEXT, st.integers(0, 10**9))
_LABEL = st.builds(lambda x, y, text, size, anchor, path, value, halo: Text(x, y, text, size, anchor, "bold", "#111",
                                                                             path, value, halo),
                   _NUMBER, _NUMBER, _TEXT | st.sampled_from([_Odd("a\x07<b")]), st.integers(1, 40),
                   st.sampled_from(["start", "middle", "<"]), st.just("") | _TEXT, st.none() | _NUMBER | _TEXT,
                   st.booleans())


@settings(max_examples=80, deadline=None)
@given(st.lists(_BOX, max_size=4), st.lists(_WIRE, max_size=4), st.lists(_BOUNDARY, max_size=2),
       st.lists(_LABEL, max_size=4))
def test_diagram_shapes_are_what_the_template_drew(boxes, wires, boundaries, texts):
    """The diagram's shapes written in Python are what report.html.j2's loops drew (loops/diagram.html.j2):
    hostile text in every text field, any number, arcs and lines, dashed or not, with and without paths."""
    from bom.outputs.writers.documents import diagram_svg

    d = Diagram(100, 50.0, boxes, wires, texts, boundaries)
    assert diagram_svg(d) == _jinja(True, (LOOPS / "diagram.html.j2").read_text(), d=d)


@pytest.mark.parametrize("path", [None, ROOT / "tests/golden/scenarios/ring-three-sites.yaml"],
                         ids=["default", "ring-three-sites"])
def test_the_reports_diagram_is_what_the_template_drew(path):
    from bom.outputs.writers.diagram import diagram
    from bom.outputs.writers.documents import diagram_svg

    d = diagram(_report(path))
    assert d.wires and d.texts and diagram_svg(d) == _jinja(True, (LOOPS / "diagram.html.j2").read_text(), d=d)


@given(st.integers(-10**15, 10**15) | st.floats(allow_nan=True, allow_infinity=True) | _TEXT, st.integers(0, 4))
def test_num_is_its_format(v, d):
    """The templates' num: a text as it is, a number with separators and d decimals (0: a fixed spec)."""
    from bom.outputs.writers.documents import num

    assert num(v, d) == (v if isinstance(v, str) else f"{v:,.{d}f}")
    assert d or num(v) == num(v, 0)
