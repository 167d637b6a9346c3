"""Limits that combine (issue 24): a limit holds after every conversion, a number is read as written
or refused, and keys that contradict each other are refused by name."""

from __future__ import annotations

import pytest

from tests.hostile.conftest import SMALL, check, leftovers, run, write


@pytest.mark.parametrize("rate, price, words", [
    ("1e40", "29000", ["at 1e+40 USD/EUR is 2.9e+44 USD", "past 1e+12", "exchange_rates.EUR"]),
    ("1.08", "3,1000", ["'3,1000' is not a number", "commas group thousands"]),
    ("1.08", "1,20", ["not a number"]),
    ("1.08", "1e12", ["past 1e+12"]),   # 1e12 EUR is 1.08e12 USD: past the cap only once converted
])
def test_prices_past_the_limit_after_conversion(tmp_path, rate, price, words):
    scenario = write(tmp_path, "s.yaml", SMALL + f"exchange_rates: {{EUR: {rate}}}\n")
    prices = write(tmp_path, "p.csv", f'sku,price,currency\ndgx-h100,"{price}",EUR\n')
    out = tmp_path / "out"
    r = run("build", str(scenario), "--prices", str(prices), "-o", str(out), "-q")
    check(r, where=f"{prices}:2", key="price")
    for w in words:
        assert w in r.stderr, (w, r.stderr)
    assert not out.exists() and not leftovers(tmp_path)


@pytest.mark.parametrize("tco, key", [
    ('{electricity: "1e40 USD/kWh"}', "tco.electricity"),
    ('{electricity: "2e15 USD/MWh"}', "tco.electricity"),     # under 1e12 as written, 2e12 USD/kWh converted
    ('{colocation: "1e20 USD/kW/month"}', "tco.colocation"),
    ('{install_link: "1e13 USD"}', "tco.install_link"),
])
def test_money_in_the_tco_block_within_the_cap_once_converted(tmp_path, tco, key):
    scenario = write(tmp_path, "s.yaml", SMALL + f"tco: {tco}\n")
    out = tmp_path / "out"
    r = run("build", str(scenario), "-o", str(out), "-q")
    check(r, where=f"{scenario}:4", key=key)
    assert "past 1e+12 USD" in r.stderr and not out.exists()


def test_grouped_thousands_still_read(tmp_path):
    from bom.catalog.prices import _amount

    assert _amount("1,200.50", "x", "price") == (1200.5, None)
    assert _amount("1,234,567 EUR", "x", "price") == (1234567.0, "EUR")
    assert _amount("31000", "x", "price") == (31000.0, None)


def test_contradicting_dci_keys_are_refused_by_name(tmp_path):
    scenario = write(tmp_path, "s.yaml", SMALL + 'sites: {count: 2, distance: "10 km", dci_bandwidth: "1 Tbit/s", '
                                                 'dci_fraction: 0.5}\n')
    r = run("build", str(scenario), "-o", str(tmp_path / "out"), "-q")
    check(r, key="dci_bandwidth")
    assert "dci_fraction" in r.stderr and "not both" in r.stderr
