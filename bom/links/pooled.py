"""Storage and in-band: the nodes' ports and the endpoints' ports on a pooled fabric's leaves.

One pattern per hop, counted and expanded (:mod:`bom.topology.support` sizes the fabric, the
:class:`~bom.model.fabrics.PooledShape` of each site shape says which leaf group takes which port).

- ``node-leaf`` (:class:`PooledNodeLeaf`): every node port is a unit; the leaf groups of a block
  (:meth:`PooledShape.node_fills`) stand on the block's run in its network rack, a group's units
  split over its leaves (the first ones one more, :func:`~bom.topology.geometry.split`);
- ``<role>-leaf`` (:class:`PooledEndpoints`): each endpoint kind (appliances, servers, management
  switches' uplinks) spread over the endpoints' own leaf groups (after the nodes'; the nodes'
  leaf itself in a one-leaf fabric), on the shared racks' run, plane 1, at the slower end's rate;
- leaf-spine and spine-core are the switch fabric's (:mod:`bom.links.fabric`), with every cage's
  ports counted as reaching several far switches (:data:`POOLED_LEAF_SPINE`, :data:`POOLED_SPINE_CORE`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bom.catalog.media import cage
from bom.errors import LimitError
from bom.links.fabric import LeafSpine, SpineCore
from bom.links.hop import FabricLinks, Link, Rows
from bom.links.ports import node_port_names
from bom.model.hops import HopKind
from bom.model.linkgroups import LinkGroup
from bom.model.shares import share
from bom.topology.geometry import Profiles, block_nodes, route
from bom.topology.linkgroups import count_hop
from bom.topology.planes import switch_ports
from bom.units import magnitude

if TYPE_CHECKING:
    from bom.catalog.media import Media
    from bom.catalog.rows import NicPorts, Switch
    from bom.links.ports import Kind, Plan, Switches
    from bom.model.fabrics import Fabric, PooledFabric, PooledShape
    from bom.model.floorplan import EndGroups, Floorish, FloorPlan, Run
    from bom.model.plane import Plane


@dataclass(frozen=True)
class PooledLinks(FabricLinks):
    """What the hops need of a pooled fabric: the switch fabric's, the leaf groups of each site
    shape, the nodes of a placement block and the leaf switch (for an endpoint's breakout cage)."""

    pooled: Sequence[PooledShape] = ()
    block: int = 1
    leaf_switch: Switch | None = None

    @classmethod
    def of_pooled(cls, f: PooledFabric, compute: Fabric | None, fp: FloorPlan,
                  floors: Sequence[Floorish] = ()) -> PooledLinks:
        block = block_nodes(compute.shapes[0][1] if compute else None, fp)
        return cls(f.name, f.tier, f.planes, f.shapes, f.node_ports, tuple(floors), f.pooled, block, f.leaf_switch)

    @property
    def rate(self) -> float:
        """A node link's rate: the node NIC's over the planes."""
        return magnitude(self.nic.rate, "rate") / self.planes

    @property
    def leaf_cage(self) -> str:
        p = self.first
        return cage(p.leaf.form_factor, p.leaf.ports_per_cage, True)

    def shape_of(self, site: int) -> int:
        """The site shape (index) of a 1-based site."""
        n = 0
        for k, (count, _) in enumerate(self.shapes):
            n += count
            if site <= n:
                return k
        raise ValueError(site)


class PooledNodeLeaf:
    """The nodes' ports to their block's leaf groups."""

    name, lower, upper = HopKind.NODE_LEAF, "node", "leaf"

    @staticmethod
    def leaf(fab: PooledLinks, ps: PooledShape, p: Plane, unit: int, pl: int) -> int:
        """The leaf (site index) of plane ``pl`` that takes node port ``unit`` of the site: its
        group's units split over the group's leaves (:func:`~bom.topology.geometry.share`)."""
        g, u, fill = ps.node_group(unit)
        return (g * fab.planes + pl) * p.leaves_per_group + share(u, fill, p.leaves_per_group)

    def ends(self, fab: PooledLinks, fp: FloorPlan) -> tuple[EndGroups, EndGroups]:
        """Every site shape's nodes to their leaves: one copy of each section the nodes stand in,
        times its copies and the shape's sites (a block's leaf groups stand in its network rack)."""
        nodes: EndGroups = []
        leaves: EndGroups = []
        ports, role = fab.nic.ports, fab.role("leaf")
        for (count, p), ps, floor in zip(fab.shapes, fab.pooled, fab.floors, strict=True):
            for part in floor.parts("node"):
                lo, up = Profiles(), Profiles()
                for d in range(part.first, part.first + part.per_copy):
                    a = floor.spot("node", d)
                    for r in range(ports):
                        for pl in range(fab.planes):
                            leaf = self.leaf(fab, ps, p, d * ports + r, pl)
                            run = route(a, floor.spot(role, leaf), fp)
                            lo.add(d, run, 1)
                            up.add(leaf, run, 1)
                nodes += lo.groups(part.copies * count)
                leaves += up.groups(part.copies * count)
        return nodes, leaves

    def link(self, fab: PooledLinks) -> Link:
        return Link(fab.rate, cage(fab.nic.form_factor, 1, True), fab.leaf_cage, fab.lane)

    def count(self, media: Media, fp: FloorPlan, fab: PooledLinks) -> list[LinkGroup]:
        lo, up = self.ends(fab, fp)
        link = self.link(fab)
        return count_hop(media, fp, fabric=fab.name, tier=fab.tier, hop=self.name, lower=self.lower,
                         upper=self.upper, lower_groups=lo, upper_groups=up, rate_gbps=link.rate_gbps,
                         ff_lower=link.ff_lower, ff_upper=link.ff_upper, lane_gbps=link.lane_gbps)

    def rows(self, plan: Plan, fab: PooledLinks, sw: Switches, kinds: dict[Run, Kind], fp: FloorPlan,
             site: int, pl: int) -> Rows:
        """One plane of one site: node by node, port by port, each port to its group's next leaf."""
        ps, p = fab.pooled[fab.shape_of(site)], sw.p
        planes, nic = fab.planes, fab.nic
        leaf_role = sw.roles["leaf"]
        names_: dict[int, list[str]] = {}   # the node's port names by ports per module
        u = 0
        for d in range(ps.node_units // nic.ports):
            dev = plan.place("node", site, d)
            for r in range(nic.ports):
                leaf_i = self.leaf(fab, ps, p, u, pl)
                k = kinds[plan.run(("node", d), (leaf_role, leaf_i), site, fp)]
                emit, per = plan.emitter(k), k.a_per
                pnames = names_.get(per) or names_.setdefault(per, node_port_names(fab.name, -(-nic.ports * planes
                                                                                              // per), per))
                leaf_ports = sw.leaf_down(leaf_i)
                j = leaf_ports.take(k.b_key)
                q = r * planes + pl
                yield from emit(k, pl + 1, "", dev, pnames[q], pnames[q - q % per],
                                plan.place(leaf_role, site, leaf_i), leaf_ports.names[j],
                                leaf_ports.names[j - j % leaf_ports.per])
                u += 1


class PooledEndpoints:
    """Each endpoint kind's ports (hop ``<role>-leaf``) over the endpoints' leaves."""

    upper = "leaf"

    @staticmethod
    def hop(role: str) -> str:
        return f"{role}-leaf"

    @staticmethod
    def leaves(ps: PooledShape, p: Plane) -> int:
        """The leaves the endpoints spread over (a one-leaf fabric: the nodes' leaf)."""
        return (ps.extra_groups or 1) * p.leaves_per_group

    @staticmethod
    def device_role(role: str) -> str:
        """The placement's role of an endpoint kind's devices (the OOB uplinks: the management switches)."""
        return HopKind.OOB_LEAF if role == "oob" else role

    def leaf(self, fab: PooledLinks, ps: PooledShape, p: Plane, u: int, ports: int) -> int:
        """The leaf (site index, plane 1) that takes the ``u``-th of a kind's ``ports`` ports: spread
        evenly over the endpoints' leaves (:func:`~bom.topology.geometry.share`)."""
        lpg = p.leaves_per_group
        first = ps.node_groups if ps.extra_groups else 0
        j = share(u, ports, self.leaves(ps, p))
        return ((first + j // lpg) * fab.planes) * lpg + j % lpg

    def ends(self, fab: PooledLinks, fp: FloorPlan) -> dict[str, tuple[NicPorts, EndGroups, EndGroups]]:
        """Per role: its ports, its devices' end groups and the leaves' (every site), each port on
        the run between where its device and its leaf stand."""
        out: dict[str, tuple[NicPorts, EndGroups, EndGroups]] = {}
        leaf_role = fab.role("leaf")
        for (count, p), ps, floor in zip(fab.shapes, fab.pooled, fab.floors, strict=True):
            for role, e_nic, ports in ps.kinds:
                lo, up = out.setdefault(role, (e_nic, [], []))[1:]
                devs, leaves = Profiles(), Profiles()
                for u in range(ports):
                    d = u // e_nic.ports
                    leaf = self.leaf(fab, ps, p, u, ports)
                    run = route(floor.spot(self.device_role(role), d), floor.spot(leaf_role, leaf), fp)
                    devs.add(d, run, 1)
                    leaves.add(leaf, run, 1)
                lo += devs.groups(count)
                up += leaves.groups(count)
        return out

    def links(self, fab: PooledLinks, e_nic: NicPorts) -> list[Link]:
        """At the slower end's rate, the ways a leaf cage can take the endpoint's port, in order:
        the leaf's breakout at the endpoint's rate (an 800G cage as four 100G ports of 2 x 50G
        lanes), then the cage as the fabric counts it (a twin-port cage as two 100G ports of four
        25G lanes: the MCP7Y60 splitter's 100GbE mode). The leaf's ports are counted at the
        fabric's rate either way, one endpoint port to each."""
        rate = fab.rate
        e_rate = min(magnitude(e_nic.rate, "rate"), rate)
        same = math.isclose(e_rate, rate)
        lower = cage(e_nic.form_factor, e_nic.ports_per_cage, True)
        if same or fab.leaf_switch is None:
            return [Link(e_rate, lower, fab.leaf_cage, fab.lane if same else None)]
        out = []
        try:
            lp = switch_ports(fab.leaf_switch, e_rate)
            out.append(Link(e_rate, lower, cage(lp.form_factor, lp.ports_per_cage, True), None))
        except LimitError:
            pass
        if not out or out[0].ff_upper != fab.leaf_cage:
            out.append(Link(e_rate, lower, fab.leaf_cage, None))
        return out

    def count(self, media: Media, fp: FloorPlan, fab: PooledLinks, substitutions: dict[str, str]) -> list[LinkGroup]:
        """Every kind's link groups. Where the catalog has no part joining the endpoint's cage to
        the leaf's (a 100G QSFP28 port into an 800G OSFP cage), the port is counted as the nodes'
        port on this fabric and ``substitutions`` says so (the JSON's ``endpoint_substitutions``):
        the leaf ports and cables are right, the part is the nodes'.

        Where the part is missing: NVIDIA's Spectrum-4 splitters (MCP7Y00, MCP7Y10, MCP7Y40,
        MCP7Y50: 100G-PAM4 lanes; MCP7Y70: 2 x 50G-PAM4 ends) join a 100G QSFP28 port only as the
        MCP7Y60's 100GbE/EDR mode, a DAC of 2 m at most: in the rack (UFM, management servers)
        it is there, across rows (a management switch's uplinks) nothing is, and the build gives
        those their own OOB spines unless the scenario asks for ``uplinks: inband``.
        """
        groups: list[LinkGroup] = []
        for role, (e_nic, lo, up) in self.ends(fab, fp).items():
            kw = dict(fabric=fab.name, tier=fab.tier, hop=self.hop(role), lower=role, upper=self.upper,
                      lower_groups=lo, upper_groups=up)
            ways = self.links(fab, e_nic)
            for i, link in enumerate(ways):
                try:
                    groups += count_hop(media, fp, rate_gbps=link.rate_gbps, ff_lower=link.ff_lower,
                                        ff_upper=link.ff_upper, lane_gbps=link.lane_gbps,
                                        **kw)  # type: ignore[arg-type]
                    break
                except LimitError as exc:
                    if i == 0:
                        first = exc
            else:
                exc, link = first, ways[0]
                node = PooledNodeLeaf().link(fab)
                substitutions[role] = (f"{e_nic.form_factor} at {link.rate_gbps:g}G: {exc.message}; counted as "
                                       f"the nodes' {fab.nic.form_factor} port at {fab.rate:g}G")
                try:
                    groups += count_hop(media, fp, rate_gbps=node.rate_gbps, ff_lower=node.ff_lower,
                                        ff_upper=node.ff_upper, lane_gbps=node.lane_gbps, **kw)  # type: ignore[arg-type]
                except LimitError as far:
                    if role == "oob":   # the management switches stand in every block, these leaves in the middle
                        far.hint = ("The management switches' uplinks reach the in-band fabric's leaves in the "
                                    "shared racks; on a site this large set fabrics.oob.uplinks: spine (each "
                                    "site's own OOB spines, on 100G optics).")
                    raise
        return groups

    def rows(self, plan: Plan, fab: PooledLinks, sw: Switches, kinds: dict[str, dict[Run, Kind]], fp: FloorPlan,
             site: int, uplink_names: list[str]) -> Rows:
        """One site's endpoint ports, kind by kind, each spread over the endpoints' leaves (plane 1).
        ``uplink_names``: a management switch's dedicated uplink ports (role ``oob``)."""
        ps, p = fab.pooled[fab.shape_of(site)], sw.p
        leaf_role = sw.roles["leaf"]
        for role, e_nic, ports in ps.kinds:
            device_role = self.device_role(role)
            for u in range(ports):
                d, r = divmod(u, e_nic.ports)
                leaf_i = self.leaf(fab, ps, p, u, ports)
                k = kinds[self.hop(role)][plan.run((device_role, d), (leaf_role, leaf_i), site, fp)]
                emit, per = plan.emitter(k), k.a_per
                pnames = uplink_names if role == "oob" else node_port_names(fab.name, -(-e_nic.ports // per), per)
                leaf_ports = sw.leaf_down(leaf_i)
                j = leaf_ports.take(k.b_key)
                yield from emit(k, 1, "", plan.place(device_role, site, d), pnames[r], pnames[r - r % per],
                                plan.place(leaf_role, site, leaf_i), leaf_ports.names[j],
                                leaf_ports.names[j - j % leaf_ports.per])


class PooledLeafSpine(LeafSpine):
    """A pooled fabric's leaf-spine hop: the switch fabric's pattern; its cages count as spread."""

    def link(self, fab: FabricLinks, rate: float) -> Link:
        p = fab.first
        return Link(p.up.rate_gbps, cage(p.up.form_factor, p.up.ports_per_cage, True),
                    cage(p.spine.form_factor, p.spine.ports_per_cage, True), fab.up_lane)


class PooledSpineCore(SpineCore):
    """A pooled fabric's spine-core hop: the switch fabric's pattern; its cages count as spread."""

    def link(self, fab: FabricLinks, rate: float) -> Link:
        p = fab.first
        sc = cage(p.spine.form_factor, p.spine.ports_per_cage, True)
        return Link(p.spine.rate_gbps, sc, sc, fab.up_lane)


POOLED_NODE_LEAF = PooledNodeLeaf()
POOLED_ENDPOINTS = PooledEndpoints()
POOLED_LEAF_SPINE = PooledLeafSpine()
POOLED_SPINE_CORE = PooledSpineCore()


def pooled_groups(media: Media, fp: FloorPlan, fab: PooledLinks, substitutions: dict[str, str]) -> list[LinkGroup]:
    """The fabric's link groups (closed form), in the plan's hop order: nodes, switches, endpoints."""
    groups = POOLED_NODE_LEAF.count(media, fp, fab)
    for hop in (POOLED_LEAF_SPINE, POOLED_SPINE_CORE):
        groups += hop.count(media, fp, fab, fab.rate)
    return groups + POOLED_ENDPOINTS.count(media, fp, fab, substitutions)
