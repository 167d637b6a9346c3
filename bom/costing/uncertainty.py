"""A range, not a point: capex, TCO and cost per GPU-hour as P10 / P50 / P90 from a seeded Monte Carlo.

Each order line's unit price is drawn from a triangular distribution around its price (the mode)
whose low and high follow how good the price is (:data:`SPREADS`, by ``price_source``); a line
quoted in another currency also takes a draw of its exchange rate (one per currency and draw); the
utilisation is drawn around its value (at most 1), and the longest lead time's slip
(:data:`LEAD_TIME_SLIP`: the GPUs earn that much less of the period). Each draw then runs the TCO's own formulas
(bom/costing/tco.py: the capital charge by asset class, support, insurance and tax on the drawn
capex; energy, space, fibre, staff and licences as they are), so with every spread at zero each draw
is the point TCO. Percentiles interpolate between draws like a spreadsheet's PERCENTILE
(inclusive), so the workbook's Range sheet computes the same P10 / P50 / P90 over the same draws.
Same seed, same figures (Python's ``random.Random``, seeded).

Not drawn: energy prices, the quantities.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Sequence
from dataclasses import dataclass

from bom.costing.categories import asset_class
from bom.costing.order import OrderLine
from bom.costing.tco import CLASSES, Basis, Input, Tco, capital_recovery_factor, service_share

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


@dataclass(frozen=True)
class Range:
    draws: int
    seed: int
    capex: tuple[float, ...]
    tco: tuple[float, ...]
    usd_per_gpu_hour: tuple[float, ...]

    def percentiles(self, name: str) -> Percentiles:
        values = sorted(getattr(self, name))
        return Percentiles(*(percentile(values, q) for q in (0.1, 0.5, 0.9)))

    def histogram(self, name: str = "usd_per_gpu_hour", bins: int = 20) -> list[tuple[float, float, int]]:
        """(low, high, draws) of ``bins`` equal bins from the least draw to the largest (the last bin
        takes its upper edge)."""
        values = getattr(self, name)
        lo, hi = min(values), max(values)
        width = (hi - lo) / bins or 1.0
        edges = [lo + i * width for i in range(bins)] + [max(hi, lo + bins * width)]
        counts = [0] * bins
        for v in values:   # edges[i] <= v < edges[i + 1], the last bin closed (as the Range sheet counts)
            counts[min(bins - 1, bisect.bisect_right(edges, v) - 1)] += 1
        return [(edges[i], edges[i + 1], counts[i]) for i in range(bins)]

    def to_json(self) -> dict[str, object]:
        return {"draws": self.draws, "seed": self.seed,
                "capex_usd": self.percentiles("capex").to_json(), "tco_usd": self.percentiles("tco").to_json(),
                "usd_per_gpu_hour": self.percentiles("usd_per_gpu_hour").to_json()}


def percentile(ordered: Sequence[float], q: float) -> float:
    """The q-th percentile of sorted values, interpolated like PERCENTILE / PERCENTILE.INC.

    >>> percentile([1.0, 2.0, 3.0, 4.0], 0.1), percentile([1.0, 2.0, 3.0, 4.0], 0.5)
    (1.3, 2.5)
    """
    pos = (len(ordered) - 1) * q
    i = int(pos)
    if i + 1 >= len(ordered):
        return ordered[-1]
    return ordered[i] + (ordered[i + 1] - ordered[i]) * (pos - i)


def draw(order: Sequence[OrderLine], basis: Basis, tco: Tco, ins: dict[str, Input], currency: dict[str, str],
         draws: int = DEFAULT_DRAWS, seed: int = DEFAULT_SEED,
         published: dict[str, Spread] | None = None) -> Range:
    """``draws`` draws of the TCO with the prices, exchange rates and utilisation drawn (see the module);
    ``currency``: the quoted currency of each part number quoted in one other than USD; ``published``:
    a part number's spread from its catalog row's published price range, which wins over the spread
    of its price_source."""
    f = {k: float(i.value) for k, i in ins.items() if not isinstance(i.value, str)}
    rng = random.Random(seed)
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
    tri = rng.triangular
    capex_out, tco_out, rate_out = [], [], []
    for _ in range(draws):
        fx = {c: tri(FX.low, FX.high, 1.0) for c in codes}
        cap = dict(install)
        for cls, usd, spread, code in lines:
            factor = tri(spread.low, spread.high, 1.0)
            cap[cls] = cap.get(cls, 0.0) + usd * factor * (fx[code] if code else 1.0)
        capex = sum(cap.values()) + owned
        opex = fixed + sum(cap.get(c, 0.0) * support[c] for c in CLASSES) + capex * held
        annual = sum(cap.get(c, 0.0) * crf[c] for c in CLASSES) + owned_charge + opex
        util = min(1.0, f["utilisation"] * tri(UTILISATION.low, UTILISATION.high, 1.0))
        slip = longest * tri(LEAD_TIME_SLIP.low, LEAD_TIME_SLIP.high, LEAD_TIME_SLIP.low) if longest else 0.0
        worked = hours * util * max(0.0, 1.0 - slip / f["years"])
        capex_out.append(capex)
        tco_out.append(capex + f["years"] * opex)
        rate_out.append(annual / worked if worked else 0.0)
    return Range(draws, seed, tuple(capex_out), tuple(tco_out), tuple(rate_out))
