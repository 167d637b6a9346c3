"""Closed-form fabric counts against an explicit graph, and the published shapes."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from bom.errors import LimitError
from bom.links.fabric import LeafLeaf, LeafSpine, NodeLeafRail, NodeLeafTor, SpineCore
from bom.links.pattern import HopContext, Pattern
from bom.links.views import FabricLinks
from bom.model.floorplan import EndGroups, FloorPlan
from bom.model.plane import NativePorts, SwitchPorts
from bom.topology.geometry import DEFAULTS
from bom.topology.planes import size_plane, smallest_spread
from tests.explicit_fabric import build


def sw(radix: int, per_cage: int = 2) -> SwitchPorts:
    return SwitchPorts("sw", radix, per_cage, "osfp", 100.0, 400.0)


FLOOR = FloorPlan(4, 8, DEFAULTS["rack_width"], DEFAULTS["row_pitch"], DEFAULTS["rise"],
                  DEFAULTS["slack"], DEFAULTS["in_rack"])


class OneRack:
    """A floor with every device in one rack: the counts without the runs (each end is in-rack)."""

    def __init__(self, p) -> None:  # type: ignore[no-untyped-def]
        self.node_part = type("Part", (), {"first": 0, "copies": 1,
                                           "per_copy": (p.groups - 1) * p.group_nodes + p.last_group_nodes})()

    def spot(self, role: str, index: int) -> tuple[int, int]:
        return (1, 1)

    def spots(self, role: str) -> list[tuple[int, int]]:
        return _ALL

    def parts(self, role: str) -> tuple:
        return (self.node_part,)


class _Everywhere(list):
    def __getitem__(self, i):  # type: ignore[no-untyped-def, override]
        return (1, 1)


_ALL = _Everywhere()


def ends(pattern: Pattern[FabricLinks], p, floor=None) -> tuple[EndGroups, EndGroups]:  # type: ignore[no-untyped-def]
    """The hop's two ends on one site of plane ``p`` (every device in one rack unless ``floor``), as
    the closed form counts them (the pattern's pairs, bom/links)."""
    view = FabricLinks("compute", "scale-out", [(1, p)], [floor or OneRack(p)])
    return pattern.ends(HopContext(view, FLOOR))


def node_leaf_ends(p, floor=None):  # type: ignore[no-untyped-def]
    return ends(NodeLeafTor() if p.topology == "tor" else NodeLeafRail(), p, floor)


def modules(groups, per_cage):
    """Closed-form cage rule over end groups, all runs of a device together."""
    return sum(n * math.ceil(sum(runs.values()) / per_cage) for n, runs in groups)


def ports(groups):
    return sum(n * sum(runs.values()) for n, runs in groups)


configs = st.fixed_dictionaries({
    "radix": st.sampled_from([8, 12, 16, 32]),
    "per_cage": st.sampled_from([1, 2]),
    "topology": st.sampled_from(["rail-optimized", "tor", "pair", "rail-only"]),
    "node_ports": st.integers(1, 4),
    "group": st.integers(1, 12),
    "nodes": st.integers(1, 120),
    "over": st.sampled_from([Fraction(1), Fraction(2), Fraction(3), Fraction(4, 3), Fraction(1, 2),
                             Fraction(25, 29)]),
    "layers": st.sampled_from([None, 1, 2, 3]),
    "rails": st.sampled_from([None, None, 1, 2]),
    "spine": st.sampled_from([None, None, Fraction(1), Fraction(7), Fraction(3, 2)]),
    "blocks": st.booleans(),
    "native": st.booleans(),
})


def admitted(c) -> bool:
    """What the scenario's validators and the preflight let reach the planner (it asserts the rest)."""
    t, layers, rails = c["topology"], c["layers"], c["rails"]
    if t == "pair":
        return layers in (None, 1) and (c["node_ports"] % 2 == 0 or c["node_ports"] == 1)
    if rails is not None and (t == "tor" or c["blocks"] or c["node_ports"] % rails):
        return False
    if t == "rail-only":
        return layers in (None, 1)
    return c["spine"] in (None, 1) or layers != 2


@pytest.mark.slow   # 300 examples: about 1.5 s, too near the fast loop's 2 s on a loaded machine
@settings(max_examples=300, deadline=None)
@given(c=configs)
def test_closed_form_equals_the_explicit_graph(c):
    assume(admitted(c))
    s = sw(c["radix"], c["per_cage"])
    # Native ports: a cage of 2 ports at the plane rate is one port at twice the rate.
    native = (SwitchPorts("sw", c["radix"] // 2, 1, "osfp", 100.0, 800.0)
              if c["native"] and c["per_cage"] == 2 else None)
    k = 2 if native else 1
    try:
        p = size_plane(c["nodes"], c["node_ports"], s, s, topology=c["topology"], group_nodes=c["group"],
                      layers=c["layers"], oversubscription=c["over"], node_blocks=c["blocks"], native=native,
                      rails_per_leaf=c["rails"], spine_oversubscription=c["spine"])
    except LimitError:
        assume(False)
    g = build(c["nodes"], c["node_ports"], c["node_ports"], c["radix"], c["per_cage"],
              topology=c["topology"], group=c["group"], over=c["over"], layers=p.layers, blocks=c["blocks"],
              native=k, rails=c["rails"], spine_over=c["spine"] or 1)
    # Invariants of the explicit graph.
    used = g.used_ports()
    for dev, ps in used.items():
        assert max(ps) < g.radix[dev], f"{dev} uses more ports than it has"
    assert all(len(used[f"n{n}"]) == c["node_ports"] for n in range(c["nodes"]))
    # Closed form against it.
    assert (p.leaves, p.spines, p.cores) == (g.count("leaf"), g.count("spine"), g.count("core"))
    assert p.node_leaf_links == g.hop("node-leaf")
    assert p.leaf_spine_links == g.hop("leaf-spine")
    assert p.spine_core_links == g.hop("spine-core")
    assert p.leaf_leaf_links == g.hop("leaf-leaf")
    one = OneRack(p)
    nodes, leaves = node_leaf_ends(p, one)
    assert ports(nodes) == ports(leaves) == p.node_leaf_links
    assert modules(nodes, c["node_ports"]) == g.modules("node")
    leaf_modules = modules(leaves, c["per_cage"])
    spine_modules = 0
    if p.isl:
        lo, hi = ends(LeafLeaf(), p, one)
        assert ports(lo) == ports(hi) == p.leaf_leaf_links
        leaf_modules += modules(lo, p.up.ports_per_cage) + modules(hi, p.up.ports_per_cage)
    if p.layers > 1:
        leaf_up, spines = ends(LeafSpine(), p, one)
        assert ports(leaf_up) == ports(spines) == p.leaf_spine_links
        leaf_modules += modules(leaf_up, p.up.ports_per_cage)
        spine_modules += modules(spines, p.spine.ports_per_cage)
    if p.layers == 3:
        up, cores = ends(SpineCore(), p, one)
        assert ports(up) == ports(cores) == p.spine_core_links
        spine_modules += modules(up, p.spine.ports_per_cage)
        assert modules(cores, p.spine.ports_per_cage) == g.modules("core")
    assert leaf_modules == g.modules("leaf")
    assert spine_modules == g.modules("spine")
    # Every leaf has the same number of links to every spine it reaches (and spine to core).
    for hop in ("leaf-spine", "spine-core"):
        assert len(set(g.per_pair(hop).values())) <= 1
    # No switch is over its radix, counted in the closed form's own ports.
    at_native = 2 if p.leaf_uplink is not None else 1
    assert p.leaf_down + p.leaf_up * at_native <= s.radix or p.layers == 1
    assert all(sum(r.values()) <= p.spine.radix for _, r in (ends(LeafSpine(), p, one)[1]
                                                              if p.layers > 1 else []))
    # The ports each spine and core uses (what a modular chassis fills with line cards), in the
    # closed form's own ports, equal the explicit graph's, switch by switch.
    for layer in ("spine", "core"):
        explicit = sorted(len(used[d]) // at_native for d, kind in g.layer.items() if kind == layer)
        assert explicit == sorted(u for n, u in p.port_use(layer) for _ in range(n)), layer


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
    p = size_plane(1000, 8, s, s, topology="rail-optimized", group_nodes=32)
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
    p = size_plane(40, 2, s, s, topology="tor", group_nodes=4, oversubscription=3.0)
    assert (p.leaf_down, p.leaf_up) == (24, 4)
    assert (p.leaves, p.spines, p.layers) == (10, 2, 2)
    assert p.node_leaf_links == 80 and p.leaf_spine_links == 40


def test_two_planes(catalog):
    # An 800G NIC split into two 400G planes: each plane is a full fabric of its own.
    from bom.inputs.scenario import scenario_from_text
    from bom.inputs.yamlio import load_text
    from bom.pipeline.model import build_model

    text = ("name: planes\nplatform: dgx-b300\nnodes: 64\nfabrics:\n  compute:\n    switch: sn5600\n"
            "    planes: 2\n    su_nodes: 32\n")
    m2 = build_model(scenario_from_text(text), load_text(text, "p.yaml"), catalog, None).fabrics["compute"]
    # dgx-b300: 8 x 800G per node. Two planes: each 800G cage carries 2 x 400G, one per plane.
    # Per plane at 400G an SN5600 has 128 ports (up to 64 down): an SU of 32 nodes fills a
    # leaf with 2 rails (2 x 32 = 64 downlinks) -> 4 leaves per SU, 8 per plane, each with
    # 64 x 400G of uplinks; 8 x 64 over 128 ports -> 4 spines, 16 x 400G to each: 8 native
    # 800G ports per leaf-spine pair, so the uplinks run at 800G: 32 per leaf. All twice.
    assert m2.planes == 2 and m2.first.leaf.radix == 128
    assert (m2.switches("leaf"), m2.switches("spine")) == (2 * 8, 2 * 4)
    assert m2.hop_links("node-leaf") == 2 * 64 * 8 and m2.hop_links("leaf-spine") == 2 * 8 * 32
    assert {g.rate_gbps for g in m2.groups if g.hop == "leaf-spine"} == {800.0}
    # The node keeps one module per cage: 8 cages, each a twin-port 2 x 400G flat-top module.
    assert m2.modules_at("node") == 64 * 8
    node_group = next(g for g in m2.groups if g.hop == "node-leaf")
    assert node_group.lower_end.ports == 2 and node_group.lower_end.form_factor == "osfp-flat"


def test_limits():
    s = sw(8)
    with pytest.raises(LimitError, match="two layers"):
        size_plane(500, 4, s, s, topology="rail-optimized", group_nodes=4, layers=2)
    with pytest.raises(LimitError, match="three layers of sw hold at most"):
        size_plane(100_000, 4, s, s, topology="rail-optimized", group_nodes=4)


def test_four_to_three_written_as_a_decimal():
    # 16 racks of 16 nodes x 2 ports: one 128-port (400G) ToR per rack takes 32 ports. At 4:3
    # it needs 32 x 3/4 = 24 uplinks; 16 x 24 over 128-port spines -> 3 spines (8 links each).
    # Read as the float 1.333, 32 / 1.333 = 24.006 would round up to 26 (whole cages) and
    # 26's divisors would force 13 spines: the ratio is snapped to 4:3 (bom.topology.planes.ratio).
    s = sw(128)
    for written in ("4:3", 1.333, 1.3333, Fraction(4, 3)):
        p = size_plane(256, 2, s, s, topology="tor", group_nodes=16, oversubscription=written)
        assert (p.leaf_up, p.leaves, p.spines) == (24, 16, 3), written
    assert size_plane(256, 2, s, s, topology="tor", group_nodes=16, oversubscription=1.3).leaf_up == 26


def test_several_rails_per_leaf_when_the_leaf_holds_them():
    # A 64-port leaf at 1:1 has 32 downlinks, so an 8-node pod of 8 rails puts 4 rails on each
    # leaf (4 x 8 = 32): 2 leaves, not 8 leaves using 8 ports each.
    s = sw(64)
    p = size_plane(12, 8, s, s, topology="rail-optimized", group_nodes=32)
    # 12 nodes < one SU of 32: the pod sets the leaves; 2 rails fit (2 x 12 = 24 <= 32), 4 do not.
    assert (p.rails_per_leaf, p.leaves, p.leaf_up) == (2, 4, 24)
    p = size_plane(8, 8, s, s, topology="rail-optimized", group_nodes=32, layers=2)
    assert (p.rails_per_leaf, p.leaves, p.spines, p.leaf_up) == (4, 2, 1, 32)
    # A pod whose ports fit one switch is that switch (no spines): 4 nodes x 8 = 32 <= 64.
    p = size_plane(4, 8, s, s, topology="rail-optimized", group_nodes=32)
    assert (p.layers, p.leaves, p.spines, p.leaf_up) == (1, 1, 0, 0)


def test_switch_pair_limits(bom, tmp_path):
    s = sw(64)
    p = size_plane(8, 8, s, s, topology="pair", group_nodes=32)
    assert (p.leaves, p.spines, p.isl, p.leaf_down) == (2, 0, 32, 32)
    # One port per node: the nodes split over the two switches, the ISLs carry one side's half.
    p = size_plane(9, 1, s, s, topology="pair", group_nodes=32)
    assert (p.leaves, p.leaf_down, p.isl, p.node_leaf_links) == (2, 5, 6, 9)
    # An odd number of ports and a second layer are refused before any plan (tests/topology/test_preflight.py).
    path = tmp_path / "p.yaml"
    path.write_text("name: p\nplatform: dgx-h100\nnodes: 4\nfabrics:\n  compute: {topology: pair, su_nodes: 4}\n")
    r = bom("build", str(path), "--json")
    assert r.exit_code == 2 and "fabrics.compute.su_nodes" in r.output and "su_nodes" in r.output


def test_open_small_pod_two_rails_per_leaf(catalog):
    # OPG-256, an open 256-GPU training pod (rail-optimised variant: "32 servers x 8 xPUs",
    # "CX7 1x400G", "4 DS5000 leaves (2 rails per leaf). Each backend rail leaf reserves 32x800G
    # uplinks"; DS5000 = 64 x 800G OSFP, the SN5600's class). Its switch summary lists 4 spines
    # where the spreading rule needs 2 (each leaf's 32 x 800G over 2 spines, 16 each): the
    # leaves and uplinks are checked here, not the spine count.
    from bom.inputs.scenario import scenario_from_text
    from bom.inputs.yamlio import load_text
    from bom.pipeline.model import build_model

    text = "name: opg\nplatform: hgx-h100\nnodes: 32\nfabrics:\n  compute: {switch: sn5600}\n"
    f = build_model(scenario_from_text(text), load_text(text, "o.yaml"), catalog, None).fabrics["compute"]
    j = f.to_json()
    assert j["switches"]["leaf"] == 4 and j["rails_per_leaf"] == 2
    assert j["uplink_rate_gbps"] == 800.0 and j["links"]["leaf-spine"] == 4 * 32
    assert j["switches"]["spine"] == 2


# --- issue 22: rails per leaf, rail-only, ratios below 1:1 and per layer -------------------------

def test_rails_per_leaf_keeps_a_leaf_per_rail_where_one_switch_would_do():
    s = sw(128)
    one = size_plane(8, 8, s, s, topology="rail-optimized", group_nodes=4)
    assert (one.leaves, one.layers) == (1, 1)                       # 64 ports fit one switch
    p = size_plane(8, 8, s, s, topology="rail-optimized", group_nodes=4, rails_per_leaf=1)
    assert (p.leaves, p.leaves_per_group, p.rails_per_leaf, p.layers) == (16, 8, 1, 2)
    assert p.leaf_up == 4 and p.node_leaf_links == p.leaf_spine_links == 64
    two = size_plane(8, 8, s, s, topology="rail-optimized", group_nodes=4, rails_per_leaf=2)
    assert (two.leaves, two.rails_per_leaf) == (8, 2)


def test_rail_only_every_node_of_a_rail_on_one_leaf():
    s = sw(128)
    p = size_plane(32, 8, s, s, topology="rail-only", group_nodes=32)
    assert (p.leaves, p.rails_per_leaf, p.spines, p.layers, p.leaf_up) == (2, 4, 0, 1, 0)
    nodes, leaves = node_leaf_ends(p)
    assert ports(leaves) == 256 and all(sum(runs.values()) == 128 for _, runs in leaves)
    p1 = size_plane(32, 8, s, s, topology="rail-only", group_nodes=32, rails_per_leaf=1)
    assert (p1.leaves, p1.spines) == (8, 0)
    with pytest.raises(LimitError, match="129 nodes are more than the 128 ports"):
        size_plane(129, 8, s, s, topology="rail-only", group_nodes=32)
    # layers: 1 on a rail-optimized fabric is the same shape.
    assert size_plane(32, 8, s, s, topology="rail-optimized", group_nodes=16, layers=1) == p.__class__(
        **{**p.__dict__, "topology": "rail-optimized"})


def test_undersubscribed_leaf_has_more_uplinks_than_downlinks():
    s = sw(64)
    p = size_plane(64, 8, s, s, topology="rail-optimized", group_nodes=16, oversubscription=Fraction(1, 2))
    used = p.group_nodes * p.rails_per_leaf
    assert p.leaf_up == 2 * used and p.leaf_down + p.leaf_up <= 64
    amd = size_plane(128, 8, sw(128), sw(128), topology="rail-optimized", group_nodes=32, oversubscription="1:1.16")
    assert (amd.leaf_up, amd.group_nodes * amd.rails_per_leaf) == (38, 32)   # 38 / 32 >= 1.16 > 36 / 32


def test_spine_ratio_tapers_the_spines_uplinks():
    s = sw(64)
    flat = size_plane(512, 8, s, s, topology="rail-optimized", group_nodes=32, layers=3)
    taper = size_plane(512, 8, s, s, topology="rail-optimized", group_nodes=32, layers=3, spine_oversubscription=7)
    assert flat.spine_uplinks == flat.pod_size * flat.leaf_spine_per_pair            # 1:1
    assert taper.spine_uplinks * 7 == taper.pod_size * taper.leaf_spine_per_pair    # 7:1
    assert taper.spine_core_links * 6 < taper.leaf_spine_links
    # auto picks three layers for a spine ratio; two layers have no spine uplinks to set.
    assert size_plane(64, 8, s, s, topology="rail-optimized", group_nodes=32, spine_oversubscription=3).layers == 3
    # A spine ratio with layers: 2 is the scenario's refusal (tests/topology/test_preflight.py).


@pytest.mark.parametrize("nodes,ok", [(8, True), (128, False)])
def test_storage_in_one_layer(catalog, nodes, ok):
    from bom.errors import BomError
    from bom.inputs.scenario import scenario_from_text
    from bom.inputs.yamlio import load_text
    from bom.pipeline import build_scenario

    text = (f"name: s\nplatform: dgx-h100\nnodes: {nodes}\nfabrics:\n  compute: {{}}\n"
            "  storage: {switch: sn5600, layers: 1}\n")
    if ok:
        f = build_scenario(scenario_from_text(text), load_text(text, "s.yaml"), catalog).fabrics["storage"]
        assert (f.switches("leaf"), f.switches("spine"), f.layers) == (1, 0, 1)
    else:
        with pytest.raises(BomError, match="one layer of tor leaves") as e:
            build_scenario(scenario_from_text(text), load_text(text, "s.yaml"), catalog)
        assert e.value.key == "fabrics.storage.layers"


# A Jericho3-AI interface node: 36 x 400G host ports, 20 x 800G fabric cages (40 halves); a Ramon3
# fabric element of 128 x 800G cages (256 halves).
J3_HOST = SwitchPorts("j3", 36, 2, "osfp", 100, 400)
J3_HALVES = SwitchPorts("j3", 40, 2, "osfp", 400, 400)
R3_HALVES = SwitchPorts("r3", 256, 2, "osfp", 100, 400)
NATIVE = NativePorts(SwitchPorts("j3", 20, 1, "osfp", 800, 800), SwitchPorts("r3", 128, 1, "osfp", 100, 800))


@pytest.mark.parametrize("nodes, leaves, elements, rate, per_pair", [
    (288, 64, 10, 800, 2),     # 64 x 40 halves over 10 elements: 4 halves, two whole 800G ports a pair
    (864, 192, 40, 400, 1),    # 192 x 40 over 40: one half a pair, the two halves of a cage to two elements
    (36, 8, 2, 800, 10),       # one SU: every fabric port still cabled
])
def test_a_scheduled_leaf_cables_every_fabric_port_spread_evenly(nodes, leaves, elements, rate, per_pair):
    p = size_plane(nodes, 8, J3_HOST, R3_HALVES, topology="rail-optimized", group_nodes=36, leaf_uplink=J3_HALVES,
                  native=NATIVE, scheduled=True)
    assert (p.leaves, p.spines, p.up.rate_gbps, p.leaf_spine_per_pair) == (leaves, elements, rate, per_pair)
    assert p.leaf_up * p.up.rate_gbps == 20 * 800 and p.scheduled

