"""Failure domains (bom/faults/domains.py): what one element's failure cuts off, breaks and stalls."""

from __future__ import annotations

import numpy as np
import pytest

from bom import pipeline
from bom.faults import fault_domains, rack_power
from bom.faults.domains import Domain
from bom.inputs.scenario import parse_scenario
from bom.inputs.yamlio import load_text
from bom.model.model import Model
from bom.model.placement import RackType
from bom.roles import FabricRole, FaultElement, Layer

E = FaultElement

#: Two scalable units and a partial one of DGX H100 on a rail-optimised QM9700 fabric (32 nodes an SU, a leaf
#: per rail), with a training split TP 8 (a node), PP 2, DP 33 (bom size: 515 GPUs asked, 520 built).
RAIL = """name: faults-rail-leaf
platform: dgx-h100
workload: {kind: pretrain, params: 8e9, tokens: 1.1e13, deadline: "30 d", layers: 32, hidden: 4096, heads: 32,
           sequence: 8192, batch_tokens: 4194304, parallelism: {tp: 8, pp: 2}}
fabrics:
  compute: {switch: qm9700}
"""
#: Two sites joined by one DCI route (two sites: one cabled pair).
TWO_SITES = """name: faults-two-sites
platform: dgx-h100
gpus: 256
fabrics:
  compute: {switch: qm9700}
sites: {count: 2, distance: "10 km", dci_bandwidth: "3.2 Tbit/s"}
"""


def _model(text: str, catalog) -> Model:   # type: ignore[no-untyped-def]
    src = load_text(text, "<test>")
    return pipeline.build_scenario(parse_scenario(src), src, catalog)


@pytest.fixture(scope="module")
def rail(catalog) -> tuple[Model, list[Domain]]:   # type: ignore[no-untyped-def]
    m = _model(RAIL, catalog)
    return m, fault_domains(m)


def _one(domains: list[Domain], element: FaultElement) -> Domain:
    found = [d for d in domains if d.element == element]
    assert len(found) == 1, found
    return found[0]


#: AMD Instinct MI300X nodes, whose supplies the power plan splits so that either feed carries every device.
DUAL_FED = """name: faults-dual-fed
platform: mi300x-platform
gpus: 256
fabrics:
  compute: {}
"""


def test_losing_one_feed_of_a_dual_fed_rack_cuts_off_nothing(catalog) -> None:   # type: ignore[no-untyped-def]
    m = _model(DUAL_FED, catalog)
    assert m.power is not None and all(not g.plan.down for g in m.power.groups)   # the plan: dual-fed
    domains = fault_domains(m)
    feed, pdu = _one(domains, E.FEED), _one(domains, E.PDU)
    for d in (feed, pdu):
        assert d.gpus_cut == 0 and d.domains_broken == 0 and d.bisection_lost == 0 and not d.interrupts
    # Every rack has its two feeds, and the whole rack (both feeds) cuts its nodes.
    assert feed.count == 2 * sum(m.placement.counts().values())
    rack = [d for d in domains if d.element == E.RACK and d.what.startswith("compute rack")]
    assert rack and all(d.gpus_cut > 0 and d.interrupts for d in rack)


def test_a_feed_cuts_the_nodes_the_power_plan_leaves_short(rail) -> None:   # type: ignore[no-untyped-def]
    # DGX H100: six supplies, four needed (4+2), three on each feed: the power plan's rack of four nodes is
    # left short of supplies by either feed, so the feed's loss cuts the rack's 32 GPUs and names their groups.
    m, domains = rail
    assert m.power is not None
    feed = _one(domains, E.FEED)
    assert feed.gpus_cut == 4 * 8 and feed.interrupts and "short of supplies" in feed.why
    assert feed.stalled is not None and feed.stalled.groups["tp"] == (4, 66)


def test_the_power_function_is_the_placements_a_b_pairs() -> None:
    assert rack_power(RackType("r", 42, 40_000.0, None, 4, 17_300.0)).dual_fed
    p = rack_power(RackType("r", 42, 40_000.0, None, 4, 17_300.0))
    assert (p.feeds, p.pdus, p.pdus_per_feed) == (2, 4, 2)
    assert not rack_power(RackType("r", 42, 40_000.0)).dual_fed     # no PDUs: nothing to outlive


def test_losing_one_leaf_of_a_rail_optimised_su_cuts_one_rail_of_its_nodes(rail) -> None:   # type: ignore[no-untyped-def]
    m, domains = rail
    f = m.fabrics[FabricRole.COMPUTE]
    p = f.first
    assert p.topology == "rail-optimized" and p.group_nodes == 32 and p.rails_per_leaf == 1
    leaf = _one(domains, E.LEAF)
    assert leaf.count == f.switches(Layer.LEAF) == 3 * 8          # 3 SUs (2 full, a partial) of 8 rail leaves
    # One rail (GPU 0 of each node) of the SU's 32 nodes: 32 GPUs, each in its own 8-GPU NVLink domain.
    assert leaf.gpus_cut == 32 and leaf.domains_broken == 32
    # The groups that stall: rank r = tp + 8 (pp + 2 dp): node n holds TP group n (pp = n % 2, dp = n // 2).
    # Every one of the 32 nodes' TP groups; PP groups are (tp, dp): tp 0 of dp 0..15; DP groups (tp, pp): 2.
    assert leaf.stalled is not None
    assert leaf.stalled.groups == {"tp": (32, 66), "pp": (16, 264), "dp": (2, 16)}
    assert leaf.stalled.replicas == (16, 33)
    assert leaf.stalled.names() == "TP 32/66, PP 16/264, DP 2/16"
    # Its share of the top layer: 32 uplinks of the 24 leaves' 768.
    assert leaf.bisection_lost == pytest.approx(p.leaf_up / (f.switches(Layer.LEAF) * p.leaf_up))


def test_a_spine_cuts_nothing_and_takes_its_share_of_the_bisection(rail) -> None:   # type: ignore[no-untyped-def]
    m, domains = rail
    spine = _one(domains, E.SPINE)
    assert spine.gpus_cut == 0 and spine.interrupts
    assert spine.bisection_lost == pytest.approx(1 / m.fabrics[FabricRole.COMPUTE].switches(Layer.SPINE))


def test_the_worst_come_first(rail) -> None:   # type: ignore[no-untyped-def]
    _, domains = rail
    cut = [d.gpus_cut for d in domains]
    assert cut == sorted(cut, reverse=True) and cut[0] == 256     # a block's network rack: the SU's 256 GPUs


def test_losing_the_only_dci_route_splits_the_sites(catalog) -> None:   # type: ignore[no-untyped-def]
    m = _model(TWO_SITES, catalog)
    assert m.dci is not None and len(m.dci.site_pairs or [(1, 2)]) == 1
    domains = fault_domains(m)
    route = _one(domains, E.DCI_ROUTE)
    assert route.count == 1 and route.sites_split and route.interrupts
    assert route.gpus_cut == m.site_sizes[1].gpus == 128        # the other site's GPUs are cut off from the first's
    site = _one(domains, E.SITE)
    assert site.sites_split and site.gpus_cut == 128 and site.bisection_lost == pytest.approx(0.5)


def test_a_ring_of_three_sites_outlives_one_route(catalog) -> None:   # type: ignore[no-untyped-def]
    m = _model(TWO_SITES.replace("count: 2", "count: 3, topology: ring").replace("gpus: 256", "gpus: 384"), catalog)
    route = _one(fault_domains(m), E.DCI_ROUTE)
    assert route.count == 3 and not route.sites_split and route.gpus_cut == 0


def test_the_closed_form_stays_small_for_a_large_cluster() -> None:
    # The groups are counted over one element's ranks, never the cluster's: a 1M-rank split, one rail leaf.
    from bom.faults.groups import stalled
    from bom.model.parallelism import Split

    s = stalled(Split(tp=8, pp=16, dp=8192), np.arange(32) * 8)
    assert s.groups["tp"] == (32, 131072) and s.replicas == (2, 8192)
