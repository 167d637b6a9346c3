"""Published designs the tool could not express before issue 22 (items 1-3): a leaf per rail per
stripe, rail leaves with no spine, ratios below 1:1 and a ratio per layer. Each test names the
document, its version or date, the table or section, and puts the published number beside the
tool's. Read at stored copies, 2026-12-06:

- [JVD-QPP] Juniper Validated Design "AI Data Center Network with Juniper Apstra, QPP, BGP-DPF"
  (juniper.net/documentation/us/en/software/jvd/jvd-ai-dc-qpp-bgp-dpf/), page "IP Fabric GPU
  Backend Fabric Architecture" and its Table 1: "two stripes, each composed of eight QFX5240 leaf
  nodes", "interconnected across four QFX5240 spine nodes", servers on 400GE, leaf-spine on 400GE.
  Table 1, 400 Gbps row: leaf uplink capacity 4 x 400G = 1.6 Tbps; total leaf-to-spine 25.6 Tbps;
  server-to-leaf 12.8 Tbps with 4 servers (1:2, "overprovisioned") and 25.6 Tbps with 8 servers
  (1:1, "balanced").
- [JVD-MIN] Juniper Validated Design "AI Data Center Network with Juniper Apstra, NVIDIA GPUs, and
  WEKA Storage" (juniper.net/documentation/us/en/software/jvd/jvd-ai-dc-apstra-nvidia-weka/), page
  "Scaling": "A minimum of 4 spines must always be deployed for path diversity and reduction of PFC
  failure paths"; Table 18, Small (64 - 2048 GPU): "a minimum of 4 Spines should be deployed, even
  in a single-stripe fabric"; page "Recommendations": "A minimum of 4 spines in each fabric is
  suggested" (2 spines left the fabric open to PFC storms under dual failures with congestion).
- [ASTER] Asterfusion "Best Practices for Small-Scale AI Compute Backend Fabric" (docs.asternos.com/
  aidc; the same guide as "Rail-Only Single-Tier Configuration Guide" V1.0, 2026-02-02), section 2
  Typical Configuration Example: 32 compute nodes, 4 leaves (CX732Q-N), "NIC N to Leaf N",
  "single-tier Clos architecture", "eliminates the Spine layer".
- [META] Meta Engineering, "A RoCE network for distributed AI training at scale" (2024-08-05), the
  summary of the SIGCOMM 2024 paper "RDMA over Ethernet for Distributed AI Training at Meta Scale":
  the AI zone is a non-blocking two-stage Clos (RTSW leaves, CTSW spines); an aggregator layer
  (ATSW) joins the zones and is oversubscribed. The 7:1 figure is the paper's as issue 22 quotes it;
  it was not read at a stored copy.
- [AMD] AMD Instinct MI3XX Reference Design (instinct.docs.amd.com/projects/MI3XX-reference/latest,
  "Common cluster design principles"): rail networks on a folded Clos. The 1:1.16 leaf
  undersubscription is AMD's as issue 22 quotes it; the stored copy's overview does not show it.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import pytest

from bom.errors import BomError
from bom.inputs.scenario import load_scenario, scenario_from_text
from bom.inputs.yamlio import load_text
from bom.pipeline.model import build_model

HERE = Path(__file__).parent
GBPS = 400   # every link below is a 400G link ([JVD-QPP] 400GE; [ASTER] 400G; [META] 400G RoCE)


def _model(catalog, name: str):
    scenario, src = load_scenario(HERE / name)
    return build_model(scenario, src, catalog, None)


def _text(catalog, text: str):
    return build_model(scenario_from_text(text), load_text(text, "s.yaml"), catalog, None)


def _built(catalog, text: str):
    """As a command builds it: the rules before the stages first (bom/topology/preflight.py)."""
    from bom.pipeline import build_scenario

    return build_scenario(scenario_from_text(text), load_text(text, "s.yaml"), catalog)


# --- item 1: a leaf per rail per stripe ([JVD-QPP]) ---------------------------------------------

def test_jvd_two_stripes_of_eight_rail_leaves(catalog):
    m = _model(catalog, "juniper_jvd_qpp_stripes.yaml")
    f = m.fabrics["compute"]
    p = f.first
    assert (p.groups, p.leaves_per_group, p.rails_per_leaf) == (2, 8, 1)     # two stripes of eight leaves
    assert f.switches("leaf") == 16
    assert p.leaf_up == 4 and p.up.rate_gbps == GBPS                          # Table 1: 4 x 400G = 1.6 Tbps
    assert f.hop_links("leaf-spine") * GBPS == 25_600                         # Table 1: 25.6 Tbps
    assert f.hop_links("node-leaf") * GBPS == 25_600                          # Table 1: 8 servers, 25.6 Tbps
    # 1:1 ("balanced"): as many uplinks as server links on every leaf.
    assert f.hop_links("node-leaf") == f.hop_links("leaf-spine")
    # "interconnected across four QFX5240 spine nodes": four spines, one 400GE link from each leaf
    # to each. The ports alone would take one 128-port spine (the fewest whose ports take every
    # uplink, docs/counting.md rule 6); the four are the JVDs' "minimum of 4 spines" rule ([JVD-MIN]),
    # which the scenario states as min_spines: 4.
    assert f.switches("spine") == 4 and p.leaf_spine_per_pair == 1
    assert f.port_use("spine") == [(4, 16)]                                   # 16 leaves, a link each


def test_jvd_minimum_of_four_spines(catalog):
    """[JVD-MIN]: each leaf's uplinks spread over at least min_spines spines; without the key the
    same fabric takes the fewest spines whose ports hold the uplinks (one)."""
    text = (HERE / "juniper_jvd_qpp_stripes.yaml").read_text()
    f = _text(catalog, text.replace(", min_spines: 4", "")).fabrics["compute"]
    assert (f.switches("leaf"), f.switches("spine"), f.first.leaf_spine_per_pair) == (16, 1, 4)
    # Table 18, Small: "even in a single-stripe fabric". Half a stripe of 32 DGX (8 leaves x 32
    # 400G of uplinks, carried as 16 x 800G): two spines by ports, four by the rule, 4 x 800G from
    # each leaf to each.
    half = ("name: s\nplatform: dgx-h100\nnodes: 32\nfabrics:\n"
            "  compute: {switch: juniper-qfx5240-64od, su_nodes: 64, rails_per_leaf: 1%s}\n")
    assert _text(catalog, half % "").fabrics["compute"].switches("spine") == 2
    f = _text(catalog, half % ", min_spines: 4").fabrics["compute"]
    assert (f.switches("leaf"), f.switches("spine"), f.first.leaf_spine_per_pair) == (8, 4, 4)
    assert f.first.up.rate_gbps == 800 and f.hop_links("leaf-spine") * 800 == 8 * 32 * 400
    # A pod whose ports fit one switch still gets its spine layer when the scenario states the minimum.
    one = "name: s\nplatform: dgx-h100\nnodes: 8\nfabrics:\n  compute: {switch: juniper-qfx5240-64od%s}\n"
    assert _text(catalog, one % "").fabrics["compute"].switches("spine") == 0
    assert _text(catalog, one % ", min_spines: 4").fabrics["compute"].switches("spine") == 4


@pytest.mark.parametrize("spec,words", [
    ("{switch: juniper-qfx5240-64od, su_nodes: 4, rails_per_leaf: 1, uplink_rate: downlink, min_spines: 8}",
     "a leaf here has 4"),
    ("{switch: juniper-qfx5240-64od, topology: rail-only, min_spines: 4}", "topology rail-only has none"),
    ("{switch: juniper-qfx5240-64od, layers: 1, min_spines: 4}", "layers: 1 has none"),
])
def test_min_spines_refused_where_it_cannot_hold(catalog, spec, words):
    text = f"name: s\nplatform: dgx-h100\nnodes: 8\nfabrics:\n  compute: {spec}\n"
    with pytest.raises(BomError, match=words) as e:
        _text(catalog, text)
    assert e.value.key == "fabrics.compute.min_spines"


def test_without_rails_per_leaf_the_pod_is_one_switch(catalog):
    """The default is unchanged: the 64 ports of 8 DGX fit one 128-port QFX5240, so the cheapest
    design is that switch and no spine (the design the Asterfusion and AMD guides follow)."""
    text = "name: s\nplatform: dgx-h100\nnodes: 8\nfabrics:\n  compute: {switch: juniper-qfx5240-64od, su_nodes: 4}\n"
    f = _text(catalog, text).fabrics["compute"]
    assert (f.switches("leaf"), f.switches("spine"), f.layers) == (1, 0, 1)


# --- item 3: below 1:1 ([JVD-QPP] 1:2, [AMD] 1:1.16) --------------------------------------------

def test_jvd_four_servers_are_one_to_two(catalog):
    """Table 1, 400 Gbps row, 4 servers: 12.8 Tbps of server links under 25.6 Tbps of uplinks, 1:2."""
    text = ("name: s\nplatform: dgx-h100\nnodes: 4\nfabrics:\n  compute: {switch: juniper-qfx5240-64od, "
            "su_nodes: 2, rails_per_leaf: 1, uplink_rate: downlink, oversubscription: \"1:2\"}\n")
    f = _text(catalog, text).fabrics["compute"]
    p = f.first
    assert f.switches("leaf") == 16 and p.leaf_up == 4                        # 4 x 400G a leaf
    assert f.hop_links("node-leaf") * GBPS == 12_800                          # Table 1: 12.8 Tbps
    assert f.hop_links("leaf-spine") * GBPS == 25_600                         # Table 1: 25.6 Tbps
    assert Fraction(f.hop_links("node-leaf"), f.hop_links("leaf-spine")) == Fraction(1, 2)   # 1:2


def test_amd_leaf_undersubscribed_1_to_1_16(catalog):
    m = _model(catalog, "amd_undersubscribed_leaf.yaml")
    f = m.fabrics["compute"]
    p = f.first
    down = p.group_nodes * p.rails_per_leaf                  # node ports on a leaf of a full SU: 32
    up_400 = p.leaf_up * p.up.rate_gbps / GBPS              # its uplinks in 400G ports: 38 (19 x 800G)
    # At least 1.16 x the downlinks, and the fewest whole cages (two 400G ports an OSFP cage) that are.
    assert up_400 / down >= 1.16 and (up_400 - 2) / down < 1.16
    assert (down, up_400) == (32, 38)
    assert f.hop_links("leaf-spine") * p.up.rate_gbps >= 1.16 * f.hop_links("node-leaf") * GBPS


def test_a_layer_with_more_than_four_uplinks_per_downlink_is_refused(bom, tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text('name: s\nplatform: dgx-h100\nnodes: 8\nfabrics:\n  compute: {oversubscription: "1:5"}\n')
    r = bom("build", str(path))
    assert r.exit_code == 2 and "s.yaml:5" in r.output and "below 1:4" in r.output
    assert "Traceback" not in r.output


# --- item 2: rail leaves and no spine ([ASTER]) -------------------------------------------------

def test_asterfusion_rail_only_a_leaf_per_rail_no_spine(catalog):
    m = _model(catalog, "asterfusion_rail_only.yaml")
    f = m.fabrics["compute"]
    p = f.first
    rails = m.platform.scale_out.ports
    # [ASTER]: 4 NICs, 4 leaves, NIC N to Leaf N, no spine. Here 8 NICs: 8 leaves, one a rail.
    assert f.switches("leaf") == rails == 8 and f.switches("spine") == f.switches("core") == 0
    assert p.layers == 1 and p.topology == "rail-only" and p.rails_per_leaf == 1
    # Each leaf takes the 32 nodes' ports of its rail ([ASTER]: 32 nodes on each 32-port leaf).
    assert f.hop_links("node-leaf") == 32 * rails and f.hop_links("leaf-spine") == 0


def test_rail_only_takes_as_many_rails_as_fit_and_layers_1_is_the_same(catalog):
    base = "name: s\nplatform: dgx-h100\nnodes: 32\nfabrics:\n  compute: {switch: sn5600, %s}\n"
    ro = _text(catalog, base % "topology: rail-only").fabrics["compute"].first
    one = _text(catalog, base % "layers: 1").fabrics["compute"].first
    # 128 ports of 400G hold four rails of 32 nodes: 2 leaves, no spine, either way of asking.
    assert (ro.leaves, ro.rails_per_leaf, ro.spines) == (2, 4, 0)
    assert (one.leaves, one.rails_per_leaf, one.spines, one.layers) == (2, 4, 0, 1)


@pytest.mark.parametrize("compute,words", [
    ("{topology: rail-only}", "160 nodes are more than the 128 ports"),   # a rail past one leaf
    ("{topology: rail-only, layers: 2}", "one layer"),
    ("{topology: rail-only, su_nodes: 32}", "su_nodes"),
    ("{rails_per_leaf: 3}", "must divide the 8 rails"),
    ("{topology: tor, layers: 1}", "one layer of tor leaves"),
])
def test_what_one_layer_cannot_join_is_refused(catalog, compute, words):
    text = f"name: s\nplatform: dgx-h100\nnodes: 160\nfabrics:\n  compute: {compute}\n".replace(
        "{", "{switch: sn5600, ", 1)
    with pytest.raises(BomError) as e:
        _built(catalog, text)
    assert words in str(e.value) and "fabrics.compute" in str(e.value)


# --- item 3: a ratio per layer ([META]) ---------------------------------------------------------

def test_meta_taper_seven_to_one_above_the_pods(catalog):
    m = _model(catalog, "meta_roce_taper.yaml")
    f = m.fabrics["compute"]
    p = f.first
    assert m.cluster.gpus == 24_576 and p.layers == 3
    # Non-blocking inside the pod ([META]: the AI zone): each leaf's uplinks carry its node ports.
    used = math.ceil(p.group_nodes / (p.leaves_per_group * p.rails_per_leaf // p.node_ports)) * p.rails_per_leaf
    assert p.leaf_up * p.up.rate_gbps == used * GBPS
    # 7:1 at the spines: every spine of a full pod has seven downlinks for each uplink to the cores.
    full_pod = p.pod_size * p.leaf_spine_per_pair
    assert Fraction(full_pod, p.spine_uplinks) == 7
    assert f.port_use("spine")[0] == (f.switches("spine") - p.spines_per_pod, full_pod + p.spine_uplinks)
    # The same fabric 1:1 at the spines keeps as many core links as leaf-spine links.
    text = (HERE / "meta_roce_taper.yaml").read_text().replace('spine: "7:1"', "spine: 1")
    flat = _text(catalog, text).fabrics["compute"]
    assert flat.hop_links("spine-core") == flat.hop_links("leaf-spine") == 24_576


def test_a_spine_ratio_on_two_layers_is_refused(catalog):
    text = ('name: s\nplatform: dgx-h100\nnodes: 64\nfabrics:\n  compute: {layers: 2, '
            'oversubscription: {leaf: 1, spine: "3:1"}}\n')
    with pytest.raises(BomError, match="two layers have none"):
        _text(catalog, text)
