"""Benchmark: build the model (no writers) for 1k, 16k, 100k and 1M GPUs.

The 1M-GPU case is a campus of ten buildings, each its own cluster, joined by scale-across.
Run: python3 benchmarks/bench_build.py
"""

from __future__ import annotations

import time

CASES = {
    "1 rack (72 GPUs)": "gpus: 72\n",
    "1k GPUs": "gpus: 1008\n",
    "16k GPUs": "gpus: 16416\n",
    "100k GPUs": "gpus: 100008\n",
    "1M GPUs, 10 buildings": 'gpus: 1000080\nsites: {count: 10, distance: "2 km", dci_fraction: 0.1}\n',
}


def main() -> None:
    from bom.build import build_model
    from bom.catalog import load_catalog
    from bom.scenario import scenario_from_text
    from bom.yamlio import load_text

    catalog = load_catalog()
    base = "name: bench\nplatform: gb300-nvl72\nfabrics: {compute: {switch: q3400}, oob: {}}\n"
    times = {}
    for label, extra in CASES.items():
        text = base + extra
        src = load_text(text, "bench.yaml")
        scenario = scenario_from_text(text)
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            model = build_model(scenario, src, catalog, None)
            best = min(best, time.perf_counter() - t0)
        j = model.to_json()
        times[label] = best
        print(f"{label:24} {best * 1000:8.1f} ms  gpus={j['gpus']:>9,}  link groups={len(model.groups):>4}  "
              f"scale-out links={j['tiers']['scale-out']['links']:>11,}  "
              f"layers={j['fabrics']['compute']['layers']}")
    first = times["1 rack (72 GPUs)"]
    print("ratio to one rack: " + ", ".join(f"{k} {v / first:.1f}x" for k, v in times.items()))


if __name__ == "__main__":
    main()
