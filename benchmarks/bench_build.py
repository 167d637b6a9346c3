"""Benchmark: build the model (no writers) for 1k, 16k, 100k and 1M GPUs.

The 1M-GPU case is a campus of ten buildings, each its own cluster, joined by scale-across.
Run: python3 -m benchmarks.bench_build
"""

from __future__ import annotations

import time


def main() -> None:
    from benchmarks.cases import SIZES, scenario
    from bom.catalog.load import load_catalog
    from bom.pipeline.model import build_model

    catalog = load_catalog()
    times = {}
    for label, extra in SIZES.items():
        sc, src = scenario(extra, "fabrics: {compute: {switch: q3400}, oob: {}}\n")
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            model = build_model(sc, src, catalog, None)
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
