"""BOM lines: one line per part and place (tier, fabric, hop), with price, power and sources.

Lines of the same part in different places stay separate; totals add them up. Unit prices
come from the catalog row (or its sold length); every line keeps its row's source and its
price's source, so a report can say which prices are estimates and which are quotes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from typing_extensions import TypedDict

from bom.catalog.rows import Cable, Catalog, Coherent, Dwdm, Fibre, Module, Platform, PowerCord, Row, Switch
from bom.costing.categories import Category, LineTier
from bom.costing.cooling import size_cooling
from bom.model.cluster import ScaleUp
from bom.model.dci import DARK_FIBRE_SKU, Dci
from bom.model.fabrics import Fabric
from bom.model.hops import HopKind
from bom.model.linkgroups import LinkGroup
from bom.model.model import Model
from bom.model.records import Amount
from bom.roles import FabricKind, FabricRole, Layer, Tier
from bom.units import magnitude


class LineJson(TypedDict):
    """One BOM line. unit_power_w is the unit's typical draw (the energy cost's basis), unit_power_max_w its
    maximum (facility sizing); they differ where a catalog row publishes both (a platform's power_typical
    and power_per_system). unit_price_low_usd / unit_price_high_usd: the row's published price range
    (null: none), unit_price_range_source where each end is published."""

    sku: str
    catalog_id: str
    description: str
    category: Category
    tier: Tier | LineTier
    fabric: str
    hop: str
    quantity: Amount
    unit: str
    unit_price_usd: float
    unit_power_w: float
    unit_power_max_w: float
    unit_price_low_usd: float | None
    unit_price_high_usd: float | None
    unit_price_range_source: str | None
    price_source: str
    vendor: str


@dataclass(frozen=True)
class Line:
    tier: Tier | LineTier
    fabric: str
    hop: str
    category: Category
    catalog_id: str
    sku: str              # the orderable part number
    description: str
    vendor: str
    quantity: float
    unit: str             # each | km
    unit_price_usd: float
    unit_power_w: float
    price_source: str
    as_of: str
    source: str
    #: The unit's maximum draw [W] where it differs from ``unit_power_w`` (the typical, which the energy
    #: cost takes); facility sizing takes the maximum. None: the one figure is both.
    unit_power_max_w: float | None = None
    #: The range public prices span per unit (the row's price_low_usd / price_high_usd); None: no range.
    unit_price_low_usd: float | None = None
    unit_price_high_usd: float | None = None
    #: Where each end of that range is published (the row's price_range_source); None: no range.
    unit_price_range_source: str | None = None

    @property
    def price_usd(self) -> float:
        return self.quantity * self.unit_price_usd

    @property
    def price_low_usd(self) -> float:
        """The budget's low end for the line (its price where no range is published)."""
        return self.quantity * (self.unit_price_usd if self.unit_price_low_usd is None else self.unit_price_low_usd)

    @property
    def price_high_usd(self) -> float:
        return self.quantity * (self.unit_price_usd if self.unit_price_high_usd is None else self.unit_price_high_usd)

    @property
    def placeholder_price(self) -> bool:
        """An estimated price with no published range: a placeholder to replace with a quote."""
        return self.price_source == "estimate" and self.unit_price_low_usd is None

    @property
    def power_w(self) -> float:
        """Typical draw of the line [W]: the energy cost's basis."""
        return self.quantity * self.unit_power_w

    @property
    def power_max_w(self) -> float:
        """Maximum draw of the line [W]: the facility's (power and cooling capacity, space per kW)."""
        return self.quantity * (self.unit_power_w if self.unit_power_max_w is None else self.unit_power_max_w)

    def to_json(self) -> LineJson:
        return {"sku": self.sku, "catalog_id": self.catalog_id, "description": self.description,
                "category": self.category, "tier": self.tier, "fabric": self.fabric, "hop": self.hop,
                "quantity": int(self.quantity) if self.unit == "each" else self.quantity, "unit": self.unit,
                "unit_price_usd": self.unit_price_usd, "unit_power_w": self.unit_power_w,
                "unit_power_max_w": self.unit_power_w if self.unit_power_max_w is None else self.unit_power_max_w,
                "unit_price_low_usd": self.unit_price_low_usd, "unit_price_high_usd": self.unit_price_high_usd,
                "unit_price_range_source": self.unit_price_range_source,
                "price_source": self.price_source, "vendor": self.vendor}


def _line(row: Row, tier: Tier | LineTier, fabric: str, hop: str, category: Category, qty: float, power_w: float,
          sku: str | None = None, price: float | None = None, unit: str = "each",
          description: str | None = None) -> Line:
    own = price is None    # the row's own price, so its published range applies
    return Line(tier, fabric, hop, category, row.id, sku or row.part_number, description or row.description,
                row.vendor, qty, unit, row.price_usd if price is None else price, power_w, row.price_source,
                row.as_of.isoformat(), row.source, unit_price_low_usd=row.price_low_usd if own else None,
                unit_price_high_usd=row.price_high_usd if own else None,
                unit_price_range_source=row.price_range_source if own else None)


def _sold_price(row: Cable | Fibre, part_number: str | None, length_m: float) -> float:
    for s in row.lengths:
        if s.part_number == part_number:
            return s.price_usd if s.price_usd is not None else row.price_usd + row.price_per_m_usd * length_m
    return row.price_usd + row.price_per_m_usd * length_m   # cut to length


def compute_lines(platform: Platform, systems: int, nodes: int | None = None) -> list[Line]:
    """The GPU systems: typical power for the energy cost, the maximum for facility sizing. A torus
    slice smaller than a cube (fewer nodes than one system) is its hosts, each its share of the
    system's price and power."""
    peak = magnitude(platform.power_per_system, "power")
    typical = platform.system_power_typical_w
    if nodes is not None and nodes < platform.nodes_per_system:
        share = platform.nodes_per_system
        line = _line(platform, LineTier.COMPUTE, FabricRole.COMPUTE, "system", Category.COMPUTE, nodes,
                     typical / share, unit="host", price=platform.price_usd / share,
                     description=f"{platform.description}: {nodes} of a system's {share} hosts")
        return [replace(line, unit_power_max_w=peak / share) if peak != typical else line]
    line = _line(platform, LineTier.COMPUTE, FabricRole.COMPUTE, "system", Category.COMPUTE, systems, typical)
    return [replace(line, unit_power_max_w=peak) if peak != typical else line]


def switch_lines(fabric: str, tier: Tier, counts: dict[Layer, int], switches: dict[Layer, Switch],
                 category: Category = Category.SWITCH) -> list[Line]:
    """Switches of each layer: the typical draw for the energy cost, the maximum less the optics it
    counts for facility sizing (optics are counted on their own lines, at their maximum); where the
    data sheet's maximum cannot be split from its optics, the typical for both (``POWER_BASIS``).

    A co-packaged-optics switch has no pluggables at its ports but external laser modules: a line of
    its own per layer (``laser_lines``), whose power is taken out of the switch line's when the
    published system power includes it, so the two add up to the published figure."""
    out = []
    for layer, n in counts.items():
        if not n:
            continue
        sw = switches[layer]
        power = magnitude(sw.power_typical, "power")
        peak = sw.power_max_without_optics_w
        if sw.laser_source is not None and sw.power_includes_lasers:
            lasers = sw.laser_source.per_switch * magnitude(sw.laser_source.power, "power")
            power -= lasers
            peak = None if peak is None else peak - lasers
        line = _line(sw, tier, fabric, layer, category, n, power)
        out.append(replace(line, unit_power_max_w=peak) if peak is not None and peak != power else line)
        out += laser_lines(sw, tier, fabric, layer, n)
    return out


def laser_lines(sw: Switch, tier: Tier, fabric: str, layer: str, switches: int) -> list[Line]:
    """The external laser modules of ``switches`` CPO switches (none for a pluggable switch)."""
    ls = sw.laser_source
    if ls is None:
        return []
    return [Line(tier, fabric, layer, Category.LASER_SOURCE, sw.id, ls.part_number, ls.description, ls.vendor,
                 switches * ls.per_switch, "each", ls.price_usd, magnitude(ls.power, "power"), ls.price_source,
                 sw.as_of.isoformat(), ls.source)]


def chassis_lines(fabric: str, tier: Tier, layer: Layer, switch: Switch, port_use: list[tuple[int, int]],
                  ports_per_native: float = 1.0) -> list[Line]:
    """A modular switch layer part by part: frames, fabric cards, supervisors and power supplies per
    chassis, and in each chassis the line cards its used ports fill. ``port_use`` is (chassis, ports
    each uses) at the layer's link rate, ``ports_per_native`` the link-rate ports one native port
    carries (2 for 400G links on 800G ports).

    Power: each part's own draw (power supplies feed the others, so they add none of their own)."""
    m = switch.modular
    assert m is not None
    chassis = sum(n for n, _ in port_use)
    cards = sum(n * m.cards(used / ports_per_native) for n, used in port_use)
    out = []
    for part in m.parts:
        if chassis:
            out.append(_line(switch, tier, fabric, layer, Category.SWITCH, chassis * part.count,
                             magnitude(part.power, "power"), sku=part.part_number, price=part.price_usd,
                             description=part.description))
    if cards:
        lc = m.line_card
        line = _line(switch, tier, fabric, layer, Category.SWITCH, cards, lc.power_w(),
                     sku=lc.part_number, price=lc.price_usd, description=lc.description)
        peak = lc.power_w(peak=True)
        out.append(replace(line, unit_power_max_w=peak) if peak != line.unit_power_w else line)
    return out


def group_lines(g: LinkGroup) -> list[Line]:
    """The parts of one link group: modules at each end, the cable or fibre, patch panels."""
    out: list[Line] = []
    o, c = g.choice.option, g.choice
    for end, count in ((g.lower_end, g.modules_lower), (g.upper_end, g.modules_upper)):
        if count and isinstance(end.part, Module):
            out.append(_line(end.part, g.tier, g.fabric, g.hop, Category.TRANSCEIVER, count,
                             magnitude(end.part.power, "power")))
        elif count and isinstance(end.part, Coherent):
            out.append(_line(end.part, g.tier, g.fabric, g.hop, Category.COHERENT_OPTIC, count,
                             magnitude(end.part.power, "power")))
    if o.assembly is not None:
        a = o.assembly
        heads = a.end_a.count + a.end_b.count
        category = Category.AOC if a.kind == "aoc" else Category.COPPER_CABLE
        out.append(_line(a, g.tier, g.fabric, g.hop, category, g.cables,
                         magnitude(a.power_per_end, "power") * heads, c.part_number,
                         _sold_price(a, c.part_number, c.length_m)))
    elif o.fibre is not None and g.cables:
        f = o.fibre
        category = Category.PATCH_CORD if f.kind == "patch-cord" else Category.FIBRE_TRUNK
        out.append(_line(f, g.tier, g.fabric, g.hop, category, g.cables, 0.0, c.part_number,
                         _sold_price(f, c.part_number, c.length_m),
                         description=f"{f.description}, {c.length_m:g} m"))
    if g.panel is not None and g.panels:
        out.append(_line(g.panel, g.tier, g.fabric, g.hop, Category.PATCH_PANEL, g.panels, 0.0))
    for end, key in ((g.lower_end, "breakouts_lower"), (g.upper_end, "breakouts_upper")):
        b = end.engine.breakout if end.engine is not None else None
        if b is not None and g.extras.get(key):   # CPO faceplate shuffles, bought per connector used
            out.append(Line(g.tier, g.fabric, g.hop, Category.FIBRE_BREAKOUT, "cpo-faceplate", b.part_number,
                            b.description, b.vendor, g.extras[key], "each", b.price_usd, 0.0, b.price_source,
                            b.as_of.isoformat(), b.source))
    return out


def scale_up_lines(platform: Platform, up: ScaleUp) -> list[Line]:
    """The parts the scale-up tier buys beyond the systems: a torus's optical circuit switches,
    the optic at the cube end of each optical link and the fibre run to the OCS port (electrical
    and switched domains are bought whole with their systems: no line)."""
    ir = platform.scale_up.inter_rack
    if ir is not None and up.inter_rack_cables:
        # A domain over two racks: the cables between its racks' switch trays are bought on their own.
        c = ir.cable
        return [Line(Tier.SCALE_UP, "nvlink", HopKind.NVSWITCH_NVSWITCH, Category.COPPER_CABLE, c.id, c.part_number,
                     c.description, c.vendor, up.inter_rack_cables, "each", c.price_usd,
                     magnitude(c.power, "power"), c.price_source, platform.as_of.isoformat(), c.source)]
    t = platform.scale_up.torus
    if t is None or not up.optical_links:
        return []
    out = []
    for part, hop, category, qty in ((t.ocs, Layer.OCS, Category.SWITCH, up.ocs),
                                     (t.optic, HopKind.CUBE_OCS, Category.TRANSCEIVER, up.modules),
                                     (t.fibre, HopKind.CUBE_OCS, Category.FIBRE_TRUNK, up.fibre_runs)):
        out.append(Line(Tier.SCALE_UP, "ici", hop, category, part.id, part.part_number, part.description,
                        part.vendor, qty, "each", part.price_usd, magnitude(part.power, "power"),
                        part.price_source, platform.as_of.isoformat(), part.source))
    return out


def merge(lines: Iterable[Line]) -> list[Line]:
    """One line per part and place: the same sku in the same tier, fabric and hop adds up."""
    # Each place's first line and its quantity summed in the lines' order; a Line made once per place
    # that sums (a million-GPU campus's 300 lines make 163: a frozen Line is a dozen microseconds).
    merged: dict[tuple[str, ...], tuple[Line, float | int, int]] = {}
    for line in lines:
        key = (line.tier, line.fabric, line.hop, line.category, line.sku, str(line.unit_price_usd))
        old = merged.get(key)
        merged[key] = (line, line.quantity, 1) if old is None else (old[0], old[1] + line.quantity, old[2] + 1)
    return [first if n == 1 else Line(**{**first.__dict__, "quantity": qty}) for first, qty, n in merged.values()]


def dci_lines(dci: Dci, catalog: Catalog) -> list[Line]:
    out = [_line(dci.coherent, Tier.SCALE_ACROSS, FabricRole.DCI, HopKind.SITE_SITE, Category.COHERENT_OPTIC,
                 dci.modules, magnitude(dci.coherent.power, "power")),
           _line(dci.router, Tier.SCALE_ACROSS, FabricRole.DCI, Layer.ROUTER, Category.DCI_SWITCH, dci.routers,
                 magnitude(dci.router.power_typical, "power"))]
    if dci.border is not None and dci.border_leaves:
        out += switch_lines(FabricRole.DCI, Tier.SCALE_ACROSS, {Layer.LEAF: dci.border_leaves},
                            {Layer.LEAF: dci.border.switch}, Category.DCI_SWITCH)
    for part, qty in ((dci.mux, dci.muxes), (dci.amplifier, dci.amplifiers)):
        if isinstance(part, Dwdm) and qty:
            out.append(_line(part, Tier.SCALE_ACROSS, FabricRole.DCI, HopKind.SITE_SITE, Category.DWDM, qty,
                             magnitude(part.power, "power")))
    if dci.patch is not None and dci.patch_cords:
        p = dci.patch
        out.append(_line(p.row, Tier.SCALE_ACROSS, FabricRole.DCI, HopKind.SITE_SITE, Category.PATCH_CORD,
                         dci.patch_cords, 0.0, p.part_number, p.price_usd,
                         description=f"{p.row.description}, {p.length_m:g} m"))
        if dci.amplifier_patch_cords:   # the same cord, from each terminal amplifier to its mux/demux
            out.append(_line(p.row, Tier.SCALE_ACROSS, FabricRole.DCI, HopKind.MUX_AMPLIFIER, Category.PATCH_CORD,
                             dci.amplifier_patch_cords, 0.0, p.part_number, p.price_usd,
                             description=f"{p.row.description}, {p.length_m:g} m"))
    fibre = next((f for f in catalog.by_kind["fibres"] if isinstance(f, Fibre) and f.fibre == "os2"), None)
    if fibre is not None and dci.dark_fibre_km:
        # Leased, not bought: zero capex; the TCO prices it per km and year.
        out.append(Line(Tier.SCALE_ACROSS, FabricRole.DCI, HopKind.SITE_SITE, Category.DARK_FIBRE, "dark-fibre",
                        DARK_FIBRE_SKU, f"Dark fibre pair lease, {dci.distance_km:g} km route", "carrier",
                        dci.dark_fibre_km, "km", 0.0, 0.0, "estimate", fibre.as_of.isoformat(),
                        "leased per km and year; see the TCO input dark_fibre"))
    return out


def fabric_switch_lines(f: Fabric, catalog: Catalog) -> list[Line]:
    """Each switch layer's switches; a modular spine or core counted part by part (a leaf is always a
    whole switch)."""
    switches: dict[Layer, Switch] = {}
    for k, sid in f.switch_ids().items():
        row = catalog.get("switches", sid)
        assert isinstance(row, Switch)
        switches[k] = row
    fixed = {k: v for k, v in switches.items() if k == Layer.LEAF or v.modular is None}
    out = switch_lines(f.name, f.tier, {k: f.switches(k) for k in fixed}, fixed)
    for layer, row in switches.items():
        if layer not in fixed and f.switches(layer):
            out += chassis_lines(f.name, f.tier, layer, row, f.port_use(layer), f.first.spine.radix / row.ports)
    return out


def placement_lines(model: Model, catalog: Catalog) -> list[Line]:
    """Racks, PDUs and the endpoints around the nodes, as the placement holds them."""
    out: list[Line] = []
    pl = model.placement
    if pl is None:
        return out
    for rack_id, n in sorted(pl.rack_types().items()):
        out.append(_line(catalog.get("racks", rack_id), LineTier.FACILITY, "racks", "rack", Category.RACK, n, 0.0))
    category: dict[str, Category] = {Layer.PDU: Category.PDU, Layer.STORAGE: Category.STORAGE,
                                     Layer.UFM: Category.SERVER, Layer.MGMT: Category.SERVER}
    for item, n in sorted(pl.by_item().items(), key=lambda kv: (kv[0].role, kv[0].catalog_id)):
        if item.role in category:
            row = catalog.get("endpoints", item.catalog_id)
            out.append(_line(row, LineTier.FACILITY, item.role, item.role, category[item.role], n, item.power_w))
    return out


def power_lines(model: Model, catalog: Catalog) -> list[Line]:
    """The power plan's cords and whips by part and sold length (bom/links/power.py: power_plan)."""
    if model.power is None:
        return []
    out = []
    for (part, pn, sold), n in model.power.cords:
        row = catalog.get("power", part)
        assert isinstance(row, PowerCord)
        price = next((s.price_usd for s in row.lengths if s.part_number == pn and s.price_usd is not None),
                     row.price_usd)
        out.append(_line(row, LineTier.FACILITY, FabricKind.POWER, HopKind.PDU_SUPPLY, Category.POWER_CORD, n, 0.0,
                         sku=pn, price=price, description=f"{row.description}, {sold:g} m"))
    return out


def all_lines(model: Model, catalog: Catalog) -> list[Line]:
    """Every BOM line of a built model."""
    lines = (compute_lines(model.platform, model.cluster.systems, model.cluster.nodes)
             + scale_up_lines(model.platform, model.scale_up))
    for f in model.fabrics.values():
        lines += fabric_switch_lines(f, catalog)
    lines += placement_lines(model, catalog)
    lines += power_lines(model, catalog)
    for g in model.groups:
        lines += group_lines(g)
    if model.dci is not None:
        lines += dci_lines(model.dci, catalog)
    lines += cooling_lines(model, catalog)
    return merge(lines)


def cooling_lines(model: Model, catalog: Catalog) -> list[Line]:
    """The coolant distribution units of a liquid-cooled build (bom/costing/cooling.py sizes them)."""
    c = size_cooling(model, catalog)
    if c is None or not c.cdus:
        return []
    return [_line(c.cdu, LineTier.FACILITY, "cooling", "cdu", Category.COOLING, c.cdus, c.unit_power_w)]

