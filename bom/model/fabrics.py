"""The fabrics of a built model: data types only (the stages in :mod:`bom.topology` build them).

A :class:`Fabric` is one scale-out fabric: its planes, one plane per site shape, its link groups
and the compute fabric's UFM ports. :class:`PooledFabric` is storage or in-band (leaves sized by
the ports they carry, endpoints on leaf groups of their own); :class:`OobFabric` the management
network over every managed device the placement holds; :class:`DciFabric` the scale-across DCI
told as a fabric (the JSON's ``fabrics.dci``). Frozen: a stage returns a new value
(``dataclasses.replace``) instead of filling one in.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, ClassVar, Literal, NotRequired

from typing_extensions import TypedDict

from bom.catalog.rows import NicPorts, Switch
from bom.inputs.scenario import FabricSpec
from bom.model.hops import HopKind, endpoint_hop
from bom.model.linkgroups import LinkGroup
from bom.model.plane import Plane, Topology
from bom.model.records import Count
from bom.model.shares import split
from bom.model.totals import FabricTotals, LinkTotals, sum_groups
from bom.roles import SWITCH_LAYERS, FabricKind, FabricRole, Layer, Tier

if TYPE_CHECKING:
    from bom.model.dci import Dci

#: The fabric managers' links to the compute fabric (lower end ``ufm``): hops of their own, to its leaves'
#: spare downlinks or to its top layer's free ports (bom/topology/ufm.py).
UFM_HOPS = (HopKind.UFM_LEAF, HopKind.UFM_TOP)


class UfmJson(TypedDict):
    """The compute fabric's fabric managers: their ports on its leaves or its top layer."""

    hop: HopKind
    """The first of their hops (ufm-leaf, else ufm-top); links counts each."""
    layer: str
    """Where their ports are: leaf, spine or core (both where site shapes differ: "leaf and spine"); ""
    where none is connected."""
    ports: Count
    leaves: Count
    """Leaves that carry one (or more)."""
    top_switches: Count
    """Top-layer switches (spines, cores in three layers, a one-layer fabric's switches) that carry one."""
    added_switches: Count
    """Top-layer switches the fabric has beyond its own links' need, to free ports for them."""
    leaf_modules: Count
    why: str


class ScheduledJson(TypedDict):
    """A scheduled fabric (Jericho3-AI interface nodes, Ramon fabric elements): each leaf's fabric ports
    (all cabled), the links joining each leaf-element pair, and the fabric ports' capacity over the host
    ports' (the speedup)."""

    fabric_ports_per_leaf: Count
    fabric_port_rate_gbps: float
    links_per_pair: Count
    speedup: float


class SwitchesJson(TypedDict):
    """Switches over every site and plane."""

    leaf: Count
    spine: Count
    core: Count


class SiteSwitchesJson(TypedDict):
    """One site shape's switches over every plane, and how many sites have the shape."""

    sites: Count
    leaf: Count
    spine: Count
    core: Count


class FabricHeadJson(TypedDict):
    """A switch fabric's keys of its own, written first."""

    scheduled: NotRequired[ScheduledJson]
    ufm: NotRequired[UfmJson]
    """The compute fabric's fabric managers."""


class SwitchedFabricJson(FabricHeadJson):
    """A switch fabric (compute): its description and totals (FabricTotals)."""

    tier: Tier
    switch: str
    """The leaf switch's catalog id."""
    spine_switch: str | None
    topology: Topology
    layers: Count
    planes: Count
    rate_gbps: float | None
    uplink_rate_gbps: float | None
    rails_per_leaf: Count | None
    switches: SwitchesJson
    site_switches: list[SiteSwitchesJson]
    links: dict[HopKind, Count]
    """Links of each hop (node-leaf, leaf-spine, ...)."""
    media: dict[str, dict[str, Count]]
    """Links of each hop by medium."""
    modules: dict[str, Count]
    """Modules: node, switch (and ufm, endpoint)."""
    ends: dict[str, dict[str, Count]]
    """Link ends by layer and kind (pluggable modules, optical engine ports, none)."""
    cables: Count
    fibre_runs: Count
    fibre_strands: Count
    copper_links: Count
    optical_links: Count


class BorderJson(TypedDict):
    border_leaves: NotRequired[Count]
    """Leaves of their own for the DCI routers' client ports."""


class PooledFabricJson(SwitchedFabricJson, BorderJson):
    """A storage or in-band fabric: leaves sized by the ports they carry."""

    endpoint_substitutions: dict[str, str]
    """Endpoint kinds whose own part is not used, and why (their ports counted as the nodes')."""
    oversubscription: str
    group_ports: Count
    endpoint_ports: Count


class OobFabricJson(TypedDict):
    """The out-of-band management network over every managed device."""

    tier: Tier
    switch: str
    spine_switch: str | None
    topology: Literal["per-rack", "per-block"]
    layers: Count
    planes: Count
    rate_gbps: float
    uplinks: Literal[Layer.SPINE, FabricRole.INBAND]
    uplinks_counted_in: Literal[FabricRole.OOB, FabricRole.INBAND]
    """Into a built in-band fabric the uplinks are its oob-leaf hop (their links and modules counted there)."""
    uplink_ports: Count
    switches: SwitchesJson
    managed_devices: Count
    links: dict[HopKind, Count]
    modules: dict[str, Count]
    """Modules: node, switch."""
    cables: Count
    fibre_runs: Count
    fibre_strands: Count
    copper_links: Count
    optical_links: Count


class DciFabricJson(TypedDict):
    """The scale-across DCI told as a fabric."""

    tier: Tier
    switch: str
    """The DCI router's catalog id."""
    routers: Count
    coherent: str
    standard: str
    links: dict[HopKind, Count]
    media: dict[str, dict[str, Count]]
    modules: dict[str, Count]
    """Modules: coherent and client."""
    copper_links: Count
    optical_links: Count
    border_switch: NotRequired[str]
    """The DCI's own border leaves' catalog id, where no fabric of the scenario takes the routers' client
    links (client_fabric dci)."""
    border_leaves: NotRequired[Count]
    """The DCI's own border leaves over every site (each site's as many as its client links take)."""


#: One fabric of the JSON's ``fabrics``.
FabricJson = SwitchedFabricJson | PooledFabricJson | OobFabricJson | DciFabricJson


@dataclass(frozen=True)
class UfmPorts:
    ports: int            # UFM ports on the compute fabric, whole cluster
    leaves: int           # leaves that carry one (or more)
    leaf_modules: int     # modules the UFM ports add at the leaf end (0 when they share a cage)
    why: str
    layer: str = Layer.LEAF   # where they are: leaf, spine, core ("leaf and spine"; "" where none is)
    top: int = 0          # top-layer switches that carry one
    added: int = 0        # top-layer switches the fabric has only to free ports for them

    @property
    def hop(self) -> HopKind:
        return HopKind.UFM_LEAF if self.leaves or not self.top else HopKind.UFM_TOP

    def to_json(self) -> UfmJson:
        return {"hop": self.hop, "layer": self.layer if self.ports else "", "ports": self.ports,
                "leaves": self.leaves, "top_switches": self.top, "added_switches": self.added,
                "leaf_modules": self.leaf_modules, "why": self.why}


@dataclass(frozen=True)
class Fabric:
    kind: ClassVar[FabricKind] = FabricKind.SWITCHED

    name: str
    tier: Tier
    spec: FabricSpec
    planes: int
    shapes: list[tuple[int, Plane]]           # (sites of this shape, plane of one site)
    groups: list[LinkGroup] = field(default_factory=list)
    node_ports: NicPorts | None = None
    ufm: UfmPorts | None = None               # compute: the fabric managers' ports on the leaves
    rate_gbps: float = 0.0                    # a node link's rate (the NIC's over the planes)
    note: str = ""                            # what the build chose for the user (the report's warnings)
    added_top: int = 0                        # compute: top switches added to free ports for the UFM
    #: Endpoint kind -> why its own part is not used (its ports counted as the nodes' on this fabric).
    substitutions: dict[str, str] = field(default_factory=dict)

    @property
    def first(self) -> Plane:
        return self.shapes[0][1]

    @property
    def port_split(self) -> int:
        """Links one node NIC port carries, one per plane it reaches (``FabricSpec.port_split``)."""
        return self.spec.port_split

    def with_groups(self, groups: list[LinkGroup], substitutions: dict[str, str]) -> Fabric:
        """The fabric with its link groups and the endpoint kinds counted as the nodes' ports, with why."""
        return replace(self, groups=groups, substitutions=substitutions)

    def switch_ids(self) -> dict[Layer, str]:
        """The catalog row of each switch layer (a layer with no switches included)."""
        p = self.first
        return {Layer.LEAF: p.leaf.id, Layer.SPINE: p.spine.id, Layer.CORE: p.spine.id}

    @property
    def scheduled(self) -> bool:
        """A scheduled (cell) fabric: its leaves' fabric ports joined to fabric elements."""
        return bool(self.shapes) and self.first.scheduled

    def switches(self, layer: Layer) -> int:
        attr = {Layer.LEAF: "leaves", Layer.SPINE: "spines", Layer.CORE: "cores"}[layer]
        return sum(n * self.planes * getattr(p, attr) for n, p in self.shapes)

    def port_use(self, layer: Layer) -> list[tuple[int, int]]:
        """(switches, ports each uses) of a spine or core layer over every site and plane."""
        return [(n * self.planes * k, used) for n, p in self.shapes for k, used in p.port_use(layer)]

    @cached_property
    def sums(self) -> LinkTotals:
        """The one sum over the fabric's link groups (computed once: the fabric is frozen)."""
        return sum_groups(self.groups)

    def totals(self) -> FabricTotals:
        """The fabric's link totals and its switches."""
        switches = {k: self.switches(k) for k in SWITCH_LAYERS}
        return FabricTotals.of(self.name, self.tier, self.sums, switches)

    def hop_links(self, hop: str) -> int:
        return self.sums.hop(hop)

    def modules_at(self, layer: str) -> int:
        return self.sums.modules_at(layer)

    @property
    def switch_id(self) -> str:
        """The leaf switch's part (the JSON's ``switch``)."""
        return self.first.leaf.id

    @property
    def spine_switch_id(self) -> str | None:
        return self.first.spine.id

    @property
    def layers(self) -> int:
        return self.first.layers

    @property
    def copper_links(self) -> int:
        return self.sums.copper_links

    @property
    def optical_links(self) -> int:
        return self.sums.optical_links

    def links_by_hop(self) -> dict[HopKind, int]:
        """Links of each hop the fabric reports: node-leaf, leaf-spine and spine-core even when
        empty, the leaves' ISL and the UFM ports' hop only when there are any."""
        t = self.sums
        hops = {h: t.hop(h) for h in (HopKind.NODE_LEAF, HopKind.LEAF_SPINE, HopKind.SPINE_CORE)}
        if t.hop(HopKind.LEAF_LEAF):
            hops[HopKind.LEAF_LEAF] = t.hop(HopKind.LEAF_LEAF)
        if self.ufm is not None and self.ufm.ports:
            # The UFM links are their own hops (node-leaf stays the nodes' links).
            hops.update({h: t.hop(h) for h in UFM_HOPS if t.hop(h)})
        return hops

    def media_by_hop(self) -> dict[str, dict[str, int]]:
        """Links of each hop by medium (empty for a fabric that counts its media as a whole)."""
        return self.sums.media_json()

    def site_switches(self) -> list[SiteSwitches]:
        """Each site shape's switches over every plane."""
        return [SiteSwitches(n, self.planes * p.leaves, self.planes * p.spines, self.planes * p.cores)
                for n, p in self.shapes]

    def scheduled_json(self) -> ScheduledJson:
        """A scheduled fabric's fabric side: every fabric port cabled, the speedup over the host ports."""
        p = self.first
        fabric = p.leaf_up * p.up.rate_gbps
        return {"fabric_ports_per_leaf": p.leaf_up, "fabric_port_rate_gbps": p.up.rate_gbps,
                "links_per_pair": p.leaf_spine_per_pair, "speedup": round(fabric / (p.leaf_down * p.leaf.rate_gbps), 4)}

    def to_json(self) -> FabricJson:
        return self.switched_json()

    def switched_json(self) -> SwitchedFabricJson:
        t = self.totals()
        modules: dict[str, int] = {Layer.NODE: t.node_modules, "switch": t.switch_modules}
        head: FabricHeadJson = {}
        if self.scheduled:
            head["scheduled"] = self.scheduled_json()
        if self.ufm is not None:
            head |= FabricHeadJson(ufm=self.ufm.to_json())
            if self.ufm.ports:
                modules[Layer.UFM] = t.modules_at(Layer.UFM)
        sw = t.switches
        return {**head,
            "tier": self.tier, "switch": self.switch_id, "spine_switch": self.spine_switch_id,
            "topology": self.first.topology, "layers": self.layers, "planes": self.planes,
            "rate_gbps": self.groups[0].rate_gbps if self.groups else None,
            "uplink_rate_gbps": self.first.up.rate_gbps if self.first.layers > 1 or self.first.isl else None,
            "rails_per_leaf": (self.first.rails_per_leaf
                               if self.first.topology != "tor" and not self.first.nodes_per_leaf else None),
            "switches": SwitchesJson(leaf=sw[Layer.LEAF], spine=sw[Layer.SPINE], core=sw[Layer.CORE]),
            "site_switches": [SiteSwitchesJson(sites=s.sites, leaf=s.leaf, spine=s.spine, core=s.core)
                              for s in self.site_switches()],
            "links": self.links_by_hop(), "media": self.media_by_hop(), "modules": modules, "ends": t.ends_json(),
            "cables": t.cables, "fibre_runs": t.fibre_runs, "fibre_strands": t.fibre_strands,
            "copper_links": t.copper_links, "optical_links": t.optical_links,
        }


@dataclass(frozen=True)
class SiteSwitches:
    """One site shape's switches, every plane: how many sites have the shape, and their layers."""

    sites: int
    leaf: int
    spine: int
    core: int

    def layer(self, name: Layer) -> int:
        return {Layer.LEAF: self.leaf, Layer.SPINE: self.spine, Layer.CORE: self.core}[name]


@dataclass(frozen=True)
class PooledShape:
    node_units: int          # node ports per site of this shape
    extra_units: int         # endpoint ports per site (appliances, servers)
    group_units: int         # ports per leaf group
    extra_groups: int        # leaf groups of the endpoints
    # (role, its own ports, ports per site) of each endpoint kind: appliances, servers, OOB uplinks
    kinds: list[tuple[str, NicPorts, int]] = field(default_factory=list)
    block_units: int = 0     # node ports per full compute block (0: one block, the whole site)
    # Leaf ports (at the fabric's rate, whole cages) the DCI routers' client links of a site of this
    # shape take (the busiest site's), on border leaves: leaf groups of their own after the
    # endpoints' (none: on the one leaf of a one-leaf site).
    border_units: int = 0
    border_groups: int = 0

    def _parts(self) -> tuple[int, int, int, int]:
        """(full blocks, ports of one, groups of one, the partial block's ports)."""
        block = self.block_units or self.node_units or 1
        full, rest = divmod(self.node_units, block)
        return full, block, -(-block // self.group_units), rest

    def blocks(self) -> tuple[int, int, int]:
        """(full blocks, node ports of one, leaf groups of one): the node port ``v`` of full block ``b``
        is in group ``b`` x groups + the group of ``v`` (:meth:`node_group`), at the same place in it.

        >>> PooledShape(80 + 2 * 144, 0, 72, 0, block_units=144).blocks()
        (2, 144, 2)
        """
        full, block, parts, _ = self._parts()
        return full, block, parts

    def node_fills(self) -> list[tuple[int, int]]:
        """(ports, groups) of the nodes' leaf groups: each block's ports shared evenly over as many
        groups as it needs, the full blocks' and then the partial block's (a partial block of 40
        nodes in groups of 36 takes 20 + 20, not 36 + 4, so no leaf is left nearly empty; a block
        of 82 ports in groups of up to 42 takes 41 + 41).

        >>> PooledShape(80 + 2 * 144, 0, 72, 0, block_units=144).node_fills()
        [(72, 4), (40, 2)]
        >>> PooledShape(3 * 82, 0, 42, 0, block_units=82).node_fills()
        [(41, 6)]
        """
        full, block, parts, rest = self._parts()
        out = [(q, n * full) for q, n in split(block, parts)] if full else []
        return out + (split(rest, -(-rest // self.group_units)) if rest else [])

    @cached_property
    def node_groups(self) -> int:
        """Leaf groups of the nodes (the endpoints' groups come after them)."""
        return sum(n for _, n in self.node_fills())

    def node_group(self, unit: int) -> tuple[int, int, int]:
        """(group, unit within it, the group's ports) of the node port ``unit`` (node_fills' order:
        block by block).

        >>> s = PooledShape(80 + 2 * 144, 0, 72, 0, block_units=144)
        >>> s.node_group(0), s.node_group(287), s.node_group(288), s.node_group(367)
        ((0, 0, 72), (3, 71, 72), (4, 0, 40), (5, 39, 40))
        >>> PooledShape(3 * 82, 0, 42, 0, block_units=82).node_group(123)
        (3, 0, 41)
        """
        full, block, parts, rest = self._parts()
        b, v = divmod(unit, block)
        if b < full:
            g, u, fill = _within(v, block, parts)
            return b * parts + g, u, fill
        g, u, fill = _within(v, rest, -(-rest // self.group_units))
        return full * parts + g, u, fill


def _within(v: int, total: int, parts: int) -> tuple[int, int, int]:
    """(part, position in it, its size) of item ``v`` of ``total`` split evenly over ``parts``,
    the first ones one larger (geometry.split's order)."""
    q, r = divmod(total, parts)
    big = r * (q + 1)
    if v < big:
        g, u = divmod(v, q + 1)
        return g, u, q + 1
    g, u = divmod(v - big, q)
    return r + g, u, q


@dataclass(frozen=True)
class PooledFabric(Fabric):
    kind: ClassVar[FabricKind] = FabricKind.POOLED

    pooled: list[PooledShape] = field(default_factory=list)
    leaf_switch: Switch | None = None

    @property
    def roles(self) -> list[str]:
        """The endpoint kinds on the fabric's leaves (appliances, servers, OOB uplinks)."""
        return sorted({role for ps in self.pooled for role, _, _ in ps.kinds})

    def links_by_hop(self) -> dict[HopKind, int]:
        # Endpoints' ports are hops of their own (node-leaf is the nodes' ports alone); an MLAG pair's peer links too.
        mlag = {HopKind.MLAG_PEER: self.hop_links(HopKind.MLAG_PEER)} if self.hop_links(HopKind.MLAG_PEER) else {}
        return (super().links_by_hop() | {endpoint_hop(role): self.hop_links(endpoint_hop(role)) for role in self.roles}
                | mlag)

    def to_json(self) -> PooledFabricJson:
        base = self.switched_json()
        base["modules"]["endpoint"] = sum(self.modules_at(role) for role in self.roles)
        r = Fraction(self.spec.leaf_ratio)
        ps = self.pooled[0]
        # The DCI routers' client links land on border leaves (counted on the DCI, hop fabric-dci).
        border: BorderJson = {"border_leaves": self.border_leaves} if self.border_leaves else {}
        return {**base, "endpoint_substitutions": dict(self.substitutions),
                "oversubscription": f"{r.numerator}:{r.denominator}", "group_ports": ps.group_units,
                "endpoint_ports": ps.extra_units * self.shapes[0][0]
                + sum(s.extra_units * n for (n, _), s in zip(self.shapes[1:], self.pooled[1:], strict=True)),
                **border}

    @property
    def border_leaves(self) -> int:
        """Leaves of their own for the DCI routers' client ports, over every site and plane."""
        return sum(n * self.planes * p.leaves_per_group * ps.border_groups
                   for (n, p), ps in zip(self.shapes, self.pooled, strict=True))


@dataclass(frozen=True)
class OobSection:
    """One placement section's management network, per copy."""

    copies: int              # copies over the whole cluster (sites x section copies)
    devices: int             # managed devices per copy
    per_rack: int            # in-rack management switches per compute rack (0: none)
    racks: int               # compute racks per copy carrying in-rack switches
    block: int               # management switches for the rest of the copy's devices


@dataclass(frozen=True)
class OobFabric(Fabric):
    kind: ClassVar[FabricKind] = FabricKind.OOB

    sections: list[OobSection] = field(default_factory=list)
    # Per site shape: [(in-rack switches per compute rack, block switches) per block section], shared switches
    per_shape: list[tuple[list[tuple[int, int]], int]] = field(default_factory=list)
    uplinks_per_leaf: int = 1
    site_leaves: list[int] = field(default_factory=list)   # management switches per site, per site shape
    into_inband: bool = False   # the uplinks are the in-band fabric's oob-leaf hop (counted there)
    # (sites, OOB spines in each) per site shape: each site's management switches uplink to its own
    site_spines: list[tuple[int, int]] = field(default_factory=list)
    leaf_id: str = ""
    spine_id: str | None = None

    @property
    def spines(self) -> int:
        return sum(count * n for count, n in self.site_spines)

    @property
    def leaves(self) -> int:
        return sum(s.copies * (s.per_rack * s.racks + s.block) for s in self.sections)

    @property
    def devices(self) -> int:
        return sum(s.copies * s.devices for s in self.sections)

    def switches(self, layer: Layer) -> int:
        return {Layer.LEAF: self.leaves, Layer.SPINE: self.spines, Layer.CORE: 0}[layer]

    def uplink_ports(self, leaf: Switch) -> NicPorts:
        """One management switch's uplinks, as the in-band fabric sees them (an endpoint's ports)."""
        assert leaf.uplinks is not None
        up = leaf.uplinks
        return NicPorts(ports=self.uplinks_per_leaf, rate=up.rate, form_factor=up.form_factor,
                        ports_per_cage=1)

    @property
    def switch_id(self) -> str:
        return self.leaf_id

    @property
    def spine_switch_id(self) -> str | None:
        return self.spine_id

    def switch_ids(self) -> dict[Layer, str]:
        return {Layer.LEAF: self.leaf_id} | ({Layer.SPINE: self.spine_id} if self.spine_id else {})

    @property
    def layers(self) -> int:
        return 2 if self.spines else 1

    def links_by_hop(self) -> dict[HopKind, int]:
        hops = (HopKind.NODE_LEAF, HopKind.LEAF_SPINE, HopKind.SPINE_CORE, HopKind.LEAF_INBAND)
        return {h: self.hop_links(h) for h in hops}

    def media_by_hop(self) -> dict[str, dict[str, int]]:
        # Patch cords are told for the whole network (copper_links, optical_links), not by hop.
        return {}

    def to_json(self) -> OobFabricJson:
        return {"tier": self.tier, "switch": self.switch_id, "spine_switch": self.spine_switch_id,
                "topology": "per-rack" if any(s.per_rack for s in self.sections) else "per-block",
                "layers": self.layers, "planes": 1, "rate_gbps": 1.0,
                "uplinks": Layer.SPINE if self.spines else FabricRole.INBAND,
                # Into a built in-band fabric the uplinks are its oob-leaf hop (links and modules counted there).
                "uplinks_counted_in": FabricRole.INBAND if self.into_inband else FabricRole.OOB,
                "uplink_ports": self.leaves * self.uplinks_per_leaf,
                "switches": SwitchesJson(leaf=self.leaves, spine=self.spines, core=0),
                "managed_devices": self.devices, "links": self.links_by_hop(),
                "modules": {Layer.NODE: self.modules_at(Layer.NODE),
                            "switch": sum(self.modules_at(k) for k in (Layer.LEAF, Layer.SPINE, Layer.INBAND))},
                "cables": sum(g.cables for g in self.groups),
                "fibre_runs": sum(g.fibre_runs for g in self.groups),
                "fibre_strands": sum(g.fibre_strands for g in self.groups),
                "copper_links": self.copper_links, "optical_links": self.optical_links}


@dataclass(frozen=True)
class DciFabric:
    """The scale-across DCI told as a fabric: the wavelengths between sites (hop site-site) and
    the routers' client links into each site's fabric (hop fabric-dci)."""

    dci: Dci
    clients: LinkTotals
    tier: Tier = Tier.SCALE_ACROSS

    @property
    def switch_id(self) -> str:
        return self.dci.router.id

    @property
    def routers(self) -> int:
        return self.dci.routers

    @property
    def copper_links(self) -> int:
        """0: the DCI counts as optical whatever its client links' medium (as its tier's totals do)."""
        return 0

    @property
    def optical_links(self) -> int:
        return self.dci.links + self.clients.links

    def links_by_hop(self) -> dict[HopKind, int]:
        return {HopKind.SITE_SITE: self.dci.links, HopKind.FABRIC_DCI: self.clients.links}

    def media_by_hop(self) -> dict[str, dict[str, int]]:
        return {HopKind.SITE_SITE: {"coherent": self.dci.links}, **self.clients.media_json()}

    def to_json(self) -> DciFabricJson:
        d = self.dci
        out: DciFabricJson = {"tier": self.tier, "switch": self.switch_id, "routers": self.routers,
                              "coherent": d.coherent.id, "standard": d.coherent.standard,
                              "links": self.links_by_hop(), "media": self.media_by_hop(),
                              "modules": {"coherent": d.modules, "client": self.clients.modules},
                              "copper_links": self.copper_links, "optical_links": self.optical_links}
        if d.border is not None:   # only then: every other DCI's JSON keeps its bytes
            out["border_switch"], out["border_leaves"] = d.border.switch.id, d.border_leaves
        return out
