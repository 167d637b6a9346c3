"""A serving job is sized as its replicas (each holding its own weights), `bom size` and `bom build` take
the same count, and the decode step (HBM bandwidth) and a tokens/s target set the replicas."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bom.errors import LimitError
from bom.model.parallelism import Split, Tiers
from bom.topology.serving import Chip, ServeShape, check, decode, sequences_at, split_serving
from tests.topology.test_serving import JOB

#: The catalog's dgx-h100 as plain numbers: 8 to a domain, NVLink 4 at 450 GB/s one way, 3.35 TB/s
#: of HBM and 989 TFLOP/s dense BF16 (catalogs/platforms.yaml), 68 GB usable of 80.
H100 = Tiers(8, 450e9, 50e9)
H100_CHIP = Chip(3.35e12, 989e12)
SEVENTY = ServeShape(70e9, 2.0, 80, 8192, 64, 8, 327680, 32768, 64)


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return str(path)


def build_gpus(text: str, catalog) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """What `bom build` takes: the sizing's count and the GPUs of the cluster it builds."""
    from bom.inputs.scenario import scenario_from_text
    from bom.inputs.yamlio import load_text
    from bom.pipeline import build_scenario

    model = build_scenario(scenario_from_text(text), load_text(text, "s.yaml"), catalog)
    assert model.sizing is not None
    return model.sizing.gpus, model.cluster.gpus


def test_size_and_build_take_the_replicas_gpus(bom, tmp_path, catalog):
    # 70B in BF16 for 64 users of 32,768 tokens: 827 GB is 13 GPUs of 68 GB by memory (the weights counted
    # once), but each replica holds its own 140 GB: 2 replicas of TP 8 (37 sequences each) run on 16.
    r = bom("size", write(tmp_path, JOB), "--json")
    doc = json.loads(r.stdout)
    assert (doc["gpus_by_memory"], doc["gpus_by_replicas"], doc["gpus"], doc["decided_by"]) == (13, 16, 16, "replicas")
    assert build_gpus(JOB, catalog) == (16, 16)                 # two DGX H100, not the 13 (two nodes either way)
    # The user's TP 4 takes 6 replicas of 4: 24 GPUs, three DGX; size and build agree again.
    given = JOB + "  parallelism: {tp: 4}\n"
    assert json.loads(bom("size", write(tmp_path, given), "--json").stdout)["gpus"] == 24
    assert build_gpus(given, catalog) == (24, 24)


def test_fewest_gpus_in_all_not_the_smallest_replica():
    # TP 4 x 6 replicas = 24 GPUs against TP 8 x 2 = 16: every replica carries its 140 GB of weights, so the
    # wider group that holds 37 sequences beside them takes fewer GPUs in all.
    p = split_serving("70B", SEVENTY, H100, 68e9)
    assert (p.split.tp, p.split.dp, p.gpus, p.sequences_capacity) == (8, 2, 16, 37)
    assert split_serving("70B", SEVENTY, H100, 68e9, Split(tp=4, dp=6)).gpus == 24


def test_decode_is_memory_bound_and_a_target_caps_the_sequences():
    # Hand-worked in bom/topology/serving.py (decode): TP 4 with 11 sequences reads 64.5 GB a GPU a step.
    d = decode(SEVENTY, Split(tp=4, dp=6), H100, H100_CHIP, 11)
    assert d.bound == "memory" and d.read_s == pytest.approx((35e9 + 11 * 32768 * 327680 / 4) / 3.35e12)
    assert d.tokens_per_s_user == pytest.approx(1 / d.read_s) and d.tokens_per_s_replica == pytest.approx(11 / d.read_s)
    # 80 tokens/s a user is 12.5 ms a step: TP 8 reads 17.5 GB of weights and 1.34 GB a sequence, so
    # (41.9 GB - 17.5 GB) / 1.34 GB = 18 sequences... less the comm and rounding: the bisection's answer.
    n = sequences_at(SEVENTY, Split(tp=8), H100, H100_CHIP, 80.0, 37)
    assert decode(SEVENTY, Split(tp=8), H100, H100_CHIP, n).tokens_per_s_user >= 80.0
    assert decode(SEVENTY, Split(tp=8), H100, H100_CHIP, n + 1).tokens_per_s_user < 80.0
    assert n == int((12.5e-3 * 3.35e12 - 17.5e9) // (32768 * 327680 / 8))
    p = split_serving("70B", SEVENTY, H100, 68e9, chip=H100_CHIP, target=80.0)
    assert p.split.tp == 8 and p.split.dp == -(-64 // n) and p.decode is not None
    assert p.decode.tokens_per_s_user >= 80.0 and p.tokens_per_s_target == 80.0


def test_size_sizes_replicas_from_the_target(bom, tmp_path, catalog):
    text = JOB + "  tokens_per_s_per_user: 80\n"
    r = bom("size", write(tmp_path, text))
    assert r.exit_code == 0, r.output
    assert "TP 8 a replica (8 GPUs) x 4 replicas = 32 GPUs" in r.output
    assert "memory-bound" in r.output and "target 80 a user (workload.tokens_per_s_per_user)" in r.output
    doc = json.loads(bom("size", write(tmp_path, text), "--json").stdout)
    assert doc["gpus"] == 32 and doc["parallelism"]["decode"]["tokens_per_s_user"] >= 80
    assert doc["parallelism"]["decode"]["hbm_gbps"] == pytest.approx(3350)
    assert build_gpus(text, catalog) == (32, 32)


def test_a_target_no_replica_reaches_is_refused_with_the_key(bom, tmp_path):
    r = bom("size", write(tmp_path, JOB + "  tokens_per_s_per_user: 1000\n"))
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert "workload.tokens_per_s_per_user" in r.output and "gives a user 1,000 tokens/s" in r.output
    # The fastest in-domain replica, TP 8 with one sequence: 17.5 GB + 1.34 GB read at 3.35 TB/s.
    assert "the fastest gives 177.8 at one sequence" in r.output


def test_a_given_split_too_slow_for_the_target_is_refused():
    with pytest.raises(LimitError, match="short of workload.tokens_per_s_per_user 80") as e:
        check(SEVENTY, Split(tp=8, dp=2), H100, 68e9, H100_CHIP, 80.0)
    assert "Raise dp" in (e.value.hint or "")


def test_target_needs_serving_the_shape_and_the_bandwidth(bom, tmp_path):
    r = bom("size", write(tmp_path, JOB.replace("kind: serve", "kind: pretrain") + "  tokens_per_s_per_user: 30\n"))
    assert r.exit_code == 2 and "tokens_per_s_per_user is a serving target" in r.output
    r = bom("size", write(tmp_path, JOB.replace("  hidden: 8192\n", "") + "  tokens_per_s_per_user: 30\n"))
    assert r.exit_code == 2 and "tokens_per_s_per_user needs the model's shape: add hidden" in r.output
    # A platform row without memory bandwidth (every built-in row gives one; an overlay's may not): the
    # decode step is not worked out, the target refused.
    overlay = no_bandwidth(tmp_path)
    r = bom("size", write(tmp_path, JOB.replace("dgx-h100", "h100-no-bw") + "  tokens_per_s_per_user: 30\n"),
            "--catalog", overlay)
    assert r.exit_code == 2 and "needs the platform's memory bandwidth per GPU" in r.output
    r = bom("size", write(tmp_path, JOB.replace("dgx-h100", "h100-no-bw")), "--catalog", overlay)
    assert r.exit_code == 0 and "decode step: not worked out (the platform row gives no memory_bandwidth)" in r.output


def no_bandwidth(tmp_path: Path) -> str:
    """A catalog overlay with dgx-h100's row as ``h100-no-bw``, without its memory bandwidth."""
    import yaml

    from bom.resources import data_dir

    rows = yaml.safe_load((data_dir("catalogs") / "platforms.yaml").read_text())["platforms"]
    row = next(r for r in rows if r["id"] == "dgx-h100")
    row = {k: v for k, v in row.items() if not k.startswith("memory_bandwidth")} | {"id": "h100-no-bw"}
    overlay = tmp_path / "cat"
    overlay.mkdir()
    (overlay / "platforms.yaml").write_text(yaml.safe_dump({"platforms": [row]}))
    return str(overlay)
