"""Rack elevations from the placement: every occupied U of every rack, and each rack's totals
(U and power against its budget, and the scale-up links inside it as a per-rack summary).

A view over :class:`bom.placement.racks.Placement` (which packs and checks the racks): rows for the racks
CSV and the "Racks" sheet, and one sample rack of each kind for the report's SVG elevation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bom.roles import Layer
from bom.topology.scaleup import scale_up

if TYPE_CHECKING:
    from bom.model.model import Model
    from bom.model.placement import Placement, Rack, Slot

HEADER = ("site", "row", "rack", "position", "kind", "rack_model", "u", "height", "device", "role", "model",
          "fabric", "power_w", "rack_u_used", "rack_u_budget", "rack_power_w", "rack_power_budget_w",
          "scale_up_links", "scale_up_cables")


#: A slot of a rack layout: U, height, the device name's suffix, role, part, fabric, power.
_SlotRow = tuple[int, int, str, str, str, str, float]
#: A rack layout's totals: U used, U budget, power, power budget, scale-up links, cables.
_RackTotals = tuple[int, int, float, float, int, int]


def _totals(slots: list[Slot]) -> tuple[int, float]:
    return sum(s.height for s in slots), sum(s.power_w for s in slots)


def elevation_rows(model: Model) -> Iterator[tuple[Any, ...]]:
    """One row per occupied slot, rack by rack (bottom up), with the rack's U and power against its
    budget and its scale-up links; the same slots as ``Placement.elevation``, each rack layout
    worked out once (a campus has a few layouts and tens of thousands of racks)."""
    placement = model.placement
    assert placement is not None

    p = model.platform
    layouts: dict[int, tuple[list[_SlotRow], _RackTotals]] = {}
    for lay, rack in placement.laid_out():
        done = layouts.get(id(lay))
        if done is None:
            seen: Counter[str] = Counter()
            items: list[_SlotRow] = []
            for item, u in lay.slots:
                seen[item.role] += 1
                items.append((u, item.height, f"-{item.role}-{seen[item.role]:02d}", item.role, item.catalog_id,
                              item.fabric or "", round(item.power_w, 1)))
            # The scale-up tier as a per-rack summary: the links inside the rack's systems (and a
            # torus cube's optical links to its OCSes), counted as bom/topology/scaleup.py counts them.
            # A rack holding its half of a system over two racks (NVL36x2): half the system's links and
            # cartridge cables (the cables between the two racks are counted in the tier, not here).
            r = p.racks_per_system
            up = scale_up(p, seen[Layer.NODE] * p.gpus_per_node * r)
            tail = (lay.used_u, rack.u_budget, round(lay.power_w, 1), rack.power_budget_w,
                    (up.links + up.optical_links) // r, up.cables // r)
            done = layouts[id(lay)] = (items, tail)
        items, tail = done
        head = (f"s{rack.site}", f"r{rack.row:02d}", rack.id, rack.position, rack.kind, rack.catalog_id)
        rid = rack.id
        for u, h, suffix, role, cid, fabric, power in items:
            yield (*head, u, h, rid + suffix, role, cid, fabric, power, *tail)


@dataclass(frozen=True)
class RackView:
    """One rack drawn as an elevation: slots top-down in U, with its totals."""

    rack: Rack
    slots: tuple[Slot, ...]
    u_used: int
    power_w: float

    @property
    def side(self) -> tuple[Slot, ...]:
        """0U devices (vertical PDUs), drawn beside the rack."""
        return tuple(s for s in self.slots if s.height == 0)

    @property
    def mounted(self) -> tuple[Slot, ...]:
        return tuple(s for s in self.slots if s.height)


def samples(placement: Placement | None) -> list[RackView]:
    """The first rack of each kind (compute, network, management, storage) in placement order."""
    if placement is None:
        return []
    kinds = sum(1 for n in placement.counts().values() if n)   # stop once each kind there is was seen
    seen: dict[str, RackView] = {}
    for rack in placement.first_copies():   # each kind's first rack is a first copy's (not every rack walked)
        if len(seen) == kinds:
            break
        if rack.kind in seen:
            continue
        slots = tuple(placement.elevation(rack))
        used, power = _totals(list(slots))
        seen[rack.kind] = RackView(rack, slots, used, power)
    return list(seen.values())
