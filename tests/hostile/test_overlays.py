"""Catalog overlays that are valid YAML but bad catalogs, and long platform ids in bom compare."""

from __future__ import annotations

import copy

import openpyxl
import pytest
import yaml

from bom.catalog.load import builtin_dir
from tests.hostile.conftest import SMALL, check, run, write
from tests.spreadsheet import recalc


def _row(kind: str, row_id: str, file: str | None = None) -> dict:
    rows = yaml.safe_load((builtin_dir() / f"{file or kind}.yaml").read_text())[kind]
    return copy.deepcopy(next(r for r in rows if r["id"] == row_id))


def _switch(**change) -> str:
    return yaml.safe_dump({"switches": [{**_row("switches", "qm9700"), **change}]})


def _module(**change) -> str:
    return yaml.safe_dump({"modules": [{**_row("modules", "mma4z00-ns"), **change}]})


#: (case, overlay text, line or None, key in the message)
CASES = [
    ("one-port switch", _switch(ports=1, cages=1, ports_per_cage=1, breakouts=[]), 2, "two cages"),
    ("one-cage switch", _switch(ports=2, cages=1, ports_per_cage=2, breakouts=[]), 2, "two cages"),
    ("ports that do not add up", _switch(ports=63), 2, "cages x ports_per_cage"),
    ("breakout to fewer ports", _switch(breakouts=[{"rate": "200 Gbit/s", "ports": 2}]), 2, "breakout"),
    ("ports: true", _switch(ports=True), None, "ports"),
    ("ports: 64.5", _switch(ports=64.5), None, "ports"),
    ("price nan", _switch(price_usd=float("nan")), None, "price_usd"),
    ("price inf", _switch(price_usd=float("inf")), None, "price_usd"),
    ("price 1e308", _switch(price_usd=1e308), None, "price_usd"),
    ("price negative", _switch(price_usd=-1), None, "price_usd"),
    ("reach inf", _module(reach_max="inf m"), None, "reach_max"),
    ("reach 0", _module(reach_max="0 m"), None, "reach_max"),
    ("reach 1e308", _module(reach_max="1e308 m"), None, "reach_max"),
    ("power nan", _module(power="nan W"), None, "power"),
    ("power negative", _module(power="-1 W"), None, "power"),
    ("rate 1e-30", _module(port_rate="1e-30 bit/s"), None, None),
    ("id with control characters", _switch(id="qm\x1b[31m"), None, "id"),
    ("unknown kind", "switchez: []\n", 1, "switchez"),
    ("two kinds in one file", "switches: []\nmodules: []\n", 1, "one top-level key"),
    ("rows not a list", "switches: {a: 1}\n", 1, "a list of rows"),
    ("row not a mapping", "switches: [1]\n", 1, "switches.0"),
    ("id of another kind", yaml.safe_dump({"modules": [{**_row("modules", "mma4z00-ns"), "id": "qm9700"}]}), 2,
     "already a switches row"),
    ("duplicate id", yaml.safe_dump({"switches": [_row("switches", "qm9700")] * 2}), None, "duplicate id"),
    ("no catalog files", None, None, "no catalog files"),
]


@pytest.mark.parametrize("case,text,line,key", CASES, ids=[c[0] for c in CASES])
def test_bad_overlays(tmp_path, case, text, line, key):
    over = tmp_path / "over"
    over.mkdir()
    if text is not None:
        (over / "x.yaml").write_text(text)
    path = write(tmp_path, "s.yaml", SMALL + "catalogs: [over]\n")
    where = str(over / "x.yaml") + (f":{line}" if line else "") if text is not None else str(over)
    r = run("build", str(path), "-o", str(tmp_path / "out"), "-q")
    if case == "rate 1e-30":    # valid as a catalog row; no link of that rate exists to use it
        check(r, code=r.code if r.code == 0 else 2)
        return
    check(r, where=where, key=key)
    assert not (tmp_path / "out").exists()


@pytest.mark.slow   # starts LibreOffice
def test_compare_with_long_platform_ids_points_each_column_at_its_own_sheet(tmp_path):
    """Ids past 31 characters (and sharing their first 31) once pointed every formula at one sheet."""
    long = "dgx-h100-with-a-very-long-platform-id"
    rows = []
    for suffix, gpus_per_node in (("-a", 8), ("-b", 4)):
        row = _row("platforms", "dgx-h100")
        row.update(id=long + suffix, gpus_per_node=gpus_per_node)
        row["gpus_per_domain"] = gpus_per_node
        rows.append(row)
    write(tmp_path, "over/platforms.yaml", yaml.safe_dump({"platforms": rows}))
    path = write(tmp_path, "s.yaml", f"name: long\nplatform: {long}-a\ngpus: 128\ncatalogs: [over]\n")
    out = tmp_path / "out"
    r = run("compare", str(path), "-o", str(out), "-q", "--platforms", f"{long}-a,{long}-b", "--json")
    check(r, code=0)
    import json

    generations = json.loads(r.stdout)["generations"]
    book = recalc(out / "long-compare.xlsx", tmp_path)
    wb = openpyxl.load_workbook(book, data_only=True)
    assert len(set(wb.sheetnames)) == len(wb.sheetnames) and all(len(n) <= 31 for n in wb.sheetnames)
    ws = wb["Comparison"]
    row = next(r for r in range(2, ws.max_row + 1) if ws.cell(r, 2).value == "tco_usd")   # A: label, B: key
    for k, g in enumerate(generations):
        assert ws.cell(row, 4 + k).value == pytest.approx(g["metrics"]["tco_usd"], rel=1e-6), g["platform"]
    assert generations[0]["metrics"]["tco_usd"] != pytest.approx(generations[1]["metrics"]["tco_usd"], rel=1e-3)
