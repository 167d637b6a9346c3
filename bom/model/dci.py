"""Scale-across: the DCI between sites and its coherent line's counting rules: data types and rules
only (:func:`bom.topology.dci.build_dci` builds the design; :mod:`bom.links.line` and :mod:`bom.links.dci`
walk it into cable-plan rows)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Annotated, Literal, NotRequired

from pydantic import Field
from typing_extensions import TypedDict

from bom.catalog.media import Choice, Patch
from bom.catalog.rows import Coherent, Dwdm, Switch
from bom.model.records import Count, Share
from bom.roles import FabricRole

#: Router ports per wavelength that ends at a site: its client port and its line port.
SITE_PORTS = 2
#: Ends of a wavelength and of a fibre pair (a coherent module, a mux/demux at each).
ENDS = 2
#: Mated pairs at one end of a wavelength: the module's own connection, and with a mux/demux the
#: patch cord's far end on its channel port and the mux/demux's line port on the dark fibre.
END_PAIRS, MUX_PAIRS = 1, 2


class LineRules:
    """The coherent line's counting rules, one place for the closed form (:class:`Dci`'s figures)
    and the cable plan (:class:`bom.links.line.DciLine`, which walks them)."""

    #: The patch from a line port to its mux/demux channel: (fibre, connector) of the cord.
    patch_kind = ("os2", "lc-duplex")

    def fibre_pairs(self, wavelengths: int, channels: int) -> int:
        """Fibre pairs one site pair takes."""
        return math.ceil(wavelengths / channels)

    def waves(self, wavelengths: int, channels: int, fpair: int) -> range:
        """The wavelengths fibre pair ``fpair`` carries (channel ``w % channels``)."""
        return range(fpair * channels, min(wavelengths, (fpair + 1) * channels))

    def modules(self, wavelengths: int) -> int:
        return ENDS * wavelengths

    def muxes(self, fibre_pairs: int, mux: Dwdm | None) -> int:
        return ENDS * fibre_pairs if mux is not None else 0

    def patch_cords(self, wavelengths: int, mux: Dwdm | None) -> int:
        """Cords from a line port to its mux/demux channel: one at each end of each wavelength
        (without a mux/demux the line port takes the dark fibre itself)."""
        return ENDS * wavelengths if mux is not None else 0

    def mated_pairs(self, mux: Dwdm | None) -> int:
        """Mated pairs one wavelength passes from its transmitter to its receiver (the line's loss
        budget counts each): at both ends the module's own, and with a mux/demux its channel and line
        ports (the patch cords are the plan's ``lc-duplex patch`` rows)."""
        return ENDS * (END_PAIRS + (MUX_PAIRS if mux is not None else 0))

    def site_ports(self, wavelengths: int) -> int:
        """Router ports at a site where ``wavelengths`` end: line side and client side."""
        return SITE_PORTS * wavelengths

    def row_count(self, dci: Dci) -> int:
        """The plan's line-side rows: a wavelength's row on its own fibre pair, or with a mux/demux a
        patch at each end per wavelength and a row per fibre pair; and the terminal amplifiers' cords."""
        line = dci.wavelengths if dci.mux is None else ENDS * dci.wavelengths + dci.fibre_pairs
        return line + self.amplifier_patch_cords(dci)

    def terminal_units(self, dci: Dci) -> int:
        """Rack-mounted amplifier units at one end of one fibre pair (a booster and a pre-amplifier, the one
        stage ``sites.amplifiers`` stands, or one unit of both stages); 0 without a mux/demux for them to
        stand beside, or when they plug into the routers' ports (a pluggable line system is the router
        port's module, no cord)."""
        if dci.mux is None or dci.pluggable or not dci.amplifiers_per_fibre_pair:
            return 0
        return len(dci.end_stages) // dci.stages

    def amplifier_patch_cords(self, dci: Dci) -> int:
        """Cords from each terminal amplifier unit to its fibre pair's mux/demux line port: one a unit,
        at both ends of every fibre pair (the in-line amplifiers stand in huts on the route, which the
        dark fibre lease covers)."""
        return ENDS * dci.fibre_pairs * self.terminal_units(dci)



LINE = LineRules()


#: How the sites are joined: every pair, a ring, or a hub and its spokes.
DciTopology = Literal["mesh", "ring", "hub"]


#: Where an amplified route's amplifiers stand at its ends (``sites.amplifiers``).
AmplifierPlacement = Literal["both", "booster", "pre-amp"]
#: The stages each placement stands at one end of a fibre pair: the booster of the direction it sends,
#: the pre-amplifier of the direction it receives.
END_STAGES_OF: dict[str, tuple[str, ...]] = {"both": ("booster", "pre-amp"), "booster": ("booster",),
                                             "pre-amp": ("pre-amp",)}


class LineLossJson(TypedDict):
    """One wavelength's loss from transmitter to receiver without amplifiers (fibre with splices, mux
    and demux, mated pairs) against the coherent module's unamplified budget; over it, the route takes
    a booster and a pre-amplifier each way."""

    fibre_db: float
    mux_demux_db: float
    mated_pairs: Count
    connectors_db: float
    loss_db: float
    budget_db: float | None
    over_budget: bool
    why: str
    amplifiers: NotRequired[AmplifierPlacement]
    """Where the scenario stands the amplifiers (``sites.amplifiers``), when it says."""
    amplified_budget_db: NotRequired[float | None]
    """The unamplified budget plus the gain of each amplifier stage that stands (None: a gain the catalog
    does not give)."""
    over_amplified_budget: NotRequired[bool]
    """The loss past that budget (a single span: rule ``lengths.coherent`` refuses it)."""


@dataclass(frozen=True)
class LineLoss:
    """One wavelength's loss from its transmitter to its receiver on one route without amplifiers,
    and the module's unamplified budget it is held to."""

    fibre_db: float           # the route's fibre, splices included
    mux_db: float             # the mux at the sending end and the demux at the receiving end
    mated_pairs: int
    pair_db: float            # one mated pair
    budget_db: float | None   # the module's unamplified budget (None: the catalog gives none)
    gain_db: float | None = None                 # the amplifier stages' gains where they stand
    placement: AmplifierPlacement | None = None  # where the scenario stands them (None: not said, both)

    @property
    def connectors_db(self) -> float:
        return self.mated_pairs * self.pair_db

    @property
    def total_db(self) -> float:
        return self.fibre_db + self.mux_db + self.connectors_db

    @property
    def over(self) -> bool:
        """Past the budget: the route needs a booster and a pre-amplifier."""
        return self.budget_db is not None and self.total_db > self.budget_db + 1e-9

    @property
    def amplified_budget_db(self) -> float | None:
        """The budget with the amplifier stages that stand: the unamplified budget plus their gains, a
        booster's raising the launch power and a pre-amplifier's the received power (None: either unknown).

        >>> LineLoss(10.0, 12.0, 6, 0.25, 11.0, 20.0, "booster").amplified_budget_db
        31.0
        """
        return None if self.budget_db is None or self.gain_db is None else self.budget_db + self.gain_db

    @property
    def over_amplified(self) -> bool:
        """Past the budget even with the amplifier stages that stand."""
        b = self.amplified_budget_db
        return b is not None and self.total_db > b + 1e-9

    def why(self) -> str:
        parts = (f"fibre {self.fibre_db:.2f} + mux/demux {self.mux_db:.2f} + {self.mated_pairs} mated pairs "
                 f"{self.connectors_db:.2f} = {self.total_db:.2f} dB")
        if self.budget_db is None:
            return f"{parts}; the module has no unamplified loss budget in the catalog (its reach decides)"
        return f"{parts} {'>' if self.over else '<='} the module's unamplified budget {self.budget_db:g} dB"

    def why_amplified(self, stages: str) -> str:
        """The loss against the budget with ``stages`` (a sentence naming them) standing."""
        return (f"fibre {self.fibre_db:.2f} + mux/demux {self.mux_db:.2f} + {self.mated_pairs} mated pairs "
                f"{self.connectors_db:.2f} = {self.total_db:.2f} dB {'>' if self.over_amplified else '<='} "
                f"{self.budget_db:g} dB unamplified + {self.gain_db:g} dB of {stages} = "
                f"{self.amplified_budget_db:g} dB")

    def to_json(self) -> LineLossJson:
        out: LineLossJson = {
            "fibre_db": round(self.fibre_db, 3), "mux_demux_db": round(self.mux_db, 3),
            "mated_pairs": self.mated_pairs, "connectors_db": round(self.connectors_db, 3),
            "loss_db": round(self.total_db, 3), "budget_db": self.budget_db, "over_budget": self.over,
            "why": self.why()}
        if self.placement is not None:
            b = self.amplified_budget_db
            out["amplifiers"] = self.placement
            out["amplified_budget_db"] = None if b is None else round(b, 3)
            out["over_amplified_budget"] = self.over_amplified
        return out


class DciJson(TypedDict):
    """The DCI between the sites: its site pairs, route, wavelengths, amplifiers and routers."""

    links: Count
    modules: Count
    fibre_pairs: Count
    wavelengths: Count
    sites: Count
    site_pairs: Count
    topology: DciTopology
    pairs: list[Annotated[list[Count], Field(min_length=2, max_length=2)]]
    """The cabled site pairs, sites numbered from 1."""
    wavelengths_per_pair: Count
    fibre_pairs_per_pair: Count
    distance_km: float
    bandwidth_gbps_per_pair: float
    coherent: str
    standard: str
    mux_demux: Count
    patch_cords: Count
    amplifier_patch_cords: Count
    """Cords from each rack-mounted terminal amplifier to its fibre pair's mux/demux line port (hop
    mux-amplifier): a booster and a pre-amplifier, or one unit of both, at both ends of every amplified
    fibre pair; 0 for a pluggable line system (it is a router port's module) or an unamplified line."""
    amplifiers: Count
    amplifiers_per_fibre_pair: Count
    inline_amplifier_sites: Count
    inline_amplifier_sites_per_route: Count
    dark_fibre_km: float
    client_fabric: FabricRole
    amplified: bool
    line_loss: LineLossJson | None
    routers: Count
    router_ports: Count
    copper_links: Count
    copper_share: Share


@dataclass(frozen=True)
class Border:
    """The DCI's own border leaves in each site, where no fabric of the scenario can take the routers'
    client links (an InfiniBand compute fabric and no Ethernet fabric with ports at the wavelength's
    rate): an Ethernet switch per ``per_leaf`` client links a site brings, standing with its routers.

    >>> Border(None, 64, "").leaves(64), Border(None, 64, "").leaves(65), Border(None, 64, "").leaves(0)
    (1, 2, 0)
    """

    switch: Switch
    #: Client links one border leaf takes: its downlink half at the wavelength's rate, in whole cages
    #: (the other half kept for its hand-off into the site, 1:1 as a leaf of the tool's fabrics).
    per_leaf: int
    #: Why no fabric of the scenario takes the client links (the build's warning says it).
    why: str

    def leaves(self, links: int) -> int:
        """Border leaves a site with ``links`` client links takes."""
        return -(-links // self.per_leaf)


@dataclass(frozen=True)
class Dci:
    sites: int
    pairs: int
    distance_m: float
    bandwidth_gbps: float          # per site pair
    wavelength_gbps: float
    choice: Choice                 # the coherent part over the distance
    channels: int                  # wavelengths one fibre pair carries
    mux: Dwdm | None
    amplifier: Dwdm | None
    router: Switch
    wavelengths_per_pair: int
    fibre_pairs_per_pair: int
    inline_sites: int              # in-line amplifier sites along one route (site pair)
    topology: DciTopology = "mesh"
    site_pairs: tuple[tuple[int, int], ...] = ()   # cabled pairs, sites numbered from 1
    patch: Patch | None = None     # the cord from a line port to its mux/demux channel
    loss: LineLoss | None = None   # one wavelength's unamplified loss and the module's budget
    attach: FabricRole = FabricRole.COMPUTE   # the fabric whose switches take the routers' client ports
    placement: AmplifierPlacement = "both"    # the amplifier stages at each end of an amplified route
    #: The DCI's own border leaves (``attach`` is the DCI itself): None when a fabric takes the client links.
    border: Border | None = None

    @property
    def end_stages(self) -> tuple[str, ...]:
        """The amplifier stages at one end of an amplified fibre pair: the booster of the direction it
        sends, the pre-amplifier of the one it receives, or one of them (``sites.amplifiers``)."""
        return END_STAGES_OF[self.placement]

    @property
    def amplified(self) -> bool:
        """Booster and pre-amplifier at the ends of every fibre pair: past the module's unamplified
        reach, or over its unamplified loss budget."""
        return self.choice.amplified or (self.loss is not None and self.loss.over)

    @property
    def coherent(self) -> Coherent:
        c = self.choice.option.coherent
        assert c is not None
        return c

    @property
    def wavelengths(self) -> int:
        return self.pairs * self.wavelengths_per_pair

    @property
    def links(self) -> int:
        return self.wavelengths

    @property
    def modules(self) -> int:
        return LINE.modules(self.wavelengths)

    @property
    def fibre_pairs(self) -> int:
        return self.pairs * self.fibre_pairs_per_pair

    @property
    def distance_km(self) -> float:
        return self.distance_m / 1000

    @property
    def muxes(self) -> int:
        return LINE.muxes(self.fibre_pairs, self.mux)

    @property
    def patch_cords(self) -> int:
        return LINE.patch_cords(self.wavelengths, self.mux)

    @property
    def amplifier_patch_cords(self) -> int:
        return LINE.amplifier_patch_cords(self)

    @property
    def routes(self) -> int:
        """Fibre routes between sites: one per site pair (a full mesh)."""
        return self.pairs

    @property
    def amplifier_sites(self) -> int:
        """In-line amplifier huts over every route."""
        return self.routes * self.inline_sites

    @property
    def stages(self) -> int:
        """Amplifier stages in one amplifier unit (2: a bidirectional pluggable line system)."""
        return self.amplifier.stages if self.amplifier is not None else 1

    @property
    def pluggable(self) -> bool:
        """The amplifiers plug into the routers' ports (one at each end of each fibre pair)."""
        return self.amplifier is not None and self.amplifier.pluggable and self.amplifiers_per_fibre_pair > 0

    @property
    def amplifiers_per_fibre_pair(self) -> int:
        return line_amplifiers(self.inline_sites, self.amplified, self.stages, len(self.end_stages))

    @property
    def amplifiers(self) -> int:
        return self.fibre_pairs * self.amplifiers_per_fibre_pair

    @property
    def dark_fibre_km(self) -> float:
        """Route length of all fibre pairs [km] (what a dark-fibre lease prices per year)."""
        return self.fibre_pairs * self.distance_m / 1000.0

    @cached_property
    def degrees(self) -> tuple[int, ...]:
        """Cabled pairs that end at each site, site 1 first."""
        return site_degrees(self.site_pairs or site_pairs(self.sites, "mesh"), self.sites)

    def neighbours(self, site: int) -> tuple[int, ...]:
        """The sites cabled to ``site`` (from 1), in site order: the pair with the k-th of them takes
        the site's wavelengths ``[k * wavelengths_per_pair, (k + 1) * wavelengths_per_pair)`` and its
        mux/demux ``k * fibre_pairs_per_pair`` onwards."""
        pairs = self.site_pairs or site_pairs(self.sites, "mesh")
        return tuple(sorted(b if a == site else a for a, b in pairs if site in (a, b)))

    def site_links(self, site: int) -> int:
        """Wavelengths that end at ``site`` (from 1): its client links, and as many line ports."""
        return self.wavelengths_per_pair * self.degrees[site - 1]

    def busiest(self, shape_sites: list[int]) -> list[int]:
        """The client links of the busiest site of each site shape (``shape_sites``: how many sites
        each shape has, in site order): what a shape's border leaves are sized for.

        >>> d = Dci(4, 3, 40e3, 25600.0, 400.0, None, 64, None, None, None, 64, 1, 0, "hub",
        ...         site_pairs(4, "hub"))
        >>> d.busiest([1, 3]), d.busiest([4])
        ([192, 64], [192])
        """
        out, first = [], 1
        for count in shape_sites:
            out.append(max(self.site_links(s) for s in range(first, first + count)))
            first += count
        return out

    @property
    def router_ports_per_site(self) -> int:
        """At the busiest site: line side and client side of every wavelength that ends there."""
        return LINE.site_ports(self.wavelengths_per_pair * max(self.degrees))

    def site_routers(self, site: int) -> int:
        """Routers at ``site`` (from 1): its wavelengths' line and client ports, and a pluggable
        amplifier's port on each amplified fibre pair that ends there."""
        plugged = self.site_amplifiers(site) if self.pluggable else 0
        return math.ceil((LINE.site_ports(self.site_links(site)) + plugged) / self.router.ports)

    def site_muxes(self, site: int) -> int:
        """Mux/demuxes at ``site``: one on each fibre pair that ends there."""
        return self.fibre_pairs_per_pair * self.degrees[site - 1] if self.mux is not None else 0

    def site_amplifiers(self, site: int) -> int:
        """Amplifiers at ``site`` (the in-line ones stand in huts on the routes): a booster and a
        pre-amplifier (or the one stage ``sites.amplifiers`` stands) on each amplified fibre pair that ends
        there."""
        terminal = len(self.end_stages) // self.stages if self.amplifiers_per_fibre_pair else 0
        return terminal * self.fibre_pairs_per_pair * self.degrees[site - 1]

    @property
    def routers(self) -> int:
        return sum(self.site_routers(s) for s in range(1, self.sites + 1))

    def site_border_leaves(self, site: int) -> int:
        """The DCI's own border leaves at ``site`` (from 1): as many as its client links take (0 when a
        fabric of the scenario takes them)."""
        return self.border.leaves(self.site_links(site)) if self.border is not None else 0

    @property
    def border_leaves(self) -> int:
        return sum(self.site_border_leaves(s) for s in range(1, self.sites + 1))

    @property
    def note(self) -> str:
        """The build's warning for the DCI's own border leaves ("" when a fabric takes the client links)."""
        b = self.border
        if b is None:
            return ""
        each = sorted({self.site_border_leaves(s) for s in range(1, self.sites + 1)})
        per = f"{each[0]:,}" if len(each) == 1 else f"{each[0]:,} to {each[-1]:,}"
        return (f"sites: {b.why}, so each site has border leaves of its own for them: {self.border_leaves:,} x "
                f"{b.switch.id} in all ({per} a site, the DCI border leaf of catalogs/defaults.yaml), standing with "
                f"the routers, each taking up to {b.per_leaf:,} client links on half its ports and keeping the "
                "other half for its hand-off into the site; that hand-off (to an Ethernet network the nodes "
                "reach, which no fabric of the scenario is) is not in the BOM.")

    def to_json(self) -> DciJson:
        return {"links": self.links, "modules": self.modules, "fibre_pairs": self.fibre_pairs,
                "wavelengths": self.wavelengths, "sites": self.sites, "site_pairs": self.pairs,
                "topology": self.topology, "pairs": [list(p) for p in self.site_pairs],
                "wavelengths_per_pair": self.wavelengths_per_pair,
                "fibre_pairs_per_pair": self.fibre_pairs_per_pair,
                "distance_km": self.distance_km, "bandwidth_gbps_per_pair": self.bandwidth_gbps,
                "coherent": self.coherent.id, "standard": self.coherent.standard,
                "mux_demux": self.muxes, "patch_cords": self.patch_cords,
                "amplifier_patch_cords": self.amplifier_patch_cords, "amplifiers": self.amplifiers,
                "amplifiers_per_fibre_pair": self.amplifiers_per_fibre_pair,
                "inline_amplifier_sites": self.amplifier_sites,
                "inline_amplifier_sites_per_route": self.inline_sites,
                "dark_fibre_km": self.dark_fibre_km, "client_fabric": self.attach, "amplified": self.amplified,
                "line_loss": self.loss.to_json() if self.loss is not None else None, "routers": self.routers,
                "router_ports": self.routers * self.router.ports,
                "copper_links": 0, "copper_share": 0.0}


#: Directions per fibre pair (one fibre each way) and amplifiers per direction at the two ends.
DIRECTIONS = 2


TERMINAL_PER_DIRECTION = 2   # the booster at the sending end, the pre-amplifier at the receiving end


def line_amplifiers(inline_sites: int, amplified: bool, stages: int = 1,
                    terminal: int = TERMINAL_PER_DIRECTION) -> int:
    """Amplifiers one fibre pair takes: a stage per direction at each in-line site, and a booster and
    a pre-amplifier per direction at the ends when the route is amplified (``terminal`` 1: one of them,
    ``sites.amplifiers``); ``stages`` to a unit.

    >>> line_amplifiers(0, True), line_amplifiers(7, True), line_amplifiers(0, False)   # 120, 600, 40 km
    (4, 18, 0)
    >>> line_amplifiers(0, True, 2)   # a bidirectional pluggable at each end (Cisco QDD OLS)
    2
    >>> line_amplifiers(0, True, terminal=1)   # a booster only (or a pre-amplifier only) each way
    2
    """
    if not amplified:
        return 0
    return DIRECTIONS * (inline_sites + terminal) // stages


def site_pairs(sites: int, topology: str = "mesh") -> tuple[tuple[int, int], ...]:
    """The cabled site pairs (numbered from 1): every pair in a ``mesh``, each site and the next
    (and the last and the first) in a ``ring``, every site and site 1 with a ``hub``.

    >>> site_pairs(4, "mesh")
    ((1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4))
    >>> site_pairs(4, "ring"), site_pairs(4, "hub"), site_pairs(2, "ring")
    (((1, 2), (2, 3), (3, 4), (1, 4)), ((1, 2), (1, 3), (1, 4)), ((1, 2),))
    """
    if topology == "hub":
        return tuple((1, s) for s in range(2, sites + 1))
    if topology == "ring":
        ring = tuple((s, s + 1) for s in range(1, sites))
        return ring + ((1, sites),) if sites > 2 else ring
    return tuple((a, b) for a in range(1, sites + 1) for b in range(a + 1, sites + 1))


def site_degrees(pairs: tuple[tuple[int, int], ...], sites: int) -> tuple[int, ...]:
    """How many cabled pairs end at each site."""
    return tuple(sum(s in p for p in pairs) for s in range(1, sites + 1))


#: The leased dark-fibre pair between two sites (a line per route; the cable plan's fibre pairs).
DARK_FIBRE_SKU = "DARK-FIBRE-PAIR"
