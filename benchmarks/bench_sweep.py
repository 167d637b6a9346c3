"""Benchmark: ``bom sweep`` of 1,000 designs of the default job (scenarios/default.yaml: 4,608 GPUs, two
buildings 40 km apart), platforms x compute switches x oversubscription x sites.

The axes: 5 platforms x 8 compute switches (``platform@switch``, as ``bom compare`` reads it: 40 entries,
InfiniBand XDR and NDR, Spectrum-X, Tomahawk, co-packaged optics) x 5 oversubscriptions x 1 to 5 sites.
A platform and switch that cannot be joined (a rate no part carries, a cage) is refused with the reason and
kept: that is part of what a sweep answers. The command runs in a child process (``--workers N``, default 2,
the machine's cores), timed as wall and CPU seconds (``RUSAGE_CHILDREN``: the command and its workers),
with the load average before and after (the machine is shared).

Run: python3 -m benchmarks.bench_sweep [--workers N] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PLATFORMS = ("gb300-nvl72", "gb200-nvl72", "dgx-b200", "dgx-b300", "dgx-h100")
SWITCHES = ("q3400", "q3450-ld", "qm9700", "sn5600", "sn5610", "sn6600", "arista-7060x6-64pe", "th5-bailly-cpo")
OVERSUBSCRIPTION = ("1", "4:3", "2", "3", "4")
SITES = (1, 2, 3, 4, 5)


def sweep_file() -> str:
    entries = ", ".join(f"{p}@{s}" for p in PLATFORMS for s in SWITCHES)
    ratios = ", ".join(f'"{r}"' for r in OVERSUBSCRIPTION)
    return (f"name: bench\n# base: the built-in default scenario\naxes:\n  platform: [{entries}]\n"
            f"  fabrics.compute.oversubscription: [{ratios}]\n  sites.count: [{', '.join(map(str, SITES))}]\n"
            f"objectives: [usd_per_gpu_hour, facility_mw]\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--keep", type=Path, help="write the sweep there (default: a temporary folder)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "bench-sweep.yaml"
        path.write_text(sweep_file())
        out = folder / "out"
        results = out / "bench-sweep-results.jsonl"
        if results.exists():
            results.unlink()   # a benchmark builds everything
        load = os.getloadavg()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        run = subprocess.run([sys.executable, "-m", "bom.cli", "sweep", str(path), "-o", str(out), "--workers",
                              str(args.workers), "-q", "--json"], capture_output=True, text=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if run.returncode != 0:
            sys.exit(run.stderr)
        doc = json.loads(run.stdout)
        refused: dict[str, int] = {}
        for p in doc["points"]:
            if not p["feasible"]:
                kind = (p["refused_by"] or "").split(" at ")[0]
                refused[kind] = refused.get(kind, 0) + 1
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        print(json.dumps({"designs": doc["counts"]["points"], "feasible": doc["counts"]["feasible"],
                          "refused": refused, "frontier": doc["frontier"], "workers": args.workers,
                          "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
                          "ms_per_design_cpu": round(1000 * cpu / doc["counts"]["points"], 1),
                          "load_before": [round(x, 1) for x in load],
                          "load_after": [round(x, 1) for x in os.getloadavg()]}, indent=2))


if __name__ == "__main__":
    main()
