"""`bom check` (exit 0, 1, 2) and `bom build` refusing a design that breaks an error rule (exit 2,
nothing written) unless --allow-violations (the checks in the JSON, workbook, report, summary)."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl

from tests.rules.cases import CLEAN, TWO_SITES

#: Three patch panels on multimode cross-row runs: 1.78 dB of a 1.8 dB budget, past the margin.
PANELS = ("name: panels\nplatform: dgx-h100\nnodes: 127\nfabrics:\n  compute: {switch: qm9700, media: [multimode]}\n"
          "layout: {nodes_per_rack: 4, racks_per_row: 8, patch_panels: 3}\n")


def _file(name: str, text: str) -> str:
    Path(name).write_text(text)
    return name


def test_check_a_clean_design_exits_0(bom):
    r = bom("check", _file("clean.yaml", CLEAN))
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("Design rules for clean (the closed form and the cable plan):")
    assert r.stdout.rstrip().endswith("19 design rules checked: no error, no warning.")


def test_check_warnings_print_and_exit_0(bom):
    r = bom("check", _file("two.yaml", TWO_SITES))
    assert r.exit_code == 0, r.output
    assert "lengths.coherent [warning]: 1 violation (2 links)" in r.stdout   # two 400G wavelengths
    assert "      change: count a booster and a pre-amplifier per direction" in r.stdout
    assert "no error, " in r.stdout and " warnings in " in r.stdout


def test_check_an_error_exits_1_with_both_ends_and_what_to_change(bom):
    r = bom("check", _file("panels.yaml", PANELS))
    assert r.exit_code == 1, r.output
    out = r.stdout
    assert "lengths.loss [error]: 3 violations (3 run lengths)" in out
    assert ("  compute leaf-spine, cross-row runs (768 links at 400G): the 7.1 m runs: the run loses 1.78 dB "
            "(10 m of OM4, 5 mated pairs, 3 patch panels)") in out
    assert "      a: leaf qm9700, module MMA4Z00-NS, InfiniBand switch, osfp cage of 2 ports at 200G/400G" in out
    assert "      change: use fewer patch panels, a shorter route or a module with a larger budget" in out
    assert "3 errors in 1 rule" in out
    assert "internal error" not in r.output


def test_check_bad_input_exits_2(bom):
    r = bom("check", "missing.yaml")
    assert r.exit_code == 2 and r.stderr.startswith("error: ")
    r = bom("check", _file("bad.yaml", CLEAN.replace("nodes: 32", "nodes: -3")))
    assert r.exit_code == 2 and "nodes" in r.stderr


def test_check_json(bom):
    r = bom("check", _file("panels.yaml", PANELS), "--json")
    assert r.exit_code == 1
    doc = json.loads(r.stdout)
    assert doc["name"] == "panels" and doc["plan"] is True and doc["ok"] is False and doc["errors"] == 3
    assert len(doc["rules_run"]) == 19
    loss = next(x for x in doc["rules"] if x["id"] == "lengths.loss")
    assert loss["violations"] == 3 and loss["reads"] == ["model"] and loss["shown"][0]["a"]["device"] == "qm9700"


def test_build_refuses_a_design_that_breaks_an_error_rule(bom):
    r = bom("build", _file("panels.yaml", PANELS), "-o", "out", "--quiet")
    assert r.exit_code == 2
    assert not Path("out").exists()
    err = " ".join(r.stderr.split())
    assert err.startswith("error: panels.yaml: the design breaks 1 design rule (3 violations), so nothing was written.")
    assert "First: lengths.loss: compute leaf-spine" in err and "--allow-violations" in err


def test_build_with_allow_violations_writes_the_checks_everywhere(bom):
    r = bom("build", _file("panels.yaml", PANELS), "-o", "out", "--quiet", "--allow-violations")
    assert r.exit_code == 0, r.output
    assert "error: 15 design rules checked: 3 errors in 1 rule, no warning." in r.stderr
    doc = json.loads(Path("out/panels.json").read_text())
    assert doc["checks"]["errors"] == 3 and doc["checks"]["plan"] is False
    assert "lengths.route" not in doc["checks"]["rules_run"]        # a build runs the closed form only
    ws = openpyxl.load_workbook("out/panels.xlsx")["Checks"]
    cells = [c.value for row in ws.iter_rows() for c in row if c.value is not None]
    assert "lengths.loss" in cells and "use fewer patch panels, a shorter route or a module with a larger budget" \
        in cells
    html = Path("out/panels.html").read_text()
    assert 'id="design-rules"' in html and "lengths.loss (error): 3 violations" in html
    md = Path("out/panels.md").read_text()
    assert "## Design rules" in md and "**lengths.loss** (error, 3 violations):" in md
