"""Benchmark: one whole ``bom build`` process with each top step's CPU on its first (and only) call, as a
user's build pays it: imports, the catalog, the checked model, the report, rendering, the plan files. The
CLI imports what a command needs lazily: a step's figure includes the imports it makes first.
Run: python3 -m benchmarks.bench_first_call [--size "1k GPUs"] [--file S.yaml]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.bench_process import FABRICS, ROOT
from benchmarks.cases import BASE, SIZES

#: (module, function) of each step timed; the module's attribute is wrapped before the build runs.
STEPS = (("bom.pipeline", "catalog_for"), ("bom.pipeline", "build_checked"), ("bom.pipeline", "report_of"),
         ("bom.outputs.sets", "render"), ("bom.outputs.sets", "for_build"), ("bom.inputs.scenario", "load_scenario"))

CHILD = """
import importlib, sys, time
T = {}
t0 = time.process_time()
from bom.cli import main
T["imports"] = time.process_time() - t0
def wrap(mod, name):
    f = getattr(mod, name)
    def g(*a, **k):
        t = time.process_time()
        try:
            return f(*a, **k)
        finally:
            T[name] = T.get(name, 0) + time.process_time() - t
    setattr(mod, name, g)
for m, n in STEPS:
    wrap(importlib.import_module(m), n)
sys.argv = ["bom", "build", sys.argv[1], "-o", sys.argv[2], "--quiet"]
t1 = time.process_time()
try:
    main()
except SystemExit:
    pass
T["cli"] = time.process_time() - t1
T["process"] = time.process_time()
print(" ".join(f"{k}={v * 1000:.0f}" for k, v in T.items()))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", choices=sorted(SIZES), default="1k GPUs")
    ap.add_argument("--file", type=Path)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.yaml"
        path.write_text(args.file.read_text() if args.file else BASE + FABRICS + SIZES[args.size])
        code = f"STEPS = {STEPS!r}\n{CHILD}"
        proc = subprocess.run([sys.executable, "-c", code, str(path), str(Path(tmp) / "out")], cwd=ROOT,
                              capture_output=True, text=True)
        if proc.returncode:
            raise SystemExit(proc.stderr[-600:])
        print(f"CPU ms, first call: {proc.stdout.strip().splitlines()[-1]}")


if __name__ == "__main__":
    main()
