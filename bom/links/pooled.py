"""Storage and in-band: the nodes' ports and the endpoints' ports on a pooled fabric's leaves.

One pattern per hop (:mod:`bom.links.pattern`; :mod:`bom.topology.support` sizes the fabric, the
:class:`~bom.model.fabrics.PooledShape` of each site shape says which leaf group takes which port).

- ``node-leaf`` (:class:`PooledNodeLeaf`): every node port is a unit; the leaf groups of a block
  (:meth:`PooledShape.node_fills`) stand on the block's run in its network rack, a group's units
  split over its leaves (the first ones one more, :func:`~bom.model.shares.split`);
- ``<role>-leaf`` (:class:`EndpointLeaf`, one per endpoint kind): each endpoint kind (appliances,
  servers, management switches' uplinks) spread over the endpoints' own leaf groups (after the
  nodes'; the nodes' leaf itself in a one-leaf fabric), plane 1, at the slower end's rate;
- leaf-spine and spine-core are the switch fabric's (:mod:`bom.links.fabric`), with every cage's
  ports counted as reaching several far switches (:class:`PooledLeafSpine`, :class:`PooledSpineCore`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from functools import lru_cache, partial
from typing import TYPE_CHECKING, Any

from bom.catalog.media import cage
from bom.errors import LimitError
from bom.links.fabric import LeafSpine, SpineCore, new_pair
from bom.links.pattern import ByModule, Fan, HopContext, Item, Link, Pair, Pattern, Section
from bom.links.ports import node_port_names
from bom.links.views import FabricLinks, PooledLinks
from bom.model.hops import HopKind, endpoint_hop
from bom.roles import Layer
from bom.topology.planes import switch_ports
from bom.units import magnitude

if TYPE_CHECKING:
    from bom.catalog.rows import NicPorts
    from bom.model.fabrics import PooledShape
    from bom.model.floorplan import EndGroups
    from bom.model.linkgroups import LinkGroup
    from bom.model.plane import Plane


@lru_cache(maxsize=256)
def _node_names(fabric: str, ports: int, per: int) -> tuple[str, ...]:
    """A node's port names on the fabric when a module there serves ``per`` ports."""
    return tuple(node_port_names(fabric, -(-ports // per), per))


class PooledNodeLeaf(Pattern[PooledLinks]):
    """The nodes' ports to their block's leaf groups, plane by plane."""

    hop, lower, upper = HopKind.NODE_LEAF, Layer.NODE, Layer.LEAF

    @staticmethod
    def leaf(fab: PooledLinks, ps: PooledShape, p: Plane, unit: int, pl: int) -> int:
        """The leaf (site index) of plane ``pl`` that takes node port ``unit`` of the site: its
        group's units split over the group's leaves (:func:`~bom.model.shares.share`)."""
        g, u, fill = ps.node_group(unit)
        return (g * fab.planes + pl) * p.leaves_per_group + fab.spread(u, fill, p.leaves_per_group)

    def leaves(self, fab: PooledLinks, ps: PooledShape, p: Plane, pl: int, start: int, stop: int,
               block: list[int]) -> list[int]:
        """:meth:`leaf` of node ports ``[start, stop)``: in a full block (:meth:`PooledShape.blocks`) its
        ports' leaves are the first block's (``block``, made on first use) past the block's groups."""
        full, units, groups = ps.blocks()
        if not block:
            block += [self.leaf(fab, ps, p, v, pl) for v in range(units if full else 0)]
        step, out, u = groups * fab.planes * p.leaves_per_group, [], start
        while u < stop:
            b, v = divmod(u, units)
            end = min(stop, u - v + units)
            out += ([b * step + leaf for leaf in block[v:v + end - u]] if b < full
                    else [self.leaf(fab, ps, p, w, pl) for w in range(u, end)])
            u = end
        return out

    def pairs(self, ctx: HopContext[PooledLinks]) -> Iterator[Item]:
        for pl in range(ctx.view.planes):
            block: list[int] = []   # the first block's ports' leaves, for every copy of the plane
            for part in ctx.floor.parts(Layer.NODE):
                yield Section(part.copies, partial(self.nodes, ctx, pl, part.first, part.per_copy, block))

    def nodes(self, ctx: HopContext[PooledLinks], pl: int, first: int, per_copy: int, block: list[int],
              copy: int) -> Iterator[Pair]:
        """One copy's nodes of plane ``pl``: node by node, port by port, each port to its group's leaf
        (:meth:`leaves`; ``block`` as there)."""
        fab, p, sw = ctx.view, ctx.p, ctx.switches
        ps = fab.pooled[ctx.shape]
        ports, planes, role = fab.nic.ports, fab.planes, fab.role(Layer.LEAF)
        names = partial(_node_names, fab.name, ports * planes)
        ends = [ByModule(names, r * planes + pl) for r in range(ports)]   # alike on every node
        start = first + copy * per_copy
        leaves = iter(self.leaves(fab, ps, p, pl, start * ports, (start + per_copy) * ports, block))
        for d in range(start, start + per_copy):
            for r in range(ports):
                leaf = next(leaves)
                if sw is None:
                    yield Pair((Layer.NODE, d), (role, leaf))
                else:
                    # Made as the tuple it is (a Pair's __new__ is a Python call per row).
                    yield new_pair(Pair, ((Layer.NODE, d), (role, leaf), 1, pl + 1, "", ends[r], sw.leaf_down(leaf),
                                          None, 1, None))

    def link(self, ctx: HopContext[PooledLinks]) -> Link:
        fab = ctx.view
        return Link(fab.rate, cage(fab.nic.form_factor, 1, True), fab.leaf_cage, fab.lane)


class EndpointLeaf(Pattern[PooledLinks]):
    """One endpoint kind's ports (hop ``<role>-leaf``) over the endpoints' leaves, plane 1."""

    upper = Layer.LEAF
    attached = True

    def __init__(self, role: str) -> None:
        self.role = role
        self.hop = endpoint_hop(role)
        self.lower = Layer(role)

    @property
    def device_role(self) -> str:
        """The placement's role of the kind's devices (the OOB uplinks: the management switches)."""
        return HopKind.OOB_LEAF if self.role == Layer.OOB else self.role

    @staticmethod
    def leaves(ps: PooledShape, p: Plane) -> int:
        """The leaves the endpoints spread over (a one-leaf fabric: the nodes' leaf)."""
        return (ps.extra_groups or 1) * p.leaves_per_group

    def leaf(self, fab: PooledLinks, ps: PooledShape, p: Plane, u: int, ports: int) -> int:
        """The leaf (site index, plane 1) that takes the ``u``-th of a kind's ``ports`` ports: spread
        evenly over the endpoints' leaves (:func:`~bom.model.shares.share`)."""
        lpg = p.leaves_per_group
        first = ps.node_groups if ps.extra_groups else 0
        j = fab.spread(u, ports, self.leaves(ps, p))
        return ((first + j // lpg) * fab.planes) * lpg + j % lpg

    def kind(self, ctx: HopContext[PooledLinks]) -> tuple[NicPorts, int] | None:
        """The kind's own ports and its ports per site in the walked shape (None: none there)."""
        return next(((nic, n) for role, nic, n in ctx.view.pooled[ctx.shape].kinds if role == self.role), None)

    def applies(self, ctx: HopContext[PooledLinks]) -> bool:
        return self.kind(ctx) is not None

    def pairs(self, ctx: HopContext[PooledLinks]) -> Iterator[Item]:
        fab, p, sw = ctx.view, ctx.p, ctx.switches
        ps = fab.pooled[ctx.shape]
        found = self.kind(ctx)
        assert found is not None
        nic, ports = found
        role, leaf_role = self.device_role, fab.role(Layer.LEAF)
        if sw is None:   # the closed form: the kind's ports as a fan, each device's ports one after another
            yield Fan(role, leaf_role, ((u // nic.ports, self.leaf(fab, ps, p, u, ports)) for u in range(ports)),
                      ctx.floor.spots(role), ctx.floor.spots(leaf_role))
            return
        if self.role == Layer.OOB:
            names = partial(lambda ups, per: ups, fab.uplink_names)
        else:
            names = partial(_node_names, fab.name, nic.ports)
        for u in range(ports):
            d, r = divmod(u, nic.ports)
            leaf = self.leaf(fab, ps, p, u, ports)
            yield Pair((role, d), (leaf_role, leaf), 1, 1, "", ByModule(names, r), sw.leaf_down(leaf))

    def nic(self, ctx: HopContext[PooledLinks]) -> NicPorts:
        """The kind's own ports (the first site shape that has it)."""
        for k, _, _ in ctx.view.units():
            found = self.kind(ctx.at(k, 1, 1))
            if found is not None:
                return found[0]
        raise AssertionError(self.role)

    def link(self, ctx: HopContext[PooledLinks]) -> list[Link]:
        """At the slower end's rate, the ways a leaf cage can take the endpoint's port, in order:
        the leaf's breakout at the endpoint's rate (an 800G cage as four 100G ports of 2 x 50G
        lanes), then the cage as the fabric counts it (a twin-port cage as two 100G ports of four
        25G lanes: the MCP7Y60 splitter's 100GbE mode), then the cage in its listed modes of fewer
        ports than the fabric's. The leaf's ports are counted at the fabric's rate either way, one
        endpoint port to each."""
        fab, e_nic = ctx.view, self.nic(ctx)
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
        # Last, the cage in one of its modes of fewer ports (an 800G OSFP as two 400G ports takes the
        # MCP7Y60's 100GbE ends) where the fabric splits its cages finer (issue 42: 4 x 200G for the NVL72
        # trays' BlueField-3 ports); the endpoint's leaves are its own, so their cages run in that mode.
        fabric_per_cage = int(fab.leaf_cage.split(":")[1]) if fab.leaf_cage.count(":") else 1
        for b in sorted(fab.leaf_switch.breakouts, key=lambda b: -b.ports):
            lp = switch_ports(fab.leaf_switch, magnitude(b.rate, "rate"))
            mode = cage(lp.form_factor, lp.ports_per_cage, True)
            if 1 < lp.ports_per_cage < fabric_per_cage and all(x.ff_upper != mode for x in out):
                out.append(Link(e_rate, lower, mode, None))
        return out

    def unjoined(self, ctx: HopContext[PooledLinks], exc: LimitError, lo: EndGroups, up: EndGroups
                 ) -> list[LinkGroup]:
        """Where the catalog has no part joining the endpoint's cage to the leaf's (a 100G QSFP28 port
        into an 800G OSFP cage), the port is counted as the nodes' port on this fabric and the
        substitutions say so (the JSON's ``endpoint_substitutions``): the leaf ports and cables are
        right, the part is the nodes'.

        Where the part is missing: NVIDIA's Spectrum-4 splitters (MCP7Y00, MCP7Y10, MCP7Y40,
        MCP7Y50: 100G-PAM4 lanes; MCP7Y70: 2 x 50G-PAM4 ends) join a 100G QSFP28 port only as the
        MCP7Y60's 100GbE/EDR mode, a DAC of 2 m at most: in the rack (UFM, management servers)
        it is there, across rows (a management switch's uplinks) nothing is, and the build gives
        those their own OOB spines unless the scenario asks for ``uplinks: inband``.
        """
        fab, e_nic = ctx.view, self.nic(ctx)
        first = self.link(ctx)[0]
        node = PooledNodeLeaf().link(ctx)
        ctx.substitutions[self.role] = (f"{e_nic.form_factor} at {first.rate_gbps:g}G: {exc.message}; counted as "
                                        f"the nodes' {fab.nic.form_factor} port at {fab.rate:g}G")
        assert ctx.media is not None
        try:
            return self.count_way(ctx, node, lo, up)
        except LimitError as far:
            if self.role != Layer.OOB:
                raise
            # The management switches stand in every block, these leaves in the middle: neither the
            # uplinks' own part nor the nodes' reaches. Said at the uplinks' own rate, not the stand-in's.
            raise UplinksUnjoinedError(
                f"the management switches' {e_nic.form_factor} uplinks at {first.rate_gbps:g}G reach no "
                f"in-band leaf: {exc.message}; nor does the nodes' {fab.nic.form_factor} port at "
                f"{fab.rate:g}G that would stand in for them: {far.message}",
                ctx.substitutions[self.role], key="fabrics.oob.uplinks", at=("fabrics", "oob", "uplinks"),
                hint="The management switches' uplinks reach the in-band fabric's leaves in the shared "
                     "racks; on a site this large set fabrics.oob.uplinks: spine (each site's own OOB "
                     "spines, on 100G optics).", fix={("fabrics", "oob", "uplinks"): "spine"}) from far


class UplinksUnjoinedError(LimitError):
    """No part joins the management switches' uplinks to the in-band leaves, not even the nodes' part
    counted in their place: ``substitution`` says why their own part does not (the build then gives
    them OOB spines of their own unless the scenario asks for ``uplinks: inband``)."""

    def __init__(self, message: str, substitution: str, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.substitution = substitution


class MlagPeer(Pattern[PooledLinks]):
    """An MLAG pair's peer links: ``mlag`` of them between the two switches of every leaf pair, on the
    cages each keeps past its downlinks (and uplinks)."""

    hop, lower, upper = HopKind.MLAG_PEER, Layer.LEAF, Layer.LEAF

    def applies(self, ctx: HopContext[PooledLinks]) -> bool:
        return bool(ctx.view.mlag)

    def pairs(self, ctx: HopContext[PooledLinks]) -> Iterator[Item]:
        p, fab, sw = ctx.p, ctx.view, ctx.switches
        role, lpg = fab.role(Layer.LEAF), p.leaves_per_group
        for pl in range(fab.planes):
            for g in range(p.groups):
                for k in range(0, lpg, 2):
                    a = (g * fab.planes + pl) * lpg + k
                    yield Pair((role, a), (role, a + 1), fab.mlag, pl + 1, "", sw.leaf_up(a) if sw else None,
                               sw.leaf_up(a + 1) if sw else None)

    def link(self, ctx: HopContext[PooledLinks]) -> Link:
        p = ctx.view.first
        peer = cage(p.up.form_factor, p.up.ports_per_cage)   # a pair's peer links all reach the other switch
        return Link(p.up.rate_gbps, peer, peer, ctx.view.up_lane)


def endpoint_patterns(view: PooledLinks) -> list[EndpointLeaf]:
    """One pattern per endpoint kind on the fabric, in the order its sites list them."""
    roles: list[str] = []
    for ps in view.pooled:
        roles += [role for role, _, _ in ps.kinds if role not in roles]
    return [EndpointLeaf(role) for role in roles]


class PooledLeafSpine(LeafSpine):
    """A pooled fabric's leaf-spine hop: the switch fabric's pattern; its cages count as spread."""

    def link(self, ctx: HopContext[FabricLinks]) -> Link:
        p = ctx.view.first
        return Link(p.up.rate_gbps, cage(p.up.form_factor, p.up.ports_per_cage, True),
                    cage(p.spine.form_factor, p.spine.ports_per_cage, True), ctx.view.up_lane)


class PooledSpineCore(SpineCore):
    """A pooled fabric's spine-core hop: the switch fabric's pattern; its cages count as spread."""

    def link(self, ctx: HopContext[FabricLinks]) -> Link:
        p = ctx.view.first
        sc = cage(p.spine.form_factor, p.spine.ports_per_cage, True)
        return Link(p.spine.rate_gbps, sc, sc, ctx.view.up_lane)

