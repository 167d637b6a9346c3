"""Benchmark: the build curve in instructions, the deterministic count CPU time is too noisy to settle.

Targets (issue 46): the 1M-GPU ten-building build within 1.1x the 1k-GPU build, and no step where the build
writes its cable plan: the largest build that writes it (5,040 GPUs, 18,432 rows) within 1.1x the smallest that
does not (5,472 GPUs, 20,481 rows, past ``planfiles.BUILD_MAX_ROWS``). Each figure is one fresh ``bom build``
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
PAIRS = {
    "curve": (("1k GPUs", SIZES["1k GPUs"]), ("1M GPUs, 10 buildings", SIZES["1M GPUs, 10 buildings"])),
    "step": (("5,472 GPUs, no plan", "gpus: 5472\n"), ("5,040 GPUs, writes its plan", "gpus: 5040\n")),
}


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
    ap.add_argument("--only", choices=sorted(PAIRS))
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout to measure (default: this one)")
    ap.add_argument("--compile", action="store_true", help="count the modules' compiling too (no bytecode cache)")
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt install valgrind)")
    with tempfile.TemporaryDirectory() as tmp:
        for name, (base, case) in PAIRS.items():
            if args.only not in (None, name):
                continue
            got = [instructions(BASE + FABRICS + extra, args.root, Path(tmp), args.compile)
                   for _, extra in (base, case)]
            for (label, _), n in zip((base, case), got, strict=True):
                print(f"{name:5} {label:28} {n / 1e9:7.3f} G")
            print(f"{name:5} {case[0]} / {base[0]}: {got[1] / got[0]:.3f}x (goal 1.1x)")


if __name__ == "__main__":
    main()
