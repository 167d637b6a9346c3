"""Benchmark: the cable plan, from 16k GPUs to a 1M-GPU campus.

Each case runs in its own process (so peak memory is that case's): the model build, the plan's
rows alone (rows per second), the plan streamed to CSV, and ``bom cables`` as it writes
(CSV, elevations, and the workbook when the plan fits a worksheet). Targets (issue 12): a
100,000-GPU plan in at most 5 s; a 1,000,000-GPU campus (about 3 million scale-out rows and the
DCI rows) in at most 30 s with at most 500 MB peak. Issue 46: the plan's CSV within 1.1x its floor,
a bare ``csv.writer`` writing the same rows (made a chunk at a time, only the ``writerows`` calls
timed), and under 200 MB; ``bom cables`` with the workbook within 3x the CSV.

Each stage is timed on the wall clock and in CPU time (``time.process_time``): on a shared machine
the wall clock counts the other processes' turns, the CPU time does not; the load average is
printed with each case. Peak memory is the process's maximum resident set (``ru_maxrss``).
Run: python3 -m benchmarks.bench_plan [--case NAME]
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMPUTE = "fabrics: {compute: {switch: q3400}}\n"
ALL = "fabrics: {compute: {switch: q3400}, storage: {}, inband: {}, oob: {uplinks: spine}}\n"
CASES = {
    "16k GPUs": ("gpus: 16416\n", COMPUTE),
    "100k GPUs": ("gpus: 100008\n", COMPUTE),
    "100k GPUs, every fabric": ("gpus: 100008\n", ALL),
    "1M GPUs, 10 buildings": ('gpus: 1000080\nsites: {count: 10, distance: "2 km", dci_bandwidth: "51.2 Tbit/s"}\n',
                              COMPUTE),
}


def run_case(name: str) -> dict[str, object]:
    from benchmarks.cases import scenario
    from bom.cableplan import rows as plan
    from bom.catalog.load import load_catalog
    from bom.outputs import planfiles as cabling
    from bom.outputs.writers.cables import write_csv
    from bom.pipeline.model import build_model

    catalog = load_catalog()
    extra, fabrics = CASES[name]
    sc, src = scenario(extra, fabrics)
    load = os.getloadavg()[0]
    clock = _Clock()
    model = build_model(sc, src, catalog, None)
    t_model = clock.lap()
    rows = sum(1 for _ in plan.rows(model, catalog=catalog))
    t_rows = clock.lap()
    with tempfile.TemporaryDirectory() as tmp:
        clock.lap()
        with open(Path(tmp) / "c.csv", "w", newline="", encoding="utf-8") as fh:
            write_csv(plan.rows(model, catalog=catalog), plan.FIELDS, fh, cabling.TEXT_COLUMNS,
                      repeats=plan.REPEATS)
        t_csv = clock.lap()
        files = cabling.write_plan(model, Path(tmp) / "out", "bench", catalog=catalog)
        t_cables = clock.lap()
        t_floor = floor(model, catalog, Path(tmp) / "floor.csv")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"case": name, "rows": rows, "scale_out_links": model.to_json()["tiers"]["scale-out"]["links"],
            "load": round(load, 1), "model_s": t_model, "rows_s": t_rows, "rows_per_cpu_s": round(rows / t_rows[1]),
            "plan_csv_s": t_csv, "csv_rows_per_cpu_s": round(rows / t_csv[1]),
            "bom_cables_s": t_cables, "xlsx": files.xlsx, "peak_mb": round(peak_mb), "floor_cpu_s": t_floor}


def floor(model: object, catalog: object, out: Path) -> float:
    """CPU seconds a bare ``csv.writer`` takes to write the plan's rows, the same tuples made a chunk
    at a time as the plan writer takes them (only the ``writerows`` calls timed): what writing the
    plan costs with no plan to make."""
    import csv
    import itertools

    from bom.cableplan import rows as plan
    from bom.outputs.writers.cables import CHUNK

    spent = 0.0
    with open(out, "w", newline="", encoding="utf-8") as fh:
        rows, w = plan.rows(model, catalog=catalog), csv.writer(fh, lineterminator="\n")  # type: ignore[arg-type]
        w.writerow(plan.FIELDS)
        while chunk := list(itertools.islice(rows, CHUNK)):
            t = time.process_time()
            w.writerows(chunk)
            spent += time.process_time() - t
    return round(spent, 2)


class _Clock:
    """(wall, CPU) seconds since the last lap."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def lap(self) -> tuple[float, float]:
        wall, cpu = time.perf_counter(), time.process_time()
        out = (round(wall - self.wall, 2), round(cpu - self.cpu, 2))
        self.wall, self.cpu = wall, cpu
        return out


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--case":
        print(json.dumps(run_case(sys.argv[2])))
        return
    names = [sys.argv[1]] if len(sys.argv) == 2 else list(CASES)
    print("seconds as wall / CPU")
    for name in names:
        out = subprocess.run([sys.executable, "-m", "benchmarks.bench_plan", "--case", name], capture_output=True,
                             text=True, check=True, cwd=Path(__file__).resolve().parents[1])
        r = json.loads(out.stdout)

        def s(k: str, r: dict = r) -> str:
            return f"{r[k][0]:6.2f}/{r[k][1]:6.2f} s"

        print(f"{r['case']:24} load {r['load']:4.1f}  rows={r['rows']:>10,}  model {s('model_s')}  "
              f"rows {s('rows_s')} ({r['rows_per_cpu_s']:>9,}/CPU s)  plan+CSV {s('plan_csv_s')} "
              f"({r['csv_rows_per_cpu_s']:>9,}/CPU s)  bom cables {s('bom_cables_s')} "
              f"(workbook: {'yes' if r['xlsx'] else 'no'}, {r['bom_cables_s'][1] / r['plan_csv_s'][1]:.2f}x the CSV)  "
              f"peak {r['peak_mb']:>4} MB  bare csv.writer {r['floor_cpu_s']:6.2f} CPU s "
              f"(plan+CSV {r['plan_csv_s'][1] / r['floor_cpu_s']:.2f}x)")


if __name__ == "__main__":
    main()
