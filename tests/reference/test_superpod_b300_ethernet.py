"""NVIDIA DGX SuperPOD with DGX B300, Spectrum-4 Ethernet and DC busbar power, RA-11337-001 V01.

Table 3 ("Larger DGX SuperPOD component counts"): SUs of 64 DGX B300, compute fabric on
Spectrum-4 (SN5610, 64 x 800G OSFP, modelled by the SN5600 row: the same 51.2 Tb/s,
64-cage switch). Network Fabrics: "a twin-planar design ... each GPU has 2x 400GbE
connectivity through two different planes"; every DGX B300 port is an 800G ConnectX-8 cage
carrying one 400G link into each plane.

| SUs | nodes | GPUs  | leaf | spine | node-leaf cables | leaf-spine cables |   (Table 3)
|  1  |   64  |   512 |  16  |    8  |       512        |        512        |
|  2  |  128  |  1024 |  32  |   16  |      1024        |       1024        |
|  4  |  256  |  2048 |  64  |   32  |      2048        |       2048        |
|  8  |  512  |  4096 | 128  |   64  |      4096        |       4096        |
| 16  | 1024  |  8192 | 256  |  128  |      8192        |       8192        |

Derivation (per plane, at 400G an SN5600 has 128 ports: 64 down, 64 up): an SU's 64 nodes
fill one leaf per rail -> 8 leaves per plane per SU, 16 for both planes. Each leaf's 64 x
400G of uplinks spread over the plane's spines (128 x 400G each): 1 SU -> 4 spines per plane,
16 x 400G = 8 native 800G ports to each, so the uplinks run at the switch's own 800G: 32 per
leaf, 16 x 32 = 512 leaf-spine links per SU, as Table 3 counts them. At 16 SU a plane has 128
leaves and 64 spines: two layers hold them only at 400G (128 leaves x 64 uplinks = 64 spines x
128 ports), one 400G link from every leaf to every spine, so each 800G cage splits into two
400G links to two spines: 16,384 links on the 8,192 leaf uplink cages Table 3 counts.

The node-leaf "cables" of Table 3 are the DGX cages: 8 per node, each a twin-port 2 x 400G
module with one fibre into each plane (node-leaf links are twice the count).
"""

from __future__ import annotations

import pytest

from bom.inputs.scenario import scenario_from_text
from bom.inputs.yamlio import load_text
from bom.pipeline.model import build_model

TABLE_3 = [  # (SUs, nodes, leaf, spine, node-leaf cables, leaf-spine cables): RA-11337-001 V01 Table 3
    (1, 64, 16, 8, 512, 512),
    (2, 128, 32, 16, 1024, 1024),
    (4, 256, 64, 32, 2048, 2048),
    (8, 512, 128, 64, 4096, 4096),
    (16, 1024, 256, 128, 8192, 8192),
]


def superpod(catalog, nodes: int, extra: str = ""):
    text = (f"name: b300-eth\nplatform: dgx-b300\nnodes: {nodes}\n"
            f"fabrics:\n  compute: {{switch: sn5600, planes: 2, su_nodes: 64{extra}}}\n")
    return build_model(scenario_from_text(text), load_text(text, "b300.yaml"), catalog, None)


@pytest.mark.parametrize("sus,nodes,leaves,spines,node_cables,leaf_spine_cables", TABLE_3)
def test_twin_plane_counts(catalog, sus, nodes, leaves, spines, node_cables, leaf_spine_cables):
    m = superpod(catalog, nodes)
    f = m.fabrics["compute"]
    j = f.to_json()
    assert m.cluster.gpus == 8 * nodes and j["planes"] == 2 and j["layers"] == 2
    assert j["switches"] == {"leaf": leaves, "spine": spines, "core": 0}
    # Node end: one twin-port module per 800G cage, one 400G link into each plane.
    assert j["modules"]["node"] == node_cables and j["links"]["node-leaf"] == 2 * node_cables
    ls = [g for g in f.groups if g.hop == "leaf-spine"]
    leaf_cages = sum(g.modules_lower for g in ls)
    assert leaf_cages == leaf_spine_cables
    if sus < 16:   # native 800G uplinks: one link per cage, as Table 3 counts them
        assert {g.rate_gbps for g in ls} == {800.0}
        assert j["links"]["leaf-spine"] == leaf_spine_cables
    else:          # every leaf reaches all 64 spines of its plane: 400G links, two per cage
        assert {g.rate_gbps for g in ls} == {400.0}
        assert j["links"]["leaf-spine"] == 2 * leaf_spine_cables


def test_uplinks_at_the_nic_rate_double_the_links(catalog):
    # The same 1 SU with uplink_rate: downlink (leaf-spine at the 400G plane rate) has twice
    # the leaf-spine links and fibres of the native 800G build: what the RA does not build.
    native = superpod(catalog, 64).fabrics["compute"].to_json()
    plane = superpod(catalog, 64, ", uplink_rate: downlink").fabrics["compute"].to_json()
    assert plane["switches"] == native["switches"]
    assert plane["links"]["leaf-spine"] == 2 * native["links"]["leaf-spine"] == 1024
