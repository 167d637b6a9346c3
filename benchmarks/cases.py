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


def with_dci_fabric(extra: str, fabrics: str) -> str:
    """``fabrics`` (a one-line flow mapping) with an in-band fabric added when the size has sites and
    the block has none: the DCI routers' Ethernet client ports land on its border leaves (the
    Q3400 compute fabric is InfiniBand; sites.attach).

    >>> with_dci_fabric("sites: {count: 2}", "fabrics: {compute: {switch: q3400}}\n")
    'fabrics: {compute: {switch: q3400}, inband: {}}\n'
    """
    if "sites:" not in extra or "inband" in fabrics:
        return fabrics
    head, _, tail = fabrics.rpartition("}")
    return f"{head}, inband: {{}}}}{tail}"


def scenario(extra: str, fabrics: str) -> tuple[object, object]:
    """(scenario, located source) for one size with the given fabrics block."""
    from bom.inputs.scenario import scenario_from_text
    from bom.inputs.yamlio import load_text

    text = BASE + with_dci_fabric(extra, fabrics) + extra
    return scenario_from_text(text), load_text(text, "bench.yaml")
