"""The cable plan and the rack elevations as CSV: streamed a chunk of rows at a time.

Only formatting: the rows come from :mod:`bom.cableplan.rows` (and the placement); memory stays
constant however long the plan is. Text that came from catalogs (part numbers, cable types)
goes through :func:`~bom.outputs.writers.common.safe_text`, checked once per distinct value.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Iterable, Sequence
from typing import TextIO

from bom.cableplan.rows import no_cycle_collection
from bom.model.records import Cell, PlanRow
from bom.outputs.writers.common import csv_writer, safe_text

#: Rows handed to ``csv.writer.writerows`` at a time (and between two progress updates).
CHUNK = 4096


#: A device's place on a row: its columns ``[start, end)`` and the column of its name (which keys them).
Place = tuple[int, int, int]

#: What makes the csv module quote a field (then the row goes through ``csv.writer``).
_SPECIAL = frozenset(',"\r\n')


def _plain(value: Cell) -> bool:
    return not (isinstance(value, str) and _SPECIAL.intersection(value))


class _Safe:
    """Rows whose catalog-text columns are safe, each distinct tuple of them checked once.

    ``plain``: whether every row of the last chunk can be joined with commas as it is (the
    text columns hold nothing to quote; the other columns are our own identifiers, catalog ids
    and numbers, which never need quoting): the same bytes ``csv.writer`` writes, three times
    faster.
    """

    def __init__(self, columns: Sequence[int]) -> None:
        self.columns = tuple(columns)
        one = operator.itemgetter(*self.columns) if len(self.columns) == 1 else None
        self.get = (lambda r: (one(r),)) if one else operator.itemgetter(*self.columns) if self.columns else None
        self.ok: set[object] = set()
        self.quoted: set[object] = set()
        self.plain = False

    def __call__(self, chunk: list[PlanRow]) -> list[PlanRow]:
        self.plain = self.get is not None
        if self.get is None:
            return chunk
        get, ok = self.get, self.ok
        if ok.issuperset(map(get, chunk)):   # the usual case: every tuple of catalog text seen and plain
            return chunk
        for n, row in enumerate(chunk):
            key = get(row)
            if key in ok:
                continue
            if key in self.quoted:
                self.plain = False
                continue
            fixed = [safe_text(v) if isinstance(v, str) else v for v in key]
            if fixed == list(key):
                (ok if all(_plain(v) for v in key) else self.quoted).add(key)
                self.plain = self.plain and key in ok
                continue
            self.plain = False
            cells = list(row)
            for i, v in zip(self.columns, fixed, strict=True):
                cells[i] = v
            chunk[n] = tuple(cells)
        return chunk


class _Lines:
    """A chunk's rows as CSV lines where no field needs quoting: one C-level format a row (``str()`` of
    each field, as ``csv.writer`` writes it), and the text of the columns rows share (``repeats``: a link
    group's medium, rate, cable, lengths and what the run passes, 10 of a plan row's 35 fields) made once
    per distinct value and looked up: 15-20 % less formatting a row (no float or int made text again)."""

    #: Distinct shared texts kept (a plan has hundreds; past this many the cache starts again).
    KEEP = 65_536

    def __init__(self, width: int, repeats: tuple[int, int] | None,
                 places: tuple[Place, Place] | None = None) -> None:
        self.fmt = ",".join(["%s"] * width)
        self.width = width
        (a, a_end, _), (b, b_end, _) = places or ((0, 0, 0), (0, 0, 0))
        # Each place is followed by two columns (its port and module), the far end's by the shared ones.
        self.places = places if places and repeats and b == a_end + 2 and repeats[0] == b_end + 2 else None
        self.devices: tuple[dict[Cell, str], dict[Cell, str]] = ({}, {})
        self.repeats = repeats if repeats is not None and 0 < repeats[0] < repeats[1] <= width else None
        self.texts: dict[tuple[object, ...], str] = {}
        if self.repeats is not None:
            start, end = self.repeats
            self.pre = ",".join(["%s"] * start) + ","
            self.post = "," + ",".join(["%s"] * (width - end)) if end < width else ""

    def _text(self, shared: tuple[object, ...]) -> str:
        if len(self.texts) >= self.KEEP:
            self.texts.clear()
        text = self.texts[shared] = ",".join(map(str, shared))
        return text

    def __call__(self, rows: list[PlanRow]) -> list[str]:
        if self.places is not None and self.repeats is not None:
            return self._placed(rows)
        if self.repeats is None:
            fmt = self.fmt
            return [fmt % r for r in rows]
        start, end = self.repeats
        pre, post, get, miss = self.pre, self.post, self.texts.get, self._text
        if not post:
            return [pre % r[:start] + (get(r[start:]) or miss(r[start:])) for r in rows]
        return [pre % r[:start] + (get(r[start:end]) or miss(r[start:end])) + post % r[end:] for r in rows]


    def _place(self, side: int, r: PlanRow) -> str:
        assert self.places is not None
        start, end, key = self.places[side]
        made = self.devices[side]
        if len(made) >= self.KEEP:
            made.clear()
        text = made[r[key]] = ",".join(map(str, r[start:end]))
        return text

    def _placed(self, rows: list[PlanRow]) -> list[str]:
        """Rows with both ends' places: each place's text (six columns) made once per device and found by
        the device's name (a string whose hash is kept; a device stands in one place), the columns
        between written by one f-string (``str()`` of each value, as ``%s`` writes it)."""
        assert self.places is not None and self.repeats is not None
        (a, a1, ak), (_, b1, bk) = self.places
        s, e = self.repeats
        a2, b2 = a1 + 1, b1 + 1
        ag, bg, tg, miss, place = self.devices[0].get, self.devices[1].get, self.texts.get, self._text, self._place
        pre = "%s," * a
        if self.width == e + 2:   # the full profile: both labels last
            e1 = e + 1
            return [f"{pre % r[:a]}{ag(r[ak]) or place(0, r)},{r[a1]},{r[a2]},{bg(r[bk]) or place(1, r)},{r[b1]},"
                    f"{r[b2]},{tg(r[s:e]) or miss(r[s:e])},{r[e]},{r[e1]}" for r in rows]
        post = ",%s" * (self.width - e)
        return [f"{pre % r[:a]}{ag(r[ak]) or place(0, r)},{r[a1]},{r[a2]},{bg(r[bk]) or place(1, r)},{r[b1]},"
                f"{r[b2]},{tg(r[s:e]) or miss(r[s:e])}{post % r[e:]}" for r in rows]


def write_csv(rows: Iterable[PlanRow], header: Sequence[str], fh: TextIO,
              text_columns: Sequence[int] = (), progress: Callable[[int], None] | None = None,
              also: Callable[[list[PlanRow]], None] | None = None,
              view: Callable[[list[PlanRow]], list[PlanRow]] | None = None,
              shown: Callable[[list[PlanRow]], None] | None = None,
              repeats: tuple[int, int] | None = None, places: tuple[Place, Place] | None = None) -> int:
    """Write ``header`` and ``rows`` to ``fh``; returns the number of rows.

    ``text_columns``: columns holding catalog text (made safe for spreadsheets); ``progress``
    is told how many rows each chunk had; ``also`` gets every chunk too (the plan's rules and
    tallies, as the rows are); ``view`` turns a chunk into the columns written (a profile), and
    ``shown`` gets each written chunk (the workbook writer, so the plan is made once for both files);
    ``repeats``: the columns ``[start, end)`` of the written rows that rows share (a plan's link group
    on one run: :data:`bom.cableplan.rows.REPEATS`), formatted once per distinct value (:class:`_Lines`);
    ``places``: each end's place (columns and the device name's column), each device's formatted once.
    """
    out = csv_writer(fh)
    out.writerow(header)
    lines = _Lines(len(header), repeats, places)
    safe = _Safe(text_columns)
    it = iter(rows)
    n = 0
    with no_cycle_collection():   # the rows make no cycles: reference counting frees each chunk
        while chunk := list(itertools.islice(it, CHUNK)):
            written = safe(view(chunk) if view is not None else chunk)
            if safe.plain:
                fh.write("\n".join(lines(written)))
                fh.write("\n")
            else:
                out.writerows(written)
            if shown is not None:
                shown(written)
            if also is not None:
                also(chunk if view is not None else written)
            n += len(chunk)
            if progress is not None:
                progress(len(chunk))
    return n
