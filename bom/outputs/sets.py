"""The build's output set (:class:`bom.outputs.publish.Output`), ready for the one publisher.

``bom build``: the workbook, report, JSON, Markdown and CSV from the writer registry, with the
cable plan when it is small (:func:`bom.outputs.planfiles.for_build`), rendered in memory. The other
commands' sets are in :mod:`bom.outputs.commandsets` (so a build loads none of their writers); ``bom
cables`` (:func:`bom.outputs.planfiles.plan_output`) and ``bom netbox export``
(:func:`bom.netbox.export.export_output`) stream their files into the stage.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from bom.outputs.planfiles import PLAN_SUFFIXES, Phased, for_build
from bom.outputs.publish import Output
from bom.outputs.writers.registry import writers

if TYPE_CHECKING:
    from bom.catalog.rows import Catalog
    from bom.costing.report import Report


def render(report: Report, progress: Callable[[str], None] = lambda _: None) -> dict[str, bytes]:
    """The build's files from the writer registry, named after the scenario."""
    out = {}
    for suffix, write in writers().items():
        progress(f"writing {suffix[1:]}")
        out[report.name + suffix] = write(report)
    return out


def build_output(report: Report, catalog: Catalog | None = None,
                 progress: Callable[[str], None] = lambda _: None) -> tuple[Output, str]:
    """The build's set and, when the plan is left out, what to run for it; an earlier build's plan
    files that this one does not write retire with the swap."""
    files = render(report, progress)
    progress("writing the cable plan")
    phase = Phased(report.phases.plan_phase) if report.phases is not None else None
    plan_files, note = for_build(report.model, report.name, catalog, phase)
    files.update(plan_files)
    return Output(files, retire=tuple(report.name + s for s in PLAN_SUFFIXES), what="the build"), note
