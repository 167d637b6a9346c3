"""The scenarios the build benchmarks share: one rack to a million-GPU campus."""

from __future__ import annotations

BASE = "name: bench\nplatform: gb300-nvl72\n"
SIZES = {
    "1 rack (72 GPUs)": "gpus: 72\n",
    "1k GPUs": "gpus: 1008\n",
    "16k GPUs": "gpus: 16416\n",
    "100k GPUs": "gpus: 100008\n",
    "1M GPUs, 10 buildings": 'gpus: 1000080\nsites: {count: 10, distance: "2 km", dci_bandwidth: "51.2 Tbit/s"}\n',
}


def scenario(extra: str, fabrics: str) -> tuple[object, object]:
    """(scenario, located source) for one size with the given fabrics block."""
    from bom.inputs.scenario import scenario_from_text
    from bom.inputs.yamlio import load_text

    text = BASE + fabrics + extra
    return scenario_from_text(text), load_text(text, "bench.yaml")
