"""Price files as buyers have them (issue 23): headers in any case, columns the tool does not read
ignored with a note, an unknown SKU warned about by name with the rest applied (refused with
--strict-prices on every command that takes --prices), list price and discount columns."""

from __future__ import annotations

import json

import pytest

from bom.catalog.load import load_catalog
from bom.catalog.prices import read_quotes
from bom.errors import CatalogError

SCENARIO = "name: buyer\nplatform: dgx-h100\nnodes: 16\ndate: 2026-12-02\n"
# As a buyer's export has it: capitalised headers, a quantity column, and a SKU the cluster does not sell.
BUYER = "SKU,Price,Price_Source,Qty\nqm9700,31000,quote,12\nQM9701,1,quote,3\n"


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "s.yaml").write_text(SCENARIO)
    (tmp_path / "p.csv").write_text(BUYER)
    return tmp_path / "s.yaml", tmp_path / "p.csv"


def test_an_unknown_sku_is_named_and_the_rest_applied(bom, files, tmp_path):
    scenario, prices = files
    out = tmp_path / "out"
    r = bom("build", str(scenario), "-o", str(out), "-q", "--prices", str(prices))
    assert r.exit_code == 0, r.stderr
    assert f"warning: {prices}:3: sku 'QM9701' is in no catalog row, its quote is not applied" in r.stderr
    assert "(did you mean 'qm9700'?)" in r.stderr
    assert f"warning: {prices}:1: column Qty ignored (read: sku, price, price_source)" in r.stderr
    j = json.loads((out / "buyer.json").read_text())
    assert any("QM9701" in w for w in j["warnings"])          # the JSON and report carry it too
    switch = next(o for o in j["order"] if o["sku"] == "MQM9700-NS2F")
    assert switch["unit_price_usd"] == 31000                  # the known SKU's quote applied
    assert "Traceback" not in r.stderr


def test_strict_prices_refuses_it(bom, files, tmp_path):
    scenario, prices = files
    out = tmp_path / "out"
    r = bom("build", str(scenario), "-o", str(out), "-q", "--prices", str(prices), "--strict-prices")
    assert r.exit_code == 2, r.stderr
    assert f"{prices}:3: sku: unknown sku 'QM9701'" in r.stderr and "--strict-prices" in r.stderr
    assert "Traceback" not in r.stderr and not out.exists()


@pytest.mark.parametrize("args", [["check", "{s}"], ["catalog", "validate"], ["catalog", "list"],
                                  ["catalog", "show", "qm9700"]], ids=lambda a: " ".join(a[:2]))
def test_other_commands_warn_and_refuse_alike(bom, files, args):
    scenario, prices = files
    argv = [a.format(s=scenario) for a in args] + ["--prices", str(prices)]
    r = bom(*argv)
    assert r.exit_code in (0, 1), r.stderr                    # bom check: 1 when a design rule is broken
    assert "sku 'QM9701' is in no catalog row" in r.stderr
    r = bom(*argv, "--strict-prices")
    assert r.exit_code == 2 and "unknown sku 'QM9701'" in r.stderr, r.stderr


def test_every_command_that_takes_prices_takes_strict_prices():
    import typer.main

    from bom.cli import _add_netbox, app

    _add_netbox()
    group = typer.main.get_command(app)
    seen = []

    def walk(cmd, path):
        for name, sub in getattr(cmd, "commands", {}).items():
            walk(sub, [*path, name])
        opts = {o for p in getattr(cmd, "params", []) for o in p.opts}
        if "--prices" in opts:
            seen.append(" ".join(path))
            assert "--strict-prices" in opts, f"bom {' '.join(path)} takes --prices but not --strict-prices"

    walk(group, [])
    assert {"build", "check", "catalog validate", "netbox export"} <= set(seen), seen


def test_headers_in_any_case_and_spelling(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("SKU,Price USD,Price-Source,Quote_Ref,Description\nQM9700,31000,Quote,Q-1,the leaf switch\n")
    notes: list[str] = []
    (q,) = read_quotes(path, {}, notes)
    assert (q.sku, q.usd, q.price_source, q.quote_ref) == ("QM9700", 31000, "quote", "Q-1")
    assert notes == [f"{path}:1: column Description ignored (read: sku, price_usd, price_source, quote_ref)"]
    catalog = load_catalog(prices=[path])                     # an upper-cased catalog id finds its row
    assert catalog.rows["switches"]["qm9700"].price_usd == 31000 and catalog.notes == notes


def test_a_typo_of_a_column_is_refused_not_ignored(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("sku,price,Curency\nqm9700,1,EUR\n")       # ignoring it would take 1 EUR as 1 USD
    with pytest.raises(CatalogError) as err:
        read_quotes(path, {})
    assert f"{path}:1" in str(err.value) and "Did you mean 'currency'" in str(err.value)


def test_list_price_less_discount(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("sku,list_price,discount,vendor\nqm9700,50000,35%,Acme\nmma4z00-ns,1200,0.25,Acme\n"
                    "sn5600,40000,,Acme\n")
    switch, optic, listed = read_quotes(path, {})
    assert switch.usd == pytest.approx(32500) and switch.price_source == "quote"   # 50,000 less 35 %
    assert optic.usd == pytest.approx(900)
    assert listed.usd == 40000 and listed.price_source == "list"                  # no discount: the list price


@pytest.mark.parametrize("text,key,words", [
    ("sku,price,list_price,discount\nqm9700,31000,50000,35%\n", "price", "is not list_price 50,000.00 less"),
    ("sku,price,discount\nqm9700,31000,35%\n", "discount", "without a list_price"),
    ("sku,list_price,discount\nqm9700,50000,135%\n", "discount", "is not a discount"),
    ("sku,list_price,discount\nqm9700,50000,-5\n", "discount", "is not a discount"),
], ids=["disagree", "no list price", "over 100 %", "negative"])
def test_bad_discounts_are_refused(tmp_path, text, key, words):
    path = tmp_path / "p.csv"
    path.write_text(text)
    with pytest.raises(CatalogError) as err:
        read_quotes(path, {})
    assert f"{path}:2" in str(err.value) and key in str(err.value) and words in str(err.value)


def test_a_price_and_its_list_less_discount_agreeing_is_read(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("sku,price,list_price,discount\nqm9700,32500,50000,35%\n")
    (q,) = read_quotes(path, {})
    assert q.usd == 32500


# --- a quote's minimum order and pack size -------------------------------------------------

MOQ = "sku,price,moq,pack\nqm9700,31000,10,\nMMA4Z00-NS,1000,,16\n"


def _build(bom, tmp_path, prices: str, name: str):
    (tmp_path / "s.yaml").write_text(SCENARIO)
    (tmp_path / f"{name}.csv").write_text(prices)
    out = tmp_path / name
    r = bom("build", str(tmp_path / "s.yaml"), "-o", str(out), "-q", "--prices", str(tmp_path / f"{name}.csv"))
    assert r.exit_code == 0, r.stderr
    return out, json.loads((out / "buyer.json").read_text())


@pytest.fixture()
def rounded(bom, tmp_path):
    plain, before = _build(bom, tmp_path, "sku,price\nqm9700,31000\nMMA4Z00-NS,1000\n", "plain")
    out, after = _build(bom, tmp_path, MOQ, "moq")
    return out, before, after


def test_moq_and_pack_round_the_order_up(rounded):
    _, before, after = rounded
    was = {o["sku"]: o for o in before["order"]}
    now = {o["sku"]: o for o in after["order"]}
    switch, optic = now["MQM9700-NS2F"], now["MMA4Z00-NS"]
    # 16 DGX H100 on 2-layer QM9700: 6 switches + 1 spare (one per site); the minimum order is 10.
    assert (switch["installed"], switch["spares"]) == (was["MQM9700-NS2F"]["installed"], was["MQM9700-NS2F"]["spares"])
    assert switch["installed"] + switch["spares"] < 10
    assert switch["total"] == 10 and switch["rounded_up"] == 10 - switch["installed"] - switch["spares"]
    # the optics: installed + spares up to whole packs of 16
    held = optic["installed"] + optic["spares"]
    assert optic["total"] == -(-held // 16) * 16 and optic["total"] % 16 == 0 and 0 < optic["rounded_up"] < 16
    assert optic["extended_usd"] == optic["total"] * 1000
    # priced into capex: the extra units at their quoted prices, and nothing else moves
    extra = switch["rounded_up"] * 31000 + optic["rounded_up"] * 1000
    assert after["totals"]["hardware_usd"] - before["totals"]["hardware_usd"] == pytest.approx(extra)
    assert after["totals"]["energy_per_year_usd"] == pytest.approx(before["totals"]["energy_per_year_usd"])
    assert all(o["rounded_up"] == 0 for o in after["order"] if o["sku"] not in ("MQM9700-NS2F", "MMA4Z00-NS"))
    assert {q["sku"]: (q["moq"], q["pack"]) for q in after["quotes"]} == {"qm9700": (10, None),
                                                                         "MMA4Z00-NS": (None, 16)}
    from tests.outputs.test_output_schema import _errors

    assert _errors("build", after) == []                    # the closed output schema lists the new keys


@pytest.mark.slow   # starts LibreOffice
def test_the_order_sheet_says_by_how_much_after_recalculation(rounded, tmp_path):
    import openpyxl

    from tests.spreadsheet import errors, named_values, recalc

    out, _, after = rounded
    done = recalc(out / "buyer.xlsx", tmp_path / "lo")
    assert errors(done) == []
    ws = openpyxl.load_workbook(done, data_only=True)["Order"]
    head = [c.value for c in ws[1]]
    c = {name: head.index(name) + 1 for name in head}
    for o in after["order"]:
        n = next(r for r in range(2, ws.max_row + 1) if ws.cell(r, 1).value == o["sku"])
        for column, key in (("Spares", "spares"), ("Rounded up", "rounded_up"), ("Total to order", "total"),
                            ("Extended price", "extended_usd")):
            assert ws.cell(n, c[column]).value == pytest.approx(o[key]), (o["sku"], column)
    assert named_values(done)["order_total_usd"] == pytest.approx(after["totals"]["hardware_usd"])


@pytest.mark.parametrize("value", ["0", "2.5", "-1", "many"])
def test_a_bad_moq_or_pack_is_refused(tmp_path, value):
    path = tmp_path / "p.csv"
    path.write_text(f"sku,price,pack\nqm9700,1,{value}\n")
    with pytest.raises(CatalogError) as err:
        read_quotes(path, {})
    assert f"{path}:2" in str(err.value) and "pack" in str(err.value) and "whole number" in str(err.value)


# --- quotes as vendors send them (issue 47) ---------------------------------------------------------

VENDOR = (
    "Line,Part Number,Mfr Part #,Description,Qty,Unit Price,Net Price,Lead Time,Quote #\n"
    '1,CDW-7712345,MMS4A00-XM,"OSFP 800G 2xDR4, finned",2016,"1,150.00","2,318,400.00",6-8 wks ARO,Q-2027-114\n'
    "2,CDW-7700001,920-9B36F-00RX-8S0,Quantum-X800 XDR switch,36,79500,79500,12 weeks,Q-2027-114\n")


def test_a_vendor_quote_is_applied_exactly_with_the_mapping_listed(bom, tmp_path):
    """Issue 47: `Part Number`, `Unit Price`, `Net Price`, `Qty`, `Lead Time`, `Mfr Part #` were refused
    (and `Unit Price` suggested as list_price). The maker's part number is the sku, the unit price the
    price (net, per unit), the net price checked (x Qty on line 1, per unit on line 2), the lead time's
    longer end in weeks."""
    (tmp_path / "q.csv").write_text(VENDOR)
    (tmp_path / "s.yaml").write_text(
        "name: vendor\nplatform: gb300-nvl72\ngpus: 576\nfabrics: {compute: {switch: q3400}}\n"
        "date: 2026-12-02\nprices: [q.csv]\n")
    out = tmp_path / "out"
    r = bom("build", str(tmp_path / "s.yaml"), "-o", str(out), "-q")
    assert r.exit_code == 0, r.stderr
    mapping = next(x for x in r.stderr.splitlines() if "vendor headers read as" in x)
    for said in ("'Mfr Part #' -> sku", "'Unit Price' -> price", "'Net Price' -> net_price", "'Qty' -> qty",
                 "not list_price"):
        assert said in mapping, said
    assert "Part Number (a reseller's part number beside the maker's)" in r.stderr
    assert "'Unit Price' -> list_price" not in r.stderr and "is in no catalog row" not in r.stderr
    j = json.loads((out / "vendor.json").read_text())
    order = {o["sku"]: o for o in j["order"]}
    assert order["MMS4A00-XM"]["unit_price_usd"] == 1150.0 and order["MMS4A00-XM"]["lead_time_days"] == 56
    assert order["920-9B36F-00RX-8S0"]["unit_price_usd"] == 79500.0
    assert order["920-9B36F-00RX-8S0"]["lead_time_days"] == 84
    assert {o["quote_ref"] for o in order.values() if o["sku"] in ("MMS4A00-XM", "920-9B36F-00RX-8S0")} == {
        "Q-2027-114"}
    assert order["MMS4A00-XM"]["price_source"] == "quote"


def test_a_net_price_that_is_not_the_unit_price_is_refused(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text("Mfr Part #,Qty,Unit Price,Net Price\nMMS4A00-XM,10,1150,11000\n")
    with pytest.raises(CatalogError) as err:
        read_quotes(path, {})
    assert f"{path}:2" in str(err.value) and "net price 11,000.00 is not the unit price 1,150.00" in str(err.value)


def test_a_unit_price_is_never_read_as_a_list_price(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text("Part Number,Unit Price\nqm9700,31000\n")
    notes: list[str] = []
    q, = read_quotes(path, {}, notes)
    assert (q.sku, q.amount) == ("qm9700", 31000)
    assert notes == [f"{path}:1: vendor headers read as: 'Part Number' -> sku; 'Unit Price' -> price (the quoted "
                     "price per unit, net of any discount; not list_price)"]


def test_the_scenarios_prices_columns_map_the_rest(bom, tmp_path):
    (tmp_path / "q.csv").write_text("Vendor Item,Our Price,Ship Days\nqm9700,31000,45\n")
    text = "name: mapped\nplatform: dgx-h100\nnodes: 16\ndate: 2026-12-02\nprices: {files: [q.csv], columns: %s}\n"
    (tmp_path / "s.yaml").write_text(text % '{"vendor item": sku, "Our Price": price, "SHIP DAYS": lead_time}')
    out = tmp_path / "out"
    r = bom("build", str(tmp_path / "s.yaml"), "-o", str(out), "-q")
    assert r.exit_code == 0, r.stderr
    assert "'Vendor Item' -> sku; 'Our Price' -> price" in r.stderr and "'Ship Days' -> lead_time" in r.stderr
    switch = next(o for o in json.loads((out / "mapped.json").read_text())["order"] if o["sku"] == "MQM9700-NS2F")
    assert switch["unit_price_usd"] == 31000 and switch["lead_time_days"] == 45
    (tmp_path / "s.yaml").write_text(text % '{"Our Price": price, "Vendor Item": cost}')
    r = bom("build", str(tmp_path / "s.yaml"), "-o", str(out), "-q")
    assert r.exit_code == 2 and "prices.columns" in r.stderr and "Traceback" not in r.stderr, r.stderr
    (tmp_path / "s.yaml").write_text(text % '{"Our Price": price, "Vendor Item": price}')
    r = bom("build", str(tmp_path / "s.yaml"), "-o", str(out), "-q")
    assert r.exit_code == 2 and "two headers to price" in r.stderr, r.stderr
