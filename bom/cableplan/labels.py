"""Each end's label as installers read it, and the cable plan's column profiles.

The label follows the data-centre identifier format of ANSI/TIA-606-B as it is usually quoted
(the standard itself was not read here): a cabinet is ``fs.xy`` (floor space, then its grid
location), a rack unit in it ``fs.xy-r`` and a port there ``fs.xy-r:P``. Here the floor space is
the site number and the hall's letter (one hall per site: ``A``), the grid location the row's
letter (``r01`` -> ``A``, ``r27`` -> ``AA``) and the rack's column along the row (``rk05`` -> ``05``),
``r`` the device's lowest rack unit (two digits; a 0U device, a vertical PDU, ``0U`` and its position
index: :func:`bom.names.unit`), ``P`` the plan's port, and for a link of several fibre runs the
run's mark (``p37#2``, as the plan's ``label`` names it). A device the placement does not stand in a
rack keeps its name: ``s1-router-01:p3``. So every end of the plan has a label of its own
(``complete.labels`` checks it).

>>> end_label("s1", "r03", "s1-r03-rk07", 12, "p17/2")
'1A.C07-12:p17/2'
>>> end_label("s2", "r28", "s2-r28-rk11", 1, "p1"), end_label("s1", "", "", "", "p3", "s1-router-01")
('2A.AB11-01:p1', 's1-router-01:p3')
>>> end_label("s1", "r01", "s1-r01-rk01", 0, "mgmt", "s1-r01-rk01-pdu-03")
'1A.A01-0U03:mgmt'
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from bom import names
from bom.errors import BomError
from bom.model.records import PlanRow

HALL = "A"


def row_letters(row: int) -> str:
    """1 -> A, 26 -> Z, 27 -> AA (spreadsheet column letters).

    >>> row_letters(1), row_letters(26), row_letters(27), row_letters(53)
    ('A', 'Z', 'AA', 'BA')
    """
    out = ""
    while row > 0:
        row, rest = divmod(row - 1, 26)
        out = chr(ord("A") + rest) + out
    return out


@lru_cache(maxsize=65536)   # one per rack unit in use (and 0U device), however many ports it has
def _prefix(site: str, row: str, rack: str, u: int | str | None, device: str = "") -> str | None:
    if u in ("", None):
        return None
    cabinet = _cabinet(site, row, rack)
    return None if cabinet is None else f"{cabinet}-{names.unit(int(str(u)), device)}"


@lru_cache(maxsize=4096)   # one per rack: its devices' prefixes share it
def _cabinet(site: str, row: str, rack: str) -> str | None:
    if not (site.startswith("s") and row.startswith("r") and "-rk" in rack):
        return None
    return f"{site[1:]}{HALL}.{row_letters(int(row[1:]))}{rack.rsplit('-rk', 1)[1]}"


def end_label(site: str, row: str, rack: str, u: int | str | None, port: str, device: str = "") -> str:
    # Only a 0U device's name places it (its position index); a racked device's U does.
    prefix = _prefix(site, row, rack, u, device if u in (0, "0") else "")
    return f"{prefix or device}:{port}"


def label_ports(label: str) -> tuple[str, str]:
    """Each end's port as the plan's ``label`` names it: the row's port, with the run's mark on a link
    of several fibre runs (``p37#2``).

    >>> label_ports("s1-r01-rk05-33:p37#2 / s1-r05-rk02-30:p1#2")
    ('p37#2', 'p1#2')
    """
    a, b = label.split(" / ", 1)
    return a[a.index(":") + 1:], b[b.index(":") + 1:]


#: The columns each profile prints, in order. ``full`` is every column of the plan, then both ends' labels.
PROFILES: dict[str, tuple[str, ...]] = {
    # Who pulls and terminates the cable: where each end goes, what sits there, what to lay.
    "installer": ("cable_id", "a_label", "b_label", "a_device", "a_port", "a_module", "b_device", "b_port",
                  "b_module", "medium", "cable_part", "sold_length_m", "bundle", "panels", "via"),
    # Who orders it: the part, its kind and length, what it carries and the modules at its ends.
    "procurement": ("cable_id", "link_id", "bundle", "tier", "fabric", "hop", "medium", "rate_gbps", "cable_type",
                    "cable_part", "sold_length_m", "strands", "a_module", "b_module"),
}
LABELS = ("a_label", "b_label")


def profile_columns(profile: str, fields: Sequence[str]) -> tuple[str, ...]:
    if profile == "full":
        return (*fields, *LABELS)
    if profile not in PROFILES:
        raise BomError(f"unknown profile {profile!r}: installer, procurement or full", key="--profile")
    return PROFILES[profile]


def profile_view(profile: str, fields: Sequence[str]) -> tuple[tuple[str, ...], Callable[[list[tuple[object, ...]]],
                                                                                         list[tuple[object, ...]]]]:
    """The profile's header and what turns a chunk of plan rows into its rows."""
    col = {f: i for i, f in enumerate(fields)}
    header = profile_columns(profile, fields)
    picks = [col.get(h) for h in header]
    labels = _Ends(fields)
    if profile == "full":   # the plan's row as it is, then the two labels (the common case: kept cheap)
        return header, labels.full
    ends = labels.ends

    def view(chunk: list[PlanRow]) -> list[tuple[object, ...]]:
        out = []
        for r in chunk:
            a, b = ends(r)
            labels = {"a_label": a, "b_label": b}
            out.append(tuple(r[i] if i is not None else labels[h] for h, i in zip(header, picks, strict=True)))
        return out

    return header, view


def plan_labels(fields: Sequence[str]) -> Callable[[PlanRow], tuple[str, str]]:
    """What gives a plan row's two end labels (the writers' and the ``complete.labels`` rule's one way)."""
    return _Ends(fields).ends


class _Ends:
    """A plan row's two end labels, each device's label prefix made once. :meth:`ends` (the
    ``complete.labels`` rule's) finds it by the device's place on the row (site, row, rack, U and name);
    :meth:`full` (the writers') by the device's name alone: the plan places each device once, so its
    name is its place's key there, a string whose hash is kept, where a place is a tuple made and
    hashed at each end of each row."""

    def __init__(self, fields: Sequence[str]) -> None:
        col = {f: i for i, f in enumerate(fields)}
        self.ga, self.gb = (operator.itemgetter(*(col[f"{s}_{k}"] for k in ("site", "row", "rack", "u", "port",
                                                                            "device")))
                            for s in ("a", "b"))
        self.wa, self.wb = (operator.itemgetter(*(col[f"{s}_{k}"] for k in ("site", "row", "rack", "u", "device")))
                            for s in ("a", "b"))
        self.li, self.ad, self.bd, self.pa, self.pb = (col[f] for f in ("label", "a_device", "b_device", "a_port",
                                                                           "b_port"))
        self.places: dict[tuple[object, ...], str] = {}
        self.devices: dict[object, str] = {}

    def _place(self, at: tuple[Any, ...]) -> str:
        if len(self.places) >= _PREFIXES:
            self.places.clear()
        site, row, rack, u, device = at
        p = self.places[at] = str(_prefix(site, row, rack, u, device if u in (0, "0") else "") or device)
        return p

    def _device(self, at: tuple[Any, ...]) -> str:
        if len(self.devices) >= _PREFIXES:
            self.devices.clear()
        p = self.devices[at[4]] = self.places.get(at) or self._place(at)
        return p

    def ends(self, r: PlanRow) -> tuple[str, str]:
        if names.RUN_MARK in r[self.li]:   # a run of a link of several: its ports as the label marks them
            a, b = self.ga(r), self.gb(r)
            pa, pb = label_ports(r[self.li])
            return end_label(a[0], a[1], a[2], a[3], pa, a[5]), end_label(b[0], b[1], b[2], b[3], pb, b[5])
        at, bt, get = self.wa(r), self.wb(r), self.places.get
        return f"{get(at) or self._place(at)}:{r[self.pa]}", f"{get(bt) or self._place(bt)}:{r[self.pb]}"

    def full(self, chunk: list[PlanRow]) -> list[tuple[object, ...]]:
        """The chunk's rows, each with its two labels after it."""
        get, prefix, wa, wb, ends = self.devices.get, self._device, self.wa, self.wb, self.ends
        li, ad, bd, pa, pb, mark = self.li, self.ad, self.bd, self.pa, self.pb, names.RUN_MARK
        return [(*r, f"{get(r[ad]) or prefix(wa(r))}:{r[pa]}", f"{get(r[bd]) or prefix(wb(r))}:{r[pb]}")
                if mark not in r[li] else (*r, *ends(r)) for r in chunk]


#: Device label prefixes :func:`plan_labels` keeps (a site's devices; it starts again past them).
_PREFIXES = 65536
