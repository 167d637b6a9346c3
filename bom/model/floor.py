"""Where devices stand on a site's floor: (row, position) by role and index, read off the placement.

The placement (:mod:`bom.model.placement`) says which rack holds each device and where each rack
stands (:meth:`~bom.placement.racks.Section.spot`); a :class:`Floor` answers the two questions
the hops ask of it, for one site shape: where the ``index``-th device of a role stands
(:meth:`Floor.spot`, for the cable plan's rows), and how a run of devices of a role spreads over
racks (:meth:`Floor.racks`, for the closed form: work per rack and per copy of a section, never
per device of a repeated section). Both read the same sections, so a link's two ends are where
the plan lists them, and the run between them (:func:`bom.topology.geometry.route`) is the one
the closed form counted.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain, repeat, starmap

from bom.errors import LimitError
from bom.model.placement import Placement, Section, SiteLayout

#: (row, position) of a rack, both 1-based.
Spot = tuple[int, int]


@dataclass(frozen=True)
class _Part:
    """One section's share of a role: ``per_copy`` devices in each of ``copies`` copies, from index
    ``first`` of the site; ``spots[i]`` the (row, position) of the copy's ``i``-th in copy 0 and
    ``step`` rows between copies."""

    first: int
    copies: int
    per_copy: int
    spots: tuple[Spot, ...]
    step: int

    @cached_property
    def whole(self) -> tuple[tuple[Spot, int], ...]:
        return _spread(self.spots)


def _spread(spots: tuple[Spot, ...]) -> tuple[tuple[Spot, int], ...]:
    """Devices per rack, in first-seen order."""
    out: dict[Spot, int] = {}
    for s in spots:
        out[s] = out.get(s, 0) + 1
    return tuple(out.items())


@dataclass(frozen=True)
class Floor:
    """The devices of one site shape and where they stand."""

    shape: SiteLayout
    per_row: int
    _parts: dict[str, tuple[_Part, ...]] = field(default_factory=dict, compare=False)
    _spots: dict[tuple[str, int], Spot] = field(default_factory=dict, compare=False)
    _all: dict[str, list[Spot]] = field(default_factory=dict, compare=False)

    def parts(self, role: str) -> tuple[_Part, ...]:
        out = self._parts.get(role)
        if out is None:
            out = self._parts[role] = tuple(self._build_parts(role))
        return out

    def _build_parts(self, role: str) -> Iterator[_Part]:
        first = 0
        for sec, row0 in zip(self.shape.sections, self.shape.starts(self.per_row), strict=True):
            n = sec.per_copy(role)
            if n:
                # Where each rack of copy 0 stands, once a rack (a switch rack holds many of the role).
                at: dict[int, Spot] = {}
                spots = tuple(at.get(lay) or at.setdefault(lay, sec.spot(row0, 0, lay, self.per_row))
                              for lay, _ in sec.where(role))
                yield _Part(first, sec.copies, n, spots, sec.rows(self.per_row))
                first += sec.copies * n

    def count(self, role: str) -> int:
        return sum(p.copies * p.per_copy for p in self.parts(role))

    def spots(self, role: str) -> list[Spot]:
        """Where every device of ``role`` stands, in number order (for the switch layers, whose
        devices pair up many to many: built a rack at a time, read by index)."""
        out = self._all.get(role)
        if out is None:
            # A rack's devices repeated from its count, in C (a campus site has thousands of a role).
            out = self._all[role] = list(chain.from_iterable(starmap(repeat, self.racks(role, 0, self.count(role))))) \
                if self._in_order(role) else [self._spot(role, i) for i in range(self.count(role))]
        return out

    def _in_order(self, role: str) -> bool:
        """Whether the role's racks, walked in number order, never come back to a rack (then
        :meth:`racks`' per-rack counts, in order, spell out each device's rack)."""
        return all(p.per_copy == len(p.spots) and list(p.spots) == sorted(p.spots) for p in self.parts(role))

    def spot(self, role: str, index: int) -> Spot:
        """Where the ``index``-th (0-based) device of ``role`` stands."""
        out = self._spots.get((role, index))
        if out is None:
            out = self._spots[(role, index)] = self._spot(role, index)
        return out

    def _spot(self, role: str, index: int) -> Spot:
        for p in self.parts(role):
            if index < p.first + p.copies * p.per_copy:
                copy, local = divmod(index - p.first, p.per_copy)
                row, pos = p.spots[local]
                return row + copy * p.step, pos
        raise LimitError(f"the site has {self.count(role)} devices of role '{role}'; asked for index {index}",
                         key="role")

    def racks(self, role: str, first: int, count: int) -> list[tuple[Spot, int]]:
        """Devices ``[first, first + count)`` of ``role`` by rack, in index order: [(spot, devices)]."""
        out: dict[Spot, int] = {}
        end = first + count
        for p in self.parts(role):
            lo, hi = max(first, p.first), min(end, p.first + p.copies * p.per_copy)
            if lo >= hi:
                continue
            for copy in range((lo - p.first) // p.per_copy, (hi - 1 - p.first) // p.per_copy + 1):
                base = p.first + copy * p.per_copy
                a, b = max(lo, base) - base, min(hi, base + p.per_copy) - base
                # A whole copy is copy 0's racks moved down the rows: counted once per part.
                spread = p.whole if (a, b) == (0, p.per_copy) else _spread(p.spots[a:b])
                for (row, pos), n in spread:
                    key = (row + copy * p.step, pos)
                    out[key] = out.get(key, 0) + n
        return list(out.items())


#: The last placement's floors (:func:`floors`).
_LAST: list[tuple[Placement, tuple[Floor, ...]]] = []


def floors(placement: Placement) -> tuple[Floor, ...]:
    """One floor per site shape, in the cluster's shape order: the same floors for the same placement
    (the last one asked for), so the build's fabric views and its cable plan find each device's spot
    once, not once a consumer. The placement is held, so its identity stands for its sections."""
    if _LAST and _LAST[0][0] is placement:
        return _LAST[0][1]
    out = tuple(Floor(shape, placement.racks_per_row) for shape in placement.sites)
    _LAST[:] = [(placement, out)]
    return out


def section_of(shape: SiteLayout, role: str) -> Section | None:
    """The first section of ``shape`` that holds ``role``."""
    return next((sec for sec in shape.sections if sec.per_copy(role)), None)
