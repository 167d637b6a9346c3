"""``bom faults``' Markdown (the report section), workbook (sheet Faults, with Interruptions and Redundancy)
and terminal text: format only, from the faults JSON (:class:`bom.faults.result.FaultsJson`)."""

from __future__ import annotations

import datetime as dt

from openpyxl import Workbook

from bom.faults.result import FaultsJson
from bom.model.records import Cell
from bom.outputs.faults_text import DOMAIN_HEADER, domain_cells, summary_lines
from bom.outputs.writers.common import markdown_text
from bom.outputs.writers.xlsx import COUNT, USD0, header_row, paper_setup, put_cell, to_bytes

RATE_HEADER = ("category", "group", "part", "units", "rate per unit-day", "stops the job", "per day", "over 54 days",
               "source")
OPTION_HEADER = ("option", "built", "units", "capex USD", "goodput", "goodput gain", "USD per useful GPU-hour",
                 "change", "why")
PCT = "0.00%"


def write_faults_markdown(j: FaultsJson) -> bytes:
    m = markdown_text
    out = [f"# What breaks when something breaks: {m(j['name'])}", "", *summary_lines(j), "",
           "## Failure domains, worst first", "", "| " + " | ".join(DOMAIN_HEADER) + " |",
           "|---|---|---:|---:|---:|---:|---|---|---|---|"]
    for d in j["domains"]:
        c = domain_cells(d)
        out.append(f"| {c[0]} | {m(str(c[1]))} | {d['count']:,} | {d['gpus_cut']:,} | {d['domains_broken']:,} | "
                   f"{d['bisection_lost']:.3%} | {c[6]} | {c[7]} | {c[8]} | {m(d['why'])} |")
    out += ["", "## Interruptions", "", "| " + " | ".join(RATE_HEADER[:-1]) + " |",
            "|---|---|---|---:|---:|---|---:|---:|"]
    for r in j["interruptions"]:
        rate = f"{r['rate_per_unit_day']:.3g}" if r["rate_per_unit_day"] is not None else "not published"
        out.append(f"| {m(r['category'])} | {m(r['group'])} | {r['part']} | {r['units']:,} | {rate} | "
                   f"{'yes' if r['stops_job'] else 'no'} | {r['per_day']:.4f} | {r['over_54_days']:.1f} |")
    out += ["", "Sources: " + "; ".join(sorted({m(r["source"]) for r in j["interruptions"]})), "",
            "## Redundancy priced", "", "| " + " | ".join(OPTION_HEADER) + " |",
            "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for o in j["redundancy"]:
        def num(v: float | None, f: str) -> str:
            return "n/a" if v is None else format(v, f)
        out.append(f"| {o['option']} | {'yes' if o['built'] else 'no'} | {o['units']:,} | "
                   f"{num(o['capex_usd'], ',.0f')} | "
                   f"{num(o['goodput'], '.4%')} | {num(o['goodput_gain'], '+.4%')} | "
                   f"{num(o['usd_per_useful_gpu_hour'], '.4f')} | {num(o['usd_per_useful_gpu_hour_change'], '+.4f')} | "
                   f"{m(o['why'])} |")
    return ("\n".join(out) + "\n").encode()


def write_faults_xlsx(j: FaultsJson, on: dt.date | None = None) -> bytes:
    wb = Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = "Faults"
    header_row(ws, list(DOMAIN_HEADER), [12, 40, 10, 12, 12, 12, 8, 8, 50, 50])
    for r, d in enumerate(j["domains"], start=2):
        for col, value in enumerate(domain_cells(d), start=1):
            put_cell(ws, r, col, value, COUNT if col in (3, 4, 5) else PCT if col == 6 else None)
    paper_setup(ws, "Faults")
    ws = wb.create_sheet("Interruptions")
    header_row(ws, list(RATE_HEADER), [28, 14, 8, 12, 14, 8, 12, 12, 80])
    for r, row in enumerate(j["interruptions"], start=2):
        cells: tuple[Cell, ...] = (row["category"], row["group"], row["part"], row["units"], row["rate_per_unit_day"],
                  "yes" if row["stops_job"] else "no", row["per_day"], row["over_54_days"], row["source"])
        for col, value in enumerate(cells, start=1):
            put_cell(ws, r, col, value, COUNT if col == 4 else None)
    paper_setup(ws, "Interruptions")
    ws = wb.create_sheet("Redundancy")
    header_row(ws, list(OPTION_HEADER), [18, 8, 8, 14, 10, 10, 14, 10, 80])
    for r, o in enumerate(j["redundancy"], start=2):
        values = (o["option"], "yes" if o["built"] else "no", o["units"], o["capex_usd"], o["goodput"],
                  o["goodput_gain"], o["usd_per_useful_gpu_hour"], o["usd_per_useful_gpu_hour_change"], o["why"])
        for col, value in enumerate(values, start=1):
            put_cell(ws, r, col, value, USD0 if col == 4 else PCT if col in (5, 6) else None)
    paper_setup(ws, "Redundancy")
    return to_bytes(wb, f"{j['name']}: failure domains and goodput", on, "What breaks when something breaks")
