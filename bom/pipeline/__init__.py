"""The orchestrator: ties the pure stages together for the commands."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from bom.catalog.rows import Catalog, Platform
from bom.costing.compare import Comparison, Generation, default_platforms, parse_entry, variant
from bom.costing.report import Report, make_report
from bom.errors import BomError, LimitError
from bom.inputs.scenario import Scenario
from bom.inputs.validation import RuleError, locate, suggest
from bom.inputs.workload import Workload, load_jobs
from bom.inputs.yamlio import Located
from bom.model.parallelism import Parallelism, Split, Tiers
from bom.model.roles import SUPPORT
from bom.model.sizing import Accelerator, LevelPower, Sizing
from bom.resources import data_dir
from bom.topology.parallelism import Shape
from bom.topology.sizing import platform_accelerator, seed_accelerator, size, with_replicas

if TYPE_CHECKING:
    from bom.model.checks import Checks
    from bom.model.model import Model
    from bom.topology.serving import ServeShape

#: The seed gives no power; its 288 GB accelerator is B300-class, so power comes from here.
SEED_POWER_PLATFORM = "dgx-b300"


@dataclass(frozen=True)
class SizeOverrides:
    memory_per_gpu_gb: float | None = None
    flops_per_gpu: float | None = None
    mfu: float | None = None
    pue: float | None = None


def accelerator(catalog: Catalog, platform_id: str | None, ov: SizeOverrides,
                where: str | None = None) -> Accelerator:
    """The platform's accelerator (or the seed's), with the command-line overrides applied."""
    if platform_id is None:
        acc = seed_accelerator(catalog.rows["platforms"].get(SEED_POWER_PLATFORM))  # type: ignore[arg-type]
    else:
        try:
            acc = platform_accelerator(catalog.platform(platform_id))
        except BomError as exc:
            exc.where = exc.where or where
            raise
    if ov.memory_per_gpu_gb is not None:
        acc = replace(acc, memory_gb=ov.memory_per_gpu_gb)
    if ov.flops_per_gpu is not None:
        acc = replace(acc, flops={k: ov.flops_per_gpu for k in acc.flops})
    return acc


def _with_mfu(job: Workload, ov: SizeOverrides) -> Workload:
    return job if ov.mfu is None else job.model_copy(update={"mfu": ov.mfu})


def size_seed_jobs(catalog: Catalog, platform_id: str | None,
                   ov: SizeOverrides) -> list[Sizing]:
    """The seed's six example jobs sized on the seed accelerator or a platform."""
    acc = accelerator(catalog, platform_id, ov)
    jobs = load_jobs(data_dir("scenarios") / "seed-jobs.yaml")
    from bom.costing.tco import DEFAULTS

    pue = ov.pue or DEFAULTS["pue"].value
    return [size(_with_mfu(j, ov), acc, pue) for j in jobs]


def size_levels(catalog: Catalog, platform_id: str | None, ov: SizeOverrides, pue: float,
                building_kw: float | None) -> list[LevelPower]:
    """Each level of scale's power on the platform (or the seed's accelerator), and the buildings it takes."""
    from bom.topology.sizing import level_powers

    return level_powers(accelerator(catalog, platform_id, ov), pue, building_kw)


def size_scenario(scenario: Scenario, src: Located, catalog: Catalog, platform_id: str | None,
                  ov: SizeOverrides) -> Sizing:
    """The scenario's workload sized on its platform (or ``platform_id``)."""
    if scenario.workload is None:
        raise BomError("this scenario gives nodes or gpus, not a workload, so there is "
                       "nothing to size", where=src.where(()), key="workload",
                       hint="Add a workload: {kind: pretrain, params: 70e9, tokens: 15e12, "
                            "deadline: \"60 d\"}.")
    pid = platform_id or scenario.platform
    acc = accelerator(catalog, pid, ov, where=src.where(("platform",)) if pid else None)
    dtype = scenario.workload.dtype
    if pid and dtype in ("fp8", "fp4") and dtype not in acc.flops and ov.flops_per_gpu is None:
        # the weights are sized at the dtype's bytes, so a GPU without the format would hold them as bf16
        raise BomError(f"platform {pid} has no dense {dtype} figure ({catalog.platform(pid).gpu} does not run "
                       f"{dtype}), so a job in {dtype} cannot be sized on it", where=src.where(("workload", "dtype")),
                       key="workload.dtype", hint="Use bf16 (or a format the GPU runs), or another platform.")
    from bom.costing.tco import inputs

    try:
        pue = ov.pue or inputs(scenario.tco, scenario.layout.cooling)["pue"].value
        sized = size(_with_mfu(scenario.workload, ov), acc, pue)
        if pid is not None and scenario.workload.has_shape:
            split = split_job(scenario, catalog.platform(pid), acc, sized)
            sized = replace(sized, parallelism=split)
            if split.kind == "serve":
                sized = with_replicas(sized, split.gpus, acc)   # the build takes the replicas' GPUs
        elif scenario.workload.tokens_per_s_per_user is not None:
            raise BomError("workload.tokens_per_s_per_user needs a platform: the decode step reads the weights at "
                           "its GPUs' memory bandwidth", key="workload.tokens_per_s_per_user",
                           hint="Give platform (or --platform).")
        return sized
    except BomError as exc:
        raise locate(exc, src) from None


def split_job(scenario: Scenario, platform: Platform, acc: Accelerator, sized: Sizing) -> Parallelism:
    """The workload's parallelism on ``platform``: the scenario's tiers as plain numbers for the stage."""
    from bom.topology.parallelism import plan
    from bom.topology.sizing import USABLE_MEMORY_FRACTION
    from bom.units import magnitude

    job = scenario.workload
    assert job is not None and job.params is not None
    if job.kind == "serve":
        return serve_job(job, platform, acc)
    shape = workload_shape(job)
    out = platform.scale_out
    sites = scenario.sites
    count = sites.count if sites is not None else 1
    dci_bps = None
    if sites is not None and count > 1:
        if sites.dci_bandwidth is not None and sites.dci_bandwidth != "auto":
            dci_bps = magnitude(sites.dci_bandwidth, "rate") * 1e9 / 8
        elif sites.dci_fraction is not None:
            site_nodes = sized.gpus / count / platform.gpus_per_node
            dci_bps = sites.dci_fraction * site_nodes * out.ports * magnitude(out.rate, "rate") * 1e9 / 8
    tiers = platform_tiers(platform, count, dci_bps, acc.domain_gpus)
    given = None
    if job.parallelism is not None:
        p = job.parallelism
        dp = p.dp or max(1, -(-sized.gpus // (p.tp * p.cp * p.pp)))
        given = Split(p.tp, p.cp, p.ep, p.pp, dp)
    overlap = sites.dci_overlap if sites is not None else None
    result = plan(job.label, shape, tiers, sized.gpus, acc.flops_for(job.dtype), job.mfu,
                  acc.memory_gb * 1e9 * USABLE_MEMORY_FRACTION, given, overlap)
    if dci_bps is None and result.dci_gbps_needed is not None:
        # auto: the DCI runs at the bandwidth asked for, so its time is the overlap's share of the step
        result = plan(job.label, shape, replace(tiers, dci_bps=result.dci_gbps_needed * 1e9 / 8), sized.gpus,
                      acc.flops_for(job.dtype), job.mfu, acc.memory_gb * 1e9 * USABLE_MEMORY_FRACTION, given, overlap)
    return result


def serve_job(job: Workload, platform: Platform, acc: Accelerator) -> Parallelism:
    """A serving workload's replicas on ``platform`` (bom/topology/serving.py)."""
    from bom.topology import serving
    from bom.topology.sizing import USABLE_MEMORY_FRACTION

    shape = serve_shape(job)
    tiers = platform_tiers(platform, 1, None, acc.domain_gpus)
    limit = acc.memory_gb * 1e9 * USABLE_MEMORY_FRACTION
    chip = None if acc.hbm_bps is None else serving.Chip(acc.hbm_bps, acc.flops_for(job.dtype))
    target = job.tokens_per_s_per_user
    given = None
    if job.parallelism is not None:
        p = job.parallelism
        given = Split(p.tp, p.cp, p.ep, p.pp, p.dp or 1)
        if p.dp is None:
            # dp defaults to the replicas the users need at what the given group takes
            given = replace(given, dp=serving.replicas_for(shape, given, tiers, limit, chip, target))
    return serving.plan(job.label, shape, tiers, limit, given, chip, target)


def serve_shape(job: Workload) -> ServeShape:
    """The model and load of a serving workload as plain numbers (``has_shape`` holds)."""
    from bom.inputs.workload import BYTES_PER_VALUE
    from bom.topology.serving import ServeShape

    assert job.params is not None and job.layers and job.hidden and job.heads and job.kv_heads
    assert job.users is not None and job.context is not None
    return ServeShape(job.params, BYTES_PER_VALUE[job.dtype], job.layers, job.hidden, job.heads, job.kv_heads,
                      job.kv_bytes_per_token, job.context, job.users, job.experts or 0, job.experts_per_token,
                      job.active_params or 0.0)


def platform_tiers(platform: Platform, sites: int = 1, dci_bps: float | None = None,
                   domain_gpus: int | None = None) -> Tiers:
    """The platform's tiers for the parallelism stage: per-GPU bandwidths in bytes/s, one direction."""
    from bom.model.parallelism import Tiers
    from bom.units import magnitude

    out = platform.scale_out
    # Vendors quote scale-up bandwidth per GPU both ways (NVLink 4: 18 links x 50 GB/s = 900 GB/s);
    # a collective's time is set by one direction. Scale-out and DCI rates are per direction.
    up_bps = magnitude(platform.scale_up.bandwidth_per_gpu, "rate") * 1e9 / 8 / 2
    out_bps = out.ports * magnitude(out.rate, "rate") * 1e9 / 8 / platform.gpus_per_node
    return Tiers(domain_gpus or platform.gpus_per_domain, up_bps, out_bps, sites, dci_bps)


def workload_shape(job: Workload) -> Shape:
    """The model and batch of a training workload as plain numbers (``has_shape`` holds)."""
    assert job.params is not None and job.layers and job.hidden and job.heads and job.sequence
    assert job.batch_tokens is not None
    kv = (job.kv_heads or 0) * (job.head_dim or 0)
    return Shape(job.params, job.layers, job.hidden, job.heads, job.sequence, job.batch_tokens,
                 job.active_params or 0.0, kv, job.experts or 0, job.experts_per_token)


def catalog_for(scenario: Scenario, src: Located, overlays: list[Path] | None = None,
                prices: list[Path] | None = None, strict_prices: bool = False) -> Catalog:
    """The built-in catalog plus the scenario's overlays and price files (paths relative to
    the scenario file), then the command line's."""
    from bom.catalog.load import load_catalog

    here = Path(src.file).parent
    dirs = [here / d for d in scenario.catalogs] + list(overlays or [])
    files = [here / f for f in scenario.prices] + list(prices or [])
    return load_catalog(dirs, files, rates=dict(scenario.exchange_rates), strict_prices=strict_prices)


def build_scenario(scenario: Scenario, src: Located, catalog: Catalog) -> Model:
    """Size (when the scenario gives a workload) and build the model of the whole cluster."""
    from bom.costing.tco import inputs
    from bom.pipeline.model import build_model

    try:
        inputs(scenario.tco)   # its money figures within the cap once converted, before any work
    except BomError as exc:
        raise locate(exc, src) from None
    sizing = None
    if scenario.workload is not None:
        if scenario.platform is None:
            raise BomError("a build needs a platform", where=src.where(()), key="platform")
        sizing = size_scenario(scenario, src, catalog, None, SizeOverrides())
    try:
        if scenario.sites is not None and scenario.sites.power is not None:
            return _sites_from_power(scenario, src, catalog, sizing)
        return build_model(scenario, src, catalog, sizing)
    except BomError as exc:
        raise locate(exc, src) from None


#: Builds the number of sites from sites.power may take; it only grows, so it settles well before.
POWER_ROUNDS = 12
def site_power_of(model: Model, catalog: Catalog):  # type: ignore[no-untyped-def]
    """Each site's IT and facility power at maximum (bom/costing/sitepower.py), from the model's BOM lines."""
    from bom.costing import cooling
    from bom.costing.lines import all_lines
    from bom.costing.sitepower import site_limits_kw, site_power
    from bom.costing.tco import inputs

    sc = model.scenario
    pue = float(inputs(sc.tco, sc.layout.cooling)["pue"].value)
    limits = site_limits_kw(sc)[:model.cluster.site_count] if sc.sites and sc.sites.power is not None else None
    return site_power(model, all_lines(model, catalog), pue, cooling.plan(model, catalog), limits)


def _sites_from_power(scenario: Scenario, src: Located, catalog: Catalog, sizing: Sizing | None) -> Model:
    """The model on as many buildings as its facility power needs (``sites.power`` with no count), or the
    scenario's count checked against the buildings' power. More sites bring more DCI gear and so more power:
    the count only grows from round to round, until the sites hold the facility (a fixed point)."""
    from bom.costing.sitepower import MAX_SITES, buildings_needed, site_limits_kw
    from bom.pipeline.model import build_model

    sites = scenario.sites
    assert sites is not None
    limits = site_limits_kw(scenario)
    if not sites.from_power:
        model = build_model(scenario, src, catalog, sizing)
        power = site_power_of(model, catalog)
        over = [s for s in power.sites if not s.fits]
        if over:
            need = buildings_needed(power.facility_kw, limits)
            raise LimitError(
                f"the cluster needs {power.facility_kw / 1000:,.1f} MW of facility power (IT at its maximum x PUE "
                f"{power.pue:g}, plus the CDUs); {len(over)} of {len(power.sites)} site(s) go over their "
                f"{over[0].limit_kw / 1000:,.1f} MW (site {over[0].site}: {over[0].facility_kw / 1000:,.1f} MW), so "
                + (f"it needs {need} buildings of that power" if need is not None else
                   "the buildings listed cannot hold it"),
                at=("sites", "count"), key="sites.count",
                hint=(f"Give count: {need}, or leave count out and the build takes as many buildings as it needs "
                      "(sites.power), or fewer GPUs." if need is not None else
                      "List more buildings in sites.power, or fewer GPUs."))
        return model
    n, rounds = 1, 0
    while True:
        rounds += 1
        job = scenario if n == 1 else _with_sites(scenario, n, limits[:n])
        model = build_model(job, src, catalog, sizing, power_rounds=rounds)
        power = site_power_of(model, catalog)
        need = buildings_needed(power.facility_kw, limits)
        if need is None:
            raise LimitError(f"the cluster needs {power.facility_kw / 1000:,.1f} MW of facility power, more than "
                            f"the {sum(limits) / 1000:,.1f} MW of the {len(limits)} buildings sites.power lists",
                            at=("sites", "power"), key="sites.power",
                            hint="List more buildings (or more power per building), or fewer GPUs.")
        fits = all(s.fits for s in power.sites)
        if need <= n and fits:
            return model
        # More sites bring more DCI gear, never less: the count only grows, so this ends.
        n = max(need, n + (0 if need > n else 1))
        if n > min(len(limits), MAX_SITES) or rounds >= POWER_ROUNDS:
            raise LimitError(f"the number of sites did not settle from sites.power ({n} buildings after {rounds} "
                            f"builds, {power.facility_kw / 1000:,.1f} MW)", at=("sites", "power"), key="sites.power",
                            hint="Give sites.count.")


def _with_sites(scenario: Scenario, n: int, limits: list[float]) -> Scenario:
    """The scenario on ``n`` sites, shared in proportion to their power (equal powers: equally)."""
    sites = scenario.sites
    assert sites is not None
    split = None if len(set(limits)) == 1 else list(limits)
    one = sites.model_copy(update={"count": n, "split": split})
    try:
        one.check_joined()   # two or more sites need their distance and DCI bandwidth: the validator's error, if not
    except RuleError as exc:
        raise BomError(f"sites.power needs {n} buildings here, and {exc}", at=("sites", *exc.at),
                       key="sites." + ".".join(map(str, exc.at)), hint=exc.hint) from None
    return scenario.model_copy(update={"sites": one})


# --- the design rules ------------------------------------------------------------------------

#: Broken rules a refused build names a violation of (the count covers them all; `bom check` lists them).
REFUSAL_SHOWN = 3


def check_design(model: Model, catalog: Catalog, plan: bool = False) -> Checks:
    """The design rules over a built model: the closed form (what every build runs), and with
    ``plan`` the rules over the streamed cable plan too (``bom check``)."""
    from bom.rules.run import check

    return check(model, catalog, plan=plan)


def plan_rules(model: Model, catalog: Catalog):  # type: ignore[no-untyped-def]
    """The plan's design rules, to be fed the rows by a command that streams the plan anyway
    (``bom cables``): ``.rows(chunk)`` as it writes, ``.finish()`` for the checks."""
    from bom.rules.run import PlanRules

    return PlanRules(model, catalog)


def report_of(model: Model, catalog: Catalog, checks: Checks | None = None, today: dt.date | None = None,
              src: Located | None = None) -> Report:
    """The model's report (:func:`bom.costing.report.make_report`) with its design rules' checks: the
    ones a build ran, else the closed form run here (every report carries them)."""
    if checks is None:
        checks = check_design(model, catalog)
    return make_report(model, catalog, checks, today, src)


def build_checked(scenario: Scenario, src: Located, catalog: Catalog, allow_violations: bool = False
                  ) -> tuple[Model, Checks]:
    """The model and its closed-form checks; a design that breaks an error-severity rule is refused
    (nothing gets written) unless ``allow_violations`` (a budget draft that lists them)."""
    model = build_scenario(scenario, src, catalog)
    checks = check_design(model, catalog)
    if not checks.ok and not allow_violations:
        raise refusal(checks, src)
    return model, checks


def refusal(checks: Checks, src: Located | None = None) -> BomError:
    """The error a refused build ends with: how many violations, the first few, what to run."""
    from bom.errors import RuleError

    # The first violation of each broken rule (a rule's violations are much alike; `bom check` has them all).
    shown = [r.kept[0] for r in checks.failed if r.severity == "error" and r.kept][:REFUSAL_SHOWN]
    first = "; ".join(f"{v.rule}: {v.where}: {v.message}" for v in shown)
    rules = sum(1 for r in checks.failed if r.severity == "error")
    return RuleError(f"the design breaks {rules} design rule{'s' * (rules != 1)} ({checks.errors:,} violation"
                     f"{'s' * (checks.errors != 1)}), so nothing was written. First: {first}",
                     where=src.file if src is not None else None,
                     hint="Run `bom check` on the scenario for every violation and what to change, or build with "
                          "--allow-violations for a draft that lists them.")


# --- the comparison: the same job built on each generation ------------------------------------

def _generation(job: Scenario, src: Located, catalog: Catalog) -> tuple[Report, dict[str, str]]:
    """The generation's report; a non-compute fabric this generation cannot build is left out, with why."""
    left_out: dict[str, str] = {}
    while True:
        try:
            return report_of(build_scenario(job, src, catalog), catalog), left_out
        except LimitError as exc:
            name = (exc.key or "").removeprefix("fabrics.").split(".")[0]
            if name not in SUPPORT or name not in job.fabrics:
                raise
            left_out[name] = exc.message
            job = job.model_copy(update={"fabrics": {k: f for k, f in job.fabrics.items() if k != name}})


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
        gens.append(Generation(p, report, "; ".join(notes) or None, tuple(left_out), switch))
    # Over the years: columns run by the platform's year (the catalog's), as named within a year.
    gens.sort(key=lambda g: g.platform.year)
    if not gens:
        reasons = "; ".join(f"{k}: {v}" for k, v in skipped.items())
        raise BomError(f"no platform can build this job ({reasons})", key="--platforms")
    return Comparison(scenario.name, gens, skipped)


# --- the build-out in phases -----------------------------------------------------------------

def phase_scenario(scenario: Scenario, index: int) -> Scenario:
    """The scenario at phase ``index``'s size: its GPUs or nodes, and its sites (the first ones)."""
    assert scenario.phases is not None
    ph = scenario.phases[index]
    update: dict[str, object] = {"gpus": ph.gpus, "nodes": ph.nodes, "phases": None}
    sites = scenario.sites
    if sites is not None and ph.sites is not None and ph.sites != sites.count:
        split = sites.split[:ph.sites] if sites.split else None
        update["sites"] = sites.model_copy(update={"count": ph.sites, "split": split}) if ph.sites > 1 else None
        cooling = scenario.layout.cooling
        if isinstance(cooling, list):
            update["layout"] = scenario.layout.model_copy(update={"cooling": cooling[:ph.sites]})
    return scenario.model_copy(update=update)


def phase_models(scenario: Scenario, src: Located, catalog: Catalog, final: Model) -> list[Model]:
    """Each phase's own design (the last is ``final``); a phase that rounds to the size of the one
    before it (whole systems) is refused."""
    assert scenario.phases is not None
    models = [build_scenario(phase_scenario(scenario, k), src, catalog) for k in range(len(scenario.phases) - 1)]
    models.append(final)
    for k in range(1, len(models)):
        if models[k].cluster.gpus <= models[k - 1].cluster.gpus:
            ph, before = scenario.phases[k], scenario.phases[k - 1]
            raise BomError(f"phase {ph.name} builds {models[k].cluster.gpus:,} GPUs, no more than phase {before.name} "
                           f"({models[k - 1].cluster.gpus:,}): {final.platform.id} is bought in whole "
                           f"{final.platform.system}s of {final.platform.gpus_per_system} GPUs",
                           where=src.where(("phases", k)), key=f"phases.{k}",
                           hint="Make each phase at least one system larger than the one before.")
    return models


def build_phases(scenario: Scenario, src: Located, catalog: Catalog, final: Model,
                 installation_usd: float, opex_per_year_usd: float):  # type: ignore[no-untyped-def]
    """The build-out (bom/costing/phases.py): each phase's order under both growth policies."""
    from bom.costing.phases import RowPhases, grow
    from bom.costing.tco import inputs

    assert scenario.phases is not None
    models = phase_models(scenario, src, catalog, final)
    rp = RowPhases(final, *phase_sites(models, final), catalog)
    v = {k: i.value for k, i in inputs(scenario.tco).items()}
    return grow(scenario.phases, models, catalog, rp, float(v["install_link"]), installation_usd,  # type: ignore[arg-type]
                opex_per_year_usd, float(v["years"]), float(v["hours"]), float(v["utilisation"]),  # type: ignore[arg-type]
                float(v["discount_rate"]))  # type: ignore[arg-type]


def with_phases(report: Report, scenario: Scenario, src: Located, catalog: Catalog) -> Report:
    """The report with the scenario's build-out in phases (unchanged when it gives none)."""
    if not scenario.phases:
        return report
    return replace(report, phases=build_phases(scenario, src, catalog, report.model, report.tco.installation_usd,
                                               report.tco.opex_per_year))


@dataclass(frozen=True)
class PhaseChecks:
    """The design rules at one phase: the in-service rows of the final plan (reserve) and the
    phase's own design, closed form and plan (rebuild)."""

    name: str
    reserve: Checks
    rebuild: Checks

    @property
    def ok(self) -> bool:
        return self.reserve.ok and self.rebuild.ok

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "reserve": self.reserve.to_json(), "rebuild": self.rebuild.to_json()}


def check_phases(scenario: Scenario, src: Located, catalog: Catalog, final: Model) -> list[PhaseChecks]:
    """``bom check`` at every phase, not only the last."""
    from bom.costing.phases import RowPhases

    assert scenario.phases is not None
    models = phase_models(scenario, src, catalog, final)
    rp = RowPhases(final, *phase_sites(models, final), catalog)
    out = []
    for k, (ph, m) in enumerate(zip(scenario.phases, models, strict=True)):
        rules = plan_rules(final, catalog)
        rules.rows(r for p, r in rp.plan() if p <= k)
        out.append(PhaseChecks(ph.name, rules.finish(), check_design(m, catalog, plan=True)))
    return out


def phase_sites(models: list[Model], final: Model) -> tuple[list[list[int]], list[int]]:
    """Per phase the nodes of each site in service (each phase's own design says how many), and per site
    the first phase that builds it."""
    gpn = final.platform.gpus_per_node
    site_nodes = [[s.gpus // gpn for s in m.site_sizes] + [0] * (final.cluster.site_count - m.cluster.site_count)
                  for m in models]
    site_phase = [next(k for k, m in enumerate(models) if m.cluster.site_count > s)
                  for s in range(final.cluster.site_count)]
    return site_nodes, site_phase


def plan_phase(scenario: Scenario, src: Located, catalog: Catalog, final: Model):  # type: ignore[no-untyped-def]
    """What names each row of the final plan's phase (bom cables with phases), each fabric by its growth."""
    from bom.costing.phases import PlanPhase, RowPhases, growth_of, row_keys

    assert scenario.phases is not None
    models = phase_models(scenario, src, catalog, final)
    rp = RowPhases(final, *phase_sites(models, final), catalog)
    pick = growth_of(dict(scenario.fabrics))
    rebuilt = any(pick(f) == "rebuild" for f in [*scenario.fabrics, "compute"])
    own = [row_keys(m, catalog) for m in models] if rebuilt else []
    return PlanPhase([p.name for p in scenario.phases], rp, pick, own)
