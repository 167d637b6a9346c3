"""Alternates that pull the date in (bom/costing/alternates.py): each priced by building with it.

For each long-lead link part of a build, the standard lookup's other fits for its links; each is built
in the part's place (the catalog's ``substitutes``: where a lookup would choose the part, it takes the
alternate if it fits), so its changes are two whole builds' differences. ``prefer_available`` builds
with the alternates that bring the in-service date in: while a link part gates a site, the parts that
arrive that day are replaced, each by its alternates that arrive sooner (the soonest, then the
cheapest, first that fits each link), and kept when the date moves in and the design rules' closed
form passes.
"""

from __future__ import annotations

import dataclasses
import datetime as dt

from bom.catalog.media import Choice, media_for
from bom.catalog.rows import Catalog
from bom.costing.alternates import (
    LINK_PARTS,
    Alternate,
    Alternates,
    Change,
    LongLead,
    Preferred,
    Taken,
    long_lead_parts,
    network_ready,
)
from bom.costing.order import lead_time_of
from bom.costing.report import Report, make_report
from bom.inputs.scenario import Scenario
from bom.inputs.yamlio import Located
from bom.model.model import Model
from bom.pipeline.build import build_scenario
from bom.pipeline.checks import check_design

#: Alternates priced per long-lead part (the ladder's first, then the cheapest): each is a whole build.
PER_PART = 3
#: Rounds of --prefer-available at most (each replaces the parts that gate, then builds again).
ROUNDS = 4


def _uses(model: Model, part: str) -> list[Choice]:
    """The choice of every run whose parts include ``part``."""
    return [c for g in model.groups for c in g.runs.values() if part in c.rows]


def _links(model: Model, part: str) -> int:
    return sum(g.links for g in model.groups if any(part in c.rows for c in [g.choice, *g.runs.values()]))


def _latest(r: Report) -> dt.date:
    return max(s.in_service for s in r.schedule)


def _days(a: dt.date | None, b: dt.date | None) -> int:
    return (a - b).days if a is not None and b is not None else 0


def _lead(choice: Choice, catalog: Catalog) -> tuple[float | None, bool]:
    """The longest lead time of the rows an option buys (None: one of them is unknown), and whether any
    of them is an estimate."""
    leads = [lead_time_of(r, r, catalog) for r in sorted(choice.rows)]
    if any(x.days is None for x in leads):
        return None, any(x.estimate for x in leads)
    return max((x.days or 0.0 for x in leads), default=0.0), any(x.estimate for x in leads)


def _report(scenario: Scenario, src: Located, catalog: Catalog) -> tuple[Report, bool]:
    """The build's point figures (no Monte Carlo: only the point changes are compared) and whether its
    design rules' closed form passes."""
    model = build_scenario(scenario, src, catalog)
    checks = check_design(model, catalog)
    return make_report(model, catalog, checks, with_range=False), checks.ok


def _price(base: Report, part: LongLead, alt: Choice, scenario: Scenario, src: Located, catalog: Catalog
           ) -> Alternate | None:
    """``alt`` built in ``part``'s place: its changes against ``base`` (None: it took over no link)."""
    cat = dataclasses.replace(catalog, substitutes={**catalog.substitutes, part.catalog_id: (alt.option.name,)})
    r, ok = _report(scenario, src, cat)
    before, left = _links(base.model, part.catalog_id), _links(r.model, part.catalog_id)
    if left >= before:
        return None
    name = alt.option.name
    where = tuple(dict.fromkeys(f"{g.fabric} {g.hop} {g.bucket}" for g in r.model.groups
                                if any(c.option.name == name for c in [g.choice, *g.runs.values()])))
    lead, estimate = _lead(alt, catalog)
    return Alternate(part.catalog_id, part.sku, part.why, name, alt.option.label, alt.option.standard, alt.medium,
                     lead, estimate, before - left, before, where, _change(r, base), _latest(r), ok)


def _choices(model: Model, part: str, catalog: Catalog) -> list[Choice]:
    """The other parts that serve ``part``'s links, the ladder's order then price: one per set of modules or
    cable ("A + B over F" and "B + A over F" are one pairing, and the same modules over another fibre cable
    another way to buy the same link: the first, the cheapest, stands for them)."""
    media = media_for(catalog)
    seen: dict[frozenset[str], Choice] = {}
    for choice in _uses(model, part):
        for alt in media.alternatives(choice):
            if part not in alt.rows:
                fibre = alt.option.fibre.id if alt.option.fibre is not None else None
                seen.setdefault(alt.rows - {fibre} if fibre else alt.rows, alt)
    return list(seen.values())


def alternates(base: Report, scenario: Scenario, src: Located, catalog: Catalog) -> tuple[list[LongLead],
                                                                                          list[Alternate]]:
    """The build's long-lead link parts and each one's alternates, priced."""
    parts = long_lead_parts(base.schedule)
    out: list[Alternate] = []
    for part in parts:
        for alt in _choices(base.model, part.catalog_id, catalog)[:PER_PART]:
            priced = _price(base, part, alt, scenario, src, catalog)
            if priced is not None:
                out.append(priced)
    return parts, out


def with_alternates(report: Report, scenario: Scenario, src: Located, catalog: Catalog,
                    preferred: Preferred | None = None) -> Report:
    """The report with its long-lead parts' alternates (and what --prefer-available took)."""
    parts, options = alternates(report, scenario, src, catalog)
    return dataclasses.replace(report, alternates=Alternates(parts, options, preferred))


def _gating_parts(r: Report) -> list[tuple[str, str, float]]:
    """(catalog id, part number, lead time) of the link parts that arrive the day a site's link part gates it."""
    out: dict[str, tuple[str, str, float]] = {}
    for s in r.schedule:
        gate = s.gate
        if gate is None or gate.category not in LINK_PARTS:
            continue
        for a in s.arrivals:
            if a.arrives == gate.arrives and a.category in LINK_PARTS and a.days is not None:
                out.setdefault(a.catalog_id, (a.catalog_id, a.sku, a.days))
    return list(out.values())


def _sooner(model: Model, part: str, lead: float, catalog: Catalog) -> list[Choice]:
    """``part``'s alternates that arrive sooner, the soonest then the cheapest first."""
    ranked = []
    for alt in _choices(model, part, catalog):
        days, _ = _lead(alt, catalog)
        if days is not None and days < lead:
            ranked.append((days, alt.price_usd, alt.option.name, alt))
    return [x[-1] for x in sorted(ranked, key=lambda x: x[:3])]


def prefer_available(scenario: Scenario, src: Located, catalog: Catalog) -> tuple[Catalog, Preferred | None]:
    """The catalog a --prefer-available build takes, and what it took against the build without it (None:
    nothing brings the date in: the GPU systems or another part with no sooner alternate gate it)."""
    plain, ok = _report(scenario, src, catalog)
    base, cat, taken = plain, catalog, []
    for _ in range(ROUNDS):
        gating = _gating_parts(base)
        subs: dict[str, tuple[str, ...]] = {}
        found: list[Taken] = []
        for cid, sku, lead in gating:
            sooner = _sooner(base.model, cid, lead, cat)
            if not sooner:
                break
            subs[cid] = tuple(c.option.name for c in sooner)
            found.append(Taken(cid, sku, subs[cid], tuple(c.option.label for c in sooner)))
        if not gating or len(found) < len(gating):
            break                          # a gating part has nothing sooner: the date stays
        trial = dataclasses.replace(cat, substitutes={**cat.substitutes, **subs})
        r, passed = _report(scenario, src, trial)
        if not passed or _latest(r) >= _latest(base):
            break
        base, cat, ok = r, trial, passed
        taken += found
    if not taken:
        return catalog, None
    return cat, Preferred(taken, _change(base, plain), ok)


def _change(new: Report, old: Report) -> Change:
    """``new`` less ``old``: money, power, and the days the network's last part and the latest site move."""
    return Change(new.tco.hardware_usd - old.tco.hardware_usd, new.tco.capex_usd - old.tco.capex_usd,
                  new.tco.tco_usd - old.tco.tco_usd, new.tco.it_power_kw - old.tco.it_power_kw,
                  _days(network_ready(new.schedule), network_ready(old.schedule)), _days(_latest(new), _latest(old)))
