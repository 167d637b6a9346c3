"""One point of a sweep built through the pipeline (what ``bom build`` runs), and its figures, or the error,
rule or limit that refused it.

It runs in a worker process (local or Dask): :class:`Context` is all it needs, small and picklable, and
each process reads a catalog once per set of overlays and price files.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from bom.catalog.rows import Catalog
from bom.costing.compare import Generation
from bom.costing.report import Report
from bom.errors import BomError, MultiError
from bom.faults import analyse
from bom.inputs.scenario import Scenario, parse_scenario
from bom.inputs.sweep import Constraints
from bom.inputs.validation import located
from bom.inputs.yamlio import Located
from bom.model.sweep import FiguresJson, Point, PointJson
from bom.pipeline import build_scenario, catalog_for, check_design, report_of
from bom.units import magnitude

#: ``BOM_SWEEP_TRACE=FILE``: each build appends its point's id to FILE when it ends (tests count the
#: builds of a stopped and resumed sweep by it; one line each, appended whole).
TRACE_ENV = "BOM_SWEEP_TRACE"


@dataclass(frozen=True)
class Context:
    """What every point's build shares: the base scenario's file and lines (for paths and error places),
    the day the designs are priced and scheduled on, and the constraints."""

    file: str
    lines: Mapping[tuple[str | int, ...], int]
    date: dt.date
    constraints: Constraints = field(default_factory=Constraints)


#: Catalogs read in this process, by the scenario keys that choose them (overlays, price files, rates).
_CATALOGS: dict[str, Catalog] = {}


def _catalog(sc: Scenario, src: Located) -> Catalog:
    key = repr((sc.catalogs, sc.prices.files, sorted(sc.exchange_rates.items()),
                sorted((k, repr(v)) for k, v in sc.prices.columns.items())))
    if key not in _CATALOGS:
        _CATALOGS[key] = catalog_for(sc, src)
    return _CATALOGS[key]


def evaluate(ctx: Context, point: Point) -> PointJson:
    """The point built, checked and priced; refused points say by what."""
    out: PointJson = {"id": point.id, "index": point.index, "overrides": dict(point.overrides), "feasible": False,
                      "refused_by": None, "reason": None, "figures": None, "frontier": False}
    src = Located(dict(point.scenario), ctx.file, dict(ctx.lines))
    try:
        with located(src):
            sc = parse_scenario(src)
            catalog = _catalog(sc, src)
            model = build_scenario(sc, src, catalog)
            checks = check_design(model, catalog, plan=ctx.constraints.check == "plan")
            report = report_of(model, catalog, checks, ctx.date)
    except BomError as exc:
        out["refused_by"], out["reason"] = _refused_by(exc), str(exc)
        return _traced(out)
    figures = figures_of(report)
    out["figures"] = figures
    broken = broken_limit(figures, ctx.constraints)
    if broken is None and ctx.constraints.check != "off" and not checks.ok:
        failed = [r.rule.id for r in checks.failed if r.severity == "error"]
        broken = (f"rules: {', '.join(failed)}", checks.summary())
    if broken is not None:
        out["refused_by"], out["reason"] = broken
    else:
        out["feasible"] = True
    return _traced(out)


def _refused_by(exc: BomError) -> str:
    """The build's error as what refused the point: its kind and the key it names."""
    kind = type(exc).__name__
    if isinstance(exc, MultiError):
        keys = sorted({e.key for e in exc.problems if e.key})
    else:
        keys = [exc.key] if exc.key else []
    return f"{kind} at {', '.join(keys)}" if keys else kind


def _traced(out: PointJson) -> PointJson:
    trace = os.environ.get(TRACE_ENV)
    if trace:
        fd = os.open(trace, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, f"{out['id']}\n".encode())
        finally:
            os.close(fd)
    return out


def figures_of(report: Report) -> FiguresJson:
    """The design's figures from its report; the copper share is the comparison's (one rule)."""
    m, tco, checks = report.model, report.tco, report.checks
    assert checks is not None   # report_of gives every report its checks
    gen = Generation(m.cluster.platform, report, None)
    metrics = gen.metrics()
    job = report.job
    late = max((s.in_service for s in report.schedule), default=None)
    deadline = job.deadline_days if job is not None else None
    return {"platform": m.cluster.platform.id, "compute_switch": gen.compute_switch,
            "gpus": m.cluster.gpus, "sites": m.cluster.site_count,
            "capex_usd": round(tco.capex_usd, 2), "tco_usd": round(tco.tco_usd, 2),
            "usd_per_gpu_hour": round(tco.usd_per_gpu_hour, 6),
            "usd_per_useful_gpu_hour": round(analyse(report).to_json()["goodput"]["usd_per_useful_gpu_hour"], 6),
            "facility_mw": round(tco.facility_power_max_kw / 1000, 6),
            "it_mw": round(tco.it_power_max_kw / 1000, 6),
            "copper_share": round(metrics["cluster_copper_share"], 6),
            "network_capex_share": round(tco.network_capex_share, 6),
            "job_days": round(job.wall_days, 6) if job is not None else None,
            "deadline_days": deadline,
            "deadline_met": None if job is None or deadline is None else job.wall_days <= deadline * (1 + 1e-9),
            "in_service": late.isoformat() if late is not None else None,
            "check_errors": checks.errors, "check_warnings": checks.warnings}


def broken_limit(f: FiguresJson, c: Constraints) -> tuple[str, str] | None:
    """The first constraint the figures break, as (its key, the figure against the limit)."""
    if c.capex is not None and f["capex_usd"] > magnitude(c.capex, "money"):
        limit_usd = magnitude(c.capex, "money")
        return "constraints.capex", f"capex {f['capex_usd']:,.0f} USD over the limit {limit_usd:,.0f} USD"
    if c.facility_power is not None:
        limit = magnitude(c.facility_power, "power") / 1e6
        if f["facility_mw"] > limit:
            said = f"facility power {f['facility_mw']:,.2f} MW over the limit {limit:,.2f} MW"
            return "constraints.facility_power", said
    if c.in_service is not None and f["in_service"] is not None and f["in_service"] > c.in_service.isoformat():
        return "constraints.in_service", f"in service on {f['in_service']}, after {c.in_service.isoformat()}"
    if c.deadline_met and f["deadline_met"] is not True:
        said = (f"the job takes {f['job_days']:,.1f} days, past its {f['deadline_days']:g}-day deadline"
                if f["deadline_met"] is False else "the design has no training job with a deadline to meet")
        return "constraints.deadline_met", said
    return None

