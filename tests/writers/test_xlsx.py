"""The workbook recalculated by LibreOffice agrees with Python and the JSON, and edits propagate."""

from __future__ import annotations

import json
import shutil

import openpyxl
import pytest

from tests.spreadsheet import errors, named_values, recalc

MONEY = ("hardware_usd", "network_capex_usd", "installation_usd", "capex_usd", "opex_per_year_usd",
         "energy_per_year_usd", "tco_usd", "usd_per_gpu_hour")
POWER = ("it_power_kw", "network_power_kw", "facility_power_kw")


@pytest.fixture(scope="module")
def recalculated(default_outputs, tmp_path_factory):
    return named_values(recalc(default_outputs[".xlsx"], tmp_path_factory.mktemp("lo")))


def test_every_total_matches_python_and_json(recalculated, default_outputs, default_report):
    j = json.loads(default_outputs[".json"].read_text())
    totals = j["totals"]
    for name in MONEY + POWER + ("network_capex_share", "network_power_share"):
        assert recalculated[name] == pytest.approx(totals[name], rel=1e-4), name
    t = default_report.tco
    assert recalculated["tco_usd"] == pytest.approx(t.tco_usd, rel=1e-4)
    assert recalculated["capex_usd"] == pytest.approx(t.capex_usd, rel=1e-4)
    # Counts exact, per tier.
    tiers = j["tiers"]
    for tier in ("scale-out", "scale-across"):
        key = tier.replace("-", "_")
        for what in ("links", "modules", "fibre_runs", "fibre_strands"):
            assert recalculated[f"tier_{key}_{what}"] == tiers[tier][what], (tier, what)
    assert recalculated["tier_scale_out_copper_links"] == tiers["scale-out"]["copper_links"]
    assert recalculated["tier_scale_out_copper_share"] == pytest.approx(tiers["scale-out"]["copper_share"])
    assert recalculated["tier_scale_up_links"] == tiers["scale-up"]["links"]
    assert recalculated["m_gpus"] == j["gpus"] and recalculated["m_racks"] == j["racks"]


def test_no_error_values_after_recalculation(default_outputs, tmp_path):
    assert errors(recalc(default_outputs[".xlsx"], tmp_path)) == []


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
    new_price = before["in_electricity"] + 0.05
    _edit(src, edited, sheet, ref, new_price)
    after = named_values(recalc(edited, tmp_path))
    # TCO moves by years x facility kW x hours x the price change, and nothing else moves.
    expected = before["in_years"] * before["facility_power_kw"] * before["in_hours"] * 0.05
    assert after["tco_usd"] - before["tco_usd"] == pytest.approx(expected, rel=1e-6)
    assert after["capex_usd"] == pytest.approx(before["capex_usd"])
    assert after["it_power_kw"] == pytest.approx(before["it_power_kw"])


def test_editing_a_unit_price_moves_capex_and_what_depends_on_it(default_outputs, recalculated, tmp_path):
    src = default_outputs[".xlsx"]
    wb = openpyxl.load_workbook(src)
    ws = wb["BOM"]
    row = next(r for r in range(2, ws.max_row + 1) if ws.cell(r, 5).value == "transceiver")
    qty, price = ws.cell(row, 10).value, ws.cell(row, 12).value
    edited = tmp_path / "price.xlsx"
    _edit(src, edited, "BOM", f"L{row}", price + 100)
    after = named_values(recalc(edited, tmp_path))
    assert after["hardware_usd"] - recalculated["hardware_usd"] == pytest.approx(qty * 100)
    assert after["network_capex_usd"] - recalculated["network_capex_usd"] == pytest.approx(qty * 100)
    assert after["it_power_kw"] == pytest.approx(recalculated["it_power_kw"])
    assert after["energy_per_year_usd"] == pytest.approx(recalculated["energy_per_year_usd"])


def test_sheets_formats_and_names(default_outputs):
    wb = openpyxl.load_workbook(default_outputs[".xlsx"])
    assert wb.sheetnames == ["Summary", "Inputs", "BOM", "Links", "Tiers", "TCO"]
    bom = wb["BOM"]
    assert bom.freeze_panes == "A2" and bom.auto_filter.ref.startswith("A1:")
    assert bom["M2"].value == "=J2*L2" and bom["O2"].value == "=J2*N2"
    assert "USD" in bom["L2"].number_format and "W" in bom["N2"].number_format
    assert len(wb["Summary"]._charts) == 2
    for name in ("in_electricity", "in_pue", "in_years", "capex_usd", "tco_usd", "usd_per_gpu_hour"):
        assert name in wb.defined_names
