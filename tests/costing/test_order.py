"""The order: one line per part number across fabrics and hops, per-site quantities, spares from the
scenario's policy (BOM lines, priced into capex), and flags for end-of-sale, generic and estimated parts."""

from __future__ import annotations

import json

import openpyxl
import pytest

from bom.costing.order import DEFAULT_SPARES, SPARES, spare_count
from bom.inputs.scenario import SparesRule, scenario_from_text
from bom.inputs.yamlio import load_text
from bom.pipeline import build_scenario, report_of

CAMPUS = """\
name: campus
platform: gb300-nvl72
gpus: 4608
fabrics: {compute: {switch: q3400}, inband: {switch: sn5600}}   # the DCI routers' client ports on border leaves
sites: {count: 4, distance: "10 km", dci_bandwidth: "3.2 Tbit/s"}
date: 2026-12-02
"""


def report(text, catalog):
    src = load_text(text, "<test>")
    sc = scenario_from_text(text, "<test>")
    return report_of(build_scenario(sc, src, catalog), catalog)


def test_one_order_line_per_part_number_merged_across_fabrics_and_hops(default_report):
    order = {o.sku: o for o in default_report.order}
    assert len(order) == len(default_report.order)
    # MMS4A00-XM is on the node-leaf and the leaf-spine lines of the compute fabric: 2,304 + 4,608.
    lines = [x for x in default_report.lines if x.sku == "MMS4A00-XM" and x.fabric != SPARES]
    assert len(lines) == 2
    assert order["MMS4A00-XM"].installed == 6912 == sum(x.quantity for x in lines)
    assert order["MMS4A00-XM"].spares == spare_count(6912, DEFAULT_SPARES["transceiver"], 2) == 139


def test_spares_are_priced_bom_lines_that_draw_no_power(default_report):
    spares = [x for x in default_report.lines if x.fabric == SPARES]
    assert spares and all(x.unit_power_w == 0 for x in spares)
    assert default_report.tco.hardware_usd == pytest.approx(sum(x.price_usd for x in default_report.lines))
    switches = [x for x in spares if x.category == "switch"]
    assert switches and all(x.quantity == DEFAULT_SPARES["switch"].per_site * 2 for x in switches)
    assert not [x for x in spares if x.category == "compute"]   # GPU systems: covered by support


def test_a_scenario_policy_replaces_the_default_of_its_category(catalog):
    text = CAMPUS + "spares:\n  switch: {}\n  transceiver: {fraction: 0.05, min: 10}\n  compute: {per_site: 1}\n"
    r = report(text, catalog)
    spares = {x.sku: x.quantity for x in r.lines if x.fabric == SPARES}
    assert "920-9B36F-00RX-8S0" not in spares           # no spare switches any more
    # 6,912 MMS4A00-XM in the compute fabric at 1:1: the routers' client ports are on the in-band fabric's
    # border leaves (sites.attach), so the compute fabric no longer runs at 1.25:1 to leave them spine
    # ports (6,400 modules, 320 spares before).
    assert spares["MMS4A00-XM"] == pytest.approx(-(-6912 * 5 // 100))
    assert spares["GB300 NVL72"] == 4                    # one rack system per site


def test_per_site_quantities_on_a_four_building_campus(catalog):
    r = report(CAMPUS, catalog)
    j = r.to_json()
    assert j["sites"] == 4
    for o in r.order:
        if o.unit != "each":
            assert o.per_site is None   # dark fibre runs between buildings
            continue
        assert o.per_site is not None and len(o.per_site) == 4, o.sku
        assert sum(o.per_site) == pytest.approx(o.installed), o.sku
    racks = next(o for o in r.order if o.category == "compute")
    assert racks.per_site == (16, 16, 16, 16)


def test_unequal_sites_split_each_shape_on_its_own(catalog):
    r = report(CAMPUS.replace("gpus: 4608", "gpus: 4680").replace("count: 4", "count: 3"), catalog)
    racks = next(o for o in r.order if o.category == "compute")
    assert sorted(racks.per_site) == [21, 22, 22]
    for o in r.order:
        if o.per_site is not None:
            assert sum(o.per_site) == pytest.approx(o.installed), o.sku


def test_end_of_sale_and_generic_parts_warn_in_the_cli_workbook_and_report(bom, tmp_path):
    path = tmp_path / "h.yaml"
    path.write_text("name: h100\nplatform: dgx-h100\nnodes: 16\nfabrics: {compute: {}, storage: {switch: sn5600}}\n")
    out = tmp_path / "o"
    r = bom("build", str(path), "-o", str(out), "-q")
    assert r.exit_code == 0, r.stderr
    assert "warning: DGXH-G640F+P2EDI36 (dgx-h100): end-of-sale 2025-01-25" in r.stderr
    assert "warning:" in r.stderr and "SN5600" in r.stderr and "generic" in r.stderr
    j = json.loads((out / "h100.json").read_text())
    dgx = next(o for o in j["order"] if o["catalog_id"] == "dgx-h100")
    assert any(f.startswith("end-of-sale 2025-01-25") for f in dgx["flags"]) and "estimate" in dgx["flags"]
    sn = next(o for o in j["order"] if o["catalog_id"] == "sn5600")
    assert any(f.startswith("generic") for f in sn["flags"])
    summary = [c.value for c in openpyxl.load_workbook(out / "h100.xlsx")["Summary"]["A"] if c.value]
    assert any(str(v).startswith("DGXH-G640F+P2EDI36 (dgx-h100): end-of-sale") for v in summary)
    html = (out / "h100.html").read_text()
    assert "Warnings for the buyer" in html and "end-of-sale 2025-01-25" in html


def test_a_cable_cut_to_length_is_flagged_generic():
    from bom.costing.order import _family_name

    class Row:
        lengths = [object()]
        part_number = "MCP4Y10-N00x"

    assert _family_name(Row(), "MCP4Y10-N00x") and not _family_name(Row(), "MCP4Y10-N001")


@pytest.mark.parametrize("spares,key", [("{transceiver: {fraction: 1.5}}", "spares.transceiver.fraction"),
                                        ("{switch: {min: -1}}", "spares.switch.min"),
                                        ("{switch: {each: 1}}", "spares.switch.each"),
                                        ("{transciever: {min: 1}}", "spares.transciever")])
def test_a_bad_spares_policy_exits_2_with_file_line_and_key(bom, tmp_path, spares, key):
    path = tmp_path / "s.yaml"
    path.write_text(f"name: s\nplatform: dgx-h100\nnodes: 16\nspares: {spares}\n")
    r = bom("build", str(path), "-o", str(tmp_path / "o"), "-q")
    assert r.exit_code == 2 and f"{path}:4: {key}" in r.stderr, r.stderr


def test_spare_count_takes_the_largest_rule():
    assert spare_count(1000, SparesRule(fraction=0.01, min=20, per_site=3), 4) == 20
    assert spare_count(1000, SparesRule(fraction=0.01, min=2, per_site=3), 4) == 12
    assert spare_count(1001, SparesRule(fraction=0.01), 1) == 11
