"""Placement: every device the BOM buys and the plan cables in a rack at a U; racks within budget."""

from __future__ import annotations

import dataclasses

from bom.cableplan.rows import COL, rows
from bom.model.placement import RackType
from bom.roles import RackKind
from bom.rules.context import Context
from bom.rules.placement import Unplaced
from tests.rules.cases import OOB_ONLY, build, messages, run, sink


def _placement(model, change_layout):   # type: ignore[no-untyped-def]
    """``model`` with every rack layout of its placement passed through ``change_layout``."""
    p = model.placement
    sites = tuple(dataclasses.replace(shape, sections=tuple(
        dataclasses.replace(sec, layouts=tuple(change_layout(lay) for lay in sec.layouts), counts=type(sec.counts)(),
                            _where={})
        for sec in shape.sections)) for shape in p.sites)
    return dataclasses.replace(model, placement=dataclasses.replace(p, sites=sites))


def test_a_clean_design_stands_in_its_racks(clean, catalog):
    for rule in ("placement.devices", "placement.racks"):
        assert run(clean, catalog, rule).violations == 0, rule
    assert run(clean, catalog, "placement.unplaced", plan=True).violations == 0


def test_devices_the_bom_buys_and_the_placement_leaves_out(clean, catalog):
    no_spines = _placement(clean, lambda lay: dataclasses.replace(
        lay, slots=tuple((item, u) for item, u in lay.slots if item.role != "spine")))
    r = run(no_spines, catalog, "placement.devices")
    spines = clean.fabrics["compute"].switches("spine")
    assert r.severity == "error" and r.affected == spines
    assert messages(r) == [f"the BOM buys {spines} spine devices and the placement stands 0 of them in a rack at a U"]


def test_devices_dci_routers_and_muxes_with_no_rack(two_sites, catalog):
    # As built, each site's own racks stand its router, mux/demux and terminal amplifiers ...
    assert run(two_sites, catalog, "placement.devices").violations == 0
    # ... without them (the placement before issue 21) the BOM buys devices no rack holds.
    unplaced = dataclasses.replace(two_sites, placement=dataclasses.replace(two_sites.placement, own=()))
    r = run(unplaced, catalog, "placement.devices")
    assert r.severity == "error" and r.affected == 2 + 2 + 4
    assert [v.where for v in r.kept] == ["2 of 2 router (cisco-8201-32fh)", "2 of 2 mux (ncs1k-md-64-c)",
                                         "4 of 4 amplifier (ncs1001-edfa)"]
    assert messages(r)[0] == "the BOM buys 2 router devices and the placement stands 0 of them in a rack at a U"
    assert (r.kept[0].a.role, r.kept[0].a.device) == ("router", "cisco-8201-32fh")


def test_unplaced_a_plan_row_names_a_device_with_no_rack(catalog):
    # Management switches whose uplinks go to a site in-band network the scenario does not build:
    # the plan cables them to a stand-in device with no rack.
    r = run(build(OOB_ONLY, catalog), catalog, "placement.unplaced", plan=True)
    assert r.read == ("plan",) and r.severity == "warning"
    assert r.violations == 1   # one stand-in, however many rows name it
    v = r.kept[0]
    assert v.where == "s1-inband" and v.message.startswith("s1-inband (inband) is cabled by C")
    assert v.message.endswith("and has no rack and no U")
    assert v.a.role == "oob-leaf" and v.a.what.startswith("rack s1-r") and (v.b.device, v.b.what) == (
        "s1-inband", "no rack")
    assert "fabrics.inband" in v.fix


def test_unplaced_dci_routers_and_muxes_in_plan_rows_with_no_rack(two_sites, catalog):
    plan = list(rows(two_sites, catalog=catalog))
    assert run(two_sites, catalog, "placement.unplaced", plan=True).violations == 0   # as built: in their racks
    # The DCI rows as the plan wrote them before issue 21: the routers and mux/demuxes with no rack and no U.
    dci = {"router", "mux"}
    blank = []
    for r in plan:
        r = list(r)
        for side in ("a", "b"):
            if r[COL[side + "_role"]] in dci:
                r[COL[side + "_rack"]], r[COL[side + "_u"]] = "", ""
        blank.append(tuple(r))
    found, report = sink()
    check = Unplaced(Context(two_sites, catalog), report)
    for r in blank:
        check.row(r)
    check.done()
    assert sorted(v.where for v in found) == ["s1-r03-rk01-mux-01", "s1-r03-rk01-router-01",
                                              "s2-r03-rk01-mux-01", "s2-r03-rk01-router-01"]   # each once
    v = next(v for v in found if v.where == "s1-r03-rk01-router-01")
    assert v.message.startswith("s1-r03-rk01-router-01 (router) is cabled by C") and "no rack and no U" in v.message
    assert "place it" in v.fix


def test_unplaced_reports_a_device_once(clean, catalog):
    found, report = sink()
    check = Unplaced(Context(clean, catalog), report)
    plan = list(rows(clean, catalog=catalog))[:3]
    for r in plan:
        r = list(r)
        r[COL["b_rack"]], r[COL["b_u"]] = "", ""
        r[COL["b_device"]] = "s1-inband"
        r[COL["b_role"]] = "inband"
        check.row(tuple(r))
    assert len(found) == 1 and found[0].where == "s1-inband" and "fabrics.inband" in found[0].fix


def test_racks_over_their_u_and_power_budget(clean, catalog):
    def tight(lay):   # type: ignore[no-untyped-def]
        return dataclasses.replace(lay, rack=RackType(lay.rack.catalog_id, 2, 1000.0, lay.rack.pdu, lay.rack.pdus))
    r = run(_placement(clean, tight), catalog, "placement.racks")
    assert r.severity == "error" and r.violations >= 1
    compute = next(v for v in r.kept if v.where.startswith("compute rack"))
    assert compute.message.startswith("its devices take ") and "U of 2U; they draw " in compute.message
    assert compute.message.endswith("W of a 1,000 W budget")


def test_racks_two_devices_on_one_u(clean, catalog):
    def stacked(lay):   # type: ignore[no-untyped-def]
        if lay.kind != "compute":
            return lay
        (first, u), *rest = [(i, u) for i, u in lay.slots if i.height]
        return dataclasses.replace(lay, slots=((first, u), (first, u), *rest[1:]))
    changed = _placement(clean, stacked)
    r = run(changed, catalog, "placement.racks")
    assert r.violations == 1 and "U1 holds a node and a node" in messages(r)[0]
    # Each rack its own (equal) layout object here: judged object by object, merged by value, every rack counted.
    racks = changed.placement.counts()[RackKind.COMPUTE]
    assert len({id(lay) for lay, _ in changed.placement.layout_racks() if lay.kind == "compute"}) > 1
    assert r.kept[0].count == racks and f"x {racks:,}" in r.kept[0].where


def test_racks_a_feed_whose_pdus_cannot_carry_the_rack_alone(clean, catalog):
    # Half the PDUs the budget needs: the budget still holds the draw, one feed alone does not.
    def thin(lay):   # type: ignore[no-untyped-def]
        r = lay.rack
        half = lay.power_w / 2 / max(1, r.pdus // 2)
        return dataclasses.replace(lay, rack=dataclasses.replace(r, pdu_capacity_w=half))
    assert run(clean, catalog, "placement.racks").violations == 0
    r = run(_placement(clean, thin), catalog, "placement.racks")
    assert r.severity == "error" and r.violations >= 1
    m = messages(r)[0]
    assert "one feed's " in m and "(each of the A and B feeds must carry it alone)" in m


COOLING = ("name: cool\nplatform: gb300-nvl72\ngpus: 1152\n"
           "fabrics: {compute: {switch: q3400}, inband: {switch: sn5600}}\n"
           "sites: {count: 2, distance: \"40 km\", dci_bandwidth: \"3.2 Tbit/s\"}\n")


def test_cooling_a_liquid_cooled_platform_in_an_air_only_hall(catalog):
    r = run(build(COOLING + "layout: {cooling: [liquid, air]}\n", catalog), catalog, "placement.cooling")
    assert r.severity == "error" and r.violations == 1 and r.kept[0].count == 8
    assert r.kept[0].where == "site 2: 8 compute racks"
    assert messages(r) == ["gb300-nvl72 needs liquid cooling (a coolant loop to the rack), the hall is air-only "
                           "(layout.cooling)"]
    # Liquid in both halls, or nothing said of the halls: nothing to find.
    assert run(build(COOLING + "layout: {cooling: liquid}\n", catalog), catalog, "placement.cooling").violations == 0
    assert run(build(COOLING, catalog), catalog, "placement.cooling").violations == 0


def test_cooling_an_air_cooled_platform_anywhere(catalog):
    text = "name: h\nplatform: dgx-h100\ngpus: 256\nlayout: {cooling: air}\n"
    assert run(build(text, catalog), catalog, "placement.cooling").violations == 0
