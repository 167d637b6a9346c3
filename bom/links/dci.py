"""Scale-across: the DCI routers' client links into each site's Ethernet fabric (hop ``fabric-dci``).

Three attachments, each one pattern (:mod:`bom.links.pattern`), walked site by site. A site's router
ports are its client ports, then its line ports, router by router (:func:`bom.links.line.router_port`); the client
links of a site (its wavelengths, :meth:`bom.topology.dci.Dci.site_links`) land on an Ethernet
fabric, the routers' own protocol (``Dci.attach``, chosen in :mod:`bom.topology.dci`):

- :class:`DciClient`, an Ethernet compute fabric: along the network row to its top layer
  (spines, cores in three layers, the switches themselves in a fabric of one switch or a pair) a
  module's ports at a time, switch by switch, on cages the fabric leaves free; both consumers
  refuse a design whose top layer has too few free cages with the same rule
  (:func:`check_client_room`), the closed form on :func:`top_free_cages`, the plan on the cages
  each switch leaves (:meth:`bom.links.ports.Switches.top`);
- :class:`DciBorder`, the border leaves of an Ethernet in-band or storage fabric (an InfiniBand
  compute fabric reaches another building through Ethernet): leaf groups of their own after the
  endpoints' (:class:`~bom.model.fabrics.PooledShape` ``border_groups``, sized for the shape's
  busiest site), each site's client links split evenly over them as an endpoint kind's are;
- :class:`DciOwnBorder`, where no fabric of the scenario can take them: border leaves of the DCI's
  own (:class:`~bom.model.dci.Border`), standing with each site's routers, the links split evenly.

The line side is :mod:`bom.links.line`; the hops read the design through the
:class:`~bom.links.views.DciView`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from bom import names
from bom.catalog.media import cage
from bom.catalog.rows import Switch
from bom.errors import LimitError
from bom.links.line import router_port
from bom.links.pattern import Fixed, HopContext, Item, Link, Pair, Pattern
from bom.links.ports import OWN_BORDER_ROLE, PlanMismatchError, Ports, port_names
from bom.links.views import DciView, PooledLinks
from bom.model.hops import HopKind
from bom.model.shares import runs, share
from bom.roles import FabricRole, Layer
from bom.topology.geometry import leaf_loads
from bom.topology.planes import switch_ports

if TYPE_CHECKING:
    from bom.catalog.rows import Catalog
    from bom.model.dci import Dci
    from bom.model.fabrics import PooledShape
    from bom.model.plane import Plane, SwitchPorts


def client_cages(links: int, chunk: int, per_cage: int) -> int:
    """Cages a site's ``links`` client links take on the compute fabric's top layer: whole modules of
    ``chunk`` ports, each module's ports in whole cages of ``per_cage`` ports.

    >>> client_cages(64, 2, 2), client_cages(3, 2, 1)
    (32, 4)
    """
    return -(-links // chunk) * -(-chunk // per_cage)


def check_client_room(site: int, links: int, need: int, free: int, role: str) -> None:
    """The one rule for both the closed form and the cable plan: the client links must find free
    cages on the top layer, or the design cannot be cabled."""
    if free < need:
        raise LimitError(f"site {site}: the DCI routers' {links} client links need {need} free cages on the "
                         f"compute fabric's {role} switches, which have {free}", key="sites.dci_bandwidth",
                         hint="Lower dci_bandwidth, or leave ports free on the top layer for the routers: "
                              "a leaf oversubscription above 1:1 (for example 1.25) or a larger spine; or "
                              "put them on border leaves of an Ethernet in-band fabric (sites.attach: inband).")


def top_free(plane: Plane, planes: int) -> tuple[Layer, list[int]]:
    """The compute fabric's top layer in one site (every plane) and the cages each of its switches
    leaves free, in switch order: cores past the spines' links, spines past the leaves', the leaves
    of one switch or a pair past their node ports and ISLs (the closed form of what the cable plan's
    ``bom.links.ports.Switches.top`` finds)."""
    per, cages = plane.spine.ports_per_cage, plane.spine.cages
    if plane.layers == 3:
        used, layer = [plane.pods * plane.spine_core_per_pair] * (plane.cores * planes), Layer.CORE
    elif plane.layers == 2:
        used = [ports for n, ports in plane.port_use(Layer.SPINE) for _ in range(n * planes)]
        layer = Layer.SPINE
    else:
        used, layer = [u for _, u in leaf_loads(plane, planes)], Layer.LEAF
    out = []
    for ports in used:
        taken = -(-ports // per)
        if plane.isl and (plane.leaf_uplink is None or plane.leaf_uplink.cages == plane.leaf.cages):
            # A pair's ISLs take the cages past its downlink share (cable plan: bom.links.ports.Switches.leaf_up).
            taken = max(taken, plane.leaf_down // per) + -(-plane.isl // plane.up.ports_per_cage)
        out.append(max(0, cages - taken))
    return layer, out


def client_switches(free: list[int], links: int, chunk: int, per_cage: int) -> list[int]:
    """The top switch each of a site's client links goes to: a module's ``chunk`` ports at a time,
    switch by switch round the layer, past the switches whose free cages are gone (what both the
    closed form and the cable plan place them by)."""
    left = list(free)
    out: list[int] = []
    i = -1
    while len(out) < links:
        i = (i + 1) % len(left)
        if left[i] <= 0:
            if not any(n > 0 for n in left):
                raise PlanMismatchError("the top layer ran out of free cages for the DCI client links")
            continue
        n = min(chunk, links - len(out))
        left[i] -= -(-n // per_cage)
        out += [i] * n
    return out


class DciClient(Pattern[DciView]):
    """Router client ports to the top layer of each site's compute fabric, inside the building: a
    module's ports at a time, switch by switch, on the cages the fabric leaves free."""

    hop, lower, upper = HopKind.FABRIC_DCI, Layer.ROUTER, Layer.SPINE

    def applies(self, ctx: HopContext[DciView]) -> bool:
        return ctx.view.line.attach == FabricRole.COMPUTE

    def layers(self, ctx: HopContext[DciView]) -> tuple[Layer, Layer]:
        return self.lower, Layer.CORE if ctx.view.fabric.first.layers == 3 else Layer.SPINE

    @staticmethod
    def top_id(p: Plane) -> str:
        """The top layer's switch: the spines' (and cores') model, or the leaves' in a fabric of one
        switch or a pair."""
        return p.spine.id if p.layers > 1 else p.leaf.id

    def top(self, catalog: Catalog, dci: Dci, p: Plane) -> SwitchPorts:
        """The top layer's switch seen at the wavelength's rate (its ports and cages there: an 800G
        spine takes 400G client links two to a cage), what both consumers place the links on."""
        row = catalog.get("switches", self.top_id(p))
        assert isinstance(row, Switch)
        return switch_ports(row, dci.wavelength_gbps)

    def pairs(self, ctx: HopContext[DciView]) -> Iterator[Item]:
        """The site's client links: to the top layer's free cages (the closed form's count of them, or
        the plan's own, :meth:`bom.links.ports.Switches.top`), both checked by one rule."""
        view, site, sw = ctx.view, ctx.site, ctx.switches
        dci, top = view.line, view.top
        assert top is not None
        per = top.ports_per_cage
        free_ports: list[Ports] = []
        if sw is not None:
            role, firsts = sw.top()
            names_ = port_names(top.cages, per)
            free_ports = [Ports(first, top.cages - first, per, names_, (role, i)) for i, first in enumerate(firsts)]
            free = [f.free for f in free_ports]
        else:
            plane = view.fabric.shapes[ctx.shape][1]
            assert plane is not None   # the client links land on a switch fabric: its shapes have planes
            layer, free = top_free(plane, view.fabric.planes)
            role = names.switch_role(view.fabric.name, layer)
        links = dci.site_links(site)
        check_client_room(site, links, client_cages(links, per, per), sum(free), role)
        router_names = view.router_names if sw is not None else []
        for c, i in enumerate(client_switches(free, links, per, per)):
            r, port = router_port(dci, c)
            if sw is None:
                yield Pair((Layer.ROUTER, r), (role, i))
            else:
                yield Pair((Layer.ROUTER, r), (role, i), 1, "", "", Fixed(router_names[port], router_names[port]),
                           free_ports[i])

    def link(self, ctx: HopContext[DciView]) -> Link:
        dci, top = ctx.view.line, ctx.view.top
        assert top is not None
        return Link(dci.wavelength_gbps, cage(dci.router.form_factor, 1), top.cage, None)


class DciBorder(Pattern[DciView]):
    """Router client ports to the border leaves of an Ethernet in-band or storage fabric, split evenly
    over them, on the ports the fabric's own links left free there."""

    hop, lower, upper = HopKind.FABRIC_DCI, Layer.ROUTER, Layer.LEAF

    def applies(self, ctx: HopContext[DciView]) -> bool:
        return ctx.view.line.attach in (FabricRole.INBAND, FabricRole.STORAGE)

    @staticmethod
    def leaves(ps: PooledShape, p: Plane) -> tuple[int, int]:
        """(first group, leaves) of a site shape's border leaves, plane 1: the groups after the
        endpoints' (a one-leaf fabric: its one leaf)."""
        if not ps.border_groups:
            return 0, p.leaves_per_group
        return ps.node_groups + ps.extra_groups, ps.border_groups * p.leaves_per_group

    def site_leaves(self, fab: PooledLinks, p: Plane, site: int, dci: Dci) -> list[int]:
        """The border leaf (site index, plane 1) of each of a site's client links: split evenly over
        its shape's border leaves."""
        first, leaves = self.leaves(fab.pooled[fab.shape_of(site)], p)
        links = dci.site_links(site)
        return [self.leaf(fab, p, first, share(c, links, leaves)) for c in range(links)]

    @staticmethod
    def leaf(fab: PooledLinks, p: Plane, first: int, j: int) -> int:
        """The site index (plane 1) of the ``j``-th border leaf, the groups from ``first`` on."""
        lpg = p.leaves_per_group
        return (first + j // lpg) * fab.planes * lpg + j % lpg

    def pairs(self, ctx: HopContext[DciView]) -> Iterator[Item]:
        view, site, sw = ctx.view, ctx.site, ctx.switches
        fab, dci = view.fabric, view.line
        assert isinstance(fab, PooledLinks) and fab.leaf_switch is not None
        p = fab.shapes[ctx.shape][1]
        assert p is not None
        role = fab.role(Layer.LEAF)
        if sw is None:   # the closed form: a router's links to one leaf as one pair (the plan's split, by runs)
            first, leaves = self.leaves(fab.pooled[fab.shape_of(site)], p)
            for n, j, r in runs(dci.site_links(site), leaves, dci.router.ports):
                yield Pair((Layer.ROUTER, r), (role, self.leaf(fab, p, first, j)), n)
            return
        at = switch_ports(fab.leaf_switch, dci.wavelength_gbps)   # the leaf's ports at the links' rate
        at_names = port_names(at.cages, at.ports_per_cage) if sw is not None else []
        router_names = view.router_names if sw is not None else []
        free: dict[int, Ports] = {}
        for c, leaf in enumerate(self.site_leaves(fab, p, site, dci)):
            r, port = router_port(dci, c)
            ports = free.get(leaf)
            if ports is None:
                # The cages the fabric's own links leave below the leaf's uplinks, at the links' rate.
                room = sw.spare(leaf)[0]
                ports = free[leaf] = Ports(room.first, room.end - room.first, at.ports_per_cage, at_names, (role, leaf))
            yield Pair((Layer.ROUTER, r), (role, leaf), 1, "", "", Fixed(router_names[port], router_names[port]), ports)

    def link(self, ctx: HopContext[DciView]) -> Link:
        """At the wavelength's rate; the leaf port at that rate is its breakout's cage."""
        fab, dci = ctx.view.fabric, ctx.view.line
        assert isinstance(fab, PooledLinks) and fab.leaf_switch is not None
        lp = switch_ports(fab.leaf_switch, dci.wavelength_gbps)
        return Link(dci.wavelength_gbps, cage(dci.router.form_factor, 1), cage(lp.form_factor, lp.ports_per_cage, True),
                    None)


class DciOwnBorder(Pattern[DciView]):
    """Router client ports to the DCI's own border leaves, where no fabric of the scenario can take them
    (:class:`~bom.model.dci.Border`): each site's client links split evenly over its border leaves, which
    stand with its routers, a leaf's links on its first cages at the wavelength's rate."""

    hop, lower, upper = HopKind.FABRIC_DCI, Layer.ROUTER, Layer.LEAF

    def applies(self, ctx: HopContext[DciView]) -> bool:
        return ctx.view.line.attach == FabricRole.DCI

    @staticmethod
    def at_rate(dci: Dci) -> SwitchPorts:
        """The border leaf's ports at the wavelength's rate."""
        assert dci.border is not None
        return switch_ports(dci.border.switch, dci.wavelength_gbps)

    def pairs(self, ctx: HopContext[DciView]) -> Iterator[Item]:
        dci, site = ctx.view.line, ctx.site
        links, leaves = dci.site_links(site), dci.site_border_leaves(site)
        if not ctx.expanding:   # the closed form: a router's links to one leaf as one pair
            for n, leaf, r in runs(links, leaves, dci.router.ports):
                yield Pair((Layer.ROUTER, r), (OWN_BORDER_ROLE, leaf), n)
            return
        at = self.at_rate(dci)
        at_names = port_names(at.cages, at.ports_per_cage)
        router_names = ctx.view.router_names
        ports: dict[int, Ports] = {}
        for c in range(links):
            r, port = router_port(dci, c)
            leaf = share(c, links, leaves)
            if leaf not in ports:
                ports[leaf] = Ports(0, at.cages, at.ports_per_cage, at_names, (OWN_BORDER_ROLE, leaf))
            yield Pair((Layer.ROUTER, r), (OWN_BORDER_ROLE, leaf), 1, "", "",
                       Fixed(router_names[port], router_names[port]), ports[leaf])

    def link(self, ctx: HopContext[DciView]) -> Link:
        dci = ctx.view.line
        at = self.at_rate(dci)
        return Link(dci.wavelength_gbps, cage(dci.router.form_factor, 1), cage(at.form_factor, at.ports_per_cage, True),
                    None)


DCI_CLIENT = DciClient()
DCI_BORDER = DciBorder()
DCI_OWN_BORDER = DciOwnBorder()
