"""``uplink_rate`` as a rate (issue 42, item 6): every switch-to-switch link at the rate the scenario states.

Case: two segments of tests/reference/hpn_dual_plane.yaml (272 Alibaba HPN hosts, 2 x 200G per NIC dealt
over two planes) on 64 x 800G OSFP switches. ``uplink_rate: "400G"`` is the paper's ToR (section 5.1:
200G downstream ports, 400G upstream ports): the leaf keeps 34 cages of 4 x 200G for its 136 hosts and 30
cages of 2 x 400G for its 60 uplinks, breakouts of the same 800G cages. Per plane 16 leaves x 60 = 960
uplinks over spines of 128 x 400G: the fewest spines whose count divides 60 and takes them is 10 (7.5 at
least; 8 and 9 do not divide 60), 6 links a pair, 96 ports used each. At ``native`` the same cages run
one 800G link each: 30 a leaf, half the links, the same modules (a twin-port OSFP per cage either way).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bom.cableplan import rows as plan
from bom.errors import BomError, LimitError
from bom.inputs.scenario import scenario_from_text
from bom.inputs.yamlio import load_text
from bom.model.plane import Plane, SwitchPorts
from bom.pipeline.build import catalog_for
from bom.pipeline.model import build_model
from bom.topology.planes import check_uplink_rate

CASE = Path(__file__).parents[1] / "reference" / "hpn_dual_plane.yaml"
C = plan.COL


def _text(rate: str) -> str:
    return CASE.read_text().replace("nodes: 2040", "nodes: 272").replace('uplink_rate: "400G"', f"uplink_rate: {rate}")


@pytest.fixture(scope="module")
def hpn_catalog():  # type: ignore[no-untyped-def]
    text = _text('"400G"')
    return catalog_for(scenario_from_text(text, str(CASE)), load_text(text, str(CASE)))


def _model(catalog, text: str):  # type: ignore[no-untyped-def]
    return build_model(scenario_from_text(text, str(CASE)), load_text(text, str(CASE)), catalog, None)


def _leaf_spine(m) -> set[tuple[str, int, int, int]]:  # type: ignore[no-untyped-def]
    """(module, ports it serves, leaf-end modules, spine-end modules) of the leaf-spine link groups."""
    out: dict[tuple[str, int], list[int]] = {}
    for g in m.fabrics["compute"].groups:
        if g.hop == "leaf-spine":
            part = g.lower_end.part
            assert part is not None and part.id == g.upper_end.part.id
            n = out.setdefault((part.part_number, g.lower_end.ports), [0, 0])
            n[0] += g.modules_lower
            n[1] += g.modules_upper
    return {(*k, *v) for k, v in out.items()}


def test_400g_uplinks_are_breakouts_of_800g_cages(hpn_catalog) -> None:  # type: ignore[no-untyped-def]
    m = _model(hpn_catalog, _text('"400G"'))
    p = m.fabrics["compute"].first
    assert (p.leaf.rate_gbps, p.leaf.ports_per_cage, p.leaf_down) == (200.0, 4, 136)      # 34 cages down
    assert (p.up.rate_gbps, p.up.ports_per_cage, p.up.radix, p.leaf_up) == (400.0, 2, 128, 60)   # 30 cages up
    assert (p.spine.rate_gbps, p.spines, p.leaf_spine_per_pair, p.port_use("spine")) == (400.0, 10, 6, [(10, 96)])
    j = m.to_json()
    c = j["fabrics"]["compute"]
    assert (c["uplink_rate_gbps"], c["links"]["leaf-spine"], c["switches"]) == (
        400.0, 2 * 16 * 60, {"leaf": 32, "spine": 20, "core": 0})
    # A twin-port 2 x 400G module in each used cage at both ends: 32 leaves x 30, 20 spines x 48.
    assert _leaf_spine(m) == {("MMA4Z00-NS", 2, 32 * 30, 20 * 48)}
    # The plan: a leaf's uplinks are the two 400G halves of each of its cages 35 to 64.
    ups = [r[C["a_port"]] for r in plan.rows(m, plan.Unplaced(), hpn_catalog)
           if r[C["hop"]] == "leaf-spine" and r[C["a_device"]] == "s1-leaf-01"]
    assert sorted(ups) == sorted(f"p{c}/{k}" for c in range(35, 65) for k in (1, 2))


def test_native_runs_the_same_cages_at_800g(hpn_catalog) -> None:  # type: ignore[no-untyped-def]
    m = _model(hpn_catalog, _text("native"))
    p = m.fabrics["compute"].first
    assert (p.up.rate_gbps, p.up.ports_per_cage, p.leaf_up, p.leaf_spine_per_pair) == (800.0, 1, 30, 3)
    j = m.to_json()
    assert j["fabrics"]["compute"]["links"]["leaf-spine"] == 2 * 16 * 30
    assert _leaf_spine(m) == {("MMA4Z00-NS", 1, 32 * 30, 20 * 48)}   # the same module as one 800G port


def test_an_explicit_rate_on_a_storage_fabric(catalog) -> None:  # type: ignore[no-untyped-def]
    """The GB200 trays' 200G storage ports on SN5600 leaves: no part joins two switches at 200G, so ``native``
    takes 800G; ``"400G"`` runs the same pairs at 400G, twice the links, a twin-port module a cage."""
    base = "name: s\nplatform: gb200-nvl72\ngpus: 4608\nfabrics:\n  compute: {{switch: qm9700}}\n" \
           "  storage: {{switch: sn5600, uplink_rate: {rate}}}\n"
    out = {}
    for rate in ("native", '"400G"'):
        text = base.format(rate=rate)
        f = build_model(scenario_from_text(text), load_text(text, "s.yaml"), catalog, None).fabrics["storage"]
        out[rate] = (f.first.up.rate_gbps, f.hop_links("leaf-spine"), f.switches("leaf"), f.switches("spine"))
    assert out["native"][0] == 800.0 and out['"400G"'][0] == 400.0
    assert out['"400G"'][1] == 2 * out["native"][1] and out['"400G"'][2:] == out["native"][2:]


@pytest.mark.parametrize(("rate", "said"), [
    ('"100G"', "uplink_rate 100G is below the nodes' 200G on the compute fabric"),
    ('"1.6T"', "uplink_rate 1600G: arista-7060x6-64pe's ports run at 800, 400, 200 Gbit/s, not 1600"),
])
def test_a_rate_the_switches_cannot_run_is_refused(hpn_catalog, rate: str, said: str) -> None:  # type: ignore[no-untyped-def]
    from bom.pipeline.build import build_scenario

    text = _text(rate)
    with pytest.raises(BomError) as e:
        build_scenario(scenario_from_text(text, str(CASE)), load_text(text, str(CASE)), hpn_catalog)
    assert said in str(e.value) and e.value.key == "fabrics.compute.uplink_rate"
    assert "Use uplink_rate: native" in (e.value.hint or "")


def test_a_plane_left_at_another_rate_is_refused() -> None:
    """The planner spreads uplinks in whole links of the stated rate; a plane it could not spread so is refused,
    never built at the nodes' rate in its stead."""
    s = SwitchPorts("s", 256, 4, "osfp", 100.0, 200.0)
    p = Plane(topology="rail-optimized", layers=2, group_nodes=8, groups=1, last_group_nodes=8, node_ports=8,
              leaves_per_group=1, leaf_down=128, leaf_up=128, pods=1, groups_per_pod=1, spines_per_pod=2,
              cores_per_group=0, leaf=s, spine=s)
    check_uplink_rate("compute", p, 200.0)
    with pytest.raises(LimitError, match="cannot spread their uplinks in whole 400G links") as e:
        check_uplink_rate("compute", p, 400.0)
    assert e.value.key == "uplink_rate"
