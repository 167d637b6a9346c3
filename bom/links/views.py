"""The fabrics as the hops see them: one view per fabric kind, made from the model's values.

A view holds what a hop of its family reads, and nothing else: the fabric's name and tier, per site
shape the plane of one site and where the placement stands its devices (:class:`View`); a switch
fabric's planes and node NIC and the fabric managers' ports on it (:class:`FabricLinks`); a pooled
(storage, in-band) fabric's leaf groups (:class:`PooledLinks`); the management network's switches
(:class:`OobLinks`); the DCI and the fabric its routers' client links land on (:class:`DciView`); the
scale-up domains (:class:`ScaleUpView`). Each says which units the closed form walks
(:meth:`View.units`: a site shape for all its sites, or every site alone) and where a device stands
(:meth:`View.spot`: a site's DCI equipment stands in its own racks).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bom import names
from bom.catalog.media import cage
from bom.catalog.rows import GEARBOX_CAGES
from bom.links.ports import OWN_ROLES, port_names
from bom.model.floor import floors
from bom.model.shares import paired, share
from bom.roles import FabricKind, Layer, Tier
from bom.topology.geometry import block_nodes
from bom.units import magnitude

if TYPE_CHECKING:
    from bom.catalog.rows import NicPorts, Platform, Switch
    from bom.model.cluster import Site
    from bom.model.dci import Dci
    from bom.model.endpoints import Endpoints
    from bom.model.fabrics import Fabric, OobFabric, PooledFabric, PooledShape
    from bom.model.floorplan import Floorish, FloorPlan
    from bom.model.placement import Placement
    from bom.model.plane import Plane, SwitchPorts

Spot = tuple[int, int]


@dataclass(frozen=True)
class View:
    """A fabric's name and tier, and per site shape: (sites of that shape, plane of one site), where its
    devices stand."""

    name: str
    tier: Tier | FabricKind   # a link tier, or the power family's own label (bom/links/power.py)
    shapes: Sequence[tuple[int, Plane | None]]
    floors: Sequence[Floorish] = ()
    placement: Placement | None = None

    def units(self) -> Iterator[tuple[int, int, int]]:
        """(shape, its first site, sites it stands for) of each walk of the closed form: a site shape
        stands for all its sites."""
        first = 1
        for k, (count, _) in enumerate(self.shapes):
            yield k, first, count
            first += count

    def spot(self, shape: int, site: int, role: str, index: int) -> Spot:
        """(row, position) of a device: the site's own racks for its DCI equipment, else its shape's."""
        if role in OWN_ROLES:
            assert self.placement is not None
            return self.placement.own_spot(site, role, index)
        return self.floors[shape].spot(role, index)

    def shape_of(self, site: int) -> int:
        """The site shape (index) of a 1-based site."""
        n = 0
        for k, (count, _) in enumerate(self.shapes):
            n += count
            if site <= n:
                return k
        raise ValueError(site)


@dataclass(frozen=True)
class UfmLinks:
    """The fabric managers' ports on a compute fabric: their NIC there and how many stand in a site."""

    nic: NicPorts
    per_site: int

    @classmethod
    def of(cls, ends: Endpoints | None) -> UfmLinks | None:
        """From the model's endpoints (None: no UFM port on the compute fabric)."""
        if ends is None or ends.ufm is None or not ends.ufm_count or ends.ufm.ports.compute is None:
            return None
        return cls(ends.ufm.ports.compute, ends.ufm_count)

    @property
    def ports(self) -> int:
        """UFM ports in one site."""
        return self.per_site * self.nic.ports


@dataclass(frozen=True)
class FabricLinks(View):
    """A switch fabric: its planes, each site shape's plane, the nodes' NIC on it, and the fabric
    managers' ports where they are on it."""

    planes: int = 1
    node_ports: NicPorts | None = None
    ufm: UfmLinks | None = None
    rate_gbps: float = 0.0    # a node link's rate (the NIC's over the planes)
    port_split: int = 1       # links one node NIC port carries (Fabric.port_split)

    @classmethod
    def of(cls, f: Fabric, placement: Placement | None = None, ufm: UfmLinks | None = None) -> FabricLinks:
        return cls(f.name, f.tier, f.shapes, floors(placement) if placement else (), placement, f.planes,
                   f.node_ports, ufm, f.rate_gbps, f.port_split)

    @property
    def node_cage_links(self) -> int:
        """Links one node NIC cage serves: its ports, each split over the planes where a port's rate is."""
        return self.nic.ports_per_cage * self.port_split

    @property
    def plane(self) -> Plane:
        return self.first

    def role(self, layer: str) -> str:
        """The placement's role of this fabric's switches of ``layer``."""
        return names.switch_role(self.name, layer)

    @property
    def roles(self) -> dict[str, str]:
        return {layer: self.role(layer) for layer in (Layer.LEAF, Layer.SPINE, Layer.CORE)}

    @property
    def first(self) -> Plane:
        p = self.shapes[0][1]
        assert p is not None
        return p

    @property
    def planes_of(self) -> list[Plane]:
        return [p for _, p in self.shapes if p is not None]

    @property
    def nic(self) -> NicPorts:
        assert self.node_ports is not None
        return self.node_ports

    @property
    def lane(self) -> float | None:
        """The node-leaf lane rate the lookup asks for: none on RJ45 copper, nor behind a leaf cage
        whose modules gearbox (a 400G QSFP-DD DR4 takes 50G host lanes, sends 100G optical ones)."""
        if self.nic.form_factor == "rj45" or self.first.leaf.form_factor in GEARBOX_CAGES:
            return None
        return self.first.leaf.lane_gbps

    @property
    def up_lane(self) -> float | None:
        """Between switches: a dedicated uplink port (a 1G switch's 100G uplinks) sets its own
        rate and lanes."""
        return None if self.first.leaf_uplink else self.lane


@dataclass(frozen=True)
class PooledLinks(FabricLinks):
    """A pooled (storage, in-band) fabric: the switch fabric's, the leaf groups of each site shape, the
    nodes of a placement block, the leaf switch (for an endpoint's breakout cage) and the management
    switches' uplink ports (where they are one of its endpoint kinds)."""

    pooled: Sequence[PooledShape] = ()
    block: int = 1
    leaf_switch: Switch | None = None
    uplink_names: Sequence[str] = ()
    mlag: int = 0            # peer links per MLAG leaf pair (0: single-homed leaves)

    @classmethod
    def of_pooled(cls, f: PooledFabric, compute: Fabric | None, fp: FloorPlan, placement: Placement | None = None,
                  oob_leaf: Switch | None = None) -> PooledLinks:
        block = block_nodes(compute.shapes[0][1] if compute else None, fp)
        ups = uplink_names(oob_leaf) if oob_leaf is not None and Layer.OOB in f.roles else ()
        return cls(f.name, f.tier, f.shapes, floors(placement) if placement else (), placement, f.planes,
                   f.node_ports, None, f.rate_gbps, f.port_split, pooled=f.pooled, block=block,
                   leaf_switch=f.leaf_switch, uplink_names=tuple(ups), mlag=f.spec.mlag or 0)

    @property
    def rate(self) -> float:
        """A node link's rate: the node NIC's over the planes."""
        return magnitude(self.nic.rate, "rate") / self.planes

    def spread(self, unit: int, total: int, parts: int) -> int:
        """Which of ``parts`` leaves takes the ``unit``-th of ``total`` ports: even shares, or over MLAG
        pairs with each pair's two switches taking alternate ports (dual-homed)."""
        return paired(unit, total, parts) if self.mlag else share(unit, total, parts)

    @property
    def leaf_cage(self) -> str:
        p = self.first
        return cage(p.leaf.form_factor, p.leaf.ports_per_cage, True)


def uplink_names(leaf: Switch) -> list[str]:
    """A management switch's uplink ports, numbered after its downlink cages."""
    assert leaf.uplinks is not None
    up = leaf.uplinks
    return port_names(up.ports // up.ports_per_cage, up.ports_per_cage, leaf.cages)


@dataclass(frozen=True)
class OobLinks(View):
    """The management network: its fabric (sections, switches per site), the placement it manages and
    the management switch and spine rows. Its shapes are the placement's site shapes."""

    fabric: OobFabric | None = None
    leaf: Switch | None = None
    spine: Switch | None = None

    @classmethod
    def of(cls, f: OobFabric, placement: Placement, leaf: Switch, spine: Switch | None) -> OobLinks:
        return cls(f.name, f.tier, [(shape.count, None) for shape in placement.sites], floors(placement), placement,
                   f, leaf, spine)

    @property
    def oob(self) -> OobFabric:
        assert self.fabric is not None
        return self.fabric

    @property
    def switch(self) -> Switch:
        assert self.leaf is not None
        return self.leaf


@dataclass(frozen=True)
class DciView(View):
    """The DCI between the sites, the fabric its routers' client links land on (``attach``, seen as its
    own view), the top layer's switch at the wavelength's rate (a compute fabric), and the routers' port
    names. The closed form walks every site alone (a site's links depend on its cabled pairs)."""

    dci: Dci | None = None
    attach: FabricLinks | None = None
    top: SwitchPorts | None = None

    @property
    def line(self) -> Dci:
        assert self.dci is not None
        return self.dci

    @property
    def fabric(self) -> FabricLinks:
        assert self.attach is not None
        return self.attach

    @property
    def router_names(self) -> list[str]:
        r = self.line.router
        return port_names(r.cages, r.ports_per_cage)

    def units(self) -> Iterator[tuple[int, int, int]]:
        """Every site alone (a site's links depend on its cabled pairs), but a run of sites alike in all a
        walk reads (its shape, its client links, its own racks: :meth:`Placement.own_key
        <bom.model.placement.Placement.own_key>`) walked once for the run, in site order: each later site
        would add the same groups again, which count the same."""
        placement, dci = self.placement, self.line
        first, last, n = 1, None, 0
        for site in range(1, dci.sites + 1):
            own = placement.own_key(site) if placement is not None else site
            key = (self.shape_of(site), dci.site_links(site), own)
            if key == last:
                n += 1
                continue
            if last is not None:
                yield last[0], first, n
            first, last, n = site, key, 1
        if last is not None:
            yield last[0], first, n


@dataclass(frozen=True)
class ScaleUpView(View):
    """The scale-up domains: the platform and each site shape's nodes (planes: none)."""

    platform: Platform | None = None
    sites_nodes: Sequence[Site] = ()

    @property
    def system(self) -> Platform:
        assert self.platform is not None
        return self.platform

    @classmethod
    def of(cls, platform: Platform, sites: Sequence[Site]) -> ScaleUpView:
        return cls("nvlink", Tier.SCALE_UP, [(s.count, None) for s in sites], (), None, platform, tuple(sites))

