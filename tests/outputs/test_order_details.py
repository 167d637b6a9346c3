"""Order sheet details (issue 23): a Unit column (the dark-fibre route is km), unpriced lines blank and
listed, never 0, and the per-vendor cart CSV for the quoting tools; recalculated in LibreOffice."""

from __future__ import annotations

import csv
import io
import json

import openpyxl
import pytest

# Two sites 40 km apart: the leased dark-fibre pair is an order line in km at 0 USD (the TCO leases it).
SCENARIO = """\
name: two
platform: dgx-h100
nodes: 16
date: 2026-12-02
fabrics: {compute: {switch: sn5600}}
sites: {count: 2, distance: "40 km", dci_bandwidth: "3.2 Tbit/s"}
prices: [eur.csv]
exchange_rates: {EUR: 1.08}   # USD per EUR (an example rate)
"""
# One part quoted in euros: the cart carries the currency the vendor quoted in beside the USD price.
EUR_QUOTE = "sku,price,currency,quote_ref,vendor\nsn5600,\"50,000.00\",EUR,EU-1,Euro Net GmbH\n"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from tests.conftest import Run

    tmp = tmp_path_factory.mktemp("order")
    (tmp / "s.yaml").write_text(SCENARIO)
    (tmp / "eur.csv").write_text(EUR_QUOTE)
    r = Run()("build", str(tmp / "s.yaml"), "-o", str(tmp / "out"), "-q")
    assert r.exit_code == 0, r.stderr
    return tmp / "out", json.loads((tmp / "out" / "two.json").read_text())


def test_the_cart_has_each_sites_units_and_the_quoted_currency(built):
    """Issue 47: an installer or a buyer splitting deliveries needs each site's units and spares, and the
    price in the currency the vendor quoted in."""
    out, j = built
    rows = list(csv.DictReader(io.StringIO((out / "two-cart.csv").read_text())))
    assert list(rows[0])[-4:] == ["site1_installed", "site1_spares", "site2_installed", "site2_spares"]
    order = {o["sku"]: o for o in j["order"]}
    split = 0
    for r in rows:
        o = order[r["part_number"]]
        if o["per_site"] is None:
            assert r["site1_installed"] == r["site2_installed"] == "", r["part_number"]
            continue
        assert float(r["site1_installed"]) + float(r["site2_installed"]) == o["installed"], r["part_number"]
        if o["spares_per_site"] is not None:
            assert int(r["site1_spares"]) + int(r["site2_spares"]) == o["spares"], r["part_number"]
        split += 1
    assert split >= 5
    switch = next(r for r in rows if r["part_number"] == "SN5600")
    assert (switch["currency"], float(switch["unit_price"]), float(switch["unit_price_usd"])) == (
        "EUR", 50000.0, pytest.approx(54000.0))
    assert {r["currency"] for r in rows if r["part_number"] != "SN5600"} == {"USD"}


def test_the_order_prints_on_a_narrow_sheet_that_follows_it(built):
    """The Order sheet's 24 columns at one page wide print unreadably: a print sheet of its key columns
    (each a formula on the Order sheet), landscape, one page wide, the header on every page."""
    out, _ = built
    wb = openpyxl.load_workbook(out / "two.xlsx")
    ws, order = wb["Order (print)"], wb["Order"]
    head = [c.value for c in ws[1]]
    assert len(head) <= 12 and head[:4] == ["Part number", "Description", "Site 1 qty", "Site 2 qty"]
    assert ws.page_setup.orientation == "landscape" and ws.page_setup.fitToWidth == 1
    assert ws.sheet_properties.pageSetUpPr.fitToPage and ws.print_title_rows == "$1:$1"
    order_head = [c.value for c in order[1]]
    for k, name in enumerate(head, start=1):
        letter = openpyxl.utils.get_column_letter(order_head.index(name) + 1)
        assert ws.cell(2, k).value == f'=IF(Order!{letter}2="","",Order!{letter}2)', name
    summary = wb["Summary"]["A2"].value
    assert "live formulas" in summary and "does not calculate" in summary and "JSON" in summary


def test_the_cart_lists_every_order_line_by_vendor(built):
    out, j = built
    rows = list(csv.DictReader(io.StringIO((out / "two-cart.csv").read_text())))
    assert [r["part_number"] for r in rows] == [o["sku"] for o in sorted(j["order"], key=lambda o: (
        o["vendor"].lower(), o["sku"]))]
    order = {o["sku"]: o for o in j["order"]}
    for r in rows:
        o = order[r["part_number"]]
        assert (r["vendor"], r["maker"], r["unit"]) == (o["vendor"], o["maker"], o["unit"])
        assert float(r["quantity"]) == o["total"] == o["installed"] + o["spares"] + o["rounded_up"]
        assert r["unit_price_usd"] == ("" if not o["unit_price_usd"] else str(float(o["unit_price_usd"])))
    fibre = next(r for r in rows if r["part_number"] == "DARK-FIBRE-PAIR")
    assert (fibre["unit"], float(fibre["quantity"]), fibre["unit_price_usd"]) == ("km", 40.0, "")
    assert any(float(r["quantity"]) > float(r["installed"]) for r in rows)   # spares are in the quantity


@pytest.mark.slow   # starts LibreOffice
def test_the_order_sheet_shows_the_unit_and_leaves_unpriced_lines_blank(built, tmp_path):
    from tests.spreadsheet import errors, named_values, recalc

    out, j = built
    done = recalc(out / "two.xlsx", tmp_path)
    assert errors(done) == []
    ws = openpyxl.load_workbook(done, data_only=True)["Order"]
    head = [c.value for c in ws[1]]
    c = {name: head.index(name) + 1 for name in head}
    rows = {ws.cell(n, 1).value: n for n in range(2, ws.max_row + 1)}
    fibre = rows["DARK-FIBRE-PAIR"]
    assert ws.cell(fibre, c["Unit"]).value == "km" and ws.cell(fibre, c["Total to order"]).value == 40
    assert ws.cell(fibre, c["Unit price (extended / total)"]).value in (None, "")         # blank, never 0
    assert ws.cell(fibre, c["Extended price"]).value in (None, "")
    listed = [ws.cell(n, 1).value for n in range(2, ws.max_row + 1)
              if str(ws.cell(n, 1).value).startswith("Unpriced")]
    assert listed and "DARK-FIBRE-PAIR" in listed[0]
    for o in j["order"]:
        n = rows[o["sku"]]
        assert ws.cell(n, c["Unit"]).value == o["unit"], o["sku"]
        if o["unit_price_usd"]:
            assert ws.cell(n, c["Unit price (extended / total)"]).value == pytest.approx(o["unit_price_usd"]), o["sku"]
            assert ws.cell(n, c["Extended price"]).value == pytest.approx(o["extended_usd"]), o["sku"]
        else:
            assert o["sku"] in listed[0]
    assert named_values(done)["order_total_usd"] == pytest.approx(j["totals"]["hardware_usd"])


def test_an_overlay_avl_reaches_the_order_sheet_json_and_cart(bom, tmp_path):
    """`avl`, the approved vendors of a catalog row, set by a buyer's overlay of the SN5600 row."""
    from tests.paths import ROOT

    text = (ROOT / "catalogs" / "switches.yaml").read_text()
    block = text[text.index("  - id: sn5600\n"):text.index("  - id: sn2201\n")]
    (tmp_path / "cat").mkdir()
    (tmp_path / "cat" / "avl.yaml").write_text(
        "switches:\n" + block.replace("  - id: sn5600\n", "  - id: sn5600\n    avl: [Acme Networks, Example IT]\n"))
    (tmp_path / "s.yaml").write_text(SCENARIO)
    (tmp_path / "eur.csv").write_text(EUR_QUOTE)
    out = tmp_path / "out"
    r = bom("build", str(tmp_path / "s.yaml"), "-o", str(out), "-q", "--catalog", str(tmp_path / "cat"))
    assert r.exit_code == 0, r.stderr
    j = json.loads((out / "two.json").read_text())
    avl = {o["sku"]: o["avl"] for o in j["order"]}
    assert avl["SN5600"] == ["Acme Networks", "Example IT"]
    assert all(v == [] for k, v in avl.items() if k != "SN5600")       # not stated elsewhere
    cart = {r["part_number"]: r for r in csv.DictReader(io.StringIO((out / "two-cart.csv").read_text()))}
    assert cart["SN5600"]["avl"] == "Acme Networks; Example IT"
    ws = openpyxl.load_workbook(out / "two.xlsx")["Order"]
    head = [c.value for c in ws[1]]
    row = next(n for n in range(2, ws.max_row + 1) if ws.cell(n, 1).value == "SN5600")
    assert ws.cell(row, head.index("AVL") + 1).value == "Acme Networks; Example IT"
