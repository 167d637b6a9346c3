"""The order: spares as BOM lines, then one line per orderable part number with per-site quantities.

Works from :class:`bom.costing.lines.Line` data only (category, sku, catalog id), so a part another stage
adds is merged, spared and flagged like the rest. Spares follow the scenario's ``spares:`` policy
per category (a fraction, a minimum or N per site, the largest of the three); they are BOM lines
in fabric ``spares``, priced (so counted in capex) and drawing no power (they sit on a shelf).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from statistics import NormalDist

from bom.catalog.prices import Quote
from bom.catalog.rows import Catalog, Row
from bom.costing.categories import Category
from bom.costing.lines import Line
from bom.inputs.scenario import SparesRule

SPARES = "spares"
#: The hop of the lines that round an order up to a quote's minimum order and whole packs (fabric spares:
#: priced into capex, on a shelf, drawing no power).
ROUNDING = "order rounding"
_SPARES_SOURCE = ("estimate: enough to cover failures while a unit is away for replacement (spares from "
                  "installed units, failure rate and return time; askbow.com, 'How many spares do you need?', 2018)")
#: Spares per category when the scenario gives none. Estimates (see _SPARES_SOURCE): optics and
#: cables fail more often than switches and are cheap to hold; one switch of each kind per site
#: restores a failed leaf in hours instead of an RMA's days; GPU systems are covered by support.
DEFAULT_SPARES: dict[str, SparesRule] = {
    Category.TRANSCEIVER: SparesRule(fraction=0.02, min=2),
    Category.LASER_SOURCE: SparesRule(fraction=0.02, min=2),   # CPO switches' field-replaceable lasers, as optics
    Category.COHERENT_OPTIC: SparesRule(min=2),
    Category.COPPER_CABLE: SparesRule(fraction=0.02, min=2),
    Category.AOC: SparesRule(fraction=0.02, min=2),
    Category.FIBRE_TRUNK: SparesRule(fraction=0.01, min=1),
    Category.PATCH_CORD: SparesRule(fraction=0.02, min=2),
    Category.SWITCH: SparesRule(per_site=1),
    Category.DCI_SWITCH: SparesRule(min=1),
}


def spares_policy(given: dict[str, SparesRule] | None) -> dict[str, SparesRule]:
    """The defaults, with each category the scenario gives replaced."""
    return {**DEFAULT_SPARES, **(given or {})}


def spare_count(installed: float, rule: SparesRule, sites: int, per_site: Sequence[float] | None = None) -> int:
    """Spares of one part = max(ceil(fraction x installed), min, per_site x sites, and with a failure
    rate, each site's Poisson spares for its own installed count: :func:`site_spares`).

    >>> spare_count(6912, SparesRule(fraction=0.02, min=2), 2), spare_count(10, SparesRule(min=2), 2)
    (139, 2)
    >>> spare_count(64, SparesRule(per_site=1), 4), spare_count(5, SparesRule(), 1)
    (4, 0)
    """
    by_rate = sum(site_spares(installed, rule, sites, per_site)) if rule.by_failure_rate else 0
    return max(math.ceil(rule.fraction * installed - 1e-9), rule.min, rule.per_site * sites, by_rate)


def site_spares(installed: float, rule: SparesRule, sites: int, per_site: Sequence[float] | None = None) -> list[int]:
    """Each site's Poisson spares for the failures its own units bring during a resupply (a site's
    pool serves its own failures: a smaller site's spares do not cover a larger one's). With no
    per-site split (a site shape that cannot stand alone), every site takes an even share.

    >>> site_spares(1000, SparesRule(afr=0.073, resupply="10 d", service_level=0.95), 2, (800, 200))
    [4, 2]
    """
    shares = list(per_site) if per_site is not None and len(per_site) == sites else [installed / sites] * sites
    return [poisson_spares(expected_failures(n, rule), rule.service_level or 0.0) for n in shares]


def expected_failures(installed: float, rule: SparesRule) -> float:
    """Failures expected during one resupply time = installed x AFR x resupply days / 365."""
    assert rule.afr is not None and rule.resupply is not None
    return installed * rule.afr * float(rule.resupply.to("day").magnitude) / 365.0


#: Means past which the distribution is not walked term by term (the walk takes some 50 standard
#: deviations: 1.6e5 steps at 1e7) but taken as normal, with the skew's correction (Cornish-Fisher).
#: A mean that large is millions of failures per resupply; the spares are then off by one at most.
EXACT_MEAN = 1e7


def _walk_end(mean: float) -> int:
    """Where the walk stops whatever the sum: 40 standard deviations and 40 past the mean the Poisson
    tail is below 1e-40 (Chernoff: exp(-t^2 / 2(mean + t/3)) at t = 40 sd + 40), nothing a float can add."""
    return int(mean + 40 * math.sqrt(mean) + 40) + 1


def poisson_cdf(k: int, mean: float) -> float:
    """P(X <= k) for X ~ Poisson(mean), each term in log space (no underflow at large means), from
    12 standard deviations below the mean (the terms below add nothing a float can hold) to k or the
    walk's end (:func:`_walk_end`, the terms past it neither).

    >>> round(poisson_cdf(4, 2.0), 4), round(poisson_cdf(5, 2.0), 4), poisson_cdf(3, 0.0)
    (0.9473, 0.9834, 1.0)
    >>> poisson_cdf(10**15, 1e30), round(poisson_cdf(10**9, 1e9), 2)
    (0.0, 0.5)
    """
    if mean <= 0:
        return 1.0
    if mean > EXACT_MEAN:
        return NormalDist(mean, math.sqrt(mean)).cdf(k + 0.5)
    lo = max(0, int(mean - 12 * math.sqrt(mean)) - 1)
    hi = min(k, _walk_end(mean))
    return min(1.0, sum(math.exp(i * math.log(mean) - mean - math.lgamma(i + 1)) for i in range(lo, hi + 1)))


def poisson_spares(mean: float, service_level: float) -> int:
    """The fewest spares s with P(failures during a resupply <= s) >= the service level.

    The sum of the terms stops at the service level or where what is left of the tail can no longer
    move the sum (a level such as 0.9999999999999999 that the float sum never reaches: the spares
    then leave a tail below 2**-53, as close as a float tells), and never walks past :func:`_walk_end`.

    >>> poisson_spares(2.0, 0.95), poisson_spares(2.0, 0.98), poisson_spares(0.0, 0.99)
    (5, 5, 0)
    >>> poisson_spares(16 * 10_000 / 365, 0.9999999999999999), poisson_spares(1e30, 0.99) - 10**30 < 3 * 10**15
    (621, True)
    """
    if mean <= 0:
        return 0
    if mean > EXACT_MEAN:
        z = NormalDist().inv_cdf(service_level)
        return max(0, math.ceil(mean + z * math.sqrt(mean) + (z * z - 1) / 6 - 0.5))
    s = max(0, int(mean - 12 * math.sqrt(mean)) - 1)
    term = math.exp(s * math.log(mean) - mean - math.lgamma(s + 1))
    total = term
    end = _walk_end(mean)
    while total < service_level and s < end:   # each next term is the last x mean / (s + 1)
        s += 1
        term *= mean / s
        total += term
        # past the mode the terms fall at least as fast as mean / (s + 1): what is left is below
        # term x mean / (s + 1 - mean)
        if s + 1 > mean and term * mean / (s + 1 - mean) < total * 2.0 ** -53:
            break
    return s


@dataclass(frozen=True)
class SparesBasis:
    """How a part's spares were counted, and how a fraction rule would have fared (with a failure rate)."""

    method: str                         # "rule" (fraction / min / per site) or "failure rate"
    expected_failures: float | None     # per site during one resupply time
    fill_rate: float | None             # P(a site's failures during a resupply <= its spares)
    fraction_rule_spares: int | None    # what the default fraction rule of the category gives
    fraction_rule_fill_rate: float | None

    def text(self) -> str:
        if self.expected_failures is None:
            return "spares by rule (fraction, minimum or per site)"
        return (f"by failure rate: {self.expected_failures:,.3g} failures expected per site during a resupply, "
                f"fill rate {self.fill_rate:.2%}" + (
                    f"; the default fraction rule's {self.fraction_rule_spares:,} spares would fill "
                    f"{self.fraction_rule_fill_rate:.2%}" if self.fraction_rule_spares is not None else ""))

    def to_json(self) -> dict[str, object]:
        return {"method": self.method, "expected_failures_per_site": self.expected_failures,
                "fill_rate": self.fill_rate, "fraction_rule_spares": self.fraction_rule_spares,
                "fraction_rule_fill_rate": self.fraction_rule_fill_rate}


def spares_basis(installed: float, spares: float, category: str, rule: SparesRule | None, sites: int,
                 per_site: Sequence[float] | None = None) -> SparesBasis:
    """The fill rate of the spares held, and of the category's default fraction rule, when the rule
    gives a failure rate; "rule" otherwise (no failure rate, no fill rate to state). Each site holds its
    Poisson spares and an even share of the rest (:func:`held_by_site`); the fill rate and the failures
    expected are the worst site's."""
    if rule is None or not rule.by_failure_rate:
        return SparesBasis("rule", None, None, None, None)
    shares = list(per_site) if per_site is not None and len(per_site) == sites else [installed / sites] * sites
    means = [expected_failures(n, rule) for n in shares]

    def fill(held: float) -> float:
        pools = held_by_site(int(held), site_spares(installed, rule, sites, per_site))
        return min(poisson_cdf(k, m) if m > 0 else 1.0 for k, m in zip(pools, means, strict=True))

    default = DEFAULT_SPARES.get(category)
    if default is None:
        return SparesBasis("failure rate", max(means), fill(spares), None, None)
    n = spare_count(installed, default, sites)
    return SparesBasis("failure rate", max(means), fill(spares), n, fill(n))


def held_by_site(spares: int, need: Sequence[int]) -> list[int]:
    """Spares held in each site: its own need first (as far as the spares go), the rest in even whole shares.

    >>> held_by_site(10, [5, 2]), held_by_site(4, [5, 2]), held_by_site(20, [0, 0])
    ([7, 3], [4, 0], [10, 10])
    """
    out, left = [], spares
    for k in need:
        out.append(min(k, left))
        left -= out[-1]
    n = len(out)
    return [x + left // n + (1 if i < left % n else 0) for i, x in enumerate(out)]


def spare_lines(lines: Sequence[Line], policy: dict[str, SparesRule], sites: int,
                per_site: dict[str, tuple[float, ...]] | None = None) -> list[Line]:
    """One spares line per part number of every category the policy spares (units only, not km); a
    failure-rate rule spares each site for its own installed count (``per_site``)."""
    installed: dict[str, float] = {}
    first: dict[str, Line] = {}
    for line in lines:
        if line.unit == "each" and line.fabric != SPARES:
            installed[line.sku] = installed.get(line.sku, 0.0) + line.quantity
            first.setdefault(line.sku, line)
    out = []
    for sku, line in first.items():
        rule = policy.get(line.category)
        n = spare_count(installed[sku], rule, sites, (per_site or {}).get(sku)) if rule else 0
        if n:
            out.append(replace(line, fabric=SPARES, hop=SPARES, quantity=n, unit_power_w=0.0, unit_power_max_w=None,
                               description=f"{line.description} (spare)",
                               source=f"{line.source}; spares: {_SPARES_SOURCE}"))
    return out


# --- flags -----------------------------------------------------------------------------

def _row(catalog: Catalog, catalog_id: str) -> Row | None:
    return next((rows[catalog_id] for rows in catalog.rows.values() if catalog_id in rows), None)


def line_flags(line: Line, catalog: Catalog, on: dt.date) -> list[str]:
    """What a buyer must know about a line's part: end of sale, generic name, estimate, quote state."""
    row = _row(catalog, line.catalog_id)
    flags = []
    if row is not None and row.status != "active":
        flags.append(f"{row.status} {row.status_date} ({row.status_source})")
    # A name with spaces is no SKU a reseller takes, whatever the row says (an overlay's own rows too).
    if row is not None and (not row.orderable or _family_name(row, line.sku) or " " in line.sku.strip()):
        flags.append("generic: not orderable as such; get the vendor's SKU")
    if line.price_source == "estimate":
        flags.append("estimate")
    quote = quote_for(line, catalog)
    if quote is not None:
        if quote.expired(on):
            flags.append(f"quote expired {quote.valid_until}")
        if quote.conversion():
            flags.append(f"converted from {quote.conversion()}")
    return flags


def quote_for(line: Line, catalog: Catalog) -> Quote | None:
    """The quote that prices a line: one for its sold length's part number, else one for its row."""
    return catalog.quotes.get(line.sku) or catalog.quotes.get(line.catalog_id)


def quoted(line: Line, catalog: Catalog) -> Line:
    """A line of a quoted sold length takes the quote's price source and date (its row keeps its own)."""
    q = catalog.quotes.get(line.sku)
    if q is None or line.sku == line.catalog_id:
        return line
    return replace(line, price_source=q.price_source, as_of=(q.quoted_on.isoformat() if q.quoted_on else line.as_of))


def _family_name(row: Row, sku: str) -> bool:
    """A cable or fibre line cut to length carries its family's part number (MCP4Y10-N00x), not a SKU."""
    return bool(getattr(row, "lengths", None)) and sku == row.part_number


def rounding_lines(lines: Sequence[Line], catalog: Catalog) -> list[Line]:
    """The units that round each quoted part's order (installed + spares) up to the quote's ``moq``
    and then to whole ``pack``s: one line per part that needs them, in fabric spares, hop ROUNDING.

    Only counted parts (unit each): a length of fibre in km is not sold in packs."""
    total: dict[str, float] = {}
    first: dict[str, Line] = {}
    for line in lines:
        if line.unit == "each":
            total[line.sku] = total.get(line.sku, 0.0) + line.quantity
            first.setdefault(line.sku, line)
    out = []
    for sku, line in first.items():
        q = quote_for(line, catalog)
        if q is None or (q.moq is None and q.pack is None):
            continue
        want = max(total[sku], q.moq or 0)
        pack = q.pack or 1
        want = math.ceil(want / pack - 1e-9) * pack
        extra = want - total[sku]
        if extra > 0:
            terms = ", ".join(t for t in (f"minimum order {q.moq}" if q.moq else "",
                                          f"packs of {q.pack}" if q.pack else "") if t)
            out.append(replace(line, fabric=SPARES, hop=ROUNDING, quantity=extra, unit_power_w=0.0,
                               unit_power_max_w=None, description=f"{line.description.removesuffix(' (spare)')} "
                               f"(order rounding: {terms})", source=f"{line.source}; order rounding: {terms}, "
                               f"quote {q.quote_ref or 'without a reference'} ({q.where})"))
    return out


# --- the order -----------------------------------------------------------------------

@dataclass(frozen=True)
class OrderLine:
    sku: str
    catalog_id: str
    category: str
    description: str
    maker: str
    unit: str
    installed: float
    per_site: tuple[float, ...] | None   # installed quantity in each site (None: not split by site)
    spares: float
    unit_price_usd: float
    price_source: str
    price_date: str
    quote_ref: str
    vendor: str                           # who quoted (or the maker when there is no quote)
    flags: tuple[str, ...]
    valid_until: dt.date | None = None
    lead_time_days: float | None = None   # order to delivery (the quote's, else the catalog row's)
    lead_time_source: str = ""
    lead_time_low_days: float | None = None    # the range the row's sources give (None: none, or a quote's)
    lead_time_high_days: float | None = None
    lead_time_estimate: bool = False      # an estimate by part class (the row marks lead_time unconfirmed)
    spares_basis: SparesBasis | None = None   # how the spares were counted (and their fill rate)
    rounded_up: float = 0.0               # units past installed + spares: the quote's moq and pack
    avl: tuple[str, ...] = ()             # the row's approved vendors (empty: not stated)
    spares_per_site: tuple[int, ...] | None = None   # where the spares are held (:func:`spares_by_site`)
    currency: str = "USD"                 # the quote's currency (USD without a quote)
    unit_price: float | None = None       # the quote's price per unit in ``currency`` (None: USD, unit_price_usd)

    @property
    def total(self) -> float:
        return self.installed + self.spares + self.rounded_up

    @property
    def extended_usd(self) -> float:
        return self.total * self.unit_price_usd

    def to_json(self) -> dict[str, object]:
        count = (lambda x: int(x)) if self.unit == "each" else (lambda x: x)
        return {"sku": self.sku, "catalog_id": self.catalog_id, "category": self.category,
                "description": self.description, "maker": self.maker, "unit": self.unit,
                "installed": count(self.installed),
                "per_site": [count(x) for x in self.per_site] if self.per_site is not None else None,
                "spares_per_site": list(self.spares_per_site) if self.spares_per_site is not None else None,
                "currency": self.currency,
                "unit_price": self.unit_price if self.unit_price is not None else self.unit_price_usd,
                "spares": count(self.spares), "rounded_up": count(self.rounded_up), "total": count(self.total),
                "avl": list(self.avl),
                "unit_price_usd": self.unit_price_usd, "extended_usd": round(self.extended_usd, 2),
                "price_source": self.price_source, "price_date": self.price_date, "quote_ref": self.quote_ref,
                "vendor": self.vendor, "flags": list(self.flags),
                "valid_until": self.valid_until.isoformat() if self.valid_until else None,
                "lead_time_days": self.lead_time_days, "lead_time_source": self.lead_time_source,
                "lead_time_low_days": self.lead_time_low_days, "lead_time_high_days": self.lead_time_high_days,
                "lead_time_estimate": self.lead_time_estimate,
                "spares_basis": self.spares_basis.to_json() if self.spares_basis is not None else None}


def order_lines(lines: Sequence[Line], catalog: Catalog, on: dt.date,
                per_site: dict[str, tuple[float, ...]] | None = None,
                policy: dict[str, SparesRule] | None = None, sites: int = 1) -> list[OrderLine]:
    """One line per part number across fabrics, hops and tiers: installed, per site, spares, flags;
    with the spares ``policy``, how each line's spares were counted."""
    groups: dict[str, list[Line]] = {}
    for line in lines:
        groups.setdefault(line.sku, []).append(line)
    out = []
    for sku, group in groups.items():
        head = group[0]
        installed = sum(x.quantity for x in group if x.fabric != SPARES)
        spares = sum(x.quantity for x in group if x.fabric == SPARES and x.hop != ROUNDING)
        rounded = sum(x.quantity for x in group if x.fabric == SPARES and x.hop == ROUNDING)
        quote = quote_for(head, catalog)
        flags = tuple(dict.fromkeys(f for x in group for f in line_flags(x, catalog, on)))
        lead = lead_time(head, catalog)
        out.append(OrderLine(sku, head.catalog_id, head.category, head.description.removesuffix(" (spare)"),
                             head.vendor, head.unit, installed, (per_site or {}).get(sku), spares,
                             head.unit_price_usd, head.price_source, head.as_of,
                             quote.quote_ref if quote else "", (quote.vendor or head.vendor) if quote else head.vendor,
                             flags, quote.valid_until if quote else None, lead.days, lead.source,
                             lead.low, lead.high, lead.estimate,
                             spares_basis(installed, spares, head.category, (policy or {}).get(head.category), sites,
                                          (per_site or {}).get(sku)) if head.unit == "each" else None, rounded,
                             tuple(getattr(_row(catalog, head.catalog_id), "avl", None) or ()),
                             spares_by_site(spares, installed, (policy or {}).get(head.category), sites,
                                            (per_site or {}).get(sku)) if head.unit == "each" else None,
                             *_quoted_currency(quote, head)))
    return out


def _quoted_currency(quote: Quote | None, line: Line) -> tuple[str, float | None]:
    """The currency and price per unit the quote gave, when it prices this line (a row's quote, or the
    quote of its sold length); USD otherwise."""
    if quote is None or abs(quote.usd - line.unit_price_usd) > 1e-6 * max(1.0, quote.usd):
        return "USD", None
    return quote.currency, quote.amount


def spares_by_site(spares: float, installed: float, rule: SparesRule | None, sites: int,
                   per_site: Sequence[float] | None) -> tuple[int, ...] | None:
    """Where a part's spares are held: each site its own Poisson spares (a failure-rate rule) or its
    share of the installed units, rounded down, and the rest in even whole shares (None: no per-site split).

    >>> spares_by_site(10, 2016, SparesRule(afr=0.02, resupply="30 d", service_level=0.99), 2, (1584, 432))
    (7, 3)
    >>> spares_by_site(41, 2016, SparesRule(fraction=0.02), 2, (1584, 432))
    (33, 8)
    """
    if per_site is None or len(per_site) != sites or not installed:
        return None
    if rule is not None and rule.by_failure_rate:
        need = site_spares(installed, rule, sites, per_site)
    else:
        need = [int(spares * n / installed) for n in per_site]
    return tuple(held_by_site(int(spares), need))


@dataclass(frozen=True)
class LeadTime:
    """A part's order-to-delivery time, where it comes from, the range its sources give and whether it
    is an estimate by part class."""

    days: float | None                  # None: unknown (never 0)
    source: str = ""
    low: float | None = None
    high: float | None = None
    estimate: bool = False


def lead_time_of(sku: str, catalog_id: str, catalog: Catalog) -> LeadTime:
    """A part's lead time: a quote for its sold length (``sku``), else its row's (a quote for the row has
    replaced the row's own, its range and its estimate mark); unknown when neither gives one."""
    q = catalog.quotes.get(sku)
    if q is not None and q.lead_time_days is not None and sku != catalog_id:
        return LeadTime(q.lead_time_days, f"quote {q.quote_ref or 'without a reference'} ({q.where})")
    row = _row(catalog, catalog_id)
    if row is None or row.lead_time is None:
        return LeadTime(None, "unknown: no catalog row or quote gives one")
    if row.lead_time_days is None:
        return LeadTime(None, row.lead_time_source or "unknown")
    span = row.lead_time_range_days
    return LeadTime(row.lead_time_days, row.lead_time_source or "", span[0] if span else None,
                    span[1] if span else None, row.lead_time_estimate)


def lead_time(line: Line, catalog: Catalog) -> LeadTime:
    """Days from order to delivery of a line's part and where that comes from (:func:`lead_time_of`)."""
    return lead_time_of(line.sku, line.catalog_id, catalog)


def split_by_site(total: dict[str, float], shapes: Iterable[tuple[int, dict[str, float]]],
                  shared: dict[str, float], sites: int, own: list[dict[str, float]] | None = None
                  ) -> dict[str, tuple[float, ...]]:
    """Installed quantity per site of each part: each site shape's own count, each site's own racks
    (``own``, site by site: its DCI equipment's racks and PDUs), plus the shared lines (between
    sites) split evenly; a part whose split does not add up to its total is left out.

    >>> split_by_site({"a": 10, "b": 3}, [(1, {"a": 6}), (1, {"a": 4, "b": 2})], {}, 2)
    {'a': (6.0, 4.0)}
    >>> split_by_site({"a": 11}, [(2, {"a": 5})], {}, 2, [{"a": 1}, {}])
    {'a': (6.0, 5.0)}
    """
    out = {}
    shapes = list(shapes)
    own = own or [{} for _ in range(sites)]
    for sku, qty in total.items():
        each = [q.get(sku, 0.0) + shared.get(sku, 0.0) / sites for count, q in shapes for _ in range(count)]
        each = [x + mine.get(sku, 0.0) for x, mine in zip(each, own, strict=False)] + each[len(own):]
        if len(each) == sites and abs(sum(each) - qty) < 1e-6 * max(1.0, qty):
            out[sku] = tuple(each)
    return out
