"""The design rules over a built model, and the report that carries them."""

from __future__ import annotations

import datetime as dt

from bom.catalog.rows import Catalog
from bom.costing.report import Report, make_report
from bom.errors import BomError, RuleError
from bom.inputs.scenario import Scenario
from bom.inputs.yamlio import Located
from bom.model.checks import Checks
from bom.model.model import Model
from bom.pipeline.build import build_scenario
from bom.rules.run import PlanRules, check

#: Broken rules a refused build names a violation of (the count covers them all; `bom check` lists them).
REFUSAL_SHOWN = 3


def check_design(model: Model, catalog: Catalog, plan: bool = False) -> Checks:
    """The design rules over a built model: the closed form (what every build runs), and with
    ``plan`` the rules over the streamed cable plan too (``bom check``)."""
    return check(model, catalog, plan=plan)


def plan_rules(model: Model, catalog: Catalog) -> PlanRules:
    """The plan's design rules, to be fed the rows by a command that streams the plan anyway
    (``bom cables``): ``.rows(chunk)`` as it writes, ``.finish()`` for the checks."""
    return PlanRules(model, catalog)


def report_of(model: Model, catalog: Catalog, checks: Checks | None = None, today: dt.date | None = None) -> Report:
    """The model's report (:func:`bom.costing.report.make_report`) with its design rules' checks: the
    ones a build ran, else the closed form run here (every report carries them)."""
    if checks is None:
        checks = check_design(model, catalog)
    return make_report(model, catalog, checks, today)


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
    # The first violation of each broken rule (a rule's violations are much alike; `bom check` has them all).
    shown = [r.kept[0] for r in checks.failed if r.severity == "error" and r.kept][:REFUSAL_SHOWN]
    first = "; ".join(f"{v.rule}: {v.where}: {v.message}" for v in shown)
    rules = sum(1 for r in checks.failed if r.severity == "error")
    return RuleError(f"the design breaks {rules} design rule{'s' * (rules != 1)} ({checks.errors:,} violation"
                     f"{'s' * (checks.errors != 1)}), so nothing was written. First: {first}",
                     where=src.file if src is not None else None,
                     hint="Run `bom check` on the scenario for every violation and what to change, or build with "
                          "--allow-violations for a draft that lists them.")
