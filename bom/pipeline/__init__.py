"""The orchestrator: ties the stages together for the commands; no domain logic of its own.

Its public surface, what the CLI, ``bom init``'s starter and the tests call:

- building: :func:`catalog_for`, :func:`build_scenario`, :func:`site_power_of`
  (:mod:`bom.pipeline.build`), :func:`~bom.pipeline.model.build_model` (:mod:`bom.pipeline.model`);
- sizing: :class:`SizeOverrides`, :func:`size_scenario`, :func:`size_seed_jobs`, :func:`size_levels`
  (:mod:`bom.pipeline.sizing`);
- the design rules and the report: :func:`check_design`, :func:`plan_rules`, :func:`build_checked`,
  :func:`refusal`, :func:`report_of` (:mod:`bom.pipeline.checks`);
- the comparison, :func:`~bom.pipeline.compare.compare` (:mod:`bom.pipeline.compare`), and the failure domains
  and goodput, :func:`~bom.pipeline.faults.faults_of` (:mod:`bom.pipeline.faults`), imported from their modules
  (only bom compare, bom faults and bom sweep use them: a build loads neither);
- the phases: :func:`with_phases`, :func:`check_phases`, :func:`plan_phase`, :func:`phase_models`,
  :func:`phase_sites` (:mod:`bom.pipeline.phases`);
- the diff of two designs: :func:`~bom.pipeline.diff.load_side`, :func:`~bom.pipeline.diff.diff_sides`
  (:mod:`bom.pipeline.diff`), and a phase's move list, :func:`~bom.pipeline.moves.phase_moves`
  (:mod:`bom.pipeline.moves`), imported from their modules (only bom diff and bom cables --moves use them);
- an InfiniBand fabric as ibsim's net file and its HCA map: :func:`~bom.pipeline.ibsim.ibsim_files`
  (:mod:`bom.pipeline.ibsim`), imported from its module (only bom topology --format ibsim uses it);
- the alternates that pull the date in: :func:`with_alternates`, :func:`prefer_available`
  (:mod:`bom.pipeline.alternates`).
"""

from __future__ import annotations

from bom.pipeline.alternates import prefer_available, with_alternates
from bom.pipeline.build import POWER_ROUNDS, build_scenario, catalog_for, site_power_of
from bom.pipeline.checks import REFUSAL_SHOWN, build_checked, check_design, plan_rules, refusal, report_of
from bom.pipeline.model import build_model
from bom.pipeline.phases import (
    PhaseChecks,
    build_phases,
    check_phases,
    phase_models,
    phase_scenario,
    phase_sites,
    plan_phase,
    with_phases,
)
from bom.pipeline.sizing import (
    SEED_POWER_PLATFORM,
    SizeOverrides,
    accelerator,
    size_levels,
    size_scenario,
    size_seed_jobs,
)

__all__ = [
    "POWER_ROUNDS", "REFUSAL_SHOWN", "SEED_POWER_PLATFORM", "PhaseChecks", "SizeOverrides", "accelerator",
    "build_checked", "build_model", "build_phases", "build_scenario", "catalog_for", "check_design", "check_phases",
    "phase_models", "phase_scenario", "phase_sites", "plan_phase", "plan_rules", "refusal", "report_of",
    "site_power_of", "size_levels", "size_scenario", "size_seed_jobs", "with_phases", "prefer_available",
    "with_alternates",
]
