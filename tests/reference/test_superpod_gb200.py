"""DGX SuperPOD with DGX GB200, 16 SU: the spine count the spreading rule allows, derived.

Inputs from NVIDIA's DGX SuperPOD RA featuring DGX GB200 (Abstract; Network Fabrics,
Compute Fabric): an SU is 8 DGX GB200 racks (576 GPUs), each rack 18 compute trays with
4 ConnectX-7 400G ports into a rail-optimised NDR InfiniBand fabric of QM9700 (64 x 400G);
"up to and beyond 128 racks with 9216 GPUs" is 16 SU. No published 16 SU compute-fabric
table was found (the RA describes one SU), so the counts below are derived, not cited.

Derivation. 16 SU x 144 trays x 4 ports = 9,216 node links; a QM9700 leaf takes 8 whole trays
(32 down, 32 up) -> 18 leaves per SU, 288 leaves, 9,216 uplinks. Three layers; a spine keeps
32 down and 32 up. The rule: every leaf the same number of links to every spine of its pod,
every spine the same number to every core of its core group (spine i of each pod).
- SU-aligned pods (the old rule): 1 SU of 18 leaves per pod with 32 spines (18 of 32 down
  ports used) -> 16 x 32 = 512 spines, 18 uplinks over 16 pods -> 6 cores x 32 = 192: 992.
- The fewest that fits: pods of 30 leaves (10 pods, the last 18) on 32 spines, 1 link each;
  each spine's 30 uplinks over 10 pods -> 5 cores per group (6 links each, 60 of 64 ports)
  -> 320 spines + 160 cores, 768 switches in all.
- The 720 of a textbook fat tree (288 + 288 + 144) needs each core to take 64 links from 9
  pods of 32 leaves: 64 / 9 per pod is not whole, so no core can spread evenly; with 9 pods
  a core group needs c | 32 and 9 x 32 / c <= 64 -> c = 8 -> 256 cores (832 in all).
"""

from __future__ import annotations

from bom.model.plane import SwitchPorts
from bom.topology.planes import size_plane
from tests.explicit_fabric import build

QM9700 = SwitchPorts("qm9700", 64, 2, "osfp", 100.0, 400.0)


def test_gb200_16_su_does_not_over_build(catalog):
    from bom.inputs.scenario import scenario_from_text
    from bom.inputs.yamlio import load_text
    from bom.pipeline.model import build_model

    text = "name: gb200-16su\nplatform: gb200-nvl72\ngpus: 9216\n"
    j = build_model(scenario_from_text(text), load_text(text, "gb.yaml"), catalog, None).to_json()
    f = j["fabrics"]["compute"]
    assert j["nodes"] == 16 * 144 and f["layers"] == 3
    assert f["switches"] == {"leaf": 288, "spine": 320, "core": 160}
    assert sum(f["switches"].values()) == 768 < 992
    # The cores' free ports take the UFM appliances' 4 ports (every leaf downlink carries a tray).
    assert f["links"] == {"node-leaf": 9216, "leaf-spine": 9216, "spine-core": 320 * 30, "ufm-top": 4}


def test_gb200_16_su_against_the_explicit_graph():
    p = size_plane(2304, 4, QM9700, QM9700, topology="rail-optimized", group_nodes=144, node_blocks=True)
    g = build(2304, 4, 4, 64, 2, topology="rail-optimized", group=144, layers=3, blocks=True)
    assert (p.leaves, p.spines, p.cores) == (g.count("leaf"), g.count("spine"), g.count("core")) == (288, 320, 160)
    assert (p.leaf_spine_links, p.spine_core_links) == (g.hop("leaf-spine"), g.hop("spine-core"))
    for hop in ("leaf-spine", "spine-core"):
        assert len(set(g.per_pair(hop).values())) == 1
    assert max(len(ps) for ps in g.used_ports().values()) <= 64
