"""Benchmark: the cable plan, from 16k GPUs to a 1M-GPU campus.

Each case runs in its own process (so peak memory is that case's): the model build, the plan's
rows alone (rows per second), the plan streamed to CSV, and ``bom cables`` as it writes
(CSV, elevations, and the workbook when the plan fits a worksheet). Targets (issue 12): a
100,000-GPU plan in at most 5 s; a 1,000,000-GPU campus (about 3 million scale-out rows and the
DCI rows) in at most 30 s with at most 500 MB peak.
Run: python3 -m benchmarks.bench_plan [--case NAME]
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMPUTE = "fabrics: {compute: {switch: q3400}}\n"
ALL = "fabrics: {compute: {switch: q3400}, storage: {}, inband: {}, oob: {}}\n"
CASES = {
    "16k GPUs": ("gpus: 16416\n", COMPUTE),
    "100k GPUs": ("gpus: 100008\n", COMPUTE),
    "100k GPUs, every fabric": ("gpus: 100008\n", ALL),
    "1M GPUs, 10 buildings": ('gpus: 1000080\nsites: {count: 10, distance: "2 km", dci_bandwidth: "51.2 Tbit/s"}\n',
                              COMPUTE),
}


def run_case(name: str) -> dict[str, object]:
    from benchmarks.cases import scenario
    from bom import cabling, plan
    from bom.build import build_model
    from bom.catalog import load_catalog
    from bom.writers.cables import write_csv

    catalog = load_catalog()
    extra, fabrics = CASES[name]
    sc, src = scenario(extra, fabrics)
    t0 = time.perf_counter()
    model = build_model(sc, src, catalog, None)
    t_model = time.perf_counter() - t0
    t0 = time.perf_counter()
    rows = sum(1 for _ in plan.rows(model, catalog=catalog))
    t_rows = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        with open(Path(tmp) / "c.csv", "w", newline="", encoding="utf-8") as fh:
            write_csv(plan.rows(model, catalog=catalog), plan.FIELDS, fh, cabling.TEXT_COLUMNS)
        t_csv = time.perf_counter() - t0
        t0 = time.perf_counter()
        files = cabling.write_plan(model, Path(tmp) / "out", "bench", catalog=catalog)
        t_cables = time.perf_counter() - t0
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"case": name, "rows": rows, "scale_out_links": model.to_json()["tiers"]["scale-out"]["links"],
            "model_s": round(t_model, 2), "rows_s": round(t_rows, 2), "rows_per_s": round(rows / t_rows),
            "plan_csv_s": round(t_csv, 2), "csv_rows_per_s": round(rows / t_csv),
            "bom_cables_s": round(t_cables, 2), "xlsx": files.xlsx, "peak_mb": round(peak_mb)}


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--case":
        print(json.dumps(run_case(sys.argv[2])))
        return
    for name in CASES:
        out = subprocess.run([sys.executable, "-m", "benchmarks.bench_plan", "--case", name], capture_output=True,
                             text=True, check=True, cwd=Path(__file__).resolve().parents[1])
        r = json.loads(out.stdout)
        print(f"{r['case']:26} rows={r['rows']:>10,}  model {r['model_s']:5.2f} s  rows {r['rows_s']:6.2f} s "
              f"({r['rows_per_s']:>9,}/s)  plan+CSV {r['plan_csv_s']:6.2f} s ({r['csv_rows_per_s']:>9,}/s)  "
              f"bom cables {r['bom_cables_s']:6.2f} s (workbook: {'yes' if r['xlsx'] else 'no'})  "
              f"peak {r['peak_mb']:>4} MB")


if __name__ == "__main__":
    main()
