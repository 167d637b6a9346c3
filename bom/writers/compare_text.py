"""The comparison as HTML (inline SVG bar charts, no network) and JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass

from bom.compare import Comparison
from bom.writers.text import _env

#: The charts of the comparison report: (metric, title, how to print a value).
CHARTS = (("scale_out_copper_share", "Scale-out (compute fabric) copper share (links)", "pct"),
          ("scale_out_copper_cost_share", "Scale-out (compute fabric) copper share (cost)", "pct"),
          ("scale_out_links_per_gpu", "Scale-out (compute fabric) links per GPU", "num2"),
          ("modules_per_gpu", "Optical modules per GPU (whole network)", "num2"),
          ("network_capex_per_gpu", "Network capex per GPU (USD, whole network)", "num0"),
          ("usd_per_gpu_hour", "Cost per GPU-hour (USD)", "num3"))


@dataclass
class Bar:
    label: str
    value: float
    text: str
    x: float
    h: float


def _fmt(value: float, how: str) -> str:
    return {"pct": f"{value:.1%}", "num0": f"{value:,.0f}", "num2": f"{value:,.2f}", "num3": f"{value:,.3f}"}[how]


def charts(c: Comparison, width: int = 520, height: int = 180) -> list[tuple[str, str, list[Bar]]]:
    rows = c.rows()
    out = []
    step = width / max(1, len(rows))
    for metric, title, how in CHARTS:
        values = [r[metric] for r in rows]
        top = max(values) or 1.0
        bars = [Bar(g.platform.id, v, _fmt(v, how), i * step, (height - 60) * v / top)
                for i, (g, v) in enumerate(zip(c.generations, values, strict=True))]
        out.append((metric, title, bars))
    return out


def write_compare_html(c: Comparison) -> bytes:
    j = c.to_json()
    return _env(True).get_template("compare.html.j2").render(j=j, charts=charts(c), metrics=list(c.rows()[0])).encode()


def write_compare_json(c: Comparison) -> bytes:
    return (json.dumps(c.to_json(), indent=2) + "\n").encode()
