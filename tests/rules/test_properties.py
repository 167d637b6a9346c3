"""Property: a random scenario (the hostile tests' strategy) either breaks no error-severity rule or
is refused at build (exit 2: bad input, or a design-rule error), and the rules never fail on it."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given

from bom.cableplan.rows import row_count
from bom.errors import BomError, RuleError
from bom.inputs.scenario import scenario_from_text
from bom.inputs.yamlio import load_text
from bom.pipeline import build_checked, check_design
from tests.hostile.test_properties import FAST, scenarios

pytestmark = pytest.mark.slow
#: Plans streamed through the plan rules too (larger ones only get the closed form, for time).
PLAN_ROWS = 30_000


@FAST
@given(sc=scenarios())
def test_random_scenarios_pass_the_error_rules_or_are_refused(sc, catalog):
    text = yaml.safe_dump(sc)
    try:
        model, checks = build_checked(scenario_from_text(text, "p.yaml"), load_text(text, "p.yaml"), catalog)
    except RuleError as exc:      # refused: `bom build` exits 2 and writes nothing
        assert "design rule" in exc.message
        return
    except BomError:              # bad input or a design past what the parts build: exit 2
        return
    assert checks.ok and not checks.plan
    if row_count(model) <= PLAN_ROWS:
        full = check_design(model, catalog, plan=True)
        assert full.plan and {r.id for r in checks.results} <= {r.id for r in full.results}
