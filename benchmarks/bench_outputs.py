"""Benchmark: `bom build` with every writer (xlsx, html, md, json, csv), rendered in memory.

Shows that the time follows the number of BOM lines, not the number of GPUs.
Run: python3 benchmarks/bench_outputs.py
"""

from __future__ import annotations

import time

CASES = {
    "1k GPUs": "gpus: 1008\n",
    "16k GPUs": "gpus: 16416\n",
    "100k GPUs": "gpus: 100008\n",
    "1M GPUs, 10 buildings": 'gpus: 1000080\nsites: {count: 10, distance: "2 km", dci_fraction: 0.1}\n',
}


def main() -> None:
    from bom.build import build_model
    from bom.catalog import load_catalog
    from bom.outputs import render
    from bom.report import make_report
    from bom.scenario import scenario_from_text
    from bom.yamlio import load_text

    catalog = load_catalog()
    base = ("name: bench\nplatform: gb300-nvl72\n"
            "fabrics: {compute: {switch: q3400}, storage: {switch: sn5600}, oob: {}}\n")
    for label, extra in CASES.items():
        text = base + extra
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            report = make_report(build_model(scenario_from_text(text), load_text(text, "b.yaml"), catalog, None),
                                 catalog)
            files = render(report)
            best = min(best, time.perf_counter() - t0)
        size = sum(len(b) for b in files.values())
        print(f"{label:24} {best:6.2f} s  BOM lines={len(report.lines):>3}  link groups={len(report.model.groups):>3}"
              f"  output {size / 1024:,.0f} KiB")


if __name__ == "__main__":
    main()
