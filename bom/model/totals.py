"""Typed totals of a built model: sums over link groups, per fabric and per tier.

:func:`sum_groups` is the one sum over link groups (links, copper links, modules, cables, fibre
runs and lit strands, and the same by hop, by medium, by layer and by end kind); the fabric and
tier totals are built from it. The summary, the comparison and the workbooks read these
attributes; the ``fabrics`` and ``tiers`` totals in the output JSON are their serialisation
(``to_json``). Data types only: the model (:mod:`bom.pipeline.model`) builds them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING

from typing_extensions import TypedDict

from bom.model.cluster import ScaleUpJson
from bom.model.dci import DciJson
from bom.model.linkgroups import end_kinds
from bom.model.records import Count, Share
from bom.roles import SWITCH_LAYERS, Layer, Tier

if TYPE_CHECKING:
    from bom.model.cluster import ScaleUp
    from bom.model.dci import Dci
    from bom.model.linkgroups import LinkGroup

#: The layers whose link ends are a fabric's switches (``modules.switch`` in the JSON); ``inband``
#: is the in-band leaf end of an out-of-band switch's uplink.
SWITCH_ENDS = (*SWITCH_LAYERS, Layer.INBAND)


@dataclass(frozen=True)
class LinkTotals:
    """Sums over a set of link groups."""

    links: int = 0
    copper_links: int = 0          # passive and active copper assemblies
    modules: int = 0               # pluggables bought, at both ends
    cables: int = 0                # copper/AOC assemblies, or fibre cables
    fibre_runs: int = 0
    fibre_strands: int = 0         # lit strands
    by_hop: Mapping[str, int] = field(default_factory=dict)                 # links of each hop
    media: Mapping[str, Mapping[str, int]] = field(default_factory=dict)    # links of each hop by medium
    by_layer: Mapping[str, int] = field(default_factory=dict)               # modules at each layer
    ends: Mapping[str, Mapping[str, int]] = field(default_factory=dict)     # link ends by layer and kind

    @property
    def optical_links(self) -> int:
        return self.links - self.copper_links

    @property
    def copper_share(self) -> float:
        return self.copper_links / self.links if self.links else 0.0

    def hop(self, hop: str) -> int:
        """Links of one hop (0 when the groups have none)."""
        return self.by_hop.get(hop, 0)

    def modules_at(self, *layers: str) -> int:
        """Modules at the ends on these layers (node, leaf, spine, core, ...)."""
        return sum(self.by_layer.get(k, 0) for k in layers)

    def engine_ports(self) -> int:
        """Ends on co-packaged optical engines (no module to buy)."""
        return sum(e["optical engine"] for e in self.ends.values())

    def media_json(self) -> dict[str, dict[str, int]]:
        """Links of each hop by medium: {"node-leaf": {"multimode": 9216}, ...}."""
        return {h: dict(m) for h, m in self.media.items()}

    def ends_json(self) -> dict[str, dict[str, int]]:
        return {k: dict(e) for k, e in self.ends.items()}


def sum_groups(groups: Iterable[LinkGroup]) -> LinkTotals:
    """Every total of a set of link groups, in one pass (hops and media in the groups' order)."""
    groups = list(groups)
    n = dict.fromkeys(("links", "copper_links", "modules", "cables", "fibre_runs", "fibre_strands"), 0)
    by_hop: dict[str, int] = {}
    media: dict[str, dict[str, int]] = {}
    by_layer: dict[str, int] = {}
    for g in groups:
        n["links"] += g.links
        n["copper_links"] += g.links if g.copper else 0
        n["modules"] += g.modules
        n["cables"] += g.cables
        n["fibre_runs"] += g.fibre_runs
        n["fibre_strands"] += g.fibre_strands
        by_hop[g.hop] = by_hop.get(g.hop, 0) + g.links
        hop = media.setdefault(g.hop, {})
        hop[g.medium] = hop.get(g.medium, 0) + g.links
        by_layer[g.lower] = by_layer.get(g.lower, 0) + g.modules_lower
        by_layer[g.upper] = by_layer.get(g.upper, 0) + g.modules_upper
    return LinkTotals(**n, by_hop=by_hop, media=media, by_layer=by_layer, ends=end_kinds(groups))


@dataclass(frozen=True)
class FabricTotals(LinkTotals):
    """One fabric's link totals and its switches over every site and plane."""

    fabric: str = ""
    tier: Tier = Tier.SCALE_OUT
    switches: Mapping[Layer, int] = field(default_factory=dict)    # leaf, spine, core

    @classmethod
    def of(cls, fabric: str, tier: Tier, links: LinkTotals, switches: Mapping[Layer, int]) -> FabricTotals:
        own = {f.name: getattr(links, f.name) for f in fields(LinkTotals)}
        return cls(**own, fabric=fabric, tier=tier, switches=dict(switches))

    @property
    def node_modules(self) -> int:
        return self.modules_at(Layer.NODE)

    @property
    def switch_modules(self) -> int:
        """Modules at the fabric's own switches (an out-of-band uplink's in-band leaf end too)."""
        return self.modules_at(*SWITCH_ENDS)


class ScaleOutJson(TypedDict):
    """Every scale-out fabric's links (ScaleOutTotals)."""

    links: Count
    ports: Count
    modules: Count
    cables: Count
    fibre_runs: Count
    fibre_strands: Count
    copper_links: Count
    copper_share: Share


class OneSiteJson(TypedDict):
    """One site: no DCI (ScaleAcrossTotals)."""

    links: Count
    modules: Count
    fibre_pairs: Count
    wavelengths: Count
    copper_links: Count
    copper_share: Share
    fibre_runs: Count
    fibre_strands: Count


class ScaleAcrossJson(DciJson):
    """Two or more sites: the DCI's description and its totals with the routers' client links
    (ScaleAcrossTotals). copper_links is 0."""

    coherent_modules: Count
    client_links: Count
    """The routers' client links into each site's fabric (hop fabric-dci)."""
    client_modules: Count
    fibre_runs: Count
    fibre_strands: Count


#: The three tiers' totals, by tier.
TiersJson = TypedDict("TiersJson", {"scale-up": ScaleUpJson, "scale-out": ScaleOutJson,
                                    "scale-across": OneSiteJson | ScaleAcrossJson})


@dataclass(frozen=True)
class TierTotals:
    """What every tier counts: its links, by medium, and the modules and fibre they take."""

    links: int
    copper_links: int
    modules: int
    cables: int
    fibre_runs: int
    fibre_strands: int

    @property
    def optical_links(self) -> int:
        return self.links - self.copper_links

    @property
    def copper_share(self) -> float:
        return self.copper_links / self.links if self.links else 0.0

    def to_json(self) -> ScaleUpJson | ScaleOutJson | OneSiteJson | ScaleAcrossJson:
        raise NotImplementedError


@dataclass(frozen=True)
class ScaleUpTotals(TierTotals):
    """The links inside the scale-up domains (copper, and a torus's optical links to its OCS)."""

    scale_up: ScaleUp

    @classmethod
    def of(cls, su: ScaleUp) -> ScaleUpTotals:
        return cls(links=su.links + su.optical_links, copper_links=su.links, modules=su.modules, cables=su.cables,
                   fibre_runs=su.fibre_runs, fibre_strands=su.fibre_strands, scale_up=su)

    def to_json(self) -> ScaleUpJson:
        # The domain's own description (kind, domains, switch chips, OCS), its totals these.
        out = self.scale_up.to_json()
        out["links"], out["copper_links"], out["optical_links"] = self.links, self.copper_links, self.optical_links
        out["modules"], out["fibre_runs"], out["fibre_strands"] = self.modules, self.fibre_runs, self.fibre_strands
        out["cables"], out["copper_share"] = self.cables, self.copper_share
        return out


@dataclass(frozen=True)
class ScaleOutTotals(TierTotals):
    """Every scale-out fabric's links (compute, storage, in-band, out-of-band)."""

    @classmethod
    def of(cls, t: LinkTotals) -> ScaleOutTotals:
        return cls(links=t.links, copper_links=t.copper_links, modules=t.modules, cables=t.cables,
                   fibre_runs=t.fibre_runs, fibre_strands=t.fibre_strands)

    @property
    def ports(self) -> int:
        return 2 * self.links

    def to_json(self) -> ScaleOutJson:
        return {"links": self.links, "ports": self.ports, "modules": self.modules, "cables": self.cables,
                "fibre_runs": self.fibre_runs, "fibre_strands": self.fibre_strands,
                "copper_links": self.copper_links, "copper_share": self.copper_share}


@dataclass(frozen=True)
class ScaleAcrossTotals(TierTotals):
    """The wavelengths between sites and the routers' client links inside them (zero on one site).

    The wavelengths count as copper-free links whatever the client links' medium (as the JSON
    always has: ``copper_links`` 0).
    """

    fibre_pairs: int = 0
    wavelengths: int = 0
    coherent_modules: int = 0
    client_links: int = 0
    client_modules: int = 0
    dci: Dci | None = None

    @classmethod
    def of(cls, dci: Dci | None, clients: LinkTotals) -> ScaleAcrossTotals:
        if dci is None:
            return cls(links=0, copper_links=0, modules=0, cables=0, fibre_runs=0, fibre_strands=0)
        return cls(links=dci.links + clients.links, copper_links=0, modules=dci.modules + clients.modules,
                   cables=clients.cables, fibre_runs=clients.fibre_runs, fibre_strands=clients.fibre_strands,
                   fibre_pairs=dci.fibre_pairs, wavelengths=dci.wavelengths, coherent_modules=dci.modules,
                   client_links=clients.links, client_modules=clients.modules, dci=dci)

    @property
    def distance_km(self) -> float:
        """The route length of each cabled site pair (0 on one site)."""
        return self.dci.distance_km if self.dci is not None else 0.0

    def to_json(self) -> OneSiteJson | ScaleAcrossJson:
        if self.dci is None:
            return {"links": 0, "modules": 0, "fibre_pairs": 0, "wavelengths": 0, "copper_links": 0,
                    "copper_share": 0.0, "fibre_runs": 0, "fibre_strands": 0}
        # The DCI's description (site pairs, distance, amplifiers, routers), its totals these.
        return {**self.dci.to_json(), "links": self.links, "modules": self.modules, "fibre_pairs": self.fibre_pairs,
                "distance_km": self.distance_km, "wavelengths": self.wavelengths, "copper_links": self.copper_links,
                "copper_share": self.copper_share, "coherent_modules": self.coherent_modules,
                "client_links": self.client_links, "client_modules": self.client_modules,
                "fibre_runs": self.fibre_runs, "fibre_strands": self.fibre_strands}


@dataclass(frozen=True)
class Totals:
    """A model's totals: each fabric's, the DCI routers' client links, and the three tiers."""

    fabrics: Mapping[str, FabricTotals]
    dci_clients: LinkTotals
    scale_up: ScaleUpTotals
    scale_out: ScaleOutTotals
    scale_across: ScaleAcrossTotals

    def tier(self, name: Tier) -> TierTotals:
        tiers: dict[Tier, TierTotals] = {Tier.SCALE_UP: self.scale_up, Tier.SCALE_OUT: self.scale_out,
                                         Tier.SCALE_ACROSS: self.scale_across}
        return tiers[name]

    @property
    def network(self) -> LinkTotals:
        """Scale-out and scale-across together (the links the network cables)."""
        so, sa = self.scale_out, self.scale_across
        return LinkTotals(links=so.links + sa.links, copper_links=so.copper_links + sa.copper_links,
                          modules=so.modules + sa.modules, cables=so.cables + sa.cables,
                          fibre_runs=so.fibre_runs + sa.fibre_runs, fibre_strands=so.fibre_strands + sa.fibre_strands)

    def fabric_links(self, names: Iterable[str]) -> int:
        return sum(self.fabrics[k].links for k in names if k in self.fabrics)

    def engine_ports(self) -> int:
        """Link ends on co-packaged optical engines over every fabric and the DCI client links."""
        return sum(f.engine_ports() for f in self.fabrics.values()) + self.dci_clients.engine_ports()

    def tiers_json(self) -> TiersJson:
        # The tiers in the JSON's order (TIERS').
        return {"scale-up": self.scale_up.to_json(), "scale-out": self.scale_out.to_json(),
                "scale-across": self.scale_across.to_json()}
