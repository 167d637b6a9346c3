"""bom build: deterministic bytes, atomic writes, bad input writes nothing, text stays text."""

from __future__ import annotations

import csv
import io
import json
import textwrap

import openpyxl
import pytest

SMALL = """\
name: small
description: "<b>bold</b><script>alert(1)</script>"
platform: dgx-h100
nodes: 16
"""

EVIL_SWITCH = """\
switches:
  - id: qm9700
    vendor: "@vendor"
    part_number: "=HYPERLINK(\\"http://x\\")"
    description: "=1+1 not a formula"
    protocol: infiniband
    ports: 64
    port_rate: "400 Gbit/s"
    cages: 32
    form_factor: osfp
    ports_per_cage: 2
    lane_rate: "100 Gbit/s"
    power_typical: "747 W"
    power_max: "1720 W"
    rack_units: 1
    price_usd: 40000
    price_source: quote
    source: "-test"
    as_of: 2026-11-30
"""


def scenario(tmp_path, text=SMALL):
    path = tmp_path / "s.yaml"
    path.write_text(textwrap.dedent(text))
    return path


@pytest.mark.slow   # three builds with every writer: 1.2 to 1.8 s under load, too near the fast loop's 2 s
def test_two_builds_are_byte_identical(bom, tmp_path):
    path = scenario(tmp_path)
    a, b = tmp_path / "a", tmp_path / "b"
    assert bom("build", str(path), "-o", str(a), "-q").exit_code == 0
    assert bom("build", str(path), "-o", str(b), "-q").exit_code == 0
    names = sorted(p.name for p in a.iterdir())
    # The cable plan comes with the build when it is small (bom/outputs/planfiles.py BUILD_MAX_ROWS), a pod this
    # small (several rails on one leaf) too.
    assert names == ["small-cables.csv", "small-cables.xlsx", "small-cart.csv", "small-racks.csv", "small.csv",
                     "small.html", "small.json", "small.md", "small.xlsx"]
    path32 = scenario(tmp_path, SMALL.replace("nodes: 16", "nodes: 32"))
    assert bom("build", str(path32), "-o", str(tmp_path / "c"), "-q").exit_code == 0
    assert {"small-cables.csv", "small-cables.xlsx", "small-racks.csv"} <= {p.name for p in (tmp_path / "c").iterdir()}
    for name in names:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_json_flag_prints_the_written_json(bom, tmp_path):
    out = tmp_path / "o"
    r = bom("build", str(scenario(tmp_path)), "-o", str(out), "--json", "-q")
    assert r.exit_code == 0 and json.loads(r.stdout) == json.loads((out / "small.json").read_text())


def test_progress_goes_to_stderr(bom, tmp_path):
    r = bom("build", str(scenario(tmp_path)), "-o", str(tmp_path / "o"))
    assert "building the model" in r.stderr and "building the model" not in r.stdout
    assert "Wrote " in r.stdout


def test_unwritable_output_writes_nothing(bom, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    r = bom("build", str(scenario(tmp_path)), "-o", str(blocker / "out"))
    assert r.exit_code == 2 and "cannot write" in r.stderr
    assert blocker.read_text() == "not a folder"


def test_name_with_path_separators(bom, tmp_path):
    r = bom("build", str(scenario(tmp_path, SMALL.replace("name: small", "name: ../escape"))), "-o",
            str(tmp_path / "o"))
    assert r.exit_code == 2 and "name" in r.stderr and not (tmp_path / "o").exists()


def test_price_that_is_not_money(bom, tmp_path):
    text = SMALL + 'tco: {electricity: "0.08 USD"}\n'
    r = bom("build", str(scenario(tmp_path, text)), "-o", str(tmp_path / "o"))
    assert r.exit_code == 2 and "tco.electricity" in r.stderr and not (tmp_path / "o").exists()
    prices = tmp_path / "p.csv"
    prices.write_text("sku,price_usd,price_source,as_of\nqm9700,12 W,quote,2026-11-01\n")
    r = bom("build", str(scenario(tmp_path)), "-o", str(tmp_path / "o"), "--prices", str(prices))
    assert r.exit_code == 2 and f"{prices}:2" in r.stderr and not (tmp_path / "o").exists()


def test_failed_build_keeps_the_previous_outputs(bom, tmp_path):
    out = tmp_path / "o"
    assert bom("build", str(scenario(tmp_path)), "-o", str(out), "-q").exit_code == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    bad = scenario(tmp_path, SMALL.replace("nodes: 16", "nodes: 16\nfabrics: {compute: {layers: 7}}"))
    assert bom("build", str(bad), "-o", str(out), "-q").exit_code == 2
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_text_never_becomes_a_formula_or_markup(bom, tmp_path):
    cat = tmp_path / "cat"
    cat.mkdir()
    (cat / "switches.yaml").write_text(EVIL_SWITCH)
    out = tmp_path / "o"
    r = bom("build", str(scenario(tmp_path)), "-o", str(out), "-q", "--catalog", str(cat))
    assert r.exit_code == 0, r.stderr
    wb = openpyxl.load_workbook(out / "small.xlsx")
    ws = wb["BOM"]
    rows = [[c.value for c in row] for row in ws.iter_rows(min_row=2)]
    head = [c.value for c in ws[1]]
    catalog_id, part, text = (head.index(k) for k in ("Catalog id", "Part number", "Description"))
    switch = next(row for row in rows if row[catalog_id] == "qm9700")
    assert switch[part] == '=HYPERLINK("http://x")' and switch[text] == "=1+1 not a formula"
    cells = {c.coordinate: c for row in ws.iter_rows(min_row=2) for c in row if c.value == switch[text]}
    assert all(c.data_type == "s" for c in cells.values())
    lines = list(csv.reader(io.StringIO((out / "small.csv").read_text())))
    col = {name: i for i, name in enumerate(lines[0])}
    row = next(x for x in lines if x[col["catalog_id"]] == "qm9700")
    assert row[col["sku"]].startswith("'=") and row[col["description"]].startswith("'=")
    assert row[col["vendor"]] == "'@vendor" and row[col["source"]] == "'-test"
    html = (out / "small.html").read_text()
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;" in html
    assert "<b>bold</b>" not in html
