"""The comparison as HTML (inline SVG bar charts, no network) and JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass

from bom.catalog.rows import CPO
from bom.costing.compare import Comparison, Generation
from bom.outputs.writers.compare_labels import change, fmt, label
from bom.outputs.writers.documents import environment
from bom.roles import FabricRole

#: The charts of the comparison report: (metric, title, how to print a value).
CHARTS = (("scale_up_copper_share", "Copper share of links: scale-up tier", "pct"),
          ("scale_out_copper_share", "Copper share of links: scale-out (compute fabric)", "pct"),
          ("cluster_copper_share", "Copper share of links: whole cluster (every tier)", "pct"),
          ("modules_per_gpu", "Pluggable optical modules per GPU (whole network)", "num2"),
          ("optics_power_w_per_gpu", "Optics power per GPU (W: pluggables, AOCs, CPO lasers)", "num1"),
          ("network_capex_per_gpu", "Network capex per GPU (USD, whole network)", "num0"),
          ("network_power_w_per_gpu", "Network power per GPU (W, whole network)", "num0"),
          ("usd_per_gpu_hour", "Cost per GPU-hour (USD, levelised)", "num3"))
#: Bar colours: switches with pluggable cages, co-packaged-optics switches, and a figure that misses a
#: fabric the other columns have (not comparable).
COLOURS = {"pluggable": "#305496", "cpo": "#2e8b57", "partial": "#b8bec8"}


@dataclass
class Bar:
    label: str
    value: float
    text: str
    x: float
    h: float
    lines: tuple[str, ...] = ()    # the label under the bar: platform, compute switch, year
    colour: str = COLOURS["pluggable"]


def fmt_value(value: float, how: str) -> str:
    """A chart's value as it prints: ``pct`` a share, ``numN`` with N decimals (the sweep's plot too)."""
    return {"pct": f"{value:.1%}", "num0": f"{value:,.0f}", "num1": f"{value:,.1f}", "num2": f"{value:,.2f}",
            "num3": f"{value:,.3f}"}[how]


def _table(c: Comparison) -> list[dict[str, object]]:
    """Every metric in words, each generation's value and its change from the previous one."""
    rows = c.rows()
    out: list[dict[str, object]] = []
    for m in rows[0]:
        cells = [{"text": fmt(m, r[m]), "change": change(m, r[m], rows[i - 1][m]) if i else ""}
                 for i, r in enumerate(rows)]
        out.append({"metric": m, "label": label(m), "cells": cells})
    return out


#: The narrowest slot per bar [px]: room for a platform id at 9 px under its bar.
MIN_STEP = 96


def chart_width(c: Comparison, width: int = 520) -> float:
    """The plot width: 520 px, wider when the bars would be too narrow for their labels."""
    return max(width, MIN_STEP * len(c.generations))


def charts(c: Comparison, width: int = 520, height: int = 180) -> list[tuple[str, str, list[Bar]]]:
    rows = c.rows()
    out = []
    step = chart_width(c, width) / max(1, len(rows))
    for metric, title, how in CHARTS:
        values = [r[metric] for r in rows]
        top = max(values) or 1.0
        bars = [Bar(g.label, v, fmt_value(v, how) + (" *" if metric in c.not_comparable(g) else ""), i * step,
                    (height - 60) * v / top, (g.platform.id, g.compute_switch, str(g.platform.year)),
                    COLOURS["partial" if metric in c.not_comparable(g) else "cpo" if _cpo(g) else "pluggable"])
                for i, (g, v) in enumerate(zip(c.generations, values, strict=True))]
        out.append((metric, title, bars))
    return out


def _cpo(g: Generation) -> bool:
    return g.report.model.fabrics[FabricRole.COMPUTE].first.leaf.form_factor == CPO


def write_compare_html(c: Comparison) -> bytes:
    return environment(True).get_template("compare.html.j2").render(
        comparison=c, charts=charts(c), width=chart_width(c) + 20, table=_table(c),
        kind_notes=list(zip(c.generations, c.kind_notes(), strict=True)), colours=COLOURS,
        any_cpo=any(_cpo(g) for g in c.generations),
        partial=[g.label for g in c.generations if c.not_comparable(g)]).encode()


def write_compare_json(c: Comparison) -> bytes:
    return (json.dumps(c.to_json(), indent=2) + "\n").encode()
