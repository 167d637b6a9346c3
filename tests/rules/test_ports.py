"""Ports: no layer with more links than ports (closed form), every plan port once (the plan)."""

from __future__ import annotations

import itertools

from bom.cableplan.rows import COL, rows
from bom.model.hops import HopKind
from bom.rules.context import Context
from bom.rules.ports import Unique
from tests.rules.cases import group, messages, run, sink, with_group


def test_a_clean_design_uses_no_port_twice(clean, catalog):
    assert run(clean, catalog, "ports.count").violations == 0
    r = run(clean, catalog, "ports.unique", plan=True)
    assert r.violations == 0 and r.read == ("plan",)


def test_count_more_leaf_spine_links_than_the_spines_have_ports(clean, catalog):
    g = group(clean, "compute", HopKind.LEAF_SPINE)
    model = with_group(clean, "compute", HopKind.LEAF_SPINE, links=g.links * 4)
    r = run(model, catalog, "ports.count")
    assert r.severity == "error"
    spines = clean.fabrics["compute"].switches("spine")
    found = {v.where: v.message for v in r.kept}
    # 4 x 256 leaf-spine links on the leaves' uplinks and the spines' downlinks, plus the node links
    assert found[f"compute spine ({spines} x qm9700)"] == (
        f"the links at this layer take 1,024 of its {spines * 64} ports (64 on each switch)")
    assert f"compute leaf ({clean.fabrics['compute'].switches('leaf')} x qm9700)" in found


def _plan(model, catalog) -> list[tuple[object, ...]]:   # type: ignore[no-untyped-def]
    return list(rows(model, catalog=catalog))


def _unique(model, catalog, plan_rows) -> list:   # type: ignore[no-untyped-def,type-arg]
    found, report = sink()
    check = Unique(Context(model, catalog), report)
    for r in plan_rows:
        check.row(r)
    check.done()
    return found


def test_unique_a_second_link_on_a_used_port(clean, catalog):
    plan = _plan(clean, catalog)
    first, second = plan[0], list(plan[1])
    c = COL
    for k in ("b_device", "b_port", "b_u"):
        second[c[k]] = first[c[k]]
    found = _unique(clean, catalog, [first, tuple(second), *plan[2:]])
    assert len(found) == 1
    v = found[0]
    assert v.where == "s1-r01-rk05-leaf-01:p1/1"
    assert v.message == "C00000002 (compute node-leaf, link L00000002) lands on a port another link already uses"
    assert v.b.device == "s1-r01-rk05-leaf-01" and v.b.port == "p1/1" and v.b.what == "rack s1-r01-rk05 U1"


def test_unique_the_runs_of_one_link_share_its_ports(clean, catalog):
    # A link of several fibre runs (an 800G 2xSR4 over two MPO trunks) is several rows on one pair of ports.
    plan = _plan(clean, catalog)
    doubled = list(itertools.chain.from_iterable((r, r) for r in plan))
    assert _unique(clean, catalog, doubled) == []


def test_unique_forgets_endpoints_of_a_finished_site_not_switches(clean, catalog):
    plan = _plan(clean, catalog)
    c = COL
    other_site = list(plan[1])
    other_site[c["a_site"]] = "s2"      # the same node port again, in another fabric and site's rows:
    other_site[c["a_device"]] = plan[0][c["a_device"]]
    other_site[c["a_port"]] = plan[0][c["a_port"]]
    found = _unique(clean, catalog, [plan[0], tuple(other_site)])
    # ... a node's ports are its fabric's and site's (storage-p1, mgmt): not remembered past them.
    assert found == []
    leaf_again = list(plan[1])
    leaf_again[c["a_site"]] = "s2"
    leaf_again[c["b_port"]] = plan[0][c["b_port"]]
    leaf_again[c["b_device"]] = plan[0][c["b_device"]]
    assert len(_unique(clean, catalog, [plan[0], tuple(leaf_again)])) == 1   # a switch's ports are


def test_unique_reads_the_plan_of_a_real_design_once(clean, catalog):
    r = run(clean, catalog, "ports.unique", plan=True)
    assert messages(r) == []
