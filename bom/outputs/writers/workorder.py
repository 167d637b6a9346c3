"""The work order of ``bom verify`` as CSV (the actions, the parts) and a workbook (sheets
"Work order" and "Parts"). Format only: the rows come from :mod:`bom.verify.workorder`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import IO

from bom.model.records import Cell
from bom.outputs.publish import Output
from bom.outputs.writers.cabling_xlsx import StreamingWorkbook
from bom.outputs.writers.common import csv_text, safe_text

WIDTHS = {"rack": 14, "device": 24, "port": 10, "action": 9, "cable_id": 12, "what to do": 70, "part": 18,
          "from": 30, "to": 30, "why": 28}


def _safe(rows: Sequence[tuple[Cell, ...]]) -> list[tuple[Cell, ...]]:
    # Device and port names come from the neighbour files: nothing in them may read as a formula.
    return [tuple(safe_text(c) if isinstance(c, str) else c for c in r) for r in rows]


def _csv(header: Sequence[str], rows: Sequence[tuple[Cell, ...]]) -> bytes:
    return csv_text(header, rows).encode()


def output(name: str, header: Sequence[str], rows: Sequence[tuple[Cell, ...]], parts_header: Sequence[str],
           parts: Sequence[tuple[Cell, ...]]) -> Output:
    """``<name>-workorder.csv``, ``<name>-workorder-parts.csv`` and ``<name>-workorder.xlsx``."""

    def book(open_: Callable[[str], IO[bytes]]) -> None:
        wb = StreamingWorkbook(open_(f"{name}-workorder.xlsx"))
        try:
            wb.sheet("Work order", header, [WIDTHS.get(h, 8) for h in header]).append(_safe(rows))
            wb.sheet("Parts", parts_header, [WIDTHS.get(h, 40 if h == "part" else 10) for h in parts_header]
                     ).append(_safe(parts))
            wb.close()
        except BaseException:
            wb.abort()
            raise

    files = {f"{name}-workorder.csv": _csv(header, rows),
             f"{name}-workorder-parts.csv": _csv(parts_header, parts)}
    return Output(files, [((f"{name}-workorder.xlsx",), book)], what="the work order")
