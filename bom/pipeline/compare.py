"""The comparison: the same job built on each platform generation."""

from __future__ import annotations

from bom.catalog.rows import Catalog
from bom.costing.compare import Comparison, Generation, default_platforms, parse_entry, variant
from bom.costing.report import Report
from bom.errors import BomError, LimitError, MultiError
from bom.faults import analyse
from bom.inputs.scenario import Scenario
from bom.inputs.validation import suggest
from bom.inputs.yamlio import Located
from bom.pipeline.build import build_scenario
from bom.pipeline.checks import report_of
from bom.roles import SUPPORT


def _generation(job: Scenario, src: Located, catalog: Catalog) -> tuple[Report, dict[str, str]]:
    """The generation's report; a non-compute fabric this generation cannot build is left out, with why."""
    left_out: dict[str, str] = {}
    while True:
        try:
            return report_of(build_scenario(job, src, catalog), catalog), left_out
        except LimitError as exc:
            # Every support fabric a problem names is left out at once (the preflight finds them together);
            # what is left, if anything, is the generation's own problem, found again on the next try.
            drop: dict[str, str] = {}
            for e in exc.problems if isinstance(exc, MultiError) else [exc]:
                name = (e.key or "").removeprefix("fabrics.").split(".")[0]
                if name in SUPPORT and name in job.fabrics:
                    drop.setdefault(name, e.message)
            if not drop:
                raise
            left_out.update(drop)
            job = job.model_copy(update={"fabrics": {k: f for k, f in job.fabrics.items() if k not in drop}})


def _reliability(report: Report) -> tuple[tuple[str, float], ...]:
    """bom faults' figures for the comparison, beside the copper share: interruptions a day, goodput, and the
    cost of a useful GPU-hour."""
    g = analyse(report).to_json()["goodput"]
    return (("interruptions_per_day", g["interruptions_per_day"]), ("goodput", g["goodput"]),
            ("usd_per_useful_gpu_hour", g["usd_per_useful_gpu_hour"]))


def compare(scenario: Scenario, src: Located, catalog: Catalog, platforms: list[str] | None = None,
            gpus: int | None = None) -> Comparison:
    ids = platforms or scenario.platforms or default_platforms(catalog)
    known, switches = catalog.rows["platforms"], catalog.rows["switches"]
    for entry in ids:
        pid, switch = parse_entry(entry)
        if pid not in known:
            raise BomError(suggest(pid, known, "platform"), key="--platforms")
        if switch is not None and switch not in switches:
            raise BomError(suggest(switch, switches, "switch") + f" (in {entry!r})", key="--platforms",
                           hint="Write platform@switch with a switch id from `bom catalog list --kind switches`.")
    if len(set(ids)) != len(ids):
        raise BomError("a platform is named twice", key="--platforms")
    if gpus is None and scenario.gpus is not None:
        gpus = scenario.gpus
    gens = []
    skipped: dict[str, str] = {}
    for entry in ids:
        pid, switch = parse_entry(entry)
        p = catalog.platform(pid)
        job = variant(scenario, pid, gpus, switch)
        try:
            report, left_out = _generation(job, src, catalog)
        except LimitError as exc:   # this generation cannot build the job; the others still can
            skipped[entry] = exc.message + (f" {exc.hint}" if exc.hint else "")
            continue
        built, asked = report.model.cluster.gpus, report.model.cluster.requested_gpus
        notes = []
        if built > asked:
            notes.append(f"{asked:,} GPUs asked; {pid} is bought in whole {p.system}s of {p.gpus_per_system} GPUs, "
                         f"so {built:,} are built")
        notes += [f"no {k} fabric (its whole-network figures leave it out): {why}" for k, why in left_out.items()]
        gens.append(Generation(p, report, "; ".join(notes) or None, tuple(left_out), switch, _reliability(report)))
    # Over the years: columns run by the platform's year (the catalog's), as named within a year.
    gens.sort(key=lambda g: g.platform.year)
    if not gens:
        reasons = "; ".join(f"{k}: {v}" for k, v in skipped.items())
        raise BomError(f"no platform can build this job ({reasons})", key="--platforms")
    return Comparison(scenario.name, gens, skipped)
