"""NetBox bulk-import files: one per object type, numbered in the order NetBox needs them.

CSV files for the CSV import forms (``/extras/tags/import/``, ``/dcim/sites/import/``, ...);
device types go in YAML, the format of NetBox's device type import, because that is the one
import that carries a type's interface templates (a device then gets its interfaces from its
type). Column names and choice values are NetBox 4.7's own (:mod:`bom.netbox.choices`).

The cables stream from the plan into the publisher's stage while the other objects are collected;
the set is published as one unit by :mod:`bom.outputs.publish`, as every other output is.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

import yaml

from bom.model.records import Cell
from bom.netbox import choices
from bom.netbox.inventory import (
    ROLE_COLOURS,
    TRANSCEIVER_PROFILE,
    Cable,
    Inventory,
    bay_fields,
    collect,
    mgmt_only,
    slug,
)
from bom.netbox.power import CABLE_HEADER as POWER_CABLE_HEADER
from bom.netbox.power import FEED_HEADER, PowerObjects, power_objects
from bom.outputs.publish import Output, write_all
from bom.outputs.writers.common import csv_text, csv_writer

#: The release the files are for unless told (the tested one).
TESTED = choices.release(choices.TESTED_VERSION) or (4, 7, 3)

if TYPE_CHECKING:
    from bom.catalog.rows import Catalog
    from bom.model.model import Model

#: File name -> the NetBox import page it goes to (relative to the NetBox URL).
FILES: dict[str, str] = {
    "00-tags.csv": "/extras/tags/import/",
    "01-sites.csv": "/dcim/sites/import/",
    "02-locations.csv": "/dcim/locations/import/",
    "03-racks.csv": "/dcim/racks/import/",
    "04-manufacturers.csv": "/dcim/manufacturers/import/",
    "05-device-roles.csv": "/dcim/device-roles/import/",
    "06-device-types.yaml": "/dcim/device-types/import/",
    "07-devices.csv": "/dcim/devices/import/",
    "08-cables.csv": "/dcim/cables/import/",
    # Transceivers as modules in module bays (the device-type library's convention; NetBox 4.7's
    # built-in Transceiver profile): after the devices, whose types carry the bays.
    "09-module-types.yaml": "/dcim/module-types/import/",
    "10-modules.csv": "/dcim/modules/import/",
}
#: The power plan's files (bom/netbox/power.py), imported after :data:`FILES`: a panel per row side, a
#: feed per PDU, then the power cables (the device types in 06 carry the power-port and power-outlet
#: templates). Unit-tested for NetBox 4.x's field and choice names; not yet imported by the live test.
POWER_FILES: dict[str, str] = {
    "11-power-panels.csv": "/dcim/power-panels/import/",
    "12-power-feeds.csv": "/dcim/power-feeds/import/",
    "13-power-cables.csv": "/dcim/cables/import/",
}
CABLE_HEADER = ("side_a_site", "side_a_device", "side_a_type", "side_a_name", "side_b_site", "side_b_device",
                "side_b_type", "side_b_name", "type", "status", "length", "length_unit", "label", "description",
                "tags")


@dataclass
class Export:
    inventory: Inventory
    paths: list[Path]


def _csv(header: tuple[str, ...], rows: list[tuple[Cell, ...]]) -> str:
    # names come from scenarios and catalog overlays, and people open these files in a spreadsheet
    return csv_text(header, rows)


def cable_row(c: Cable, tag: str) -> tuple[object, ...]:
    return (c.a_site, c.a_device, "dcim.interface", c.a_port, c.b_site, c.b_device, "dcim.interface", c.b_port,
            c.type, choices.STATUS, f"{c.length:g}", choices.LENGTH_UNIT, c.label, c.description, tag)


def device_types_yaml(inv: Inventory) -> str:
    """Device types with their interface templates, one YAML document each (NetBox's format)."""
    docs = []
    for t in inv.device_types.values():
        doc: dict[str, object] = {"manufacturer": t.manufacturer, "model": t.model, "slug": t.slug,
                                  "u_height": t.u_height, "tags": [slug(inv.tag)]}
        if t.part_number:
            doc["part_number"] = t.part_number
        if t.interfaces:
            doc["interfaces"] = [{"name": n, "type": ty, **({"mgmt_only": True} if mgmt_only(n) else {})}
                                 for n, ty in t.interfaces.items()]
        if t.module_bays:
            doc["module-bays"] = [bay_fields(b) for b in t.module_bays]
        if t.power_ports:
            doc["power-ports"] = [{"name": n, "type": ty, **({"maximum_draw": w} if w else {})}
                                  for n, (ty, w) in t.power_ports.items()]
        if t.power_outlets:
            doc["power-outlets"] = [{"name": n, "type": ty, "power_port": port, **({"feed_leg": leg} if leg else {})}
                                    for n, (ty, port, leg) in t.power_outlets.items()]
        docs.append(doc)
    return yaml.safe_dump_all(docs, sort_keys=False, explicit_start=True)


def module_types_yaml(inv: Inventory) -> str:
    """The transceivers' module types, one YAML document each, with the Transceiver profile's attributes."""
    docs = [{"manufacturer": m.manufacturer, "model": m.model, "part_number": m.model,
             "profile": TRANSCEIVER_PROFILE, "attribute_data": m.attributes, "tags": [slug(inv.tag)]}
            for m in inv.module_types.values()]
    return yaml.safe_dump_all(docs, sort_keys=False, explicit_start=True) if docs else ""


def texts(inv: Inventory, power: PowerObjects | None = None) -> dict[str, str]:
    """Every file but the cables, as text (the power plan's when ``power`` is given)."""
    tag = slug(inv.tag)
    p = choices.STATUS
    pw = power or PowerObjects()
    return {
        "00-tags.csv": _csv(("name", "slug", "color", "weight", "description"),   # 4.7's form wants a weight
                            [(inv.tag, tag, "607d8b", 1000, f"clusterbom scenario {inv.scenario}")]),
        "01-sites.csv": _csv(("name", "slug", "status", "tags"), [(s, slug(s), p, tag) for s in inv.sites]),
        "02-locations.csv": _csv(("site", "name", "slug", "status", "tags"),
                                 [(s, r, slug(r), p, tag) for s, r in inv.locations]),
        "03-racks.csv": _csv(("site", "location", "name", "status", "width", "u_height", "tags"),
                             [(r.site, r.location, r.name, p, 19, r.u_height, tag) for r in inv.racks]),
        "04-manufacturers.csv": _csv(("name", "slug", "tags"), [(m, slug(m), tag) for m in inv.manufacturers]),
        "05-device-roles.csv": _csv(("name", "slug", "color", "tags"),
                                    [(r, slug(r), ROLE_COLOURS.get(r, "9e9e9e"), tag) for r in inv.roles]),
        "06-device-types.yaml": device_types_yaml(inv),
        "07-devices.csv": _csv(
            ("name", "role", "manufacturer", "device_type", "status", "site", "location", "rack", "position", "face",
             "tags"),
            [(d.name, d.role, inv.device_types[d.device_type].manufacturer, d.device_type, p, d.site,
              d.location, d.rack, d.position if d.position is not None else "",
              choices.FACE if d.position is not None else "", tag) for d in inv.devices]),
        "09-module-types.yaml": module_types_yaml(inv),
        "10-modules.csv": _csv(("device", "module_bay", "module_type", "status", "tags"),
                               [(dev, bay, mtype, p, tag) for (dev, bay), mtype in inv.modules.items()]),
        "11-power-panels.csv": _csv(("site", "location", "name", "tags"),
                                    [(site, loc, name, tag) for (site, name), loc in pw.panels.items()]),
        "12-power-feeds.csv": _csv(FEED_HEADER, pw.feeds),
        "13-power-cables.csv": _csv(POWER_CABLE_HEADER, pw.cables),
    }


def export_output(model: Model, catalog: Catalog | None, version: tuple[int, int, int] | None = None
                  ) -> tuple[Output, list[Inventory]]:
    """The import files as an output set: the cables stream while the inventory is collected, the
    other files follow from it; the inventory lands in the returned list once the set is written.
    ``version``: the NetBox release the files are for (default: the tested one)."""
    collected: list[Inventory] = []

    def write(open_: Callable[[str], IO[bytes]]) -> None:
        cables = io.TextIOWrapper(open_("08-cables.csv"), encoding="utf-8", newline="")
        w = csv_writer(cables)
        w.writerow(CABLE_HEADER)
        tag = slug(model.scenario.name)

        def on_cable(c: Cable) -> None:
            w.writerow(cable_row(c, tag))

        inv = collect(model, catalog, on_cable)
        inv.for_release(version or TESTED)
        cables.flush()
        cables.detach()
        power = power_objects(model, catalog, inv) if catalog is not None else None
        for name, text in texts(inv, power).items():
            open_(name).write(text.encode("utf-8"))
        collected.append(inv)

    return Output(streams=[((*FILES, *POWER_FILES), write)], what="the NetBox files"), collected


def export(model: Model, catalog: Catalog | None, out: Path, version: tuple[int, int, int] | None = None
           ) -> Export:
    """Write the files into ``out`` as one unit (nothing changes there unless every file is complete),
    for the NetBox release ``version`` (default: the tested one)."""
    output, collected = export_output(model, catalog, version)
    paths = write_all(output, out)
    return Export(collected[0], sorted(paths))
