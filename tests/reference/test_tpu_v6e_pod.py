"""TPU v6e (Trillium): Google Cloud TPU v6e documentation (docs.cloud.google.com/tpu/docs/v6e),
"System architecture", key specifications table, read 2026-12-06:

| specification | published | the tool |
|---|---|---|
| TPU Pod size | 256 chips | 256 chips, one scale-up domain |
| Chips per host | 8 | 32 hosts (256 / 8) |
| ICI ports per chip | 4 | 512 ICI links (a 16 x 16 2D torus: 256 x 4 / 2) |
| Bidirectional ICI bandwidth per chip | 800 GBps | 800 GB/s |
| BF16 peak compute per Pod | 234.9 PFLOPs | 256 x 918 TFLOP/s = 235.0 PFLOP/s |

Not published, and so not checked here: the ICI cables' medium and count between hosts (the
scale-up tier counts the links, buys no part for them), the hosts' DCN ports, power and racks
(the catalog row marks them unconfirmed).
"""

from __future__ import annotations

from pathlib import Path

from bom.inputs.scenario import load_scenario
from bom.pipeline.model import build_model
from bom.units import magnitude

CASE = Path(__file__).with_name("tpu_v6e_pod.yaml")


def test_tpu_v6e_pod_against_the_key_specifications(catalog):
    scenario, src = load_scenario(CASE)
    j = build_model(scenario, src, catalog, None).to_json()
    assert (j["gpus"], j["nodes"], j["domains"]) == (256, 32, 1)
    up = j["tiers"]["scale-up"]
    assert up["gpus_per_domain"] == 256 and up["kind"] == "electrical"
    assert up["links"] == 256 * 4 // 2 == 512                  # 4 ICI ports per chip, 2D torus
    assert up["modules"] == 0 and up["switch_chips"] == 0    # no OCS, no optics published for v6e
    p = catalog.get("platforms", "tpu-v6e-pod")
    assert magnitude(p.scale_up.bandwidth_per_gpu, "rate") == 800 * 8
    pod_pflops = 256 * p.flops_per_gpu("bf16") / 1e15
    assert abs(pod_pflops - 234.9) / 234.9 < 0.001              # 235.0 vs the page's 234.9
    assert p.fp8_dense is None                                  # no FP8 figure published
