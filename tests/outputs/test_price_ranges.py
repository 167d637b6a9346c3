"""Ranges a buyer sees (issue 44): the BOM and Order sheets, the CSV, the JSON, the HTML report and the
Markdown summary show each line's published low and high and where they are published, beside the
point price; a line with none says it is a placeholder."""

from __future__ import annotations

import csv
import io
import json

import openpyxl
import pytest

SCENARIO = "name: h100\nplatform: dgx-h100\ngpus: 256\nfabrics:\n  compute: {switch: qm9700}\n"


@pytest.fixture()
def built(bom, tmp_path):
    sc = tmp_path / "h100.yaml"
    sc.write_text(SCENARIO)
    out = tmp_path / "out"
    r = bom("build", str(sc), "-o", str(out), "-q")
    assert r.exit_code == 0, r.output
    return out


def _rows(ws):  # type: ignore[no-untyped-def]
    head = [c.value for c in ws[1]]
    return head, [dict(zip(head, (c.value for c in row), strict=False)) for row in ws.iter_rows(min_row=2)]


def test_bom_sheet_shows_the_range_beside_the_point_price(built):
    head, rows = _rows(openpyxl.load_workbook(built / "h100.xlsx")["BOM"])
    at = head.index("Unit price")
    assert head[at + 1:at + 3] == ["Price low", "Price high"]
    assert head[head.index("Price source") + 1] == "Price range source"
    dgx = next(r for r in rows if r["Catalog id"] == "dgx-h100")
    assert (dgx["Unit price"], dgx["Price low"], dgx["Price high"]) == (270_000, 270_000, 375_000)
    assert "SemiAnalysis" in dgx["Price range source"] and "375,000" in dgx["Price range source"]
    qm = next(r for r in rows if r["Catalog id"] == "qm9700")
    assert (qm["Price low"], qm["Price high"]) == (36_000, 50_000) and "36k" in qm["Price range source"]
    oob = next(r for r in rows if r["Catalog id"] == "mma4z00-ns")
    assert oob["Price low"] is None and oob["Price high"] is None
    assert oob["Price range source"] == "placeholder: no published range"


def test_order_sheet_shows_the_range_per_part_number(built):
    head, rows = _rows(openpyxl.load_workbook(built / "h100.xlsx")["Order"])
    at = head.index("Unit price (extended / total)")
    assert head[at + 1:at + 3] == ["Price low", "Price high"]
    dgx = next(r for r in rows if r["Part number"] == "DGXH-G640F+P2EDI36")
    assert (dgx["Price low"], dgx["Price high"]) == (270_000, 375_000) and "SemiAnalysis" in dgx["Price range source"]
    sn = next(r for r in rows if r["Part number"] == "MMA4Z00-NS")     # no published range
    assert sn["Price low"] is None and sn["Price range source"] == "placeholder: no published range"


def test_csv_and_json_carry_the_range_and_its_source(built):
    lines = list(csv.DictReader(io.StringIO((built / "h100.csv").read_text())))
    header = list(lines[0])
    at = header.index("unit_price_usd")
    assert header[at + 1:at + 4] == ["unit_price_low_usd", "unit_price_high_usd", "price_range_source"]
    dgx = next(x for x in lines if x["catalog_id"] == "dgx-h100")
    assert (float(dgx["unit_price_low_usd"]), float(dgx["unit_price_high_usd"])) == (270_000, 375_000)
    assert "SemiAnalysis" in dgx["price_range_source"]
    sn = next(x for x in lines if x["catalog_id"] == "mma4z00-ns")
    assert sn["unit_price_low_usd"] == "" and sn["price_range_source"] == "placeholder: no published range"
    j = json.loads((built / "h100.json").read_text())
    line = next(x for x in j["lines"] if x["catalog_id"] == "dgx-h100")
    assert "SemiAnalysis" in line["unit_price_range_source"]
    assert next(x for x in j["lines"] if x["catalog_id"] == "mma4z00-ns")["unit_price_range_source"] is None


def test_report_and_summary_show_the_range(built):
    html = (built / "h100.html").read_text()
    assert html.count("<th>unit price</th><th>low / high</th>") == 2 and "price range source" in html
    assert "270,000 USD<br>375,000 USD" in html and "placeholder: no published range" in html
    md = (built / "h100.md").read_text()
    row = next(line for line in md.splitlines() if line.startswith("| DGXH-G640F+P2EDI36 |"))
    cells = [c.strip() for c in row.split("|")]
    assert "270,000.00 USD" in cells and "375,000.00 USD" in cells and any("SemiAnalysis" in c for c in cells)
    assert "| low | high |" in md


def test_a_range_source_is_text_never_a_formula(bom, tmp_path):
    cat = tmp_path / "cat"
    cat.mkdir()
    from tests.paths import ROOT

    rows = (ROOT / "catalogs" / "switches.yaml").read_text()
    block = rows[rows.index("  - id: qm9700"):rows.index("  - id: q3400")]
    start = block.index("    price_range_source:")
    end = block.index("\n", start)
    evil = block[:start] + '    price_range_source: "=HYPERLINK(\\"http://x\\")"' + block[end:]
    (cat / "switches.yaml").write_text("switches:\n" + evil)
    sc = tmp_path / "h100.yaml"
    sc.write_text(SCENARIO)
    out = tmp_path / "o"
    r = bom("build", str(sc), "-o", str(out), "-q", "--catalog", str(cat))
    assert r.exit_code == 0, r.output
    ws = openpyxl.load_workbook(out / "h100.xlsx")["BOM"]
    head = [c.value for c in ws[1]]
    cell = next(row[head.index("Price range source")] for row in ws.iter_rows(min_row=2)
                if row[head.index("Catalog id")].value == "qm9700")
    assert cell.data_type == "s" and cell.value == '=HYPERLINK("http://x")'
    lines = list(csv.DictReader(io.StringIO((out / "h100.csv").read_text())))
    assert next(x for x in lines if x["catalog_id"] == "qm9700")["price_range_source"].startswith("'=")
