"""GB200 NVL72: two management (OOB) switches in each rack.

NVIDIA DGX GB200 User Guide (Hardware overview): each DGX GB200 rack holds 18 compute trays,
9 NVLink switch trays and 2 ToR management switches. The compute fabric's ToR cannot live in the
rack, so its leaves stand in the SU's network rack (DGX SuperPOD GB200 RA: a leaf per compute
rack in each SU's network racks).
"""

from __future__ import annotations

from bom.inputs.scenario import scenario_from_text
from bom.inputs.yamlio import load_text
from bom.pipeline.model import build_model

TEXT = """
name: gb200-1su
platform: gb200-nvl72
gpus: 576
fabrics:
  compute: {switch: qm9700}
  oob: {switch: sn2201}
"""


def test_two_management_switches_in_every_nvl72_rack(catalog):
    src = load_text(TEXT, "gb200.yaml")
    m = build_model(scenario_from_text(TEXT), src, catalog, None)
    p = m.placement
    compute = [r for r in p.racks() if r.kind == "compute"]
    assert len(compute) == 8                                   # 1 SU = 8 racks (576 GPUs)
    for rack in compute:
        roles = [s.role for s in p.elevation(rack)]
        assert roles.count("oob-leaf") == 2                    # DGX GB200 user guide: 2 per rack
        assert roles.count("node") == 18 and roles.count("nvlink-switch") == 9
        assert "leaf" not in roles                             # compute ToRs go to the network rack
    assert all(s.role != "node" for r in p.racks() if r.kind == "network" for s in p.elevation(r))
