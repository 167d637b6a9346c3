"""Cables added, removed, re-patched and replaced between two cable plans, merged as two streams.

A row is known by its near end, ``(fabric, hop, a_device, a_port)``: the same near end with another
far end is a re-patch (``move``), with both ends kept and another cable or module a ``replace``, a near
end only the old plan has a ``remove``, only the new plan an ``add``. Device names carry their rack
(bom/names.py), as the phases' re-cabled links count them (``bom.costing.phases.recabled``): a device
that changes rack takes its cables with it, each one a move.

Both plans are generated in the same order (fabric by fabric, site by site and hop by hop, or hop by hop
and site by site: :mod:`bom.links.registry`), so the two streams are walked side by side, section by
section (fabric, hop, near site): a row waits only for its partner in the other stream's same section,
and a section's unmatched rows are settled as soon as both streams have left it. What is held at once
is the rows not yet matched: the rows that differ within the sections being walked, plus the rows of a
section only one plan has until the other stream leaves it, or to the end when the other plan never
enters it (a fabric or hop only one design has: its rows; ``held_max`` says how many). A
million-GPU plan against itself with a parameter that moves no cable holds none but each stream's current row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from operator import itemgetter

from bom.cableplan.rows import COL
from bom.diff.records import CablesJson
from bom.model.hops import HopKind
from bom.model.records import PlanRow

Key = tuple[object, ...]
Section = tuple[object, ...]
#: A change: (action, the old plan's row or None, the new plan's row or None).
Move = tuple[str, PlanRow | None, PlanRow | None]
Sink = Callable[[Move], None]
#: A plan's device name -> the device it is (names carry racks; a rack may change between designs).
Resolve = Callable[[str], object]

ACTIONS = ("add", "remove", "move", "replace")
_C = COL
_KEY = tuple(_C[k] for k in ("fabric", "hop", "a_device", "a_port"))
_FAR = tuple(_C[k] for k in ("b_device", "b_port"))
#: What is bought for a row: the cable and its sold length, the modules at its ends.
_PARTS = tuple(_C[k] for k in ("a_module", "b_module", "medium", "rate_gbps", "cable_type", "cable_part",
                               "sold_length_m"))
_A_SITE = _C["a_site"]
_LINE = (HopKind.SITE_SITE, HopKind.FIBRE_PAIR)


def _logical(r: PlanRow, resolve: Resolve) -> Key:
    return r[_C["fabric"]], r[_C["hop"]], resolve(str(r[_C["a_device"]])), r[_C["a_port"]]


key: Callable[[PlanRow], Key] = itemgetter(*_KEY)
_far = itemgetter(*_FAR)
_parts = itemgetter(*_PARTS)
_site_section = itemgetter(_C["fabric"], _C["hop"], _A_SITE)
_HOP, _FABRIC = _C["hop"], _C["fabric"]


def _section(r: PlanRow) -> Section:
    # the line side's rows go span by span and wavelength by wavelength, each at both sites' muxes, its
    # fibre pairs between them: the whole line (a few thousand rows at most) is one section
    return (r[_FABRIC], "line", "") if r[_HOP] in _LINE else _site_section(r)


def classify(old: PlanRow, new: PlanRow) -> str | None:
    """The change between two rows of one near end (None: the same cable in the same ports)."""
    if _far(old) != _far(new):
        return "move"
    if _parts(old) != _parts(new):
        return "replace"
    return None


@dataclass
class CableChanges:
    """Counts of each change and the old plan's links moved (a set: bounded by the changes)."""

    compared: bool = True
    same_rows: int = 0
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ACTIONS, 0))
    links: set[str] = field(default_factory=set)
    held_max: int = 0
    reentered: int = 0   # sections a stream came back to after leaving (never, by the registry's order)

    @property
    def same(self) -> bool:
        return not any(self.counts.values())

    def to_json(self) -> CablesJson:
        c = self.counts
        return {"compared": self.compared, "same": self.same_rows, "added": c["add"], "removed": c["remove"],
                "moved": c["move"], "replaced": c["replace"], "moved_links": len(self.links),
                "held_max": self.held_max}


class _Side:
    """One plan's stream: its current row, the sections it has left, its rows waiting for a partner."""

    def __init__(self, rows: Iterable[PlanRow]) -> None:
        self.it: Iterator[PlanRow] = iter(rows)
        self.row: PlanRow | None = next(self.it, None)
        self.section: Section | None = _section(self.row) if self.row is not None else None
        self.left: set[Section] = set()
        self.waiting: dict[Section, dict[Key, PlanRow]] = {}

    def passed(self, s: Section | None) -> bool:
        return self.row is None or s in self.left

    def advance(self) -> tuple[Section | None, bool]:
        """The next row; the section left (if the stream left one) and whether it came back to one."""
        before = self.section
        self.row = r = next(self.it, None)
        # most rows stay in their section: its fabric and hop are the same objects, the site an equal text
        now = self.section = None if r is None else before if (
            before is not None and r[_HOP] is before[1] and r[_FABRIC] is before[0] and r[_A_SITE] == before[2]
        ) else _section(r)
        if now == before:
            return None, False
        if before is not None:
            self.left.add(before)
        return before, now in self.left


def merge(old: Iterable[PlanRow], new: Iterable[PlanRow], sink: Sink | None = None,
          logical: tuple[Resolve, Resolve] | None = None) -> CableChanges:
    """The two plans merged by near end; every change handed to ``sink`` (in the merge's order).

    ``logical``: each plan's device name -> the device (bom.diff.devices.Logical); a section's rows left
    unmatched by name are then paired by their near device and port, each a move with both ends (a
    device whose rack changes takes its cables along)."""
    out = CableChanges()
    a, b = _Side(old), _Side(new)
    held = 0

    def emit(action: str, o: PlanRow | None, n: PlanRow | None) -> None:
        out.counts[action] += 1
        if action in ("remove", "move") and o is not None:
            out.links.add(str(o[_C["link_id"]]))
        if sink is not None:
            sink((action, o, n))

    def settle(s: Section) -> None:
        nonlocal held
        gone, came = a.waiting.pop(s, {}), b.waiting.pop(s, {})
        held -= len(gone) + len(came)
        if logical is not None and gone and came:
            by_device = {_logical(r, logical[1]): r for r in came.values()}
            for k, r in list(gone.items()):
                n = by_device.pop(_logical(r, logical[0]), None)
                if n is not None:
                    emit("move", r, n)
                    del gone[k], came[key(n)]
        for r in gone.values():
            emit("remove", r, None)
        for r in came.values():
            emit("add", None, r)

    def take(me: _Side, other: _Side, old_side: bool) -> None:
        nonlocal held
        r = me.row
        assert r is not None
        s, k = _section(r), key(r)
        partner = other.waiting.get(s, {}).pop(k, None)
        if partner is None:
            me.waiting.setdefault(s, {})[k] = r
            held += 1
            out.held_max = max(out.held_max, held)
        else:
            held -= 1
            o, n = (r, partner) if old_side else (partner, r)
            change = classify(o, n)
            if change is None:
                out.same_rows += 1
            else:
                emit(change, o, n)
        left, back = me.advance()
        out.reentered += back
        if left is not None and other.passed(left):
            settle(left)
        if me.row is None:   # this stream is done: every section the other has left is settled
            for sec in [x for x in (*me.waiting, *other.waiting) if other.passed(x)]:
                settle(sec)

    def pair(o: PlanRow, n: PlanRow) -> None:
        """Both heads at one near end (identical plans walk here only): no row waits."""
        change = classify(o, n)
        if change is None:
            out.same_rows += 1
        else:
            emit(change, o, n)
        for me, other in ((a, b), (b, a)):
            left, back = me.advance()
            out.reentered += back
            if left is not None and other.passed(left):
                settle(left)
        if a.row is None or b.row is None:
            for sec in [x for x in (*a.waiting, *b.waiting) if a.passed(x) and b.passed(x)]:
                settle(sec)

    while a.row is not None or b.row is not None:
        sa, sb = a.section, b.section
        if a.row is not None and b.row is not None and sa == sb:
            if key(a.row) == key(b.row):
                pair(a.row, b.row)
                continue
            take(a, b, True)
            take(b, a, False)
        elif a.row is not None and b.passed(sa):
            take(a, b, True)
        elif b.row is not None and a.passed(sb):
            take(b, a, False)
        else:   # neither stream has seen the other's section: walk both
            take(a, b, True)
            take(b, a, False)
    for s in [*a.waiting, *b.waiting]:
        settle(s)
    return out


def apply(old: Iterable[PlanRow], moves: Iterable[Move]) -> list[PlanRow]:
    """The old plan with the moves applied (rows by near end): the new plan's rows (a check of the move
    list; it holds a plan, so for tests and small plans)."""
    rows = {key(r): r for r in old}
    moves = list(moves)
    for _, o, _ in moves:   # every row taken out first: a moved row may take a near end another one leaves
        if o is not None:
            del rows[key(o)]
    for _, _, n in moves:
        if n is not None:
            assert key(n) not in rows
            rows[key(n)] = n
    return list(rows.values())
