"""`bom check` (exit 0, 1, 2) and `bom build` refusing a design that breaks an error rule (exit 2,
nothing written) unless --allow-violations (the checks in the JSON, workbook, report, summary)."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl

from tests.rules.cases import CLEAN, OOB_ONLY, PANELS, TWO_SITES


def _file(name: str, text: str) -> str:
    Path(name).write_text(text)
    return name


def test_check_a_clean_design_exits_0(bom):
    r = bom("check", _file("clean.yaml", CLEAN))
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("Design rules for clean (the closed form and the cable plan):")
    assert r.stdout.rstrip().endswith("31 design rules checked: no error, no warning.")


def test_check_warnings_print_and_exit_0(bom):
    r = bom("check", _file("oob.yaml", OOB_ONLY))
    assert r.exit_code == 0, r.output
    out = r.stdout
    assert "placement.unplaced [warning]: 1 violation (1 devices)" in out
    assert "  s1-inband: s1-inband (inband) is cabled by C" in out
    assert "      b: inband s1-inband:up1, no rack" in out
    assert "      change: build the in-band fabric (fabrics.inband) so the management switches' uplinks land" in out
    assert out.rstrip().endswith("31 design rules checked: no error, 1 warning in 1 rule.")


def test_check_a_two_site_design_exits_0(bom):
    # The DCI routers on the Ethernet storage fabric's border leaves, in their sites' own racks, the
    # lossy line amplified: every rule passes on the closed form and the plan.
    r = bom("check", _file("two.yaml", TWO_SITES))
    assert r.exit_code == 0, r.output
    assert r.stdout.rstrip().endswith("31 design rules checked: no error, no warning.")


def test_check_an_error_exits_1_with_both_ends_and_what_to_change(bom):
    r = bom("check", _file("panels.yaml", PANELS))
    assert r.exit_code == 1, r.output
    out = r.stdout
    assert "lengths.loss [error]: 3 violations (3 run lengths)" in out
    assert ("  compute node-leaf, cross-row runs (64 links at 400G): the 7.1 m runs: the run loses 1.78 dB "
            "(10 m of OM4, 5 mated pairs, 3 patch panels); the modules' budget is 1.8 dB less a 0.3 dB margin") in out
    assert "      a: node dgx-h100, module MMA4Z00-NS-FLT, NIC, osfp-flat cage of 2 ports at 400G or slower" in out
    assert "      b: leaf qm9700, module MMA4Z00-NS, InfiniBand switch, osfp cage of 2 ports at 200G/400G" in out
    assert ("  compute leaf-spine, cross-row runs (512 links at 400G): the 9.5 m runs: the run loses 1.78 dB "
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
    assert len(doc["rules_run"]) == 31   # with the power plan's 6 rules (issue 48)
    loss = next(x for x in doc["rules"] if x["id"] == "lengths.loss")
    assert loss["violations"] == 3 and loss["reads"] == ["model"]
    assert (loss["shown"][0]["a"]["device"], loss["shown"][0]["b"]["device"]) == ("dgx-h100", "qm9700")
    assert loss["shown"][1]["a"]["role"] == "leaf" and loss["shown"][1]["b"]["role"] == "spine"


def test_build_refuses_a_design_that_breaks_an_error_rule(bom):
    r = bom("build", _file("panels.yaml", PANELS), "-o", "out", "--quiet")
    assert r.exit_code == 2
    assert not Path("out").exists()
    err = " ".join(r.stderr.split())
    assert err.startswith("error: panels.yaml: the design breaks 1 design rule (3 violations), so nothing was written.")
    assert "First: lengths.loss: compute node-leaf, cross-row runs (64 links at 400G): the 7.1 m runs: the run " \
        "loses 1.78 dB" in err and "--allow-violations" in err


def test_build_refuses_to_price_a_port_as_another_kind_s(bom):
    # The management switches' 100G QSFP28 uplinks asked into SN5600 in-band leaves: no catalog part
    # joins them across rows, so the build would price the nodes' 200G QSFP112 module in their cage.
    # Build says so and writes nothing (an error: a silently wrong BOM is what the tool must not make).
    from tests.rules.test_complete import INTO_INBAND

    r = bom("build", _file("into.yaml", INTO_INBAND), "-o", "out", "--quiet")
    assert r.exit_code == 2 and not Path("out").exists()
    err = " ".join(r.stderr.split())
    assert ("First: complete.substitutions: inband oob ports (18 links): the oob ports are priced as the nodes' "
            "port on the inband fabric: qsfp28 at 100G") in err


def test_build_with_allow_violations_writes_the_checks_everywhere(bom):
    r = bom("build", _file("panels.yaml", PANELS), "-o", "out", "--quiet", "--allow-violations")
    assert r.exit_code == 0, r.output
    assert "error: 25 design rules checked: 3 errors in 1 rule, no warning." in r.stderr
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
