"""Devices added, removed and moved between two placements, merged as two sorted streams.

A device is the logical one the cable plan numbers (site, role, index: the placement's numbering,
section by section and copy by copy, :meth:`bom.model.placement.Placement.locate`), so a leaf whose
rack changes is moved, not removed and added (a device's name carries its rack). Each side is
enumerated site by site, role by role (sorted), index by index: one pass over each, no device held.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from bom import names
from bom.diff.records import DeviceJson, DevicesJson
from bom.model.placement import Placement

#: (site, role, 0-based index) -> (rack id, lowest U, catalog id)
Placed = tuple[int, str, int, str, int, str]

#: Changes of each kind kept to show (the counts are whole).
SHOWN = 50


def placed(placement: Placement, only: tuple[int, str] | None = None) -> Iterator[Placed]:
    """Every placed device as (site, role, index, rack, U, catalog id), sorted by (site, role, index);
    ``only``: the devices of one (site, role)."""
    per = placement.racks_per_row
    sites = sum(shape.count for shape in placement.sites)
    for site in range(1, sites + 1) if only is None else (only[0],) if only[0] <= sites else ():
        sections = placement.site_sections(site)
        roles = sorted({item.role for _, sec, _ in sections for lay in sec.layouts for item, _ in lay.slots})
        for role in roles if only is None else [r for r in roles if r == only[1]]:
            index = 0
            for _, sec, start in sections:
                spots = sec.where(role)
                for copy in range(sec.copies):
                    for offset, slot in spots:
                        row, pos = sec.spot(start, copy, offset, per)
                        item, u = sec.layouts[offset].slots[slot]
                        yield site, role, index, names.rack(site, row, pos), u, item.catalog_id
                        index += 1


@dataclass
class DeviceChanges:
    added: int = 0
    removed: int = 0
    moved: int = 0
    shown: list[DeviceJson] = field(default_factory=list)
    compared: bool = True
    kept: dict[str, int] = field(default_factory=dict)

    def note(self, kind: str, d: DeviceJson) -> None:
        setattr(self, kind, getattr(self, kind) + 1)
        if self.kept.get(kind, 0) < SHOWN:
            self.kept[kind] = self.kept.get(kind, 0) + 1
            self.shown.append(d)

    @property
    def same(self) -> bool:
        return not (self.added or self.removed or self.moved)

    def to_json(self) -> DevicesJson:
        return {"compared": self.compared, "added": self.added, "removed": self.removed, "moved": self.moved,
                "shown": self.shown, "limit": SHOWN}


def _device(p: Placed, old: Placed | None, new: Placed | None) -> DeviceJson:
    return {"site": p[0], "role": p[1], "index": p[2] + 1, "model": (new or old or p)[5],
            "old_rack": old[3] if old else None, "old_u": old[4] if old else None,
            "new_rack": new[3] if new else None, "new_u": new[4] if new else None}


def merge(old: Iterator[Placed], new: Iterator[Placed]) -> DeviceChanges:
    """The two sorted streams merged by (site, role, index)."""
    out = DeviceChanges()
    a, b = next(old, None), next(new, None)
    while a is not None or b is not None:
        ka = a[:3] if a is not None else None
        kb = b[:3] if b is not None else None
        if kb is None or (ka is not None and ka < kb):
            assert a is not None
            out.note("removed", _device(a, a, None))
            a = next(old, None)
        elif ka is None or kb < ka:
            assert b is not None
            out.note("added", _device(b, None, b))
            b = next(new, None)
        else:
            assert a is not None and b is not None
            if a[3:] != b[3:]:
                out.note("moved", _device(a, a, b))
            a, b = next(old, None), next(new, None)
    return out


def not_compared() -> DeviceChanges:
    return DeviceChanges(compared=False)


def _site_role(name: str) -> tuple[int, str] | None:
    """(site, role) of a placed device's name (bom/names.py: ``s<site>-r<row>-rk<pos>-<role>-<n>``)."""
    parts = name.split("-")
    if len(parts) < 5 or not parts[1].startswith("r") or not parts[2].startswith("rk") or not parts[0][1:].isdigit():
        return None
    return int(parts[0][1:]), "-".join(parts[3:-1])


class Logical:
    """A device's name (its rack, role and place in the rack) -> its logical identity (site, role, index),
    for pairing the cables of a device whose rack changes. Built a site's role at a time on first use, from
    the placement: it holds a name per device of the roles whose cables are left unmatched (not a plan's
    rows), and only a diff whose devices move needs it; an unplaced device (a DCI router) keeps its name."""

    def __init__(self, placement: Placement) -> None:
        self.placement = placement
        self.known: dict[tuple[int, str], dict[str, tuple[int, str, int]]] = {}

    def __call__(self, name: str) -> object:
        at = _site_role(name)
        if at is None:
            return name
        found = self.known.get(at)
        if found is None:
            found = self.known[at] = {}
            nth: dict[str, int] = {}
            for site, role, index, rack, _, _ in placed(self.placement, at):
                n = nth[rack] = nth.get(rack, 0) + 1
                found[names.device(rack, role, n)] = (site, role, index)
        return found.get(name, name)
