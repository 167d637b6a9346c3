"""`bom faults`: the scenario built, priced and read under failures (bom/faults)."""

from __future__ import annotations

from bom.catalog.rows import Catalog
from bom.errors import BomError
from bom.faults import Faults, analyse
from bom.inputs.scenario import FabricSpec, Scenario
from bom.inputs.validation import located
from bom.inputs.yamlio import Located
from bom.pipeline.checks import build_checked, report_of
from bom.roles import FabricRole


def faults_of(scenario: Scenario, src: Located, catalog: Catalog, allow_violations: bool = False) -> Faults:
    """The scenario's build (refused as `bom build` refuses it) and its failure domains, interruptions, goodput
    and redundancy options, dual-plane NICs priced by building the compute fabric on two planes."""
    model, checks = build_checked(scenario, src, catalog, allow_violations)
    with located(src):
        report = report_of(model, catalog, checks)
        compute = model.fabrics.get(FabricRole.COMPUTE)
        planes = _two_planes(scenario, src, catalog, report.tco.capex_usd) if compute and compute.planes == 1 else None
        return analyse(report, planes)


def _two_planes(scenario: Scenario, src: Located, catalog: Catalog, capex_usd: float) -> tuple[float | None, str]:
    """The capex a two-plane compute fabric adds (None: it cannot be built, and why)."""
    spec = scenario.fabric_specs.get(FabricRole.COMPUTE) or FabricSpec()
    p = catalog.platform(scenario.platform) if scenario.platform else None
    # A NIC with two ports a GPU puts one on each plane (Alibaba HPN's dual-plane); else each port's rate is split.
    by = "port" if p is not None and p.scale_out.ports >= 2 * p.gpus_per_node else "rate"
    fabrics = {**scenario.fabrics, FabricRole.COMPUTE.value: spec.model_copy(update={"planes": 2, "planes_by": by})}
    try:
        model, checks = build_checked(scenario.model_copy(update={"fabrics": fabrics}), src, catalog)
    except BomError as exc:
        return None, f"not buildable: {exc.message}"
    if not checks.ok:
        return None, f"not buildable: {checks.summary()}"
    added = report_of(model, catalog, checks).tco.capex_usd - capex_usd
    return added, f"capex {added:+,.0f} USD"
