"""Completeness: every link's parts, storage on a storage fabric, a part on every plan row."""

from __future__ import annotations

import dataclasses

from bom.cableplan.rows import COL, rows
from bom.model.hops import HopKind
from bom.rules.complete import Rows
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
