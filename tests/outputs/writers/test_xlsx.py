"""The workbook recalculated by LibreOffice agrees with Python and the JSON, and edits propagate:
a row added inside the BOM table, a unit price, an input, the discount rate; the order adds up to
the BOM with its spares; the sensitivity table is the model rebuilt; the BOM prints one page wide."""

from __future__ import annotations

import json
import shutil
import textwrap
from dataclasses import replace

import openpyxl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bom.costing.categories import OPTICS
from bom.costing.tco import SENSITIVITY, compute_tco
from bom.outputs.writers import xlsx
from bom.outputs.writers.xlsx import BOM_COLS, UNIT_PRICE
from tests.spreadsheet import errors, named_values, recalc, recalc_many

#: Subprocesses, a spreadsheet engine, a browser or generated inputs: left out of the fast loop.
pytestmark = pytest.mark.slow

MONEY = ("hardware_usd", "network_capex_usd", "installation_usd", "capex_usd", "opex_per_year_usd",
         "energy_per_year_usd", "tco_usd", "storage_usd", "undiscounted_usd_per_gpu_hour",
         "usd_per_gpu_hour")
POWER = ("it_power_kw", "network_power_kw", "facility_power_kw")
FINANCE = ("npv_usd", "annual_cost_usd", "usd_per_pflop_hour", "capital_charge_per_year", "depreciation_per_year",
           "capex_gpu_usd", "capex_network_usd", "capex_facility_usd", "support_per_year", "space_per_year",
           "staff_per_year", "licences_per_year", "insurance_tax_per_year", "marginal_usd_per_gpu_hour")


def col(name: str) -> int:
    return BOM_COLS.index(name) + 1


@pytest.fixture(scope="module")
def recalculated_file(default_outputs, tmp_path_factory):
    return recalc(default_outputs[".xlsx"], tmp_path_factory.mktemp("lo"))


@pytest.fixture(scope="module")
def recalculated(recalculated_file):
    return named_values(recalculated_file)


def _finance_name(name: str) -> str:
    return name if name.endswith(("_usd", "_hour")) else name + "_usd"


def test_every_total_matches_python_and_json(recalculated, default_outputs, default_report):
    j = json.loads(default_outputs[".json"].read_text())
    totals = j["totals"]
    for name in MONEY + POWER + ("network_capex_share", "network_power_share", "spares_usd"):
        assert recalculated[name] == pytest.approx(totals[name], rel=1e-4), name
    for name in FINANCE:
        assert recalculated[_finance_name(name)] == pytest.approx(j["finance"][name], rel=1e-6), name
    t = default_report.tco
    assert recalculated["tco_usd"] == pytest.approx(t.tco_usd, rel=1e-4)
    assert recalculated["capex_usd"] == pytest.approx(t.capex_usd, rel=1e-4)
    assert recalculated["order_total_usd"] == pytest.approx(t.hardware_usd, rel=1e-9)
    # Counts exact, per tier (spares on the shelf are not counted as installed modules).
    tiers = j["tiers"]
    for tier in ("scale-out", "scale-across"):
        key = tier.replace("-", "_")
        for what in ("links", "modules", "fibre_runs", "fibre_strands"):
            assert recalculated[f"tier_{key}_{what}"] == tiers[tier][what], (tier, what)
    assert recalculated["tier_scale_out_copper_links"] == tiers["scale-out"]["copper_links"]
    assert recalculated["tier_scale_out_copper_share"] == pytest.approx(tiers["scale-out"]["copper_share"])
    assert recalculated["tier_scale_up_links"] == tiers["scale-up"]["links"]
    assert recalculated["m_gpus"] == j["gpus"] and recalculated["m_racks"] == j["racks"]


def test_no_error_values_after_recalculation(recalculated_file):
    assert errors(recalculated_file) == []


def _edit(src, dst, sheet, cell, value):
    shutil.copy(src, dst)
    wb = openpyxl.load_workbook(dst)
    wb[sheet][cell] = value
    wb.save(dst)


def _cell_of(path, name):
    wb = openpyxl.load_workbook(path)
    (sheet, ref), = wb.defined_names[name].destinations
    return sheet, ref.replace("$", "")


def test_editing_the_electricity_price_moves_the_tco_by_the_formula(default_outputs, recalculated, tmp_path):
    src = default_outputs[".xlsx"]
    sheet, ref = _cell_of(src, "in_electricity")
    before = recalculated
    edited = tmp_path / "edited.xlsx"
    _edit(src, edited, sheet, ref, before["in_electricity"] + 0.05)
    after = named_values(recalc(edited, tmp_path))
    # TCO moves by years x facility kW x hours x the price change, and nothing else moves.
    expected = before["in_years"] * before["facility_power_kw"] * before["in_hours"] * 0.05
    assert after["tco_usd"] - before["tco_usd"] == pytest.approx(expected, rel=1e-6)
    assert after["capex_usd"] == pytest.approx(before["capex_usd"])
    assert after["it_power_kw"] == pytest.approx(before["it_power_kw"])


def _bom_rows(path, data_only=False):
    wb = openpyxl.load_workbook(path, data_only=data_only)
    ws = wb["BOM"]
    last = int(ws.tables["BOM"].ref.split(":")[1].lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    return ws, range(2, last)   # the data rows (the last table row is the totals row)


def test_editing_a_unit_price_moves_capex_and_what_depends_on_it(default_outputs, recalculated, tmp_path):
    src = default_outputs[".xlsx"]
    ws, rows = _bom_rows(src)
    row = next(r for r in rows if ws.cell(r, col("Category")).value == "transceiver")
    qty, price = ws.cell(row, col("Qty")).value, ws.cell(row, col("Unit price")).value
    edited = tmp_path / "price.xlsx"
    _edit(src, edited, "BOM", f"{openpyxl.utils.get_column_letter(col('Unit price'))}{row}", price + 100)
    after = named_values(recalc(edited, tmp_path))
    assert after["hardware_usd"] - recalculated["hardware_usd"] == pytest.approx(qty * 100)
    assert after["network_capex_usd"] - recalculated["network_capex_usd"] == pytest.approx(qty * 100)
    assert after["it_power_kw"] == pytest.approx(recalculated["it_power_kw"])
    assert after["energy_per_year_usd"] == pytest.approx(recalculated["energy_per_year_usd"])


def test_a_row_added_inside_the_bom_table_is_counted_everywhere(default_outputs, recalculated, tmp_path):
    """What a person does in Excel: insert a row inside the table (the table grows by one row)."""
    src = default_outputs[".xlsx"]
    wb = openpyxl.load_workbook(src)
    ws = wb["BOM"]
    table = ws.tables["BOM"]
    start, end = table.ref.split(":")
    last = int(end.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    at = 5
    ws.insert_rows(at)
    values = {"No": 0, "Part number": "EXTRA-SWITCH", "Description": "a switch a buyer adds", "Category": "switch",
              "Tier": "scale-out", "Fabric": "compute", "Hop": "leaf", "Qty": 3, "Unit": "each",
              "Unit price": 115000, "Unit power": 0, "Asset class": "network", "Price source": "quote"}
    for name, v in values.items():
        ws.cell(at, col(name), v)
    ws.cell(at, col("Extended price"), "=BOM[[#This Row],[Qty]]*BOM[[#This Row],[Unit price]]")
    ws.cell(at, col("Extended power"), "=BOM[[#This Row],[Qty]]*BOM[[#This Row],[Unit power]]")
    table.ref = f"{start}:{end.rstrip('0123456789')}{last + 1}"
    if table.autoFilter is not None:
        table.autoFilter.ref = f"{start}:{end.rstrip('0123456789')}{last}"
    edited = tmp_path / "row.xlsx"
    wb.save(edited)
    done = recalc(edited, tmp_path)
    after = named_values(done)
    ext = 345_000
    b = recalculated
    for name in ("hardware_usd", "network_capex_usd", "capex_usd", "capex_network_usd", "tier_scale_out_capex",
                 "order_total_usd"):
        assert after[name] - b[name] == pytest.approx(ext), name
    # The TCO: the capex, plus the network support on it every year.
    assert after["tco_usd"] - b["tco_usd"] == pytest.approx(ext * (1 + b["in_years"] * b["in_support_network"]))
    assert after["usd_per_gpu_hour"] > b["usd_per_gpu_hour"]
    ws2 = openpyxl.load_workbook(done, data_only=True)["BOM"]
    total_after = ws2.cell(last + 1, col("Extended price")).value
    assert total_after == pytest.approx(b["hardware_usd"] + ext)   # the table's totals row
    assert errors(done) == []


def test_changing_the_discount_rate_moves_only_the_finance_figures(default_outputs, recalculated, default_report,
                                                                   tmp_path):
    src = default_outputs[".xlsx"]
    sheet, ref = _cell_of(src, "in_discount_rate")
    edited = tmp_path / "rate.xlsx"
    _edit(src, edited, sheet, ref, 0.12)
    after = named_values(recalc(edited, tmp_path))
    b = recalculated
    for name in MONEY[:-1] + POWER + ("spares_usd", "support_per_year_usd", "space_per_year_usd",
                                      "depreciation_per_year_usd", "order_total_usd"):
        assert after[name] == pytest.approx(b[name]), name
    for name in ("npv_usd", "annual_cost_usd", "capital_charge_per_year_usd", "usd_per_gpu_hour",
                 "usd_per_pflop_hour", "crf_gpu"):
        assert after[name] != pytest.approx(b[name]), name
    r = default_report
    ins = {**r.inputs, "discount_rate": replace(r.inputs["discount_rate"], value=0.12)}
    t = compute_tco(r.basis, ins)
    assert after["npv_usd"] == pytest.approx(t.npv_usd, rel=1e-9)
    assert after["usd_per_gpu_hour"] == pytest.approx(t.usd_per_gpu_hour, rel=1e-9)
    assert after["npv_usd"] < b["npv_usd"]   # later costs weigh less at a dearer rate


def test_every_order_total_is_the_bom_plus_spares(recalculated_file, recalculated):
    wb = openpyxl.load_workbook(recalculated_file, data_only=True)
    bom, order = wb["BOM"], wb["Order"]
    head = [c.value for c in order[1]]
    c = {name: head.index(name) + 1 for name in head}
    last = int(bom.tables["BOM"].ref.split(":")[1].lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    installed: dict[str, float] = {}
    spares: dict[str, float] = {}
    money: dict[str, float] = {}
    for r in range(2, last):
        sku = bom.cell(r, col("Part number")).value
        target = spares if bom.cell(r, col("Fabric")).value == "spares" else installed
        target[sku] = target.get(sku, 0) + bom.cell(r, col("Qty")).value
        money[sku] = money.get(sku, 0) + bom.cell(r, col("Extended price")).value
    rows = [r for r in range(2, order.max_row + 1) if order.cell(r, 1).value in money]
    assert len(rows) == len(money)   # one order line per part number
    other = next(r for r in range(2, order.max_row + 1) if order.cell(r, 1).value == "(other BOM rows)")
    assert order.cell(other, c["Extended price"]).value == pytest.approx(0, abs=1e-6)
    total = 0.0
    for r in rows:
        sku = order.cell(r, 1).value
        assert order.cell(r, c["Installed"]).value == pytest.approx(installed.get(sku, 0)), sku
        assert order.cell(r, c["Spares"]).value == pytest.approx(spares.get(sku, 0)), sku
        assert order.cell(r, c["Total to order"]).value == pytest.approx(installed.get(sku, 0) + spares.get(sku, 0))
        sites = [order.cell(r, c[k]).value for k in head if k.startswith("Site ")]
        if sites and sites[0] is not None:
            assert sum(sites) == pytest.approx(installed.get(sku, 0)), sku
        first = next(k for k in range(2, last) if bom.cell(k, col("Part number")).value == sku)
        assert order.cell(r, c["Unit"]).value == bom.cell(first, col("Unit")).value, sku   # each, or km
        if order.cell(r, c[UNIT_PRICE]).value in (None, ""):   # unpriced: blank, never 0, and listed
            assert money[sku] == 0 and order.cell(r, c["Extended price"]).value in (None, ""), sku
            assert any(sku in str(order.cell(k, 1).value) for k in range(2, order.max_row + 1)
                       if str(order.cell(k, 1).value).startswith("Unpriced")), sku
            continue
        assert order.cell(r, c["Extended price"]).value == pytest.approx(money[sku]), sku
        total += order.cell(r, c["Extended price"]).value
    assert total == pytest.approx(recalculated["hardware_usd"])
    assert recalculated["order_total_usd"] == pytest.approx(recalculated["hardware_usd"])
    assert sum(spares.values()) > 0 and recalculated["spares_usd"] > 0


def _scaled_prices(src, dst, categories, factor):
    shutil.copy(src, dst)
    wb = openpyxl.load_workbook(dst)
    ws = wb["BOM"]
    last = int(ws.tables["BOM"].ref.split(":")[1].lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    for r in range(2, last):
        if ws.cell(r, col("Category")).value in categories:
            ws.cell(r, col("Unit price")).value *= factor
    wb.save(dst)


def test_the_sensitivity_table_is_the_model_rebuilt_with_each_input_moved(default_outputs, recalculated,
                                                                          default_report, tmp_path):
    src = default_outputs[".xlsx"]
    edits = []
    for name, _ in SENSITIVITY:
        dst = tmp_path / f"{name}.xlsx"
        if name == "gpu_price":
            _scaled_prices(src, dst, ("compute",), 1.2)
        elif name == "optics_price":
            _scaled_prices(src, dst, OPTICS, 1.2)
        else:
            sheet, ref = _cell_of(src, f"in_{name}")
            _edit(src, dst, sheet, ref, recalculated[f"in_{name}"] * 1.2)
        edits.append((name, dst))
    low = tmp_path / "utilisation_low.xlsx"
    sheet, ref = _cell_of(src, "in_utilisation")
    _edit(src, low, sheet, ref, recalculated["in_utilisation"] * 0.8)
    done = recalc_many([p for _, p in edits] + [low], tmp_path)
    assert recalculated["sens_base_usd_per_gpu_hour"] == pytest.approx(recalculated["usd_per_gpu_hour"])
    for (name, _), path in zip(edits, done, strict=False):
        rebuilt = named_values(path)["usd_per_gpu_hour"]
        assert recalculated[f"sens_{name}_high"] == pytest.approx(rebuilt, rel=1e-9), name
        python = next(s for s in default_report.sensitivity if s.name == name)
        assert recalculated[f"sens_{name}_high"] == pytest.approx(python.high, rel=1e-9), name
        assert recalculated[f"sens_{name}_low"] == pytest.approx(python.low, rel=1e-9), name
    assert recalculated["sens_utilisation_low"] == pytest.approx(named_values(done[-1])["usd_per_gpu_hour"])


def test_sheets_formats_names_and_the_paper(default_outputs, default_report):
    wb = openpyxl.load_workbook(default_outputs[".xlsx"])
    assert wb.sheetnames == ["Summary", "Inputs", "BOM", "Order", "Order (print)", "Links", "Power", "Tiers", "TCO",
                             "Schedule", "Range", "Sensitivity", "Checks"]
    bom = wb["BOM"]
    assert bom.freeze_panes == "A2" and "BOM" in bom.tables and bom.tables["BOM"].totalsRowCount == 1
    ext = col("Extended price")
    assert bom.cell(2, ext).value == "=BOM[[#This Row],[Qty]]*BOM[[#This Row],[Unit price]]"
    assert "USD" in bom.cell(2, col("Unit price")).number_format and "W" in bom.cell(2, col("Unit power")).number_format
    assert isinstance(bom.cell(2, col("As of")).value, __import__("datetime").datetime)   # a date, not text
    # Every formula that sums the BOM uses structured references (no fixed ranges that stop at the last row).
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if isinstance(cell.value, str) and cell.value.startswith("=") and "BOM!" in cell.value:
                    pytest.fail(f"{ws.title}!{cell.coordinate} sums the BOM by address: {cell.value}")
    assert "bom_usd" not in wb.defined_names
    for ws in wb.worksheets:
        assert ws.page_setup.orientation == "landscape" and ws.page_setup.fitToWidth == 1, ws.title
        assert default_report.name in ws.oddHeader.left.text and "&P" in ws.oddFooter.right.text, ws.title
    assert bom.print_title_rows in ("1:1", "$1:$1")
    inputs = wb["Inputs"]
    (sheet, ref), = wb.defined_names["in_discount_rate"].destinations
    assert inputs[ref.replace("$", "")].style == "Input"
    validated = {str(r) for dv in inputs.data_validations.dataValidation for r in dv.sqref.ranges}
    assert ref.replace("$", "") in validated
    assert len(wb["Summary"]._charts) == 2 and len(wb["Sensitivity"]._charts) == 1
    for name in ("in_electricity", "in_pue", "in_years", "in_discount_rate", "in_colocation", "in_life_gpu",
                 "capex_usd", "tco_usd", "npv_usd", "usd_per_gpu_hour", "usd_per_pflop_hour", "order_total_usd"):
        assert name in wb.defined_names
    p = wb.properties
    assert p.created.date() == default_report.document_date and p.created.year > 2000
    assert "BOM" in p.title and p.subject and p.description


def test_the_power_sheet_is_the_power_plan(default_outputs, default_report):
    """Per rack layout its feeds and headroom (a formula), the total cords (a formula the cords add up to),
    then every PDU phase's load, rating and headroom (formulas)."""
    wb = openpyxl.load_workbook(default_outputs[".xlsx"])
    ws, plan = wb["Power"], default_report.model.power
    groups = len(plan.groups)
    assert [ws.cell(n, 3).value for n in range(2, groups + 2)] == [g.racks for g in plan.groups]
    assert ws.cell(2, 12).value == "=K2-MAX(G2:J2)"
    total = groups + 2
    assert ws.cell(total, 5).value == f"=SUMPRODUCT(C2:C{total - 1},E2:E{total - 1})"
    assert sum(ws.cell(n, 3).value * ws.cell(n, 5).value for n in range(2, total)) == plan.cord_count == 1488
    top = total + 2
    assert ws.cell(top, 3).value == "PDU no." and ws.cell(top + 1, 9).value == f"=H{top + 1}-MAX(F{top + 1}:G{top + 1})"
    phases = sum(len(g.plan.phases) for g in plan.groups)
    assert ws.cell(top + phases, 10).value == f"=MAX(F{top + phases}:G{top + phases})/H{top + phases}"
    assert "power_cords" in wb.defined_names


def test_the_bom_prints_one_page_wide(default_outputs, tmp_path):
    """LibreOffice prints the workbook: landscape A4 pages, the BOM's columns on one page width."""
    pypdf = pytest.importorskip("pypdf")
    pdf, = recalc_many([default_outputs[".xlsx"]], tmp_path, to="pdf")
    reader = pypdf.PdfReader(pdf)
    assert 8 <= len(reader.pages) <= 40
    for page in reader.pages:
        w, h = float(page.mediabox.width), float(page.mediabox.height)
        assert (round(w), round(h)) == (842, 595), (w, h)   # A4 landscape in points
    texts = [page.extract_text() for page in reader.pages]
    bom_pages = [t for t in texts if "Asset class" in t and "Catalog id" in t]
    assert bom_pages, "no BOM page found"
    for t in bom_pages:   # the whole header on each page: nothing spilled onto a second page width
        for name in ("No", "Part number", "Description", "Extended price", "Flags", "Vendor", "Catalog id"):
            assert name in t, name
    assert len(bom_pages) <= 4


def test_the_printed_workbook_reads(default_outputs, tmp_path):
    """Printed by LibreOffice, nothing is clipped or printed over (issue 30, looked at as PDF pages): a long
    part number wraps in its column whole (BOM and Order), "coherent optic" stays in the Category column, and
    text after a figure does not touch it."""
    pypdf = pytest.importorskip("pypdf")
    pdf, = recalc_many([default_outputs[".xlsx"]], tmp_path, to="pdf")
    text = "\n".join(page.extract_text() for page in pypdf.PdfReader(pdf).pages)
    # Part numbers longer than the column: every word printed (clipped at "UFM Enterprise Applianc" before).
    for word in ("Appliance 3.1", "AI400X2)", "management server"):
        assert word in text, word
    assert "coherent opticscale" not in text and "coherent optic" in text
    # Text after a right-aligned figure starts clear of it (printed as "9,088,000 Wgpu", "236,800,000 USDestimate").
    for joined in ("Wgpu", "Wnetwork", "USDestimate", "USDSUM"):
        assert joined not in text, joined


def test_tco_rows_grow_with_their_formulas(default_outputs):
    wb = openpyxl.load_workbook(default_outputs[".xlsx"])
    ws = wb["TCO"]
    width = ws.column_dimensions["C"].width
    rows = [r for r in range(2, ws.max_row + 1) if isinstance(ws.cell(r, 3).value, str)
            and not str(ws.cell(r, 3).value).startswith("=")]
    long = [r for r in rows if len(ws.cell(r, 3).value) > 1.2 * width]
    assert long, "no formula longer than its column"
    for r in long:
        assert ws.cell(r, 3).alignment.wrap_text
        lines = -(-len(ws.cell(r, 3).value) // int(1.2 * width))
        assert (ws.row_dimensions[r].height or 15) >= 14 * lines, (r, ws.cell(r, 3).value)


def test_an_edited_workbook_keeps_every_order_and_summary_figure_right(default_outputs, default_report, tmp_path):
    """Issue 47: the Order sheet's unit price was the first BOM row's while its extended price summed every
    row (2,000 x 7,051 against 16,475,500 once one row's price was edited), the per-site quantities and
    m_gpus were constants. Edited with openpyxl (one system more, one BOM row of a part repriced) and
    recalculated by LibreOffice: unit x total = extended on every Order line, the sites add up to the
    installed units, the GPUs follow the systems, and every Summary total is its named cell's value."""
    src = default_outputs[".xlsx"]
    wb = openpyxl.load_workbook(src)
    ws = wb["BOM"]
    last = int(ws.tables["BOM"].ref.split(":")[1].lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    rows = range(2, last)
    gpu = next(r for r in rows if ws.cell(r, col("Category")).value == "compute")
    systems = ws.cell(gpu, col("Qty")).value
    ws.cell(gpu, col("Qty")).value = systems + 1
    by_sku: dict[str, list[int]] = {}
    for r in rows:
        by_sku.setdefault(ws.cell(r, col("Part number")).value, []).append(r)
    sku, repriced = next((k, v) for k, v in by_sku.items()
                         if len(v) > 1 and ws.cell(v[0], col("Unit price")).value)
    ws.cell(repriced[-1], col("Unit price")).value = 2 * ws.cell(repriced[-1], col("Unit price")).value
    edited = tmp_path / "edited.xlsx"
    wb.save(edited)
    done = recalc(edited, tmp_path)
    assert errors(done) == []
    values = named_values(done)
    per_system = default_report.model.platform.gpus_per_system
    assert values["m_gpus"] == (systems + 1) * per_system
    assert values["m_nodes"] == values["m_gpus"] / default_report.model.platform.gpus_per_node
    out = openpyxl.load_workbook(done, data_only=True)
    bom, order, summary = out["BOM"], out["Order"], out["Summary"]
    money: dict[str, float] = {}
    for r in rows:
        k = bom.cell(r, col("Part number")).value
        money[k] = money.get(k, 0.0) + bom.cell(r, col("Extended price")).value
    head = [x.value for x in order[1]]
    c = {name: head.index(name) + 1 for name in head}
    sites = [k for k in head if k.startswith("Site ")]
    assert sites
    seen = 0
    for r in range(2, order.max_row + 1):
        k = order.cell(r, 1).value
        if k not in money:
            continue
        ext, unit = order.cell(r, c["Extended price"]).value, order.cell(r, c[UNIT_PRICE]).value
        total, installed = order.cell(r, c["Total to order"]).value, order.cell(r, c["Installed"]).value
        if money[k]:
            assert ext == pytest.approx(money[k]) and unit * total == pytest.approx(ext), k
        split = [order.cell(r, c[s]).value for s in sites]
        if split[0] is not None:
            assert sum(split) == pytest.approx(installed), k
        seen += 1
    assert seen == len(money)
    gpu_row = next(r for r in range(2, order.max_row + 1) if order.cell(r, c["Category"]).value == "compute")
    assert order.cell(gpu_row, c["Installed"]).value == systems + 1
    sku_row = next(r for r in range(2, order.max_row + 1) if order.cell(r, 1).value == sku)
    assert order.cell(sku_row, c["Extended price"]).value == pytest.approx(money[sku])
    # The Summary: every figure a formula's recalculated value, or labelled a build-time value.
    src_summary = openpyxl.load_workbook(edited)["Summary"]
    checked = 0
    for r in range(3, src_summary.max_row + 1):
        label, formula = src_summary.cell(r, 1).value, src_summary.cell(r, 2).value
        if not isinstance(label, str) or formula is None:
            continue
        if isinstance(formula, str) and formula.startswith("="):
            name = formula[1:]
            if name in values:
                assert summary.cell(r, 2).value == values[name], label
                checked += 1
        elif isinstance(formula, int | float) and not isinstance(formula, bool):
            assert "build-time value" in label or label in ("GPUs requested", "Sites"), label
    assert checked >= 12
    assert summary.cell(r_of(src_summary, "GPUs"), 2).value == (systems + 1) * per_system
    assert "calculat" in str(src_summary.cell(2, 1).value)


def r_of(ws, label):
    return next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value == label)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=" \t\n\xa0\u2028-ab.é中", max_size=30), st.integers(min_value=1, max_value=25))
def test_a_text_that_fits_is_one_line_as_textwrap_counts_it(text: str, width: int) -> None:
    assert xlsx._lines(text, width) == len(textwrap.wrap(text, width, break_long_words=True))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=" \t\n\xa0\u2028-ab.é中", max_size=160), st.integers(min_value=1, max_value=60))
def test_wrapped_lines_are_textwraps(text: str, width: int) -> None:
    # the count made without textwrap's lines: long texts, long words broken at hyphens, white space at ends
    assert xlsx._wrapped_lines.__wrapped__(text, width) == len(textwrap.wrap(text, width, break_long_words=True))


def test_a_formula_is_legal_as_openpyxls_setter_finds_it() -> None:
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    # every control, format, separator and surrogate-free character of the first planes, and a few above
    for code in [*range(0x3000), *range(0xe000, 0xe100), 0xfeff, 0xfffe, 0x1f600, 0xe0001, 0x10fffd]:
        text = f"=A1&\"{chr(code)}\""
        assert xlsx._legal(text) == (not ILLEGAL_CHARACTERS_RE.search(text)), hex(code)
