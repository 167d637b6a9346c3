"""One link pattern per hop, two consumers.

A :class:`Hop` describes one hop of a fabric once: which planes have it (:meth:`Hop.applies`, the
one predicate both consumers use), its two end groups on the floor plan (:meth:`Hop.ends`, from
:mod:`bom.topology.geometry`), the link's rate, cages and lane for the media lookup
(:meth:`Hop.link`). :meth:`Hop.count` gives the closed form (:func:`~bom.topology.linkgroups.count_hop`,
work independent of the GPU count); :meth:`Hop.expand` yields the cable plan's rows, device
port by device port, on the same geometry. The closed form and the plan agree by construction;
``tests/hostile/test_properties.py`` compares them as the referee.

A hop reads a fabric only through :class:`FabricLinks` (its name, tier, planes, site shapes and
node NIC), made from the model's :class:`~bom.model.fabrics.Fabric` by :meth:`FabricLinks.of`.
``bom.links`` imports neither :mod:`bom.topology.build` nor :mod:`bom.pipeline`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, NamedTuple

from bom import names
from bom.catalog.rows import GEARBOX_CAGES
from bom.model.linkgroups import LinkGroup
from bom.topology.linkgroups import count_hop

if TYPE_CHECKING:
    from bom.catalog.media import Media
    from bom.catalog.rows import NicPorts
    from bom.links.ports import Kind, Plan, Switches
    from bom.model.fabrics import Fabric
    from bom.model.floorplan import EndGroups, Floorish, FloorPlan, Run
    from bom.model.plane import Plane

Rows = Iterator[tuple[object, ...]]


@dataclass(frozen=True)
class FabricLinks:
    """What a hop needs of its fabric: name, tier, planes, (sites, plane of one site) per site
    shape, and the nodes' NIC on it."""

    name: str
    tier: str
    planes: int
    shapes: Sequence[tuple[int, Plane]]
    node_ports: NicPorts | None
    floors: Sequence[Floorish] = ()   # where the devices stand, per site shape (the placement's)

    @classmethod
    def of(cls, f: Fabric, floors: Sequence[Floorish] = ()) -> FabricLinks:
        """From the model's fabric (:class:`bom.model.fabrics.Fabric`, a plain data type) and the
        placement's floors (:func:`bom.model.floor.floors`)."""
        return cls(f.name, f.tier, f.planes, f.shapes, f.node_ports, tuple(floors))

    def role(self, layer: str) -> str:
        """The placement's role of this fabric's switches of ``layer``."""
        return names.switch_role(self.name, layer)

    @property
    def roles(self) -> dict[str, str]:
        return {layer: self.role(layer) for layer in ("leaf", "spine", "core")}

    @property
    def first(self) -> Plane:
        return self.shapes[0][1]

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


class Link(NamedTuple):
    """The lookup's key for a hop: rate, the cage at each end, the lane rate."""

    rate_gbps: float
    ff_lower: str
    ff_upper: str
    lane_gbps: float | None


def scaled(groups: EndGroups, k: int) -> EndGroups:
    return [(n * k, runs) for n, runs in groups]


class Hop:
    """One hop's pattern. Subclasses set ``name``, ``lower``, ``upper`` and define
    :meth:`applies`, :meth:`ends`, :meth:`link` and :meth:`plane_rows`."""

    name: ClassVar[str]
    lower: ClassVar[str]
    upper: ClassVar[str]

    def applies(self, p: Plane) -> bool:
        """Whether a site's plane has this hop (both consumers ask this, and only this)."""
        raise NotImplementedError

    def ends(self, p: Plane, fp: FloorPlan, fab: FabricLinks, floor: Floorish) -> tuple[EndGroups, EndGroups]:
        """The lower and upper end groups of one site, every plane of it, where ``floor`` stands
        the site's devices."""
        raise NotImplementedError

    def link(self, fab: FabricLinks, rate: float) -> Link:
        """Rate, cages and lane of the hop's links (``rate``: the node links' rate)."""
        raise NotImplementedError

    def count(self, media: Media, fp: FloorPlan, fab: FabricLinks, rate: float) -> list[LinkGroup]:
        """The hop's link groups over every site and plane (closed form)."""
        lo: EndGroups = []
        up: EndGroups = []
        for k, (sites, p) in enumerate(fab.shapes):
            if self.applies(p):
                a, b = self.ends(p, fp, fab, fab.floors[k])
                lo += scaled(a, sites)
                up += scaled(b, sites)
        if not lo:
            return []
        link = self.link(fab, rate)
        return count_hop(media, fp, fabric=fab.name, tier=fab.tier, hop=self.name, lower=self.lower,
                         upper=self.upper, lower_groups=lo, upper_groups=up, rate_gbps=link.rate_gbps,
                         ff_lower=link.ff_lower, ff_upper=link.ff_upper, lane_gbps=link.lane_gbps)

    def expand(self, plan: Plan, sw: Switches, kinds: dict[str, dict[Run, Kind]], p: Plane, fp: FloorPlan,
               site: int, fab: FabricLinks) -> Iterator[Rows]:
        """The hop's row generators of one site, plane by plane (each runs when consumed, so the
        ports of a device fill in hop order)."""
        for pl in range(fab.planes):
            yield self.plane_rows(plan, sw, kinds[self.name], p, fp, site, pl, fab)

    def plane_rows(self, plan: Plan, sw: Switches, kinds: dict[Run, Kind], p: Plane, fp: FloorPlan,
                   site: int, pl: int, fab: FabricLinks) -> Rows:
        """The rows of one plane of one site."""
        raise NotImplementedError
