"""The output sets of ``bom compare``, ``bom diff``, ``bom sweep`` and ``bom faults``
(:class:`bom.outputs.publish.Output`), rendered in memory for the one publisher. Apart from
:mod:`bom.outputs.sets` (the build's), so a build loads none of these writers.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from bom.diff import workorder
from bom.diff.cables import Move
from bom.outputs.publish import Output
from bom.outputs.writers.common import csv_text
from bom.outputs.writers.compare_text import write_compare_html, write_compare_json
from bom.outputs.writers.compare_xlsx import write_compare_xlsx
from bom.outputs.writers.diff import write_diff_markdown, write_diff_xlsx
from bom.outputs.writers.faults import write_faults_markdown, write_faults_xlsx
from bom.outputs.writers.sweep import write_sweep_csv, write_sweep_html, write_sweep_json, write_sweep_xlsx

if TYPE_CHECKING:
    from bom.costing.compare import Comparison
    from bom.diff.result import Diff
    from bom.faults.result import FaultsJson
    from bom.model.sweep import SweepJson


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
