"""``bom cables --phase NAME --moves``: a phase's move list, the plans of the designs before and after it
merged (bom/diff/cables.py)."""

from __future__ import annotations

from collections.abc import Iterator

from bom.cableplan.rows import COL, rows
from bom.catalog.rows import Catalog
from bom.costing.phases import growth_of
from bom.diff import cables
from bom.errors import BomError
from bom.inputs.scenario import Scenario
from bom.inputs.yamlio import Located
from bom.model.model import Model
from bom.model.records import PlanRow
from bom.pipeline.diff import logical
from bom.pipeline.phases import phase_models

FABRIC = COL["fabric"]


def phase_moves(scenario: Scenario, src: Located, catalog: Catalog, final: Model, phase: str,
                sink: cables.Sink) -> cables.CableChanges:
    """The move list of phase ``phase`` under ``growth: rebuild``: the plan of the phase before's design
    against the plan of its own, fabric by fabric as each grows (a fabric grown by reserve moves no
    installed cable: its rows are the phase's own, bom cables --phase)."""
    assert scenario.phases is not None
    names = [p.name for p in scenario.phases]
    k = names.index(phase)
    if k == 0:
        later = names[1] if len(names) > 1 else "NAME"
        raise BomError(f"phase {phase} is the first: there is no design before it to move cables from",
                       key="--phase", hint="Give a later phase: bom cables SCENARIO --moves --phase " + later
                       + "; bom cables SCENARIO --phase " + phase + " lists the rows this phase installs.")
    models = phase_models(scenario, src, catalog, final)
    pick = growth_of(scenario.fabric_specs)

    def rebuilt(m: Model) -> Iterator[PlanRow]:
        return (r for r in rows(m, catalog=catalog) if pick(str(r[FABRIC])) == "rebuild")

    return cables.merge(rebuilt(models[k - 1]), rebuilt(models[k]), sink, logical(models[k - 1], models[k]))
