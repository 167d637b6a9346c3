"""The Excel BOM and TCO workbook: every total a live formula over named inputs and the BOM.

Sheets: Summary, Inputs (every assumption a named cell), BOM, Links, Tiers, TCO. A person can
change a price, a quantity or an input and every total that depends on it follows.
"""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Sequence
from typing import Any

from openpyxl import Workbook
from openpyxl.chart import BarChart, Reference
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.workbook.properties import CalcProperties
from openpyxl.worksheet.worksheet import Worksheet

from bom.lines import CATEGORIES, FACILITY, Line
from bom.report import Report
from bom.writers.common import is_formula_like, reproducible_zip

USD = '#,##0.00 "USD"'
USD0 = '#,##0 "USD"'
WATT = '#,##0.0 "W"'
KW = '#,##0.0 "kW"'
COUNT = "#,##0"
SHARE = "0.0%"
HEAD = Font(bold=True, color="FFFFFF")
FILL = PatternFill("solid", fgColor="305496")
TIERS = ("compute", "scale-up", "scale-out", "scale-across")


def _put(ws: Worksheet, row: int, col: int, value: Any, fmt: str | None = None) -> None:
    cell = ws.cell(row=row, column=col)
    if isinstance(value, str) and not value.startswith("=="):
        cell.value = value
        if is_formula_like(value):
            cell.data_type = "s"   # user text that looks like a formula stays text
            cell.quotePrefix = True
    elif isinstance(value, str):
        cell.value = value[1:]    # "==..." marks one of our own formulas
    else:
        cell.value = value
    if fmt:
        cell.number_format = fmt


def _f(formula: str) -> str:
    """Our own formula (the extra "=" tells it apart from user text)."""
    return "=" + formula if formula.startswith("=") else "==" + formula


def _header(ws: Worksheet, names: Sequence[str], widths: Sequence[int]) -> None:
    for i, (name, width) in enumerate(zip(names, widths, strict=True), start=1):
        c = ws.cell(row=1, column=i, value=name)
        c.font, c.fill = HEAD, FILL
        c.alignment = Alignment(wrap_text=True, vertical="center")
        ws.column_dimensions[c.column_letter].width = width
    ws.freeze_panes = "A2"
    ws.print_title_rows = "1:1"
    ws.page_setup.orientation = "landscape"
    ws.page_setup.fitToWidth = 1
    ws.page_setup.fitToHeight = 0
    ws.sheet_properties.pageSetUpPr.fitToPage = True


def _name(wb: Workbook, name: str, ref: str) -> None:
    wb.defined_names[name] = DefinedName(name, attr_text=ref)


def inputs_sheet(wb: Workbook, inputs: Sequence[Any], model_rows: Sequence[tuple[str, str, Any, str, str]] = ()
                 ) -> None:
    """Every assumption in a named cell (``in_<name>``), then figures from the model (``m_...``)."""
    ws = wb.create_sheet("Inputs")
    _header(ws, ["Input", "Value", "Unit", "Source", "Name"], [34, 16, 24, 70, 18])
    rows = [(f"in_{i.name}", i.label, i.value, i.unit, i.source) for i in inputs] + list(model_rows)
    for n, (name, label, value, unit, source) in enumerate(rows, start=2):
        for col, v in enumerate((label, value, unit, source, name), start=1):
            _put(ws, n, col, v)
        _name(wb, name, f"Inputs!$B${n}")
    ws.auto_filter.ref = f"A1:E{len(rows) + 1}"


def _inputs(wb: Workbook, r: Report) -> None:
    m = r.model
    model_rows = [("m_gpus", "GPUs", m.cluster.gpus, "GPUs", "model"),
                  ("m_racks", "Racks", m.racks, "racks", "model: placement (compute, network, management, storage)"),
                  ("m_links", "Links (scale-out and scale-across)", r.links, "links", "model: link groups"),
                  ("m_dark_fibre_km", "Dark fibre (route km of fibre pairs)", r.dark_fibre_km, "km",
                   "model: scale-across")]
    inputs_sheet(wb, list(r.inputs.values()), model_rows)


BOM_COLS = ["No.", "Tier", "Fabric", "Hop", "Category", "Catalog id", "Part number", "Description", "Vendor",
            "Qty", "Unit", "Unit price", "Extended price", "Unit power", "Extended power", "Price source",
            "As of", "Source"]


def bom_table(ws: Worksheet, lines: Sequence[Line], top: int = 1) -> int:
    """The BOM lines with extended price and power as formulas; returns the last row."""
    widths = [5, 12, 10, 11, 14, 22, 24, 60, 12, 10, 6, 16, 18, 12, 16, 12, 11, 60]
    if top == 1:
        _header(ws, BOM_COLS, widths)
    else:
        for i, name in enumerate(BOM_COLS, start=1):
            c = ws.cell(row=top, column=i, value=name)
            c.font, c.fill = HEAD, FILL
    for n, line in enumerate(lines, start=top + 1):
        values = [n - top, line.tier, line.fabric, line.hop, line.category, line.catalog_id, line.sku,
                  line.description, line.vendor, line.quantity, line.unit, line.unit_price_usd,
                  _f(f"J{n}*L{n}"), line.unit_power_w, _f(f"J{n}*N{n}"), line.price_source, line.as_of,
                  line.source]
        fmts = {10: COUNT if line.unit == "each" else "#,##0.0", 12: USD, 13: USD, 14: WATT, 15: WATT}
        for col, v in enumerate(values, start=1):
            _put(ws, n, col, v, fmts.get(col))
    last = top + len(lines)
    ws.auto_filter.ref = f"A{top}:R{last}"
    return last


def _bom(wb: Workbook, r: Report) -> int:
    ws = wb.create_sheet("BOM")
    last = bom_table(ws, r.lines)
    for name, col in (("bom_tier", "B"), ("bom_fabric", "C"), ("bom_category", "E"), ("bom_qty", "J"),
                      ("bom_usd", "M"), ("bom_w", "O")):
        _name(wb, name, f"BOM!${col}$2:${col}${last}")
    return last


LINK_COLS = ["Fabric", "Tier", "Hop", "From", "To", "Bucket", "Links", "Rate Gbit/s", "Run m", "Sold m",
             "Medium", "Module (from end)", "Modules (from)", "Module (to end)", "Modules (to)",
             "Cable or fibre", "Cables", "Fibre runs", "Lit strands", "Patch panels"]


def _links(wb: Workbook, r: Report) -> None:
    ws = wb.create_sheet("Links")
    _header(ws, LINK_COLS, [9, 12, 11, 7, 7, 10, 9, 10, 8, 8, 14, 18, 10, 18, 10, 28, 9, 10, 10, 9])
    for n, g in enumerate(r.model.groups, start=2):
        c = g.choice
        row = [g.fabric, g.tier, g.hop, g.lower, g.upper, g.bucket, g.links, g.rate_gbps, round(g.length_m, 2),
               c.length_m, g.medium, g.lower_end.part.part_number if g.lower_end.part else "-", g.modules_lower,
               g.upper_end.part.part_number if g.upper_end.part else "-", g.modules_upper,
               c.part_number or "-", g.cables, g.fibre_runs, g.fibre_strands, g.panels]
        for col, v in enumerate(row, start=1):
            _put(ws, n, col, v, COUNT if isinstance(v, int) else None)
    last = len(r.model.groups) + 1
    ws.auto_filter.ref = f"A1:T{last}"
    for name, col in (("lk_tier", "B"), ("lk_links", "G"), ("lk_medium", "K"), ("lk_mod_from", "M"),
                      ("lk_mod_to", "O"), ("lk_runs", "R"), ("lk_strands", "S")):
        _name(wb, name, f"Links!${col}$2:${col}${last}")


def _tiers(wb: Workbook, r: Report) -> None:
    ws = wb.create_sheet("Tiers")
    _header(ws, ["Tier", "Links", "Copper links", "Copper share (links)", "Modules", "Fibre runs",
                 "Lit strands", "Capex", "Copper capex", "Copper share (cost)", "Power kW"],
            [13, 12, 12, 12, 12, 12, 12, 18, 16, 12, 12])
    t = r.model.tiers()
    up = t["scale-up"]
    for n, tier in enumerate(TIERS, start=2):
        _put(ws, n, 1, tier)
        if tier == "scale-up":
            values: list[Any] = [up["links"], up["copper_links"], None, 0, 0, 0]
        elif tier == "compute":
            values = [0, 0, None, 0, 0, 0]
        else:
            values = [_f(f'SUMIFS(lk_links,lk_tier,A{n})'),
                      _f(f'SUMIFS(lk_links,lk_tier,A{n},lk_medium,"passive-copper")'
                         f'+SUMIFS(lk_links,lk_tier,A{n},lk_medium,"active-copper")'),
                      None, _f(f"SUMIFS(lk_mod_from,lk_tier,A{n})+SUMIFS(lk_mod_to,lk_tier,A{n})"),
                      _f(f"SUMIFS(lk_runs,lk_tier,A{n})"), _f(f"SUMIFS(lk_strands,lk_tier,A{n})")]
            if tier == "scale-across":   # the wavelengths and their coherent modules
                values[0] = _f(f"SUMIFS(lk_links,lk_tier,A{n})+{r.model.dci.links if r.model.dci else 0}")
                values[3] = _f(f"SUMIFS(lk_mod_from,lk_tier,A{n})+SUMIFS(lk_mod_to,lk_tier,A{n})"
                               f"+SUMIFS(bom_qty,bom_tier,A{n},bom_category,\"coherent optic\")")
        values[2] = _f(f"IF(B{n}=0,0,C{n}/B{n})")
        for col, v in enumerate(values, start=2):
            _put(ws, n, col, v, SHARE if col == 4 else COUNT)
        _put(ws, n, 8, _f(f"SUMIFS(bom_usd,bom_tier,A{n})"), USD0)
        _put(ws, n, 9, _f(f'SUMIFS(bom_usd,bom_tier,A{n},bom_category,"copper cable")'), USD0)
        network = f'(H{n}-SUMIFS(bom_usd,bom_tier,A{n},bom_category,"compute"))'
        _put(ws, n, 10, _f(f"IF({network}=0,0,I{n}/{network})"), SHARE)
        _put(ws, n, 11, _f(f"SUMIFS(bom_w,bom_tier,A{n})/1000"), KW)
    for n, tier in enumerate(TIERS, start=2):
        key = tier.replace("-", "_")
        for col, what in ((2, "links"), (3, "copper_links"), (4, "copper_share"), (5, "modules"),
                          (6, "fibre_runs"), (7, "fibre_strands"), (8, "capex"), (10, "copper_cost_share"),
                          (11, "power_kw")):
            _name(wb, f"tier_{key}_{what}", f"Tiers!${'ABCDEFGHIJK'[col - 1]}${n}")


TCO_ROWS: list[tuple[str, str, str, str]] = [
    ("hardware_usd", "Hardware (BOM)", "SUM(bom_usd)", USD0),
    ("network_capex_usd", "  of it network", "SUM(bom_usd)" + "".join(
        f'-SUMIFS(bom_usd,bom_category,"{c}")' for c in ("compute", *FACILITY)), USD0),
    ("installation_usd", "Installation", "m_links*in_install_link+m_racks*in_install_rack", USD0),
    ("capex_usd", "Capex", "hardware_usd+installation_usd", USD0),
    ("it_power_kw", "IT power", "SUM(bom_w)/1000", KW),
    ("network_power_kw", "  of it network", "(SUM(bom_w)" + "".join(
        f'-SUMIFS(bom_w,bom_category,"{c}")' for c in ("compute", *FACILITY)) + ")/1000", KW),
    ("facility_power_kw", "Facility power (IT x PUE)", "it_power_kw*in_pue", KW),
    ("energy_per_year_usd", "Energy per year", "facility_power_kw*in_hours*in_electricity", USD0),
    ("support_per_year_usd", "Support per year", "capex_usd*in_support", USD0),
    ("dark_fibre_per_year_usd", "Dark fibre per year", "m_dark_fibre_km*in_dark_fibre", USD0),
    ("space_per_year_usd", "Space per year", "m_racks*in_space", USD0),
    ("opex_per_year_usd", "Opex per year",
     "energy_per_year_usd+support_per_year_usd+dark_fibre_per_year_usd+space_per_year_usd", USD0),
    ("tco_usd", "TCO over the amortisation period", "capex_usd+in_years*opex_per_year_usd", USD0),
    ("usd_per_gpu_hour", "Cost per GPU-hour", "tco_usd/(m_gpus*in_years*in_hours*in_utilisation)",
     '0.0000 "USD"'),
    ("network_capex_share", "Network share of hardware", "IF(hardware_usd=0,0,network_capex_usd/hardware_usd)",
     SHARE),
    ("network_power_share", "Network share of IT power", "IF(it_power_kw=0,0,network_power_kw/it_power_kw)",
     SHARE),
]


def _tco(wb: Workbook) -> tuple[int, int]:
    ws = wb.create_sheet("TCO")
    _header(ws, ["Item", "Value", "Formula", "Name"], [34, 20, 70, 24])
    for n, (name, label, formula, fmt) in enumerate(TCO_ROWS, start=2):
        _put(ws, n, 1, label)
        _put(ws, n, 2, _f(formula), fmt)
        _put(ws, n, 3, formula)
        _put(ws, n, 4, name)
        _name(wb, name, f"TCO!$B${n}")
    first = len(TCO_ROWS) + 3
    _put(ws, first, 1, "Capex by category")
    for i, cat in enumerate(CATEGORIES, start=first + 1):
        _put(ws, i, 1, cat)
        _put(ws, i, 2, _f(f"SUMIFS(bom_usd,bom_category,A{i})"), USD0)
    tiers_at = first + len(CATEGORIES) + 2
    _put(ws, tiers_at, 1, "Power by tier")
    for i, tier in enumerate(TIERS, start=tiers_at + 1):
        _put(ws, i, 1, tier)
        _put(ws, i, 2, _f(f"SUMIFS(bom_w,bom_tier,A{i})/1000"), KW)
    return first, tiers_at


def _summary(wb: Workbook, r: Report, first: int, tiers_at: int) -> None:
    ws = wb["Summary"]
    ws.column_dimensions["A"].width = 34
    ws.column_dimensions["B"].width = 22
    m, c = r.model, r.model.cluster
    _put(ws, 1, 1, f"clusterbom: {r.name}")
    ws["A1"].font = Font(bold=True, size=14)
    facts = [("Platform", m.platform.id), ("GPUs", c.gpus), ("Nodes", c.nodes), ("Scale-up domains", c.domains),
             ("Racks (all kinds)", m.racks)]
    facts += [(f"  {kind} racks", n) for kind, n in (m.placement.counts() if m.placement else {}).items() if n]
    rnd = c.rounding()
    facts += [("GPUs requested", rnd["requested"]), ("GPUs built", rnd["built"]), ("GPU rounding", rnd["why"]),
              ("Sites", c.site_count)]
    totals = [("Capex", "capex_usd", USD0), ("IT power", "it_power_kw", KW),
              ("Facility power", "facility_power_kw", KW), ("Opex per year", "opex_per_year_usd", USD0),
              ("TCO", "tco_usd", USD0), ("Cost per GPU-hour", "usd_per_gpu_hour", '0.0000 "USD"'),
              ("Network share of hardware", "network_capex_share", SHARE),
              ("Scale-out copper share (links)", "tier_scale_out_copper_share", SHARE)]
    row = 3
    for label, value in facts:
        _put(ws, row, 1, label)
        _put(ws, row, 2, value, COUNT if isinstance(value, int) else None)
        row += 1
    row += 1
    for label, name, fmt in totals:
        _put(ws, row, 1, label)
        _put(ws, row, 2, _f(name), fmt)
        row += 1
    tco = wb["TCO"]
    bar = BarChart()
    bar.type, bar.title, bar.y_axis.title = "bar", "Capex by category", "USD"
    bar.add_data(Reference(tco, min_col=2, min_row=first + 1, max_row=first + len(CATEGORIES)))
    bar.set_categories(Reference(tco, min_col=1, min_row=first + 1, max_row=first + len(CATEGORIES)))
    bar.legend, bar.width, bar.height = None, 16, 9
    ws.add_chart(bar, "D3")
    power = BarChart()
    power.title, power.y_axis.title = "Power by tier", "kW"
    power.add_data(Reference(tco, min_col=2, min_row=tiers_at + 1, max_row=tiers_at + len(TIERS)))
    power.set_categories(Reference(tco, min_col=1, min_row=tiers_at + 1, max_row=tiers_at + len(TIERS)))
    power.legend, power.width, power.height = None, 16, 9
    ws.add_chart(power, "D22")


def workbook(r: Report) -> Workbook:
    wb = Workbook()
    wb.active.title = "Summary"
    _inputs(wb, r)
    _bom(wb, r)
    _links(wb, r)
    _tiers(wb, r)
    first, tiers_at = _tco(wb)
    _summary(wb, r, first, tiers_at)
    return wb


def to_bytes(wb: Workbook, title: str) -> bytes:
    """The workbook as reproducible bytes: fixed document dates, recalculated when opened."""
    fixed = dt.datetime(2000, 1, 1)
    wb.properties.creator = wb.properties.lastModifiedBy = "clusterbom"
    wb.properties.created = wb.properties.modified = fixed
    wb.properties.title = title
    wb.calculation = CalcProperties(fullCalcOnLoad=True)
    buf = io.BytesIO()
    wb.save(buf)
    return reproducible_zip(buf.getvalue())


def write_xlsx(r: Report) -> bytes:
    return to_bytes(workbook(r), r.name)
