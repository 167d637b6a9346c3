"""The re-cabling work order: per rack and U, which cable to move from which port to which, which
to add with what part, which to replace or remove, and the parts to order or return.

Rows only; the writer (:mod:`bom.outputs.writers.workorder`) formats them as CSV and a workbook.
"""

from __future__ import annotations

from collections import Counter

from bom.model.records import Cell
from bom.verify.check import Problem, Verification

HEADER = ("rack", "u", "device", "port", "action", "cable_id", "what to do", "part", "from", "to")
PARTS_HEADER = ("action", "part", "quantity", "why")


def _u(value: Cell) -> tuple[int, int | str]:
    return (0, value) if isinstance(value, int) else (1, str(value))


def _modules(p: Problem) -> str:
    return " / ".join(m for m in (p.field("a_module"), p.field("b_module")) if m)


def rows(v: Verification) -> list[tuple[Cell, ...]]:
    """One row per action, sorted by rack, U, device and port."""
    out: list[tuple[Cell, ...]] = []
    for p in v.missing:
        part = p.field("cable_part")
        out.append((p.field("a_rack"), p.field("a_u"), p.field("a_device"), p.field("a_port"), "add",
                    p.field("cable_id"), f"add the cable from here to {p.end('b')} (rack {p.field('b_rack') or '-'} "
                    f"U {p.field('b_u') or '-'})" + (f"; modules {_modules(p)}" if _modules(p) else ""),
                    part, "", p.end("b")))
    for p in v.miswired:
        # Keep the end that sees something wrong and move the far end of the cable in it; an end
        # that sees nothing leaves the move to the other end.
        side, other, found = ("a", "b", p.found_a) if p.found_a else ("b", "a", p.found_b)
        out.append((p.field(f"{side}_rack"), p.field(f"{side}_u"), p.field(f"{side}_device"),
                    p.field(f"{side}_port"), "move", p.field("cable_id"),
                    f"the cable in this port reaches {found}: move its far end to {p.end(other)}", "",
                    found, p.end(other)))
    for p in v.wrong_speed:
        out.append((p.field("a_rack"), p.field("a_u"), p.field("a_device"), p.field("a_port"), "replace",
                    p.field("cable_id"), f"the link runs at {p.found_rate:g} Gbit/s, the plan "
                    f"{p.field('rate_gbps'):g} Gbit/s: fit the plan's cable" +
                    (f" and modules {_modules(p)}" if _modules(p) else ""), p.field("cable_part"), "", p.end("b")))
    for u in v.unexpected:
        rack, unit = v.placed.where(u.device)
        dev = v.placed.name(u.device)
        out.append((rack, unit, dev, "", "remove", "", f"{u.found}: {u.why}; remove it (or correct the plan)",
                    "", u.found, ""))
    out.sort(key=lambda r: (str(r[0]), _u(r[1]), str(r[2]), str(r[3])))
    return out


def parts(v: Verification) -> list[tuple[Cell, ...]]:
    """The parts to order (the plan's, for cables to add or replace) and to return."""
    order: Counter[str] = Counter()
    for p in v.missing:
        if p.field("cable_part"):
            order[p.field("cable_part")] += 1
    for p in v.wrong_speed:
        for f in ("cable_part", "a_module", "b_module"):
            if p.field(f):
                order[p.field(f)] += 1
    out: list[tuple[Cell, ...]] = [("order", part, n, "cables to add or replace")
                                   for part, n in sorted(order.items())]
    if v.wrong_speed:
        out.append(("return", "the cable and modules found in place", len(v.wrong_speed), "replaced: wrong speed"))
    if v.unexpected:
        out.append(("return", "cables not in the plan", len(v.unexpected), "removed: unexpected"))
    return out
