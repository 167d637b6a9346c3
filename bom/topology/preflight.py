"""The scenario's rules that need the catalog, checked once before any stage runs.

Every id the scenario names (or its platform leaves to the catalog's defaults) is a row of its kind, and
what the scenario asks of those rows they have: the rack's power holds a system, a fabric's switches pair
as its topology needs (a scheduled fabric's interface nodes under fabric elements, and only on the
compute fabric), the node has ports on every fabric built, a rail leaf takes a whole share of the node's
rails, the storage appliance has the ports and figures its block sizes it by, the amplifier is one.

The other rules live elsewhere, by what they need: the scenario alone, its validators
(:mod:`bom.inputs.scenario`); a count only the planner knows (a fabric too large for its switches, a
leaf group that must divide the compute block), the stage that counts it. So a stage meets only a
scenario these rules let through, and says so with an ``assert`` where it relies on one.

:func:`check` looks at everything before it refuses: each problem keeps its own key, path and hint,
and several are raised as one :class:`~bom.errors.MultiError` naming them all (a lone one as it is), so one
run lists every fix. :func:`bom.pipeline.build_scenario` runs it before the sizing and the build.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager

from bom.catalog.rows import DEFAULT_PLATFORM, Catalog, Coherent, Dwdm, Endpoint, NicPorts, Platform, Row, Switch
from bom.errors import BomError, Fix, LimitError, keyed, one_error
from bom.inputs.scenario import FabricSpec, Scenario
from bom.model.placement import RackType
from bom.roles import FabricRole, Layer, RackKind
from bom.topology.fabrics import default_spine, support_switch
from bom.topology.geometry import RAISE_LIMIT, binding, over_limits, rack_budget, rack_share
from bom.topology.planes import port_rates, uplink_rates
from bom.units import magnitude


class _Found:
    """The problems found so far; each check runs inside :meth:`at` and the look goes on after it fails."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.problems: list[BomError] = []

    @contextmanager
    def at(self, at: tuple[str, ...], relocate: bool = False) -> Iterator[None]:
        """An error raised inside is kept, named at ``at`` (``relocate``: a catalog lookup's, whose own file
        and line are the catalog's, not the scenario's)."""
        try:
            with keyed(at, relocate=relocate):
                yield
        except BomError as exc:
            self.problems.append(exc)

    def add(self, exc: BomError) -> None:
        self.problems.append(exc)

    def row(self, kind: str, rid: str | None, at: tuple[str, ...]) -> Row | None:
        """The catalog row ``rid`` of ``kind``, named by the scenario at ``at`` (None: no id, or not a row)."""
        if rid is None:
            return None
        found: Row | None = None
        with self.at(at, relocate=True):
            found = self.catalog.get(kind, rid, key=".".join(at))
        return found


def check(scenario: Scenario, catalog: Catalog) -> None:
    """Every rule of this module on ``scenario``; every problem found raised at once."""
    found = _Found(catalog)
    _scenario(found, scenario)
    if found.problems:
        raise one_error(found.problems)


def _scenario(found: _Found, scenario: Scenario) -> None:
    """The rules in the order the stages would have met them: the platform, its racks, the compute fabric,
    the endpoints, the DCI, the storage and in-band fabrics, the placement's rack rows, out-of-band."""
    catalog = found.catalog
    if scenario.platform is None:
        known = sorted(catalog.rows["platforms"])
        pick = DEFAULT_PLATFORM if DEFAULT_PLATFORM in known else known[0]
        found.add(BomError("a build needs a platform", at=(), key="platform",
                           hint=f"Add platform: {pick} (or one of {', '.join(k for k in known if k != pick)}).",
                           fix={("platform",): pick}))
        return
    platform = found.row("platforms", scenario.platform, ("platform",))
    if not isinstance(platform, Platform):
        return
    _racks(found, scenario, platform)
    specs = scenario.fabric_specs or {FabricRole.COMPUTE: FabricSpec()}
    specs.setdefault(FabricRole.COMPUTE, FabricSpec())
    _compute(found, specs[FabricRole.COMPUTE], platform)
    _endpoints(found, scenario, platform)
    _dci(found, scenario)
    _wavelength(found, scenario)
    for name in (FabricRole.STORAGE, FabricRole.INBAND):
        if name in specs:
            _pooled(found, name, specs[name], platform)
    if platform.support is None:
        found.add(LimitError(f"platform {platform.id!r} has no support row (racks, PDUs) in the catalog",
                             key="platform"))
    if FabricRole.OOB in specs:
        _oob(found, specs[FabricRole.OOB], platform, FabricRole.INBAND in specs)


def _racks(found: _Found, scenario: Scenario, platform: Platform) -> None:
    """A compute rack's power budget holds one whole system, and the nodes per rack the layout gives."""
    budget = rack_budget(platform, scenario)
    if budget is None:
        return
    power, at = budget
    per_system = rack_share(platform)
    system_w = platform.node_power_w * per_system
    given = scenario.layout.nodes_per_rack
    if given is not None and platform.racks_per_system > 1 and given != per_system:
        found.add(LimitError(f"a {platform.id} system stands in {platform.racks_per_system} racks of "
                             f"{per_system} nodes each (its scale-up domain is cabled rack to rack), not "
                             f"{given} nodes a rack", at=("layout", "nodes_per_rack"), key="layout.nodes_per_rack",
                             hint=f"Drop layout.nodes_per_rack, or set it to {per_system}.",
                             fix={("layout", "nodes_per_rack"): None}))
    if system_w > power:
        what = ("rack of a system" if platform.racks_per_system > 1 else "system") if per_system > 1 else "node"
        least = _least_budget(found.catalog, platform, system_w)
        found.add(LimitError(f"the rack power budget ({power / 1000:,.1f} kW) is below one {platform.id} {what} "
                             f"({system_w / 1000:,.1f} kW)", at=at, key="racks.power_budget",
                             hint=f"Raise racks.power_budget to at least {least}.",
                             fix={("racks", "power_budget"): least}))
    elif given is not None and given * platform.node_power_w > power:
        # The height is checked here too (the rack's U as the build takes it), so a rack over both budgets
        # names both; one over its height alone is the placement's to say, with the rack row's own U
        # (bom/placement/racks.py).
        sup = platform.support
        trays = sup.rack_device_units // platform.racks_per_system if sup else 0   # a rack's share of them
        height = given * platform.node_rack_units + -(-given // per_system) * trays
        rack = RackType(sup.rack if sup else RackKind.COMPUTE, scenario.racks.rack_units or 48, power)
        limits = binding(rack, height, given * platform.node_power_w)
        lift = {**RAISE_LIMIT, "power": "layout.rack_power_limit" if at == ("layout", "rack_power_limit")
                else RAISE_LIMIT["power"]}
        found.add(LimitError(f"{given} {platform.id} nodes per rack ({platform.node_rack_units}U, "
                             f"{platform.node_power_w / 1000:,.1f} kW each) do not fit one compute rack: "
                             f"{over_limits(rack, height, given * platform.node_power_w)}",
                             at=("layout", "nodes_per_rack"), key="layout.nodes_per_rack",
                             hint="Leave layout.nodes_per_rack out (the rack's budgets give it), lower it, or raise "
                                  + " and ".join(lift[k] for k in limits) + ".",
                             fix={("layout", "nodes_per_rack"): None}))


def _least_budget(catalog: Catalog, platform: Platform, system_w: float) -> str:
    """The rack budget that holds one system and the draw of the PDUs that budget needs (the placement
    counts both: bom/placement/layout.py ``with_pdus``), rounded up to 0.1 kW."""
    sup = platform.support
    pdu = catalog.rows["endpoints"].get(sup.pdu) if sup else None
    budget = system_w
    if isinstance(pdu, Endpoint) and pdu.power_capacity is not None:
        draw, capacity = magnitude(pdu.power, "power"), magnitude(pdu.power_capacity, "power")
        for _ in range(3):   # more budget may need another PDU pair: settles in one or two rounds
            budget = system_w + draw * 2 * math.ceil(budget / capacity)
    return f"{math.ceil(budget / 100) / 10:g} kW"


def _switches(found: _Found, name: str, spec: FabricSpec, leaf_id: str) -> tuple[Switch | None, Switch | None]:
    """A fabric's leaf and spine rows (the spine the leaf's default when the scenario names none)."""
    leaf = found.row("switches", leaf_id, ("fabrics", name, "switch"))
    leaf = leaf if isinstance(leaf, Switch) else None
    spine_id = spec.spine or (default_spine(found.catalog, name, leaf) if leaf is not None else None)
    spine = found.row("switches", spine_id, at=("fabrics", name, Layer.SPINE if spec.spine else "switch"))
    return leaf, spine if isinstance(spine, Switch) else None


def _compute(found: _Found, spec: FabricSpec, platform: Platform) -> None:
    """The compute fabric's switches, and what its topology asks of them and of the node's ports."""
    at = ("fabrics", FabricRole.COMPUTE)
    leaf, spine = _switches(found, FabricRole.COMPUTE, spec, spec.switch or platform.default_switch)
    if leaf is not None and spine is not None and _check_scheduled(found, FabricRole.COMPUTE, spec, leaf, spine):
        _scheduled_shape(found, spec)
    elif leaf is not None and spine is not None:
        _uplink_rate(found, FabricRole.COMPUTE, spec, leaf, spine, platform.scale_out)
    node_ports = platform.scale_out.ports
    if spec.planes_by == "port" and node_ports % spec.planes:
        fewer = max(d for d in range(1, spec.planes) if node_ports % d == 0)   # the planes the ports deal over
        found.add(LimitError(f"planes_by: port deals each NIC's ports over the {spec.planes} planes, and a "
                             f"{platform.id} node has {node_ports} compute ports (not NICs of {spec.planes})",
                             at=(*at, "planes_by"), key="fabrics.compute.planes_by",
                             hint="Drop planes_by (each port split over the planes), or use planes: a divisor of "
                                  f"{node_ports}" + (f" (planes: {fewer})." if fewer > 1 else "."),
                             fix={(*at, "planes"): fewer} if fewer > 1 else {(*at, "planes_by"): None}))
        return
    node_ports = node_ports * spec.port_split // spec.planes   # a node's ports in each plane
    rails = spec.rails_per_leaf
    # The planner's order: a switch pair takes no rails_per_leaf (it is read on rail fabrics only).
    if spec.topology in ("rail-optimized", "rail-only") and rails is not None:
        if platform.gpus_per_domain > platform.gpus_per_node:
            found.add(LimitError("rails_per_leaf has no meaning on a rack-scale platform: each leaf takes every port "
                                 "of whole trays", at=(*at, "rails_per_leaf"), key="fabrics.compute.rails_per_leaf",
                                 hint="Drop rails_per_leaf.", fix={(*at, "rails_per_leaf"): None}))
        elif rails > node_ports or node_ports % rails:
            found.add(LimitError(f"rails_per_leaf {rails} must divide the {node_ports} rails of a node (each leaf "
                                 "takes the same number of rails)", at=(*at, "rails_per_leaf"),
                                 key="fabrics.compute.rails_per_leaf",
                                 hint=f"Use a divisor of {node_ports}: rails_per_leaf: 1 is a leaf per rail.",
                                 fix={(*at, "rails_per_leaf"): 1}))
    if spec.topology == "pair" and node_ports % 2 and node_ports != 1:
        found.add(LimitError(f"a switch pair takes half of every node's ports; this node has {node_ports}",
                             at=(*at, "topology"), key="fabrics.compute.topology",
                             hint="Use topology: rail-optimized or tor for an odd number of ports.",
                             fix={(*at, "topology"): "rail-optimized"}))


def _check_scheduled(found: _Found, name: str, spec: FabricSpec, leaf: Switch, spine: Switch) -> bool:
    """Whether the fabric is a scheduled one (its leaf an interface node), its pairing checked: an interface
    node's fabric ports join only fabric elements, a fabric element takes no hosts, and the tool builds a
    scheduled fabric as the compute fabric."""
    key = f"fabrics.{name}"
    n = len(found.problems)

    def refuse(message: str, sub: str, hint: str, fix: Fix) -> None:
        found.add(LimitError(message, at=("fabrics", name, sub), key=f"{key}.{sub}", hint=hint, fix=fix))

    at = ("fabrics", name)
    up = leaf.uplinks
    if leaf.fabric_element:
        iface = next((s.id for s in found.catalog.rows_of(Switch)
                      if s.uplinks is not None and s.uplinks.scheduled and s.uplinks.fabric_element == leaf.id), None)
        refuse(f"{leaf.id} is a scheduled fabric's fabric element: its ports are cell links to interface nodes, "
               "none takes a host", "switch",
               f"Use it as {key}.spine (spine: {leaf.id}), with its interface node as the switch (switch: {iface}).",
               {(*at, Layer.SPINE): leaf.id, (*at, "switch"): iface})
    elif up is None or not up.scheduled:
        if spine.fabric_element:
            refuse(f"{spine.id} is a fabric element: it joins only a scheduled fabric's interface nodes, and "
                   f"{leaf.id} is not one", Layer.SPINE,
                   "Drop spine (the switch's own), or name as the switch an interface node whose fabric element "
                   "it is.", {(*at, Layer.SPINE): None})
        return False
    elif name != FabricRole.COMPUTE:
        refuse(f"{leaf.id} is a scheduled fabric's interface node; the tool builds a scheduled fabric as the compute "
               "fabric", "switch", "Drop switch here (the platform's own for this fabric), or name an Ethernet leaf.",
               {(*at, "switch"): None})
    elif not spine.fabric_element:
        refuse(f"{leaf.id}'s fabric ports carry cells to fabric elements; {spine.id} is not one", Layer.SPINE,
               f"Drop spine (its own, {up.fabric_element}) or name a fabric element row.", {(*at, Layer.SPINE): None})
    elif spec.uplink_rate != "native":
        refuse("uplink_rate has no meaning on a scheduled fabric: its fabric ports run at their own rate",
               "uplink_rate", "Drop uplink_rate on this fabric.", {(*at, "uplink_rate"): None})
    return len(found.problems) == n


def _uplink_rate(found: _Found, name: str, spec: FabricSpec, leaf: Switch, spine: Switch, nic: NicPorts) -> None:
    """A switch-to-switch rate the scenario states: both switches have ports at it (their own, a breakout of
    their cages, or a leaf's dedicated uplinks), and it is not below the nodes' rate (each uplink carries
    whole downlinks)."""
    asked = spec.uplink_gbps
    if asked is None or leaf.fabric_element or spine.fabric_element or (leaf.uplinks and leaf.uplinks.scheduled):
        return   # a scheduled fabric's refusal is _check_scheduled's
    at, key = ("fabrics", name, "uplink_rate"), f"fabrics.{name}.uplink_rate"
    rate = magnitude(nic.rate, "rate") / spec.port_split
    if asked < rate and not math.isclose(asked, rate):
        found.add(LimitError(f"uplink_rate {asked:g}G is below the nodes' {rate:g}G on the {name} fabric: an uplink "
                             "carries whole downlinks", at=at, key=key,
                             hint="Use uplink_rate: native or downlink, or a rate at least the nodes'.",
                             fix={at: "native"}))
        return
    leaf_rates = uplink_rates(leaf) if leaf.uplinks is not None else port_rates(leaf)
    where = "dedicated uplinks" if leaf.uplinks is not None else "ports"
    for row, rates, what in ((leaf, leaf_rates, where), (spine, port_rates(spine), "ports")):
        if not any(math.isclose(asked, r) for r in rates):
            fits = [f"{r:g}G" for r in sorted(set(leaf_rates) & set(port_rates(spine)), reverse=True)
                    if r >= rate or math.isclose(r, rate)]
            found.add(LimitError(f"uplink_rate {asked:g}G: {row.id}'s {what} run at "
                                 f"{', '.join(f'{r:g}' for r in rates)} Gbit/s, not {asked:g}", at=at, key=key,
                                 hint="Use uplink_rate: native" + (f", or one of {', '.join(fits)}" if fits else "")
                                      + ".", fix={at: "native"}))
            return


def _scheduled_shape(found: _Found, spec: FabricSpec) -> None:
    """A scheduled fabric's interface nodes cable every fabric port and switch through fabric elements."""
    at = ("fabrics", FabricRole.COMPUTE)
    if spec.topology in ("pair", "rail-only"):
        found.add(LimitError(f"topology {spec.topology} has no spine layer, and a scheduled fabric's interface nodes "
                             "reach each other only through its fabric elements", at=(*at, "topology"),
                             key="fabrics.compute.topology", hint="Use topology: rail-optimized or tor.",
                             fix={(*at, "topology"): "rail-optimized"}))
    elif spec.leaf_ratio != 1:
        found.add(LimitError("a scheduled fabric's interface node cables all its fabric ports (cells are sprayed over "
                             "every one; their surplus over the host ports is the fabric's speedup), so a leaf ratio "
                             "has no meaning", at=(*at, "oversubscription"), key="fabrics.compute.oversubscription",
                             hint="Drop oversubscription on this fabric.", fix={(*at, "oversubscription"): None}))
    elif spec.layers == 1:
        found.add(LimitError("a scheduled fabric's interface nodes reach each other only through fabric elements: "
                             "it has two layers (one stage of fabric elements) or three (two stages)",
                             at=(*at, "layers"), key="fabrics.compute.layers", hint="Use layers: auto, 2 or 3.",
                             fix={(*at, "layers"): "auto"}))


def _pooled(found: _Found, name: str, spec: FabricSpec, platform: Platform) -> None:
    """A storage or in-band fabric: its switches (no scheduled fabric), and the node's ports on it."""
    leaf, spine = _switches(found, name, spec, spec.switch or support_switch(platform, name, found.catalog))
    ports: dict[str, NicPorts | None] = {FabricRole.STORAGE: platform.storage, FabricRole.INBAND: platform.inband}
    if leaf is not None and spine is not None and not _check_scheduled(found, name, spec, leaf, spine):
        nic = ports[name]
        if nic is not None:
            _uplink_rate(found, name, spec, leaf, spine, nic)
    if ports[name] is None:
        # A limit of the platform, not a typo: a comparison leaves the fabric out with this note.
        found.add(LimitError(f"platform {platform.id!r} has no {name} ports in the catalog", at=("fabrics", name),
                             key=f"fabrics.{name}",
                             hint=f"Drop fabrics.{name}, or add an {name} port entry to the platform row (a catalog "
                                  "overlay).", fix={("fabrics", name): None}))


def _oob(found: _Found, spec: FabricSpec, platform: Platform, inband: bool) -> None:
    """The management switches, and the OOB spines where they uplink to spines of their own."""
    leaf = found.row("switches", spec.switch or support_switch(platform, FabricRole.OOB, found.catalog),
                     at=("fabrics", FabricRole.OOB, "switch"))
    if isinstance(leaf, Switch):
        _check_scheduled(found, FabricRole.OOB, spec, leaf, leaf)
    if spec.uplinks == Layer.SPINE or not inband:   # no in-band fabric to land on: spines of their own
        spine = spec.spine or found.catalog.default(FabricRole.OOB, Layer.SPINE)
        found.row("switches", spine, at=("fabrics", FabricRole.OOB, Layer.SPINE))


def _endpoints(found: _Found, scenario: Scenario, platform: Platform) -> None:
    """The fabric managers, management servers and storage appliances the scenario or its platform names,
    and what the storage block sizes them by."""
    sup = platform.support
    m = scenario.management
    found.row("endpoints", m.ufm if m and m.ufm else (sup.ufm if sup else None), at=("management", "ufm"))
    found.row("endpoints", m.server if m and m.server else (sup.mgmt if sup else None), ("management", "server"))
    s = scenario.storage
    if s is None:
        if FabricRole.STORAGE in scenario.fabrics:
            _ra_storage(found, platform)
        return
    rid = s.appliance or (sup.storage if sup else None)
    if rid is None:
        found.add(BomError("the storage block needs an appliance (a catalog endpoints row)", at=("storage",),
                           key="storage.appliance"))
        return
    row = found.row("endpoints", rid, at=("storage", "appliance"))
    if not isinstance(row, Endpoint):
        return
    base = row.ports.storage
    ports = s.ports if s.ports is not None else base.ports if base is not None else None
    if base is None and (s.ports is None) != (s.rate is None):   # the block's ports and rate stand in for the row's
        found.add(BomError(f"appliance {row.id!r} has no storage ports in the catalog; give both ports and rate",
                           at=("storage",), key="storage.ports"))
    elif ports is None or ports < 1:
        own = base.ports if base is not None and base.ports >= 1 else None
        found.add(LimitError(f"storage appliance {row.id!r} has no storage-fabric ports", at=("storage", "ports"),
                             key="storage.ports",
                             hint=f"Leave storage.ports out (the appliance's own {own})." if own else
                                  "Give storage.ports: 1 or more (ports per appliance), or another appliance.",
                             fix={("storage", "ports"): None if own else 1}))
    if s.count is not None:
        return
    # No count: the capacity and throughput given size it, else the training job's capacity does.
    sizing = [k for k in ("capacity", "throughput") if getattr(s, k) is not None] or ["capacity"]
    for key in sizing:
        if getattr(row, key) is None:
            found.add(BomError(f"appliance {row.id!r} has no {key} in the catalog, so a {key} cannot size it",
                               at=("storage", key), key=f"storage.{key}", hint="Give storage.count: 8 (appliances).",
                               fix={("storage", "count"): 8}))


def _ra_storage(found: _Found, platform: Platform) -> None:
    """A storage fabric with no storage block takes the platform RA's appliance, sized by its throughput."""
    sup = platform.support
    rid = sup.storage if sup else None
    row = found.row("endpoints", rid, at=("fabrics", FabricRole.STORAGE))
    if rid is not None and not isinstance(row, Endpoint):
        return   # not an endpoints row: said
    if not isinstance(row, Endpoint) or row.throughput is None or row.ports.storage is None:
        lack = "throughput" if isinstance(row, Endpoint) and row.throughput is None else "storage ports"
        what = (" names no storage appliance" if row is None
                else f"'s storage appliance {row.id!r} has no {lack} in the catalog to size it by")
        found.add(LimitError(f"fabrics.storage carries no storage: the scenario has no storage block and platform "
                             f"{platform.id!r}{what}", at=("fabrics", "storage"),
                             key="storage", hint="Drop fabrics.storage, or add a storage block: storage: {appliance: "
                                                 "<an endpoints row>, count: 8} (or capacity and throughput).",
                             fix={("fabrics", "storage"): None}))


def _wavelength(found: _Found, scenario: Scenario) -> None:
    """The DCI router has ports at the wavelength's rate: each wavelength comes from a line pluggable in
    one of its cages and reaches a fabric over a client port of its at that rate."""
    s = scenario.sites
    if s is None or s.wavelength_rate is None or s.count < 2:
        return
    rate = magnitude(s.wavelength_rate, "rate")
    router = found.row("switches", found.catalog.default(FabricRole.DCI, Layer.ROUTER), at=("sites", "wavelength_rate"))
    if not isinstance(router, Switch) or any(math.isclose(r, rate) for r in port_rates(router)):
        return
    lit = {magnitude(c.rate, "rate") for c in found.catalog.rows_of(Coherent)}
    works = sorted((r for r in set(port_rates(router)) if r in lit), reverse=True)
    rates = ", ".join(f"{r:g}" for r in dict.fromkeys(port_rates(router)))
    found.add(LimitError(f"wavelength_rate {rate:g} Gbit/s: the DCI router {router.id} (catalogs/defaults.yaml, "
                         f"dci-router) has no {rate:g} Gbit/s port for the wavelength's line pluggable or its "
                         f"client link to a fabric (its ports run at {rates} Gbit/s)",
                         at=("sites", "wavelength_rate"), key="sites.wavelength_rate",
                         hint=(f"Use {works[0]:g} Gbit/s wavelengths (wavelength_rate: {works[0]:g} Gbit/s), the "
                               f"router's client rate; or give a catalog overlay whose dci-router default has "
                               f"{rate:g}G ports." if works else
                               f"Give a catalog overlay whose dci-router default has {rate:g}G ports."),
                         fix={("sites", "wavelength_rate"): f"{works[0]:g} Gbit/s"} if works else None))


def _dci(found: _Found, scenario: Scenario) -> None:
    """The line amplifier the scenario names, where sites are joined (or may be, by their power)."""
    s = scenario.sites
    if s is None or s.amplifier is None or not (s.count > 1 or s.from_power):
        return
    amp = found.row("dwdm", s.amplifier, at=("sites", "amplifier"))
    if amp is not None and (not isinstance(amp, Dwdm) or amp.kind != Layer.AMPLIFIER):
        found.add(BomError(f"dwdm row {s.amplifier!r} is a {getattr(amp, 'kind', '')}, not an amplifier",
                           at=("sites", "amplifier"), key="sites.amplifier",
                           hint="Name a dwdm row of kind amplifier, such as ncs1001-edfa or qdd-ols.",
                           fix={("sites", "amplifier"): "ncs1001-edfa"}))
    elif isinstance(amp, Dwdm) and amp.stages == 2 and s.amplifiers != "both":
        found.add(LimitError(f"sites.amplifiers: {s.amplifiers} stands one amplifier stage at each end, and {amp.id} "
                             "holds the booster and the pre-amplifier of an end in one unit",
                             at=("sites", "amplifiers"), key="sites.amplifiers",
                             hint="Drop sites.amplifiers (both), or name a single-stage amplifier such as "
                                  "ncs1001-edfa.", fix={("sites", "amplifiers"): None}))
