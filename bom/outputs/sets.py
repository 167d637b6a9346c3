"""Each command's output set (:class:`bom.outputs.publish.Output`), ready for the one publisher.

``bom build``: the workbook, report, JSON, Markdown and CSV from the writer registry, with the
cable plan when it is small (:func:`bom.outputs.planfiles.for_build`), rendered in memory.
``bom compare``: the three ``<name>-compare.*`` files, rendered in memory. ``bom cables``
(:func:`bom.outputs.planfiles.plan_output`) and ``bom netbox export``
(:func:`bom.netbox.export.export_output`) stream their files into the stage.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from bom.diff import workorder
from bom.diff.cables import Move
from bom.outputs.planfiles import PLAN_SUFFIXES, Phased, for_build
from bom.outputs.publish import Output
from bom.outputs.writers.common import csv_text
from bom.outputs.writers.compare_text import write_compare_html, write_compare_json
from bom.outputs.writers.compare_xlsx import write_compare_xlsx
from bom.outputs.writers.diff import write_diff_markdown, write_diff_xlsx
from bom.outputs.writers.faults import write_faults_markdown, write_faults_xlsx
from bom.outputs.writers.registry import writers
from bom.outputs.writers.sweep import write_sweep_csv, write_sweep_html, write_sweep_json, write_sweep_xlsx

if TYPE_CHECKING:
    from bom.catalog.rows import Catalog
    from bom.costing.compare import Comparison
    from bom.costing.report import Report
    from bom.diff.result import Diff
    from bom.faults.result import FaultsJson
    from bom.model.sweep import SweepJson


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


def render_comparison(result: Comparison) -> dict[str, bytes]:
    """The comparison workbook, report and JSON, named after the scenario."""
    return {f"{result.name}-compare.xlsx": write_compare_xlsx(result),
            f"{result.name}-compare.html": write_compare_html(result),
            f"{result.name}-compare.json": write_compare_json(result)}


def compare_output(result: Comparison) -> Output:
    return Output(render_comparison(result), what="the comparison")


def diff_output(d: Diff, old: Mapping[str, object], new: Mapping[str, object],
                moves: Sequence[Move] = ()) -> Output:
    """``bom diff -o``: the diff's JSON, Markdown and workbook (Summary, Order delta, Work order), and the
    work order's CSVs (the cables, the parts to order and return), named after the two builds."""
    a, b = str(old.get("name", "old")), str(new.get("name", "new"))
    name = f"{a}-diff" if a == b else f"{a}-vs-{b}-diff"
    work = list(workorder.rows(moves))
    return Output({f"{name}.json": (json.dumps(d.to_json(), indent=2) + "\n").encode(),
                   f"{name}.md": write_diff_markdown(d),
                   f"{name}.xlsx": write_diff_xlsx(d, work),
                   f"{name}-workorder.csv": csv_text(workorder.HEADER, work).encode(),
                   f"{name}-workorder-parts.csv": csv_text(workorder.PARTS_HEADER, workorder.parts(moves)).encode()},
                  what="the diff")


def sweep_output(doc: SweepJson, scenarios: Mapping[str, str]) -> Output:
    """``bom sweep``: every design (CSV, JSON), the workbook (Sweep, Points, Frontier), the report with the
    frontier plotted, and the frontier's scenario files (``scenarios``: point id -> YAML)."""
    name = f"{doc['sweep']}-sweep"
    files = {f"{name}.csv": write_sweep_csv(doc), f"{name}.json": write_sweep_json(doc),
             f"{name}.xlsx": write_sweep_xlsx(doc), f"{name}.html": write_sweep_html(doc)}
    files.update({f"{doc['sweep']}-{pid}.yaml": text.encode() for pid, text in scenarios.items()})
    # A design that left the frontier since the last run: its scenario file leaves with the swap.
    retire = tuple(f"{doc['sweep']}-{p['id']}.yaml" for p in doc["points"] if p["id"] not in scenarios)
    return Output(files, retire=retire, what="the sweep")


def faults_output(j: FaultsJson) -> Output:
    """``bom faults -o``: the faults JSON, Markdown (the report section) and workbook (Faults, Interruptions,
    Redundancy), named ``<name>-faults.*``."""
    name = f"{j['name']}-faults"
    return Output({f"{name}.json": (json.dumps(j, indent=2) + "\n").encode(),
                   f"{name}.md": write_faults_markdown(j),
                   f"{name}.xlsx": write_faults_xlsx(j)}, what="the failure domains")
