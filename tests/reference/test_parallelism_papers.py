"""Published parallel splits reproduced by the parallelism stage (issue 28).

Llama 3: "The Llama 3 Herd of Models", Meta, arXiv:2407.21783 (v3, 23 November 2024).
  Table 3: the 405B model has 126 layers, model dimension 16,384 and 128 attention heads with 8
  key/value heads. Table 4: its 4D-parallelism configurations on H100 (TP, CP, PP, DP; sequence
  length; batch size per DP group; tokens per batch; TFLOP/s per GPU):
    8,192 GPUs  TP 8  CP 1   PP 16  DP 64   seq 8,192    batch/DP 32  16M  430
    16,384      TP 8  CP 1   PP 16  DP 128  seq 8,192    batch/DP 16  16M  400
    16,384      TP 8  CP 16  PP 16  DP 8    seq 131,072  batch/DP 16  16M  380
  The TP, CP, PP, tokens-per-batch and TFLOP/s figures were checked against P. Balaji's SC'24
  slide as reproduced at glennklockwood.com/garden/llama-3.1 (checked 6 December 2026); the DP
  column is the GPUs over TP x CP x PP, and "16M" is read as 2^24 tokens.
  Section 3.3.1: eight GPUs a server on NVLink (Grand Teton, H100 80 GB): the catalog's dgx-h100.

Megatron-LM: Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters
  Using Megatron-LM", SC'21, arXiv:2104.04473 (v5). Table 1: GPT models (sequence 2,048) with their
  attention heads, hidden size, layers, tensor- and pipeline-parallel sizes, GPUs and batch size,
  on DGX A100 servers (section 5: eight 80-GB A100 on NVLink and NVSwitch a server, eight 200 Gbit/s
  HDR InfiniBand HCAs). The 1-trillion row (128 layers, 64 stages of 8-way TP, 6 data-parallel
  replicas, 3,072 A100) was checked against a public write-up of the paper (checked 6 December
  2026); the other rows are the paper's table as read, their DP (GPUs / (TP x PP)) and micro-batch
  counts (batch / DP) agree with it row by row.
"""

from __future__ import annotations

import pytest

from bom.catalog.load import load_catalog
from bom.model.parallelism import Split, Tiers
from bom.topology.jobs import platform_tiers
from bom.topology.parallelism import Shape, memory_bytes, microbatches, propose, split_training
from bom.topology.sizing import USABLE_MEMORY_FRACTION

# --- Llama 3 405B ------------------------------------------------------------------------------

LLAMA_405B = dict(params=405e9, layers=126, hidden=16384, heads=128, kv_dim=8 * 128)   # Table 3
TOKENS_PER_BATCH = 2**24                                                                # Table 4: 16M
H100_USABLE = 80e9 * USABLE_MEMORY_FRACTION

# (GPUs, TP, CP, PP, DP, sequence, batch size per DP group, TFLOP/s per GPU): Table 4.
LLAMA_TABLE_4 = [
    (8192, 8, 1, 16, 64, 8192, 32, 430e12),
    (16384, 8, 1, 16, 128, 8192, 16, 400e12),
    (16384, 8, 16, 16, 8, 131072, 16, 380e12),
]


@pytest.fixture(scope="module")
def h100() -> Tiers:
    return platform_tiers(load_catalog().platform("dgx-h100"))


def llama(sequence: int) -> Shape:
    return Shape(sequence=sequence, batch_tokens=TOKENS_PER_BATCH, **LLAMA_405B)  # type: ignore[arg-type]


@pytest.mark.parametrize(("gpus", "tp", "cp", "pp", "dp", "seq", "per_dp", "tflops"), LLAMA_TABLE_4)
def test_llama3_given_split_places_tp_in_the_hgx_node_and_fits(h100: Tiers, gpus: int, tp: int, cp: int, pp: int,
                                                               dp: int, seq: int, per_dp: int, tflops: float) -> None:
    split = Split(tp=tp, cp=cp, pp=pp, dp=dp)
    assert split.gpus == gpus                                       # Table 4's GPUs column
    shape = llama(seq)
    # The paper's own MFU: its TFLOP/s over the H100's 989 TFLOP/s dense BF16 (Table 4: 43/41/38 %).
    p = split_training("llama3-405b", shape, h100, gpus, 989e12, tflops / 989e12, H100_USABLE, given=split)
    assert not p.proposed and p.split == split
    assert p.tiers["tp"] == "scale-up"                              # TP 8 inside the 8-GPU NVLink node
    assert p.tiers["pp"] == "scale-out" and p.tiers["dp"] == "scale-out"
    if cp > 1:
        assert p.tiers["cp"] == "scale-out"                         # TP x CP = 128 GPUs: 16 nodes
    assert p.memory_gb <= p.memory_limit_gb                         # the memory check passes
    assert microbatches(shape, split) == per_dp                     # Table 4: batch size per DP group
    # The step at the paper's throughput: 6 x 405e9 x 2^24 FLOP over the GPUs' TFLOP/s.
    # Table 4's TFLOP/s per GPU are measured over whole steps; taken as the MFU they give the step's
    # compute (issue 42: the step adds the pipeline bubble and the exposed communication on top, so
    # the tool's step is longer than the paper's measured one; the compute is what Table 4 fixes).
    assert p.compute_s == pytest.approx(6 * 405e9 * 2**24 / (gpus * tflops))
    assert p.step_s == pytest.approx(p.compute_s + p.bubble_s + p.exposed_s)


def test_llama3_split_with_tp_across_nodes_is_refused(h100: Tiers) -> None:
    from bom.errors import BomError

    with pytest.raises(BomError, match="crosses the scale-up boundary: a domain holds 8"):
        split_training("llama3-405b", llama(8192), h100, 8192, 989e12, 0.43, H100_USABLE,
                       given=Split(tp=16, pp=8, dp=64))


# (GPUs, sequence, CP): Table 4's CP column for each configuration.
@pytest.mark.parametrize(("gpus", "seq", "cp"), [(8192, 8192, 1), (16384, 8192, 1), (16384, 131072, 16)])
def test_llama3_proposed_split_has_tp_8_and_fits(h100: Tiers, gpus: int, seq: int, cp: int) -> None:
    shape = llama(seq)
    split = propose(shape, gpus, h100, H100_USABLE)
    assert split.tp == 8                                            # Table 4: TP 8 in every configuration
    assert split.cp == cp                                           # Table 4: CP 16 only for 131,072 tokens
    assert microbatches(shape, split) >= split.pp                   # the pipeline is kept full
    assert split.gpus == gpus
    assert memory_bytes(shape, split) <= H100_USABLE
    assert split.pp <= 16 and split.cp <= 16                        # no more model split than the paper's


# --- Megatron-LM -------------------------------------------------------------------------------

#: Table 1 of arXiv:2104.04473: (parameters, heads, hidden, layers, TP, PP, GPUs, batch size).
MEGATRON_TABLE_1 = [
    (1.7e9, 24, 2304, 24, 1, 1, 32, 512),
    (3.6e9, 32, 3072, 30, 2, 1, 64, 512),
    (7.5e9, 32, 4096, 36, 4, 1, 128, 512),
    (18.4e9, 48, 6144, 40, 8, 1, 256, 1024),
    (39.1e9, 64, 8192, 48, 8, 2, 512, 1536),
    (76.1e9, 80, 10240, 60, 8, 4, 1024, 1792),
    (145.6e9, 96, 12288, 80, 8, 8, 1536, 2304),
    (310.1e9, 128, 16384, 96, 8, 16, 1920, 2160),
    (529.6e9, 128, 20480, 105, 8, 35, 2520, 2520),
    (1008.0e9, 160, 25600, 128, 8, 64, 3072, 3072),
]
SEQUENCE = 2048                                   # section 5.1: every model's sequence length
#: Section 5: DGX A100, 8 GPUs of 80 GB a server on NVLink 3 (600 GB/s a GPU both ways, A100
#: datasheet) and eight 200 Gbit/s HDR HCAs (one a GPU).
A100 = Tiers(domain_gpus=8, scale_up_bps=600e9 / 2, scale_out_bps=200e9 / 8)
A100_USABLE = 80e9 * USABLE_MEMORY_FRACTION


@pytest.mark.parametrize(("params", "heads", "hidden", "layers", "tp", "pp", "gpus", "batch"), MEGATRON_TABLE_1)
def test_megatron_table_1_splits_run_on_dgx_a100(params: float, heads: int, hidden: int, layers: int, tp: int,
                                                 pp: int, gpus: int, batch: int) -> None:
    shape = Shape(params, layers, hidden, heads, SEQUENCE, batch * SEQUENCE)
    dp = gpus // (tp * pp)
    assert dp * tp * pp == gpus                                     # Table 1's GPUs hold whole groups
    split = Split(tp=tp, pp=pp, dp=dp)
    p = split_training("gpt", shape, A100, gpus, 312e12, 0.45, A100_USABLE, given=split)   # A100: 312 TFLOP/s BF16
    assert p.tiers["tp"] == "scale-up"                              # TP within the 8-GPU server
    if pp > 1:
        assert p.tiers["pp"] == "scale-out"                         # pipeline stages across servers
    assert p.memory_gb <= p.memory_limit_gb
    assert p.microbatches == batch // dp                            # sequences per pipeline per step


def test_megatron_proposal_keeps_tp_within_the_server() -> None:
    """For the 1T model the tool, like the paper, runs out of one-stage options and uses TP 8."""
    params, heads, hidden, layers, _, _, gpus, batch = MEGATRON_TABLE_1[-1]
    shape = Shape(params, layers, hidden, heads, SEQUENCE, batch * SEQUENCE)
    split = propose(shape, gpus, A100, A100_USABLE)
    assert split.tp == 8 and split.gpus == gpus
    assert memory_bytes(shape, split) <= A100_USABLE
