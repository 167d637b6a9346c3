"""A sweep's files: every design one row (CSV, JSON), a workbook (Points, Frontier, Sweep) and an HTML report
with the frontier plotted (inline SVG, as the comparison report draws its charts). All are made from the
sweep's document (:class:`bom.model.sweep.SweepJson`) only, so they do not depend on how the designs ran."""

from __future__ import annotations

import datetime as dt
import json
import math
import shlex
from dataclasses import dataclass
from typing import Any

from openpyxl import Workbook
from openpyxl.styles import Font

from bom.model.sweep import FiguresJson, PointJson, SweepJson
from bom.outputs.writers.common import csv_text
from bom.outputs.writers.compare_text import COLOURS, fmt_value
from bom.outputs.writers.documents import environment
from bom.outputs.writers.xlsx import COUNT, SHARE, header_row, paper_setup, put_cell, to_bytes

#: The figures' columns, each with its label and how a value prints (the compare report's formats).
FIGURES: dict[str, tuple[str, str]] = {
    "platform": ("platform", "text"), "compute_switch": ("compute switch", "text"), "gpus": ("GPUs", "num0"),
    "sites": ("sites", "num0"), "capex_usd": ("capex (USD)", "num0"), "tco_usd": ("TCO (USD)", "num0"),
    "usd_per_gpu_hour": ("cost per GPU-hour (USD)", "num3"),
    "usd_per_useful_gpu_hour": ("cost per useful GPU-hour (USD)", "num3"),
    "facility_mw": ("facility power (MW)", "num2"), "it_mw": ("IT power (MW)", "num2"),
    "copper_share": ("copper share of links", "pct"), "network_capex_share": ("network share of capex", "pct"),
    "job_days": ("job (days)", "num1"), "deadline_days": ("deadline (days)", "num1"),
    "deadline_met": ("deadline met", "text"), "in_service": ("in service", "text"),
    "check_errors": ("rule errors", "num0"), "check_warnings": ("rule warnings", "num0"),
}
XLSX_FORMATS = {"num0": COUNT, "num1": "#,##0.0", "num2": "#,##0.00", "num3": "0.000", "pct": SHARE}


def rebuild(doc: SweepJson, point: PointJson) -> str:
    """The command lines that rebuild the point in full with ``bom build``."""
    pid = point["id"]
    return f"bom sweep {shlex.quote(doc['file'])} --point {pid} > {pid}.yaml && bom build {pid}.yaml"


#: Before an axis' key in a column's name: the value set (``axis:gpus``), not the figure built (``gpus``).
AXIS = "axis:"


def header(doc: SweepJson) -> list[str]:
    return ["id", "feasible", "frontier", "refused_by", "reason", *(AXIS + k for k in doc["axes"]), *FIGURES,
            "rebuild"]


def _value(v: Any) -> Any:
    return "" if v is None else json.dumps(v) if isinstance(v, (dict, list, bool)) else v


def rows(doc: SweepJson, only: set[str] | None = None) -> list[list[Any]]:
    out = []
    for p in doc["points"]:
        if only is not None and p["id"] not in only:
            continue
        f: dict[str, Any] = dict(p["figures"] or {})
        row = [p["id"], p["feasible"], p["frontier"], p["refused_by"] or "", p["reason"] or "",
               *(_value(p["overrides"].get(k)) for k in doc["axes"]), *(_value(f.get(k)) for k in FIGURES),
               rebuild(doc, p)]
        out.append(row)
    return out


def write_sweep_csv(doc: SweepJson) -> bytes:
    return csv_text(header(doc), rows(doc)).encode()


def write_sweep_json(doc: SweepJson) -> bytes:
    return (json.dumps(doc, indent=2) + "\n").encode()


def _sheet(wb: Workbook, title: str, doc: SweepJson, only: set[str] | None) -> None:
    ws = wb.create_sheet(title)
    names = header(doc)
    header_row(ws, names, [9, 9, 9, 24, 40, *(16 for _ in doc["axes"]), *(14 for _ in FIGURES), 40])
    hows = {i: FIGURES[k][1] for i, k in enumerate(names) if k in FIGURES}
    for r, row in enumerate(rows(doc, only), start=2):
        for c, v in enumerate(row):
            how = hows.get(c)
            put_cell(ws, r, c + 1, v, XLSX_FORMATS.get(how or "") if isinstance(v, (int, float)) else None)
    ws.freeze_panes = "B2"
    ws.auto_filter.ref = ws.dimensions
    paper_setup(ws, f"{doc['sweep']}: {title}")


def write_sweep_xlsx(doc: SweepJson) -> bytes:
    """Sheets Points (every design), Frontier (the frontier's, best first) and Sweep (axes, limits, counts)."""
    wb = Workbook()
    summary = wb.active
    assert summary is not None
    summary.title = "Sweep"
    facts: list[tuple[str, Any]] = [("sweep", doc["sweep"]), ("base scenario", doc["base"]),
                                    ("priced and scheduled on", doc["date"])]
    facts += [(f"axis {k}", ", ".join(map(str, v))) for k, v in doc["axes"].items()]
    facts += [(f"constraint {k}", str(v)) for k, v in doc["constraints"].items()]
    facts += [(f"objective {o['figure']}", o["goal"]) for o in doc["objectives"]]
    facts += [(f"designs {k}", v) for k, v in doc["counts"].items()]
    for r, (k, v) in enumerate(facts, start=1):
        put_cell(summary, r, 1, k)
        put_cell(summary, r, 2, v, COUNT if isinstance(v, int) else None)
        summary.cell(row=r, column=1).font = Font(bold=True)
    summary.column_dimensions["A"].width = 36
    summary.column_dimensions["B"].width = 60
    _sheet(wb, "Points", doc, None)
    _frontier_sheet(wb, doc)
    return to_bytes(wb, f"{doc['sweep']}: design sweep", dt.date.fromisoformat(doc["date"]),
                    "Every design of the sweep and its Pareto frontier")


def _frontier_sheet(wb: Workbook, doc: SweepJson) -> None:
    order = {pid: i for i, pid in enumerate(doc["frontier"])}
    ranked: SweepJson = {**doc, "points": sorted((p for p in doc["points"] if p["id"] in order),
                                                  key=lambda p: order[p["id"]])}
    _sheet(wb, "Frontier", ranked, None)


# --- the report -----------------------------------------------------------------------------

#: The plot's size and its margins [px].
WIDTH, HEIGHT = 640, 400
#: The mark of a design built but refused (a constraint, a design rule).
REFUSED = "#c0504d"
LEFT, RIGHT, TOP, BOTTOM = 78, 20, 34, 56


@dataclass
class Dot:
    id: str
    x: float
    y: float
    frontier: bool
    title: str
    refused: bool = False


@dataclass
class Tick:
    at: float
    text: str


def _nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """Round values spanning ``lo`` to ``hi`` (1, 2 or 5 times a power of ten apart)."""
    if hi <= lo:
        hi = lo + (abs(lo) or 1.0) * 0.01
    raw = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    first = math.floor(lo / step) * step
    return [first + i * step for i in range(int(math.ceil((hi - first) / step)) + 1)]


def _tick_text(v: float, step: float, how: str) -> str:
    """A tick's label with the decimals its step needs (2.5, not 2.500), a share as per cent."""
    if how == "pct":
        return f"{v:.{max(0, -math.floor(math.log10(step * 100) + 1e-9))}%}"
    return f"{v:,.{max(0, -math.floor(math.log10(step) + 1e-9))}f}"


def staircase(front: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The frontier as the steps it is: from each design across to the next one's x at its own y, then to
    the next (``front`` best first by x). Between two designs nothing better than the first's y is built, so
    a straight line would draw designs that do not exist."""
    out = front[:1]
    for (_, y), (nx, ny) in zip(front, front[1:], strict=False):
        out += [(nx, y), (nx, ny)]
    return out


def plot_axes(doc: SweepJson) -> tuple[str, str]:
    """The figures on x and y: the first two objectives (one objective: against capex, or TCO)."""
    names = [o["figure"] for o in doc["objectives"]]
    if len(names) >= 2:
        return names[0], names[1]
    return names[0], "capex_usd" if names[0] != "capex_usd" else "tco_usd"


def scatter(doc: SweepJson) -> dict[str, Any]:
    """The frontier plot: every feasible design a dot, the frontier's joined as a step line."""
    xk, yk = plot_axes(doc)
    goals = {o["figure"]: o["goal"] for o in doc["objectives"]}
    pts = [(p, p["figures"]) for p in doc["points"] if p["figures"]]
    pts = [(p, f) for p, f in pts if isinstance(f.get(xk), (int, float)) and isinstance(f.get(yk), (int, float))]
    if not pts:
        return {"dots": [], "xticks": [], "yticks": [], "line": "", "xlabel": "", "ylabel": "", "empty": True}
    xs = [float(_get(f, xk)) for _, f in pts]
    ys = [float(_get(f, yk)) for _, f in pts]
    xt, yt = _nice_ticks(min(xs), max(xs)), _nice_ticks(min(ys), max(ys))
    w, h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def sx(v: float) -> float:
        return round(LEFT + w * (v - xt[0]) / (xt[-1] - xt[0]), 2)

    def sy(v: float) -> float:
        return round(TOP + h - h * (v - yt[0]) / (yt[-1] - yt[0]), 2)

    xhow, yhow = FIGURES[xk][1], FIGURES[yk][1]
    dots = [Dot(p["id"], sx(x), sy(y), p["frontier"], f"{p['id']}: {_over(p)}; {FIGURES[xk][0]} "
                f"{fmt_value(x, xhow)}, {FIGURES[yk][0]} {fmt_value(y, yhow)}"
                + ("" if p["feasible"] else f"; refused by {p['refused_by']}"), not p["feasible"])
            for (p, _), x, y in zip(pts, xs, ys, strict=True)]
    xsign = -1 if goals.get(xk) == "max" else 1
    front = sorted((d for d in dots if d.frontier), key=lambda d: (xsign * d.x, d.y))
    line = " ".join(f"{x},{y}" for x, y in staircase([(d.x, d.y) for d in front]))
    # The better corner: left or right by the x objective's goal, down or up by the y one's (screen y grows down).
    better_x = LEFT + 8 if goals.get(xk, "min") == "min" else WIDTH - RIGHT - 8
    better_y = HEIGHT - BOTTOM - 8 if goals.get(yk, "min") == "min" else TOP + 8
    return {"dots": sorted(dots, key=lambda d: (d.frontier, not d.refused)), "front": front, "line": line,
            "xticks": [Tick(sx(v), _tick_text(v, xt[1] - xt[0], xhow)) for v in xt],
            "yticks": [Tick(sy(v), _tick_text(v, yt[1] - yt[0], yhow)) for v in yt],
            "xlabel": FIGURES[xk][0] + (" (higher is better)" if goals.get(xk) == "max" else ""),
            "ylabel": FIGURES[yk][0] + (" (higher is better)" if goals.get(yk) == "max" else ""), "empty": False,
            "better": (better_x, better_y), "refused": any(d.refused for d in dots),
            "x0": LEFT, "x1": WIDTH - RIGHT, "y0": TOP, "y1": HEIGHT - BOTTOM}


def _get(f: FiguresJson, key: str) -> Any:
    return dict(f)[key]


def _over(p: PointJson) -> str:
    return ", ".join(f"{k.rsplit('.', 1)[-1]} {v}" for k, v in p["overrides"].items())


def write_sweep_html(doc: SweepJson) -> bytes:
    order = {pid: i for i, pid in enumerate(doc["frontier"])}
    front = sorted((p for p in doc["points"] if p["id"] in order), key=lambda p: order[p["id"]])
    shown = [k for k in FIGURES if k not in ("usd_per_useful_gpu_hour",)]
    refused = [p for p in doc["points"] if not p["feasible"]]
    return environment(True).get_template("sweep.html.j2").render(
        doc=doc, plot=scatter(doc), width=WIDTH, height=HEIGHT, colours=COLOURS, refused_colour=REFUSED, front=front,
        figures=[(k, FIGURES[k][0]) for k in shown], fmt=_cell, refused=refused[:200],
        more_refused=max(0, len(refused) - 200), over=_over).encode()


def _cell(key: str, f: FiguresJson | None) -> str:
    if f is None:
        return ""
    v: Any = dict(f).get(key)
    how = FIGURES[key][1]
    if v is None:
        return "-"
    if how == "text" or isinstance(v, bool):
        return str(v).lower() if isinstance(v, bool) else str(v)
    return fmt_value(float(v), how)
