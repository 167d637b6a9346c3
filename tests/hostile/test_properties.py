"""Property tests: scenarios, catalog overlays and price files generated from the schema and then
mutated. Whatever comes in, the command exits 0, or 2 with one paragraph naming the file (and the
line), never a traceback, within the time budget, and a refused build writes nothing."""

from __future__ import annotations

import copy
import csv
import io
import os
import re
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bom.catalog.load import builtin_dir
from bom.catalog.rows import KINDS
from tests.hostile.conftest import check, leftovers, run

#: Subprocesses, a spreadsheet engine, a browser or generated inputs: left out of the fast loop.
pytestmark = pytest.mark.slow

PLATFORMS = ["dgx-h100", "dgx-b200", "gb200-nvl72", "gb300-nvl72", "dgx-b300"]
HOSTILE = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=30),
    st.sampled_from(["9**9**9 km", "1/0 m", "(1 m", "1e400 m", "nan GB", "-80 GB", "0 m", "1e-30 bit/s",
                     "=HYPERLINK(\"http://x\")", "\x1b[31m", "800 Gb/s", "1e308 USD", "\r=1+1", "__import__('os')"]),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(), max_size=2))
QUANTITY = st.builds(lambda n, u: f"{n:g} {u}", st.floats(min_value=0.001, max_value=1e4),
                     st.sampled_from(["m", "km", "Gbit/s", "Tbit/s", "W", "USD", "d"]))
#: 30 examples each in CI; BOM_HYPOTHESIS_EXAMPLES=1000 for a longer hunt.
FAST = settings(max_examples=int(os.environ.get("BOM_HYPOTHESIS_EXAMPLES", "30")), deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@st.composite
def scenarios(draw) -> dict:
    sc: dict = {"name": draw(st.from_regex(r"[a-z][a-z0-9-]{0,10}", fullmatch=True)),
                "platform": draw(st.sampled_from(PLATFORMS))}
    size = draw(st.sampled_from(["nodes", "gpus", "workload"]))
    if size == "workload":
        sc["workload"] = draw(st.sampled_from([
            {"kind": "serve", "memory": draw(QUANTITY.map(lambda q: q.split()[0] + " GB"))},
            {"kind": "pretrain", "params": 7e10, "tokens": 1e12, "deadline": "60 d"}]))
    else:
        sc[size] = draw(st.integers(min_value=1, max_value=600))
    if draw(st.booleans()):
        sc["sites"] = {"count": draw(st.integers(1, 4)), "distance": draw(QUANTITY),
                       "dci_bandwidth": draw(QUANTITY)}
    if draw(st.booleans()):
        sc["tco"] = {"years": draw(st.integers(1, 10)), "pue": draw(st.floats(1.0, 2.0)),
                     "electricity": "0.08 USD/kWh"}
    if draw(st.booleans()):
        sc["layout"] = {"racks_per_row": draw(st.integers(1, 20)), "rise": draw(QUANTITY)}
    return sc


def _leaves(data, path=()):
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _leaves(v, path + (i,))
    yield path


def _mutate(draw, data):
    """Replace one value (or the whole thing) with a hostile one, or add an unknown key."""
    paths = list(_leaves(data))
    path = draw(st.sampled_from(paths))
    value = draw(HOSTILE)
    if not path:
        return value if draw(st.booleans()) else data
    parent = data
    for p in path[:-1]:
        parent = parent[p]
    if draw(st.integers(0, 5)) == 0 and isinstance(parent, dict):
        parent[draw(st.text(min_size=1, max_size=8))] = value
    elif draw(st.integers(0, 5)) == 0 and isinstance(parent, dict):
        parent.pop(path[-1], None)
    else:
        parent[path[-1]] = value
    return data


def _folder() -> Path:
    return Path(tempfile.mkdtemp(prefix="hyp-"))


def _dump(data) -> str:
    try:
        return yaml.safe_dump(data, allow_unicode=False)
    except yaml.YAMLError:
        return "{}\n"


@FAST
@given(data=st.data())
def test_generated_and_mutated_scenarios(data):
    folder = _folder()
    sc = data.draw(scenarios())
    if data.draw(st.booleans()):
        sc = _mutate(data.draw, sc)
    path = folder / "s.yaml"
    path.write_text(_dump(sc))
    out = folder / "out"
    r = run("build", str(path), "-o", str(out), "-q")
    assert r.code in (0, 2), r.stderr
    check(r, code=r.code)
    if r.code == 2:
        assert str(path) in r.stderr, r.stderr
        assert not out.exists()
    assert not leftovers(folder)


def _rows() -> dict[str, list[dict]]:
    out = {}
    for f in sorted(builtin_dir().glob("*.yaml")):
        (kind, rows), = yaml.safe_load(f.read_text()).items()
        out[kind] = rows
    return out


ROWS = _rows()


@FAST
@given(data=st.data())
def test_generated_and_mutated_overlays(data):
    kind = data.draw(st.sampled_from(sorted(KINDS)))
    row = copy.deepcopy(data.draw(st.sampled_from(ROWS[kind])))
    row = _mutate(data.draw, {kind: [row]})
    folder = _folder()
    over = folder / "over"
    over.mkdir()
    (over / "x.yaml").write_text(_dump(row))
    r = run("catalog", "validate", str(over))
    check(r, code=r.code)
    assert r.code in (0, 2)
    if r.code == 2:
        assert str(over) in r.stderr, r.stderr


CELLS = st.one_of(st.sampled_from(["qm9700", "mma4z00-ns", "MQM9700-NS2F", "35000", "1200 USD", "estimate", "quote",
                                   "list", "2026-11-01", "", "inf", "nan", "-1", "1e308", "9**9**9 USD", "=1+1"]),
                  st.text(max_size=12))


@FAST
@given(data=st.data())
def test_generated_and_mutated_price_files(data):
    header = ["sku", "price_usd", "price_source", "as_of"] + data.draw(
        st.lists(st.sampled_from(["quote_ref", "vendor", "colour", "sku"]), max_size=2))
    header = data.draw(st.permutations(header))
    rows = data.draw(st.lists(st.lists(CELLS, min_size=len(header), max_size=len(header)), max_size=4))
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator=data.draw(st.sampled_from(["\n", "\r\n"])))
    w.writerow(header)
    w.writerows(rows)
    raw = buf.getvalue().encode()
    if data.draw(st.booleans()):
        raw = b"\xef\xbb\xbf" + raw
    folder = _folder()
    prices = folder / "p.csv"
    prices.write_bytes(raw)
    r = run("catalog", "validate", "--prices", str(prices))
    check(r, code=r.code)
    assert r.code in (0, 2)
    if r.code == 2:
        assert re.search(re.escape(str(prices)) + r":\d+", r.stderr), r.stderr
