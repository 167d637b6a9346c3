"""The review report (HTML with an inline SVG diagram), the Markdown summary, JSON and CSV."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from typing import Any

from bom.lines import CATEGORIES
from bom.report import Report
from bom.resources import data_dir
from bom.writers.common import safe_text


def _env(autoescape: bool) -> Any:
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(data_dir("templates"))),
                             autoescape=autoescape, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters["num"] = lambda v, d=0: f"{v:,.{d}f}"
    env.filters["usd"] = lambda v: f"{v:,.0f} USD"
    env.filters["pct"] = lambda v: f"{v:.1%}"
    return env


def _context(r: Report) -> dict[str, Any]:
    j = r.to_json()
    sources = Counter(line.price_source for line in r.lines)
    by_category = [(c, sum(x.price_usd for x in r.lines if x.category == c)) for c in CATEGORIES]
    t = r.tco
    tco_rows = [("Hardware (BOM)", f"{t.hardware_usd:,.0f} USD"),
                ("  of it network", f"{t.network_usd:,.0f} USD"),
                ("Installation", f"{t.installation_usd:,.0f} USD"), ("Capex", f"{t.capex_usd:,.0f} USD"),
                ("Energy per year", f"{t.energy_per_year:,.0f} USD"),
                ("Support per year", f"{t.support_per_year:,.0f} USD"),
                ("Dark fibre per year", f"{t.dark_fibre_per_year:,.0f} USD"),
                ("Space per year", f"{t.space_per_year:,.0f} USD"),
                ("Opex per year", f"{t.opex_per_year:,.0f} USD"), ("TCO", f"{t.tco_usd:,.0f} USD"),
                ("Cost per GPU-hour", f"{t.usd_per_gpu_hour:,.4f} USD"),
                ("Network share of IT power", f"{t.network_power_share:.1%}")]
    return {"j": j, "t": j["totals"], "inputs": r.inputs, "lines": r.lines, "tco_rows": tco_rows,
            "by_category": [(c, v) for c, v in by_category if v], "description": r.model.scenario.description,
            "estimates": sources["estimate"], "quotes": sources["quote"], "lists": sources["list"]}


def write_html(r: Report) -> bytes:
    from bom.cabling import build_note
    from bom.elevation import samples
    from bom.writers.diagram import diagram

    ctx = _context(r)
    ctx["d"] = diagram(r)
    ctx["elevations"], ctx["cabling"] = samples(r.model.placement), build_note(r.model)
    return _env(True).get_template("report.html.j2").render(**ctx).encode()


def write_markdown(r: Report) -> bytes:
    return _env(False).get_template("summary.md.j2").render(**_context(r)).encode()


def write_json(r: Report) -> bytes:
    return (json.dumps(r.to_json(), indent=2, ensure_ascii=False) + "\n").encode()


CSV_COLS = ["tier", "fabric", "hop", "category", "catalog_id", "sku", "description", "vendor", "quantity",
            "unit", "unit_price_usd", "extended_usd", "unit_power_w", "extended_power_w", "price_source",
            "as_of", "source"]


def write_csv(r: Report) -> bytes:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLS)
    for x in r.lines:
        row = [x.tier, x.fabric, x.hop, x.category, x.catalog_id, x.sku, x.description, x.vendor,
               int(x.quantity) if x.unit == "each" else x.quantity, x.unit, x.unit_price_usd,
               round(x.price_usd, 2), x.unit_power_w, round(x.power_w, 3), x.price_source, x.as_of, x.source]
        w.writerow([safe_text(v) if isinstance(v, str) else v for v in row])
    return buf.getvalue().encode()
