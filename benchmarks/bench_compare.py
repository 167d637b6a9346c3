"""Benchmark: compare the seven default generations for a 100,000-GPU job, with all outputs.

Run: python3 -m benchmarks.bench_compare
"""

from __future__ import annotations

import time


def main() -> None:
    from bom.catalog.load import load_catalog
    from bom.inputs.scenario import load_scenario
    from bom.outputs.writers.compare_text import write_compare_html, write_compare_json
    from bom.outputs.writers.compare_xlsx import write_compare_xlsx
    from bom.pipeline.compare import compare
    from bom.resources import data_dir

    catalog = load_catalog()
    scenario, src = load_scenario(data_dir("scenarios") / "compare.yaml")
    for gpus in (4608, 100_008):
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            result = compare(scenario, src, catalog, gpus=gpus)
            t1 = time.perf_counter()
            sizes = [len(w(result)) for w in (write_compare_xlsx, write_compare_html, write_compare_json)]
            best = min(best, time.perf_counter() - t0)
        print(f"{gpus:>7,} GPUs x {len(result.generations)} generations: {best:.2f} s "
              f"(models {t1 - t0:.2f} s; outputs {sum(sizes) / 1024:,.0f} KiB)")


if __name__ == "__main__":
    main()
