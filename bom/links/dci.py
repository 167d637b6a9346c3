"""Scale-across: the DCI routers' client links into each site's Ethernet fabric (hop ``fabric-dci``).

Two attachments, each one pattern, counted and expanded. A site's router ports are its client
ports, then its line ports, router by router (:func:`bom.links.line.router_port`); the client
links of a site (its wavelengths, :meth:`bom.topology.dci.Dci.site_links`) land on an Ethernet
fabric, the routers' own protocol (``Dci.attach``, chosen in :mod:`bom.topology.build`):

- :class:`DciClient`, an Ethernet compute fabric: along the network row to its top layer
  (spines, cores in three layers, the switches themselves in a fabric of one switch or a pair) a
  module's ports at a time, switch by switch, on cages the fabric leaves free; both consumers
  refuse a design whose top layer has too few free cages with the same rule
  (:func:`check_client_room`), the closed form on :func:`top_free_cages`, the plan on the cages
  each switch leaves (:meth:`bom.links.ports.Switches.top`);
- :class:`DciBorder`, the border leaves of an Ethernet in-band or storage fabric (an InfiniBand
  compute fabric reaches another building through Ethernet): leaf groups of their own after the
  endpoints' (:class:`~bom.model.fabrics.PooledShape` ``border_groups``, sized for the shape's
  busiest site), each site's client links split evenly over them as an endpoint kind's are.

The line side is :mod:`bom.links.line`; the hop reads the design through its
:class:`~bom.links.line.DciLinks`.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING

from bom import names
from bom.catalog.media import cage
from bom.catalog.rows import Switch
from bom.errors import LimitError
from bom.links.hop import FabricLinks, Link, Rows
from bom.links.line import DciLinks, router_port
from bom.links.ports import Ports, port_names
from bom.model.hops import HopKind
from bom.topology.geometry import network_row, node_leaf, share, shared_rack, split
from bom.topology.linkgroups import LinkGroup, count_hop
from bom.topology.planes import switch_ports

if TYPE_CHECKING:
    from bom.catalog.media import Media
    from bom.catalog.rows import Catalog
    from bom.links.pooled import PooledLinks
    from bom.links.ports import Kind, Plan, Switches
    from bom.model.fabrics import PooledShape
    from bom.topology.geometry import EndGroups, FloorPlan, Run
    from bom.topology.planes import Plane, SwitchPorts


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


def top_free_cages(plane: Plane, fp: FloorPlan, planes: int) -> tuple[str, int]:
    """The compute fabric's top layer in one site (every plane) and the cages its switches leave free:
    cores past the spines' links, spines past the leaves', the leaves of one switch or a pair past
    their node ports and ISLs (the closed form of what the cable plan's ``bom.links.ports.Switches.top`` finds)."""
    per, cages = plane.spine.ports_per_cage, plane.spine.cages
    if plane.layers == 3:
        used = [(plane.cores, plane.pods * plane.spine_core_per_pair)]
        layer = "core"
    elif plane.layers == 2:
        used = plane.port_use("spine")
        layer = "spine"
    else:
        _, leaves = node_leaf(plane, fp)
        used = [(n, sum(runs.values())) for n, runs in leaves]
        layer = "leaf"
    free = 0
    for switches, ports in used:
        taken = -(-ports // per)
        if plane.isl and (plane.leaf_uplink is None or plane.leaf_uplink.cages == plane.leaf.cages):
            # A pair's ISLs take the cages past its downlink share (cable plan: bom.links.ports.Switches.leaf_up).
            taken = max(taken, plane.leaf_down // per) + -(-plane.isl // plane.up.ports_per_cage)
        free += switches * planes * max(0, cages - taken)
    return layer, free


class DciClient:
    """Router client ports to the top layer of each site's compute fabric, inside the building."""

    name, lower, fabric, tier = HopKind.FABRIC_DCI, "router", "dci", "scale-across"

    def upper(self, p: Plane) -> str:
        return "core" if p.layers == 3 else "spine"

    def ends(self, dci: DciLinks, fp: FloorPlan) -> tuple[EndGroups, EndGroups]:
        """Both ends over every site: sites with the same number of cabled pairs have the same client links."""
        run = network_row(fp)
        degrees = dci.degrees
        ends: EndGroups = [(degrees.count(d), {run: dci.wavelengths_per_pair * d}) for d in sorted(set(degrees))]
        return ends, ends

    @staticmethod
    def top_id(p: Plane) -> str:
        """The top layer's switch: the spines' (and cores') model, or the leaves' in a fabric of one
        switch or a pair."""
        return p.spine.id if p.layers > 1 else p.leaf.id

    def top(self, catalog: Catalog, dci: DciLinks, p: Plane) -> SwitchPorts:
        """The top layer's switch seen at the wavelength's rate (its ports and cages there: an 800G
        spine takes 400G client links two to a cage), what both consumers place the links on."""
        row = catalog.get("switches", self.top_id(p))
        assert isinstance(row, Switch)
        return switch_ports(row, dci.wavelength_gbps)

    def link(self, dci: DciLinks, top: SwitchPorts) -> Link:
        return Link(dci.wavelength_gbps, cage(dci.router.form_factor, 1), top.cage, None)

    def chunk(self, groups: Sequence[LinkGroup]) -> int:
        """Client ports a module takes on the top layer (they go a module at a time)."""
        ours = [g for g in groups if g.hop == self.name]
        return ours[0].upper_end.ports if ours else 1

    def count(self, media: Media, fp: FloorPlan, dci: DciLinks, compute: FabricLinks,
              top: SwitchPorts) -> list[LinkGroup]:
        """The hop's link groups (closed form), once every site's top layer is known to have room."""
        lo, up = self.ends(dci, fp)
        link = self.link(dci, top)
        groups = count_hop(media, fp, fabric=self.fabric, tier=self.tier, hop=self.name, lower=self.lower,
                           upper=self.upper(compute.first), lower_groups=lo, upper_groups=up,
                           rate_gbps=link.rate_gbps, ff_lower=link.ff_lower, ff_upper=link.ff_upper,
                           lane_gbps=link.lane_gbps)
        chunk = self.chunk(groups)
        per = top.ports_per_cage
        site = 0
        for count, plane in compute.shapes:
            layer, free = top_free_cages(plane, fp, compute.planes)
            for _ in range(count):
                site += 1
                links = dci.site_links(site)
                check_client_room(site, links, client_cages(links, chunk, per), free,
                                  names.switch_role(compute.name, layer))
        return groups

    def rows(self, plan: Plan, kinds: dict[Run, Kind], sw: Switches, site: int, dci: DciLinks, chunk: int,
             router_names: list[str], fp: FloorPlan, top: SwitchPorts) -> Rows:
        """One site's rows: router client ports to the free cages of its top layer, a module's ports
        at a time, switch by switch (``top``: the top switch at the wavelength's rate)."""
        k = kinds[network_row(fp)]
        per_site = dci.site_links(site)
        role, firsts = sw.top()
        per, cages = top.ports_per_cage, top.cages
        names_ = port_names(cages, per)
        count = len(firsts)
        free = [Ports(first, cages - first, per, names_, (role, i)) for i, first in enumerate(firsts)]
        check_client_room(site, per_site, client_cages(per_site, chunk, per), sum(f.free for f in free), role)
        emit = plan.emitter(k)
        order = itertools.cycle(range(count))
        c = 0
        while c < per_site:
            i = next(order)
            if free[i].free == 0:
                continue
            top_dev = plan.place(role, site, i)
            for _ in range(min(chunk, per_site - c)):
                j = free[i].take(k.b_key)
                r, port = router_port(dci, c)
                yield from emit(k, "", "", plan.place("router", site, r), router_names[port], router_names[port],
                                top_dev, free[i].names[j], free[i].names[j - j % per])
                c += 1


class DciBorder:
    """Router client ports to the border leaves of an Ethernet in-band or storage fabric."""

    name, lower, upper, fabric, tier = HopKind.FABRIC_DCI, "router", "leaf", "dci", "scale-across"

    @staticmethod
    def leaves(ps: PooledShape, p: Plane) -> tuple[int, int]:
        """(first group, leaves) of a site shape's border leaves, plane 1: the groups after the
        endpoints' (a one-leaf fabric: its one leaf)."""
        if not ps.border_groups:
            return 0, p.leaves_per_group
        return ps.node_groups + ps.extra_groups, ps.border_groups * p.leaves_per_group

    def ends(self, dci: DciLinks, fab: PooledLinks, fp: FloorPlan) -> tuple[EndGroups, EndGroups]:
        """Both ends over every site: each site's client links split evenly over its shape's border
        leaves (sites alike in both are counted together)."""
        run = shared_rack(fp)
        alike: dict[tuple[int, int], int] = {}
        for site in range(1, dci.sites + 1):
            k = fab.shape_of(site)
            key = (dci.site_links(site), self.leaves(fab.pooled[k], fab.shapes[k][1])[1])
            alike[key] = alike.get(key, 0) + 1
        lo: EndGroups = []
        up: EndGroups = []
        for (links, leaves), sites in sorted(alike.items()):
            lo.append((sites, {run: links}))
            up += [(sites * n, {run: q}) for q, n in split(links, leaves)]
        return lo, up

    def link(self, dci: DciLinks, fab: PooledLinks) -> Link:
        """At the wavelength's rate; the leaf port at that rate is its breakout's cage."""
        assert fab.leaf_switch is not None
        lp = switch_ports(fab.leaf_switch, dci.wavelength_gbps)
        return Link(dci.wavelength_gbps, cage(dci.router.form_factor, 1), cage(lp.form_factor, lp.ports_per_cage, True),
                    None)

    def count(self, media: Media, fp: FloorPlan, dci: DciLinks, fab: PooledLinks) -> list[LinkGroup]:
        lo, up = self.ends(dci, fab, fp)
        link = self.link(dci, fab)
        return count_hop(media, fp, fabric=self.fabric, tier=self.tier, hop=self.name, lower=self.lower,
                         upper=self.upper, lower_groups=lo, upper_groups=up, rate_gbps=link.rate_gbps,
                         ff_lower=link.ff_lower, ff_upper=link.ff_upper, lane_gbps=link.lane_gbps)

    def rows(self, plan: Plan, kinds: dict[Run, Kind], sw: Switches, site: int, dci: DciLinks, fab: PooledLinks,
             router_names: list[str], fp: FloorPlan) -> Rows:
        """One site's rows: client port ``c`` to border leaf ``share(c)`` (the closed form's split),
        on the ports the fabric's own links left free there."""
        k = kinds[shared_rack(fp)]
        emit = plan.emitter(k)
        links = dci.site_links(site)
        first, leaves = self.leaves(fab.pooled[fab.shape_of(site)], sw.p)
        lpg, planes, role = sw.p.leaves_per_group, fab.planes, sw.roles["leaf"]
        assert fab.leaf_switch is not None
        at = switch_ports(fab.leaf_switch, dci.wavelength_gbps)   # the leaf's ports at the links' rate
        at_names = port_names(at.cages, at.ports_per_cage)
        free: dict[int, Ports] = {}
        for c in range(links):
            j = share(c, links, leaves)
            leaf_i = (first + j // lpg) * planes * lpg + j % lpg
            ports = free.get(leaf_i)
            if ports is None:
                # The cages the fabric's own links leave below the leaf's uplinks, at the links' rate.
                room = sw.spare(leaf_i)[0]
                ports = free[leaf_i] = Ports(room.first, room.end - room.first, at.ports_per_cage, at_names,
                                             (role, leaf_i))
            n = ports.take(k.b_key)
            r, port = router_port(dci, c)
            yield from emit(k, "", "", plan.place("router", site, r), router_names[port], router_names[port],
                            plan.place(role, site, leaf_i), ports.names[n], ports.names[n - n % ports.per])


DCI_CLIENT = DciClient()
DCI_BORDER = DciBorder()
