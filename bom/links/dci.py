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

from collections import Counter
from typing import TYPE_CHECKING

from bom import names
from bom.catalog.media import cage
from bom.catalog.rows import Switch
from bom.errors import LimitError
from bom.links.hop import FabricLinks, Link, Rows
from bom.links.line import DciLinks, router_port
from bom.links.ports import PlanMismatchError, Ports, port_names
from bom.model.hops import HopKind
from bom.model.linkgroups import LinkGroup
from bom.model.shares import share
from bom.topology.geometry import Profiles, leaf_loads, route
from bom.topology.linkgroups import count_hop
from bom.topology.planes import switch_ports

if TYPE_CHECKING:
    from bom.catalog.media import Media
    from bom.catalog.rows import Catalog
    from bom.links.pooled import PooledLinks
    from bom.links.ports import Kind, Plan, Switches
    from bom.model.fabrics import PooledShape
    from bom.model.floorplan import EndGroups, FloorPlan, Run
    from bom.model.placement import Placement
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


def top_free(plane: Plane, planes: int) -> tuple[str, list[int]]:
    """The compute fabric's top layer in one site (every plane) and the cages each of its switches
    leaves free, in switch order: cores past the spines' links, spines past the leaves', the leaves
    of one switch or a pair past their node ports and ISLs (the closed form of what the cable plan's
    ``bom.links.ports.Switches.top`` finds)."""
    per, cages = plane.spine.ports_per_cage, plane.spine.cages
    if plane.layers == 3:
        used, layer = [plane.pods * plane.spine_core_per_pair] * (plane.cores * planes), "core"
    elif plane.layers == 2:
        used = [ports for n, ports in plane.port_use("spine") for _ in range(n * planes)]
        layer = "spine"
    else:
        used, layer = [u for _, u in leaf_loads(plane, planes)], "leaf"
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


class DciClient:
    """Router client ports to the top layer of each site's compute fabric, inside the building."""

    name, lower, fabric, tier = HopKind.FABRIC_DCI, "router", "dci", "scale-across"

    def upper(self, p: Plane) -> str:
        return "core" if p.layers == 3 else "spine"

    def ends(self, dci: DciLinks, fp: FloorPlan, compute: FabricLinks, placement: Placement,
             top: SwitchPorts) -> tuple[EndGroups, EndGroups]:
        """Both ends over every site, each client link on the run between its router's rack and its
        top switch's (:func:`client_switches`)."""
        lo, up = Profiles(), Profiles()
        site = 0
        for k, (count, p) in enumerate(compute.shapes):
            layer, free = top_free(p, compute.planes)
            role = names.switch_role(compute.name, layer)
            floor = compute.floors[k]
            for _ in range(count):
                site += 1
                links = dci.site_links(site)
                check_client_room(site, links, client_cages(links, top.ports_per_cage, top.ports_per_cage),
                                  sum(free), role)
                tops = client_switches(free, links, top.ports_per_cage, top.ports_per_cage)
                for (r, i), n in Counter((router_port(dci, c)[0], i) for c, i in enumerate(tops)).items():
                    run = route(placement.own_spot(site, "router", r), floor.spot(role, i), fp)
                    lo.add((site, r), run, n)
                    up.add((site, i), run, n)
        return lo.groups(), up.groups()

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

    def count(self, media: Media, fp: FloorPlan, dci: DciLinks, compute: FabricLinks, placement: Placement,
              top: SwitchPorts) -> list[LinkGroup]:
        """The hop's link groups (closed form), once every site's top layer is known to have room."""
        lo, up = self.ends(dci, fp, compute, placement, top)
        link = self.link(dci, top)
        return count_hop(media, fp, fabric=self.fabric, tier=self.tier, hop=self.name, lower=self.lower,
                         upper=self.upper(compute.first), lower_groups=lo, upper_groups=up,
                         rate_gbps=link.rate_gbps, ff_lower=link.ff_lower, ff_upper=link.ff_upper,
                         lane_gbps=link.lane_gbps)

    def rows(self, plan: Plan, kinds: dict[Run, Kind], sw: Switches, site: int, dci: DciLinks,
             router_names: list[str], fp: FloorPlan, top: SwitchPorts) -> Rows:
        """One site's rows: router client ports to the free cages of its top layer, a cage's ports
        at a time, switch by switch (``top``: the top switch at the wavelength's rate)."""
        per_site = dci.site_links(site)
        role, firsts = sw.top()
        per, cages = top.ports_per_cage, top.cages
        names_ = port_names(cages, per)
        free = [Ports(first, cages - first, per, names_, (role, i)) for i, first in enumerate(firsts)]
        check_client_room(site, per_site, client_cages(per_site, per, per), sum(f.free for f in free), role)
        for c, i in enumerate(client_switches([f.free for f in free], per_site, per, per)):
            r, port = router_port(dci, c)
            k = kinds[plan.run(("router", r), (role, i), site, fp)]
            j = free[i].take(k.b_key)
            yield from plan.emitter(k)(k, "", "", plan.place("router", site, r), router_names[port],
                                       router_names[port], plan.place(role, site, i), free[i].names[j],
                                       free[i].names[j - j % per])


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

    def site_leaves(self, fab: PooledLinks, p: Plane, site: int, dci: DciLinks) -> list[int]:
        """The border leaf (site index, plane 1) of each of a site's client links: split evenly over
        its shape's border leaves."""
        first, leaves = self.leaves(fab.pooled[fab.shape_of(site)], p)
        links, lpg = dci.site_links(site), p.leaves_per_group
        return [(first + j // lpg) * fab.planes * lpg + j % lpg
                for j in (share(c, links, leaves) for c in range(links))]

    def ends(self, dci: DciLinks, fab: PooledLinks, fp: FloorPlan, placement: Placement) -> tuple[EndGroups, EndGroups]:
        """Both ends over every site, each link on the run between its router's rack and its leaf's."""
        lo, up = Profiles(), Profiles()
        role = fab.role("leaf")
        for site in range(1, dci.sites + 1):
            k = fab.shape_of(site)
            p, floor = fab.shapes[k][1], fab.floors[k]
            # Consecutive links share a router and a leaf: each such run of links counted at once.
            leaves = self.site_leaves(fab, p, site, dci)
            pairs = Counter((router_port(dci, c)[0], leaf) for c, leaf in enumerate(leaves))
            for (r, leaf), n in pairs.items():
                run = route(placement.own_spot(site, "router", r), floor.spot(role, leaf), fp)
                lo.add((site, r), run, n)
                up.add((site, leaf), run, n)
        return lo.groups(), up.groups()

    def link(self, dci: DciLinks, fab: PooledLinks) -> Link:
        """At the wavelength's rate; the leaf port at that rate is its breakout's cage."""
        assert fab.leaf_switch is not None
        lp = switch_ports(fab.leaf_switch, dci.wavelength_gbps)
        return Link(dci.wavelength_gbps, cage(dci.router.form_factor, 1), cage(lp.form_factor, lp.ports_per_cage, True),
                    None)

    def count(self, media: Media, fp: FloorPlan, dci: DciLinks, fab: PooledLinks, placement: Placement
              ) -> list[LinkGroup]:
        lo, up = self.ends(dci, fab, fp, placement)
        link = self.link(dci, fab)
        return count_hop(media, fp, fabric=self.fabric, tier=self.tier, hop=self.name, lower=self.lower,
                         upper=self.upper, lower_groups=lo, upper_groups=up, rate_gbps=link.rate_gbps,
                         ff_lower=link.ff_lower, ff_upper=link.ff_upper, lane_gbps=link.lane_gbps)

    def rows(self, plan: Plan, kinds: dict[Run, Kind], sw: Switches, site: int, dci: DciLinks, fab: PooledLinks,
             router_names: list[str], fp: FloorPlan) -> Rows:
        """One site's rows: client port ``c`` to border leaf ``share(c)`` (the closed form's split),
        on the ports the fabric's own links left free there."""
        role = sw.roles["leaf"]
        assert fab.leaf_switch is not None
        at = switch_ports(fab.leaf_switch, dci.wavelength_gbps)   # the leaf's ports at the links' rate
        at_names = port_names(at.cages, at.ports_per_cage)
        free: dict[int, Ports] = {}
        for c, leaf_i in enumerate(self.site_leaves(fab, sw.p, site, dci)):
            r = router_port(dci, c)[0]
            k = kinds[plan.run(("router", r), (role, leaf_i), site, fp)]
            emit = plan.emitter(k)
            ports = free.get(leaf_i)
            if ports is None:
                # The cages the fabric's own links leave below the leaf's uplinks, at the links' rate.
                room = sw.spare(leaf_i)[0]
                ports = free[leaf_i] = Ports(room.first, room.end - room.first, at.ports_per_cage, at_names,
                                             (role, leaf_i))
            n = ports.take(k.b_key)
            port = router_port(dci, c)[1]
            yield from emit(k, "", "", plan.place("router", site, r), router_names[port], router_names[port],
                            plan.place(role, site, leaf_i), ports.names[n], ports.names[n - n % ports.per])


DCI_CLIENT = DciClient()
DCI_BORDER = DciBorder()
