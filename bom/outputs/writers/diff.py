"""``bom diff``'s Markdown and workbook (format only: the figures come from :class:`bom.diff.result.Diff`,
the work order's rows from :mod:`bom.diff.workorder`).

The workbook: Summary (every figure that moves, old and new as values, each delta a formula; the order's
buy, return and net as formulas over the Order delta sheet), Order delta (one row per part number, the
quantity's delta a formula) and Work order (the cables to move, add, take out or replace).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from openpyxl import Workbook

from bom.diff.records import FigureJson
from bom.diff.result import Diff
from bom.diff.workorder import HEADER
from bom.model.records import Cell
from bom.outputs.writers.common import markdown_text
from bom.outputs.writers.xlsx import COUNT, USD0, define_name, fx, header_row, paper_setup, put_cell, to_bytes

#: Work-order rows the workbook takes; the work-order CSV has them all (openpyxl makes a cell object per
#: value, about 50,000 a second: 2,000 rows of 17 columns are under a second, a campus's million would be hours).
WORK_ORDER_ROWS = 2_000
ORDER_HEADER = ("catalog_id", "sku", "category", "action", "old quantity", "new quantity", "delta quantity",
                "unit price USD", "delta USD", "lead time days")
NUM = "#,##0.####"


def _sections(d: Diff) -> list[tuple[str, list[FigureJson]]]:
    return [("Size", d.size), ("TCO", d.tco), ("Power and cooling", d.power), ("Copper and optics", d.optics)]


def _md_figures(title: str, figs: list[FigureJson]) -> list[str]:
    if not figs:
        return []
    return [f"## {title}", "", "| figure | old | new | delta |", "|---|---:|---:|---:|",
            *(f"| `{f['name']}` | {f['old']:,.4g} | {f['new']:,.4g} | {f['delta']:+,.4g} |" for f in figs), ""]


def write_diff_markdown(d: Diff) -> bytes:
    """The diff as Markdown: each section that moves, the order delta whole."""
    m = markdown_text
    out = [f"# {m(d.old)} against {m(d.new)}", ""]
    if d.same:
        out += ["The same design: no part, figure, device, rule or cable differs.", ""]
    if d.order:
        buy = sum(o["delta_usd"] for o in d.order if o["delta_usd"] > 0)
        back = -sum(o["delta_usd"] for o in d.order if o["delta_usd"] < 0)
        out += ["## Order delta", "", f"Buy {buy:,.0f} USD, return {back:,.0f} USD, net {buy - back:+,.0f} USD.", "",
                "| action | part | category | old | new | delta | unit USD | delta USD | lead time |",
                "|---|---|---|---:|---:|---:|---:|---:|---:|"]
        out += [f"| {o['action']} | {m(o['sku'])} | {m(o['category'])} | {o['old_quantity']:,.0f} | "
                f"{o['new_quantity']:,.0f} | {o['delta_quantity']:+,.0f} | {o['unit_price_usd']:,.2f} | "
                f"{o['delta_usd']:+,.0f} | "
                + (f"{o['lead_time_days']:.0f} d |" if o["lead_time_days"] is not None else "unknown |")
                for o in d.order]
        out.append("")
    if d.categories:
        out += ["## Money by category", "", "| category | old USD | new USD | delta USD |", "|---|---:|---:|---:|",
                *(f"| {m(c['category'])} | {c['old_usd']:,.0f} | {c['new_usd']:,.0f} | {c['delta_usd']:+,.0f} |"
                  for c in d.categories), ""]
    for title, figs in _sections(d):
        out += _md_figures(title, figs)
    if d.rules:
        out += ["## Design rules newly broken", "",
                *(f"- `{r['id']}` ({r['severity']}): {r['violations']:,} violation(s): {m(r['checks'])}"
                  for r in d.rules), ""]
    dv, c = d.devices, d.cables.to_json()
    out += ["## Devices and cables", "",
            (f"- Devices: {dv.added:,} added, {dv.removed:,} removed, {dv.moved:,} moved." if dv.compared
             else "- Devices: not compared (a side is an output JSON)."),
            (f"- Cables: {c['added']:,} added, {c['removed']:,} removed, {c['moved']:,} re-patched, "
             f"{c['replaced']:,} replaced; {c['moved_links']:,} links of the old plan moved or taken out "
             f"(the work order lists each)." if c["compared"]
             else "- Cables: not compared (a side is an output JSON)."),
            ""]
    return "\n".join(out).encode()


def _summary(wb: Workbook, d: Diff, orders: int) -> None:
    ws = wb.active
    ws.title = "Summary"
    header_row(ws, ["Figure", "Old", "New", "Delta"], [44, 20, 20, 20])
    row = 2
    last = orders + 1
    for name, formula in (("order: buy USD", f"SUMIF('Order delta'!I2:I{last},\">0\")"),
                          ("order: return USD", f"-SUMIF('Order delta'!I2:I{last},\"<0\")"),
                          ("order: net USD", f"SUM('Order delta'!I2:I{last})")):
        put_cell(ws, row, 1, name)
        put_cell(ws, row, 4, fx(formula), USD0)
        define_name(wb, "diff_" + name.split(": ")[1].split()[0], f"Summary!$D${row}")
        row += 1
    money: list[FigureJson] = [{"name": c["category"], "old": c["old_usd"], "new": c["new_usd"],
                                "delta": c["delta_usd"]} for c in d.categories]
    for title, figs in [("Money by category (USD)", money), *_sections(d)]:
        if not figs:
            continue
        row += 1
        put_cell(ws, row, 1, title)
        row += 1
        for f in figs:
            put_cell(ws, row, 1, f["name"])
            put_cell(ws, row, 2, f["old"], NUM)
            put_cell(ws, row, 3, f["new"], NUM)
            put_cell(ws, row, 4, fx(f"C{row}-B{row}"), NUM)
            if f["name"].startswith(("totals.", "tiers.")):
                define_name(wb, "diff_" + f["name"].replace(".", "_").replace("-", "_"), f"Summary!$D${row}")
            row += 1
    paper_setup(ws, f"{d.old} against {d.new}")


def _order(wb: Workbook, d: Diff) -> None:
    ws = wb.create_sheet("Order delta")
    header_row(ws, list(ORDER_HEADER), [18, 28, 16, 9, 12, 12, 12, 14, 16, 12])
    for r, o in enumerate(d.order, start=2):
        for col, value in enumerate((o["catalog_id"], o["sku"], o["category"], o["action"], o["old_quantity"],
                                     o["new_quantity"]), start=1):
            put_cell(ws, r, col, value, COUNT if col > 4 else None)
        put_cell(ws, r, 7, fx(f"F{r}-E{r}"), COUNT)
        put_cell(ws, r, 8, o["unit_price_usd"], USD0)
        put_cell(ws, r, 9, o["delta_usd"], USD0)
        put_cell(ws, r, 10, o["lead_time_days"], COUNT)
    paper_setup(ws, "Order delta")


def _work_order(wb: Workbook, rows: Sequence[tuple[Cell, ...]]) -> None:
    ws = wb.create_sheet("Work order")
    header_row(ws, list(HEADER), [14, 5, 24, 10, 9, 12, 70, 18, 30, 30, 10, 12, 12, 30, 30, 30, 30])
    for r, values in enumerate(rows[:WORK_ORDER_ROWS], start=2):
        for col, value in enumerate(values, start=1):
            put_cell(ws, r, col, value)
    if len(rows) > WORK_ORDER_ROWS:
        put_cell(ws, WORK_ORDER_ROWS + 2, 1, f"{len(rows) - WORK_ORDER_ROWS:,} more rows in the work-order CSV "
                                             "(<name>-workorder.csv)")
    paper_setup(ws, "Work order")


def write_diff_xlsx(d: Diff, work_order: Sequence[tuple[Cell, ...]], on: dt.date | None = None) -> bytes:
    wb = Workbook()
    _summary(wb, d, len(d.order))
    _order(wb, d)
    _work_order(wb, work_order)
    return to_bytes(wb, f"{d.old} against {d.new}", on, "What changes between two AI cluster designs")
