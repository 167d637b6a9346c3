"""When it can run: each site's critical path from the order date to its in-service date.

A site is in service once its last part has arrived, its racks are installed and burnt in:
in service = order date + the longest lead time of the parts the site takes (whole days) + ceil(racks /
racks installed per day) days + the burn-in days. The part that arrives last gates the site (on a tie,
the GPU systems: they are what the date is for); the gating chain is order -> that part's arrival ->
installation -> burn-in -> in service. Until the last part arrives the GPU systems that arrived earlier
stand idle: idle days = longest lead time - the GPU systems' lead time, and their cost is the GPU
systems' capital charge over those days (capex of the GPU class x its capital recovery factor / 365 x
idle days, the site's share of the GPUs). A part with no lead time (neither its catalog row nor a quote
gives one) is left out, named and counted, so an unknown never reads as "arrives at once": the date is
then the earliest the known parts allow. The workbook's Schedule sheet computes the same with live
formulas over the Order sheet's Lead time column.

A target the parts cannot meet (the scenario's ``in_service``, a phase's ``date``) is a :class:`LateDate`:
a warning naming the day it can be met, an error with ``bom build --strict-dates``.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from typing_extensions import TypedDict

from bom.costing.categories import Category
from bom.costing.order import OrderLine
from bom.costing.tco import Tco, capital_recovery_factor
from bom.errors import BomError
from bom.model.records import Count, Date

if TYPE_CHECKING:
    from bom.model.model import Model

DAYS_PER_YEAR = 365.0


def whole_days(days: float) -> int:
    """A lead time in whole days, as a delivery date counts it (a part due within a day is due that day).

    >>> whole_days(84.0), whole_days(84.2), whole_days(0.0)
    (84, 85, 0)
    """
    return math.ceil(days - 1e-9)


class ArrivalJson(TypedDict):
    """One order line's delivery: its lead time (with its range and whether it is an estimate by part
    class) and the day it arrives."""

    sku: str
    """The part number."""
    catalog_id: str
    """Its catalog row."""
    category: str
    """Its BOM category."""
    lead_time_days: float | None
    """Order to delivery [days]: the quote's, else the catalog row's (null: unknown, never 0)."""
    lead_time_low_days: float | None
    """The shortest lead time the row's sources give (null: no range; a quote has none)."""
    lead_time_high_days: float | None
    """The longest lead time the row's sources give."""
    lead_time_estimate: bool
    """Whether it is an estimate by part class (the row marks lead_time unconfirmed)."""
    lead_time_source: str
    """Where it comes from: a document and its date, "estimate: ..." with its basis, a quote, or "unknown: ..."."""
    arrives: Date | None
    """The order date + the lead time in whole days (null: unknown)."""


@dataclass(frozen=True)
class Arrival:
    """One order line's delivery: its lead time (with the range its sources give) and the day it arrives."""

    sku: str
    catalog_id: str
    category: str
    description: str
    days: float | None              # order to delivery (None: unknown)
    low_days: float | None          # the shortest its sources give (None: no range)
    high_days: float | None
    estimate: bool                  # an estimate by part class (the catalog row marks it unconfirmed)
    source: str
    arrives: dt.date | None         # order date + the lead time in whole days (None: unknown)

    @property
    def label(self) -> str:
        """The lead time for people: "364 d", "112 d est." or "unknown" (never 0)."""
        if self.days is None:
            return "unknown"
        return f"{self.days:,.0f} d" + (" est." if self.estimate else "")

    def to_json(self) -> ArrivalJson:
        return {"sku": self.sku, "catalog_id": self.catalog_id, "category": self.category,
                "lead_time_days": self.days, "lead_time_low_days": self.low_days,
                "lead_time_high_days": self.high_days, "lead_time_estimate": self.estimate,
                "lead_time_source": self.source, "arrives": self.arrives.isoformat() if self.arrives else None}


def arrival(o: OrderLine, order_date: dt.date) -> Arrival:
    days = o.lead_time_days
    return Arrival(o.sku, o.catalog_id, o.category, o.description, days, o.lead_time_low_days,
                   o.lead_time_high_days, o.lead_time_estimate, o.lead_time_source,
                   order_date + dt.timedelta(days=whole_days(days)) if days is not None else None)


def gating(arrivals: Iterable[Arrival]) -> Arrival | None:
    """The arrival that comes last (on a tie the GPU systems, then the part number): it gates the date."""
    known = [a for a in arrivals if a.days is not None]
    return max(known, key=lambda a: (whole_days(a.days or 0.0), a.category == Category.COMPUTE, a.sku), default=None)


class StepJson(TypedDict):
    """One link of a gating chain."""

    what: str
    """The gating part and its lead time, installation, or burn-in."""
    start: Date
    """Its first day."""
    end: Date
    """The day it ends."""
    days: Count
    """Its length [days]."""


@dataclass(frozen=True)
class Step:
    """One link of a critical path: what happens, from which day to which."""

    what: str
    start: dt.date
    end: dt.date
    gating: bool = True             # on the gating chain (the parts that arrive earlier are not)

    @property
    def days(self) -> int:
        return (self.end - self.start).days

    def to_json(self) -> StepJson:
        return {"what": self.what, "start": self.start.isoformat(), "end": self.end.isoformat(), "days": self.days}


class LateDateJson(TypedDict):
    """A target day the parts cannot meet."""

    key: str
    """The scenario key: in_service or phases.N.date."""
    target: Date
    """The day the scenario asks for."""
    feasible: Date
    """The earliest day the parts allow."""
    message: str
    """The warning (the error with --strict-dates), with how the day is made."""


@dataclass(frozen=True)
class LateDate:
    """A target day the parts cannot meet: where the scenario gives it, and the day it can be met."""

    key: tuple[str | int, ...]      # the scenario path: ("in_service",) or ("phases", k, "date")
    target: dt.date
    feasible: dt.date
    message: str

    def to_json(self) -> LateDateJson:
        return {"key": ".".join(str(k) for k in self.key), "target": self.target.isoformat(),
                "feasible": self.feasible.isoformat(), "message": self.message}


class SiteScheduleJson(TypedDict):
    """One site's critical path: order, the gating part's arrival, installation, burn-in, the in-service date."""

    site: Count
    """The site (1 first)."""
    gpus: Count
    """Its GPUs."""
    racks: Count
    """Its racks."""
    order_date: Date
    """The day the order is placed."""
    longest_lead_days: float
    """The longest lead time of the parts the site takes [days]."""
    longest_part: str
    """The part number that arrives last and gates the site (empty when no part has a lead time; on a tie,
    the GPU systems)."""
    gating_catalog_id: str | None
    """The gating part's catalog id (null: no lead time known)."""
    gating_category: str | None
    """The gating part's BOM category."""
    also_last: list[str]
    """Other part numbers that arrive the same day as the gating part (as critical)."""
    gpu_lead_days: float | None
    """The GPU systems' lead time [days] (null when unknown)."""
    install_days: Count
    """ceil(racks / racks installed per day)."""
    burn_in_days: Count
    """Burn-in and acceptance after installation (the TCO input burn_in_days)."""
    date: Date
    """The earliest in-service date: order date + longest lead time + install days + burn-in days."""
    target: Date | None
    """The scenario's in_service (null: none given)."""
    late: bool
    """Whether the target is before the date the parts allow (a warning; an error with --strict-dates)."""
    idle_gpu_days: float
    """Days the GPU systems wait for the last part."""
    idle_gpu_cost_usd: float
    """The GPU systems' capital charge over those days (the site's share)."""
    without_lead_time: Count
    """The site's order lines with no lead time (left out of the dates)."""
    unknown_lead_time: list[str]
    """Their part numbers."""
    chain: list[StepJson]
    """The gating chain: the gating part's lead time, installation, burn-in."""
    arrivals: list[ArrivalJson]
    """Every line the site takes, the last to arrive first, then those with no lead time."""


@dataclass(frozen=True)
class SiteSchedule:
    site: int
    gpus: int
    racks: int
    order_date: dt.date
    longest_lead_days: float
    longest_part: str             # the part number that arrives last ("" when no lead time is known)
    gpu_lead_days: float | None   # the GPU systems' lead time (None: unknown)
    install_days: int
    in_service: dt.date
    idle_gpu_days: float
    idle_gpu_cost_usd: float
    without_lead_time: int        # the site's order lines with no lead time (left out)
    burn_in_days: int = 0
    arrivals: tuple[Arrival, ...] = ()   # every line the site takes, the last to arrive first
    target: dt.date | None = None        # the scenario's in_service, when it gives one

    @cached_property
    def gate(self) -> Arrival | None:
        """The arrival that gates the site (:func:`gating`): read by its JSON, chain and the report's rows."""
        return gating(self.arrivals)

    @property
    def also_last(self) -> list[str]:
        """Other part numbers that arrive the same day as the gating part (as critical: the date waits for
        each of them too)."""
        return self._also_last(self.gate)

    def _also_last(self, gate: Arrival | None) -> list[str]:
        return [a.sku for a in self.arrivals if gate is not None and a.sku != gate.sku and a.arrives == gate.arrives]

    @property
    def parts_in(self) -> dt.date:
        """The day the site's last known part arrives."""
        return self.order_date + dt.timedelta(days=whole_days(self.longest_lead_days))

    @property
    def unknown(self) -> list[str]:
        """The part numbers the site takes whose lead time is unknown."""
        return [a.sku for a in self.arrivals if a.days is None]

    @property
    def chain(self) -> list[Step]:
        """The gating chain: the gating part's lead time, installation, burn-in."""
        return self._chain(self.gate)

    def _chain(self, gate: Arrival | None) -> list[Step]:
        installed = self.parts_in + dt.timedelta(days=self.install_days)
        first = f"{gate.sku} ({gate.label} lead time)" if gate is not None else "no lead time known"
        return [Step(first, self.order_date, self.parts_in),
                Step(f"installation ({self.racks:,} racks)", self.parts_in, installed),
                Step("burn-in", installed, installed + dt.timedelta(days=self.burn_in_days))]

    @property
    def late(self) -> bool:
        return self.target is not None and self.target < self.in_service

    def to_json(self, arrivals: list[ArrivalJson] | None = None) -> SiteScheduleJson:
        """The site's schedule; ``arrivals`` its arrivals' JSON made already (:func:`schedules_json`)."""
        gate = self.gate
        return {"site": self.site, "gpus": self.gpus, "racks": self.racks, "order_date": self.order_date.isoformat(),
                "longest_lead_days": self.longest_lead_days, "longest_part": self.longest_part,
                "gating_catalog_id": gate.catalog_id if gate is not None else None,
                "gating_category": gate.category if gate is not None else None, "also_last": self._also_last(gate),
                "gpu_lead_days": self.gpu_lead_days, "install_days": self.install_days,
                "burn_in_days": self.burn_in_days, "date": self.in_service.isoformat(),
                "target": self.target.isoformat() if self.target else None, "late": self.late,
                "idle_gpu_days": self.idle_gpu_days, "idle_gpu_cost_usd": round(self.idle_gpu_cost_usd, 2),
                "without_lead_time": self.without_lead_time, "unknown_lead_time": self.unknown,
                "chain": [s.to_json() for s in self._chain(gate)],
                "arrivals": [a.to_json() for a in self.arrivals] if arrivals is None else arrivals}


def schedules_json(schedule: Sequence[SiteSchedule]) -> list[SiteScheduleJson]:
    """Each site's schedule as JSON; sites that share their arrivals (:func:`site_arrivals`) share one
    list of them (the JSON writer encodes a shared list once)."""
    made: dict[int, list[ArrivalJson]] = {}
    out = []
    for s in schedule:
        arrivals = made.get(id(s.arrivals))
        if arrivals is None:
            arrivals = made[id(s.arrivals)] = [a.to_json() for a in s.arrivals]
        out.append(s.to_json(arrivals))
    return out


def install_days(racks: int, racks_per_day: float) -> int:
    """Whole days to install a site's racks at ``racks_per_day``.

    >>> install_days(100, 12), install_days(0, 12)
    (9, 0)
    """
    return math.ceil(racks / racks_per_day - 1e-9) if racks else 0


def _in_service(order_date: dt.date, lead_days: int, install: int, burn_in: int, site: int) -> dt.date:
    """The order date moved by the longest lead time, the installation and the burn-in; a day past the calendar's
    last (9999-12-31) is bad input, said with the keys that make it."""
    try:
        return order_date + dt.timedelta(days=lead_days + install + burn_in)
    except OverflowError:
        raise BomError(f"site {site}'s in-service day, {_days(lead_days)} of lead time and {_days(install)} of "
                       f"installation after the order date {order_date.isoformat()}, is past the year 9999",
                       key="tco.install_racks_per_day" if install >= lead_days else "order_date",
                       hint="Check tco.install_racks_per_day (racks a day, e.g. 4), order_date (leave it out: "
                            "the day the BOM is priced for) and the parts' lead times (catalog overlays and price "
                            "files).",
                       fix={("tco", "install_racks_per_day"): 4} if install >= lead_days
                       else {("order_date",): None}) from None


def _days(n: int) -> str:
    return f"{n:,} days" if n < 10**9 else "more than 10^9 days"


def takes(o: OrderLine, site: int) -> bool:
    """Whether site ``site`` (1-based) takes part of the line (a line not split by site: every site)."""
    return o.per_site is None or o.per_site[site - 1] != 0


def _latest_first(arrivals: Iterable[Arrival]) -> tuple[Arrival, ...]:
    """Known arrivals, the last first (the gating one leading); then the unknown ones."""
    arrivals = list(arrivals)
    known = sorted((a for a in arrivals if a.days is not None),
                   key=lambda a: (-whole_days(a.days or 0.0), a.category != Category.COMPUTE, a.sku))
    return tuple(known) + tuple(a for a in arrivals if a.days is None)


def site_arrivals(order: Sequence[OrderLine], sites: Iterable[int], order_date: dt.date) -> list[tuple[Arrival, ...]]:
    """Each site's arrivals: the lines it takes, the last to arrive first. A line arrives the same day at
    every site, so each line's arrival is made once, and sites that take the same lines (sites of one
    shape) share one tuple."""
    made = [arrival(o, order_date) for o in order]
    shared: dict[tuple[int, ...], tuple[Arrival, ...]] = {}
    out = []
    for site in sites:
        mine = tuple(i for i, o in enumerate(order) if takes(o, site))
        if mine not in shared:
            shared[mine] = _latest_first(made[i] for i in mine)
        out.append(shared[mine])
    return out


def site_schedule(arrivals: tuple[Arrival, ...], site: int, gpus: int, racks: int, total_gpus: int,
                  order_date: dt.date, racks_per_day: float, tco: Tco, discount_rate: float,
                  life_gpu: float, burn_in: float = 0.0, target: dt.date | None = None,
                  gates: dict[int, tuple[Arrival | None, float | None]] | None = None) -> SiteSchedule:
    """A site's critical path from its arrivals (:func:`site_arrivals`); ``gates``: each arrivals tuple's gate
    and GPU lead time by its identity, kept for the sites that share the tuple (sites of one shape), which
    the caller holds while it keeps the tuples."""
    got = gates.get(id(arrivals)) if gates is not None else None
    if got is None:
        gpu = [a.days for a in arrivals if a.category == Category.COMPUTE and a.days is not None]
        got = gating(arrivals), max(gpu) if gpu else None
        if gates is not None:
            gates[id(arrivals)] = got
    gate, gpu_lead = got
    longest = (gate.days or 0.0) if gate is not None else 0.0
    days = install_days(racks, racks_per_day)
    # The GPUs wait for the last part; with their own lead time unknown the wait cannot be told.
    idle = max(0.0, longest - gpu_lead) if gpu_lead is not None else 0.0
    per_day = tco.capex_gpu_usd * capital_recovery_factor(discount_rate, life_gpu) / DAYS_PER_YEAR
    cost = per_day * idle * (gpus / total_gpus if total_gpus else 0.0)
    burn = whole_days(burn_in)
    when = _in_service(order_date, whole_days(longest), days, burn, site)
    out = SiteSchedule(site, gpus, racks, order_date, longest, gate.sku if gate is not None else "", gpu_lead,
                       days, when, idle, cost, sum(1 for a in arrivals if a.days is None), burn, arrivals, target)
    vars(out)["gate"] = gate   # its cached gate: gating(arrivals), found above
    return out


def chain_text(gate: Arrival | None, order_date: dt.date, install: int, burn_in: int) -> str:
    """How a date is made, for a message: "GB300 NVL72 arrives 364 d est. after the order of 2026-12-06, then
    4 d of installation and 7 d of burn-in"."""
    what = f"{gate.sku} arrives {gate.label} after the order of {order_date}" if gate is not None \
        else f"no lead time is known past the order of {order_date}"
    return f"{what}, then {install} d of installation and {burn_in} d of burn-in"


def late_sites(schedule: Sequence[SiteSchedule]) -> list[LateDate]:
    """The scenario's ``in_service`` target against each site's feasible date (one problem for the latest)."""
    late = [s for s in schedule if s.late]
    if not late:
        return []
    s = max(late, key=lambda s: s.in_service)
    assert s.target is not None
    unknown = f"; {len(s.unknown)} of its parts have no lead time, so it may be later still" if s.unknown else ""
    sites = "" if len(schedule) == 1 else f" (site {s.site}, the last of {len(late)} late)"
    return [LateDate(("in_service",), s.target, s.in_service,
                     f"in_service {s.target} cannot be met: the cluster can be in service on {s.in_service}{sites}: "
                     f"{chain_text(s.gate, s.order_date, s.install_days, s.burn_in_days)}{unknown}")]


def site_racks(model: Model) -> list[int]:
    """Racks standing in each site (its shape's sections and its own racks)."""
    p = model.placement
    sites = model.cluster.site_count
    if p is None:
        return [math.ceil(model.racks / sites)] * sites
    return [sum(sec.copies * len(sec.layouts) for _, sec, _ in p.site_sections(i)) for i in range(1, sites + 1)]


# --- phases --------------------------------------------------------------------------------

class PhaseScheduleJson(TypedDict):
    """A phase's critical path over what it buys; the racks it adds per site, installed side by side."""

    order_date: Date
    """The phase's order_date, else the scenario's."""
    target: Date
    """The phase's date."""
    feasible: Date
    """The earliest day its parts arrive, are installed and burnt in."""
    late: bool
    """Whether its date is before that day."""
    earns_from: Date
    """The later of the two: the day its GPUs earn from."""
    gating_part: str | None
    """The part number that arrives last."""
    install_days: list[Count]
    """Per site of the phase: its added racks / racks per day."""
    added_racks: list[Count]
    """Per site of the phase: the racks it adds."""
    burn_in_days: Count
    """Burn-in and acceptance."""
    chain: list[StepJson]
    """The gating chain."""
    arrivals: list[ArrivalJson]
    """Every part number the phase buys, the last to arrive first."""


@dataclass(frozen=True)
class PhaseSchedule:
    """A phase's critical path: its own order (what it buys), installation of the racks it adds at each
    site (sites install side by side: the longest counts), burn-in; the day it can be in service
    against its ``date``."""

    name: str
    order_date: dt.date
    target: dt.date
    arrivals: tuple[Arrival, ...]
    install_days: tuple[int, ...]    # per site of the phase: its added racks / racks per day
    added_racks: tuple[int, ...]
    burn_in_days: int

    @property
    def gate(self) -> Arrival | None:
        return gating(self.arrivals)

    @property
    def parts_in(self) -> dt.date:
        gate = self.gate
        return self.order_date + dt.timedelta(days=whole_days(gate.days or 0.0) if gate is not None else 0)

    @property
    def feasible(self) -> dt.date:
        """The earliest day the phase can be in service."""
        return self.parts_in + dt.timedelta(days=max(self.install_days, default=0) + self.burn_in_days)

    @property
    def earns_from(self) -> dt.date:
        """The phase's GPUs earn from its date, or from the day it can be in service when that is later."""
        return max(self.target, self.feasible)

    @property
    def late(self) -> bool:
        return self.target < self.feasible

    @property
    def chain(self) -> list[Step]:
        installed = self.parts_in + dt.timedelta(days=max(self.install_days, default=0))
        gate = self.gate
        first = f"{gate.sku} ({gate.label} lead time)" if gate is not None else "no lead time known"
        return [Step(first, self.order_date, self.parts_in),
                Step(f"installation ({sum(self.added_racks):,} racks added)", self.parts_in, installed),
                Step("burn-in", installed, installed + dt.timedelta(days=self.burn_in_days))]

    def problem(self, index: int) -> LateDate | None:
        if not self.late:
            return None
        unknown = [a.sku for a in self.arrivals if a.days is None]
        tail = f"; {len(unknown)} of its parts have no lead time, so it may be later still" if unknown else ""
        how = chain_text(self.gate, self.order_date, max(self.install_days, default=0), self.burn_in_days)
        return LateDate(("phases", index, "date"), self.target, self.feasible,
                        f"phase {self.name} dated {self.target} cannot be in service before {self.feasible}: "
                        f"{how}{tail}; its GPUs earn from {self.feasible}")

    def to_json(self) -> PhaseScheduleJson:
        gate = self.gate
        return {"order_date": self.order_date.isoformat(), "target": self.target.isoformat(),
                "feasible": self.feasible.isoformat(), "late": self.late, "earns_from": self.earns_from.isoformat(),
                "gating_part": gate.sku if gate is not None else None,
                "install_days": list(self.install_days), "added_racks": list(self.added_racks),
                "burn_in_days": self.burn_in_days, "chain": [s.to_json() for s in self.chain],
                "arrivals": [a.to_json() for a in self.arrivals]}


def phase_schedule(name: str, order_date: dt.date, target: dt.date, arrivals: Iterable[Arrival],
                   added_racks: Sequence[int], racks_per_day: float, burn_in: float) -> PhaseSchedule:
    return PhaseSchedule(name, order_date, target, _latest_first(arrivals),
                         tuple(install_days(r, racks_per_day) for r in added_racks), tuple(added_racks),
                         whole_days(burn_in))

