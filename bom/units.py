"""The one unit registry of the package, and the parser every input quantity goes through.

The registry is built from ``units_defs.txt`` alone: bits and bytes are information units
("800 Gbit/s", "100 GB/s" and "1.8 TB/s" convert into each other), FLOP, USD and a linear
optical loss unit (dB) are dimensions of their own. Parse once at the edges (catalog and
scenario loading); hot loops work on plain floats in the base units returned by :func:`magnitude`.
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path
from typing import Any

# pint.compat imports dask.base when dask is installed (for dask arrays of quantities, which this
# package never makes): 0.1-0.4 s and jinja2 on every command of an install with the `dask` extra
# (bom sweep --dask). It asks importlib.util.find_spec("dask"), which answers None for a None entry
# in sys.modules; the entry is gone once pint is in, so the sweep imports dask as usual. This module
# is the one place pint is imported (tests/test_units.py holds both).
_HIDE_DASK = "dask" not in sys.modules and "pint" not in sys.modules
if _HIDE_DASK:
    sys.modules["dask"] = None  # type: ignore[assignment]
try:
    import pint
finally:
    if _HIDE_DASK:
        del sys.modules["dask"]

from bom.errors import QuantityError  # noqa: E402  (after pint, see above)

ureg: pint.UnitRegistry = pint.UnitRegistry(str(Path(__file__).with_name("units_defs.txt")), cache_folder=":auto:")
Q_ = ureg.Quantity
Quantity = pint.Quantity

#: Friendly dimension names used across the catalogs and scenarios, with the unit each
#: is converted to when the model needs a plain number.
DIMENSIONS: dict[str, tuple[str, str]] = {
    "rate": ("[information] / [time]", "Gbit/s"),
    "information": ("[information]", "GB"),
    "length": ("[length]", "m"),
    "power": ("[power]", "W"),
    "energy": ("[energy]", "kWh"),
    "time": ("[time]", "day"),
    "compute": ("[computation] / [time]", "FLOP/s"),
    "work": ("[computation]", "FLOP"),
    "money": ("[currency]", "USD"),
    "energy_price": ("[currency] / [energy]", "USD/kWh"),
    "loss": ("[optical_loss]", "dB"),
    "attenuation": ("[optical_loss] / [length]", "dB/km"),
    "frequency": ("1 / [time]", "GHz"),
    "money_per_year": ("[currency] / [time]", "USD/yr"),
    "money_per_km_year": ("[currency] / [length] / [time]", "USD/km/yr"),
    "money_per_kw_month": ("[currency] / [power] / [time]", "USD/kW/month"),
    "money_per_power": ("[currency] / [power]", "USD/MW"),
    "voltage": ("[power] / [current]", "V"),
    "current": ("[current]", "A"),
}

_DIMS = {name: ureg.Quantity(1, unit).dimensionality for name, (_, unit) in DIMENSIONS.items()}

EXAMPLES: dict[str, str] = {
    "rate": '"800 Gbit/s", "800G", "1.6T", "400GbE" or "100 GB/s"',
    "information": '"80 GB"',
    "length": '"30 m" or "2 km"',
    "power": '"15 W" or "10.2 kW"',
    "energy": '"1 kWh"',
    "time": '"60 d" or "24 h"',
    "compute": '"989 TFLOP/s"',
    "work": '"2.1e25 FLOP"',
    "money": '"1200 USD"',
    "energy_price": '"0.08 USD/kWh"',
    "loss": '"1.9 dB"',
    "attenuation": '"0.4 dB/km"',
    "frequency": '"75 GHz"',
    "money_per_year": '"6000 USD/yr"',
    "money_per_km_year": '"1500 USD/km/yr"',
    "money_per_kw_month": '"184 USD/kW/month"',
    "money_per_power": '"11.7e6 USD/MW"',
    "voltage": '"415 V"',
    "current": '"60 A"',
}

# pint reads "b" as barn and "Gb" as gilbert; refuse those spellings with a suggestion
# instead of silently producing a nonsense dimension.
_AMBIGUOUS = re.compile(r"(?<![A-Za-z])([kMGTPE]?)(b)(ps|/s)?(?![A-Za-z])")
_BPS = re.compile(r"(?<![A-Za-z])([kMGTPE]?)(B|bit)ps(?![A-Za-z])")


#: A rate as engineers write it: "400G", "800G", "1.6T", "400GbE", "100GE" (a number, a decimal prefix,
#: then nothing, "E" or "bE"): bit/s at that prefix. Read only where a rate is expected, where "G" alone
#: can mean nothing else.
_RATE_SHORTHAND = re.compile(r"\s*(\d{1,9}(?:\.\d{1,9})?)\s*([kMGT])(?:bE|E)?\s*")


def rate_shorthand(text: str) -> str | None:
    """The rate a shorthand stands for, in the units we read, or None when it is not one.

    >>> rate_shorthand("1.6T"), rate_shorthand("400GbE"), rate_shorthand("800 G"), rate_shorthand("800 Gbit/s")
    ('1.6 Tbit/s', '400 Gbit/s', '800 Gbit/s', None)
    """
    m = _RATE_SHORTHAND.fullmatch(text) if len(text) <= MAX_TEXT else None
    return f"{m.group(1)} {m.group(2)}bit/s" if m else None


def _suggest(text: str) -> str | None:
    m = _AMBIGUOUS.search(text)
    if m:
        return text[: m.start()] + f"{m.group(1)}bit{'/s' if m.group(3) else ''}" + text[m.end():]
    m = _BPS.search(text)
    if m:
        return text[: m.start()] + f"{m.group(1)}{m.group(2)}/s" + text[m.end():]
    return None


#: A quantity is a finite decimal number, then a unit expression: names joined by "/", "*" or a
#: space, each with an optional small integer power ("m^2"). Nothing else reaches pint's parser,
#: whose expression evaluator would otherwise run "9**9**9 km" or "1/0 m".
MAX_TEXT = 100
_NUMBER = re.compile(r"[+-]?(?:\d{1,30}(?:\.\d{0,30})?|\.\d{1,30})(?:[eE][+-]?\d{1,3})?")
_NAME = r"[A-Za-zµ%][A-Za-z_µ%]{0,30}(?:\^-?\d{1,2})?"
_UNIT = re.compile(rf"{_NAME}(?:\s*[/*]\s*{_NAME}|\s+{_NAME})*")
#: The largest magnitude any input may have in its model unit (a bound on overflow downstream).
LIMIT = 1e40


def _read(text: str, dimension: str, key: str | None) -> pint.Quantity:
    """"number unit" by our grammar, then the unit looked up in the registry."""
    example = EXAMPLES[dimension]
    stripped = text.strip()
    number = _NUMBER.match(stripped) if len(stripped) <= MAX_TEXT else None
    unit = stripped[number.end():].strip() if number else ""
    if number is None or (unit and not _UNIT.fullmatch(unit)):
        shown = text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "..."
        raise QuantityError(f"cannot read {shown!r} as a {dimension}: write a number and a unit, "
                            f"such as {example}", key=key)
    value = float(number.group())
    if not math.isfinite(value):
        raise QuantityError(f"{text!r} is not a finite number; write it like {example}", key=key)
    if not unit:
        raise QuantityError(f"{text!r} has no unit; write the {dimension} with its unit, such as {example}",
                            key=key)
    try:
        units = ureg.parse_units(unit.replace("^", "**"))
    except (pint.errors.PintError, ValueError, TypeError, AttributeError, SyntaxError) as exc:
        raise QuantityError(f"cannot read {text!r} as a {dimension} ({exc}); "
                            f"write it like {example}", key=key) from None
    return ureg.Quantity(value, units)


def parse_quantity(text: Any, dimension: str, key: str | None = None) -> pint.Quantity:
    """Parse ``text`` ("800 Gbit/s") into a quantity of ``dimension`` ("rate", "length", ...).

    Raises :class:`QuantityError` naming ``key`` when the text is not a finite number with a
    unit, the unit is ambiguous, the dimension is wrong, or the magnitude in the model unit is
    past ``LIMIT`` (1e40).

    >>> parse_quantity("800 Gbit/s", "rate").to("GB/s")
    <Quantity(100.0, 'gigabyte / second')>
    """
    example = EXAMPLES[dimension]
    if isinstance(text, pint.Quantity):
        q = text
    else:
        if isinstance(text, bool) or not isinstance(text, (str, int, float)):
            raise QuantityError(f"expected a {dimension} such as {example}, got {_short(text)}.", key=key)
        if isinstance(text, (int, float)):
            raise _unitless(text, dimension, key)
        if dimension == "rate":
            text = rate_shorthand(text) or text
        suggestion = _suggest(text) if len(text) <= MAX_TEXT else None
        if suggestion is not None:
            raise QuantityError(
                f"{text!r} is not a spelling we read: write bits as 'bit' and rates with '/s' "
                "(in pint's usual registry 'b' is barn and 'Gb' gilbert).",
                key=key, hint=f'Write "{suggestion}".', fix={(): suggestion})
        q = _read(text, dimension, key)
    if not isinstance(q, pint.Quantity) or q.dimensionless:
        raise _unitless(text, dimension, key)
    if q.dimensionality != _DIMS[dimension]:
        got = q.dimensionality if isinstance(q, pint.Quantity) else "a bare number"
        raise QuantityError(f"{_short(text)} is not a {dimension} (its dimension is {got}); "
                            f"expected something like {example}.", key=key)
    size = abs(float(q.to(DIMENSIONS[dimension][1]).magnitude))
    if not size <= LIMIT:
        raise QuantityError(f"{_short(text)} is out of range: at most {LIMIT:g} {DIMENSIONS[dimension][1]}.",
                            key=key)
    return q


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "..."


def _unitless(text: Any, dimension: str, key: str | None) -> QuantityError:
    """The same message for 2.25e15 in YAML and "2.25e15" on the command line: a bare number."""
    return QuantityError(f"{_short(text)} has no unit; write the {dimension} with its unit, such as "
                         f"{EXAMPLES[dimension]}.", key=key)


#: Conversions already made: the catalog's quantities are converted again by every stage and site
#: shape, and pint's unit parsing was most of a campus build's model time. Keyed by the exact value,
#: so a hit returns the very number the conversion gave.
_MAGNITUDES: dict[tuple[object, object, str], float] = {}


def magnitude(q: pint.Quantity, dimension: str) -> float:
    """The plain number of ``q`` in the model unit of ``dimension`` (Gbit/s, m, W, ...)."""
    key = (q.magnitude, q._units, dimension)
    out = _MAGNITUDES.get(key)
    if out is None:
        if len(_MAGNITUDES) > 100_000:
            _MAGNITUDES.clear()
        out = _MAGNITUDES[key] = float(q.to(DIMENSIONS[dimension][1]).magnitude)
    return out


def fmt(q: pint.Quantity, unit: str, digits: int = 0) -> str:
    """A quantity as text in ``unit``: ``fmt(Q_(800, "Gbit/s"), "Gbit/s") == "800 Gbit/s"``."""
    return f"{q.to(unit).magnitude:,.{digits}f} {unit}"
