"""Price files: quotes in two currencies converted at the scenario's stated rate, an expired quote
flagged in the workbook, the report and the JSON; bad quotes refused with file, line and column."""

from __future__ import annotations

import json

import openpyxl
import pytest

from bom.catalog.prices import read_quotes
from bom.errors import CatalogError

QUOTES = """\
sku,price,currency,price_source,quoted_on,valid_until,quote_ref,vendor
qm9700,31000,USD,quote,2026-11-01,2026-11-30,Q-2026-0411,Acme Networks
MMA4Z00-NS,"1,050.00",EUR,quote,2026-11-15,2027-02-15,EU-7781,Euro Optics GmbH
"""

SCENARIO = """\
name: quoted
platform: dgx-h100
nodes: 16
date: 2026-12-02
exchange_rates: {EUR: 1.08}   # USD per EUR, ECB reference rate of the quote day (example)
prices: [quotes.csv]
"""


@pytest.fixture()
def built(bom, tmp_path):
    (tmp_path / "quotes.csv").write_text(QUOTES)
    (tmp_path / "s.yaml").write_text(SCENARIO)
    out = tmp_path / "out"
    r = bom("build", str(tmp_path / "s.yaml"), "-o", str(out), "-q")
    assert r.exit_code == 0, r.stderr
    return r, out


def test_two_currencies_and_an_expired_quote_reach_every_output(built):
    r, out = built
    j = json.loads((out / "quoted.json").read_text())
    quotes = {q["sku"]: q for q in j["quotes"]}
    assert quotes["MMA4Z00-NS"]["currency"] == "EUR" and quotes["MMA4Z00-NS"]["usd_per_unit"] == 1.08
    assert quotes["MMA4Z00-NS"]["price_usd"] == pytest.approx(1050 * 1.08)
    assert j["exchange_rates"] == {"EUR": 1.08}
    order = {o["sku"]: o for o in j["order"]}
    switch, optic = order["MQM9700-NS2F"], order["MMA4Z00-NS"]
    assert switch["unit_price_usd"] == 31000 and switch["quote_ref"] == "Q-2026-0411"
    assert switch["vendor"] == "Acme Networks" and switch["valid_until"] == "2026-11-30"
    assert "quote expired 2026-11-30" in switch["flags"]
    assert not any("expired" in f for f in optic["flags"])
    assert "converted from 1,050.00 EUR at 1.08 USD/EUR" in optic["flags"]
    assert optic["unit_price_usd"] == pytest.approx(1134.0)
    assert any("quote expired" in w for w in j["warnings"])
    line = next(x for x in j["lines"] if x["sku"] == "MMA4Z00-NS")
    assert any(f.startswith("converted from") for f in line["flags"])
    # The CLI warns on stderr.
    assert "warning: MQM9700-NS2F (qm9700): quote expired 2026-11-30" in r.stderr
    # The workbook: flags on the Order and BOM sheets, the rate on the Inputs sheet, dates as dates.
    wb = openpyxl.load_workbook(out / "quoted.xlsx")
    ws = wb["Order"]
    head = [c.value for c in ws[1]]
    rows = {ws.cell(n, 1).value: n for n in range(2, ws.max_row + 1)}
    flags = ws.cell(rows["MQM9700-NS2F"], head.index("Flags") + 1).value
    assert "quote expired 2026-11-30" in flags
    assert "EUR at 1.08" in ws.cell(rows["MMA4Z00-NS"], head.index("Flags") + 1).value
    assert ws.cell(rows["MQM9700-NS2F"], head.index("Quote ref") + 1).value == "Q-2026-0411"
    assert ws.cell(rows["MQM9700-NS2F"], head.index("Valid until") + 1).value.date().isoformat() == "2026-11-30"
    rate = next(row for row in wb["Inputs"].iter_rows(values_only=True) if row[0] == "Exchange rate EUR")
    assert rate[:3] == ("Exchange rate EUR", 1.08, "USD per EUR")
    bom_head = [c.value for c in wb["BOM"][1]]
    bom_flags = [row[bom_head.index("Flags")] for row in wb["BOM"].iter_rows(min_row=2, values_only=True)
                 if row[bom_head.index("Part number")] == "MQM9700-NS2F"]
    assert bom_flags and all("quote expired" in f for f in bom_flags)
    assert wb.properties.created.date().isoformat() == "2026-12-02"   # the scenario's date, not the clock
    # The report and the Markdown.
    html = (out / "quoted.html").read_text()
    assert "Q-2026-0411" in html and "(expired)" in html and "1.08" in html and "EUR" in html
    md = (out / "quoted.md").read_text()
    assert "EXPIRED 2026-11-30" in md and "1,050.00 EUR at 1.08 USD/EUR" in md


@pytest.mark.slow   # starts LibreOffice
def test_the_quote_state_follows_the_pricing_day(built, tmp_path):
    from tests.spreadsheet import errors, recalc

    _, out = built
    done = recalc(out / "quoted.xlsx", tmp_path)
    assert errors(done) == []
    ws = openpyxl.load_workbook(done, data_only=True)["Order"]
    head = [c.value for c in ws[1]]
    state = {ws.cell(n, 1).value: ws.cell(n, head.index("Quote state") + 1).value for n in range(2, ws.max_row + 1)}
    assert state["MQM9700-NS2F"] == "expired" and state["MMA4Z00-NS"] == "valid"
    unquoted = [ws.cell(n, 1).value for n in range(2, ws.max_row + 1)
                if not ws.cell(n, head.index("Quote ref") + 1).value and ws.cell(n, 1).value != "Total"]
    assert unquoted and all(state[sku] in (None, "") for sku in unquoted)   # catalog prices: no quote


def test_a_quote_for_one_sold_length_prices_that_length(bom, tmp_path):
    media = "nodes: 16\nfabrics: {compute: {media: [multimode]}}"
    (tmp_path / "s.yaml").write_text(SCENARIO.replace("nodes: 16", media))
    out = tmp_path / "out"
    # The trunk the design buys at one sold length (which lengths it needs follows the floor plan).
    (tmp_path / "quotes.csv").write_text("sku,price,quote_ref,valid_until\n")
    assert bom("build", str(tmp_path / "s.yaml"), "-o", str(out), "-q").exit_code == 0
    before = json.loads((out / "quoted.json").read_text())
    sku = next(x["sku"] for x in before["lines"] if x["catalog_id"] == "mfp7e10-n")
    (tmp_path / "quotes.csv").write_text(f"sku,price,quote_ref,valid_until\n{sku},61.5,FQ-9,2027-01-31\n")
    r = bom("build", str(tmp_path / "s.yaml"), "-o", str(out), "-q")
    assert r.exit_code == 0, r.stderr
    j = json.loads((out / "quoted.json").read_text())
    lines = [x for x in j["lines"] if x["sku"] == sku]
    assert lines and all(x["unit_price_usd"] == 61.5 and x["price_source"] == "quote" for x in lines)
    order = next(o for o in j["order"] if o["sku"] == sku)
    assert order["quote_ref"] == "FQ-9" and order["valid_until"] == "2027-01-31"
    others = [x for x in j["lines"] if x["catalog_id"] == "mfp7e10-n" and x["sku"] != sku]
    assert all(x["price_source"] == "estimate" for x in others)


def test_the_old_price_file_header_still_reads(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("\ufeffsku,price_usd,price_source,as_of\nqm9700,31000,quote,2026-11-01\n")   # Excel's BOM
    (q,) = read_quotes(path, {})
    assert (q.sku, q.usd, q.currency, q.quoted_on.isoformat()) == ("qm9700", 31000, "USD", "2026-11-01")


@pytest.mark.parametrize("row,key,words", [
    ("qm9700,31000,CHF,quote,2026-11-01,,Q1,Acme", "currency", "no exchange rate"),
    ("qm9700,31000,EURO,quote,2026-11-01,,Q1,Acme", "currency", "no exchange rate"),
    ("qm9700,-5,USD,quote,2026-11-01,,Q1,Acme", "price", "negative"),
    (",31000,USD,quote,2026-11-01,,Q1,Acme", "sku", "without a part number"),
    ("qm9700,31000,USD,quote,2026-11-01,2026-10-01,Q1,Acme", "valid_until", "before quoted_on"),
    ("qm9700,31000 GBP,EUR,quote,2026-11-01,,Q1,Acme", "currency", "disagree"),
    ("qm9700,lots,USD,quote,2026-11-01,,Q1,Acme", "price", "not a number"),
    ("sn2201,4900,USD,quote,2026-11-01,,Q2,Acme", "sku", "priced twice"),
])
def test_bad_quotes_exit_2_with_file_line_and_key(bom, tmp_path, row, key, words):
    (tmp_path / "quotes.csv").write_text("sku,price,currency,price_source,quoted_on,valid_until,quote_ref,vendor\n"
                                         "sn2201,5000,USD,list,2026-11-01,,,\n" + row + "\n")
    (tmp_path / "s.yaml").write_text(SCENARIO)
    out = tmp_path / "out"
    r = bom("build", str(tmp_path / "s.yaml"), "-o", str(out), "-q")
    assert r.exit_code == 2, r.output
    assert f"{tmp_path / 'quotes.csv'}:3: {key}:" in r.stderr, r.stderr
    assert words in r.stderr and "Traceback" not in r.stderr
    assert not out.exists()


def test_usd_has_no_exchange_rate_but_one(bom, tmp_path):
    (tmp_path / "quotes.csv").write_text(QUOTES)
    (tmp_path / "s.yaml").write_text(SCENARIO.replace("{EUR: 1.08}", "{EUR: 1.08, USD: 0.9}"))
    r = bom("build", str(tmp_path / "s.yaml"), "-o", str(tmp_path / "o"), "-q")
    assert r.exit_code == 2 and "USD is 1" in r.stderr


def test_an_unknown_column_is_refused_with_a_suggestion(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("sku,price,curency\nqm9700,1,USD\n")
    with pytest.raises(CatalogError) as err:
        read_quotes(path, {})
    assert f"{path}:1" in str(err.value) and "Did you mean 'currency'" in str(err.value)
