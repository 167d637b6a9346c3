"""Benchmark: the build curve in instructions, the deterministic count CPU time is too noisy to settle.

Targets (issue 46): the 1M-GPU ten-building build within 1.1x the 1k-GPU build, and no step where the build
writes its cable plan unasked: the largest build that writes it within 1.1x the smallest that does not (past
``planfiles.BUILD_MAX_ROWS``; the two sizes are found in the checkout measured, a rack of 72 GPUs apart: 1,584 and
1,656 GPUs at 6,144 rows; 5,040 and 5,472 at the earlier 20,000). Each figure is one fresh ``bom build``
process under valgrind's cachegrind (no cache simulation) with ``PYTHONHASHSEED=0``; repeats agree within
0.1 %. It takes about 15x a plain run (a minute or two a case).

The modules are compiled first (an untimed build writes their bytecode into a throw-away
``PYTHONPYCACHEPREFIX``), as an installed package's are after its first run. ``--compile`` counts a build that
compiles every module it imports instead (as with ``PYTHONDONTWRITEBYTECODE`` set and no cache): about 1.9 G
more at every size, which flatters the ratios; the figures of issue 46's rounds before round five were taken
that way.
Run: python3 -m benchmarks.bench_instructions [--only curve|step] [--root CHECKOUT] [--compile]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.bench_process import FABRICS
from benchmarks.cases import BASE, SIZES

ROOT = Path(__file__).resolve().parent.parent
CURVE = (("1k GPUs", SIZES["1k GPUs"]), ("1M GPUs, 10 buildings", SIZES["1M GPUs, 10 buildings"]))
#: Run with the measured checkout's code: the bench's first size (a rack of 72 GPUs at a time) whose plan the
#: build does not write unasked.
_FIRST_PAST = """
from benchmarks.bench_process import FABRICS
from benchmarks.cases import scenario
from bom.catalog.load import load_catalog
from bom.outputs.planfiles import BUILD_MAX_ROWS, build_rows
from bom.pipeline.model import build_model

cat = load_catalog()
gpus = 72
while build_rows(build_model(*scenario(f"gpus: {gpus}\\n", FABRICS), cat, None)) <= BUILD_MAX_ROWS:
    gpus += 72
print(gpus)
"""


def step_pair(root: Path) -> tuple[tuple[str, str], tuple[str, str]]:
    """(the smallest build past ``BUILD_MAX_ROWS``, the largest one under it) of the checkout at ``root``."""
    env = dict(os.environ, PYTHONPATH=f"{root}{os.pathsep}{ROOT}")
    proc = subprocess.run([sys.executable, "-c", _FIRST_PAST], cwd=root, capture_output=True, text=True, env=env)
    if proc.returncode:
        raise SystemExit(f"finding the step's sizes failed: {proc.stderr[-400:]}")
    past = int(proc.stdout.split()[-1])
    return ((f"{past:,} GPUs, no plan", f"gpus: {past}\n"),
            (f"{past - 72:,} GPUs, writes its plan", f"gpus: {past - 72}\n"))


def instructions(text: str, root: Path, tmp: Path, compile_: bool = False) -> int:
    """Instructions of one ``bom build`` process of the checkout at ``root`` on the scenario ``text``."""
    path = tmp / "bench.yaml"
    path.write_text(text)
    build = [sys.executable, "-m", "bom.cli", "build", str(path), "-o", str(tmp / "out"), "--quiet"]
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=str(root))
    if compile_:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
        subprocess.run(build, cwd=root, capture_output=True, env=env)   # writes the bytecode
    cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", *build]
    proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True, env=env)
    found = re.search(r"I\s+refs:\s+([\d,]+)", proc.stderr)
    if proc.returncode or found is None:
        raise SystemExit(f"bom build under valgrind exited {proc.returncode}: {proc.stderr[-400:]}")
    return int(found.group(1).replace(",", ""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", choices=("curve", "step"))
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout to measure (default: this one)")
    ap.add_argument("--compile", action="store_true", help="count the modules' compiling too (no bytecode cache)")
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt install valgrind)")
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("curve", "step"):
            if args.only not in (None, name):
                continue
            base, case = CURVE if name == "curve" else step_pair(args.root)
            got = [instructions(BASE + FABRICS + extra, args.root, Path(tmp), args.compile)
                   for _, extra in (base, case)]
            for (label, _), n in zip((base, case), got, strict=True):
                print(f"{name:5} {label:28} {n / 1e9:7.3f} G")
            print(f"{name:5} {case[0]} / {base[0]}: {got[1] / got[0]:.3f}x (goal 1.1x)")


if __name__ == "__main__":
    main()
