"""Benchmark: ``bom build`` as a user runs it, whole process, 1k GPUs against a 1M-GPU campus.

Target (issue 20): the million-GPU ten-building build (workbook, report, Markdown, JSON, CSV; its
cable plan is past the size ``bom build`` writes, so the build says to run ``bom cables``) within
1.1x the 1k-GPU build, because the counting is closed-form per link group. Each run is a fresh
``python3 -m bom.cli build`` process; the figure is the best of ``--runs`` of its CPU time (user +
system of the child, which the other processes on a shared machine do not inflate) and of its wall
clock.
Run: python3 -m benchmarks.bench_process [--runs 5] [--curve] [--against OTHER_CHECKOUT]

``--against DIR`` runs each case in this checkout and in ``DIR`` (another clone or worktree: main)
alternately, ``--runs`` pairs, and prints the median CPU of each (a shared machine's load moves both alike).

Each checkout's modules are compiled first (an untimed build writes their bytecode into a throw-away
``PYTHONPYCACHEPREFIX``), as an installed package's are after its first run, whatever
``PYTHONDONTWRITEBYTECODE`` says; ``--compile`` times builds that compile every module they import instead.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
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


def _case(label: str, tmp: Path) -> Path:
    path = tmp / f"{label.split()[0]}.yaml"
    path.write_text(BASE + FABRICS + SIZES[label])
    return path


#: Each checkout's bytecode cache (made by an untimed first build); ``None``: compile in every build.
_CACHES: dict[Path, Path] | None = {}


def _env(root: Path, path: Path, out: Path) -> dict[str, str]:
    """The build's environment: the checkout's bytecode cache, written by an untimed build the first time."""
    env = dict(os.environ)
    if _CACHES is None:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
        return env
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cache = _CACHES.get(root)
    if cache is None:
        cache = _CACHES[root] = Path(tempfile.mkdtemp(prefix="bench-pycache-"))
        env["PYTHONPYCACHEPREFIX"] = str(cache)
        subprocess.run([sys.executable, "-m", "bom.cli", "build", str(path), "-o", str(out), "--quiet"],
                       cwd=root, capture_output=True, env=env)
    env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


def build_once(path: Path, out: Path, root: Path = ROOT) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one ``bom build`` process of the checkout at ``root``."""
    env = _env(root, path, out)
    before, t0 = _child_cpu(), time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "bom.cli", "build", str(path), "-o", str(out), "--quiet"],
                          cwd=root, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    if proc.returncode:
        raise SystemExit(f"{path.name} ({root}): bom build exited {proc.returncode}: {proc.stderr.strip()}")
    return _child_cpu() - before, wall


def run(label: str, runs: int, tmp: Path) -> tuple[float, float]:
    """(best CPU seconds, best wall seconds) of ``runs`` builds of one case."""
    path = _case(label, tmp)
    got = [build_once(path, tmp / f"out{i}") for i in range(runs)]
    return min(c for c, _ in got), min(w for _, w in got)


def against(labels: list[str], runs: int, other: Path, tmp: Path) -> None:
    """Each case built in this checkout and in ``other`` alternately; the median CPU of each."""
    here: dict[str, list[float]] = {label: [] for label in labels}
    there: dict[str, list[float]] = {label: [] for label in labels}
    for i in range(runs):
        for label in labels:
            path = _case(label, tmp)
            first, second = ((ROOT, here), (other, there)) if i % 2 == 0 else ((other, there), (ROOT, here))
            for root, into in (first, second):
                into[label].append(build_once(path, tmp / "out", root)[0])
    base_here, base_there = statistics.median(here[labels[0]]), statistics.median(there[labels[0]])
    for label in labels:
        a, b = statistics.median(here[label]), statistics.median(there[label])
        print(f"{label:24} this {a:6.2f} s ({a / base_here:.2f}x)   other {b:6.2f} s ({b / base_there:.2f}x)   "
              f"this/other {a / b:.2f}")
    print(f"medians of {runs} CPU s, alternated; this: {ROOT}, other: {other}; load {os.getloadavg()[0]:.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--curve", action="store_true",
                    help="every size from 1k to 1M GPUs (issue 46: flat, no step where the build writes its plan)")
    ap.add_argument("--against", type=Path, metavar="DIR", help="another checkout to alternate with (main)")
    ap.add_argument("--compile", action="store_true", help="time the modules' compiling too (no bytecode cache)")
    args = ap.parse_args()
    if args.compile:
        global _CACHES
        _CACHES = None
    labels = [k for k in SIZES if k != "1 rack (72 GPUs)"] if args.curve else list(CASES)
    if args.against is not None:
        with tempfile.TemporaryDirectory() as d:
            against(labels, args.runs, args.against.resolve(), Path(d))
        return
    with tempfile.TemporaryDirectory() as d:
        got = {label: run(label, args.runs, Path(d)) for label in labels}
    for label, (cpu, wall) in got.items():
        print(f"{label:24} cpu {cpu:6.2f} s  wall {wall:6.2f} s  ({cpu / got[CASES[0]][0]:.2f}x the 1k build's CPU)")
    (c1, w1), (c2, w2) = got[CASES[0]], got[CASES[1]]
    print(f"ratio 1M/1k: cpu {c2 / c1:.2f}x, wall {w2 / w1:.2f}x (target <= 1.10x); load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    try:
        main()
    finally:
        for cache in (_CACHES or {}).values():
            shutil.rmtree(cache, ignore_errors=True)
