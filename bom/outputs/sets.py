"""The build's output set (:class:`bom.outputs.publish.Output`), ready for the one publisher.

``bom build``: the workbook, report, JSON, Markdown and CSV from the writer registry, with the
cable plan when it is small (:func:`bom.outputs.planfiles.for_build`), rendered in memory, or streamed into
the stage as ``bom cables`` writes it when asked for past that size (``--plan``). The other
commands' sets are in :mod:`bom.outputs.commandsets` (so a build loads none of their writers); ``bom
cables`` (:func:`bom.outputs.planfiles.plan_output`) and ``bom netbox export``
(:func:`bom.netbox.export.export_output`) stream their files into the stage.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, TYPE_CHECKING

from bom.errors import LimitError
from bom.outputs.planfiles import PLAN_SUFFIXES, Phased, build_rows, for_build, plan_output, streams_in_build
from bom.outputs.publish import Output, Writer
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
                 progress: Callable[[str], None] = lambda _: None,
                 rows_done: Callable[[int], None] | None = None) -> tuple[Output, str]:
    """The build's set and, when the plan is left out, what to run for it; an earlier build's plan
    files that this one does not write retire with the swap. ``rows_done`` is told the rows of a plan
    streamed on request (``report.cable_plan``) as they are written."""
    files = render(report, progress)
    retire = tuple(report.name + s for s in PLAN_SUFFIXES)
    if report.cable_plan == "never":
        return Output(files, retire=retire, what="the build"), ""
    progress("writing the cable plan")
    phase = Phased(report.phases.plan_phase) if report.phases is not None else None
    if streams_in_build(build_rows(report.model), report.cable_plan):
        streamed, _ = plan_output(report.model, report.name, catalog=catalog, progress=rows_done, phase=phase)
        streams = [(names, _asked(write)) for names, write in streamed.streams]
        return Output(files, streams=streams, retire=retire, what="the build"), ""
    plan_files, note = for_build(report.model, report.name, catalog, phase)
    files.update(plan_files)
    return Output(files, retire=retire, what="the build"), note


def _asked(write: Writer) -> Writer:
    """A plan streamed on request that cannot be listed stops the build (nothing is written, as the plan
    is half-made in the stage); say so, and how to get the rest, where the build would leave it out."""
    def asked(open_: Callable[[str], IO[bytes]]) -> None:
        try:
            write(open_)
        except LimitError as exc:
            hint = " ".join(filter(None, (exc.hint, "Without --plan, bom build writes the outputs and leaves the "
                                          "plan out.")))
            raise LimitError(f"the cable plan asked for with --plan cannot be listed: {exc.message}", key=exc.key,
                             hint=hint, at=exc.at) from None
    return asked
