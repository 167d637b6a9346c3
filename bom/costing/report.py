"""Everything the writers need, computed once: the model, its BOM lines (spares included), the
order, the TCO inputs and result, the sensitivity table and what a buyer must be warned about.

The writers only present this; the workbook recomputes the same totals with live formulas,
and the tests hold the two to agree.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Annotated, Literal, NotRequired

from typing_extensions import TypedDict

from bom.catalog.prices import Quote
from bom.catalog.rows import Catalog, Platform
from bom.costing.alternates import Alternates, AlternatesJson
from bom.costing.categories import CATEGORIES, NETWORK, OPTICS, Category, asset_class
from bom.costing.cooling import Cooling, CoolingJson, size_cooling
from bom.costing.job import Job, JobJson, job_cost
from bom.costing.lines import Line, LineJson, all_lines
from bom.costing.order import (
    SPARES,
    OrderLine,
    order_lines,
    quoted,
    rounding_lines,
    spare_lines,
    spares_policy,
    split_by_site,
)
from bom.costing.phases import Phases
from bom.costing.schedule import (
    Arrival,
    LateDate,
    LateDateJson,
    SiteSchedule,
    SiteScheduleJson,
    late_sites,
    schedules_json,
    site_arrivals,
    site_racks,
    site_schedule,
    takes,
)
from bom.costing.sitepower import DecidedBy, SitesPower, SitesPowerJson, site_limits_kw, site_power
from bom.costing.tco import (
    BASIS_NAME,
    POWER_BASIS,
    Basis,
    Input,
    Sensitivity,
    SensitivityJson,
    Tco,
    compute_tco,
    inputs,
    sensitivity,
)
from bom.costing.uncertainty import Range, RangeJson, SiteDraw, draw, published_spread
from bom.errors import ScenarioError
from bom.inputs.scenario import Scenario
from bom.inputs.validation import suggest
from bom.model.checks import Checks, ChecksJson
from bom.model.model import Model, ModelJson
from bom.model.records import Count, Date, Handwritten, Share
from bom.model.totals import Totals
from bom.roles import FabricRole, Layer


class BomLineJson(LineJson):
    asset_class: str
    flags: list[str]


class TotalsJson(TypedDict):
    """The cost and power totals (TCO). it_power_kw and facility_power_kw are the typical draw (the energy
    cost's basis); it_power_max_kw and facility_power_max_kw the maximum (facility sizing: power and
    cooling capacity, and space per kW). budget_low_usd and budget_high_usd: the hardware with every line at
    the ends of its catalog row's published price range (its price where none is published);
    placeholder_usd: the part of the hardware priced by estimates with no published range."""

    capex_usd: float
    hardware_usd: float
    network_capex_usd: float
    installation_usd: float
    spares_usd: float
    storage_usd: float
    budget_low_usd: float
    budget_high_usd: float
    placeholder_usd: float
    it_power_kw: float
    network_power_kw: float
    facility_power_kw: float
    opex_per_year_usd: float
    it_power_max_kw: float
    facility_power_max_kw: float
    cooling_power_kw: float
    energy_per_year_usd: float
    tco_usd: float
    usd_per_gpu_hour: float
    """Levelised (usd_per_gpu_hour_basis): the capital charge plus opex per year over the GPU-hours per year;
    the one basis of every cost per GPU-hour in the outputs (phases, job, comparison, range)."""
    usd_per_gpu_hour_basis: Literal["levelised"]
    """The basis of every usd_per_gpu_hour, the same in every output."""
    undiscounted_usd_per_gpu_hour: float
    """The other basis, shown beside it: tco_usd over the GPU-hours worked in the period (no cost of capital)."""
    network_capex_share: Share
    network_power_share: Share
    links: Count
    dark_fibre_km: float


class PowerBasisJson(TypedDict):
    totals: dict[str, str]
    """Each power total and the figure it takes: typical (the energy cost) or maximum (facility sizing)."""
    lines: dict[str, str]
    """What the typical and maximum figures are for each kind of BOM line."""


class FinanceJson(TypedDict):
    """The TCO's finance figures."""

    capex_gpu_usd: float
    capex_network_usd: float
    capex_facility_usd: float
    support_per_year: float
    space_per_year: float
    dark_fibre_per_year: float
    depreciation_per_year: float
    capital_charge_per_year: float
    annual_cost_usd: float
    npv_usd: float
    usd_per_pflop_hour: float
    staff_per_year: float
    licences_per_year: float
    insurance_tax_per_year: float
    service_share: Share
    gpu_hours_per_year: float
    marginal_usd_per_gpu_hour: float
    lease_per_year: float
    building_capex_usd: float
    grid_connection_usd: float
    build_per_year: float
    pflops_per_gpu: float
    facility: Literal["lease", "build"]
    """tco.facility: which of lease_per_year (space) and building_capex_usd + grid_connection_usd (capex,
    build_per_year) the totals take."""


class InputJson(TypedDict):
    value: float | str
    unit: str
    source: str


class CablePlanJson(TypedDict):
    rows: int
    """The cable plan's rows: every fibre run, copper assembly leg and power cord (what bom cables writes)."""
    in_build: bool
    """Whether bom build writes the plan's files (<name>-cables.csv, -racks.csv, -cables.xlsx) beside this JSON:
    a plan of at most `threshold` rows, or any with --plan; none with --no-plan. (A plan the tool cannot list
    yet is left out, with a note on stderr.)"""
    threshold: int
    """The most rows bom build writes unasked."""


class BuildJson(ModelJson):
    """A build: `bom build --json`, the written <name>.json."""

    lines: list[BomLineJson]
    """The bill of materials, one line per part and place."""
    totals: TotalsJson
    power_basis: PowerBasisJson
    """Which power figure each total uses: the typical draw for the energy cost, the maximum for facility
    sizing, and what the two are for each kind of line (bom/costing/tco.py)."""
    finance: FinanceJson
    power: SitesPowerJson | None
    cooling: CoolingJson | None
    job: JobJson | None
    """What the scenario's training job costs on the cluster built for it (bom/costing/job.py); null for a
    serving job or a cluster sized by gpus or nodes."""
    range: RangeJson | None
    """The P10 / P50 / P90 range of capex, TCO, cost per GPU-hour and each site's in-service date (seeded
    Monte Carlo)."""
    sensitivity: list[SensitivityJson]
    """Cost per GPU-hour with each input moved by -20 % and +20 %."""
    order: Annotated[list[dict[str, object]], Handwritten("order")]
    """The order: one line per part number, spares included."""
    quotes: Annotated[list[dict[str, object]], Handwritten("quote")]
    """Quotes applied to prices."""
    exchange_rates: dict[str, float]
    """USD per unit of each quoted currency."""
    warnings: list[str]
    """What the build warns about."""
    priced_on: Date
    """The day quotes are checked against."""
    order_date: Date
    """The day the order is placed (order_date, else the day the BOM is priced for)."""
    in_service: list[SiteScheduleJson]
    """Each site's critical path and earliest in-service date from the order date, its parts' lead times,
    its racks' installation and burn-in (bom/costing/schedule.py)."""
    late_dates: list[LateDateJson]
    """Every target day (in_service, a phase's date) the parts cannot meet, with the day it can be met
    (warnings; bom build --strict-dates refuses them)."""
    alternates: AlternatesJson | None
    """The long-lead link parts and the catalog's alternates for their links, each priced by a build with
    it (bom/costing/alternates.py); null where none were computed (bom build computes them)."""
    inputs: dict[str, InputJson]
    """The TCO inputs with their units and sources."""
    checks: ChecksJson | None
    """The design rules' checks: every rule run, its violations with a count, the first ones shown."""
    phases: NotRequired[Annotated[list[dict[str, object]], Handwritten("phase")]]
    """With the scenario's phases: each phase's order, capex, GPUs and re-cabling, each fabric by its
    growth (bom/costing/phases.py)."""
    growth: NotRequired[Annotated[dict[str, object], Handwritten("growth")]]
    """With the scenario's phases: the scenario's growth and both policies side by side."""
    cable_plan: NotRequired[CablePlanJson]
    """The cable plan's size and whether this build wrote it (bom build's JSON; bom cables writes it)."""


#: What ``bom build`` writes of the cable plan (bom/outputs/planfiles.py: BUILD_MAX_ROWS).
PlanChoice = Literal["auto", "always", "never"]


@dataclass(frozen=True)
class Report:
    model: Model
    lines: list[Line]
    inputs: dict[str, Input]
    tco: Tco
    basis: Basis | None = None
    order: list[OrderLine] = field(default_factory=list)
    sensitivity: list[Sensitivity] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    quotes: list[Quote] = field(default_factory=list)
    priced_on: dt.date = dt.date(2026, 1, 1)    # the day quotes are checked against
    document_date: dt.date = dt.date(2026, 1, 1)  # the workbook's properties (reproducible)
    checks: Checks | None = None                  # the design rules' closed form (bom/rules)
    job: Job | None = None                        # the scenario's training job priced (bom/costing/job.py)
    schedule: list[SiteSchedule] = field(default_factory=list)   # each site's in-service date
    range: Range | None = None                    # P10 / P50 / P90 (bom/costing/uncertainty.py)
    order_date: dt.date = dt.date(2026, 1, 1)
    phases: Phases | None = None                  # the build-out in phases (bom/costing/phases.py)
    power: SitesPower | None = None               # each site's IT and facility power (bom/costing/sitepower.py)
    cooling: Cooling | None = None                # the CDUs of a liquid-cooled build (bom/costing/cooling.py)
    alternates: Alternates | None = None          # long-lead parts' alternates (bom/costing/alternates.py)
    #: What ``bom build`` writes of the cable plan (bom/outputs/planfiles.py: PlanChoice): ``auto`` when it is
    #: small, ``always`` (``--plan``), ``never`` (``--no-plan``).
    cable_plan: PlanChoice = "auto"

    @property
    def name(self) -> str:
        return self.model.scenario.name

    @property
    def late_dates(self) -> list[LateDate]:
        """Every target day the parts cannot meet: the scenario's ``in_service`` (against each site) and each
        phase's ``date`` (``bom build --strict-dates`` refuses them)."""
        phases = self.phases.late if self.phases is not None else []
        return [*late_sites(self.schedule), *phases]

    @cached_property
    def totals(self) -> Totals:
        """The model's totals (the report is made of a finished model)."""
        return self.model.totals()

    @property
    def links(self) -> int:
        """Every scale-out and scale-across link (what installation is priced on)."""
        return self.totals.network.links

    @property
    def dark_fibre_km(self) -> float:
        return self.model.dci.dark_fibre_km if self.model.dci else 0.0

    @property
    def spares_usd(self) -> float:
        """The spares' price (BOM lines of their own, in the hardware and the capex)."""
        return sum(x.price_usd for x in self.lines if x.fabric == SPARES)

    @property
    def budget_usd(self) -> tuple[float, float]:
        """The hardware's low and high [USD]: each line at the ends of its published price range (its
        own price where no range is published)."""
        return sum(x.price_low_usd for x in self.lines), sum(x.price_high_usd for x in self.lines)

    @property
    def placeholder_lines(self) -> list[Line]:
        """Lines priced by an estimate with no published range: placeholders to replace with quotes."""
        return [x for x in self.lines if x.placeholder_price]

    @property
    def storage_usd(self) -> float:
        """The storage appliances' price (spares of them included): a budget line of its own."""
        return sum(x.price_usd for x in self.lines if x.category == Category.STORAGE)

    @property
    def pflops_per_gpu(self) -> float:
        return self.basis.pflops_per_gpu if self.basis else 0.0

    def to_json(self) -> BuildJson:
        flags = {o.sku: list(o.flags) for o in self.order}
        t = self.tco
        out: BuildJson = {
            **self.model.to_json(),
            "lines": [{**line.to_json(), "asset_class": asset_class(line.category), "flags": flags.get(line.sku, [])}
                      for line in self.lines],
            "totals": {
                "capex_usd": round(t.capex_usd, 2), "hardware_usd": round(t.hardware_usd, 2),
                "network_capex_usd": round(t.network_usd, 2), "installation_usd": round(t.installation_usd, 2),
                "spares_usd": round(self.spares_usd, 2), "storage_usd": round(self.storage_usd, 2),
                "budget_low_usd": round(self.budget_usd[0], 2), "budget_high_usd": round(self.budget_usd[1], 2),
                "placeholder_usd": round(sum(x.price_usd for x in self.placeholder_lines), 2),
                "it_power_kw": round(t.it_power_kw, 4), "network_power_kw": round(t.network_power_kw, 4),
                "facility_power_kw": round(t.facility_power_kw, 4), "opex_per_year_usd": round(t.opex_per_year, 2),
                "it_power_max_kw": round(t.it_power_max_kw, 4),
                "facility_power_max_kw": round(t.facility_power_max_kw, 4),
                "cooling_power_kw": round(t.cooling_power_kw, 4),
                "energy_per_year_usd": round(t.energy_per_year, 2), "tco_usd": round(t.tco_usd, 2),
                "usd_per_gpu_hour": round(t.usd_per_gpu_hour, 6), "usd_per_gpu_hour_basis": BASIS_NAME,
                "undiscounted_usd_per_gpu_hour": round(t.undiscounted_usd_per_gpu_hour, 6),
                "network_capex_share": round(t.network_capex_share, 6),
                "network_power_share": round(t.network_power_share, 6),
                "links": self.links, "dark_fibre_km": self.dark_fibre_km,
            },
            "power_basis": {"totals": POWER_BASIS["totals"], "lines": POWER_BASIS["lines"]},
            "finance": {
                "capex_gpu_usd": round(t.capex_gpu_usd, 6), "capex_network_usd": round(t.capex_network_usd, 6),
                "capex_facility_usd": round(t.capex_facility_usd, 6),
                "support_per_year": round(t.support_per_year, 6), "space_per_year": round(t.space_per_year, 6),
                "dark_fibre_per_year": round(t.dark_fibre_per_year, 6),
                "depreciation_per_year": round(t.depreciation_per_year, 6),
                "capital_charge_per_year": round(t.capital_charge_per_year, 6),
                "annual_cost_usd": round(t.annual_cost_usd, 6), "npv_usd": round(t.npv_usd, 6),
                "usd_per_pflop_hour": round(t.usd_per_pflop_hour, 6), "staff_per_year": round(t.staff_per_year, 6),
                "licences_per_year": round(t.licences_per_year, 6),
                "insurance_tax_per_year": round(t.insurance_tax_per_year, 6),
                "service_share": round(t.service_share, 6), "gpu_hours_per_year": round(t.gpu_hours_per_year, 6),
                "marginal_usd_per_gpu_hour": round(t.marginal_usd_per_gpu_hour, 6),
                "lease_per_year": round(t.lease_per_year, 6), "building_capex_usd": round(t.building_capex_usd, 6),
                "grid_connection_usd": round(t.grid_connection_usd, 6), "build_per_year": round(t.build_per_year, 6),
                "pflops_per_gpu": self.pflops_per_gpu, "facility": "build" if t.facility_built else "lease",
            },
            "power": self.power.to_json() if self.power is not None else None,
            "cooling": self.cooling.to_json() if self.cooling is not None else None,
            "job": self.job.to_json() if self.job is not None else None,
            "range": self.range.to_json() if self.range is not None else None,
            "sensitivity": [s.to_json() for s in self.sensitivity],
            "order": [o.to_json() for o in self.order],
            "quotes": [q.to_json() for q in self.quotes],
            "exchange_rates": dict(self.model.scenario.exchange_rates),
            "warnings": list(self.warnings),
            "priced_on": self.priced_on.isoformat(),
            "order_date": self.order_date.isoformat(),
            "in_service": schedules_json(self.schedule),
            "late_dates": [p.to_json() for p in self.late_dates],
            "alternates": self.alternates.to_json() if self.alternates is not None else None,
            "inputs": {k: {"value": i.value, "unit": i.unit, "source": i.source} for k, i in self.inputs.items()},
            "checks": self.checks.to_json() if self.checks is not None else None,
        }
        if self.phases is not None:
            out["phases"] = self.phases.to_json()
            out["growth"] = self.phases.policies_json()
        return out


def _per_site(model: Model, catalog: Catalog, lines: list[Line]) -> dict[str, tuple[float, ...]]:
    """Installed quantity of each part in each site, from each site shape's own model."""
    c = model.cluster
    total: dict[str, float] = {}
    for line in lines:
        total[line.sku] = total.get(line.sku, 0.0) + line.quantity
    if c.site_count == 1:
        return {k: (v,) for k, v in total.items()}
    if model.site_models is None:   # a site shape that cannot stand alone: the order gives totals only
        return {}
    shared: dict[str, float] = {}
    for line in lines:
        if line.fabric == FabricRole.DCI and line.unit == "each":
            shared[line.sku] = shared.get(line.sku, 0.0) + line.quantity
    own = _own_racks(model, lines)
    shapes = []
    for count, m in model.site_models:
        per: dict[str, float] = {}
        if m is None:   # every site alike: what is not between sites (DCI) nor a site's own, an even share
            for line in lines:
                if line.fabric != FabricRole.DCI:
                    per[line.sku] = per.get(line.sku, 0.0) + line.quantity / count
            for o in own:
                for sku, qty in o.items():
                    per[sku] = per.get(sku, 0.0) - qty / count
            # A part that does not share out in whole units (spares of a site-wide rule) has no split.
            per = {sku: q for sku, q in per.items() if abs(q - round(q)) < 1e-9}
        else:
            for line in all_lines(m, catalog):
                per[line.sku] = per.get(line.sku, 0.0) + line.quantity
        shapes.append((count, per))
    return split_by_site(total, shapes, shared, c.site_count, own)


def _own_racks(model: Model, lines: list[Line]) -> list[dict[str, float]]:
    """Each site's own racks (its DCI equipment's), by part: the racks and their PDUs."""
    sku = {line.catalog_id: line.sku for line in lines}
    out: list[dict[str, float]] = []
    for sec in model.placement.own if model.placement is not None else ():
        mine: dict[str, float] = {}
        for lay in sec.layouts if sec is not None else ():
            for cid in [lay.rack.catalog_id] + [item.catalog_id for item, _ in lay.slots if item.role == Layer.PDU]:
                if cid in sku:
                    mine[sku[cid]] = mine.get(sku[cid], 0.0) + 1
        out.append(mine)
    return out


def _basis(model: Model, lines: list[Line]) -> Basis:
    by_class: dict[str, float] = {}
    for line in lines:
        k = asset_class(line.category)
        by_class[k] = by_class.get(k, 0.0) + line.price_usd
    network = [line for line in lines if line.category in NETWORK]
    it = [line for line in lines if line.category != Category.COOLING]   # the CDUs' pumps are the facility's
    return Basis(
        capex_by_class=by_class, network_usd=sum(x.price_usd for x in network),
        gpu_systems_usd=sum(x.price_usd for x in lines if x.category == Category.COMPUTE),
        optics_usd=sum(x.price_usd for x in lines if x.category in OPTICS),
        it_power_w=sum(x.power_w for x in it), network_power_w=sum(x.power_w for x in network),
        it_power_max_w=sum(x.power_max_w for x in it),
        cooling_power_w=sum(x.power_max_w for x in lines if x.category == Category.COOLING),
        links=sum(g.links for g in model.groups) + (model.dci.links if model.dci else 0),
        racks=model.racks, gpus=model.cluster.gpus, nodes=model.cluster.nodes,
        dark_fibre_km=model.dci.dark_fibre_km if model.dci else 0.0,
        pflops_per_gpu=_dense_pflops(model.platform))


def _dense_pflops(p: Platform) -> float:
    """Dense FP8 per GPU [PFLOP/s], or BF16 on a chip without FP8 (TPU v4): the PFLOP-hour basis."""
    return (p.flops_per_gpu("fp8") if p.fp8_dense is not None else p.flops_per_gpu("bf16")) / 1e15


def _warnings(order: list[OrderLine]) -> list[str]:
    out = []
    for o in order:
        for f in o.flags:
            if f.startswith(("end-of-sale", "end-of-life", "quote expired")):
                out.append(f"{o.sku} ({o.catalog_id}): {f}")
    generic = [o.sku for o in order if any(f.startswith("generic") for f in o.flags)]
    if generic:
        # "; " between them: a generic name may hold a comma ("0U ... rack PDU, 3-phase 415 V 60 A")
        out.append(f"{len(generic)} part numbers are generic names, not orderable SKUs: {'; '.join(generic)}")
    return out


def check_spares(sc: Scenario) -> None:
    """A spares category the BOM does not know is a typo, not a rule to ignore. Every BOM line's category
    is one of the table's, so it is checked before any stage runs (bom/pipeline/build.py)."""
    for name in sc.spares or {}:
        if name not in CATEGORIES:
            raise ScenarioError(suggest(name, CATEGORIES, "spares category"), at=("spares", name),
                                key=f"spares.{name}")


def make_report(model: Model, catalog: Catalog, checks: Checks, today: dt.date | None = None,
                with_range: bool = True) -> Report:
    """Everything the writers need; ``checks`` the design rules run on the model (every report carries
    at least their closed form: :func:`bom.pipeline.report_of` runs it), ``today`` the day quotes are
    checked against when the scenario gives no date; without ``with_range`` no Monte Carlo (a build priced
    only to compare its point figures: bom/pipeline/alternates.py)."""
    sc = model.scenario
    base = [quoted(x, catalog) for x in all_lines(model, catalog)]
    sites = model.cluster.site_count
    policy = spares_policy(sc.spares)
    per_site = _per_site(model, catalog, base)
    lines = base + spare_lines(base, policy, sites, per_site)
    lines += rounding_lines(lines, catalog)   # a quote's minimum order and whole packs, after the spares
    priced_on = sc.date or today or dt.date.today()
    newest = max((r.as_of for r in catalog), default=dt.date(2026, 1, 1))
    order = order_lines(lines, catalog, priced_on, per_site, policy, sites)
    ins = inputs(sc.tco, sc.layout.cooling)
    basis = _basis(model, lines)
    used = {x.catalog_id for x in lines} | {x.sku for x in lines}
    quotes = sorted({q for rid, q in catalog.quotes.items() if rid in used}, key=lambda q: q.where)
    tco = compute_tco(basis, ins)
    cooled = size_cooling(model, catalog)
    limits = site_limits_kw(sc)[:sites] if sc.sites is not None and sc.sites.power is not None else None
    decided: DecidedBy = "power" if model.power_rounds else ("one site" if sites == 1 and limits is None else "count")
    power = site_power(model, base, float(ins["pue"].value), cooled, limits, decided, model.power_rounds)
    order_date = sc.order_date or priced_on
    schedule = _schedule(model, order, tco, ins, order_date)
    return Report(model, lines, ins, tco, basis, order, sensitivity(basis, ins),
                  [*model.warnings, *_warnings(order), *schedule_warnings(schedule), *catalog.notes], quotes,
                  priced_on, sc.date or newest, checks, job=job_cost(model.sizing, model.cluster.gpus, tco),
                  schedule=schedule, order_date=order_date,
                  range=_range(order, basis, tco, ins, catalog, sc, schedule) if with_range else None, power=power,
                  cooling=cooled)


def _range(order: list[OrderLine], basis: Basis, tco: Tco, ins: dict[str, Input], catalog: Catalog,
           sc: Scenario, schedule: Sequence[SiteSchedule] = ()) -> Range:
    """The Monte Carlo of the TCO over the prices, exchange rates, utilisation and lead times, and of each
    site's in-service date."""
    currency = {}
    for o in order:
        q = catalog.quotes.get(o.sku) or catalog.quotes.get(o.catalog_id)
        if q is not None and q.currency != "USD":
            currency[o.sku] = q.currency
    published = {}
    for o in order:
        kind = catalog.kind_of(o.catalog_id) if o.catalog_id else None
        row = catalog.get(kind, o.catalog_id) if kind else None
        if row is not None and row.price_low_usd is not None:
            spread = published_spread(o.unit_price_usd, row.price_low_usd, row.price_high_usd,
                                      f"the catalog row's published range: {row.price_range_source}")
            if spread is not None:
                published[o.sku] = spread
    return draw(order, basis, tco, ins, currency, sc.uncertainty.draws, sc.uncertainty.seed, published,
                site_draws(order, schedule) if schedule else None)


def site_draws(order: Sequence[OrderLine], schedule: Sequence[SiteSchedule]) -> list[SiteDraw]:
    """Each site's lines with a lead time and the days after its last arrival, for the draws."""
    gpus = sum(s.gpus for s in schedule)
    return [SiteDraw(s.site, s.gpus / gpus if gpus else 1.0 / len(schedule),
                     tuple(i for i, o in enumerate(order) if o.lead_time_days is not None and takes(o, s.site)),
                     s.install_days + s.burn_in_days, s.order_date, (s.in_service - s.order_date).days)
            for s in schedule]


def _schedule(model: Model, order: list[OrderLine], tco: Tco, ins: dict[str, Input],
              order_date: dt.date) -> list[SiteSchedule]:
    """Each site's in-service date (bom/costing/schedule.py), from its GPUs and racks."""
    v = {k: float(i.value) for k, i in ins.items() if not isinstance(i.value, str)}
    racks = site_racks(model)
    arrivals = site_arrivals(order, [s.site for s in model.site_sizes], order_date)
    # alike sites share one arrivals tuple (held in arrivals): its gate found once
    gates: dict[int, tuple[Arrival | None, float | None]] = {}
    return [site_schedule(mine, s.site, s.gpus, racks[s.site - 1], model.cluster.gpus, order_date,
                          v["install_racks_per_day"], tco, v["discount_rate"], v["life_gpu"], v["burn_in_days"],
                          model.scenario.in_service, gates)
            for s, mine in zip(model.site_sizes, arrivals, strict=True)]


def schedule_warnings(schedule: list[SiteSchedule]) -> list[str]:
    """What the dates rest on that a buyer must know: a target the parts cannot meet, parts whose lead
    time is unknown (the date is then the earliest the known parts allow)."""
    out = [p.message for p in late_sites(schedule)]
    unknown = sorted({sku for s in schedule for sku in s.unknown})
    if unknown:
        out.append(f"{len(unknown)} part number{'s have' if len(unknown) != 1 else ' has'} no lead time (no catalog "
                   f"row or quote gives one), so the in-service dates are the earliest the others allow: "
                   f"{'; '.join(unknown)}")
    return out
