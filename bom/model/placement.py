"""Placement: every node, switch, appliance, server and PDU in a rack at a rack unit (data types and
the closed-form questions they answer; :mod:`bom.placement` packs the racks and lays them out).

A site is laid out as *sections*, each a run of racks of one layout repeated ``copies`` times:

- one section per block shape: a block is a compute group (a scalable unit on a rail-optimised
  compute fabric, a row of racks on a ToR one) with its compute racks and, in the middle of its
  first row, its network rack(s) holding the block's leaves of every fabric and whatever did not
  fit a compute rack (a ToR cannot live in an NVL72 rack); full blocks share one shape, a partial
  last block has its own;
- the shared sections: network racks (spines, cores, the storage appliances' leaves), management
  racks (fabric managers, management servers) and storage racks (appliances).

Racks stand in rows of ``racks_per_row`` in section order; each section starts a row and each
copy of it takes whole rows (:meth:`Section.spot`), so a rack's row and position are arithmetic on
its section, copy and place in the copy, and so is every device's place: the counts are closed form
per section, :meth:`Placement.racks` and :meth:`Placement.elevation` are generators, and
:meth:`Placement.locate` walks a handful of sections, never a per-device table. Sites of equal
shape are laid out once.

Numbering (what :meth:`Placement.locate` takes, 0-based within a site, as the fabrics count):
nodes by node index (block by block); a fabric's leaves group-major (SU or rack), then plane,
then rail; spines pod-major, then cores; every other role in the order its section lists it
(block by block for block devices, then the shared sections).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property

from bom import names
from bom.errors import LimitError
from bom.roles import RackKind


@dataclass(frozen=True)
class Rack:
    id: str
    site: int
    row: int
    position: int          # 1-based along its row
    kind: RackKind
    u_budget: int
    power_budget_w: float
    catalog_id: str = ""


@dataclass(frozen=True)
class Slot:
    u: int                 # lowest U, 1-based (0 for a side-mounted 0U device)
    height: int
    device: str            # names.device(rack id, role, index in that rack)
    role: str
    catalog_id: str
    power_w: float
    fabric: str | None


@dataclass(frozen=True)
class Item:
    """A kind of device to place."""

    role: str
    catalog_id: str
    height: int
    power_w: float
    fabric: str | None = None
    managed: bool = True   # has a management port on the out-of-band fabric


@dataclass(frozen=True)
class RackType:
    catalog_id: str
    u_budget: int
    power_budget_w: float
    pdu: Item | None = None
    pdus: int = 0          # per rack, A/B feeds
    pdu_capacity_w: float = 0.0   # what one PDU carries (derated)


@dataclass(frozen=True)
class Layout:
    """One rack's contents: (item, lowest U) in packing order."""

    kind: RackKind
    rack: RackType
    slots: tuple[tuple[Item, int], ...]

    @property
    def used_u(self) -> int:
        return sum(i.height for i, _ in self.slots)

    @property
    def power_w(self) -> float:
        return sum(i.power_w for i, _ in self.slots)


@dataclass(frozen=True)
class Section:
    """``copies`` runs of the racks ``layouts`` in each site of a shape."""

    copies: int
    layouts: tuple[Layout, ...]
    counts: Counter[str] = field(default_factory=Counter, compare=False)   # devices of each role a copy
    _where: dict[str, tuple[tuple[int, int], ...]] = field(default_factory=dict, compare=False)
    _nth: dict[str, tuple[int, ...]] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        # By layout object: racks an item fills alone share one (bom.placement.racks.pack).
        seen: dict[int, Counter[str]] = {}
        for lay in self.layouts:
            roles = seen.get(id(lay))
            if roles is None:
                roles = seen[id(lay)] = Counter(item.role for item, _ in lay.slots)
            self.counts.update(roles)

    def per_copy(self, role: str) -> int:
        return self.counts[role]

    def rows(self, per_row: int) -> int:
        """Rows one copy takes."""
        return -(-len(self.layouts) // per_row)

    def stride(self, per_row: int) -> int:
        """Places from one copy's first rack to the next copy's: whole rows for a block's copies."""
        return self.rows(per_row) * per_row if self.copies > 1 else len(self.layouts)

    def spot(self, start: int, copy: int, layout: int, per_row: int) -> tuple[int, int]:
        """(row, position), 1-based, of layout ``layout`` of copy ``copy`` of a section whose first
        rack stands at place ``start`` (:meth:`SiteLayout.starts`): the one rule for where a rack
        stands."""
        row, pos = divmod(start + copy * self.stride(per_row) + layout, per_row)
        return row + 1, pos + 1

    def where(self, role: str) -> tuple[tuple[int, int], ...]:
        """(layout, slot) of each device of ``role`` in one copy, in order: made on first use (only
        the cable plan asks, and a build need not pay for it)."""
        out = self._where.get(role)
        if out is None:
            if not self._where:   # every role's at once: the consumers ask for several of one section
                self._where.update(self._every_where())
            out = self._where.get(role)
            if out is None:
                out = self._where[role] = ()
        return out

    def _every_where(self) -> Iterator[tuple[str, tuple[tuple[int, int], ...]]]:
        """:meth:`where` of every role: each layout object's slots by role found once (racks packed alike share
        one), then rack by rack."""
        by_layout: dict[int, dict[str, list[int]]] = {}
        found: dict[str, list[tuple[int, int]]] = {}
        for r, lay in enumerate(self.layouts):
            roles = by_layout.get(id(lay))
            if roles is None:
                roles = by_layout[id(lay)] = {}
                for s, (item, _) in enumerate(lay.slots):
                    roles.setdefault(item.role, []).append(s)
            for role, slots in roles.items():
                found.setdefault(role, []).extend([(r, s) for s in slots])
        return ((role, tuple(at)) for role, at in found.items())

    def nth(self, role: str) -> tuple[int, ...]:
        """Each device of ``role`` in one copy (in :meth:`where`'s order): its number among its rack's
        devices of that role, from 1 (what its name carries)."""
        out = self._nth.get(role)
        if out is None:
            out = self._nth[role] = tuple(sum(1 for i, _ in self.layouts[r].slots[:s + 1] if i.role == role)
                                          for r, s in self.where(role))
        return out

    @cached_property
    def block(self) -> bool:
        """A compute block's section (its copies hold nodes), not the shared racks'."""
        return any(lay.kind == RackKind.COMPUTE for lay in self.layouts)


@dataclass(frozen=True)
class SiteLayout:
    count: int                      # sites of this shape
    sections: tuple[Section, ...]   # in numbering order: a role's devices are numbered section by section
    order: tuple[int, ...] = ()     # the sections in the order they stand on the floor (default: as listed)
    reserve: int = 0                # rows after the shared racks for each site's own racks (its DCI equipment)
    _placed: dict[int, tuple[tuple[int, ...], int]] = field(default_factory=dict, compare=False)

    @property
    def standing(self) -> tuple[int, ...]:
        return self.order or tuple(range(len(self.sections)))

    @property
    def racks_per_site(self) -> int:
        return sum(s.copies * len(s.layouts) for s in self.sections)

    def starts(self, per_row: int) -> tuple[int, ...]:
        """Where each section's first rack stands, as a place number (row x ``per_row`` + position,
        0-based): a block section starts a row and each copy of it takes whole rows (a scalable
        unit's racks stand together, never half in another's row); the shared racks start a row and
        follow one another (the site's network, management and storage racks), then the rows kept
        for the site's own racks, in ``standing`` order."""
        return self._places(per_row)[0]

    def own_start(self, per_row: int) -> int:
        """Where a site's own racks (its DCI equipment) start: the rows kept after the shared racks."""
        return self._places(per_row)[1]

    def _places(self, per_row: int) -> tuple[tuple[int, ...], int]:
        found = self._placed.get(per_row)
        if found is None:
            found = self._placed[per_row] = self._walk(per_row)
        return found

    def _walk(self, per_row: int) -> tuple[tuple[int, ...], int]:
        out = [0] * len(self.sections)
        at, shared, own = 0, False, None

        def row_start(n: int) -> int:
            return -(-n // per_row) * per_row
        for k in self.standing:
            sec = self.sections[k]
            if sec.block and shared and own is None:   # the shared racks end: the site's own rows
                own = at = row_start(at)
                at += self.reserve * per_row
            if sec.block or not shared:
                at = row_start(at)
                shared = not sec.block
            out[k] = at
            at += sec.copies * sec.stride(per_row)
        return tuple(out), own if own is not None else row_start(at)


@dataclass(frozen=True)
class Placement:
    sites: tuple[SiteLayout, ...]
    racks_per_row: int
    own: tuple[Section | None, ...] = ()   # each site's own racks (its DCI equipment), site 1 first
    #: :meth:`site_sections` by site, made on first use (the cable plan locates every device).
    _sections: dict[int, list[tuple[int, Section, int]]] = field(default_factory=dict, compare=False, repr=False)

    # -- counts, closed form ------------------------------------------------------------
    def all_sections(self) -> Iterator[tuple[int, Section]]:
        """(sites it stands in, section): every shape's sections, then every site's own."""
        for shape in self.sites:
            for sec in shape.sections:
                yield shape.count, sec
        for own in self.own:
            if own is not None:
                yield 1, own

    def counts(self) -> dict[RackKind, int]:
        """Racks by kind over the whole cluster."""
        out = dict.fromkeys(RackKind, 0)
        for sites, sec in self.all_sections():
            for lay in sec.layouts:
                out[lay.kind] += sites * sec.copies
        return out

    @property
    def total(self) -> int:
        return sum(self.counts().values())

    def devices(self, role: str) -> int:
        """Devices of ``role`` in the whole cluster."""
        return sum(sites * sec.copies * sec.per_copy(role) for sites, sec in self.all_sections())

    def rack_types(self) -> Counter[str]:
        """Racks by catalog row."""
        out: Counter[str] = Counter()
        for sites, sec in self.all_sections():
            for lay in sec.layouts:
                out[lay.rack.catalog_id] += sites * sec.copies
        return out

    def by_item(self) -> Counter[Item]:
        """Every placed device kind and how many."""
        # Counted by the item object first (layouts share them; an Item's hash walks its fields), then by
        # value, in the order a walk meets them.
        items: dict[int, Item] = {}
        counts: dict[int, int] = {}
        for lay, n in self.layout_racks():
            for item, _ in lay.slots:
                key = id(item)
                if key in counts:
                    counts[key] += n
                else:
                    items[key], counts[key] = item, n
        out: Counter[Item] = Counter()
        for key, item in items.items():
            out[item] += counts[key]
        return out

    def layout_racks(self) -> list[tuple[Layout, int]]:
        """Each layout object and how many racks stand in it, in the order a walk of every rack meets them.
        Equal racks share one layout object (bom/placement/racks.py: pack), so a walk of these is a walk of
        every rack with each layout's racks summed first (by identity: a layout's hash walks its slots)."""
        layouts: dict[int, Layout] = {}
        racks: Counter[int] = Counter()
        for sites, sec in self.all_sections():
            for lay in sec.layouts:
                layouts.setdefault(id(lay), lay)
                racks[id(lay)] += sites * sec.copies
        return [(lay, racks[key]) for key, lay in layouts.items()]

    def own_spot(self, site: int, role: str, index: int) -> tuple[int, int]:
        """(row, position) of the ``index``-th device of ``role`` in ``site``'s own racks."""
        sec = self.own[site - 1] if site <= len(self.own) else None
        if sec is None or index >= sec.per_copy(role):
            raise LimitError(f"site {site} has no {role} {index + 1} in its own racks", key="role")
        shape = self._site_shape(site)
        return sec.spot(shape.own_start(self.racks_per_row), 0, sec.where(role)[index][0], self.racks_per_row)

    def own_key(self, site: int) -> tuple[int, int]:
        """What :meth:`own_spot` reads of ``site``: its own racks' section and its shape, by identity (sites
        whose own racks are packed alike share both, and so stand each device at the same place)."""
        return id(self.own[site - 1] if site <= len(self.own) else None), id(self._site_shape(site))

    def site_sections(self, site: int, shape: SiteLayout | None = None) -> list[tuple[int, Section, int]]:
        """(number, section, first place) of every section of ``site``, in numbering order: its
        shape's, then its own racks (number ``len(shape.sections)``)."""
        shape = shape or self._site_shape(site)
        per = self.racks_per_row
        out = [(k, sec, start) for k, (sec, start) in enumerate(zip(shape.sections, shape.starts(per), strict=True))]
        own = self.own[site - 1] if site <= len(self.own) else None
        if own is not None:
            out.append((len(shape.sections), own, shape.own_start(per)))
        return out

    # -- generators -----------------------------------------------------------------------
    def _site_shape(self, site: int) -> SiteLayout:
        first = 1
        for shape in self.sites:
            if site < first + shape.count:
                return shape
            first += shape.count
        raise LimitError(f"no site {site} (the cluster has {first - 1})", key="site")

    def _rack(self, site: int, spot: tuple[int, int], lay: Layout) -> Rack:
        row, pos = spot
        return Rack(names.rack(site, row, pos), site, row, pos, lay.kind, lay.rack.u_budget,
                    lay.rack.power_budget_w, lay.rack.catalog_id)

    def racks(self) -> Iterator[Rack]:
        """Every rack, by site, row and position."""
        for _lay, rack in self.laid_out():
            yield rack

    def laid_out(self) -> Iterator[tuple[Layout, Rack]]:
        """Every rack with its layout, by site, row and position."""
        site = 0
        for shape in self.sites:
            for _ in range(shape.count):
                site += 1
                for _k, _copy, lay, rack in self.site_racks(site, shape):
                    yield lay, rack

    def site_racks(self, site: int, shape: SiteLayout) -> Iterator[tuple[int, int, Layout, Rack]]:
        """(section number in ``shape``, copy, layout, rack) of every rack of ``site`` (of ``shape``),
        in row order."""
        per = self.racks_per_row
        for k, sec, start in self._standing(site, shape):
            for copy in range(sec.copies):
                for n, lay in enumerate(sec.layouts):
                    yield k, copy, lay, self._rack(site, sec.spot(start, copy, n, per), lay)

    def first_copies(self) -> Iterator[Rack]:
        """The racks of every section's first copy, in :meth:`racks`'s order: a section's copies follow
        its first, so the first rack of any layout (or kind) in a walk of every rack is among these."""
        per = self.racks_per_row
        for site, sec, start in self._every_standing():
            if sec.copies:
                for n, lay in enumerate(sec.layouts):
                    yield self._rack(site, sec.spot(start, 0, n, per), lay)

    def rack_rows(self) -> Iterator[tuple[int, int, Layout]]:
        """(site, row, layout) of every rack in :meth:`laid_out`'s order, no :class:`Rack` made: what a
        sum over every rack by row reads (a row's racks in the same order, so its sums are the same
        floats)."""
        per = self.racks_per_row
        for site, sec, start in self._every_standing():
            stride = sec.stride(per)
            for copy in range(sec.copies):
                at = start + copy * stride
                for n, lay in enumerate(sec.layouts):
                    yield site, (at + n) // per + 1, lay

    def site_rack_rows(self, site: int, shape: SiteLayout, own: bool) -> Iterator[tuple[int, Layout]]:
        """(row, layout) of ``site``'s racks in :meth:`rack_rows`'s order: its shape's sections' (``own``
        False: alike in every site of ``shape``, so a sum over them is made once per shape) or its own
        racks (``own`` True: they stand in rows of their own, kept after the shared racks)."""
        per, mine = self.racks_per_row, len(shape.sections)
        for k, sec, start in self._standing(site, shape):
            if (k == mine) != own:
                continue
            stride = sec.stride(per)
            for copy in range(sec.copies):
                at = start + copy * stride
                for n, lay in enumerate(sec.layouts):
                    yield (at + n) // per + 1, lay

    def site_row_copies(self, site: int, shape: SiteLayout) -> Iterator[tuple[list[tuple[int, Layout]], int, int]]:
        """:meth:`site_rack_rows` of ``site``'s shape sections (``own`` False), a section at a time: (its
        first copy's (row, layout) racks, copies, rows from one copy to the next), the copies standing in
        rows of their own (the section starts a row and a copy takes whole rows), so a sum by row over the
        first copy is each copy's; a section whose copies do not (a shared section that follows another
        in its row) is given a copy at a time (copies 1)."""
        per, mine = self.racks_per_row, len(shape.sections)
        for k, sec, start in self._standing(site, shape):
            if k == mine:
                continue
            stride = sec.stride(per)
            if sec.copies > 1 and start % per == 0 and stride % per == 0:
                yield [((start + n) // per + 1, lay) for n, lay in enumerate(sec.layouts)], sec.copies, stride // per
                continue
            for copy in range(sec.copies):
                at = start + copy * stride
                yield [((at + n) // per + 1, lay) for n, lay in enumerate(sec.layouts)], 1, 0

    def _every_standing(self) -> Iterator[tuple[int, Section, int]]:
        """(site, section, first place) of every section of every site, sites in order and each site's
        sections as :meth:`_standing` has them."""
        site = 0
        for shape in self.sites:
            for _ in range(shape.count):
                site += 1
                for _k, sec, start in self._standing(site, shape):
                    yield site, sec, start

    def _standing(self, site: int, shape: SiteLayout) -> list[tuple[int, Section, int]]:
        """(section number in ``shape``, section, first place) of every section of ``site``, in the order
        they stand on the floor: the site's own racks in the rows kept after the shared racks."""
        found = {k: (sec, start) for k, sec, start in self.site_sections(site, shape)}
        own = len(shape.sections)
        standing = list(shape.standing)
        at = next((i for i, k in enumerate(standing) if shape.sections[k].block and i
                   and not shape.sections[standing[i - 1]].block), len(standing))
        if own in found:
            standing.insert(at, own)
        return [(k, *found[k]) for k in standing]

    def _layout(self, rack: Rack) -> Layout:
        per = self.racks_per_row
        at = (rack.row - 1) * per + rack.position - 1
        for _, sec, start in self.site_sections(rack.site):
            copy, n = divmod(at - start, sec.stride(per))
            if 0 <= copy < sec.copies and n < len(sec.layouts):
                return sec.layouts[n]
        raise LimitError(f"no rack {rack.id}", key="rack")

    def elevation(self, rack: Rack) -> Iterator[Slot]:
        """The occupied slots of ``rack``, bottom up (0U devices first)."""
        seen: Counter[str] = Counter()
        for item, u in self._layout(rack).slots:
            seen[item.role] += 1
            yield Slot(u, item.height, names.device(rack.id, item.role, seen[item.role]), item.role,
                       item.catalog_id, item.power_w, item.fabric)

    def locate(self, role: str, site: int, index: int) -> tuple[Rack, Slot]:
        """The rack and slot of the ``index``-th (0-based) device of ``role`` in ``site`` (1-based)."""
        sec, first, copy, local = self._find(role, site, index)
        offset, slot_no = sec.where(role)[local]
        lay = sec.layouts[offset]
        rack = self._rack(site, sec.spot(first, copy, offset, self.racks_per_row), lay)
        item, u = lay.slots[slot_no]
        return rack, Slot(u, item.height, names.device(rack.id, role, sec.nth(role)[local]), role, item.catalog_id,
                          item.power_w, item.fabric)

    def names_of(self, role: str, site: int, index: int) -> tuple[int, str, int, str]:
        """What :meth:`locate` says of a device, as the cable plan names it: its rack's row, the rack's
        id, its U and its name (no rack or slot made: the plan names every device)."""
        sec, first, copy, local = self._find(role, site, index)
        offset, slot_no = sec.where(role)[local]
        row, pos = sec.spot(first, copy, offset, self.racks_per_row)
        rack = names.rack(site, row, pos)
        return row, rack, sec.layouts[offset].slots[slot_no][1], names.device(rack, role, sec.nth(role)[local])

    def _find(self, role: str, site: int, index: int) -> tuple[Section, int, int, int]:
        """The section of ``site`` the ``index``-th device of ``role`` stands in, its first place, the
        copy and the device's index in a copy."""
        left = index
        sections = self._sections.get(site)
        if sections is None:
            sections = self._sections[site] = self.site_sections(site)
        for _, sec, first in sections:
            n = sec.per_copy(role)
            if left < sec.copies * n:
                copy, local = divmod(left, n)
                return sec, first, copy, local
            left -= sec.copies * n
        raise LimitError(f"site {site} has {index - left} devices of role '{role}'; asked for index {index}",
                         key="role")
