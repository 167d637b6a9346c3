"""The model of one scenario: sizing -> cluster -> fabrics and tiers -> link groups.

Pure orchestration of the stage modules: each stage is a function from its inputs to a value, and
the :class:`~bom.model.model.Model` (frozen, in :mod:`bom.model`) is made anew as each one lands.
The writers and the BOM read the model.
"""

from __future__ import annotations

import math
from dataclasses import replace

from bom.catalog.media import Media, media_for
from bom.catalog.rows import Catalog, NicPorts, Platform, Switch
from bom.errors import BomError, LimitError
from bom.inputs.scenario import FabricSpec, Scenario
from bom.inputs.validation import located
from bom.inputs.yamlio import Located
from bom.links import registry
from bom.links.dci import DCI_CLIENT
from bom.links.line import DCI_LINE
from bom.links.views import FabricLinks
from bom.model.cluster import Cluster
from bom.model.dci import Dci
from bom.model.fabrics import Fabric, OobFabric, PooledFabric
from bom.model.floorplan import FloorPlan
from bom.model.linkgroups import LinkGroup
from bom.model.model import Model
from bom.model.placement import Placement
from bom.model.plane import NativePorts, Plane
from bom.model.roles import DEFAULT_TOPOLOGY, FabricKind
from bom.model.sizing import Sizing
from bom.placement.layout import place
from bom.topology.cluster import build_cluster, scale_up
from bom.topology.dci import build_dci, line_patch
from bom.topology.endpoints import build_endpoints
from bom.topology.geometry import floor_plan
from bom.topology.planes import name_fabric, plan, switch_ports, uplink_ports, uplink_rates
from bom.topology.support import build_oob, build_pooled, oob_link_groups, pooled_link_groups
from bom.topology.ufm import attach_ufm
from bom.units import magnitude

#: Fabric switches and the DCI router when the scenario names none: catalogs/defaults.yaml, read
#: through Catalog.default_switch(fabric, layer); default topologies: bom.costing.categories.ROLES.
DEFAULT_WAVELENGTH_GBPS = 400.0
#: Rounds of OOB switches -> racks -> PDUs -> in-band leaves before the counts must have settled.
SETTLE_ROUNDS = 6


def _nic(platform: Platform, name: str) -> NicPorts:
    nic = {"compute": platform.scale_out, "storage": platform.storage, "inband": platform.storage,
           "oob": platform.oob}[name]
    if nic is None:
        raise BomError(f"platform {platform.id!r} has no {name} network ports in the catalog",
                       at=("fabrics", name), key=f"fabrics.{name}")
    return nic


def _switch(catalog: Catalog, sid: str, path: tuple[str, ...]) -> Switch:
    try:
        row = catalog.get("switches", sid, key=".".join(path))
    except BomError as exc:
        exc.where, exc.at = None, path
        raise
    assert isinstance(row, Switch)
    return row


def _plane_for(name: str, spec: FabricSpec, platform: Platform, nic: NicPorts, nodes: int,
               leaf: Switch, spine: Switch, floor: FloorPlan, native_ok: bool = True) -> tuple[Plane, float]:
    rate = magnitude(nic.rate, "rate") / spec.planes
    leaf_ports = switch_ports(leaf, rate)
    uplinks = uplink_ports(leaf)
    sched = _scheduled(name, spec, leaf, spine)
    if sched is not None:   # the fabric ports at their finest bundle: the plan spreads them at it
        uplinks = uplink_ports(leaf, uplink_rates(leaf)[0])
    spine_ports = switch_ports(spine, uplinks.rate_gbps if uplinks else rate)
    if spec.topology == "pair" and spec.su_nodes is not None:
        raise LimitError("su_nodes has no meaning for a switch pair (two switches take every node)",
                         key=f"fabrics.{name}.su_nodes",
                         hint="Drop su_nodes, or use topology: rail-optimized for scalable units.")
    if spec.topology == "rail-only" and spec.su_nodes is not None:
        raise LimitError("su_nodes has no meaning for a rail-only fabric (a rail's leaf takes every node)",
                         key=f"fabrics.{name}.su_nodes",
                         hint="Drop su_nodes, or use topology: rail-optimized for scalable units and spines.")
    rail = spec.topology != "tor"
    group = (spec.su_nodes or platform.su_nodes) if rail else floor.nodes_per_rack
    native = (sched if native_ok else None) or _native(spec, leaf, spine, rate, uplinks is None and native_ok)
    p = plan(nodes, nic.ports, leaf_ports, spine_ports, topology=spec.topology, group_nodes=group,
             layers=None if spec.layers == "auto" else int(spec.layers),
             oversubscription=spec.leaf_ratio, gpus_per_node=platform.gpus_per_node,
             leaf_uplink=uplinks, node_blocks=platform.gpus_per_domain > platform.gpus_per_node,
             native=native, rails_per_leaf=spec.rails_per_leaf, spine_oversubscription=spec.spine_ratio,
             min_spines=spec.min_spines, scheduled=sched is not None)
    if sched is not None:
        _check_system_size(name, leaf, p)
    return p, rate


def _check_system_size(name: str, leaf: Switch, p: Plane) -> None:
    """A scheduled fabric joins at most the host ports its silicon's maker publishes (one plane of a site)."""
    most = leaf.uplinks.max_host_ports if leaf.uplinks else None
    if most is not None and p.leaves * leaf.ports > most:
        raise LimitError(f"a scheduled fabric of {leaf.id} joins at most {most:,} host ports of "
                         f"{magnitude(leaf.port_rate, 'rate'):g} Gbit/s (its silicon's published system size); this "
                         f"one needs {p.leaves:,} interface nodes, {p.leaves * leaf.ports:,} host ports",
                         key=f"fabrics.{name}.switch",
                         hint="Split the cluster over sites (each site builds its own fabric), or use an "
                              "Ethernet or InfiniBand fabric for a cluster this large.")


def _native(spec: FabricSpec, leaf: Switch, spine: Switch, rate: float, ok: bool) -> NativePorts | None:
    """Switch-to-switch links at the switches' own rate when the NIC's rate is a breakout of it and
    leaf and spine have the same cage at the same native rate (a fixed leaf under a modular chassis
    spine alike; between two kinds of cage the link keeps the NIC's rate, whose parts the media has)."""
    own = magnitude(spine.port_rate, "rate")
    if not ok or spec.uplink_rate != "native" or own <= rate or leaf.form_factor != spine.form_factor \
            or not math.isclose(own, magnitude(leaf.port_rate, "rate")):
        return None
    return NativePorts(switch_ports(leaf, own), switch_ports(spine, own))


def _scheduled(name: str, spec: FabricSpec, leaf: Switch, spine: Switch) -> NativePorts | None:
    """A scheduled fabric's native sides when the leaf is an interface node; its pairing checked: an
    interface node's fabric ports join only fabric elements, and a fabric element takes no hosts."""
    key = f"fabrics.{name}"
    if leaf.fabric_element:
        raise LimitError(f"{leaf.id} is a scheduled fabric's fabric element: its ports are cell links to interface "
                         "nodes, none takes a host", key=f"{key}.switch",
                         hint=f"Use it as {key}.spine, with an interface node (a Jericho3-AI leaf) as the switch.")
    up = leaf.uplinks
    if up is None or not up.scheduled:
        if spine.fabric_element:
            raise LimitError(f"{spine.id} is a fabric element: it joins only a scheduled fabric's interface nodes, "
                             f"and {leaf.id} is not one", key=f"{key}.spine",
                             hint="Use an Ethernet spine here, or an interface node (its fabric_element) as the "
                                  "switch.")
        return None
    if name != "compute":
        raise LimitError(f"{leaf.id} is a scheduled fabric's interface node; the tool builds a scheduled fabric as "
                         "the compute fabric", key=f"{key}.switch", hint="Use an Ethernet leaf on this fabric.")
    if not spine.fabric_element:
        raise LimitError(f"{leaf.id}'s fabric ports carry cells to fabric elements; {spine.id} is not one",
                         key=f"{key}.spine", hint=f"Drop spine (its own, {up.fabric_element}) or name a fabric "
                                                  "element row.")
    if spec.uplink_rate != "native":
        raise LimitError("uplink_rate has no meaning on a scheduled fabric: its fabric ports run at their own rate",
                         key=f"{key}.uplink_rate", hint="Drop uplink_rate on this fabric.")
    native = uplink_ports(leaf)
    assert native is not None
    return NativePorts(native, switch_ports(spine, native.rate_gbps))


def build_fabric(name: str, spec: FabricSpec, cluster: Cluster, catalog: Catalog, media: Media) -> Fabric:
    platform = cluster.platform
    nic = _nic(platform, name)
    leaf = _switch(catalog, spec.switch or (platform.default_switch if name == "compute"
                                             else catalog.default(name)), ("fabrics", name, "switch"))
    spine = _switch(catalog, spec.spine or _default_spine(catalog, name, leaf),
                    ("fabrics", name, "spine" if spec.spine else "switch"))
    shapes, rate = _site_planes(name, spec, platform, nic, cluster, leaf, spine, True)
    if len({(p.up.rate_gbps, p.spine.rate_gbps) for _, p in shapes}) > 1:
        # One fabric, one switch-to-switch rate: where some sites' pairs fill whole native ports and
        # others' do not, every site runs at the downlinks' rate (the hops count one rate per fabric).
        shapes, rate = _site_planes(name, spec, platform, nic, cluster, leaf, spine, False)
    return Fabric(name, "scale-out", spec, spec.planes, shapes, node_ports=nic, rate_gbps=rate)


def _default_spine(catalog: Catalog, name: str, leaf: Switch) -> str:
    """The spine a fabric takes when the scenario names none: a scheduled leaf's own fabric element, the
    catalog's default for a leaf with dedicated uplinks, else the leaf's model."""
    if leaf.uplinks is not None and leaf.uplinks.fabric_element:
        return leaf.uplinks.fabric_element
    return (catalog.default_switch(name, "spine") or leaf.id) if leaf.uplinks else leaf.id


def _site_planes(name: str, spec: FabricSpec, platform: Platform, nic: NicPorts, cluster: Cluster, leaf: Switch,
                 spine: Switch, native_ok: bool) -> tuple[list[tuple[int, Plane]], float]:
    shapes: list[tuple[int, Plane]] = []
    rate = 0.0
    for site in cluster.sites:
        try:
            p, rate = _plane_for(name, spec, platform, nic, site.nodes, leaf, spine, cluster.floor, native_ok)
        except LimitError as exc:
            name_fabric(exc, name)
            raise
        shapes.append((site.count, p))
    return shapes, rate


def fabric_groups(f: Fabric, media: Media, floor: FloorPlan, placement: Placement) -> Fabric:
    """The fabric with every hop's link groups, on the runs between where the placement stands
    their ends (bom/links/fabric.py: the patterns the cable plan expands too)."""
    if f.spec.media:
        media = media.restricted(tuple(f.spec.media))
    try:
        return replace(f, groups=registry.count(FabricLinks.of(f, placement), f.kind, floor, media)[0])
    except LimitError as exc:
        exc.at = exc.at or ("fabrics", f.name)
        exc.key = exc.key or f"fabrics.{f.name}"
        raise


def _dci(scenario: Scenario, cluster: Cluster, catalog: Catalog, media: Media,
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
    elif s.dci_bandwidth is not None:
        bandwidth = magnitude(s.dci_bandwidth, "rate")
    elif s.dci_fraction is not None and compute is not None and compute.node_ports is not None:
        per_site = min(site.nodes for site in cluster.sites) * compute.node_ports.ports * magnitude(
            compute.node_ports.rate, "rate")
        bandwidth = s.dci_fraction * per_site
    else:
        raise LimitError(f"dci_fraction is a fraction of the compute fabric's node bandwidth, and platform "
                         f"{cluster.platform.id!r} has no compute ports in the catalog", at=("sites", "dci_fraction"),
                         key="sites.dci_fraction", hint="Give dci_bandwidth instead.")
    try:
        dci = build_dci(catalog, media, sites=s.count, distance_m=magnitude(s.distance, "length"),
                        bandwidth_gbps=bandwidth, wavelength_gbps=wavelength,
                        router_id=catalog.default("dci", "router"),
                        topology=s.topology, patch_m=cluster.floor.in_rack_m, amplifier_id=s.amplifier)
    except LimitError as exc:
        exc.at = exc.at or ("sites", "distance")
        exc.key = exc.key or "sites.distance"
        raise
    return replace(dci, attach=_attach(s.attach, dci, scenario, catalog, compute))


#: How the protocols are written in messages.
PROTOCOLS = {"infiniband": "InfiniBand", "ethernet": "Ethernet"}


def _client_switches(scenario: Scenario, catalog: Catalog, compute: Fabric | None) -> dict[str, Switch]:
    """The switch each fabric would take the DCI routers' client ports on: the compute fabric's top
    layer, the in-band and storage fabrics' leaves (as build_pooled will choose them)."""
    out: dict[str, Switch] = {}
    if compute is not None:
        out["compute"] = _switch(catalog, DCI_CLIENT.top_id(compute.first), ("fabrics", "compute", "switch"))
    platform = catalog.platform(scenario.platform) if scenario.platform else None
    for name in ("inband", "storage"):
        spec = scenario.fabrics.get(name)
        if spec is not None and platform is not None:
            out[name] = _switch(catalog, spec.switch or support_switch(platform, name, catalog),
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


def _attach(asked: str, dci: Dci, scenario: Scenario, catalog: Catalog, compute: Fabric | None) -> str:
    """Which fabric takes the routers' client ports: one of the routers' own protocol and rate (an
    InfiniBand fabric reaches another building through Ethernet, never a router on an IB port)."""
    why = {name: _why_not(row, dci) for name, row in _client_switches(scenario, catalog, compute).items()}
    proto = PROTOCOLS.get(dci.router.protocol, dci.router.protocol)
    links = f"DCI routers' {dci.wavelength_gbps:g}G {proto} client links"
    if asked != "auto":
        if why.get(asked):
            what = "the compute fabric's top layer" if asked == "compute" else f"the {asked} fabric's leaves"
            raise LimitError(f"attach: {asked} puts the {links} on {what}, and {why[asked]}: both ends of a link "
                             "speak one protocol at one rate", at=("sites", "attach"), key="sites.attach",
                             hint=_attach_hint(proto))
        return asked
    for name in ("compute", "inband", "storage"):
        if name in why and why[name] is None:
            return name
    reasons = "; ".join(f"{name}: {w}" for name, w in why.items())
    ib = any(w and "InfiniBand" in w for w in why.values())
    raise LimitError(f"no fabric of the scenario can take the {links} ({reasons})"
                     + (f"; an InfiniBand fabric reaches another building through {proto}, on border leaves of an "
                        f"{proto} fabric" if ib else ""),
                     at=("sites",), key="sites.attach", hint=_attach_hint(proto))


def _attach_hint(proto: str) -> str:
    return (f"Add an {proto} in-band fabric with 400G ports (fabrics: {{inband: {{switch: sn5600}}}}), whose "
            f"border leaves take the routers' client ports, or use an {proto} compute switch "
            "(fabrics.compute.switch: sn5600).")


def _dci_client_groups(dci: Dci | None, model: Model, catalog: Catalog, media: Media) -> list[LinkGroup]:
    """Router client ports to the top layer of each site's compute fabric, or to the border leaves
    of the in-band or storage fabric (bom/links/dci.py)."""
    if dci is None:
        return []
    s = model.scenario.sites
    assert s is not None
    try:
        assert model.placement is not None and model.endpoints is not None
        where = registry.Where(model.placement, model.floor, model.fabrics, model.endpoints, catalog)
        return registry.count(registry.dci_view(dci, where), FabricKind.DCI, model.floor, media)[0]
    except LimitError as exc:
        key = "dci_bandwidth" if s.dci_bandwidth is not None else "dci_fraction"
        exc.at = exc.at or ("sites", key)
        raise


def nodes_per_rack(platform: Platform, scenario: Scenario) -> tuple[int, float]:
    """Nodes per compute rack (given, or as many whole systems as the rack's power holds) and the
    rack's power budget [W] (the scenario's, else the platform's)."""
    sup = platform.support
    spec = scenario.racks
    if spec.power_budget is not None:
        power, at = magnitude(spec.power_budget, "power"), ("racks", "power_budget")
    elif sup is not None:
        power, at = magnitude(sup.rack_power_budget, "power"), ()
    else:
        return scenario.layout.nodes_per_rack or platform.nodes_per_rack, 0.0
    per_system = platform.nodes_per_system
    system_w = platform.node_power_w * per_system
    limit = scenario.layout.rack_power_limit
    if limit is not None and system_w <= magnitude(limit, "power") < power:
        # The hall feeds less than the rack could take: spread the nodes (whole systems) under its feed.
        # A system over the feed cannot be spread; the design rule placement.rack_power says so.
        power, at = magnitude(limit, "power"), ("layout", "rack_power_limit")
    if system_w > power:
        what = "system" if per_system > 1 else "node"
        raise LimitError(f"the rack power budget ({power / 1000:,.1f} kW) is below one {platform.id} {what} "
                         f"({system_w / 1000:,.1f} kW)", at=at, key="racks.power_budget",
                         hint=f"Raise racks.power_budget to at least {system_w / 1000:,.1f} kW.")
    given = scenario.layout.nodes_per_rack
    if given is not None:
        if given * platform.node_power_w > power:
            raise LimitError(f"{given} {platform.id} nodes per rack draw "
                             f"{given * platform.node_power_w / 1000:,.1f} kW, "
                             f"over the rack power budget of {power / 1000:,.1f} kW",
                             at=("layout", "nodes_per_rack"), key="layout.nodes_per_rack",
                             hint="Lower layout.nodes_per_rack, leave it out, or raise "
                                  + ("layout.rack_power_limit." if at == ("layout", "rack_power_limit")
                                     else "racks.power_budget."))
        return given, power
    systems = int(power // system_w)
    u = scenario.racks.rack_units or 48
    per_u = max(1, u // max(1, platform.node_rack_units * per_system + (sup.rack_device_units if sup else 0)))
    return max(1, min(systems, per_u)) * per_system, power


def build_model(scenario: Scenario, src: Located, catalog: Catalog, sizing: Sizing | None) -> Model:
    """The whole model; an error in a stage gets its file and line in ``src`` here, and only here."""
    with located(src):
        model = _model(scenario, catalog, sizing)
    return replace(model, site_models=_site_models(model, catalog))


def _site_models(model: Model, catalog: Catalog) -> tuple[tuple[int, Model | None], ...] | None:
    """Each site shape built on its own, with how many sites have it (the order installs parts site
    by site); () for one site, None when a shape cannot stand alone (the order then gives totals)."""
    c = model.cluster
    if c.site_count == 1:
        return ()
    if len(c.sites) == 1:   # every site alike: a site is the whole less what sites do not share, over them
        return ((c.sites[0].count, None),)
    out = []
    d = model.dci
    # A site alone keeps the border leaves its DCI routers' client ports take in the whole campus.
    border = d.busiest([site.count for site in c.sites]) if d is not None and d.attach != "compute" else None
    for k, site in enumerate(c.sites):
        one = model.scenario.model_copy(update={"nodes": site.nodes, "gpus": None, "workload": None, "sites": None})
        try:
            keep = (d.attach, d.wavelength_gbps, [border[k]]) if d is not None and border else None
            out.append((site.count, _model(one, catalog, None, keep)))
        except BomError:
            return None
    return tuple(out)


def _model(scenario: Scenario, catalog: Catalog, sizing: Sizing | None,
           reserve: tuple[str, float, list[int]] | None = None) -> Model:
    """``reserve``: a site built alone (for the order's per-site quantities) keeps the ports its DCI
    routers' client links take on that fabric's border leaves."""
    if scenario.platform is None:
        raise BomError("a build needs a platform", at=(), key="platform",
                       hint=f"Add platform: one of {', '.join(sorted(catalog.rows['platforms']))}.")
    try:
        platform = catalog.platform(scenario.platform)
    except BomError as exc:
        exc.where, exc.at = None, ("platform",)
        raise
    npr, rack_power = nodes_per_rack(platform, scenario)
    try:
        floor = floor_plan(platform, scenario.layout.model_copy(update={"nodes_per_rack": npr}))
    except BomError as exc:
        exc.where, exc.at = None, ("layout",)
        raise
    gpus = sizing.gpus if sizing else scenario.gpus
    sites = scenario.sites.count if scenario.sites else 1
    split = tuple(scenario.sites.split) if scenario.sites and scenario.sites.split else None
    cluster = build_cluster(platform, floor, gpus=gpus, nodes=scenario.nodes, sites=sites, split=split)
    media = media_for(catalog)
    specs = dict(scenario.fabrics) or {"compute": FabricSpec()}
    specs.setdefault("compute", FabricSpec())
    fabrics: dict[str, Fabric] = {"compute": build_fabric("compute", specs["compute"], cluster, catalog, media)}
    endpoints = build_endpoints(scenario, catalog, platform,
                                _switch(catalog, fabrics["compute"].first.leaf.id,
                                        ("fabrics", "compute", "switch")).protocol, cluster.site_count,
                                max(s.nodes for s in cluster.sites), cluster.gpus)
    model = Model(scenario, platform, sizing, cluster, floor, scale_up(cluster), fabrics, None, [],
                  endpoints=endpoints, rack_power_w=rack_power)
    dci = _dci(scenario, cluster, catalog, media, fabrics.get("compute"), sizing)
    border = ((dci.attach, dci.wavelength_gbps, dci.busiest([site.count for site in cluster.sites]))
              if dci is not None else reserve)
    # The DCI equipment stands in each site's own racks: the placement needs it.
    model = _support_fabrics(replace(model, dci=dci), specs, catalog, media, border)
    assert model.placement is not None
    # The link groups once every device stands somewhere: each run is the route between two racks.
    model = with_fabric(model, fabric_groups(model.fabrics["compute"], media, floor, model.placement))
    for f in list(model.fabrics.values()):
        if isinstance(f, PooledFabric):
            model = with_fabric(model, pooled_link_groups(f, model, media))
        elif isinstance(f, OobFabric):
            model = with_fabric(model, oob_link_groups(f, model, catalog, media))
    model = with_fabric(model, attach_ufm(model, media))
    if dci is not None and dci.mux is not None and model.placement is not None:
        # The line ports' patch cords reach the mux/demuxes where the site's own racks stand them.
        dci = replace(dci, patch=line_patch(media, DCI_LINE.patch_m(dci, model.placement, floor)))
        model = replace(model, dci=dci)
    return replace(model, dci_groups=_dci_client_groups(dci, model, catalog, media))


def with_fabric(model: Model, fabric: Fabric | None) -> Model:
    """The model with ``fabric`` added or put in place of the one of its name (None: unchanged)."""
    return model if fabric is None else replace(model, fabrics={**model.fabrics, fabric.name: fabric})


def support_switch(platform: Platform, name: str, catalog: Catalog) -> str:
    """A non-compute fabric's switch: the platform's RA choice, else the catalog's default."""
    sup = platform.support
    return (sup.switches.get(name) if sup else None) or catalog.default(name)  # type: ignore[call-overload]


def _support_fabrics(model: Model, specs: dict[str, FabricSpec], catalog: Catalog, media: Media,
                     border: tuple[str, float, list[int]] | None = None) -> Model:
    """Storage and in-band by their ports (``border``: the fabric that takes the DCI routers' client
    links, their rate, and how many a site of each shape brings); then the placement, and
    out-of-band on what it holds."""
    pooled: dict[str, tuple[FabricSpec, Switch, Switch]] = {}
    borders = {border[0]: (border[1], border[2])} if border is not None else {}
    for name in ("storage", "inband"):
        if name in specs:
            spec = specs[name]
            if "topology" not in spec.model_fields_set:
                spec = spec.model_copy(update={"topology": DEFAULT_TOPOLOGY[name]})
            leaf = _switch(catalog, spec.switch or support_switch(model.platform, name, catalog),
                           ("fabrics", name, "switch"))
            spine = _switch(catalog, spec.spine or _default_spine(catalog, name, leaf),
                            ("fabrics", name, "spine" if spec.spine else "switch"))
            _scheduled(name, spec, leaf, spine)   # refused here: scheduled fabrics are built as compute
            pooled[name] = (spec, leaf, spine)
            model = with_fabric(model, build_pooled(name, spec, model, catalog, media, leaf, spine,
                                                    border=borders.get(name)))
    model = replace(model, placement=place(model, catalog))
    if "oob" not in specs:
        return model
    spec = specs["oob"]
    leaf = _switch(catalog, spec.switch or support_switch(model.platform, "oob", catalog),
                   ("fabrics", "oob", "switch"))
    _scheduled("oob", spec, leaf, leaf)
    if spec.uplinks is None and "inband" not in specs:
        # No in-band network for the uplinks to land on: the management network's own spines join
        # its switches (else they would end at a site network the BOM does not hold).
        built = _settle_oob(model, spec.model_copy(update={"uplinks": "spine"}), leaf, catalog, media, pooled,
                            borders)
        oob = built.fabrics["oob"]
        assert isinstance(oob, OobFabric)
        return with_fabric(built, replace(oob, note=(
            f"fabrics.oob: the scenario builds no in-band fabric for the management switches' uplinks, so they "
            f"uplink to OOB spines of their own ({oob.spine_id}). Add fabrics.inband to land them on its leaves, "
            "or set fabrics.oob.uplinks: spine to say so.")))
    built = _settle_oob(model, spec, leaf, catalog, media, pooled, borders)
    inband = built.fabrics.get("inband")
    oob = built.fabrics["oob"]
    if spec.uplinks is not None or not isinstance(oob, OobFabric) or not oob.into_inband \
            or not isinstance(inband, PooledFabric):
        return built
    # The uplinks' runs are known once the placement stands the switches: count them to see.
    cross = pooled_link_groups(inband, built, media).substitutions.get("oob")
    if cross is None:
        return built
    # No catalog part joins the management switches' uplinks to the in-band leaves' cages over the
    # runs between them (100G QSFP28 across rows into an 800G OSFP leaf): the OOB network gets its
    # own spines, as `uplinks: spine` asks, rather than a BOM whose uplinks cannot be cabled.
    built = _settle_oob(model, spec.model_copy(update={"uplinks": "spine"}), leaf, catalog, media, pooled, borders)
    oob = built.fabrics["oob"]
    assert isinstance(oob, OobFabric)
    note = (f"fabrics.oob: the management switches uplink to OOB spines of their own ({oob.spine_id}), not into "
            f"the in-band leaves: no catalog part joins the two ({cross.split('; counted as')[0]}). Set "
            "fabrics.oob.uplinks: inband to count them as the in-band nodes' ports anyway, or add the part to a "
            "catalog overlay.")
    return with_fabric(built, replace(oob, note=note))


def _settle_oob(model: Model, spec: FabricSpec, leaf: Switch, catalog: Catalog, media: Media,
                pooled: dict[str, tuple[FabricSpec, Switch, Switch]],
                borders: dict[str, tuple[float, list[int]]]) -> Model:
    """The out-of-band fabric on ``model``'s placement, the in-band leaves rebuilt for its uplinks."""
    spine = _switch(catalog, spec.spine or catalog.default("oob", "spine"), ("fabrics", "oob", "spine")) \
        if spec.uplinks == "spine" else None
    # Management switches add racks only rarely (and racks add PDUs), and their uplinks add in-band
    # leaf ports (and so perhaps in-band leaves to manage): settle in a few rounds.
    seen: tuple[int, ...] = ()
    for _ in range(SETTLE_ROUNDS):
        assert model.placement is not None
        oob = build_oob(spec, model, model.placement, catalog, media, leaf, spine)
        model = with_fabric(model, oob)
        if oob.into_inband:
            ib_spec, ib_leaf, ib_spine = pooled["inband"]
            model = with_fabric(model, build_pooled("inband", ib_spec, model, catalog, media, ib_leaf, ib_spine,
                                                    oob_uplinks=(oob.uplink_ports(leaf), oob.site_leaves),
                                                    border=borders.get("inband")))
        model = replace(model, placement=place(model, catalog))
        state = (oob.leaves, model.fabrics["inband"].switches("leaf") if "inband" in model.fabrics else 0)
        if state == seen:
            return model
        seen = state
    # Counts that still move after every round would leave a BOM of whichever round came last.
    raise BomError(f"the management switches and the in-band leaves did not settle in {SETTLE_ROUNDS} rounds "
                   f"(last: {seen[0]} management switches, {seen[1]} in-band leaves): a bug, please report the "
                   "scenario", at=("fabrics", "oob"), key="fabrics.oob")
