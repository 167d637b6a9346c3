"""Switch-to-switch links at the switches' own rate, spread in whole native links (issue 42, item 4).

Where no part joins two switches at the nodes' rate (200G NICs under 64 x 400G QSFP-DD switches: no
catalog part takes a 400G cage as two 200G ports to two far switches), the native rate is not a
preference but the only one: a pair of switches whose fewest spines leave it part of a native link
gets the nearest spread in whole native links, never a fallback to a rate nothing joins (before, some
sizes were refused with "no 200 Gbit/s part ... fits a qsfp-dd cage serving 2 ports").
"""

from __future__ import annotations

import pytest

from bom.inputs.scenario import scenario_from_text
from bom.inputs.yamlio import load_text
from bom.pipeline.model import build_model

SN5400 = ("name: n\nplatform: hgx-a100\ngpus: {gpus}\n"
          "fabrics: {{compute: {{switch: sn5400, topology: tor, layers: {layers}}}}}\n")


def _switch_rates(catalog, gpus: int, layers: int) -> set[float]:  # type: ignore[no-untyped-def]
    text = SN5400.format(gpus=gpus, layers=layers)
    f = build_model(scenario_from_text(text), load_text(text, "n.yaml"), catalog, None).fabrics["compute"]
    return {g.rate_gbps for g in f.groups if g.hop in ("leaf-spine", "spine-core")}


@pytest.mark.parametrize("gpus", list(range(1024, 32768 + 1, 1024)) + [1000, 3000, 7777, 12345, 31000])
def test_three_layers_join_at_400g_at_every_size(catalog, gpus: int) -> None:
    """Every size from 1k to 32k GPUs, whole thousands and odd sizes between (4,096, 6,144, 8,192, 11,264
    and more were refused before)."""
    assert _switch_rates(catalog, gpus, 3) == {400.0}


@pytest.mark.parametrize("gpus", [512, 2048])
def test_two_layers_join_at_400g(catalog, gpus: int) -> None:
    assert _switch_rates(catalog, gpus, 2) == {400.0}
