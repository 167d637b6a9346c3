"""Issue 11's 16,384-GPU DGX B200 case: the storage fabric sized by the ports it carries.

Derivation (storage fabric, SN5600 at 400G = 128 ports, two cages' worth per OSFP):
- 16,384 GPUs / 8 = 2,048 DGX B200, 2 x 400G storage ports each = 4,096 storage ports;
- non-blocking (oversubscription 1): a leaf keeps 64 ports down and 64 up;
- su_nodes 32 (one leaf group per compute SU): 32 nodes x 2 ports = 64 ports = one leaf per SU,
  using all 64 downlinks and 64 uplinks (128 of 128 ports); 2,048 / 32 = 64 SUs -> 64 leaves;
- spines: the smallest d dividing 64 uplinks with 64 leaves x 64 / d <= 128 ports -> d = 32.
So 64 leaves + 32 spines = 96 switches, where the per-rack rule built 1,024 leaves (4 ports used
of 128) + 64 spines + 32 cores. The compute fabric is the B200 RA's 64 SU row (DGX SuperPOD
B200 RA, Architecture table: 512 leaf, 512 spine, 256 core; 16,384 cables per hop).
"""

from __future__ import annotations

import math
from pathlib import Path

from bom.build import build_model
from bom.fabric import switch_ports
from bom.scenario import load_scenario

CASE = Path(__file__).with_name("b200_16k.yaml")


def _model(catalog):
    scenario, src = load_scenario(CASE)
    return build_model(scenario, src, catalog, None)


def test_storage_fabric_by_ports(catalog):
    m = _model(catalog)
    s = m.fabrics["storage"].to_json()
    assert s["switches"] == {"leaf": 64, "spine": 32, "core": 0}
    assert s["links"] == {"node-leaf": 4096, "leaf-spine": 4096, "spine-core": 0}
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
            fills = [ps.group_units] + ([ps.node_units % ps.group_units] if ps.node_units % ps.group_units else [])
            for fill in fills:
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
