"""Benchmark: ``bom build`` as a user runs it, whole process, 1k GPUs against a 1M-GPU campus.

Target (issue 20): the million-GPU ten-building build (workbook, report, Markdown, JSON, CSV; its
cable plan is past the size ``bom build`` writes, so the build says to run ``bom cables``) within
1.1x the 1k-GPU build, because the counting is closed-form per link group. Each run is a fresh
``python3 -m bom.cli build`` process; the figure is the best of ``--runs`` of its CPU time (user +
system of the child, which the other processes on a shared machine do not inflate) and of its wall
clock.
Run: python3 -m benchmarks.bench_process [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.cases import BASE, SIZES

#: Every fabric; the management switches uplink to each site's OOB spines (into the in-band leaves in
#: the middle of a 100,000-GPU hall their runs would be past every catalog part).
FABRICS = "fabrics: {compute: {switch: q3400}, storage: {}, inband: {}, oob: {uplinks: spine}}\n"
CASES = ("1k GPUs", "1M GPUs, 10 buildings")
ROOT = Path(__file__).resolve().parent.parent


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(label: str, runs: int, tmp: Path) -> tuple[float, float]:
    """(best CPU seconds, best wall seconds) of ``runs`` builds of one case."""
    path = tmp / f"{label.split()[0]}.yaml"
    path.write_text(BASE + FABRICS + SIZES[label])
    cpu, wall = float("inf"), float("inf")
    for i in range(runs):
        before, t0 = _child_cpu(), time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "bom.cli", "build", str(path), "-o", str(tmp / f"out{i}"),
                               "--quiet"], cwd=ROOT, capture_output=True, text=True, env=dict(os.environ))
        wall = min(wall, time.perf_counter() - t0)
        cpu = min(cpu, _child_cpu() - before)
        if proc.returncode:
            raise SystemExit(f"{label}: bom build exited {proc.returncode}: {proc.stderr.strip()}")
    return cpu, wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--curve", action="store_true",
                    help="every size from 1k to 1M GPUs (issue 46: flat, no step where the build writes its plan)")
    args = ap.parse_args()
    labels = [k for k in SIZES if k != "1 rack (72 GPUs)"] if args.curve else list(CASES)
    with tempfile.TemporaryDirectory() as d:
        got = {label: run(label, args.runs, Path(d)) for label in labels}
    for label, (cpu, wall) in got.items():
        print(f"{label:24} cpu {cpu:6.2f} s  wall {wall:6.2f} s  ({cpu / got[CASES[0]][0]:.2f}x the 1k build's CPU)")
    (c1, w1), (c2, w2) = got[CASES[0]], got[CASES[1]]
    print(f"ratio 1M/1k: cpu {c2 / c1:.2f}x, wall {w2 / w1:.2f}x (target <= 1.10x); load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
