"""Failure domains: for each element class, what one element's failure cuts off, breaks and stalls.

Closed form per class: one element of each symmetric class (the first: GPU 0, node 0, the first rack of
each rack layout, leaf 0 of the first scalable unit, site 1) is worked out once and stands for every
element of its class; nothing walks the devices. Per element: the GPUs cut off (no path to the rest of
the job), the scale-up domains broken (a domain with a GPU cut off), the share of the compute fabric's
bisection lost (the links of its top layer the element carries: leaf-spine links in two layers,
spine-core links in three, over every plane and site), whether the sites split, and which parallel
groups of the sized job stall (bom/faults/groups.py). An element whose loss cuts nothing and takes no
link (a PDU or feed of a dual-fed rack, a CDU of an N+1 set) does not interrupt the job; every other
one does: a link that goes down under a collective times the collective out (the Llama 3 paper's
35 network switch and cable interruptions, bom/faults/rates.py).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from bom.faults.groups import Stalled, stalled
from bom.faults.power import feed_loss, rack_power
from bom.model.fabrics import Fabric
from bom.model.model import Model
from bom.model.parallelism import Split
from bom.model.plane import Plane
from bom.roles import FabricRole, FaultElement, Layer, RackKind

E = FaultElement


@dataclass(frozen=True)
class Domain:
    """One element class: how many elements, and what one of them takes down."""

    element: FaultElement
    what: str                 # the class as the table names it ("compute rack of 4 nodes")
    count: int                # elements of the class in the cluster
    gpus_cut: int             # GPUs one element cuts off
    domains_broken: int       # scale-up domains with a GPU cut off
    bisection_lost: float     # share of the compute fabric's top-layer links one element takes
    sites_split: bool         # the sites can no longer all reach each other
    stalled: Stalled | None   # the job's groups that stall (None: no training split)
    why: str = ""

    @property
    def interrupts(self) -> bool:
        """The job stops when one element fails (a GPU cut off, a link of its fabric lost, the sites split)."""
        return self.gpus_cut > 0 or self.bisection_lost > 0 or self.sites_split


@dataclass(frozen=True)
class Shape:
    """The cluster's numbers the closed forms read."""

    gpus: int
    gpus_per_node: int
    gpus_per_domain: int
    split: Split | None
    fabric: Fabric | None     # the compute fabric
    top_links: int            # its top-layer links over every plane and site (0: one layer)

    def cut(self, element: FaultElement, what: str, count: int, ranks: np.ndarray, bisection: float = 0.0,
            split_sites: bool = False, why: str = "") -> Domain:
        ranks = ranks[ranks < self.gpus]
        domains = int(np.unique(ranks // self.gpus_per_domain).size) if ranks.size else 0
        groups = stalled(self.split, ranks) if self.split is not None else None
        return Domain(element, what, count, int(ranks.size), domains, bisection, split_sites, groups, why)

    def nodes(self, first: int, n: int, local: np.ndarray | None = None) -> np.ndarray:
        """The ranks of nodes ``first`` .. ``first + n - 1`` (their GPUs ``local``, default all)."""
        g = self.gpus_per_node
        local = np.arange(g) if local is None else local
        return (np.arange(first, first + n)[:, None] * g + local[None, :]).ravel()


NONE = np.zeros(0, dtype=np.int64)


def _top_links(f: Fabric | None) -> int:
    if f is None:
        return 0
    return sum(n * f.planes * (p.spine_core_links if p.layers == 3 else p.leaf_spine_links if p.layers == 2 else 0)
               for n, p in f.shapes)


def shape_of(model: Model) -> Shape:
    p = model.platform
    par = model.sizing.parallelism if model.sizing is not None else None
    split = par.split if par is not None and par.kind == "train" else None
    f = model.fabrics.get(FabricRole.COMPUTE)
    return Shape(model.cluster.gpus, p.gpus_per_node, p.gpus_per_domain, split, f, _top_links(f))


def fault_domains(model: Model, cdus: int = 0) -> list[Domain]:
    """Every element class of the cluster and what one element's failure does, worst first."""
    s = shape_of(model)
    out = [s.cut(E.GPU, "GPU", model.cluster.gpus, np.arange(1)),
           s.cut(E.NODE, "GPU node", model.cluster.nodes, s.nodes(0, 1))]
    out += _racks(model, s)
    if cdus:
        out.append(s.cut(E.CDU, "CDU (N+1 per site)", cdus, NONE, why="N+1: the others carry its load"))
    out += _fabric(s)
    out += _sites(model, s)
    return ranked(out)


def ranked(domains: list[Domain]) -> list[Domain]:
    """Worst first: GPUs cut off, then sites split, bisection lost, scale-up domains broken."""
    return sorted(domains, key=lambda d: (-d.gpus_cut, not d.sites_split, -d.bisection_lost, -d.domains_broken,
                                          d.element))


def _racks(model: Model, s: Shape) -> list[Domain]:
    """Each distinct rack layout's rack, and the supplies, PDUs and feeds of every rack."""
    kinds: Counter[tuple[RackKind, int, int, int, int]] = Counter()
    pdus = feeds = supplies = 0
    for sites, sec in model.placement.all_sections():
        for lay in sec.layouts:
            n = sites * sec.copies
            roles = Counter(item.role for item, _ in lay.slots if item.fabric in (None, FabricRole.COMPUTE))
            kinds[(lay.kind, roles[Layer.NODE], roles[Layer.LEAF], roles[Layer.SPINE], roles[Layer.CORE])] += n
            power = rack_power(lay.rack)
            pdus += n * power.pdus
            feeds += n * power.feeds
            devices = sum(1 for item, _ in lay.slots if item.role != Layer.PDU)
            supplies += n * devices * max(power.feeds, 1)
    out = []
    for (kind, nodes, leaves, spines, cores), n in sorted(kinds.items()):
        if not (nodes or leaves or spines or cores):
            continue
        ranks = np.concatenate([s.nodes(0, nodes), _leaf_ranks(s, leaves)]) if nodes or leaves else NONE
        held = [_many(k, w) for k, w in ((nodes, Layer.NODE), (leaves, Layer.LEAF), (spines, Layer.SPINE),
                                          (cores, Layer.CORE)) if k]
        out.append(s.cut(E.RACK, f"{kind} rack of {', '.join(held)}", n,
                         np.unique(ranks), _bisection(s, leaves, spines, cores)))
    return out + _power(model, s, supplies, pdus, feeds)


def _power(model: Model, s: Shape, supplies: int, pdus: int, feeds: int) -> list[Domain]:
    """A supply, a PDU and a feed lost: the power plan's nodes short of supplies with one feed down (a PDU's
    loss taken as its feed's, a bound), else the placement's A/B pairs (every device on both feeds)."""
    plan = feed_loss(model)
    down = NONE
    why = "dual-fed: every device has a supply on the other feed"
    if plan is not None:
        supplies, pdus = plan.supplies, plan.pdus
        if plan.nodes_down:
            down = s.nodes(0, plan.nodes_down)
            why = (f"the power plan leaves {plan.nodes_down} node{'s' * (plan.nodes_down != 1)} of a rack short of "
                   "supplies with one feed lost (a PDU taken as its feed: a bound)")
        else:
            why = "the power plan: every device keeps the supplies it needs on the other feed"
    out = []
    if supplies:
        out.append(s.cut(E.SUPPLY, "device supply (one of A/B)", supplies, NONE,
                         why="N+M or A/B: the device's other supplies carry it"))
    if pdus:
        out.append(s.cut(E.PDU, "rack PDU", pdus, down, why=why))
    if feeds:
        out.append(s.cut(E.FEED, "rack feed (A or B)", feeds, down, why=why))
    return out


def _many(n: int, layer: Layer) -> str:
    """``4 nodes``, ``1 leaf``, ``8 leaves``."""
    word = str(layer)
    return f"{n} {word if n == 1 else word[:-1] + 'ves' if word.endswith('f') else word + 's'}"


def _plane(s: Shape) -> Plane | None:
    return s.fabric.first if s.fabric is not None and s.fabric.shapes else None


def _leaf_ranks(s: Shape, leaves: int) -> np.ndarray:
    """The GPUs behind the first ``leaves`` leaves of the first scalable unit (one plane: with more, a
    leaf's loss leaves its GPUs the other planes)."""
    p = _plane(s)
    if p is None or not leaves or s.fabric is None or s.fabric.planes > 1:
        return NONE
    per_port = max(1, s.gpus_per_node // max(p.node_ports, 1))
    leaves = min(leaves, p.leaves_per_group)
    if p.nodes_per_leaf:    # each leaf takes every port of its nodes
        return s.nodes(0, min(leaves * p.nodes_per_leaf, p.group_nodes))
    if p.topology == "tor":   # the rack's leaves share each node's ports
        share = -(-s.gpus_per_node * leaves // max(p.leaves_per_group, 1))
        return s.nodes(0, p.group_nodes, np.arange(share))
    out = []
    rail_nodes = p.rail_leaf_nodes
    per_rail = max(p.leaves_per_rail, 1)
    for i in range(leaves):
        rail, block = divmod(i, per_rail)
        first_port = rail * p.rails_per_leaf
        local = np.arange(first_port * per_port, (first_port + p.rails_per_leaf) * per_port)
        out.append(s.nodes(block * rail_nodes, min(rail_nodes, p.group_nodes - block * rail_nodes), local))
    return np.unique(np.concatenate(out)) if out else NONE


def _bisection(s: Shape, leaves: int, spines: int, cores: int) -> float:
    """The share of the top layer's links ``leaves``, ``spines`` and ``cores`` of one plane carry."""
    p = _plane(s)
    if p is None or not s.top_links:
        return 0.0
    if p.layers == 2:
        links = leaves * p.leaf_up + spines * (p.leaf_spine_links // max(p.spines, 1))
    else:
        links = spines * p.spine_up + cores * (p.spine_core_links // max(p.cores, 1))
    return links / s.top_links


def _fabric(s: Shape) -> list[Domain]:
    f, p = s.fabric, _plane(s)
    if f is None or p is None:
        return []
    out = [s.cut(E.LEAF, "compute leaf", f.switches(Layer.LEAF), _leaf_ranks(s, 1), _bisection(s, 1, 0, 0))]
    if f.switches(Layer.SPINE):
        out.append(s.cut(E.SPINE, "compute spine", f.switches(Layer.SPINE), NONE, _bisection(s, 0, 1, 0)))
    if f.switches(Layer.CORE):
        out.append(s.cut(E.CORE, "compute core", f.switches(Layer.CORE), NONE, _bisection(s, 0, 0, 1)))
    if f.planes > 1:
        out.append(s.cut(E.PLANE, "compute plane", f.planes, NONE, 1.0 / f.planes,
                         why="the other planes carry every GPU's traffic"))
    if p.layers >= 2 and p.groups > 1 and not p.nodes_per_leaf and f.planes == 1:
        blocks = sum(n * q.groups for n, q in f.shapes)
        ranks = s.nodes(0, p.group_nodes)
        out.append(s.cut(E.TRUNK, "a block's trunk to the spines", blocks, ranks,
                         _bisection(s, p.leaves_per_group, 0, 0),
                         why="the block's nodes reach each other through their leaves, nothing beyond"))
    return out


def _sites(model: Model, s: Shape) -> list[Domain]:
    sizes = [site.gpus for site in model.site_sizes]
    if len(sizes) < 2:
        return []
    out = [s.cut(E.SITE, "site", len(sizes), np.arange(sizes[0]), sizes[0] / sum(sizes), split_sites=True)]
    d = model.dci
    if d is None:
        return out
    pairs = list(d.site_pairs) or [(a, b) for a in range(1, d.sites + 1) for b in range(a + 1, d.sites + 1)]
    routes: Counter[tuple[int, bool]] = Counter()
    worst: dict[tuple[int, bool], int] = {}
    for pair in pairs:
        cut, split = _without(pairs, pair, sizes)
        routes[(cut, split)] += 1
        worst.setdefault((cut, split), pair[0])
    for (cut, split), n in sorted(routes.items(), reverse=True):
        first = sum(sizes[:worst[(cut, split)] - 1])
        ranks = np.arange(first, first + cut)
        why = "the sites stay joined over the other routes" if not split else "the sites split"
        out.append(s.cut(E.DCI_ROUTE, "DCI route between two sites", n, ranks, split_sites=split, why=why))
        if d.amplifiers:
            out.append(s.cut(E.AMPLIFIER, "amplifier on a DCI route (its route dark)", d.amplifiers, ranks,
                             split_sites=split, why=why))
            break
    routers = [d.site_routers(k) for k in range(1, d.sites + 1)]
    if min(routers) == 1:
        out.append(s.cut(E.ROUTER, "a site's only DCI router", d.routers, np.arange(sizes[0]), split_sites=True))
    else:
        out.append(s.cut(E.ROUTER, "DCI router", d.routers, NONE, why=f"{min(routers)}+ routers a site"))
    return out


def _without(pairs: list[tuple[int, int]], gone: tuple[int, int], sizes: list[int]) -> tuple[int, bool]:
    """(GPUs cut off, sites split) when the route ``gone`` is lost: the GPUs outside the largest part left."""
    parent = list(range(len(sizes) + 1))

    def root(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for a, b in pairs:
        if (a, b) != gone:
            parent[root(a)] = root(b)
    parts: Counter[int] = Counter()
    for k, g in enumerate(sizes, 1):
        parts[root(k)] += g
    if len(parts) == 1:
        return 0, False
    return sum(sizes) - max(parts.values()), True
