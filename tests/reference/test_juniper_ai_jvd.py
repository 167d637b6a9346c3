"""A published Ethernet (Tomahawk 5) AI cluster design: Juniper Validated Design "AI Data Center
Network with Juniper Apstra, NVIDIA GPUs, and WEKA Storage" (juniper.net/documentation/us/en/
software/jvd/jvd-ai-dc-apstra-nvidia-weka/), read 2026-12-03 through the stored pages
"Calculating the number of leaf and spine nodes, Servers, and GPUs in a rail optimized
architecture" and "Scaling" (Table 18). Every expected number below is the document's or follows
from its own stated rule, as marked.

The rule ("Calculating ..."):
- leaves per stripe = GPUs per server = 8 (DGX H100, one 400GE rail per GPU);
- 1:1: half the leaf's ports to the servers, half to the spines, so N1 (servers per stripe) =
  available ports / 2; a QFX5240 at 400GE has 128 ports (64 x 800G split 2 x 400G) -> N1 = 64,
  N2 (GPUs per stripe) = N1 x 8 = 512.
- "A minimum of 4 spines must always be deployed" (Scaling).

Table 18:
| design | GPUs          | devices                                   | stripes | spines | "leaf nodes" |
| Medium | 2048 - 8192   | QFX5240-64CD/QFX5241-64CD spine and leaf  | 16      | 64     | 1024         |
| Large  | 8192 - 32768  | PTX1000x chassis spine, QFX5240 leaves    | 64      | 64     | 4096         |

Table 18's "leaf nodes" (1,024 and 4,096) equal the GPU servers of the design (16 x 64 and
64 x 64), not its leaf switches: by the document's own rule a stripe has 8 leaves, so 16 stripes
have 128 leaf switches and 64 stripes 512. The test checks the servers against Table 18's figure
and the leaf switches against the rule, and says so. The PTX line cards per chassis are not in the
JVD; they are derived here from the ports used (512 x 400G per spine over 72 x 400G per
36 x 800G card -> 8 cards, the chassis's 8 slots).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bom.costing.lines import all_lines
from bom.inputs.scenario import load_scenario, scenario_from_text
from bom.inputs.yamlio import load_text
from bom.pipeline.model import build_model

HERE = Path(__file__).parent
LEAVES_PER_STRIPE = 8          # "Number of leaf nodes = number of GPUs per server = 8"
SERVERS_PER_STRIPE = 64        # N1 = 128 available 400GE ports / 2
GPUS_PER_STRIPE = 512          # N2 = N1 x 8

TABLE_18 = [  # (scenario, GPUs, stripes, spines, Table 18 "leaf nodes" = GPU servers)
    ("juniper_ai_jvd_medium.yaml", 8192, 16, 64, 1024),
    ("juniper_ai_jvd_large.yaml", 32768, 64, 64, 4096),
]


def _model(catalog, name):
    scenario, src = load_scenario(HERE / name)
    return build_model(scenario, src, catalog, None)


@pytest.mark.parametrize("name,gpus,stripes,spines,servers", TABLE_18)
def test_table_18_designs(catalog, name, gpus, stripes, spines, servers):
    m = _model(catalog, name)
    f = m.fabrics["compute"]
    p = f.first
    assert m.cluster.gpus == gpus and m.cluster.nodes == servers            # Table 18
    assert p.groups == stripes and p.group_nodes == SERVERS_PER_STRIPE      # Table 18, rule N1
    assert p.group_nodes * m.platform.gpus_per_node == GPUS_PER_STRIPE      # rule N2
    assert f.switches("spine") == spines and p.layers == 2                  # Table 18: 3-stage
    assert p.leaves_per_group == LEAVES_PER_STRIPE                          # rule: 8 per stripe
    assert f.switches("leaf") == stripes * LEAVES_PER_STRIPE
    # 1:1 at 400GE: 64 ports down, 64 up on every leaf; one GPU link and one uplink per GPU.
    assert (p.leaf_down, p.leaf_up) == (64, 64) and p.up.rate_gbps == 400
    assert f.hop_links("node-leaf") == f.hop_links("leaf-spine") == gpus


def test_large_design_chassis_parts(catalog):
    m = _model(catalog, "juniper_ai_jvd_large.yaml")
    f = m.fabrics["compute"]
    # 512 leaves x 64 x 400GE uplinks over 64 spines: 512 ports (one to every leaf) per chassis.
    assert f.port_use("spine") == [(64, 512)]
    row = catalog.get("switches", "ptx10008-lc1301")
    spine = {x.sku: x.quantity for x in all_lines(m, catalog) if x.fabric == "compute" and x.hop == "spine"
             and x.category == "switch"}
    assert spine[row.modular.line_card.part_number] == 64 * 8   # derived: ceil(512 / 72) = 8 cards
    assert spine[row.modular.chassis.part_number] == 64
    assert spine[row.modular.fabric_cards.part_number] == 64 * row.modular.fabric_cards.count


def test_one_stripe_has_the_minimum_four_spines(catalog):
    """Scaling: "A minimum of 4 spines must always be deployed"; one full stripe (64 servers,
    512 GPUs) needs exactly that: 8 leaves x 64 x 400GE = 512 uplinks over 128-port spines."""
    text = "name: s\nplatform: dgx-h100\ngpus: 512\nfabrics:\n  compute: {switch: juniper-qfx5240-64od, su_nodes: 64}\n"
    m = build_model(scenario_from_text(text), load_text(text, "s.yaml"), catalog, None)
    assert (m.fabrics["compute"].switches("leaf"), m.fabrics["compute"].switches("spine")) == (8, 4)
