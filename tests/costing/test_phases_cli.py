"""The build-out in phases from the command line: bom build's JSON phases[] and growth (against the
output schema), bom check at every phase, bom cables --phase, and bad phases refused with exit 2."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import jsonschema
import pytest

from bom.outputs.schema import output_schema

HERE = Path(__file__).parent / "scenarios"
B200 = str(HERE / "b200-4su-16su.yaml")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from typer.testing import CliRunner

    from bom.cli import app

    out = tmp_path_factory.mktemp("b200")
    r = CliRunner().invoke(app, ["build", B200, "-o", str(out), "-q"])
    assert r.exit_code == 0, r.output
    return r.stdout, json.loads((out / "b200-4su-16su.json").read_text()), out


def test_build_json_has_the_phases(built):
    _, doc, _ = built
    assert [p["name"] for p in doc["phases"]] == ["4su", "16su"]
    for p in doc["phases"]:
        assert {"name", "date", "gpus", "capex_usd", "order", "recabled_links"} <= set(p)
        assert p["capex_usd"] == pytest.approx(sum(i["extended_usd"] for i in p["order"]) + p["installation_usd"]
                                               + p["recabling_usd"],
                                               abs=0.05 * len(p["order"]) + 0.01)
    assert [p["gpus"] for p in doc["phases"]] == [1024, 4096]
    assert doc["phases"][-1]["gpus"] == doc["gpus"]
    assert set(doc["growth"]) == {"chosen", "reserve", "rebuild", "usd_per_gpu_hour_basis"}
    assert doc["growth"]["rebuild"]["recabled_links"] > 0 == doc["growth"]["reserve"]["recabled_links"]


def test_build_json_holds_the_output_schema(built):
    _, doc, _ = built
    s = output_schema()
    v = jsonschema.Draft202012Validator({"$schema": s["$schema"], "$defs": s["$defs"], "$ref": "#/$defs/build"},
                                        format_checker=jsonschema.FormatChecker())
    assert [e.message for e in v.iter_errors(doc)] == []


def test_build_prints_the_phases_side_by_side(built):
    stdout, doc, _ = built
    assert "Build-out in phases (scenario's growth: reserve)" in stdout
    assert "reserve capex USD" in stdout and "rebuild capex USD" in stdout
    assert f"{doc['phases'][0]['capex_usd']:,.0f}" in stdout


@pytest.mark.slow   # the 16-SU plan in full: 12,288 rows
def test_the_plan_has_a_phase_column(built, bom, tmp_path):
    """Every plan of a phased scenario has a phase column (bom cables writes it whatever its size)."""
    assert bom("cables", B200, "-o", str(tmp_path), "-q", "--profile", "procurement").exit_code == 0
    with (tmp_path / "b200-4su-16su-cables.csv").open() as fh:
        phases = {r["phase"] for r in csv.DictReader(fh)}
    assert phases == {"4su", "16su"}


def test_cables_lists_one_phase(bom, tmp_path):
    r = bom("cables", B200, "--phase", "4su", "-o", str(tmp_path), "-q", "--profile", "installer")
    assert r.exit_code == 0, r.output
    with (tmp_path / "b200-4su-16su-cables.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert {r["phase"] for r in rows} == {"4su"}
    # the 4 SU: 128 nodes x 8 rails to their leaves, their leaves' uplinks, and every spine-core link of day 1
    assert sum(r["a_device"].endswith(tuple(f"node-{i:02d}" for i in range(1, 3))) for r in rows) == 128 * 8


def test_check_runs_at_every_phase(bom):
    r = bom("check", B200, "--json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert [p["name"] for p in doc["phases"]] == ["4su", "16su"]
    text = bom("check", B200).stdout
    assert "phase 4su: reserve" in text and "phase 16su: reserve" in text


@pytest.mark.parametrize(("phases", "size", "said"), [
    ("[{name: a, gpus: 1024, date: 2027-01-01}, {name: b, gpus: 2048, date: 2027-06-01}]", "gpus: 4096",
     "the last phase, b, has 2048 gpus and the scenario 4096"),
    ("[{name: a, gpus: 2048, date: 2027-01-01}, {name: b, gpus: 1024, date: 2027-06-01}]", "",
     "phase b (1024 gpus) is not larger than phase a"),
    ("[{name: a, gpus: 1024, date: 2027-06-01}, {name: b, gpus: 2048, date: 2027-01-01}]", "",
     "before phase a"),
    ("[{name: a, nodes: 16, date: 2027-01-01}, {name: b, gpus: 2048, date: 2027-06-01}]", "",
     "gives its size in nodes and the scenario in gpus"),
    ("[{name: a, gpus: 16, nodes: 2, date: 2027-01-01}]", "", "gpus or as nodes, one of them"),
    ("[{name: a, gpus: 1024, date: 2027-01-01}, {name: a, gpus: 2048, date: 2027-06-01}]", "",
     "two phases are named a"),
    ("[{name: a, gpus: 1024, sites: 2, date: 2027-01-01}, {name: b, gpus: 2048, date: 2027-06-01}]", "",
     "has 2 sites in service and the scenario builds 1"),
    ("[{name: a, gpus: 1020, date: 2027-01-01}, {name: b, gpus: 1024, date: 2027-06-01}]", "",
     "builds 1,024 GPUs, no more than phase a"),
])
def test_bad_phases_exit_2_naming_the_key(bom, tmp_path, phases, size, said):
    f = tmp_path / "s.yaml"
    f.write_text(f"name: s\nplatform: dgx-b200\n{size}\nphases: {phases}\n")
    for cmd in ("build", "check"):
        r = bom(cmd, str(f), "-o", str(tmp_path / "out")) if cmd == "build" else bom(cmd, str(f))
        assert r.exit_code == 2, r.output
        assert said in r.output and "phases" in r.output
    assert not (tmp_path / "out").exists()


def test_cables_phase_needs_phases(bom, tmp_path):
    f = tmp_path / "s.yaml"
    f.write_text("name: s\nplatform: dgx-b200\ngpus: 64\n")
    r = bom("cables", str(f), "--phase", "x", "-o", str(tmp_path / "out"))
    assert r.exit_code == 2 and "gives no phases" in r.output
    r = bom("cables", B200, "--phase", "4SU", "-o", str(tmp_path / "out"))
    assert r.exit_code == 2 and "unknown phase" in r.output and "4su" in r.output
    assert not (tmp_path / "out").exists()


def test_report_shows_the_phases_on_a_timeline(built):
    _, doc, out = built
    md = (out / "b200-4su-16su.md").read_text()
    html = (out / "b200-4su-16su.html").read_text()
    assert "## Build-out in phases" in md and "<h2>Build-out in phases</h2>" in html
    so_far = 0.0
    for p in doc["phases"]:
        so_far += p["capex_usd"]
        row = next(line for line in md.splitlines() if line.startswith(f"| {p['name']} | {p['date']} |"))
        assert f"| {p['gpus']:,} |" in row and f"{so_far:,.0f} USD" in row


@pytest.mark.slow
def test_phases_sheet_recalculates_to_the_json(built, tmp_path):
    """The workbook's Phases sheet, recalculated in LibreOffice: each phase's capex row equals the JSON's."""
    import openpyxl

    from tests.spreadsheet import errors, recalc

    _, doc, out = built
    path = recalc(out / "b200-4su-16su.xlsx", tmp_path)
    assert errors(path) == []
    ws = openpyxl.load_workbook(path, data_only=True)["Phases"]
    totals = {row[0].value: row[10].value for row in ws.iter_rows(min_row=2)
              if isinstance(row[5].value, str) and row[5].value.endswith("capex")}
    assert totals == pytest.approx({p["name"]: p["capex_usd"] for p in doc["phases"]})


def test_phases_sheet_lists_each_phase_order(built):
    import openpyxl

    _, doc, out = built
    ws = openpyxl.load_workbook(out / "b200-4su-16su.xlsx")["Phases"]
    got: dict[tuple[str, str, str], float] = {}
    for row in ws.iter_rows(min_row=2, values_only=True):
        if row[4]:
            got[row[0], row[3], row[4]] = row[7]
    want = {(p["name"], i["fabric"], i["sku"]): i["quantity"] for p in doc["phases"] for i in p["order"]}
    assert got == want
