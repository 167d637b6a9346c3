"""The move list as a work order: per change, where to stand (rack, U, device, port), what to do, the
cable's old and new ends, and the parts to order and to return.

Rows only; :mod:`bom.outputs.writers.workorder` (the writer ``bom verify``'s work order uses) formats
them as CSV and a workbook.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator

from bom.cableplan.rows import COL
from bom.diff.cables import Move
from bom.model.records import Cell, PlanRow

HEADER = ("rack", "u", "device", "port", "action", "cable_id", "what to do", "part", "from", "to", "fabric", "hop",
          "link_id", "old_a", "old_b", "new_a", "new_b")
PARTS_HEADER = ("action", "part", "quantity", "why")
_C = COL


def _end(r: PlanRow | None, side: str) -> str:
    if r is None:
        return ""
    rack, u = r[_C[f"{side}_rack"]], r[_C[f"{side}_u"]]
    where = f" (rack {rack} U {u})" if rack else ""
    return f"{r[_C[f'{side}_device']]}:{r[_C[f'{side}_port']]}{where}"


def _cages(r: PlanRow) -> set[tuple[str, str, str]]:
    """The modules at a row's ends, per cage (two ports of a twin-port module share one)."""
    return {(str(r[_C[f"{s}_device"]]), str(r[_C[f"{s}_port"]]).split("/")[0], str(r[_C[f"{s}_module"]]))
            for s in ("a", "b") if r[_C[f"{s}_module"]]}


def _what(action: str, o: PlanRow | None, n: PlanRow | None) -> str:
    if action == "add":
        return f"add the cable from here to {_end(n, 'b')}"
    if action == "remove":
        return f"take out the cable from here to {_end(o, 'b')}"
    assert o is not None and n is not None
    if action == "replace":
        return "fit the new cable and modules between the same ports"
    near = "" if _end(o, "a") == _end(n, "a") else f"; its near end moves to {_end(n, 'a')}"
    part = "" if o[_C["cable_part"]] == n[_C["cable_part"]] else f" (a new cable: {n[_C['cable_part']]})"
    return f"move the far end from {_end(o, 'b')} to {_end(n, 'b')}{part}{near}"


def rows(moves: Iterable[Move]) -> Iterator[tuple[Cell, ...]]:
    """One row per change, in the merge's order (the plan's: fabric, site, hop), standing at the near end
    (the old plan's, the new plan's for a cable to add)."""
    for action, o, n in moves:
        at = o if o is not None else n
        assert at is not None
        part = (n or o)
        assert part is not None
        yield (at[_C["a_rack"]], at[_C["a_u"]], at[_C["a_device"]], at[_C["a_port"]], action,
               (o if o is not None else part)[_C["cable_id"]], _what(action, o, n), part[_C["cable_part"]],
               _end(o, "b") if o is not None else "", _end(n, "b") if n is not None else "",
               str(at[_C["fabric"]]), str(at[_C["hop"]]), o[_C["link_id"]] if o is not None else "",
               _end(o, "a"), _end(o, "b"), _end(n, "a"), _end(n, "b"))


def parts(moves: Iterable[Move]) -> list[tuple[Cell, ...]]:
    """What to order and to return: each cable the new rows bring and the old rows leave (a moved cable
    that keeps its part is neither), each module in a cage only the new rows (or only the old rows) of the
    move list fill. A cage a kept row shares with a changed one is counted as the changed row's."""
    order: Counter[str] = Counter()
    back: Counter[str] = Counter()
    came: set[tuple[str, str, str]] = set()
    gone: set[tuple[str, str, str]] = set()
    for _, o, n in moves:
        new = n[_C["cable_part"]] if n is not None else ""
        old = o[_C["cable_part"]] if o is not None else ""
        if new != old:
            order.update([new] if new else [])
            back.update([old] if old else [])
        came |= _cages(n) if n is not None else set()
        gone |= _cages(o) if o is not None else set()
    order.update(m for _, _, m in came - gone)
    back.update(m for _, _, m in gone - came)
    out: list[tuple[Cell, ...]] = [("order", p, q, "cables and modules the new plan adds or changes")
                                   for p, q in sorted(order.items())]
    return out + [("return", p, q, "cables and modules the new plan takes out or changes")
                  for p, q in sorted(back.items())]
