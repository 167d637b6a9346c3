"""Benchmark: build a scheduled fabric's model (Jericho3-AI interface nodes, Ramon3 fabric elements) from
AMD's 2K-GPU design to a million-GPU campus of sites each under the silicon's system size.

Run: python3 -m benchmarks.bench_scheduled
"""

from __future__ import annotations

import time

FABRICS = "fabrics: {compute: {switch: arista-7700r4c-38pe, su_nodes: 36}, inband: {}}\n"
SIZES = {
    "AMD 2K (one stage)": "gpus: 2048\n",
    "Meta DSF 6,912 (one stage)": "gpus: 6912\n",
    "32k GPUs (two stages)": "gpus: 32256\n",
    "1M GPUs, 16 sites": 'gpus: 1000000\nsites: {count: 16, distance: "2 km", dci_bandwidth: "51.2 Tbit/s"}\n',
}


def main() -> None:
    from bom.catalog.load import load_catalog
    from bom.inputs.scenario import scenario_from_text
    from bom.inputs.yamlio import load_text
    from bom.pipeline.model import build_model

    catalog = load_catalog()
    for label, extra in SIZES.items():
        text = "name: bench\nplatform: dgx-b200\n" + FABRICS + extra
        sc, src = scenario_from_text(text), load_text(text, "bench.yaml")
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            model = build_model(sc, src, catalog, None)
            best = min(best, time.perf_counter() - t0)
        f = model.fabrics["compute"]
        print(f"{label:28} {best * 1000:8.1f} ms  gpus={model.cluster.gpus:>9,}  layers={f.first.layers}  "
              f"leaf/spine/core={f.switches('leaf'):,}/{f.switches('spine'):,}/{f.switches('core'):,}  "
              f"leaf-spine links={f.hop_links('leaf-spine'):,}")


if __name__ == "__main__":
    main()
