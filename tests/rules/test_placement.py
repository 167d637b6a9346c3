"""Placement: every device the BOM buys and the plan cables in a rack at a U; racks within budget."""

from __future__ import annotations

import dataclasses

from bom.cableplan.rows import COL, rows
from bom.placement.racks import RackType
from bom.rules.context import Context
from bom.rules.placement import Unplaced
from tests.rules.cases import messages, run, sink


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
    assert r.severity == "warning" and r.affected == spines
    assert messages(r) == [f"the BOM buys {spines} spine devices and the placement stands 0 of them in a rack at a U"]


def test_devices_dci_routers_and_muxes_with_no_rack(two_sites, catalog):
    r = run(two_sites, catalog, "placement.devices")
    assert [v.where for v in r.kept] == ["2 of 2 router (cisco-8201-32fh)", "2 of 2 mux (ncs1k-md-64-c)"]


def test_unplaced_a_plan_row_names_a_device_with_no_rack(two_sites, catalog):
    r = run(two_sites, catalog, "placement.unplaced", plan=True)
    assert r.read == ("plan",) and r.violations == 4   # two routers and two mux/demux, each once
    assert messages(r)[0].startswith("s1-router-01 (router) is cabled by C") and "no rack and no U" in messages(r)[0]


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
    r = run(_placement(clean, stacked), catalog, "placement.racks")
    assert r.violations == 1 and "U1 holds a node and a node" in messages(r)[0]
