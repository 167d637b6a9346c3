"""The SuperPOD RAs' scaling tables, every row: leaf, spine and core switches and cables.

- DGX SuperPOD with DGX H100, RA-11333-001 V11, Table 4 "Compute fabric component count"
  (SU 1 has 31 nodes, a UFM takes the 32nd slot; the "Compute and UFM" cables are the node
  links + 4 UFM links, which the model does not count).
- DGX SuperPOD with DGX B200, RA-11334-001 V08, DGX SuperPOD Architecture, the "larger DGX
  SuperPOD" component-count table (SUs of 32 DGX B200 on QM9700; 16 SU and more take three
  layers). Rows: SU count, leaf, spine, core, node-leaf, leaf-spine, spine-core cables.
- DGX SuperPOD with DGX B300, Quantum-X800 InfiniBand and AC power, RA-11339-001 V01, Table 3
  "Example Compute Fabric Components" (SUs of 72 DGX B300 on Q3400, two layers). The table's
  18 SU row lists 9,216 GPUs; its 1,296 nodes x 8 GPUs and its 10,368 cables say 10,368.
"""

from __future__ import annotations

import pytest

from bom.inputs.scenario import scenario_from_text
from bom.inputs.yamlio import load_text
from bom.pipeline.model import build_model

H100 = [  # RA-11333-001 V11 Table 4: SUs, nodes, leaf, spine, compute + UFM cables, spine-leaf cables
    (1, 31, 8, 4, 252, 256),
    (2, 63, 16, 8, 508, 512),
    (3, 95, 24, 16, 764, 768),
    (4, 127, 32, 16, 1020, 1024),
]
B200 = [  # RA-11334-001 V08: SUs, leaf, spine, core, node-leaf, leaf-spine, spine-core
    (2, 16, 8, 0, 512, 512, 0),
    (4, 32, 16, 0, 1024, 1024, 0),
    (8, 64, 32, 0, 2048, 2048, 0),
    (16, 128, 128, 64, 4096, 4096, 4096),
    (32, 256, 256, 128, 8192, 8192, 8192),
    (64, 512, 512, 256, 16384, 16384, 16384),
]
B300_XDR = [  # RA-11339-001 V01 Table 3: SUs, leaf, spine, node-leaf, leaf-spine
    (1, 8, 4, 576, 576),
    (2, 16, 8, 1152, 1152),
    (4, 32, 18, 2304, 2304),
    (8, 64, 36, 4608, 4608),
    (18, 144, 72, 10368, 10368),
]


def compute(catalog, platform: str, nodes: int):
    text = f"name: t\nplatform: {platform}\nnodes: {nodes}\n"
    return build_model(scenario_from_text(text), load_text(text, "t.yaml"), catalog, None).fabrics["compute"].to_json()


@pytest.mark.parametrize("sus,leaf,spine,core,nl,ls,sc", B200)
def test_dgx_b200_table(catalog, sus, leaf, spine, core, nl, ls, sc):
    f = compute(catalog, "dgx-b200", 32 * sus)
    assert f["switches"] == {"leaf": leaf, "spine": spine, "core": core}
    assert f["links"] == {"node-leaf": nl, "leaf-spine": ls, "spine-core": sc}


@pytest.mark.parametrize("sus,leaf,spine,nl,ls", B300_XDR)
def test_dgx_b300_xdr_table(catalog, sus, leaf, spine, nl, ls):
    f = compute(catalog, "dgx-b300", 72 * sus)
    assert f["switches"] == {"leaf": leaf, "spine": spine, "core": 0}
    # The table counts no UFM cable. Where the spines keep ports free (2 x 72 leaf uplinks on 144-port
    # spines: from 4 SU), the UFM appliances' 4 ports take them; at 2 SU every port is taken, and the
    # build buys no UFM (bom/topology/ufm.py) rather than a spine for it.
    ufm = {"ufm-top": 4} if spine * 144 > leaf * 72 else {}
    assert f["links"] == {"node-leaf": nl, "leaf-spine": ls, "spine-core": 0, **ufm}


@pytest.mark.parametrize("sus,nodes,leaf,spine,node_ufm,ls", H100)
def test_dgx_h100_table_4(catalog, sus, nodes, leaf, spine, node_ufm, ls):
    f = compute(catalog, "dgx-h100", nodes)
    assert f["switches"] == {"leaf": leaf, "spine": spine, "core": 0}
    # Table 4's "Compute and UFM" column: the nodes' links plus the UFM's own hop (4 ports).
    assert f["links"] == {"node-leaf": node_ufm - 4, "ufm-leaf": 4, "leaf-spine": ls, "spine-core": 0}
