"""The switch-fabric hop patterns (bom/links): one predicate per hop, one registry for both consumers."""

from __future__ import annotations

from pathlib import Path

import pytest

from bom.cableplan import rows as plan
from bom.inputs.scenario import load_scenario
from bom.links.fabric import FABRIC_HOPS
from bom.links.hop import FabricLinks
from bom.pipeline import build_scenario
from tests.paths import REFERENCE

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "scenarios"
SCENARIOS = [GOLDEN / f"{n}.yaml" for n in ("pair", "tor-ethernet", "three-layer-full", "planes-native")]
SCENARIOS += sorted(REFERENCE.glob("*.yaml"))[:2]


@pytest.fixture(scope="module", params=SCENARIOS, ids=lambda p: p.stem)
def model(request, catalog):
    sc, src = load_scenario(request.param)
    return build_scenario(sc, src, catalog)


def test_the_registry_names_each_hop_once_per_topology():
    names = [h.name for h in FABRIC_HOPS]
    assert names == ["node-leaf", "node-leaf", "leaf-leaf", "leaf-spine", "spine-core"]
    # The two node-leaf patterns split the topologies between them.
    rail, tor = FABRIC_HOPS[:2]
    for topology in ("rail-optimized", "tor", "pair"):
        p = type("P", (), {"topology": topology})()
        assert rail.applies(p) != tor.applies(p)


def test_the_predicates_are_the_ones_each_consumer_used(model):
    """Each hop's applies() agrees with what the build and the plan each asked before bom/links."""
    by_name = {h.name: h for h in FABRIC_HOPS[2:]}
    for f in model.fabrics.values():
        for _, p in f.shapes:
            assert by_name["leaf-leaf"].applies(p) == bool(p.isl)
            assert by_name["leaf-spine"].applies(p) == bool(p.leaf_up and p.spines_per_pod)
            assert by_name["leaf-spine"].applies(p) == (not p.isl and p.layers > 1)
            assert not (by_name["leaf-leaf"].applies(p) and by_name["leaf-spine"].applies(p))


def test_count_gives_the_compute_fabrics_groups(model, catalog):
    """The model's compute groups are the registry's counts, hop by hop, in registry order."""
    f = model.fabrics["compute"]
    hops = [g.hop for g in f.groups if g.hop != "ufm-leaf"]
    order = [h.name for h in FABRIC_HOPS]
    assert hops == sorted(hops, key=order.index)
    fab = FabricLinks.of(f)
    assert fab.first is f.shapes[0][1]
    applied = {h.name for h in FABRIC_HOPS for _, p in f.shapes if h.applies(p)}
    assert set(hops) == applied


def test_expand_rows_per_hop_match_the_counted_links(model, catalog):
    rows = plan.rows(model, plan.Unplaced(), catalog)
    hop, fabric = plan.COL["hop"], plan.COL["fabric"]
    links = plan.COL["link_id"]
    seen: dict[str, set[object]] = {}
    for r in rows:
        if r[fabric] == "compute":
            seen.setdefault(r[hop], set()).add(r[links])
    f = model.fabrics["compute"]
    for h in {h.name for h in FABRIC_HOPS}:
        assert len(seen.get(h, ())) == f.hop_links(h)
