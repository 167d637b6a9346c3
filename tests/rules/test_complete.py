"""Completeness: every link's parts, storage on a storage fabric, a part on every plan row."""

from __future__ import annotations

import dataclasses

from bom.cableplan.labels import plan_labels
from bom.cableplan.rows import COL, FIELDS, rows
from bom.model.hops import HopKind
from bom.roles import Layer
from bom.rules.complete import Labels, Managed, Rows
from bom.rules.context import Context
from tests.rules.cases import build, group, messages, run, sink, with_group

LS = HopKind.LEAF_SPINE


def test_a_clean_design_is_complete(clean, catalog):
    for rule in ("complete.parts", "complete.storage"):
        assert run(clean, catalog, rule).violations == 0, rule
    assert run(clean, catalog, "complete.rows", plan=True).violations == 0


def test_parts_an_optical_link_with_no_module_and_no_fibre(clean, catalog):
    g = group(clean, "compute", LS)
    runs = {run_: dataclasses.replace(c, part_number=None) for run_, c in g.runs.items()}
    model = with_group(clean, "compute", LS, lower_end=dataclasses.replace(g.lower_end, part=None), runs=runs)
    r = run(model, catalog, "complete.parts")
    assert r.severity == "error" and r.affected == g.links
    assert messages(r) == ["no module at the lower end; no fibre part at some run's length"]


def test_parts_a_copper_assembly_with_a_module(catalog):
    text = "name: t\nplatform: gb300-nvl72\ngpus: 72\nfabrics:\n  compute: {switch: q3400}\n  oob: {}\n"
    model = build(text, catalog)
    g = group(model, "oob", HopKind.NODE_LEAF)
    assert g.choice.option.assembly is not None
    module = catalog.get("modules", "mma1l30-cm")
    changed = with_group(model, "oob", HopKind.NODE_LEAF, upper_end=dataclasses.replace(g.upper_end, part=module))
    assert messages(run(changed, catalog, "complete.parts")) == [
        "a copper or AOC assembly with a module in a cage (the assembly's heads are its ends)"]


def test_parts_a_coherent_line_with_no_patch_cord(two_sites, catalog):
    model = dataclasses.replace(two_sites, dci=dataclasses.replace(two_sites.dci, patch=None))
    r = run(model, catalog, "complete.parts")
    assert messages(r) == ["no patch cord from the line ports to their mux/demux channels"]
    assert r.affected == two_sites.dci.patch_cords


def test_storage_a_storage_fabric_with_no_storage(catalog):
    text = "name: st\nplatform: dgx-h100\nnodes: 32\nfabrics:\n  compute: {}\n  storage: {}\n"
    model = build(text, catalog)
    # As built, a storage fabric with no storage block gets the platform's default appliances ...
    e = model.endpoints
    assert e.storage is not None and e.storage_count == 1 and e.warnings
    assert run(model, catalog, "complete.storage").violations == 0
    # ... the endpoints as a scenario with no storage block had them before (no appliance) trip the rule.
    bare = dataclasses.replace(model, endpoints=dataclasses.replace(e, storage=None, storage_count=0,
                                                                    storage_ports=None, why="no storage block"))
    r = run(bare, catalog, "complete.storage")
    assert r.severity == "error" and r.violations == 1
    assert messages(r) == ["a storage fabric with no storage appliance on it (no storage block)"]
    v = r.kept[0]
    assert v.where.startswith("storage fabric (") and v.a.role == "storage-leaf" and v.count == r.affected > 0
    assert "add a storage: block" in v.fix
    # An appliance row with a count of 0 is no storage either.
    assert run(dataclasses.replace(model, endpoints=dataclasses.replace(e, storage_count=0)), catalog,
               "complete.storage").violations == 1
    assert run(build(text + "storage: {count: 2}\n", catalog), catalog, "complete.storage").violations == 0


def test_rows_a_plan_row_with_no_part(clean, catalog):
    found, report = sink()
    check = Rows(Context(clean, catalog), report)
    r = list(next(iter(rows(clean, catalog=catalog))))
    r[COL["cable_part"]] = ""
    check.row(tuple(r))
    assert [v.message for v in found] == ["the row's om4 mpo12-apc trunk has no part to order"]


# --- fabric managers, substitutions, management ports, labels (issue 42) ------------------------

#: Rack-scale trays filling every leaf downlink: the UFM appliances on the spines' free ports.
UFM_TOP = "name: t\nplatform: gb300-nvl72\ngpus: 2304\nfabrics: {compute: {}}\n"
#: The management switches' 100G uplinks asked into SN5600 in-band leaves: no part joins them there.
INTO_INBAND = ("name: st\nplatform: gb300-nvl72\ngpus: 576\n"
               "fabrics:\n  compute: {switch: q3400}\n  inband: {switch: sn5600}\n  oob: {uplinks: inband}\n")
WITH_OOB = "name: o\nplatform: dgx-h100\nnodes: 16\nfabrics: {compute: {}, oob: {}}\n"


def test_managers_a_ufm_bought_off_the_fabric_it_manages(catalog):
    model = build(UFM_TOP, catalog)
    assert run(model, catalog, "complete.managers").violations == 0
    f = model.fabrics["compute"]
    off = dataclasses.replace(model, fabrics={**model.fabrics, "compute": dataclasses.replace(
        f, groups=[g for g in f.groups if g.lower != Layer.UFM])})
    r = run(off, catalog, "complete.managers")
    assert r.severity == "error" and r.affected == 4
    assert messages(r) == [
        "the BOM buys 4 UFM appliances and 0 of their 4 compute ports are on the compute fabric they manage "
        f"({f.ufm.why})"]
    assert "management.ufm_count: 0" in r.kept[0].fix


def test_substitutions_a_port_priced_as_the_nodes(catalog):
    r = run(build(INTO_INBAND, catalog), catalog, "complete.substitutions")
    assert r.severity == "error" and r.violations == 1
    assert messages(r) == [
        "the oob ports are priced as the nodes' port on the inband fabric: qsfp28 at 100G: no 100 Gbit/s part in "
        "the catalog fits a qsfp28 cage serving 1 port and an osfp cage serving 4 ports to 4 devices at its ends; "
        "counted as the nodes' qsfp112 port at 200G"]
    assert "drop fabrics.oob.uplinks: inband" in r.kept[0].fix


def test_oob_a_management_port_left_uncabled(catalog):
    model = build(WITH_OOB, catalog)
    assert run(model, catalog, "complete.oob", plan=True).violations == 0
    found, report = sink()
    check = Managed(Context(model, catalog), report)
    dropped = 0
    for r in rows(model, catalog=catalog):
        if not dropped and r[COL["a_port"]] == "mgmt" and r[COL["a_role"]] == "node":
            dropped = 1   # the first node's BMC cable is not pulled
            continue
        check.row(r)
    check.done()
    assert len(found) == 1 and found[0].rule == "complete.oob"
    assert found[0].message.startswith("the rack holds ") and found[0].message.endswith(
        " node devices with a management port and the out-of-band fabric cables "
        f"{int(found[0].message.split()[3]) - 1} of them")


def test_labels_every_end_its_own_and_a_shared_place_found(catalog):
    model = build(WITH_OOB, catalog)
    assert run(model, catalog, "complete.labels", plan=True).violations == 0
    plan = list(rows(model, catalog=catalog))
    ends = plan_labels(FIELDS)
    labels = [x for r in plan for x in ends(r)]
    assert len(labels) == len(set(labels))
    # A 0U PDU takes its position index: the rack's PDUs no longer share "U 00".
    pdus = sorted({lab.split(":")[0] for lab in labels if "-0U" in lab})
    assert pdus and all(lab[-4:-2] == "0U" for lab in pdus)
    # Two devices at one place (a second device given the first's U): its ends' labels are the first's.
    a, b = next((x, y) for x in plan for y in plan if x[COL["a_rack"]] == y[COL["a_rack"]]
                and x[COL["a_device"]] != y[COL["a_device"]] and x[COL["a_u"]] and y[COL["a_u"]])
    moved = list(b)
    moved[COL["a_u"]] = a[COL["a_u"]]
    found, report = sink()
    check = Labels(Context(model, catalog), report)
    for r in (a, tuple(moved)):
        check.row(r)
    shared = ends(tuple(moved))[0]
    assert [v.message for v in found] == [
        f"{moved[COL['cable_id']]}'s a end is labelled {shared}, a label another end of the plan has"]
    # Two runs of one link with one mark: the second run's labels are the first's.
    found.clear()
    check.done()
    for r in (a, a):
        check.row(r)
    assert len(found) == 2 and {v.rule for v in found} == {"complete.labels"}
