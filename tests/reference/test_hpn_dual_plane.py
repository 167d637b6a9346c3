"""Alibaba HPN: a dual-plane, dual-ToR Pod (issue 42, item 6), every count against the paper.

Source: Kun Qian et al., "Alibaba HPN: A Data Center Network for Large Language Model Training", ACM
SIGCOMM 2024 (doi 10.1145/3651890.3672265; the PDF at ennanzhai.github.io/pub/sigcomm24-hpn.pdf, read
2026-12-06):

- section 3: each host has 8 GPUs and 8 backend NICs, "each with 2x200Gbps"; "The two ports of each
  NIC are connected to different ToRs"; "a host connects to 16 ToRs in the backend network"; "The
  traffic sent from port 0 of the source NIC ... received only by port 0 of the destination NIC"
  (dual-plane);
- section 5.1: "each switch possesses 128 active + 8 backup 200Gbps downstream ports and 60 upstream
  400Gbps ports" (1.067:1 over the active hosts), a 51.2 Tbit/s single-chip ToR;
- Figure 7: a segment is ToR1..ToR16 over Host 1..Host 136, "1024 (active) + 64 (backup) GPUs";
  Agg1..Agg60 in each of Plane1 and Plane2, "120*400G" down and "8*400G" up (to the cores, not built
  here); 15 segments a Pod;
- section 6.1: "there are 60 equivalent Agg switches in each plane"; Table 1: "Pod in HPN 15360"
  GPUs in 2 tiers; Table 2: dual-plane doubles the tier-2 scale (a Pod of one plane cannot be two tiers).

Built: tests/reference/hpn_dual_plane.yaml, 15 segments of 136 hosts, ``planes: 2, planes_by: port``,
``uplink_rate: "400G"`` on 64 x 800G 51.2T switches, on the host of tests/reference/hpn/ (a catalog
overlay citing the same paper). Per plane: 8 ToRs a segment (one per rail), 120 in the Pod, each with
136 x 200G down and 60 x 400G up; 120 x 60 = 7,200 uplinks over aggregation switches of 128 x 400G:
the fewest whose count divides 60 and takes them is 60 (7,200 / 60 = 120 ports each, the paper's
"120*400G"), one link from every ToR to every aggregation switch of its plane.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bom.cableplan import rows as plan
from bom.errors import BomError
from bom.inputs.scenario import load_scenario, scenario_from_text
from bom.inputs.yamlio import load_text
from bom.pipeline.build import catalog_for
from bom.pipeline.model import build_model

CASE = Path(__file__).with_name("hpn_dual_plane.yaml")
C = plan.COL


@pytest.fixture(scope="module")
def pod():  # type: ignore[no-untyped-def]
    scenario, src = load_scenario(CASE)
    catalog = catalog_for(scenario, src)
    return build_model(scenario, src, catalog, None), catalog


def test_pod_tors_and_aggregation_per_plane(pod) -> None:  # type: ignore[no-untyped-def]
    model, _ = pod
    j = model.to_json()
    f = model.fabrics["compute"]
    p = f.first
    assert (j["gpus"], j["nodes"]) == (15 * 1088, 15 * 136)          # 1,024 active + 64 backup GPUs a segment
    assert 15 * 128 * 8 == 15360                                       # Table 1's Pod, its active GPUs
    assert (f.planes, p.layers, p.node_ports) == (2, 2, 8)             # two planes, two tiers, a port per rail
    # Per plane: 8 ToRs a segment, 120 in the Pod; 60 aggregation switches.
    assert (p.leaves_per_group, p.groups, p.leaves, p.spines) == (8, 15, 120, 60)
    # A ToR: 128 + 8 downstream 200G ports (a rail of the segment's 136 hosts), 60 upstream 400G ports.
    assert (p.leaf.rate_gbps, p.leaf_down, p.up.rate_gbps, p.leaf_up) == (200.0, 136, 400.0, 60)
    # An aggregation switch: 120 x 400G down, one from each ToR of its plane.
    assert (p.spine.rate_gbps, p.leaf_spine_per_pair, p.port_use("spine")) == (400.0, 1, [(60, 120)])
    c = j["fabrics"]["compute"]
    assert c["switches"] == {"leaf": 240, "spine": 120, "core": 0}   # 16 ToRs x 15 segments; 60 x 2 planes
    assert c["links"] == {"node-leaf": 2040 * 16, "leaf-spine": 2 * 120 * 60, "spine-core": 0}
    assert (c["rate_gbps"], c["uplink_rate_gbps"]) == (200.0, 400.0)
    # A module in every NIC port (a cage each, 16 a host); a ToR's 34 cages of 4 x 200G and 30 of 2 x 400G,
    # an aggregation switch's 60 cages of 2 x 400G.
    assert c["modules"] == {"node": 2040 * 16, "switch": 240 * (34 + 30) + 120 * 60}


def test_one_plane_pod_is_not_two_tiers(pod) -> None:  # type: ignore[no-untyped-def]
    """Table 2: the dual-plane design doubles what two tiers hold. The same Pod with a NIC's two ports as two
    rails of one plane has 240 ToRs of 60 uplinks each, 14,400, over aggregation switches of 128 ports: no
    count that divides 60 takes them (112.5 at least), so two tiers are refused."""
    _, catalog = pod
    text = CASE.read_text().replace("    planes: 2\n", "    planes: 1\n").replace("    planes_by: port ", "    # ")
    with pytest.raises(BomError, match="two layers of arista-7060x6-64pe cannot join these 240 leaves"):
        build_model(scenario_from_text(text), load_text(text, str(CASE)), catalog, None)


def test_each_nic_port_on_its_own_plane_and_tor(pod) -> None:  # type: ignore[no-untyped-def]
    """The plan of two segments: NIC r's port 1 (the node's port 2r + 1) to a ToR of plane 1, its port 2 to a
    ToR of plane 2, each port in a cage (module) of its own; every ToR of a plane takes one rail."""
    _, catalog = pod
    text = CASE.read_text().replace("nodes: 2040", "nodes: 272")
    model = build_model(scenario_from_text(text), load_text(text, str(CASE)), catalog, None)
    rows = [r for r in plan.rows(model, plan.Unplaced(), catalog) if r[C["hop"]] == "node-leaf"]
    assert len(rows) == 272 * 16
    tors: dict[tuple[str, int], set[str]] = {}
    for r in rows:
        q = int(r[C["a_port"]][1:]) - 1                 # the node's port p1..p16: NIC q // 2, its port q % 2
        assert (r[C["plane"]], r[C["rail"]]) == (q % 2 + 1, q // 2 + 1)
        tors.setdefault((r[C["a_device"]], q // 2), set()).add(r[C["b_device"]])
    assert all(len(t) == 2 for t in tors.values())       # a NIC's two ports on two ToRs
    leaves = {r[C["b_device"]]: r[C["plane"]] for r in rows}
    assert sorted(leaves.values()).count(1) == sorted(leaves.values()).count(2) == 2 * 8
