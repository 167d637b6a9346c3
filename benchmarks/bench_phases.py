"""Benchmark: a build's phases in one process, the least CPU of N calls each (what grows with size).

The phases: the model (``build_model``), the report (``report_of``), each output writer, and the plan
files the build writes (``planfiles.for_build``). Each size is the bench's scenario (every fabric, OOB
uplinks to the spines); ``--file`` measures a scenario of your own instead.
Run: python3 -m benchmarks.bench_phases [--runs 5] [--size "1k GPUs"]... [--file S.yaml]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.bench_process import FABRICS
from benchmarks.cases import BASE, SIZES


def phases(text: str, runs: int) -> dict[str, float]:
    """The least CPU seconds of each phase over ``runs`` builds of the scenario ``text``."""
    from bom.catalog.load import load_catalog
    from bom.inputs.scenario import scenario_from_text
    from bom.inputs.yamlio import load_text
    from bom.outputs.planfiles import Phased, for_build
    from bom.outputs.writers.registry import writers
    from bom.pipeline import report_of
    from bom.pipeline.model import build_model

    sc, src, cat = scenario_from_text(text), load_text(text, "bench.yaml"), load_catalog()
    best: dict[str, float] = {}

    def timed(name: str, f: Callable[..., Any], *args: Any) -> Any:
        t0 = time.process_time()
        out = f(*args)
        best[name] = min(best.get(name, float("inf")), time.process_time() - t0)
        return out

    for _ in range(runs):
        model = timed("model", build_model, sc, src, cat, None)
        rep = timed("report", report_of, model, cat)
        for suffix, write in writers().items():
            timed(suffix, write, rep)
        ph = Phased(rep.phases.plan_phase) if rep.phases is not None else None
        timed("plan", for_build, rep.model, rep.name, cat, ph)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--size", action="append", choices=sorted(SIZES))
    ap.add_argument("--file", type=Path)
    args = ap.parse_args()
    cases = ({args.file.name: args.file.read_text()} if args.file else
             {s: BASE + FABRICS + SIZES[s] for s in args.size or ("1k GPUs", "1M GPUs, 10 buildings")})
    for label, text in cases.items():
        best = phases(text, args.runs)
        print(f"{label}: least CPU of {args.runs}, ms")
        for name, secs in best.items():
            print(f"  {name:10} {secs * 1000:8.1f}")
        print(f"  {'total':10} {sum(best.values()) * 1000:8.1f}")


if __name__ == "__main__":
    main()
