"""The build-out in phases: each phase's design, order and checks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from bom.catalog.rows import Catalog
from bom.costing.categories import asset_class
from bom.costing.lines import Line
from bom.costing.order import SPARES
from bom.costing.phases import Charges, Phases, PlanPhase, RowPhases, grow, growth_of, row_keys
from bom.costing.report import Report
from bom.costing.tco import CLASSES, Tco, capital_recovery_factor, inputs
from bom.errors import BomError
from bom.inputs.scenario import Scenario
from bom.inputs.yamlio import Located
from bom.model.checks import Checks
from bom.model.model import Model
from bom.pipeline.build import build_scenario
from bom.pipeline.checks import check_design, plan_rules
from bom.roles import FabricRole


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


def build_phases(scenario: Scenario, src: Located, catalog: Catalog, final: Model, tco: Tco,
                 spares: Sequence[Line] = ()) -> Phases:
    """The build-out (bom/costing/phases.py): each phase's order under both growth policies, its cost per
    GPU-hour on the final build's basis (``tco``), the build's ``spares`` bought with the first phase."""
    assert scenario.phases is not None
    models = phase_models(scenario, src, catalog, final)
    rp = RowPhases(final, *phase_sites(models, final), catalog)
    v = {k: i.value for k, i in inputs(scenario.tco, scenario.layout.cooling).items()}
    racks_usd = float(v["install_rack"]) * final.racks   # the installation's share the racks take
    lives, rate = {c: float(v[f"life_{c}"]) for c in CLASSES}, float(v["discount_rate"])
    # The phases' capex leaves the spares apart; the cost per GPU-hour takes them, as the build's does.
    spares_per_year = sum(x.price_usd * capital_recovery_factor(rate, lives[asset_class(x.category)]) for x in spares)
    charges = Charges(lives, rate, 1.0 - racks_usd / tco.installation_usd if tco.installation_usd else 1.0,
                      tco.service_share, (tco.build_per_year if tco.facility_built else 0.0) + spares_per_year)
    return grow(scenario.phases, models, catalog, rp, float(v["install_link"]), tco.installation_usd,
                tco.opex_per_year, float(v["years"]), float(v["hours"]), float(v["utilisation"]),
                float(v["discount_rate"]), charges=charges)


def with_phases(report: Report, scenario: Scenario, src: Located, catalog: Catalog) -> Report:
    """The report with the scenario's build-out in phases (unchanged when it gives none)."""
    if not scenario.phases:
        return report
    spares = [x for x in report.lines if x.fabric == SPARES]
    phases = build_phases(scenario, src, catalog, report.model, report.tco, spares)
    # a phase dated before its parts can be in service is said with the rest (bom/costing/schedule.py)
    return replace(report, phases=phases, warnings=[*report.warnings, *(p.message for p in phases.late)])


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


def plan_phase(scenario: Scenario, src: Located, catalog: Catalog, final: Model) -> PlanPhase:
    """What names each row of the final plan's phase (bom cables with phases), each fabric by its growth."""
    assert scenario.phases is not None
    models = phase_models(scenario, src, catalog, final)
    rp = RowPhases(final, *phase_sites(models, final), catalog)
    pick = growth_of(scenario.fabric_specs)
    rebuilt = any(pick(f) == "rebuild" for f in [*scenario.fabrics, FabricRole.COMPUTE])
    own = [row_keys(m, catalog) for m in models] if rebuilt else []
    return PlanPhase([p.name for p in scenario.phases], rp, pick, own)
