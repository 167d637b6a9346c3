"""The one registry: bits and bytes, money, power, ambiguous spellings refused."""

from __future__ import annotations

import math

import pytest

from bom.errors import QuantityError
from bom.units import Q_, magnitude, parse_quantity, ureg


def test_bits_and_bytes_convert_into_each_other():
    assert parse_quantity("800 Gbit/s", "rate").to("GB/s").magnitude == pytest.approx(100)
    assert parse_quantity("1.8 TB/s", "rate").to("Gbit/s").magnitude == pytest.approx(14400)
    assert magnitude(parse_quantity("100 GB/s", "rate"), "rate") == pytest.approx(800)


def test_power_energy_length_time_money():
    assert parse_quantity("1 MW", "power").to("kW").magnitude == pytest.approx(1000)
    assert parse_quantity("10.2 kW", "power").to("W").magnitude == pytest.approx(10200)
    assert (Q_(15, "W") * Q_(2, "h")).to("kWh").magnitude == pytest.approx(0.03)
    assert parse_quantity("2 km", "length").to("m").magnitude == 2000
    assert parse_quantity("60 d", "time").to("s").magnitude == 60 * 86400
    price = parse_quantity("0.08 USD/kWh", "energy_price")
    assert (price * Q_(1, "MWh")).to("USD").magnitude == pytest.approx(80)


def test_bit_is_not_dimensionless_so_a_frequency_is_not_a_rate():
    with pytest.raises(QuantityError):
        parse_quantity("5 GHz", "rate")
    assert ureg.Quantity("1 bit").dimensionality != ureg.Quantity("1").dimensionality


@pytest.mark.parametrize("text,suggestion", [("800 Gb/s", "800 Gbit/s"),
                                             ("400 Gbps", "400 Gbit/s"),
                                             ("10 Mb", "10 Mbit")])
def test_ambiguous_bit_spellings_are_refused_with_a_suggestion(text, suggestion):
    with pytest.raises(QuantityError) as err:
        parse_quantity(text, "rate", key="fabrics.compute.rate")
    assert f'"{suggestion}"' in str(err.value)
    assert "fabrics.compute.rate" in str(err.value)


def test_a_length_where_a_rate_is_expected_names_the_key():
    with pytest.raises(QuantityError) as err:
        parse_quantity("30 m", "rate", key="scale_out.rate")
    msg = str(err.value)
    assert msg.startswith("scale_out.rate:") and "not a rate" in msg and "[length]" in msg


@pytest.mark.parametrize("bad", [12, "twelve", "", None, True, "12 parsecs"])
def test_not_a_quantity(bad):
    with pytest.raises(QuantityError):
        parse_quantity(bad, "length", key="k")


def test_decibels_add_linearly():
    total = parse_quantity("0.4 dB/km", "attenuation") * Q_(2, "km") + parse_quantity("0.35 dB", "loss")
    assert math.isclose(total.to("dB").magnitude, 1.15)


def test_pint_comes_in_without_dask_and_only_through_bom_units():
    """pint imports dask.base when dask is installed (0.1-0.4 s and jinja2 on every command); bom.units
    hides it while pint loads, and dask still imports afterwards (bom sweep --dask)."""
    import subprocess
    import sys
    from pathlib import Path

    code = ("import sys, importlib.util, bom.units; print('dask' in sys.modules, "
            "importlib.util.find_spec('dask') is not None)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    imported, installed = out.stdout.split()
    assert imported == "False"
    if installed == "True":   # the [test] extra has it: it must still import after pint
        out = subprocess.run([sys.executable, "-c", "import bom.units, dask.base; print('ok')"],
                             capture_output=True, text=True, check=True)
        assert out.stdout.strip() == "ok"
    root = Path(__file__).resolve().parents[1] / "bom"
    importers = sorted(str(p.relative_to(root)) for p in root.rglob("*.py")
                       if any(line.strip() in ("import pint", "from pint import") or line.startswith("from pint ")
                              for line in p.read_text().splitlines()))
    assert importers == ["units.py"]
