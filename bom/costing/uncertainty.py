"""A range, not a point: capex, TCO and cost per GPU-hour as P10 / P50 / P90 from a seeded Monte Carlo.

Each order line's unit price is drawn from a triangular distribution around its price (the mode)
whose low and high follow how good the price is (:data:`SPREADS`, by ``price_source``); a line
quoted in another currency also takes a draw of its exchange rate (one per currency and draw); the
utilisation is drawn around its value (at most 1).

Schedule risk: each order line's lead time is drawn too, one draw per line, independently (each part
number comes from its own supply chain): from its catalog row's range (``lead_time_low`` to
``lead_time_high``, triangular with the lead time as the mode: the estimates by part class and the
sourced ranges of issue 43), else, for a single value (a dated source without a range, a quote), up to
half of it late (:data:`LEAD_TIME_SLIP`, the mode on time); an unknown lead time is not drawn, as the
point date leaves it out. Each site's in-service day in a draw is the order date + its latest drawn
arrival (whole days) + its installation and burn-in (bom/costing/schedule.py), which gives the P10 /
P50 / P90 in-service dates beside the money. A site later than its point date loses those days of
its GPUs' service from the period (the period counts from the point date; a site ready sooner waits
for it), which the cost per GPU-hour of the draw carries. Each draw then runs the TCO's own formulas
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

import datetime as dt
import functools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from typing_extensions import TypedDict

from bom.costing.categories import asset_class
from bom.costing.order import OrderLine
from bom.costing.tco import CLASSES, Basis, Input, Tco, capital_recovery_factor, service_share
from bom.model.records import Count, Date

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
#: How late a part whose lead time is a single value (a dated source without a range, a quote) may
#: come, as a share of that lead time (drawn from 0, the mode, to the high end). A lead time with a
#: range is drawn from its range instead.
LEAD_TIME_SLIP = Spread(0.0, 0.5, "estimate: no published distribution; up to half a single quoted lead "
                                  "time late (the 2023-2024 H100 server lead times moved between about 8 and 40 "
                                  "weeks, The Register 2024-04-12), most draws near on time")
#: Days of a year, as the slip takes a late site's days off the period.
DAYS_PER_YEAR = 365.25
UTILISATION = Spread(0.85, 1.10, "estimate: no published spread; -15 % / +10 % around the input, at most 1")


class PercentilesJson(TypedDict):
    """P10 / P50 / P90 over the draws (interpolated between draws as PERCENTILE.INC)."""

    p10: float
    """One draw in ten is below it."""
    p50: float
    """The median."""
    p90: float
    """Nine draws in ten are below it."""


@dataclass(frozen=True)
class Percentiles:
    p10: float
    p50: float
    p90: float

    def to_json(self) -> PercentilesJson:
        return {"p10": round(self.p10, 6), "p50": round(self.p50, 6), "p90": round(self.p90, 6)}


class InServiceRangeJson(TypedDict):
    """A site's in-service date over the draws of its parts' lead times."""

    site: Count
    """The site (1-based)."""
    point: Date
    """The in-service date of the lead times as they stand (in_service[].date)."""
    p10: Date
    """The order date + the P10 of the drawn days to in service, rounded up to a whole day."""
    p50: Date
    """The same at P50."""
    p90: Date
    """The same at P90."""
    days: PercentilesJson
    """Order to in service [days], P10 / P50 / P90 as drawn (not rounded)."""
    lines_drawn: Count
    """Its order lines with a lead time (each drawn; an unknown one is left out, as the point date leaves it)."""


@dataclass(frozen=True)
class SiteDraw:
    """What a site's in-service day is drawn from: the order lines it takes (by their index in the order)
    and the days that follow the last arrival (installation and burn-in)."""

    site: int
    gpu_share: float            # its share of the cluster's GPUs: of the GPU-hours a late day takes off
    lines: tuple[int, ...]
    fixed_days: int
    order_date: dt.date
    point_days: int             # order to in service with the lead times as they stand


@dataclass(frozen=True, eq=False)
class InServiceDraws:
    """A site's drawn days from order to in service, one per draw."""

    site: SiteDraw
    days: np.ndarray

    @functools.cached_property
    def percentiles(self) -> Percentiles:
        import numpy as np  # heavy: loaded where the draws are made, not by every command

        ordered = np.sort(self.days)
        return Percentiles(*(percentile(ordered, q) for q in (0.1, 0.5, 0.9)))

    def date(self, q: str) -> dt.date:
        """The day at percentile ``q`` ("p10", "p50", "p90"): a day is in service whole, so a fraction rounds up."""
        return self.site.order_date + dt.timedelta(days=math.ceil(getattr(self.percentiles, q) - 1e-9))

    def to_json(self) -> InServiceRangeJson:
        s = self.site
        point = s.order_date + dt.timedelta(days=s.point_days)
        return {"site": s.site, "point": point.isoformat(), "p10": self.date("p10").isoformat(),
                "p50": self.date("p50").isoformat(), "p90": self.date("p90").isoformat(),
                "days": self.percentiles.to_json(), "lines_drawn": len(s.lines)}


class RangeJson(TypedDict):
    """P10 / P50 / P90 of capex, TCO and cost per GPU-hour over prices drawn by their price_source (AACE
    18R-97 ranges) or published range, exchange rates, utilisation and lead times, and of each site's
    in-service date (bom/costing/uncertainty.py)."""

    draws: Count
    """Monte Carlo draws (scenario uncertainty.draws)."""
    seed: int
    """The random seed (uncertainty.seed): the same seed, the same figures."""
    capex_usd: PercentilesJson
    """Capex [USD]."""
    tco_usd: PercentilesJson
    """TCO over the period [USD]."""
    usd_per_gpu_hour: PercentilesJson
    """Cost per GPU-hour [USD] (a late site's days taken off its GPUs' hours)."""
    in_service: list[InServiceRangeJson]
    """Each site's in-service date over the lead times drawn from each row's range."""


@dataclass(frozen=True, eq=False)
class Range:
    """The draws, one array per figure (a million draws are 8 MB an array, not a million Python floats)."""

    draws: int
    seed: int
    capex: np.ndarray
    tco: np.ndarray
    usd_per_gpu_hour: np.ndarray
    in_service: tuple[InServiceDraws, ...] = ()

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

    def to_json(self) -> RangeJson:
        return {"draws": self.draws, "seed": self.seed,
                "capex_usd": self.percentiles("capex").to_json(), "tco_usd": self.percentiles("tco").to_json(),
                "usd_per_gpu_hour": self.percentiles("usd_per_gpu_hour").to_json(),
                "in_service": [s.to_json() for s in self.in_service]}


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


def lead_spread(o: OrderLine) -> tuple[float, float, float] | None:
    """(low, high, mode) a line's lead time is drawn from [days]; None for an unknown lead time (not drawn)."""
    if o.lead_time_days is None:
        return None
    return lead_range(o.lead_time_days, o.lead_time_low_days, o.lead_time_high_days)


def lead_range(days: float, low: float | None, high: float | None) -> tuple[float, float, float]:
    """(low, high, mode) of a lead time of ``days``: its row's range with the lead time the mode, else up
    to half a single value late (:data:`LEAD_TIME_SLIP`).

    >>> lead_range(364.0, 252.0, 364.0), lead_range(84.0, None, None)
    ((252.0, 364.0, 364.0), (84.0, 126.0, 84.0))
    """
    if low is not None and high is not None:
        return min(low, days), max(high, days), days
    return days * (1.0 + LEAD_TIME_SLIP.low), days * (1.0 + LEAD_TIME_SLIP.high), days * (1.0 + LEAD_TIME_SLIP.low)


def one_site(order: Sequence[OrderLine], order_date: dt.date = dt.date(2026, 1, 1)) -> tuple[SiteDraw, ...]:
    """The whole order as one site with nothing after its last arrival (no schedule given)."""
    known = tuple(i for i, o in enumerate(order) if o.lead_time_days is not None)
    point = max((math.ceil((order[i].lead_time_days or 0.0) - 1e-9) for i in known), default=0)
    return (SiteDraw(1, 1.0, known, 0, order_date, point),)


def draw(order: Sequence[OrderLine], basis: Basis, tco: Tco, ins: dict[str, Input], currency: dict[str, str],
         draws: int = DEFAULT_DRAWS, seed: int = DEFAULT_SEED,
         published: dict[str, Spread] | None = None, sites: Sequence[SiteDraw] | None = None) -> Range:
    """``draws`` draws of the TCO with the prices, exchange rates, utilisation and lead times drawn (see
    the module); ``currency``: the quoted currency of each part number quoted in one other than USD;
    ``published``: a part number's spread from its catalog row's published price range, which wins over
    the spread of its price_source; ``sites``: each site's lines and days after its last arrival (default:
    the order as one site)."""
    import numpy as np  # heavy: loaded where the draws are made, not by every command

    f = {k: float(i.value) for k, i in ins.items() if not isinstance(i.value, str)}
    published = published or {}
    sites = tuple(sites) if sites is not None else one_site(order)
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
    # The lines whose lead time is drawn, each a column after the utilisation's, in the order's order.
    leads = [(i, days) for i, o in enumerate(order) if (days := lead_spread(o)) is not None]
    column = {i: k for k, (i, _) in enumerate(leads)}
    codes = sorted({c for *_, c in lines if c})
    fx_at = {c: i for i, c in enumerate(codes)}
    # Each draw takes its uniforms in the order a per-draw loop of random.Random takes them (the exchange
    # rates, every line's price, the utilisation, every drawn lead time), and the stream is that
    # generator's own (MT19937 from the same seed, the same 53-bit doubles), so the same seed gives the
    # same draws bit for bit as that loop (tests/costing/test_range.py); only a block of draws at a time.
    width = len(codes) + len(lines) + 1 + len(leads)
    uniforms = _uniforms(seed)
    capex_out, tco_out, rate_out = np.empty(draws), np.empty(draws), np.empty(draws)
    days_out = [np.empty(draws) for _ in sites]
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
        # Whole days, as a delivery date counts them (bom/costing/schedule.py whole_days).
        lead = [np.ceil(_triangular(u[:, k + 1 + c], lo, hi, mode) - 1e-9) for c, (_, (lo, hi, mode)) in
                enumerate(leads)]
        left: Any = 0
        alike: dict[tuple[tuple[int, ...], int, int], tuple[Any, Any]] = {}   # sites of one shape: drawn once
        for site, out in zip(sites, days_out, strict=True):
            key = (site.lines, site.fixed_days, site.point_days)
            if key not in alike:
                arrived: Any = np.zeros(n)
                for i in site.lines:
                    arrived = np.maximum(arrived, lead[column[i]])
                days = arrived + site.fixed_days
                late = days - site.point_days
                share = 1.0 - np.where(late > 0.0, late, 0.0) / DAYS_PER_YEAR / f["years"]
                alike[key] = days, np.where(share > 0.0, share, 0.0)
            days, kept = alike[key]
            out[start:start + n] = days
            left = left + site.gpu_share * kept
        worked = hours * util * left
        capex_out[start:start + n] = capex
        tco_out[start:start + n] = capex + f["years"] * opex
        rate = np.zeros(n)
        np.divide(annual, worked, out=rate, where=worked != 0)
        rate_out[start:start + n] = rate
    return Range(draws, seed, capex_out, tco_out, rate_out,
                 tuple(InServiceDraws(site, days) for site, days in zip(sites, days_out, strict=True)))


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

