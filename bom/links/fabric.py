"""The hops of a switch fabric (compute, and every Fabric-shaped scale-out fabric): node-leaf per
topology, a switch pair's ISLs, leaf-spine, spine-core. Each one pattern, counted and expanded.

Expansion numbering (nodes, leaves, spines, cores, cages) is described in :mod:`bom.cableplan.rows`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bom.catalog.media import cage
from bom.links.hop import FabricLinks, Hop, Link, Rows
from bom.links.ports import node_port_names
from bom.model.hops import HopKind
from bom.topology.geometry import (
    leaf_of,
    leaf_spine_ends,
    node_leaf_ends,
    pair_ends,
    pod_leaves,
    spine_core_ends,
)

if TYPE_CHECKING:
    from bom.links.ports import Kind, Plan, Ports, Switches
    from bom.model.floorplan import EndGroups, Floorish, FloorPlan, Run
    from bom.model.plane import Plane


class NodeLeaf(Hop):
    """Node ports to their leaves: every plane's leaves stand with the others, so a node's ports of
    all planes share a run."""

    name, lower, upper = HopKind.NODE_LEAF, "node", "leaf"

    def ends(self, p: Plane, fp: FloorPlan, fab: FabricLinks, floor: Floorish) -> tuple[EndGroups, EndGroups]:
        return node_leaf_ends(p, fp, floor, fab.planes, fab.role("leaf"))

    def link(self, fab: FabricLinks, rate: float) -> Link:
        # Whether a cage's ports reach one far device (then one copper head may serve them all). One
        # lookup serves every site, so a cage spreads when it does in any site's plane (sites of other
        # sizes have other pods: 6 links per leaf-spine pair in one, 9 in the next).
        p, nic, planes = fab.first, fab.nic, fab.planes
        shapes = [q for _, q in fab.shapes]
        rail = p.topology in ("rail-optimized", "rail-only")
        node_spread = rail or planes > 1 or any(q.leaves_per_group > 1 for q in shapes)
        leaf_spread = (rail and not all(q.nodes_per_leaf for q in shapes)) or p.node_ports * planes < 2
        return Link(rate, cage(nic.form_factor, nic.ports_per_cage * planes, node_spread),
                    cage(p.leaf.form_factor, p.leaf.ports_per_cage, leaf_spread), fab.lane)


class NodeLeafRail(NodeLeaf):
    """Rail-optimised (and a switch pair's halves): rail r of a node to the leaves of its rail set."""

    def applies(self, p: Plane) -> bool:
        return p.topology != "tor"

    def plane_rows(self, plan: Plan, sw: Switches, kinds: dict[Run, Kind], p: Plane, fp: FloorPlan,
                   site: int, pl: int, fab: FabricLinks) -> Rows:
        planes = fab.planes
        nic = fab.node_ports
        assert nic is not None
        node_per = nic.ports_per_cage * planes
        node_names = node_port_names(fab.name, p.node_ports * planes // node_per + 1, node_per)
        leaf_role = sw.roles["leaf"]
        # A leaf takes ``rails`` consecutive rails (several on a small pod's leaf, both halves of a
        # switch pair): rail r goes to the leaves of rail set r // rails, its j-th leaf taking the
        # next ``rail_leaf_nodes`` nodes of the SU (floorplan.node_leaf counts them so).
        plane_no = pl + 1
        leaves: dict[int, tuple[Ports, tuple[tuple[object, ...], str]]] = {}
        for g in range(p.groups):
            fill = p.group_nodes if g < p.groups - 1 else p.last_group_nodes
            leaf_base = (g * planes + pl) * p.leaves_per_group
            for n in range(fill):
                node_i = g * p.group_nodes + n
                node = plan.place("node", site, node_i)
                for r in range(p.node_ports):
                    leaf_i = leaf_base + leaf_of(p, n, r, fill)
                    leaf = leaves.get(leaf_i)
                    if leaf is None:
                        leaf = leaves[leaf_i] = (sw.leaf_down(leaf_i), plan.place(leaf_role, site, leaf_i))
                    k = kinds[plan.run(("node", node_i), (leaf_role, leaf_i), site, fp)]
                    ports = leaf[0]
                    j = ports.take(k.b_key)
                    q = r * planes + pl
                    yield from plan.emitter(k)(k, plane_no, r + 1, node, node_names[q], node_names[q - q % node_per],
                                               leaf[1], ports.names[j], ports.names[j - j % ports.per])


class NodeLeafTor(NodeLeaf):
    """Top of rack: a rack's ports, port-major, split over its leaves."""

    def applies(self, p: Plane) -> bool:
        return p.topology == "tor"

    def plane_rows(self, plan: Plan, sw: Switches, kinds: dict[Run, Kind], p: Plane, fp: FloorPlan,
                   site: int, pl: int, fab: FabricLinks) -> Rows:
        planes = fab.planes
        nic = fab.node_ports
        assert nic is not None
        node_per = nic.ports_per_cage * planes
        node_names = node_port_names(fab.name, p.node_ports * planes // node_per + 1, node_per)
        leaf_role = sw.roles["leaf"]
        lpg = p.leaves_per_group
        plane_no = pl + 1
        for g in range(p.groups):
            fill = p.group_nodes if g < p.groups - 1 else p.last_group_nodes
            leaf_base = (g * planes + pl) * lpg
            for n in range(fill):
                node_i = g * p.group_nodes + n
                node = plan.place("node", site, node_i)
                for r in range(p.node_ports):
                    leaf_i = leaf_base + leaf_of(p, n, r, fill)   # port-major over the rack's leaves
                    k = kinds[plan.run(("node", node_i), (leaf_role, leaf_i), site, fp)]
                    ports = sw.leaf_down(leaf_i)
                    j = ports.take(k.b_key)
                    q = r * planes + pl
                    yield from plan.emitter(k)(k, plane_no, "", node, node_names[q], node_names[q - q % node_per],
                                               plan.place(leaf_role, site, leaf_i), ports.names[j],
                                               ports.names[j - j % ports.per])


class LeafLeaf(Hop):
    """A switch pair's inter-switch links: they take the place of the leaf-spine hop."""

    name, lower, upper = HopKind.LEAF_LEAF, "leaf", "leaf"

    def applies(self, p: Plane) -> bool:
        return bool(p.isl)

    def ends(self, p: Plane, fp: FloorPlan, fab: FabricLinks, floor: Floorish) -> tuple[EndGroups, EndGroups]:
        return pair_ends(p, fp, floor, fab.planes, fab.role("leaf"))

    def link(self, fab: FabricLinks, rate: float) -> Link:
        p = fab.first
        isl = cage(p.up.form_factor, p.up.ports_per_cage)   # a pair's ISLs all reach the other switch
        return Link(p.up.rate_gbps, isl, isl, fab.up_lane)

    def plane_rows(self, plan: Plan, sw: Switches, kinds: dict[Run, Kind], p: Plane, fp: FloorPlan,
                   site: int, pl: int, fab: FabricLinks) -> Rows:
        """A switch pair's inter-switch links: the j-th ISL joins the j-th uplink port of each switch,
        on the cages past their downlinks."""
        role = sw.roles["leaf"]
        first = pl * p.leaves_per_group          # one group: the plane's two switches
        k = kinds[plan.run((role, first), (role, first + 1), site, fp)]
        emit = plan.emitter(k)
        a, b = plan.place(role, site, first), plan.place(role, site, first + 1)
        ua, ub = sw.leaf_up(first), sw.leaf_up(first + 1)
        for _ in range(p.isl):
            j, m = ua.take(k.a_key), ub.take(k.b_key)
            yield from emit(k, pl + 1, "", a, ua.names[j], ua.names[j - j % ua.per], b, ub.names[m],
                            ub.names[m - m % ub.per])


class LeafSpine(Hop):
    """Each leaf's uplinks spread over its pod's spines (a fabric of one leaf or a pair has none)."""

    name, lower, upper = HopKind.LEAF_SPINE, "leaf", "spine"

    def applies(self, p: Plane) -> bool:
        return p.layers > 1

    def ends(self, p: Plane, fp: FloorPlan, fab: FabricLinks, floor: Floorish) -> tuple[EndGroups, EndGroups]:
        return leaf_spine_ends(p, fp, floor, fab.planes, fab.roles)

    def link(self, fab: FabricLinks, rate: float) -> Link:
        # A cage's ports reach one far switch only when the links to each switch fill whole cages
        # (3 links per pair on twin-port cages leave one cage split between two spines).
        p, shapes = fab.first, [q for _, q in fab.shapes]
        return Link(p.up.rate_gbps,
                    cage(p.up.form_factor, p.up.ports_per_cage,
                         any(q.leaf_spine_per_pair % p.up.ports_per_cage for q in shapes)),
                    cage(p.spine.form_factor, p.spine.ports_per_cage,
                         any(q.leaf_spine_per_pair % p.spine.ports_per_cage for q in shapes)), fab.up_lane)

    def plane_rows(self, plan: Plan, sw: Switches, kinds: dict[Run, Kind], p: Plane, fp: FloorPlan,
                   site: int, pl: int, fab: FabricLinks) -> Rows:
        planes = fab.planes
        sp, pair = p.spines_per_pod, p.leaf_spine_per_pair
        leaf_role, spine_role = sw.roles["leaf"], sw.roles["spine"]
        plane_no = pl + 1
        spines: dict[int, tuple[tuple[tuple[object, ...], str], Ports]] = {}
        for pod, pod_leaves_ in enumerate(pod_leaves(p, pl, planes)):
            for leaf_i in pod_leaves_:
                leaf = plan.place(leaf_role, site, leaf_i)
                up = sw.leaf_up(leaf_i)
                for s in range(sp):
                    spine_i = (pod * planes + pl) * sp + s
                    spine = spines.get(spine_i)
                    if spine is None:
                        spine = spines[spine_i] = (plan.place(spine_role, site, spine_i), sw.spine_lo(spine_i))
                    down = spine[1]
                    k = kinds[plan.run((leaf_role, leaf_i), (spine_role, spine_i), site, fp)]
                    emit = plan.emitter(k)
                    for _ in range(pair):
                        j = up.take(k.a_key)
                        m = down.take(k.b_key)
                        yield from emit(k, plane_no, "", leaf, up.names[j], up.names[j - j % up.per], spine[0],
                                        down.names[m], down.names[m - m % down.per])


class SpineCore(Hop):
    """Three layers: spine i of every pod to core group i."""

    name, lower, upper = HopKind.SPINE_CORE, "spine", "core"

    def applies(self, p: Plane) -> bool:
        return p.layers == 3

    def ends(self, p: Plane, fp: FloorPlan, fab: FabricLinks, floor: Floorish) -> tuple[EndGroups, EndGroups]:
        return spine_core_ends(p, fp, floor, fab.planes, fab.roles)

    def link(self, fab: FabricLinks, rate: float) -> Link:
        p, shapes = fab.first, [q for _, q in fab.shapes]
        sc = cage(p.spine.form_factor, p.spine.ports_per_cage,
                  any(q.spine_core_per_pair % p.spine.ports_per_cage for q in shapes))
        return Link(p.spine.rate_gbps, sc, sc, fab.up_lane)

    def plane_rows(self, plan: Plan, sw: Switches, kinds: dict[Run, Kind], p: Plane, fp: FloorPlan,
                   site: int, pl: int, fab: FabricLinks) -> Rows:
        planes = fab.planes
        sp, cpg, pair = p.spines_per_pod, p.cores_per_group, p.spine_core_per_pair
        spine_role, core_role = sw.roles["spine"], sw.roles["core"]
        plane_no = pl + 1
        for pod in range(p.pods):
            for s in range(sp):
                spine_i = (pod * planes + pl) * sp + s
                spine = plan.place(spine_role, site, spine_i)
                up = sw.spine_hi(spine_i)
                for c in range(cpg):
                    core_i = (pl * sp + s) * cpg + c
                    core = plan.place(core_role, site, core_i)
                    down = sw.core_lo(core_i)
                    k = kinds[plan.run((spine_role, spine_i), (core_role, core_i), site, fp)]
                    emit = plan.emitter(k)
                    for _ in range(pair):
                        j = up.take(k.a_key)
                        m = down.take(k.b_key)
                        yield from emit(k, plane_no, "", spine, up.names[j], up.names[j - j % up.per],
                                core, down.names[m], down.names[m - m % down.per])


#: A switch fabric's hops in the order both consumers take them: the link groups' order in the
#: model and the rows' order in the plan (a device's cages fill hop by hop). A pair's ISLs and
#: leaf-spine never meet in one fabric (a pair has one layer).
FABRIC_HOPS: tuple[Hop, ...] = (NodeLeafRail(), NodeLeafTor(), LeafLeaf(), LeafSpine(), SpineCore())
