"""The hops of a switch fabric (compute, and the switch layers of every scale-out fabric): node-leaf
per topology, a switch pair's ISLs, leaf-spine, spine-core. Each one pattern (:mod:`bom.links.pattern`).

Numbering (nodes, leaves, spines, cores, cages) is described in :mod:`bom.cableplan.rows`.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from bom.catalog.media import cage
from bom.links.pattern import Fixed, HopContext, Item, Link, Mesh, Pair, Pattern, Section, Star, Tags
from bom.links.ports import node_port_names
from bom.links.views import FabricLinks
from bom.model.hops import HopKind
from bom.roles import Layer
from bom.topology.geometry import leaf_of, pod_leaves

#: A :class:`Pair` made from a tuple of its ten fields in one C call (the node-leaf hops make one a row).
new_pair = tuple.__new__


class NodeLeaf(Pattern[FabricLinks]):
    """Node ports to their leaves, plane by plane, a placement section's nodes at a time: every plane's
    leaves stand with the others, so a node's ports of all planes share a run."""

    hop, lower, upper = HopKind.NODE_LEAF, Layer.NODE, Layer.LEAF

    def pairs(self, ctx: HopContext[FabricLinks]) -> Iterator[Item]:
        for pl in range(ctx.view.planes):
            for part in ctx.floor.parts(Layer.NODE):
                yield Section(part.copies, partial(self.nodes, ctx, pl, part.first, part.per_copy))

    def nodes(self, ctx: HopContext[FabricLinks], pl: int, first: int, per_copy: int, copy: int) -> Iterator[Pair]:
        """One copy's nodes of plane ``pl``, each rail to its leaf (:func:`~bom.topology.geometry.leaf_of`)."""
        p, fab = ctx.p, ctx.view
        planes, lpg, role = fab.planes, p.leaves_per_group, fab.role(Layer.LEAF)
        rails = p.topology != "tor"
        sw = ctx.switches
        if sw is not None:
            # A node's links are numbered q = rail * planes + plane, cage by cage: a split port's planes share
            # its cage; dealt whole (planes_by: port) the q-th link is the node's q-th port.
            node_per = fab.node_cage_links
            names = node_port_names(fab.name, p.node_ports * planes // node_per + 1, node_per)
            # Every node of the copy names its r-th port alike: one end per rail, not one per row.
            ends = [Fixed(names[q], names[q - q % node_per]) for q in (r * planes + pl for r in range(p.node_ports))]
        start = first + copy * per_copy
        for i in range(start, start + per_copy):
            g, n = divmod(i, p.group_nodes)
            fill = p.group_nodes if g < p.groups - 1 else p.last_group_nodes
            base = (g * planes + pl) * lpg
            for r in range(p.node_ports):
                leaf = base + leaf_of(p, n, r, fill)
                if sw is None:
                    yield Pair((Layer.NODE, i), (role, leaf))
                    continue
                # Made as the tuple it is (a Pair's __new__ is a Python call: a tenth of a node's row).
                yield new_pair(Pair, ((Layer.NODE, i), (role, leaf), 1, pl + 1, r + 1 if rails else "", ends[r],
                                      sw.leaf_down(leaf), None, 1, None))

    def link(self, ctx: HopContext[FabricLinks]) -> Link:
        # Whether a cage's ports reach one far device (then one copper head may serve them all). One
        # lookup serves every site, so a cage spreads when it does in any site's plane (sites of other
        # sizes have other pods: 6 links per leaf-spine pair in one, 9 in the next).
        fab = ctx.view
        p, nic, planes, shapes = fab.first, fab.nic, fab.planes, fab.planes_of
        rail = p.topology in ("rail-optimized", "rail-only")
        node_spread = rail or planes > 1 or any(q.leaves_per_group > 1 for q in shapes)
        leaf_spread = (rail and not all(q.nodes_per_leaf for q in shapes)) or p.node_ports * planes < 2
        return Link(fab.rate_gbps, cage(nic.form_factor, fab.node_cage_links, node_spread),
                    cage(p.leaf.form_factor, p.leaf.ports_per_cage, leaf_spread), fab.lane)


class NodeLeafRail(NodeLeaf):
    """Rail-optimised (and a switch pair's halves): rail r of a node to the leaves of its rail set. A
    leaf takes ``rails`` consecutive rails (several on a small pod's leaf, both halves of a switch
    pair), its j-th leaf the next ``rail_leaf_nodes`` nodes of the SU."""

    def applies(self, ctx: HopContext[FabricLinks]) -> bool:
        return ctx.p.topology != "tor"


class NodeLeafTor(NodeLeaf):
    """Top of rack: a rack's ports, port-major, split over its leaves."""

    def applies(self, ctx: HopContext[FabricLinks]) -> bool:
        return ctx.p.topology == "tor"


class LeafLeaf(Pattern[FabricLinks]):
    """A switch pair's inter-switch links: they take the place of the leaf-spine hop. The j-th ISL joins
    the j-th uplink port of each switch, on the cages past their downlinks."""

    hop, lower, upper = HopKind.LEAF_LEAF, Layer.LEAF, Layer.LEAF

    def applies(self, ctx: HopContext[FabricLinks]) -> bool:
        return bool(ctx.p.isl)

    def pairs(self, ctx: HopContext[FabricLinks]) -> Iterator[Item]:
        p, role, sw = ctx.p, ctx.view.role(Layer.LEAF), ctx.switches
        for pl in range(ctx.view.planes):
            first = pl * p.leaves_per_group          # one group: the plane's two switches
            yield Pair((role, first), (role, first + 1), p.isl, pl + 1, "",
                       sw.leaf_up(first) if sw else None, sw.leaf_up(first + 1) if sw else None)

    def link(self, ctx: HopContext[FabricLinks]) -> Link:
        p = ctx.view.first
        isl = cage(p.up.form_factor, p.up.ports_per_cage)   # a pair's ISLs all reach the other switch
        return Link(p.up.rate_gbps, isl, isl, ctx.view.up_lane)


class LeafSpine(Pattern[FabricLinks]):
    """Each leaf's uplinks spread over its pod's spines (a fabric of one leaf or a pair has none): uplink
    ``u`` of a leaf to spine ``u // links_per_pair``."""

    hop, lower, upper = HopKind.LEAF_SPINE, Layer.LEAF, Layer.SPINE

    def applies(self, ctx: HopContext[FabricLinks]) -> bool:
        return ctx.p.layers > 1

    def pairs(self, ctx: HopContext[FabricLinks]) -> Iterator[Item]:
        p, fab, sw = ctx.p, ctx.view, ctx.switches
        planes, sp = fab.planes, p.spines_per_pod
        for pl in range(planes):
            for pod, leaves in enumerate(pod_leaves(p, pl, planes)):
                spines = [(pod * planes + pl) * sp + s for s in range(sp)]
                yield Mesh(fab.role(Layer.LEAF), leaves, fab.role(Layer.SPINE), spines, p.leaf_spine_per_pair, pl + 1,
                           (pl, pod), sw.leaf_up if sw else None, sw.spine_lo if sw else None)

    def link(self, ctx: HopContext[FabricLinks]) -> Link:
        # A cage's ports reach one far switch only when the links to each switch fill whole cages
        # (3 links per pair on twin-port cages leave one cage split between two spines).
        p, shapes = ctx.view.first, ctx.view.planes_of
        return Link(p.up.rate_gbps,
                    cage(p.up.form_factor, p.up.ports_per_cage,
                         any(q.leaf_spine_per_pair % p.up.ports_per_cage for q in shapes)),
                    cage(p.spine.form_factor, p.spine.ports_per_cage,
                         any(q.leaf_spine_per_pair % p.spine.ports_per_cage for q in shapes)), ctx.view.up_lane)


class SpineCore(Pattern[FabricLinks]):
    """Three layers: spine i of every pod to core group i, pod by pod in the plan."""

    hop, lower, upper = HopKind.SPINE_CORE, Layer.SPINE, Layer.CORE

    def applies(self, ctx: HopContext[FabricLinks]) -> bool:
        return ctx.p.layers == 3

    def pairs(self, ctx: HopContext[FabricLinks]) -> Iterator[Item]:
        p, fab, sw = ctx.p, ctx.view, ctx.switches
        planes, sp, cpg = fab.planes, p.spines_per_pod, p.cores_per_group
        spine_role, core_role = fab.role(Layer.SPINE), fab.role(Layer.CORE)
        if sw is None:   # the closed form: each spine to its core group, a plane's spines as one star
            for pl in range(planes):
                groups = [[(pl * sp + s) * cpg + c for c in range(cpg)] for s in range(sp)]
                tags = [(pl, s) for s in range(sp)]
                yield Star(spine_role, core_role, p.spine_core_per_pair,
                           [((pod * planes + pl) * sp + s, groups[s], tags[s]) for pod in range(p.pods)
                            for s in range(sp)])
            return
        for pl in range(planes):
            for pod in range(p.pods):
                for s in range(sp):
                    cores = [(pl * sp + s) * cpg + c for c in range(cpg)]
                    # A core group takes spine s of every pod: its ports are one set over the pods.
                    yield Mesh(spine_role, [(pod * planes + pl) * sp + s], core_role, cores, p.spine_core_per_pair,
                               pl + 1, Tags((pl, pod, s), (pl, s)), sw.spine_hi if sw else None,
                               sw.core_lo if sw else None)

    def link(self, ctx: HopContext[FabricLinks]) -> Link:
        p, shapes = ctx.view.first, ctx.view.planes_of
        sc = cage(p.spine.form_factor, p.spine.ports_per_cage,
                  any(q.spine_core_per_pair % p.spine.ports_per_cage for q in shapes))
        return Link(p.spine.rate_gbps, sc, sc, ctx.view.up_lane)
