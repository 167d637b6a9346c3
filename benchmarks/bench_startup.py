"""Benchmark: ``bom --help`` against ``python -c pass``, whole processes, CPU seconds.

Target (issue 46): ``bom --help`` within 2x a bare interpreter's start (``bom/launch.py`` answers it
without loading the commands or typer). Each is run ``--runs`` times alternately; the figure is the
median CPU time (user + system of the child) of each.
Run: python3 -m benchmarks.bench_startup [--runs 10]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
from pathlib import Path


def _cpu(cmd: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    here = Path(sys.executable).parent / "bom"
    bom = str(here) if here.exists() else shutil.which("bom")
    if bom is None:
        raise SystemExit("no bom on the PATH: pip install -e . first")
    helps, bare = [], []
    for _ in range(args.runs):
        helps.append(_cpu([bom, "--help"]))
        bare.append(_cpu([sys.executable, "-c", "pass"]))
    h, p = statistics.median(helps), statistics.median(bare)
    print(f"bom --help {h:.4f} s CPU, python -c pass {p:.4f} s (medians of {args.runs}, alternated): "
          f"{h / p:.2f}x (goal, issue 46: 2x); load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
