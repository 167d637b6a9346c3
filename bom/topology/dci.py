"""Scale-across: sites joined by coherent wavelengths over dark fibre or a DWDM line system.

Per cabled site pair (every pair in a mesh, neighbours in a ring, each site to site 1 with a
hub; see :func:`site_pairs`): wavelengths = ceil(bandwidth / wavelength rate), a coherent
module at both ends of each; fibre pairs = ceil(wavelengths / channels of the grid), with a
mux/demux at each end of each pair; DCI router ports for the line side and the client side
at each end.

Amplification (``line_amplifiers``): past the module's unamplified reach, or when one
wavelength's loss from transmitter to receiver (:class:`LineLoss`: the route's fibre, the mux and
the demux, every mated pair) is over the module's unamplified loss budget, a route is amplified
at both ends (a booster on the transmit side and a pre-amplifier on the receive side, in each
direction); a route longer than one span also has in-line amplifier sites, huts along the
fibre, spans - 1 of them per route, shared by every fibre pair on that route. A span is the
module standard's single amplified span where it has one (400ZR: up to 120 km, OIF-400ZR-01.0)
and the line amplifier's span otherwise. An EDFA amplifies one fibre, one direction: a fibre
pair takes two at every in-line site and two at each end.
"""

from __future__ import annotations

import math
from dataclasses import replace

from bom.catalog.media import Media, Patch
from bom.catalog.rows import Catalog, Coherent, Dwdm, Switch
from bom.errors import LimitError, keyed
from bom.inputs.scenario import Scenario
from bom.links.dci import DCI_CLIENT
from bom.model.cluster import Cluster
from bom.model.dci import END_STAGES_OF, LINE, AmplifierPlacement, Border, Dci, DciTopology, LineLoss, site_pairs
from bom.model.fabrics import Fabric
from bom.model.sizing import Sizing
from bom.roles import FabricRole, Layer
from bom.topology.fabrics import fabric_switch, support_switch
from bom.topology.planes import switch_ports
from bom.units import magnitude

#: Wavelengths per site pair past which a DCI bandwidth is a typo (a thousand 96-channel fibre pairs).
MAX_WAVELENGTHS = 96_000
#: Installed single-mode fibre at 1550 nm, splices included [dB/km]: 0.2 dB/km of fibre and a 0.15 dB
#: fusion splice every 3 km (0.05 dB/km). The fibre and splice figures are the Fiber Optic
#: Association's typical values (thefoa.org, "Loss Budget": SM 1550 nm 0.2 dB/km, SM splice 0.15 dB);
#: a splice every 3 km is our assumption for a carrier's route (cable reel lengths), not a cited figure.
DARK_FIBRE_DB_PER_KM = 0.25
#: The mated pairs on a coherent line are single-mode LC duplex (the modules', the mux/demux's ports).
LINE_CONNECTOR, LINE_MEDIUM = "lc-duplex", "smf-duplex"


def line_loss(module: Coherent, mux: Dwdm | None, distance_m: float, pair_db: float) -> LineLoss:
    """The unamplified loss of one wavelength over a route of ``distance_m``.

    The default's route: 40 km x 0.25 = 10 dB of fibre, 6 dB through the mux and 6 dB through the
    demux, 6 mated pairs of 0.25 dB: 23.5 dB, over 400ZR's 11 dB.
    """
    mux_db = 2 * magnitude(mux.insertion_loss, "loss") if mux is not None and mux.insertion_loss else 0.0
    budget = magnitude(module.loss_budget_unamplified, "loss") if module.loss_budget_unamplified else None
    return LineLoss(distance_m / 1000 * DARK_FIBRE_DB_PER_KM, mux_db, LINE.mated_pairs(mux), pair_db, budget)


def _channels(module: Coherent, mux: Dwdm | None) -> int:
    """Wavelengths per fibre pair: the mux's band divided by the module's grid."""
    if mux is None or mux.channels is None or mux.spacing is None:
        return 1
    band = mux.channels * magnitude(mux.spacing, "frequency")
    return max(1, int(band // magnitude(module.grid, "frequency")))


def line_patch(media: Media, length_m: float) -> Patch:
    """The patch cord from a line port to its mux/demux channel, sold long enough for ``length_m``."""
    patch = media.patch_cord(*LINE.patch_kind, length_m)
    if patch is None:
        raise LimitError(f"the catalog sells no {' '.join(LINE.patch_kind)} patch cord of {length_m:g} m for "
                         "the line ports' patches to their mux/demux", key="catalogs.fibres",
                         hint="Add an OS2 LC duplex patch-cord row to the fibre catalog.")
    return patch


def line_amplifier(catalog: Catalog, amplifier_id: str | None) -> Dwdm | None:
    """The scenario's amplifier row (``sites.amplifier``), else the cheapest rack-mounted one (a
    pluggable amplifier takes router ports and one span only: chosen, never a default)."""
    if amplifier_id is not None:
        amp = catalog.get("dwdm", amplifier_id, key="sites.amplifier")
        assert isinstance(amp, Dwdm) and amp.kind == Layer.AMPLIFIER   # the preflight's rule
        return amp
    amps = [d for d in catalog.rows_of(Dwdm) if d.kind == Layer.AMPLIFIER and not d.pluggable]
    return min(amps, key=lambda a: a.price_usd, default=None)


def stage_gain(amp: Dwdm | None, stages: tuple[str, ...]) -> float | None:
    """What the amplifier ``stages`` standing at the ends add to a line's loss budget [dB]: the booster's gain
    and the pre-amplifier's (None: no amplifier, or a gain its row does not give).

    >>> amp = Dwdm(id="a", vendor="v", part_number="p", description="d", price_usd=1, price_source="estimate",
    ...            source="s", as_of="2026-12-06", kind="amplifier", power="75 W", rack_units=1,
    ...            booster_gain="20 dB", preamp_gain="24 dB")
    >>> stage_gain(amp, ("booster", "pre-amp")), stage_gain(amp, ("booster",)), stage_gain(amp, ("pre-amp",))
    (44.0, 20.0, 24.0)
    """
    gains = {"booster": amp.booster_gain, "pre-amp": amp.preamp_gain} if amp is not None else {}
    found = [gains.get(s) for s in stages]
    return None if any(g is None for g in found) else sum(magnitude(g, "loss") for g in found if g is not None)


def build_dci(catalog: Catalog, media: Media, *, sites: int, distance_m: float, bandwidth_gbps: float,
              wavelength_gbps: float, router_id: str, topology: DciTopology = "mesh", patch_m: float = 3.0,
              amplifier_id: str | None = None, placement: AmplifierPlacement | None = None) -> Dci:
    """``patch_m``: the run from a router's line port to its mux/demux (one rack); ``amplifier_id``:
    the scenario's amplifier row (``sites.amplifier``); ``placement``: where the scenario stands the
    amplifiers at a route's ends (``sites.amplifiers``; None: it does not say, both)."""
    if sites < 2:
        raise LimitError("scale-across needs at least two sites", key="sites.count")
    choice = media.coherent(wavelength_gbps, distance_m)
    muxes = [d for d in catalog.by_kind["dwdm"] if isinstance(d, Dwdm) and d.kind == Layer.MUX]
    amp = line_amplifier(catalog, amplifier_id)
    module = choice.option.coherent
    assert module is not None
    grid = magnitude(module.grid, "frequency")
    mux = min(muxes, key=lambda m: (abs(magnitude(m.spacing, "frequency") - grid)
                                    if m.spacing is not None else 1e9, m.price_usd), default=None)
    channels = _channels(module, mux)
    # Rates arrive through unit conversion (25.6 Tbit/s -> 25600.000000000004 Gbit/s).
    # At least one wavelength: a pair of sites is connected or it is not a site pair.
    wavelengths = max(1, math.ceil(round(bandwidth_gbps / wavelength_gbps, 9)))
    if wavelengths > MAX_WAVELENGTHS:
        raise LimitError(f"{bandwidth_gbps:,.6g} Gbit/s per site pair needs {wavelengths:,} wavelengths of "
                         f"{wavelength_gbps:g} Gbit/s, more than the {MAX_WAVELENGTHS:,} we build",
                         key="sites.dci_bandwidth",
                         hint='Check the unit of dci_bandwidth: a site pair\'s, such as dci_bandwidth: "25.6 Tbit/s".',
                         fix={("sites", "dci_bandwidth"): "25.6 Tbit/s"})
    router = catalog.get("switches", router_id, key="sites.router")
    assert isinstance(router, Switch)
    pairs = site_pairs(sites, topology)
    patch = line_patch(media, patch_m) if mux is not None else None
    loss = line_loss(module, mux, distance_m, media.pair_loss(LINE_CONNECTOR, LINE_MEDIUM))
    if amp is not None and amp.pluggable and (choice.amplified or loss.over):
        if choice.amplifiers:
            raise LimitError(f"amplifier {amp.id!r} plugs into the routers at the two ends of one span; the "
                             f"{distance_m / 1000:g} km route needs {choice.amplifiers} in-line amplifier site(s)",
                             at=("sites", "amplifier"), key="sites.amplifier",
                             hint="Drop sites.amplifier (shelf amplifiers at the in-line sites), or shorten the "
                                  "route to one span.", fix={("sites", "amplifier"): None})
        # A pluggable line system carries at most its own channels on a fibre pair.
        channels = min(channels, amp.channels or channels)
    where: AmplifierPlacement = placement or "both"
    if where != "both" and choice.amplifiers:
        raise LimitError(f"sites.amplifiers: {where} stands one amplifier stage at each end of a span, and the "
                         f"{distance_m / 1000:g} km route has {choice.amplifiers} in-line amplifier site(s): its "
                         "ends take a booster and a pre-amplifier", at=("sites", "amplifiers"), key="sites.amplifiers",
                         hint="Use amplifiers: both, or a route of one span.", fix={("sites", "amplifiers"): "both"})
    loss = replace(loss, gain_db=stage_gain(amp, END_STAGES_OF[where]), placement=placement)
    return Dci(sites, len(pairs), distance_m, bandwidth_gbps, wavelength_gbps, choice,
               channels, mux, amp, router, wavelengths,
               LINE.fibre_pairs(wavelengths, channels), choice.amplifiers, topology, pairs, patch, loss,
               placement=where)


#: Fabric switches and the DCI router when the scenario names none: catalogs/defaults.yaml, read
#: through Catalog.default_switch(fabric, layer); default topologies: bom.costing.categories.ROLES.
DEFAULT_WAVELENGTH_GBPS = 400.0


def site_dci(scenario: Scenario, cluster: Cluster, catalog: Catalog, media: Media,
         compute: Fabric | None, sizing: Sizing | None = None) -> Dci | None:
    """The DCI between the sites (None on one site) and the fabric its routers' client ports land on."""
    s = scenario.sites
    if s is None or s.count < 2:
        return None
    assert s.distance is not None   # the scenario's rule (Sites.check_joined)
    wavelength = magnitude(s.wavelength_rate, "rate") if s.wavelength_rate else DEFAULT_WAVELENGTH_GBPS
    if s.dci_auto:
        split = sizing.parallelism if sizing is not None else None
        if split is None or split.dci_gbps_needed is None:
            raise LimitError("dci_bandwidth: auto needs the workload's parallelism on the platform, and none was "
                             "worked out", at=("sites", "dci_bandwidth"), key="sites.dci_bandwidth",
                             hint='Give the workload its shape, or dci_bandwidth: "25.6 Tbit/s".')
        bandwidth = split.dci_gbps_needed
    elif s.dci_bandwidth is not None and s.dci_bandwidth != "auto":
        bandwidth = magnitude(s.dci_bandwidth, "rate")
    else:
        # One of the two (the scenario's rule), and every platform row has compute ports (the catalog's).
        assert s.dci_fraction is not None and compute is not None and compute.node_ports is not None
        per_site = min(site.nodes for site in cluster.sites) * compute.node_ports.ports * magnitude(
            compute.node_ports.rate, "rate")
        bandwidth = s.dci_fraction * per_site
    with keyed(("sites", "distance"), "sites.distance", only=LimitError):
        dci = build_dci(catalog, media, sites=s.count, distance_m=magnitude(s.distance, "length"),
                        bandwidth_gbps=bandwidth, wavelength_gbps=wavelength,
                        router_id=catalog.default(FabricRole.DCI, Layer.ROUTER),
                        topology=s.topology, patch_m=cluster.floor.in_rack_m, amplifier_id=s.amplifier,
                        placement=s.amplifiers if "amplifiers" in s.model_fields_set else None)
    attach, own = _attach(s.attach, dci, scenario, catalog, compute)
    return replace(dci, attach=attach, border=own)


#: How the protocols are written in messages.
PROTOCOLS = {"infiniband": "InfiniBand", "ethernet": "Ethernet"}


def _client_switches(scenario: Scenario, catalog: Catalog, compute: Fabric | None) -> dict[str, Switch]:
    """The switch each fabric would take the DCI routers' client ports on: the compute fabric's top
    layer, the in-band and storage fabrics' leaves (as build_pooled will choose them)."""
    out: dict[str, Switch] = {}
    if compute is not None:
        out[FabricRole.COMPUTE] = fabric_switch(catalog, DCI_CLIENT.top_id(compute.first),
                                                ("fabrics", FabricRole.COMPUTE, "switch"))
    platform = catalog.platform(scenario.platform) if scenario.platform else None
    for name in (FabricRole.INBAND, FabricRole.STORAGE):
        spec = scenario.fabric_specs.get(name)
        if spec is not None and platform is not None:
            out[name] = fabric_switch(catalog, spec.switch or support_switch(platform, name, catalog),
                                ("fabrics", name, "switch"))
    return out


def _why_not(row: Switch, dci: Dci) -> str | None:
    """Why the routers' client links cannot land on ``row`` (None: they can): both ends of a link
    speak one protocol at one rate."""
    if row.fabric_element:
        return f"{row.id} is a scheduled fabric's fabric element (its ports are cell links, none takes a router)"
    if row.protocol != dci.router.protocol:
        return f"{row.id} is {PROTOCOLS.get(row.protocol, row.protocol)}"
    try:
        switch_ports(row, dci.wavelength_gbps)
    except LimitError:
        return f"{row.id} has no {dci.wavelength_gbps:g} Gbit/s ports"
    return None


def _attach(asked: str, dci: Dci, scenario: Scenario, catalog: Catalog, compute: Fabric | None
            ) -> tuple[FabricRole, Border | None]:
    """Which fabric takes the routers' client ports: one of the routers' own protocol and rate (an
    InfiniBand fabric reaches another building through Ethernet, never a router on an IB port); where
    none can (``auto``), border leaves of the DCI's own, as the management switches get spines of
    their own where there is no in-band fabric."""
    why = {name: _why_not(row, dci) for name, row in _client_switches(scenario, catalog, compute).items()}
    proto = PROTOCOLS.get(dci.router.protocol, dci.router.protocol)
    links = f"DCI routers' {dci.wavelength_gbps:g}G {proto} client links"
    if asked != "auto":
        if why.get(asked):
            what = "the compute fabric's top layer" if asked == FabricRole.COMPUTE else f"the {asked} fabric's leaves"
            raise LimitError(f"attach: {asked} puts the {links} on {what}, and {why[asked]}: both ends of a link "
                             "speak one protocol at one rate", at=("sites", "attach"), key="sites.attach",
                             hint="Use attach: auto (an Ethernet fabric that takes them, else border leaves of "
                                  "the DCI's own).", fix={("sites", "attach"): "auto"})
        return FabricRole(asked), None
    for name in (FabricRole.COMPUTE, FabricRole.INBAND, FabricRole.STORAGE):
        if name in why and why[name] is None:
            return name, None
    reasons = "; ".join(f"{name}: {w}" for name, w in why.items())
    return FabricRole.DCI, border(catalog, dci, f"no fabric of the scenario can take the {links} ({reasons})")


def border(catalog: Catalog, dci: Dci, why: str) -> Border:
    """The DCI's own border leaves (catalogs/defaults.yaml, fabric dci, layer leaf), each taking client
    links on half its ports at the wavelength's rate: 64 x 400G on an SN5600 (32 of its 64 cages)."""
    row = fabric_switch(catalog, catalog.default(FabricRole.DCI, Layer.LEAF), ("sites", "attach"))
    refused = _why_not(row, dci)
    if refused is not None:
        raise LimitError(f"{why}, and the DCI's default border leaf cannot either: {refused}",
                         at=("sites", "attach"), key="sites.attach",
                         hint=f"Name an Ethernet switch with {dci.wavelength_gbps:g}G ports as the DCI border leaf "
                              "in a catalog overlay's defaults.yaml (fabric: dci, layer: leaf).")
    at = switch_ports(row, dci.wavelength_gbps)
    return Border(row, max(1, at.cages // 2) * at.ports_per_cage, why)
