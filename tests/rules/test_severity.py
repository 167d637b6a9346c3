"""Which rules are warnings, and that no error-severity rule is broken by the default, a reference
case or a golden scenario (so `bom build` writes every one of them).

The warnings are the rules those designs broke when the rules were written (issue 21): the model's
fixes (routes across rows, DCI routers placed and on Ethernet, the coherent line's loss, storage on
storage fabrics) are landing separately. When one lands and its rule shows zero violations on all
of them, change WARNING to ERROR in the rule's ``Rule(...)`` and take it out of this list.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bom.inputs.scenario import load_scenario
from bom.pipeline import build_scenario, catalog_for
from bom.rules.core import WARNING
from bom.rules.registry import RULES
from bom.rules.run import check
from tests.paths import ROOT

WARNINGS = {"ends.protocol", "ends.rate", "ends.cage", "lengths.coherent", "lengths.route", "placement.devices",
            "placement.unplaced", "complete.storage"}
#: The default, the reference cases and the golden scenarios that build (campus-1m is refused at build).
CASES = [None, *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "reference").glob("*.yaml")),
         *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "golden" / "scenarios").glob("*.yaml")
                 if p.name != "campus-1m.yaml")]
#: Cases whose cable plan the fast tests stream (the others have 40,000 rows to 3 million).
SMALL_PLANS = {None, "tests/reference/superpod_h100_4su.yaml", "tests/reference/superpod_h100_4su_full.yaml",
               "tests/golden/scenarios/pair.yaml", "tests/golden/scenarios/amd.yaml",
               "tests/golden/scenarios/tor-ethernet.yaml", "tests/golden/scenarios/workload.yaml"}


def test_the_warnings_are_the_rules_broken_today():
    assert {r.id for r in RULES if r.severity == WARNING} == WARNINGS


def _build(path: str | None):   # type: ignore[no-untyped-def]
    scenario, src = load_scenario(ROOT / path if path else None)
    catalog = catalog_for(scenario, src)
    return build_scenario(scenario, src, catalog), catalog


@pytest.mark.parametrize("path", CASES, ids=lambda p: Path(p).stem if p else "default")
def test_no_error_rule_is_broken_by_a_known_design(path):
    model, catalog = _build(path)
    checks = check(model, catalog, plan=path in SMALL_PLANS)
    assert [(r.id, r.kept[0].message) for r in checks.failed if r.severity != WARNING] == []


@pytest.mark.slow
@pytest.mark.parametrize("path", sorted(set(CASES) - SMALL_PLANS - {"tests/golden/scenarios/campus-1m-ring.yaml"}))
def test_no_error_rule_is_broken_on_a_known_design_s_plan(path):
    model, catalog = _build(path)
    checks = check(model, catalog, plan=True)
    assert [(r.id, r.kept[0].message) for r in checks.failed if r.severity != WARNING] == []
