"""Benchmark: `bom build` with every writer (xlsx, html, md, json, csv), rendered in memory.

Shows that the time follows the number of BOM lines, not the number of GPUs.
Run: python3 -m benchmarks.bench_outputs
"""

from __future__ import annotations

import time


def main() -> None:
    from benchmarks.cases import SIZES, scenario
    from bom.catalog.load import load_catalog
    from bom.outputs.sets import render
    from bom.pipeline import report_of
    from bom.pipeline.model import build_model

    catalog = load_catalog()
    fabrics = "fabrics: {compute: {switch: q3400}, storage: {switch: sn5600}, oob: {}}\n"
    for label, extra in SIZES.items():
        sc, src = scenario(extra, fabrics)
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            report = report_of(build_model(sc, src, catalog, None), catalog)
            files = render(report)
            best = min(best, time.perf_counter() - t0)
        size = sum(len(b) for b in files.values())
        print(f"{label:24} {best:6.2f} s  BOM lines={len(report.lines):>3}  link groups={len(report.model.groups):>3}"
              f"  output {size / 1024:,.0f} KiB")


if __name__ == "__main__":
    main()
