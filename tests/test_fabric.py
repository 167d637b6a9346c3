"""Closed-form fabric counts against an explicit graph, and the published shapes."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from bom.errors import LimitError
from bom.fabric import SwitchPorts, plan, smallest_spread
from bom.floorplan import DEFAULTS, FloorPlan, leaf_spine, node_leaf, spine_core
from tests.explicit_fabric import build


def sw(radix: int, per_cage: int = 2) -> SwitchPorts:
    return SwitchPorts("sw", radix, per_cage, "osfp", 100.0, 400.0)


FLOOR = FloorPlan(4, 8, DEFAULTS["rack_width"], DEFAULTS["row_pitch"], DEFAULTS["rise"],
                  DEFAULTS["slack"], DEFAULTS["in_rack"])


def modules(groups, per_cage):
    """Closed-form cage rule over end groups, all runs of a device together."""
    return sum(n * math.ceil(sum(runs.values()) / per_cage) for n, runs in groups)


def ports(groups):
    return sum(n * sum(runs.values()) for n, runs in groups)


configs = st.fixed_dictionaries({
    "radix": st.sampled_from([8, 12, 16, 32]),
    "per_cage": st.sampled_from([1, 2]),
    "topology": st.sampled_from(["rail-optimized", "tor"]),
    "node_ports": st.integers(1, 4),
    "group": st.integers(1, 12),
    "nodes": st.integers(1, 120),
    "over": st.sampled_from([1.0, 2.0, 3.0]),
    "layers": st.sampled_from([2, 3]),
    "blocks": st.booleans(),
})


@settings(max_examples=250, deadline=None)
@given(c=configs)
def test_closed_form_equals_the_explicit_graph(c):
    s = sw(c["radix"], c["per_cage"])
    try:
        p = plan(c["nodes"], c["node_ports"], s, s, topology=c["topology"], group_nodes=c["group"],
                 layers=c["layers"], oversubscription=c["over"], node_blocks=c["blocks"])
    except LimitError:
        assume(False)
    g = build(c["nodes"], c["node_ports"], c["node_ports"], c["radix"], c["per_cage"],
              topology=c["topology"], group=c["group"], over=c["over"], layers=p.layers, blocks=c["blocks"])
    # Invariants of the explicit graph.
    used = g.used_ports()
    for dev, ps in used.items():
        assert max(ps) < g.radix[dev], f"{dev} uses more ports than it has"
    assert all(len(used[f"n{n}"]) == c["node_ports"] for n in range(c["nodes"]))
    assert 2 * len(g.links) == sum(len(ps) for ps in used.values())
    # Closed form against it.
    assert (p.leaves, p.spines, p.cores) == (g.count("leaf"), g.count("spine"), g.count("core"))
    assert p.node_leaf_links == g.hop("node-leaf")
    assert p.leaf_spine_links == g.hop("leaf-spine")
    assert p.spine_core_links == g.hop("spine-core")
    nodes, leaves = node_leaf(p, FLOOR)
    leaf_up, spines = leaf_spine(p, FLOOR)
    assert ports(nodes) == ports(leaves) == p.node_leaf_links
    assert ports(leaf_up) == ports(spines) == p.leaf_spine_links
    assert modules(nodes, c["node_ports"]) == g.modules("node")
    leaf_modules = modules(leaves, c["per_cage"]) + modules(leaf_up, c["per_cage"])
    assert leaf_modules == g.modules("leaf")
    assert modules(spines, c["per_cage"]) + (
        modules(spine_core(p, FLOOR)[0], c["per_cage"]) if p.layers == 3 else 0) == g.modules("spine")
    if p.layers == 3:
        up, cores = spine_core(p, FLOOR)
        assert ports(up) == ports(cores) == p.spine_core_links
        assert modules(cores, c["per_cage"]) == g.modules("core")
    # Every leaf has the same number of links to every spine it reaches.
    per_pair = {}
    for hop, (a, _), (b, _) in g.links:
        if hop == "leaf-spine":
            per_pair[(a, b)] = per_pair.get((a, b), 0) + 1
    assert len(set(per_pair.values())) <= 1


def test_spread_rule():
    assert smallest_spread(32, 32, 64) == 16      # SuperPOD 4 SU
    assert smallest_spread(72, 32, 144) == 18     # 32 XDR leaves: 16 would not divide 72
    assert smallest_spread(4, 100, 64) is None


def test_three_layers():
    # 1,000 DGX-like nodes, 8 rails, 64-port switches, SU of 32: 32 SUs, 256 leaves (8 per SU).
    # A three-layer spine has 32 ports down: a pod holds 32 / 8 = 4 SUs -> 8 pods.
    # Spines per pod: 32 leaves x 32 uplinks over 32 down ports -> 32. Cores: every pod's
    # spine i joins core group i; 8 pods x 32 up ports over 64 -> 4 cores per group, 128.
    s = sw(64)
    p = plan(1000, 8, s, s, topology="rail-optimized", group_nodes=32)
    assert p.layers == 3 and p.pods == 8 and p.leaves == 256
    assert (p.spines, p.cores) == (8 * 32, 32 * 4)
    assert p.node_leaf_links == 8000
    assert p.leaf_spine_links == 256 * 32 and p.spine_core_links == 256 * 32


def test_oversubscribed_tor():
    # 40 nodes x 2 ports, 4 per rack, 32-port ToR at 3:1 -> 8 up / 24 down per ToR; a rack
    # needs 8 ports, so 1 ToR, and uplinks are sized to its 8 ports / 3 -> 3 ports, rounded up
    # to whole 2-port cages: 4. 10 racks: 10 ToRs x 4 = 40 uplinks; spines: the smallest
    # divisor of 4 with 10 x 4 / d <= 32 is 2.
    s = sw(32)
    p = plan(40, 2, s, s, topology="tor", group_nodes=4, oversubscription=3.0)
    assert (p.leaf_down, p.leaf_up) == (24, 4)
    assert (p.leaves, p.spines, p.layers) == (10, 2, 2)
    assert p.node_leaf_links == 80 and p.leaf_spine_links == 40


def test_two_planes(catalog):
    # An 800G NIC split into two 400G planes: each plane is a full fabric of its own.
    from bom.build import build_model
    from bom.scenario import scenario_from_text
    from bom.yamlio import load_text

    text = ("name: planes\nplatform: dgx-b300\nnodes: 64\nfabrics:\n  compute:\n    switch: sn5600\n"
            "    planes: 2\n    su_nodes: 32\n")
    m2 = build_model(scenario_from_text(text), load_text(text, "p.yaml"), catalog, None).fabrics["compute"]
    # dgx-b300: 8 x 800G per node. Two planes: each 800G cage carries 2 x 400G, one per plane.
    # Per plane at 400G an SN5600 has 128 ports (up to 64 down): SUs of 32 -> 2 SUs x 8 rail
    # leaves = 16 leaves, each with 32 uplinks for its 32 nodes; 16 x 32 uplinks over 128
    # ports -> 4 spines; all of it twice.
    assert m2.planes == 2 and m2.first.leaf.radix == 128
    assert (m2.switches("leaf"), m2.switches("spine")) == (2 * 16, 2 * 4)
    assert m2.hop_links("node-leaf") == 2 * 64 * 8 and m2.hop_links("leaf-spine") == 2 * 16 * 32
    # The node keeps one module per cage: 8 cages, each a twin-port 2 x 400G flat-top module.
    assert m2.modules_at("node") == 64 * 8
    node_group = next(g for g in m2.groups if g.hop == "node-leaf")
    assert node_group.lower_end.ports == 2 and node_group.lower_end.form_factor == "osfp-flat"


def test_limits():
    s = sw(8)
    with pytest.raises(LimitError, match="two layers"):
        plan(500, 4, s, s, topology="rail-optimized", group_nodes=4, layers=2)
    with pytest.raises(LimitError, match="three layers of sw hold at most"):
        plan(100_000, 4, s, s, topology="rail-optimized", group_nodes=4)
