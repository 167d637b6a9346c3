"""Benchmark: ``bom verify`` on a 100,000-GPU plan against neighbour files, against writing that plan.

Targets: verifying the plan takes no longer than writing it (``bom cables``; issue 26), and no more
memory at its peak than writing it (issue 46). The plan is
the 100k-GPU case with every fabric (benchmarks/bench_rules.py); the neighbour files are what
lldpd would report per device (``lldpcli -f json0 show neighbors``) for the plan as built with ten
swapped pairs and ten cables left out (tests/verify/neighbours.py), written once before the runs.
Each run is its own process (its peak memory, ``ru_maxrss``, is its own): the plan files written
(``planfiles.write_plan``, what ``bom cables`` does after the build), then the verification (the
files read, the plan streamed past them, the work order written: what ``bom verify`` does after
the build). Times are wall / CPU seconds. Run: python3 -m benchmarks.bench_verify [16k] [100k]

One step alone, its figures as JSON (the neighbour files written once, then each run on them):
``--child-neighbours SIZE DIR``, ``--child-plan SIZE OUT``, ``--child-verify SIZE DIR OUT``, and
``--child-trace SIZE DIR OUT``: the top allocation sites at verify's peak (tracemalloc; slow).

Each run prints, under its own figures, the ones recorded for the speed and memory changes (RECORDED;
CHANGELOG, issues 26 and 46).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

SWAPS, OMITS = 10, 10
#: Measured for issue 26's speed change on 2 shared cores at load 5 to 6, the code before it (3348359)
#: and after it run back to back, and for issue 46's memory change: CPU seconds after the build
#: (reading the files) and peak MB.
RECORDED = {
    "16k": "before: verify 4.72 s (reading 3.11), 198 MB; write 4.24 s, 216 MB (1.11x). "
           "after: verify 3.05 s (reading 1.72), 155 MB; write 3.08 s (0.99x)",
    "100k": "before: verify 31.98 s (reading 21.15), 976 MB; write 28.81 s, 301 MB (1.11x). "
            "after: verify 23.93 s (reading 13.06), 669 MB; write 33.71 s (0.71x). "
            "Issue 46 (load 10-15, medians of 3, main 8b786ea and the change alternated): verify 13.41 -> "
            "12.11 s (reading 9.55 -> 8.43), peak 313 -> 217 MB; write 11.63 s, 271 MB. "
            "Round six (load 7-9, medians of 3, main 67e188b and the change alternated): verify 15.00 -> 16.39 s "
            "(reading 10.42 -> 12.17), peak 218 -> 169 MB; write 9.71 s, 184 MB",
}


def _cases() -> dict[str, tuple[str, str]]:
    """The sizes measured, each with every fabric (benchmarks/bench_rules.py)."""
    from benchmarks.bench_rules import ALL, STREAM
    from benchmarks.cases import SIZES

    return {"16k": (SIZES["16k GPUs"], ALL), "100k": STREAM["100k GPUs, every fabric"]}


def _model(case: str):  # type: ignore[no-untyped-def]
    from benchmarks.cases import scenario
    from bom.catalog.load import load_catalog
    from bom.pipeline.model import build_model

    catalog = load_catalog()
    return build_model(*scenario(*_cases()[case]), catalog, None), catalog


def _peak() -> int:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def neighbours(case: str, folder: Path) -> dict[str, object]:
    """Write the neighbour files of the plan as built, with its swaps and omissions."""
    from bom.cableplan.rows import COL, rows
    from tests.verify import neighbours as nb

    model, catalog = _model(case)
    plan = list(rows(model, catalog=catalog))
    step = len(plan) // (2 * SWAPS + OMITS + 1)
    ids = [plan[(i + 1) * step][COL["cable_id"]] for i in range(2 * SWAPS + OMITS)]
    files = nb.write(folder, nb.built(plan, swap=ids[: 2 * SWAPS], omit=ids[2 * SWAPS:]))
    size = sum(p.stat().st_size for p in folder.iterdir())
    return {"rows": len(plan), "files": files, "mb": round(size / 2**20), "swapped": ids[: 2 * SWAPS],
            "omitted": ids[2 * SWAPS:]}


def write_plan(case: str, out: Path) -> dict[str, object]:
    import time

    from bom.outputs import planfiles

    model, catalog = _model(case)
    load = os.getloadavg()[0]
    wall, cpu = time.perf_counter(), time.process_time()
    files = planfiles.write_plan(model, out, "bench", catalog=catalog)
    return {"rows": files.rows, "s": (round(time.perf_counter() - wall, 2), round(time.process_time() - cpu, 2)),
            "load": round(load, 1), "peak_mb": _peak()}


def verify(case: str, lldp: Path, out: Path) -> dict[str, object]:
    import time

    from bom.outputs.publish import write_all
    from bom.verify import run

    model, catalog = _model(case)
    load = os.getloadavg()[0]
    wall, cpu = time.perf_counter(), time.process_time()
    seen = run.read_sources(lldp, None)
    t_read = round(time.process_time() - cpu, 2)
    result = run.verify_model(model, catalog, seen)
    write_all(run.work_order(result, "bench"), out)
    j = result.to_json()
    return {"s": (round(time.perf_counter() - wall, 2), round(time.process_time() - cpu, 2)), "read_cpu_s": t_read,
            "load": round(load, 1), "peak_mb": _peak(), "ok": j["ok"], "missing": j["missing"],
            "miswired": [m["cable_id"] for m in j["miswired"]], "unexpected": len(j["unexpected"]),  # type: ignore[union-attr]
            "not_checked": j["not_checked"]}


def trace(case: str, lldp: Path, out: Path, top: int = 25) -> dict[str, object]:
    """What verify holds at its peak: the top allocation sites (tracemalloc, by line) at the point of
    the plan's stream where the most is traced (checked every 5,000 rows), the traced memory after each
    step. Slow (tracemalloc: 5 to 10 times the CPU), and its figures are Python's allocations, not RSS."""
    import tracemalloc
    from collections.abc import Iterator

    from bom.cableplan.rows import no_cycle_collection, rows
    from bom.model.records import PlanRow
    from bom.topology.fabrics import infiniband
    from bom.verify import check, run

    tracemalloc.start()
    model, catalog = _model(case)
    steps = {"model": tracemalloc.get_traced_memory()[0]}
    seen = run.read_sources(lldp, None)
    steps["read"] = tracemalloc.get_traced_memory()[0]
    best: list[object] = [0, None, 0]   # traced bytes, snapshot, row

    def watched() -> Iterator[PlanRow]:
        for n, row in enumerate(rows(model, catalog=catalog)):
            if n % 5000 == 0:
                now = tracemalloc.get_traced_memory()[0]
                if now > best[0] + (2 << 20):   # type: ignore[operator]
                    best[:] = [now, tracemalloc.take_snapshot(), n]
            yield row
    with no_cycle_collection():
        check.verify(watched(), seen, (), infiniband(model, catalog))
    steps["verified"], steps["peak"] = tracemalloc.get_traced_memory()
    snap = best[1]
    assert isinstance(snap, tracemalloc.Snapshot)
    stats = snap.statistics("lineno")
    return {"traced_mb": {k: round(v / 2**20, 1) for k, v in steps.items()}, "at_row": best[2],
            "at_peak_mb": round(sum(x.size for x in stats) / 2**20, 1),
            "top": [(round(x.size / 2**20, 2), x.count, f"{x.traceback[0].filename.split('/')[-1]}:"
                     f"{x.traceback[0].lineno}") for x in stats[:top]]}


def _child(*args: str) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-m", "benchmarks.bench_verify", *args], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parents[1])
    return json.loads(out.stdout)


def case(name: str, tmp: Path) -> None:
    lldp = tmp / name / "lldp"
    n = _child("--child-neighbours", name, str(lldp))
    print(f"{name} GPUs, every fabric: {n['rows']:,} plan rows; {n['files']:,} neighbour files, {n['mb']} MB "
          f"({SWAPS} pairs swapped, {OMITS} cables left out)")
    p = _child("--child-plan", name, str(tmp / name / "plan"))
    v = _child("--child-verify", name, str(lldp), str(tmp / name / "verify"))
    print(f"  write the plan (bom cables)  load {p['load']:4.1f}  {p['s'][0]:7.2f}/{p['s'][1]:7.2f} s  "
          f"peak {p['peak_mb']} MB")
    print(f"  verify it (bom verify)       load {v['load']:4.1f}  {v['s'][0]:7.2f}/{v['s'][1]:7.2f} s  "
          f"(reading the files {v['read_cpu_s']} CPU s)  peak {v['peak_mb']} MB")
    print(f"  verify / write: {v['s'][1] / p['s'][1]:.2f}x CPU; found ok {v['ok']:,}, "
          f"missing {len(v['missing'])}, miswired {len(v['miswired'])}, unexpected {v['unexpected']}, "
          f"not checked {v['not_checked']}")
    right = sorted(v["missing"]) == sorted(n["omitted"]) and sorted(v["miswired"]) == sorted(n["swapped"])
    print(f"  found exactly the swaps and omissions: {right}; verify's peak within the writer's: "
          f"{v['peak_mb'] <= p['peak_mb']}")
    print(f"  recorded (CHANGELOG, issues 26 and 46): {RECORDED[name]}")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1].startswith("--child-"):
        what, name, args = sys.argv[1], sys.argv[2], [Path(a) for a in sys.argv[3:]]
        fn = {"--child-neighbours": neighbours, "--child-plan": write_plan, "--child-verify": verify,
              "--child-trace": trace}[what]
        print(json.dumps(fn(name, *args)))
        return
    names = sys.argv[1:] or list(_cases())
    for name in names:
        if name not in _cases():
            sys.exit(f"bench_verify: no size {name!r} (sizes: {', '.join(_cases())})")
    for name in names:
        with tempfile.TemporaryDirectory() as tmp:
            case(name, Path(tmp))


if __name__ == "__main__":
    main()
