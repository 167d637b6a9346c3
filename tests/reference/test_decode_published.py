"""The decode step (bom/topology/serving.py: decode) against published decode throughput, and the
platform rows' memory bandwidth against their sources.

Throughput: NVIDIA TensorRT-LLM repository, docs/source/blogs/H200launch.md ("H200 achieves nearly
12,000 tokens/sec on Llama2-13B with TensorRT-LLM"; read at commit 1555478c1b417a0b34de05209862ea5a2ab9add1,
6 December 2026), table "H200 FP8 Max throughput", TensorRT-LLM v0.5.0, "Throughput (out tok/s/GPU)":
  llama_70b, batch 512, TP 2, input 128, output 2,048: 1,654 output tokens/s a GPU;
  llama_70b, batch 512, TP 1, input 128, output 128:   3,014 output tokens/s a GPU.
The same file, "Latest HBM Memory": H200 "HBM3e memory with 4.8TB/s of memory bandwidth" and "141 gigabytes".
(An earlier version of the file, on the release/0.5.0 branch, lists TP 4 and 6,616 tok/s for the first row,
per system rather than per GPU; the commit above is the one read.)

The source gives measured throughput, the tool a roofline (a lower bound on the step, so an upper bound on
tokens/s) with no prefill, no kernel overhead and the KV cache at the full context: this is an
order-of-magnitude test - the published figure must lie below the tool's bound and within 10x of it.

Llama 2 70B's shape: 80 layers, hidden 8,192, 64 heads, 8 KV heads of 128 (grouped-query attention; Touvron
et al. 2023, "Llama 2", section 2.2, Table 1 "GQA" for 70B; meta-llama/Llama-2-70b-hf config.json:
num_hidden_layers 80, hidden_size 8192, num_attention_heads 64, num_key_value_heads 8). FP8 weights and KV
cache (the tool takes the job's dtype for both). H200's dense FP8 is taken as H100 SXM's 1,979 TFLOP/s (the
catalog's dgx-h100 row, from the H100 datasheet): the same GH100 compute with more and faster HBM (the file
above attributes H200's gain to its memory).
"""

from __future__ import annotations

import pytest

from bom.catalog.load import load_catalog
from bom.model.parallelism import Split, Tiers
from bom.topology.serving import Chip, ServeShape, decode

H200 = Chip(hbm_bps=4.8e12, flops=1979e12)       # H200launch.md: 4.8 TB/s; FP8 dense as H100 SXM
HGX = Tiers(8, 450e9, 50e9)                      # NVLink 4: 900 GB/s both ways, 450 one way


def llama2_70b_fp8(context: int, users: int) -> ServeShape:
    return ServeShape(70e9, 1.0, 80, 8192, 64, 8, 2 * 80 * 8 * 128 * 1.0, context, users)


@pytest.mark.parametrize(("tp", "input_len", "output_len", "published"),
                         [(2, 128, 2048, 1654), (1, 128, 128, 3014)])
def test_published_throughput_lies_under_the_roofline_within_an_order_of_magnitude(
        tp: int, input_len: int, output_len: int, published: float) -> None:
    batch = 512
    d = decode(llama2_70b_fp8(input_len + output_len, batch), Split(tp=tp), HGX, H200, batch)
    bound_per_gpu = d.tokens_per_s_replica / tp
    # TP 2: 35 GB of weights + 512 x 2,176 x 164 kB / 2 = 91 GB of KV cache a GPU, 26 ms at 4.8 TB/s, over the
    # arithmetic's 18 ms: 9,700 tokens/s a GPU against the measured 1,654 (5.9x). TP 1, 256 tokens: the
    # arithmetic, 2 x 70e9 x 512 / 1,979 TFLOP/s = 36 ms, over 19 ms of reading: 14,100 against 3,014 (4.7x).
    assert published <= bound_per_gpu <= 10 * published
    assert d.bound == ("memory" if tp == 2 else "compute")


def test_a_lone_user_on_h200_is_bounded_by_reading_the_weights() -> None:
    # Batch 1 at TP 8: 70 GB / 8 = 8.75 GB a GPU read at 4.8 TB/s, 1.8 ms: at most 548 tokens/s a user
    # (more than any published single-user figure, which pays per-layer launch and all-reduce latency).
    d = decode(llama2_70b_fp8(2176, 1), Split(tp=8), HGX, H200, 1)
    assert d.bound == "memory" and d.tokens_per_s_user == pytest.approx(4.8e12 / (70e9 / 8 + 2176 * 163840 / 8),
                                                                       rel=1e-9)


#: The rows' HBM bandwidth per GPU [GB/s] and whether a primary source was read (catalogs/platforms*.yaml,
#: memory_bandwidth_source): Google's Cloud TPU pages for v4 (1200 GBps) and v5p (2765 GBps); the rest from
#: secondary pages that quote the vendors' figures (H100 SXM 3.35 TB/s, B200 / B300 / GB200 / GB300 8 TB/s,
#: MI300X 5.3, MI325X 6, MI355X 8, Gaudi 3 3.7, A100 80GB SXM4 2,039 GB/s), marked unconfirmed; v6e 1638 GBps from
#: Google's 'TPU v6e' key specifications table; reported, not read at the vendor (unconfirmed): Ironwood 7.3 TB/s
#: (Google's Hot Chips 2025 talk as reported), Rubin 22 TB/s (NVIDIA's CES 2026 figure as reported), Rubin Ultra
#: 32 TB/s a 4-die package (All Things Geek).
ROWS = {"tpu-ironwood-pod": (7300, False), "vr-nvl144": (22000, False), "vr-ultra-nvl576": (32000, False),
        "dgx-h100": (3350, False), "hgx-h100": (3350, False), "dgx-b200": (8000, False), "dgx-b300": (8000, False),
        "gb200-nvl72": (8000, False), "gb300-nvl72": (8000, False), "mi300x-platform": (5300, False),
        "mi325x-platform": (6000, False), "mi355x-platform": (8000, False), "gaudi3-hls3": (3700, False),
        "tpu-v4-pod": (1200, True), "tpu-v5p-pod": (2765, True), "tpu-v6e-pod": (1638, True),
        "dgx-a100": (2039, False), "hgx-a100": (2039, False)}


@pytest.mark.parametrize("row", sorted(ROWS))
def test_platform_memory_bandwidth_is_the_sourced_figure(row: str) -> None:
    from bom.units import magnitude

    p = load_catalog().platform(row)
    gbps, primary = ROWS[row]
    assert p.memory_bandwidth is not None and p.memory_bandwidth_source
    assert magnitude(p.memory_bandwidth, "rate") / 8 == pytest.approx(gbps)
    assert ("memory_bandwidth" in p.unconfirmed) is not primary
