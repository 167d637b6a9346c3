"""Redundancy priced: each option the tool can build, its capex and its change in goodput and in the cost of a
useful GPU-hour.

What the base build loses after an interruption, beyond the restart (first order, per day of wall time):
a node's hardware failure leaves the job running without the node's model replicas until it is repaired
(``faults.repair``), ``rate x repair x replicas lost / replicas``; a spine's leaves the fabric without
its share of the top layer's links until repaired, ``rate x repair x bisection lost x the step's exposed
scale-out share`` (the step slows at most by its communication on that tier; 1 without a split). A hot
spare or a spare spine puts the job back at full size at the restart: its gain is that loss. A useful
GPU-hour costs the TCO's GPU-hour, with the option's capex added to the TCO, over the goodput.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from bom.costing.categories import Category
from bom.costing.lines import Line
from bom.costing.report import Report
from bom.faults.domains import Domain
from bom.faults.interruptions import Interruptions
from bom.model.hops import HopKind
from bom.roles import FabricRole, FaultElement, Layer, Tier


@dataclass(frozen=True)
class Option:
    name: str
    built: bool              # the base build already has it
    units: int               # what it adds (spare nodes, spare spines, B-side PDUs, planes)
    capex_usd: float | None  # None: the option could not be built here (why says so)
    loss_avoided: float | None   # goodput it gains (None: no failure rate to price it by)
    why: str


def poisson_quantile(mean: float, level: float) -> int:
    """The fewest spares ``k`` with P(N <= k) >= ``level`` for N ~ Poisson(``mean``).

    >>> poisson_quantile(0.9, 0.99), poisson_quantile(0.0, 0.99)
    (4, 0)
    """
    k, term = 0, math.exp(-mean)
    total = term
    while total < level:
        k += 1
        term *= mean / k
        total += term
    return k


def _price(report: Report, keep: Callable[[Line], bool]) -> float:
    return sum(x.price_usd for x in report.lines if keep(x))


def replica_share(domain: Domain, gpus: int) -> float:
    """The share of the job's model replicas (or of its GPUs, without a split) one element takes out."""
    if domain.stalled is not None and domain.stalled.replicas[1]:
        lost, of = domain.stalled.replicas
        return lost / of
    return domain.gpus_cut / gpus if gpus else 0.0


def scale_out_share(report: Report) -> float:
    """The step's exposed scale-out communication over the step (1 without a training split: a bound)."""
    s = report.model.sizing
    p = s.parallelism if s is not None else None
    if p is None or p.kind != "train" or not p.step_s:
        return 1.0
    return sum(t.exposed_s for t in p.traffic if t.tier == Tier.SCALE_OUT) / p.step_s


def hot_spares(report: Report, rows: list[Interruptions], node: Domain, repair_days: float,
               level: float) -> Option:
    m = report.model
    per_day = sum(r.per_day for r in rows if r.hardware)
    k = poisson_quantile(per_day * repair_days, level)
    node_usd = _price(report, lambda x: x.category == Category.COMPUTE) / max(m.cluster.nodes, 1)
    loss = per_day * repair_days * replica_share(node, m.cluster.gpus)
    return Option("hot-spare nodes", False, k, k * node_usd, loss,
                  f"{k} standby node{'s' * (k != 1)} cover the {per_day * repair_days:.2f} node failures expected in "
                  f"one repair time with probability {level:g} (Poisson); without them the job runs without a failed "
                  f"node's replicas until it is repaired")


def spare_spine(report: Report, rows: list[Interruptions], spine: Domain, repair_days: float) -> Option | None:
    f = report.model.fabrics.get(FabricRole.COMPUTE)
    if f is None or not f.switches(Layer.SPINE):
        return None
    spines = f.switches(Layer.SPINE)
    link_rate = _link_rate(rows)
    p = f.first
    per_spine_links = p.leaf_spine_links / max(p.spines, 1) + p.spine_up
    k = sum(n * f.planes * q.pods for n, q in f.shapes)
    unit = _price(report, lambda x: x.catalog_id == p.spine.id and x.fabric == FabricRole.COMPUTE
                  and x.category == Category.SWITCH) / spines
    links = _price(report, lambda x: x.fabric == FabricRole.COMPUTE and x.hop == HopKind.LEAF_SPINE) / spines
    loss = link_rate * per_spine_links * spines * repair_days * spine.bisection_lost * scale_out_share(report)
    return Option("spare spine", False, k, k * (unit + links), loss,
                  f"one cabled standby spine per pod and plane ({k}), its switch and its share of the leaf-spine "
                  "links' parts; without it the fabric runs without a failed spine's links until it is repaired")


def _link_rate(rows: list[Interruptions]) -> float:
    return next((r.rate.per_unit_day for r in rows if r.rate.part == "link"), None) or 0.0


def dual_plane(report: Report, rows: list[Interruptions], leaf: Domain, repair_days: float,
               priced: tuple[float | None, str]) -> Option | None:
    """A second plane of the compute fabric (each NIC port split over two planes, ``planes: 2``): a leaf's loss
    then cuts no GPU. ``priced``: the capex the two-plane build adds (None: it cannot be built) and why."""
    f = report.model.fabrics.get(FabricRole.COMPUTE)
    if f is None or f.planes > 1 or not leaf.gpus_cut:
        return None
    p = f.first
    leaves = f.switches(Layer.LEAF)
    per_leaf_links = p.node_leaf_links / max(p.leaves, 1) + p.leaf_up
    loss = _link_rate(rows) * per_leaf_links * leaves * repair_days * replica_share(leaf, report.model.cluster.gpus)
    capex, why = priced
    return Option("dual-plane NICs", False, 2, capex, loss,
                  f"the compute fabric on two planes (planes: 2, rebuilt and priced: {why}); without it a leaf's loss "
                  "leaves the job without its GPUs' replicas until it is repaired")


def dual_feeds(report: Report, domains: list[Domain]) -> Option:
    pdus = _price(report, lambda x: x.category == Category.PDU)
    feeds = sum(d.count for d in domains if d.element == FaultElement.FEED)
    return Option("dual feeds", True, feeds // 2, pdus / 2, None,
                  "built: every rack's B-side PDUs (half of the PDUs' price); its gain is not priced, as no published "
                  "feed or PDU failure rate was read (catalogs/reliability/failure-rates.yaml)")


def options(report: Report, rows: list[Interruptions], domains: list[Domain], repair_days: float,
            level: float, planes: tuple[float | None, str] | None = None) -> list[Option]:
    """Every option the build can take: dual feeds (built), a spare spine, dual-plane NICs (with ``planes``, the
    two-plane rebuild's added capex and why), hot-spare nodes."""
    by = {d.element: d for d in domains}
    out = [dual_feeds(report, domains)]
    leaf = by.get(FaultElement.LEAF)
    if leaf is not None and planes is not None:
        plane = dual_plane(report, rows, leaf, repair_days, planes)
        if plane is not None:
            out.append(plane)
    spine = by.get(FaultElement.SPINE)
    if spine is not None:
        o = spare_spine(report, rows, spine, repair_days)
        if o is not None:
            out.append(o)
    out.append(hot_spares(report, rows, by[FaultElement.NODE], repair_days, level))
    return out
