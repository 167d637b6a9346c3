"""Issue 11's 16,384-GPU DGX B200 case: the storage fabric sized by the ports it carries.

Derivation (storage fabric, SN5600 at 400G = 128 ports, two ports per OSFP cage; the platform's
RA ratio 4:3, catalogs/platforms.yaml dgx-b200 support.oversubscription):
- 16,384 GPUs / 8 = 2,048 DGX B200, 2 x 400G storage ports each = 4,096 storage ports;
- at 4:3 a leaf keeps ceil(128 x 3/7 / 2) x 2 = 56 ports up and 72 down;
- su_nodes 32 (one leaf group per compute SU): 32 nodes x 2 ports = 64 ports = one leaf per SU
  (64 of its 72 downlinks), whose uplinks carry 64 x 3/4 = 48; 2,048 / 32 = 64 SUs -> 64 leaves,
  each using 64 + 48 = 112 of 128 ports;
- the storage itself: the scenario gives no storage block, so the fabric takes the platform RA's
  appliance sized by the RA's read guideline (bom/topology/endpoints.py): 16,384 GPUs x 40 GB/s per
  256-GPU SU = 2,560 GB/s / 90 GB/s = 29 appliances x 8 ports = 232 ports on leaf groups of their
  own, 64 ports a group -> 4 more leaves, 68 in all (64 before the storage default: the fabric
  carried no storage);
- spines: the smallest d dividing 48 uplinks with 68 leaves x 48 / d <= 128 ports -> d = 48
  (it was 24 for 64 leaves: 24 of 48 fits 64 x 48 / 24 = 128 ports exactly, 68 leaves do not);
  leaf-spine links 68 x 48 = 3,264.
So 68 leaves + 48 spines, where the per-rack rule built 1,024 leaves (4 ports used of 128) + 64
spines + 32 cores. Non-blocking (the scenario's oversubscription: 1) the same leaves keep 64 up:
68 x 64 / d <= 128 -> d = 64 spines (32 for 64 leaves), 4,352 leaf-spine links. The compute fabric
is the B200 RA's 64 SU row (DGX SuperPOD B200 RA, Architecture table: 512 leaf, 512 spine, 256
core; 16,384 cables per hop).
"""

from __future__ import annotations

import math
from pathlib import Path

from bom.inputs.scenario import load_scenario, scenario_from_text
from bom.inputs.yamlio import load_text
from bom.pipeline.model import build_model
from bom.topology.planes import switch_ports

CASE = Path(__file__).with_name("b200_16k.yaml")


def _model(catalog):
    scenario, src = load_scenario(CASE)
    return build_model(scenario, src, catalog, None)


def test_storage_fabric_by_ports(catalog):
    m = _model(catalog)
    s = m.fabrics["storage"].to_json()
    assert s["oversubscription"] == "4:3"
    # The storage default's 29 appliances (module docstring) add 4 leaves and double the spines.
    assert m.endpoints.storage_count == 29 and m.warnings
    assert s["switches"] == {"leaf": 68, "spine": 48, "core": 0}
    assert s["links"] == {"node-leaf": 4096, "leaf-spine": 3264, "spine-core": 0, "storage-leaf": 232}
    c = m.fabrics["compute"].to_json()
    assert c["switches"] == {"leaf": 512, "spine": 512, "core": 256}      # B200 RA, 64 SU row
    assert c["links"] == {"node-leaf": 16384, "leaf-spine": 16384, "spine-core": 16384}


def test_every_non_compute_leaf_uses_at_least_half_its_ports(catalog):
    m = _model(catalog)
    for name in ("storage",):
        f = m.fabrics[name]
        p = f.first
        radix = p.leaf.radix
        for ps in f.pooled:
            for fill, _ in ps.node_fills():
                per_leaf = math.ceil(fill / p.leaves_per_group)
                assert per_leaf + p.leaf_up >= radix / 2, (name, fill)
    oob = m.fabrics["oob"]
    leaf = catalog.get("switches", "sn2201")
    for s in oob.sections:
        leaves = s.per_rack * s.racks + s.block
        assert s.devices // leaves >= switch_ports(leaf, 1.0).radix / 2 or oob.devices < leaf.ports, s


def test_oob_per_su_not_per_rack(catalog):
    m = _model(catalog)
    oob = m.fabrics["oob"]
    # 16 compute racks of 2 DGX per SU: the SU's ~77 BMCs, switch and PDU ports take 2 SN2201, not 16.
    assert oob.leaves < m.placement.counts()["compute"] / 4
    assert oob.to_json()["links"]["node-leaf"] == sum(n for i, n in m.placement.by_item().items() if i.managed)


def test_a_stated_ratio_wins_over_the_platform_default(catalog):
    text = CASE.read_text().replace("storage: {switch: sn5600, su_nodes: 32}",
                                    "storage: {switch: sn5600, su_nodes: 32, oversubscription: 1}")
    src = load_text(text, "b200_16k_1to1.yaml")
    m = build_model(scenario_from_text(text), src, catalog, None)
    s = m.fabrics["storage"].to_json()
    assert s["oversubscription"] == "1:1"
    assert s["switches"] == {"leaf": 68, "spine": 64, "core": 0}    # with the default storage's 4 leaves
    assert s["links"]["leaf-spine"] == 68 * 64
