"""`bom faults`: the scenario built, priced and read under failures (bom/faults)."""

from __future__ import annotations

from bom.catalog.rows import Catalog
from bom.faults import Faults, analyse
from bom.inputs.scenario import Scenario
from bom.inputs.validation import located
from bom.inputs.yamlio import Located
from bom.pipeline.checks import build_checked, report_of


def faults_of(scenario: Scenario, src: Located, catalog: Catalog, allow_violations: bool = False) -> Faults:
    """The scenario's build (refused as `bom build` refuses it) and its failure domains, interruptions, goodput
    and redundancy options."""
    model, checks = build_checked(scenario, src, catalog, allow_violations)
    with located(src):
        return analyse(report_of(model, catalog, checks))
