"""A range, not a point: capex, TCO and cost per GPU-hour as P10 / P50 / P90 from a seeded Monte Carlo.

Each order line's unit price is drawn from a triangular distribution around its price (the mode)
whose low and high follow how good the price is (:data:`SPREADS`, by ``price_source``); a line
quoted in another currency also takes a draw of its exchange rate (one per currency and draw); the
utilisation is drawn around its value (at most 1), and the longest lead time's slip
(:data:`LEAD_TIME_SLIP`: the GPUs earn that much less of the period). Each draw then runs the TCO's own formulas
(bom/costing/tco.py: the capital charge by asset class, support, insurance and tax on the drawn
capex; energy, space, fibre, staff and licences as they are), so with every spread at zero each draw
is the point TCO. Percentiles interpolate between draws like a spreadsheet's PERCENTILE
(inclusive); the workbook's Range sheet holds them and the histogram as values, not the draws.

The draws are numpy arrays, a block of draws at a time (a million draws run in seconds in tens of
MB), from the uniforms Python's ``random.Random(seed)`` gives (numpy's MT19937 started in its state:
the same 53-bit doubles), each taken where a draw-at-a-time loop took it, through the same float
operations in the same order: the same seed gives the same figures to the last bit as that loop
(tests/costing/test_range.py keeps it as the reference).

Not drawn: energy prices, the quantities.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bom.costing.categories import asset_class
from bom.costing.order import OrderLine
from bom.costing.tco import CLASSES, Basis, Input, Tco, capital_recovery_factor, service_share

if TYPE_CHECKING:   # numpy is imported where the draws are made: a command that draws none does not load it
    import numpy as np  # heavy: loaded where the draws are made, not by every command

DEFAULT_DRAWS = 2000
DEFAULT_SEED = 1


@dataclass(frozen=True)
class Spread:
    low: float      # x the value at the low end
    high: float     # x the value at the high end
    source: str


def published_spread(price: float, low: float | None, high: float | None, source: str) -> Spread | None:
    """A price's spread from its row's published range (None without one, or at a zero price).

    >>> published_spread(270_000, 199_000, 317_000, "DGX H100 range")
    Spread(low=0.737037037037037, high=1.174074074074074, source='DGX H100 range')
    """
    if low is None or high is None or price <= 0:
        return None
    return Spread(low / price, high / price, source)


#: How far a price may fall from its value, by price_source (the mode is the price itself). AACE
#: International Recommended Practice 18R-97, "Cost Estimate Classification System", Table 1: expected
#: accuracy ranges of Class 4 (study) -15 to -30 % / +20 to +50 %, Class 2 (control) -5 to -15 % /
#: +5 to +20 %, Class 1 (check) -3 to -10 % / +3 to +15 %.
SPREADS: dict[str, Spread] = {
    "estimate": Spread(0.70, 1.50, "AACE 18R-97 Table 1, Class 4 at its wide end (-30 % / +50 %): a price "
                                   "estimated from a similar part"),
    "list": Spread(0.85, 1.20, "AACE 18R-97 Table 1, Class 2 at its wide end (-15 % / +20 %): a list price "
                               "before the discount a buyer gets"),
    "quote": Spread(0.97, 1.03, "AACE 18R-97 Table 1, Class 1 at its narrow end (-3 % / +3 %): a firm quote"),
}
FX = Spread(0.95, 1.05, "estimate: EUR/USD moved between about 1.03 and 1.12 in 2024 (ECB euro foreign "
                        "exchange reference rates), about +/-4 % around its mean")
#: How late the last part may come, as a share of the longest lead time on the order (drawn from 0,
#: the mode, to the high end): the GPUs go into service that much later and earn that much less of
#: the period.
LEAD_TIME_SLIP = Spread(0.0, 0.5, "estimate: no published distribution; up to half the longest quoted lead "
                                  "time late (the 2023-2024 H100 server lead times moved between about 8 and 40 "
                                  "weeks, The Register 2024-04-12), most draws near on time")
UTILISATION = Spread(0.85, 1.10, "estimate: no published spread; -15 % / +10 % around the input, at most 1")


@dataclass(frozen=True)
class Percentiles:
    p10: float
    p50: float
    p90: float

    def to_json(self) -> dict[str, float]:
        return {"p10": round(self.p10, 6), "p50": round(self.p50, 6), "p90": round(self.p90, 6)}


@dataclass(frozen=True, eq=False)
class Range:
    """The draws, one array per figure (a million draws are 8 MB an array, not a million Python floats)."""

    draws: int
    seed: int
    capex: np.ndarray
    tco: np.ndarray
    usd_per_gpu_hour: np.ndarray

    @functools.cached_property
    def _sorted(self) -> dict[str, np.ndarray]:
        import numpy as np  # heavy: loaded where the draws are made, not by every command

        return {name: np.sort(getattr(self, name)) for name in ("capex", "tco", "usd_per_gpu_hour")}

    def percentiles(self, name: str) -> Percentiles:
        values = self._sorted[name]
        return Percentiles(*(percentile(values, q) for q in (0.1, 0.5, 0.9)))

    def histogram(self, name: str = "usd_per_gpu_hour", bins: int = 20) -> list[tuple[float, float, int]]:
        """(low, high, draws) of ``bins`` equal bins from the least draw to the largest (the last bin
        takes its upper edge)."""
        import numpy as np  # heavy: loaded where the draws are made, not by every command

        values = self._sorted[name]
        lo, hi = float(values[0]), float(values[-1])
        width = (hi - lo) / bins or 1.0
        edges = [lo + i * width for i in range(bins)] + [max(hi, lo + bins * width)]
        # edges[i] <= v < edges[i + 1], the last bin closed
        at = np.minimum(bins - 1, np.searchsorted(np.array(edges), values, side="right") - 1)
        counts = np.bincount(at, minlength=bins)
        return [(edges[i], edges[i + 1], int(counts[i])) for i in range(bins)]

    def to_json(self) -> dict[str, object]:
        return {"draws": self.draws, "seed": self.seed,
                "capex_usd": self.percentiles("capex").to_json(), "tco_usd": self.percentiles("tco").to_json(),
                "usd_per_gpu_hour": self.percentiles("usd_per_gpu_hour").to_json()}


def percentile(ordered: Sequence[float] | np.ndarray, q: float) -> float:
    """The q-th percentile of sorted values, interpolated like PERCENTILE / PERCENTILE.INC.

    >>> percentile([1.0, 2.0, 3.0, 4.0], 0.1), percentile([1.0, 2.0, 3.0, 4.0], 0.5)
    (1.3, 2.5)
    """
    pos = (len(ordered) - 1) * q
    i = int(pos)
    if i + 1 >= len(ordered):
        return float(ordered[-1])
    return float(ordered[i] + (ordered[i + 1] - ordered[i]) * (pos - i))


def draw(order: Sequence[OrderLine], basis: Basis, tco: Tco, ins: dict[str, Input], currency: dict[str, str],
         draws: int = DEFAULT_DRAWS, seed: int = DEFAULT_SEED,
         published: dict[str, Spread] | None = None) -> Range:
    """``draws`` draws of the TCO with the prices, exchange rates and utilisation drawn (see the module);
    ``currency``: the quoted currency of each part number quoted in one other than USD; ``published``:
    a part number's spread from its catalog row's published price range, which wins over the spread
    of its price_source."""
    import numpy as np  # heavy: loaded where the draws are made, not by every command

    f = {k: float(i.value) for k, i in ins.items() if not isinstance(i.value, str)}
    published = published or {}
    lines = [(asset_class(o.category), o.extended_usd,
              published.get(o.sku) or SPREADS.get(o.price_source, SPREADS["estimate"]), currency.get(o.sku))
             for o in order]
    install = {"gpu": 0.0, "network": basis.links * f["install_link"], "facility": basis.racks * f["install_rack"]}
    crf = {c: capital_recovery_factor(f["discount_rate"], f[f"life_{c}"]) for c in CLASSES}
    support = {c: f[f"support_{c}"] for c in CLASSES}
    fixed = tco.energy_per_year + tco.dark_fibre_per_year + tco.space_per_year + tco.staff_per_year \
        + tco.licences_per_year
    held = f["insurance"] + f["property_tax"]
    # A built facility (tco.facility: build) is in capex and the capital charge at its figure, not drawn.
    owned = tco.building_capex_usd + tco.grid_connection_usd if tco.facility_built else 0.0
    owned_charge = tco.build_per_year if tco.facility_built else 0.0
    hours = basis.gpus * f["hours"] * service_share(f["ramp_months"], f["years"])
    # The longest lead time on the order [years]; no lead time known: no slip drawn.
    longest = max((o.lead_time_days or 0.0 for o in order), default=0.0) / 365.25
    codes = sorted({c for *_, c in lines if c})
    fx_at = {c: i for i, c in enumerate(codes)}
    # Each draw takes its uniforms in the order the per-draw loop of random.Random took them before
    # (the exchange rates, every line, the utilisation, the slip), and the stream is that generator's
    # own (MT19937 from the same seed, the same 53-bit doubles), so the same seed gives the same draws
    # bit for bit; only now a block of draws at a time, as arrays.
    width = len(codes) + len(lines) + 1 + (1 if longest else 0)
    uniforms = _uniforms(seed)
    capex_out, tco_out, rate_out = np.empty(draws), np.empty(draws), np.empty(draws)
    block = max(1, BLOCK_VALUES // width)
    for start in range(0, draws, block):
        n = min(block, draws - start)
        u = uniforms.random((n, width))
        fx = [_triangular(u[:, k], FX.low, FX.high, 1.0) for k in range(len(codes))]
        cap: dict[str, Any] = dict(install)
        for j, (cls, usd, spread, code) in enumerate(lines, start=len(codes)):
            factor = _triangular(u[:, j], spread.low, spread.high, 1.0)
            cap[cls] = cap.get(cls, 0.0) + usd * factor * (fx[fx_at[code]] if code else 1.0)
        capex: Any = 0
        for v in cap.values():   # in the dict's order, one addition at a time: as sum() adds
            capex = capex + v
        capex = capex + owned
        opex = fixed + _sum(cap.get(c, 0.0) * support[c] for c in CLASSES) + capex * held
        annual = _sum(cap.get(c, 0.0) * crf[c] for c in CLASSES) + owned_charge + opex
        k = len(codes) + len(lines)
        util = f["utilisation"] * _triangular(u[:, k], UTILISATION.low, UTILISATION.high, 1.0)
        util = np.where(util < 1.0, util, 1.0)                       # min(1.0, util)
        slip = longest * _triangular(u[:, k + 1], LEAD_TIME_SLIP.low, LEAD_TIME_SLIP.high, LEAD_TIME_SLIP.low) \
            if longest else 0.0
        left = 1.0 - slip / f["years"]
        worked = hours * util * np.where(left > 0.0, left, 0.0)     # max(0.0, left)
        capex_out[start:start + n] = capex
        tco_out[start:start + n] = capex + f["years"] * opex
        rate = np.zeros(n)
        np.divide(annual, worked, out=rate, where=worked != 0)
        rate_out[start:start + n] = rate
    return Range(draws, seed, capex_out, tco_out, rate_out)


#: Uniforms drawn at a time (8 bytes each): 32 MB, whatever the number of draws.
BLOCK_VALUES = 1 << 22


def _uniforms(seed: int) -> np.random.Generator:
    """numpy's MT19937 in the state ``random.Random(seed)`` starts in: the same stream of doubles."""
    import numpy as np  # heavy: loaded where the draws are made, not by every command

    _, state, _ = random.Random(seed).getstate()
    bits = np.random.MT19937()
    bits.state = {"bit_generator": "MT19937", "state": {"key": np.array(state[:-1], dtype=np.uint32),
                                                         "pos": state[-1]}}
    return np.random.Generator(bits)


def _triangular(u: np.ndarray, low: float, high: float, mode: float) -> Any:
    """``random.Random.triangular(low, high, mode)`` of each uniform ``u``, with the same operations
    in the same order (so the same value to the last bit)."""
    import numpy as np  # heavy: loaded where the draws are made, not by every command

    if high - low == 0:
        return np.full(len(u), low)
    c = (mode - low) / (high - low)
    upper = u > c
    root = np.sqrt(np.where(upper, (1.0 - u) * (1.0 - c), u * c))
    return np.where(upper, high + (low - high) * root, low + (high - low) * root)


def _sum(values: Any) -> Any:
    total: Any = 0
    for v in values:
        total = total + v
    return total
