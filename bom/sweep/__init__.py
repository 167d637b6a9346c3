"""Design-space sweeps (``bom sweep``): a base scenario, axes of scenario keys, constraints and objectives;
every design built through the pipeline, the results streamed to a file a stopped sweep resumes from, and the
Pareto frontier over the objectives.

Its public surface: :func:`prepare` (the sweep file read, its points made), :func:`run` (the points not yet
in the results file built, here, on local processes or on Dask) and :func:`result` (the sweep's document);
:mod:`bom.sweep.grid` for a point's scenario file.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bom import __version__
from bom.inputs.scenario import parse_scenario
from bom.inputs.sweep import Sweep, load_sweep
from bom.inputs.validation import located
from bom.inputs.yamlio import Located
from bom.model.sweep import ObjectiveJson, Point, PointJson, SweepJson, sweep_json
from bom.pipeline import catalog_for
from bom.sweep.evaluate import Context
from bom.sweep.execute import run_dask, run_here, run_local, stoppable
from bom.sweep.grid import base_of, points
from bom.sweep.journal import Journal

__all__ = ["Prepared", "Run", "prepare", "result", "run"]


@dataclass(frozen=True)
class Prepared:
    """A sweep read and expanded: its file, base scenario and points, and the fingerprint of all three."""

    sweep: Sweep
    src: Located
    base: Located
    points: list[Point]
    fingerprint: str

    @property
    def base_name(self) -> str:
        return "inline" if isinstance(self.sweep.base, dict) else (self.sweep.base or "the built-in default")

    def results_file(self, out: Path) -> Path:
        return out / f"{self.sweep.name}-sweep-results.jsonl"


def prepare(path: Path) -> Prepared:
    """The sweep file read and checked (every axis key and value), and its points made."""
    sweep, src = load_sweep(path)
    base = base_of(sweep, src)
    with located(base):
        catalog = catalog_for(parse_scenario(base), base)
    pts = points(sweep, src, base, catalog)
    blob = json.dumps({"sweep": src.data, "base": base.data, "version": __version__}, sort_keys=True, default=str)
    return Prepared(sweep, src, base, pts, hashlib.sha256(blob.encode()).hexdigest())


@dataclass
class Run:
    """What a run of the sweep did: the designs built now, those read back, and whether it was stopped."""

    computed: int
    resumed: int
    stopped: bool
    journal: Journal


def run(prep: Prepared, out: Path, workers: int = 1, dask: Any = None,
        progress: Callable[[int], None] | None = None, today: dt.date | None = None) -> Run:
    """Build the points the results file does not hold yet; ``dask`` a scheduler address (or a cluster)."""
    journal = Journal.open(prep.results_file(out), prep.fingerprint, len(prep.points), today or dt.date.today())
    resumed = len(journal.done)
    if progress is not None and resumed:
        progress(resumed)
    todo = [p for p in prep.points if p.index not in journal.done]
    ctx = Context(prep.base.file, prep.base.lines, journal.date, prep.sweep.constraints)
    computed = 0

    def record(row: PointJson) -> None:
        nonlocal computed
        journal.append(row)
        computed += 1
        if progress is not None:
            progress(1)

    try:
        with stoppable() as stop:
            if dask is not None:
                run_dask(ctx, todo, dask, record, stop, prep.fingerprint[:12])
            elif workers <= 1 or len(todo) <= 1:
                run_here(ctx, todo, record, stop)
            else:
                run_local(ctx, todo, min(workers, len(todo)), record, stop)
    finally:
        journal.close()
    return Run(computed, resumed, len(journal.done) < len(prep.points), journal)


def result(prep: Prepared, done: dict[int, PointJson], date: dt.date) -> SweepJson:
    """The sweep's document from its finished designs."""
    objectives: list[ObjectiveJson] = [{"figure": o.figure, "goal": o.direction} for o in prep.sweep.ranked()]
    constraints = {k: v for k, v in (prep.src.data.get("constraints") or {}).items()}
    return sweep_json(prep.sweep.name, prep.src.file, prep.base_name, date.isoformat(), prep.sweep.axis_values(),
                      objectives, constraints, list(done.values()))
