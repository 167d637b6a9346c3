"""The power plan as NetBox models it (NetBox 4.x, dcim): power-port templates on the device types (a
device's supplies), power-outlet templates on the PDU's type (each outlet's type and phase, its feed leg,
on the PDU's input port), a power panel per row side (the row's A or B distribution), a power feed per
PDU (its rack, primary on A, redundant on B, three-phase AC at the PDU's voltage and current, its
maximum utilisation the continuous share), and the cables: each feed to its PDU's input, each cord from
a PDU outlet to a device's power port (cable type ``power``).

Cable terminations take NetBox's CSV import fields: a power feed's end names its panel
(``side_a_power_panel``, type ``dcim.powerfeed``), a component's its device (``dcim.poweroutlet``,
``dcim.powerport``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bom.cableplan.rows import COL, power_rows
from bom.catalog.rows import Endpoint, PowerCord
from bom.links.power import outlet_layout
from bom.model.records import Cell
from bom.netbox import choices
from bom.roles import FEEDS, Layer
from bom.units import magnitude

if TYPE_CHECKING:
    from bom.catalog.rows import Catalog
    from bom.model.model import Model
    from bom.netbox.inventory import Inventory

#: The PDU's input power port (what its power feed's cable lands on).
PDU_INPUT = "input"
#: A PDU's whole circuit as an outlet: a power shelf's whip lands there (bom/links/power.py).
CIRCUIT = "circuit"
CABLE_HEADER = ("side_a_site", "side_a_device", "side_a_power_panel", "side_a_type", "side_a_name", "side_b_site",
                "side_b_device", "side_b_type", "side_b_name", "type", "status", "length", "length_unit", "label",
                "description", "tags")
FEED_HEADER = ("site", "power_panel", "location", "rack", "name", "status", "type", "supply", "phase", "voltage",
               "amperage", "max_utilization", "tags")
_NTH = re.compile(r"-(\d+)$")


@dataclass
class PowerObjects:
    """The power panels, feeds and power cables of one plan (every row a CSV row of its import)."""

    panels: dict[tuple[str, str], str] = field(default_factory=dict)       # (site, panel name) -> location
    feeds: list[tuple[Cell, ...]] = field(default_factory=list)
    cables: list[tuple[Cell, ...]] = field(default_factory=list)


def _cord_kinds(catalog: Catalog) -> dict[str, str]:
    """A sold cord's part number -> its inlet (c14, c20, whip)."""
    out: dict[str, str] = {}
    for row in catalog.rows_of(PowerCord):
        for sold in row.lengths:
            out[sold.part_number] = row.inlet
    return out


def power_objects(model: Model, catalog: Catalog, inv: Inventory) -> PowerObjects:
    """Add the power ports and outlets to ``inv``'s device types; the panels, feeds and cables."""
    out = PowerObjects()
    sup = model.platform.support
    if model.power is None or sup is None:
        return out
    pdu = catalog.get("endpoints", sup.pdu)
    assert isinstance(pdu, Endpoint) and pdu.outlets is not None
    _pdu_type(inv, pdu)
    kinds = _cord_kinds(catalog)
    types = {d.name: d.device_type for d in inv.devices}
    ratings: dict[str, int] = {}
    c = COL
    tag = inv.tag.lower()
    for r in power_rows(model, catalog):
        b_dev, b_port = str(r[c["b_device"]]), str(r[c["b_port"]])
        dtype = inv.device_types[types[b_dev]]
        inlet = kinds[str(r[c["cable_part"]])]
        if b_port not in dtype.power_ports:
            ratings.setdefault(dtype.model, _rating(catalog, dtype.model, str(r[c["b_role"]])))
            dtype.power_ports[b_port] = (choices.POWER_PORT_TYPES[inlet], ratings[dtype.model])
        out.cables.append((inv.site(str(r[c["a_site"]])), str(r[c["a_device"]]), "", "dcim.poweroutlet",
                           str(r[c["a_port"]]), inv.site(str(r[c["b_site"]])), b_dev, "dcim.powerport", b_port,
                           "power", choices.STATUS, f"{float(r[c['sold_length_m']]):g}", choices.LENGTH_UNIT,
                           str(r[c["label"]]), str(r[c["cable_id"]]), tag))
    _feeds(inv, pdu, out)
    return out


def _rating(catalog: Catalog, model: str, role: str) -> int:
    """A device type's supply rating [W] (NetBox's maximum_draw of each power port)."""
    row_id = model.removesuffix(f"-{role}") if role in (Layer.POWER_SHELF, Layer.NVLINK_SWITCH) else model
    kind = catalog.kind_of(row_id)
    row = catalog.rows[kind][row_id] if kind else None
    sp = getattr(row, "shelf_supplies" if role == Layer.POWER_SHELF else "supplies", None)
    return round(sp.rating_w) if sp is not None else 0


def _pdu_type(inv: Inventory, pdu: Endpoint) -> None:
    """The PDU's type: its input, every outlet on its bank's phase (feed leg), and its whole circuit."""
    o = pdu.outlets
    assert o is not None
    dtype = inv.device_types.get(pdu.id)
    if dtype is None:
        return
    dtype.power_ports[PDU_INPUT] = (choices.POWER_OUTLET_TYPES["whip"], round(magnitude(pdu.power_capacity, "power"))
                                    if pdu.power_capacity is not None else 0)
    for number, kind, _, phase in outlet_layout(o):
        dtype.power_outlets[f"o{number + 1:02d}"] = (choices.POWER_OUTLET_TYPES[kind], PDU_INPUT,
                                                     choices.FEED_LEGS[phase])
    dtype.power_outlets[CIRCUIT] = (choices.POWER_OUTLET_TYPES["whip"], PDU_INPUT, "")


def _feeds(inv: Inventory, pdu: Endpoint, out: PowerObjects) -> None:
    """A power feed per PDU on its row side's panel (the PDU's number in its rack says its feed), and its
    cable to the PDU's input."""
    o = pdu.outlets
    assert o is not None
    volts, amps = round(o.volts("voltage")), round(o.amps("current"))
    tag = inv.tag.lower()
    for d in inv.devices:
        if d.role != Layer.PDU:
            continue
        m = _NTH.search(d.name)
        feed = FEEDS[(int(m.group(1)) - 1) % len(FEEDS)] if m else FEEDS[0]
        panel = f"{d.site}-{d.location}-{feed}"
        out.panels.setdefault((d.site, panel), d.location)
        name = f"{d.name}-feed"
        out.feeds.append((d.site, panel, d.location, d.rack, name, choices.STATUS, choices.FEED_TYPES[feed],
                          choices.FEED_SUPPLY, choices.FEED_PHASE, volts, amps, round(100 * o.continuous), tag))
        out.cables.append(("", "", panel, "dcim.powerfeed", name, d.site, d.name, "dcim.powerport", PDU_INPUT,
                           "power", choices.STATUS, "", "", f"{name} / {d.name}:{PDU_INPUT}", "", tag))

