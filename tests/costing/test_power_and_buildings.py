"""Power and buildings set the limit (issue 27): the number of sites from the power one building can
draw, a count that cannot hold the cluster refused, CDUs for liquid-cooled racks and their power in
the facility, and the facility leased or built (the TCO sheet recalculated by LibreOffice)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from bom.costing.cooling import LOOP_DT_K, water_flow_l_min
from bom.costing.tco import DEFAULTS, PUE_BY_COOLING, inputs
from bom.inputs.scenario import load_scenario
from bom.pipeline import build_scenario, report_of

#: 100,000 GB300 GPUs in buildings of 100 MW: the seeds' "100,000 GPUs need 150 MW or more".
BIG = """\
name: gb300-100k
platform: gb300-nvl72
gpus: 100000
fabrics:
  compute: {{switch: q3400, topology: rail-optimized, layers: auto}}
  inband: {{switch: sn5600}}
sites:
  power: "100 MW"
{count}  distance: "40 km"
  dci_fraction: 0.125
layout: {{racks_per_row: 8, cooling: liquid}}
"""


def _report(text: str, tmp_path: Path, catalog, name: str = "s.yaml"):  # type: ignore[no-untyped-def]
    path = tmp_path / name
    path.write_text(text)
    scenario, src = load_scenario(path)
    return report_of(build_scenario(scenario, src, catalog), catalog)


@pytest.fixture(scope="module")
def big(catalog, tmp_path_factory):  # type: ignore[no-untyped-def]
    return _report(BIG.format(count=""), tmp_path_factory.mktemp("big"), catalog)


def test_sites_from_power_is_the_facility_over_a_building_rounded_up(big):
    power = big.power
    facility_mw = big.tco.facility_power_max_kw / 1000
    assert power.decided_by == "power"
    assert facility_mw > 150                        # the seeds: 100,000 GPUs need 150 MW or more
    assert big.model.cluster.site_count == math.ceil(facility_mw / 100) == 3
    assert all(s.facility_kw <= 100_000 and s.fits for s in power.sites)
    # The sites' power adds up to the TCO's facility power at its maximum (one rule for both).
    assert sum(s.facility_kw for s in power.sites) == pytest.approx(big.tco.facility_power_max_kw, rel=1e-9)
    j = big.to_json()
    assert j["power"]["decided_by"] == "power" and len(j["power"]["sites"]) == 3
    assert all(s["limit_kw"] == 100_000 and s["fits"] for s in j["power"]["sites"])


def test_a_count_that_cannot_hold_it_exits_2_with_the_mw_and_buildings(bom, tmp_path):
    path = tmp_path / "one.yaml"
    path.write_text(BIG.format(count="  count: 1\n"))
    out = tmp_path / "out"
    result = bom("build", str(path), "-o", str(out))
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert "one.yaml:" in text and "sites.count" in text
    assert "MW of facility power" in text and "it needs 3 buildings" in text and "Give count: 3" in text
    assert not out.exists()                          # nothing half-written


def test_a_gb300_build_lists_cdus_and_their_power_an_h100_build_none(default_report, catalog, tmp_path):
    cdus = [x for x in default_report.lines if x.category == "CDU"]
    assert len(cdus) == 1 and cdus[0].quantity == default_report.cooling.cdus > 0
    c = default_report.cooling
    # N+1 per site, on the heat the cold plates take.
    for s in c.sites:
        assert s.cdus == math.ceil(s.liquid_kw * 1000 / c.capacity_w) + 1
        assert s.water_l_min == pytest.approx(water_flow_l_min(s.liquid_kw * 1000))
        assert s.air_kw > 0
    # Their pumps are facility power: on top of IT x PUE, not in the IT power.
    t = default_report.tco
    assert t.cooling_power_kw > 0 and t.cooling_power_kw == pytest.approx(cdus[0].power_w / 1000)
    assert t.facility_power_max_kw == pytest.approx(t.it_power_max_kw * DEFAULTS["pue"].value + t.cooling_power_kw)
    assert t.it_power_kw == pytest.approx(sum(x.power_w for x in default_report.lines if x.category != "CDU") / 1000)
    h100 = _report("name: h100\nplatform: dgx-h100\ngpus: 256\nlayout: {cooling: air}\n", tmp_path, catalog)
    assert h100.cooling is None and not [x for x in h100.lines if x.category == "CDU"]
    assert h100.tco.cooling_power_kw == 0


def test_water_flow_is_heat_over_rho_cp_dt():
    # 1 MW at a 10 K rise: 1e6 / (997 x 4186 x 10) m^3/s = 1,437.7 L/min.
    assert water_flow_l_min(1e6, 10.0) == pytest.approx(1e6 / (997 * 4186 * 10) * 60_000)
    assert water_flow_l_min(2e6, 2 * LOOP_DT_K) == pytest.approx(water_flow_l_min(1e6, LOOP_DT_K))


def test_each_default_cites_its_source(default_report):
    assert "Uptime Institute" in PUE_BY_COOLING["air"].source and PUE_BY_COOLING["air"].value == 1.56
    assert inputs(None, "air")["pue"].value == 1.56 and inputs(None, "liquid")["pue"].value == 1.25
    assert inputs(None, ["air", "liquid"])["pue"].value == DEFAULTS["pue"].value   # mixed halls: the default
    assert "Cushman & Wakefield" in DEFAULTS["build_capex"].source and DEFAULTS["build_capex"].value == 11.7e6
    j = default_report.to_json()
    assert "Vertiv" in j["cooling"]["cdu_capacity_source"] and j["cooling"]["cdu_capacity_kw"] == 2300
    assert j["inputs"]["build_capex"]["source"] == DEFAULTS["build_capex"].source


def test_build_puts_the_building_in_capex_and_drops_the_lease(catalog, tmp_path):
    text = Path(load_scenario(None)[1].file).read_text()
    lease = _report(text, tmp_path, catalog, "lease.yaml")
    built = _report(text.replace("tco: {", "tco: {facility: build, grid_connection: \"1e6 USD/MW\", "), tmp_path,
                    catalog, "build.yaml")
    a, b = lease.tco, built.tco
    assert not a.facility_built and b.facility_built
    assert a.lease_per_year > 0 and a.space_per_year == pytest.approx(a.lease_per_year) and b.space_per_year == 0
    assert b.building_capex_usd == pytest.approx(b.it_power_max_kw / 1000 * 11.7e6)
    assert b.grid_connection_usd == pytest.approx(b.facility_power_max_kw / 1000 * 1e6)
    assert b.capex_usd == pytest.approx(a.capex_usd + b.building_capex_usd + b.grid_connection_usd)
    # The Monte Carlo range carries the building at its figure: its median sits by the point figure.
    assert built.range.percentiles("capex").p50 == pytest.approx(b.capex_usd, rel=0.1)
    assert built.range.percentiles("capex").p10 > a.capex_usd
    # Both options are worked out either way, so the sheet can set them side by side.
    assert a.building_capex_usd == pytest.approx(b.building_capex_usd) and b.lease_per_year == a.lease_per_year


@pytest.mark.slow
def test_lease_against_build_recalculated_by_libreoffice_equals_the_json(bom, tmp_path):
    from tests.spreadsheet import named_values, recalc

    text = Path(load_scenario(None)[1].file).read_text()
    path = tmp_path / "build.yaml"
    path.write_text(text.replace("tco: {", "tco: {facility: build, grid_connection: \"1e6 USD/MW\", "))
    assert bom("build", str(path), "-o", str(tmp_path / "out")).exit_code == 0
    name = load_scenario(path)[0].name
    j = json.loads((tmp_path / "out" / f"{name}.json").read_text())
    got = named_values(recalc(tmp_path / "out" / f"{name}.xlsx", tmp_path / "lo"))
    f, t = j["finance"], j["totals"]
    assert f["facility"] == "build"
    for name, want in (("lease_per_year_usd", f["lease_per_year"]), ("building_capex_usd", f["building_capex_usd"]),
                       ("grid_connection_usd", f["grid_connection_usd"]), ("build_per_year_usd", f["build_per_year"]),
                       ("space_per_year_usd", f["space_per_year"]), ("capex_usd", t["capex_usd"]),
                       ("tco_usd", t["tco_usd"]), ("usd_per_gpu_hour", t["usd_per_gpu_hour"]),
                       ("cooling_power_kw", t["cooling_power_kw"]), ("it_power_kw", t["it_power_kw"]),
                       ("facility_power_max_kw", t["facility_power_max_kw"]),
                       ("capital_charge_per_year_usd", f["capital_charge_per_year"]),
                       ("depreciation_per_year_usd", f["depreciation_per_year"])):
        assert got[name] == pytest.approx(want, rel=1e-6, abs=1e-6), name
    assert got["build_less_lease_per_year_usd"] == pytest.approx(f["build_per_year"] - f["lease_per_year"], rel=1e-6)


def test_bom_size_gives_each_level_its_power_and_buildings(bom):
    result = bom("size", "--platform", "gb300-nvl72", "--building", "100 MW")
    assert result.exit_code == 0
    row = next(line for line in result.stdout.splitlines() if line.startswith("cluster (100k)"))
    assert row.endswith("3 buildings at 100 MW")
    assert next(line for line in result.stdout.splitlines() if line.startswith("rack (72)")).endswith(
        "fits one building")
    j = json.loads(bom("size", "--platform", "gb300-nvl72", "--building", "100 MW", "--json").stdout)
    level = next(lv for lv in j["levels"] if lv["label"] == "cluster (100k)")
    # IT = GPUs x the platform's power per GPU; facility = IT x PUE; buildings = ceil(facility / 100 MW).
    assert level["facility_kw"] == pytest.approx(level["it_kw"] * 1.25)
    assert level["buildings"] == math.ceil(level["facility_kw"] / 100_000) == 3
    assert bom("size", "--building", "0 MW").exit_code == 2


def test_racks_over_the_halls_feed_are_spread_or_refused(bom, catalog, tmp_path):
    # DGX H100 (10.2 kW a node): 4 to a rack by its budget, 2 under a 25 kW feed (32 nodes: 8 racks -> 16).
    plain = _report("name: h\nplatform: dgx-h100\ngpus: 256\n", tmp_path, catalog, "h0.yaml")
    fed = _report("name: h\nplatform: dgx-h100\ngpus: 256\nlayout: {rack_power_limit: \"25 kW\"}\n", tmp_path,
                  catalog, "h1.yaml")
    assert fed.model.floor.nodes_per_rack == 25_000 // 10_200 == 2 < plain.model.floor.nodes_per_rack
    assert fed.model.floor.nodes_per_rack * fed.model.platform.node_power_w <= 25_000
    assert not [v for r in fed.checks.failed for v in r.kept if v.rule == "placement.rack_power"]
    # A GB300 NVL72 rack (142 kW) is one system: it cannot be spread, so the design rule refuses it.
    path = tmp_path / "g.yaml"
    path.write_text("name: g\nplatform: gb300-nvl72\ngpus: 576\nlayout: {rack_power_limit: \"40 kW\"}\n")
    result = bom("build", str(path), "-o", str(tmp_path / "out"))
    assert result.exit_code == 2 and not (tmp_path / "out").exists()
    text = " ".join(result.output.split())
    assert "placement.rack_power" in text and "cannot be spread" in text and "40.0 kW" in text


def test_buildings_of_different_power_are_taken_in_order_and_shared_by_power(catalog, tmp_path):
    text = BIG.format(count="").replace('power: "100 MW"', 'power: ["150 MW", "100 MW", "60 MW", "200 MW"]')
    r = _report(text, tmp_path, catalog)
    facility = r.tco.facility_power_max_kw
    # 150 + 100 < facility <= 150 + 100 + 60: the first three buildings, the fourth left out.
    assert 250_000 < facility <= 310_000 and r.model.cluster.site_count == 3
    sites = r.power.sites
    assert [s.limit_kw for s in sites] == [150_000, 100_000, 60_000] and all(s.fits for s in sites)
    assert sites[0].facility_kw > sites[1].facility_kw > sites[2].facility_kw   # in proportion to their power


ONE_RACK = """\
name: one-rack
platform: gb300-nvl72
gpus: 72
fabrics: {compute: {switch: q3400}, inband: {switch: sn5600}}
"""


def test_a_one_rack_build_gets_overheads_sized_to_its_load(catalog, tmp_path, default_report):
    """Issue 47: a 72-GPU GB300 build got two 2.3 MW CDUs (500 kUSD for 113 kW to liquid, an effective
    PUE of 1.63) and the SuperPOD's 4 UFM appliances. The rule: the CDU row whose N+1 units cost least
    (two 300 kW in-rack units here; the 2.3 MW row for the default's 32 racks a site); the UFM HA pair of
    a BasePOD for a site of at most a BasePOD's GPUs (16 DGX nodes, 128 GPUs). The management servers stay
    the BasePOD RA's five (RA-11127-001 V5: five even for 2 nodes)."""
    r = _report(ONE_RACK, tmp_path, catalog)
    c = r.cooling
    assert c is not None and c.cdu.id == "cdu-300" and c.cdus == 2
    liquid = c.sites[0].liquid_kw
    assert 100 < liquid < 300 and c.cdus == math.ceil(liquid / 300) + 1
    cdu = next(x for x in r.lines if x.category == "CDU")
    big = next(x for x in catalog if x.id == "cdu-2300")
    assert cdu.price_usd < 2 * big.price_usd                 # cheaper than the two large units it replaces
    t = r.tco
    assert t.facility_power_kw / t.it_power_kw < 1.25 * 1.05  # PUE plus the pumps, not 1.63
    ends = r.model.endpoints.to_json()
    assert ends["ufm"]["count"] == 2 and ends["management_servers"]["count"] == 5
    # A hall keeps the large units and the SuperPOD's UFMs.
    assert default_report.cooling is not None and default_report.cooling.cdu.id == "cdu-2300"
    assert default_report.model.endpoints.to_json()["ufm"]["count"] == 4
