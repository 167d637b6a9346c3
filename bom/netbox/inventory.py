"""The plan as NetBox objects: what :mod:`.export` writes and :mod:`.push` sends.

One pass over the cable plan (:func:`bom.cableplan.rows.rows`, the same generator ``bom cables`` writes)
collects the interfaces each device type needs and hands every cable to a callback, so a large
plan is never held twice; sites, rows, racks and placed devices come from the placement
(:func:`bom.placement.elevation.elevation_rows`). Devices the placement does not hold (the in-band
fabric's stand-in, DCI routers and muxes) stand in their site without a rack, with a device type
named for their role.

Names: a site is ``<scenario>-s1`` (so several scenarios share one NetBox), a row is a location
``r01`` in its site, racks and devices keep the plan's names (unique per site), interfaces the
plan's port names. Every object carries the tag named for the scenario.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bom import names
from bom.cableplan import rows as plan
from bom.catalog.media import port_standard
from bom.catalog.rows import Cable as CableRow
from bom.catalog.rows import Coherent, Module, Row, Switch
from bom.netbox import choices
from bom.placement.elevation import elevation_rows
from bom.roles import Layer
from bom.units import magnitude

if TYPE_CHECKING:
    from bom.catalog.rows import Catalog
    from bom.model.model import Model

#: Manufacturer of the device types of devices the placement does not hold.
GENERIC_MAKER = "Generic"
#: Device role colours (NetBox wants one); grey for roles not listed.
ROLE_COLOURS: dict[str, str] = {
    Layer.NODE: "4caf50", Layer.LEAF: "2196f3", Layer.SPINE: "3f51b5", Layer.CORE: "673ab7", Layer.PDU: "9e9e9e",
    Layer.UFM: "ff9800", Layer.MGMT: "795548", Layer.STORAGE: "009688", Layer.ROUTER: "f44336", Layer.MUX: "e91e63"}


def slug(text: str) -> str:
    """NetBox slugs take letters, digits, ``-`` and ``_``.

    >>> slug("gb300-nvl72"), slug("Generic"), slug("mgmt-x86-2s"), slug("qm9700 v1.2+")
    ('gb300-nvl72', 'generic', 'mgmt-x86-2s', 'qm9700-v1-2')
    """
    return re.sub(r"[^a-z0-9_]+", "-", text.lower()).strip("-")


@dataclass(frozen=True)
class DeviceType:
    manufacturer: str
    model: str          # the catalog id (or "planned <role>")
    u_height: int
    part_number: str
    interfaces: dict[str, str] = field(default_factory=dict, compare=False)   # name -> NetBox type
    module_bays: dict[str, None] = field(default_factory=dict, compare=False)  # cages holding a transceiver
    #: Power ports (its supplies, a PDU's input): name -> (NetBox type, maximum draw W); power outlets (a
    #: PDU's): name -> (type, the power port it draws on, feed leg). bom/netbox/power.py fills them.
    power_ports: dict[str, tuple[str, int]] = field(default_factory=dict, compare=False)
    power_outlets: dict[str, tuple[str, str, str]] = field(default_factory=dict, compare=False)

    @property
    def slug(self) -> str:
        return slug(self.model)


@dataclass(frozen=True)
class ModuleType:
    """A transceiver part as a NetBox module type with the Transceiver profile's attributes."""

    manufacturer: str
    model: str           # the part number the BOM buys
    attributes: dict[str, object] = field(default_factory=dict, compare=False)


#: NetBox's module type profile for pluggable optics (loaded by its migration 0206).
TRANSCEIVER_PROFILE = "Transceiver"


def bay_fields(bay: str) -> dict[str, str]:
    """A module bay (or its template) as NetBox takes it: named after the cage, the port number its position.

    >>> bay_fields("p17")
    {'name': 'p17', 'position': '17'}
    """
    return {"name": bay, "position": bay.removeprefix("p")}


def cage_of(port: str) -> str:
    """The cage a port is in (``p17/2`` -> ``p17``): a twin-port module fills one cage, one bay.

    >>> cage_of("p17/2"), cage_of("p3"), cage_of("mgmt")
    ('p17', 'p3', 'mgmt')
    """
    return port.split("/", 1)[0]


@dataclass(frozen=True)
class Device:
    name: str
    site: str           # NetBox site name
    role: str
    device_type: str    # model
    rack: str = ""
    location: str = ""
    position: int | None = None   # lowest U; None for 0U devices and devices without a rack


@dataclass(frozen=True)
class Rack:
    name: str
    site: str
    location: str
    u_height: int


@dataclass(frozen=True)
class Cable:
    a_site: str
    a_device: str
    a_port: str
    b_site: str
    b_device: str
    b_port: str
    type: str
    length: float
    label: str
    description: str   # the plan's cable id

    @property
    def key(self) -> tuple[tuple[str, str], tuple[str, str]]:
        """Both ends, in a fixed order (NetBox may list either end as A)."""
        a, b = (self.a_device, self.a_port), (self.b_device, self.b_port)
        return (a, b) if a <= b else (b, a)


@dataclass
class Inventory:
    """Everything but the cables, in NetBox's dependency order."""

    scenario: str
    sites: list[str] = field(default_factory=list)
    locations: list[tuple[str, str]] = field(default_factory=list)       # (site, row)
    racks: list[Rack] = field(default_factory=list)
    manufacturers: list[str] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)
    device_types: dict[str, DeviceType] = field(default_factory=dict)    # by model
    devices: list[Device] = field(default_factory=list)
    cables: int = 0
    # Transceivers as NetBox modules (the device-type library's convention): a module type per part
    # number, one module per cage that holds one, in the module bay named after the cage.
    module_types: dict[str, ModuleType] = field(default_factory=dict)    # by model (the part number)
    modules: dict[tuple[str, str], str] = field(default_factory=dict)     # (device, bay) -> module type

    @property
    def tag(self) -> str:
        return self.scenario

    def site(self, plan_site: str) -> str:
        return f"{self.scenario}-{plan_site}"

    def interfaces_used(self) -> int:
        return 2 * self.cables

    def for_release(self, version: tuple[int, int, int]) -> None:
        """Every interface type as a NetBox of ``version`` names it (:func:`bom.netbox.choices.for_release`):
        the InfiniBand 4X and 2X types and the 1.6T OSFP type are newer than some releases the push takes."""
        for t in self.device_types.values():
            for n, ty in t.interfaces.items():
                t.interfaces[n] = choices.for_release(ty, version)


def _transceivers(catalog: Catalog | None) -> dict[str, ModuleType]:
    """Part number -> its module type, for the pluggable and coherent modules of the catalog."""
    out: dict[str, ModuleType] = {}
    if catalog is None:
        return out
    for m in catalog.rows.get("modules", {}).values():
        assert isinstance(m, Module)
        out.setdefault(m.part_number, ModuleType(m.vendor, m.part_number, {
            "form_factor": m.form_factor.upper(), "data_rate": f"{magnitude(m.port_rate, 'rate') * m.ports:g}G",
            "phy": port_standard(m.port_type)}))
    for c in catalog.rows.get("coherent", {}).values():
        assert isinstance(c, Coherent)
        out.setdefault(c.part_number, ModuleType(c.vendor, c.part_number, {
            "form_factor": c.form_factor.upper(), "data_rate": f"{magnitude(c.rate, 'rate'):g}G",
            "phy": c.standard}))
    return out


def _form_factors(catalog: Catalog | None) -> dict[str, tuple[str, str]]:
    """Part number -> (form factor at end A, at end B) for modules and copper/AOC assemblies."""
    out: dict[str, tuple[str, str]] = {}
    if catalog is None:
        return out
    for m in catalog.rows.get("modules", {}).values():
        assert isinstance(m, Module)
        out[m.part_number] = (m.form_factor, m.form_factor)
    for c in catalog.rows.get("cables", {}).values():
        assert isinstance(c, CableRow)
        ends = (c.end_a.form_factor, c.end_b.form_factor)
        out[c.part_number] = ends
        for sold in c.lengths:
            out[sold.part_number] = ends
    return out


#: A rack-scale system's trays that are not its compute trays: each its own device type.
SYSTEM_TRAYS = (Layer.NVLINK_SWITCH, Layer.POWER_SHELF)


def type_model(cid: str, role: str) -> str:
    """The device type of a placed device: its catalog row's, or for a rack-scale system's NVLink switch
    tray or power shelf (which the placement lists under the system's row) one of its own.

    >>> type_model("gb300-nvl72", "node"), type_model("gb300-nvl72", "nvlink-switch")
    ('gb300-nvl72', 'gb300-nvl72-nvlink-switch')
    """
    return f"{cid}-{role}" if role in SYSTEM_TRAYS else cid


def switch_cage(row: Row | None, port: str) -> str | None:
    """A switch port's cage form factor, as the switch is built (its cages, then its dedicated uplink
    cages, :mod:`bom.cableplan.rows`' numbering): what NetBox types the port by, whatever module or
    cable head the plan puts in it (an SN5600's OSFP cage holding a 400G split, a DAC to QSFP112).
    None: not a switch's numbered port (a node's NIC port, ``mgmt``), typed by what the plan puts there.

    >>> from types import SimpleNamespace as S
    >>> sw = Switch.model_construct(cages=64, form_factor="osfp", uplinks=S(form_factor="qsfp28"))
    >>> switch_cage(sw, "p3/2"), switch_cage(sw, "p65"), switch_cage(sw, "mgmt"), switch_cage(None, "p1")
    ('osfp', 'qsfp28', None, None)
    """
    m = _CAGE.fullmatch(cage_of(port))
    if not isinstance(row, Switch) or m is None or row.form_factor == "cpo":
        return None
    if int(m.group(1)) <= row.cages:
        return row.form_factor
    return row.uplinks.form_factor if row.uplinks is not None else None


_CAGE = re.compile(r"p(\d+)")


def _catalog_row(catalog: Catalog | None, cid: str) -> Row | None:
    if catalog is None:
        return None
    for kind in ("platforms", "switches", "endpoints"):
        row = catalog.rows.get(kind, {}).get(cid)
        if row is not None:
            return row
    return None


def collect(model: Model, catalog: Catalog | None, on_cable: Callable[[Cable], None]) -> Inventory:
    """Walk the placement and the cable plan once; ``on_cable`` gets every cable in plan order."""
    inv = Inventory(scenario=model.scenario.name)
    makers: dict[str, None] = {}
    roles: dict[str, None] = {}
    types = inv.device_types
    model_of: dict[str, str] = {}      # device name -> device type model
    placed: set[str] = set()
    if getattr(model, "placement", None) is not None:
        racks_seen: set[str] = set()
        rows_seen: dict[tuple[str, str], None] = {}
        for rec in elevation_rows(model):
            site_, row_, rack_, _pos, _kind, rack_model, u, height, device, role, cid = rec[:11]
            site = inv.site(str(site_))
            if site not in inv.sites:
                inv.sites.append(site)
            rows_seen.setdefault((site, str(row_)), None)
            if rack_ not in racks_seen:
                racks_seen.add(str(rack_))
                rrow = _catalog_row_kind(catalog, "racks", str(rack_model))
                inv.racks.append(Rack(str(rack_), site, str(row_), int(getattr(rrow, "rack_units", 48))))
            tmodel = type_model(str(cid), str(role))
            if tmodel not in types:
                crow = _catalog_row(catalog, str(cid))
                maker = getattr(crow, "vendor", GENERIC_MAKER)
                part = getattr(crow, "part_number", "") if getattr(crow, "orderable", False) else ""
                part = part if tmodel == cid and len(part) <= 50 else ""   # a tray is not the system's SKU
                types[tmodel] = DeviceType(maker, tmodel, int(height), part)
                makers.setdefault(maker, None)
            roles.setdefault(str(role), None)
            inv.devices.append(Device(str(device), site, str(role), tmodel, str(rack_), str(row_),
                                      int(u) if int(height) > 0 else None))
            model_of[str(device)] = tmodel
            placed.add(str(device))
        inv.locations = list(rows_seen)
    forms = _form_factors(catalog)
    transceivers = _transceivers(catalog)
    # Each fabric's protocol and lane rate, from its leaf switch: an InfiniBand fabric's ports (the
    # nodes' and UFM's too) are InfiniBand interfaces in NetBox. DCI and OOB rows are Ethernet.

    wire: dict[str, tuple[str, float | None]] = {}
    for name, fabric in model.fabrics.items():
        leaf = _catalog_row(catalog, fabric.first.leaf.id) if fabric.shapes else None
        if isinstance(leaf, Switch) and leaf.protocol == "infiniband":
            wire[name] = ("infiniband", magnitude(leaf.lane_rate, "rate"))
    col = plan.COL
    idx = [col[c] for c in ("a_site", "a_device", "a_role", "a_port", "a_module", "b_site", "b_device", "b_role",
                            "b_port", "b_module", "rate_gbps", "cable_type", "cable_part", "sold_length_m",
                            "length_m", "label", "cable_id", "fabric")]

    def end(site_: str, device: str, role: str, port: str, module: str, part: str, side: int, rate: float,
            fabric: str = "") -> None:
        dtype = model_of.get(device)
        if dtype is None:   # a device the placement does not hold: in its site, no rack
            dtype = f"planned {role}"
            site = inv.site(site_)
            if site not in inv.sites:
                inv.sites.append(site)
            if dtype not in types:
                types[dtype] = DeviceType(GENERIC_MAKER, dtype, 1, "")
                makers.setdefault(GENERIC_MAKER, None)
            roles.setdefault(role, None)
            inv.devices.append(Device(device, site, role, dtype))
            model_of[device] = dtype
        ifs = types[dtype].interfaces
        if module and module in transceivers:
            bay = cage_of(port)
            types[dtype].module_bays.setdefault(bay, None)
            if (device, bay) not in inv.modules:
                mtype = transceivers[module]
                inv.module_types.setdefault(module, mtype)
                makers.setdefault(mtype.manufacturer, None)
                inv.modules[(device, bay)] = module
        if port not in ifs:
            cage = switch_cage(_catalog_row(catalog, dtype), port)
            ff = cage or (forms.get(module, (None, None))[side] if module else forms.get(part, (None, None))[side])
            protocol, lane = wire.get(fabric, ("ethernet", None))
            # The fabric's lane rate is its switches'; an endpoint's port keeps its own NIC's (a UFM's NDR
            # port on an XDR fabric is NDR 4X, one device type whatever fabric it joins).
            ifs[port] = choices.interface_type(rate, ff, protocol, lane if cage else None)

    for r in plan.rows(model, catalog=catalog):
        (a_site, a_dev, a_role, a_port, a_mod, b_site, b_dev, b_role, b_port, b_mod, rate, ctype, part, sold,
         length, label, cid, fab) = (r[i] for i in idx)
        end(str(a_site), str(a_dev), str(a_role), str(a_port), str(a_mod), str(part), 0, float(rate), str(fab))
        end(str(b_site), str(b_dev), str(b_role), str(b_port), str(b_mod), str(part), 1, float(rate), str(fab))
        metres = float(sold) if sold not in ("", None) else float(length)
        on_cable(Cable(inv.site(str(a_site)), str(a_dev), str(a_port), inv.site(str(b_site)), str(b_dev),
                       str(b_port), choices.cable_type(str(ctype)), round(metres, 2), str(label), str(cid)))
        inv.cables += 1
    inv.manufacturers = list(makers)
    inv.roles = list(roles)
    return inv


def _catalog_row_kind(catalog: Catalog | None, kind: str, cid: str) -> Row | None:
    if catalog is None:
        return None
    return catalog.rows.get(kind, {}).get(cid)


def mgmt_only(port: str) -> bool:
    """A device's management port (``mgmt``) is NetBox's management-only interface."""
    return port == names.MGMT_PORT
