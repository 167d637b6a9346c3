"""The serving split from the command line: TP (and EP) per replica in the domain, replicas across,
its checks, its traffic per decode step, and where it is shown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bom.errors import BomError
from bom.model.parallelism import Split, Tiers
from bom.topology.serving import ServeShape, check, split_serving

#: Llama 3 70B (arXiv:2407.21783, Table 3: 80 layers, model dimension 8,192, 64 heads, 8 KV heads
#: of 128) in BF16 for 64 users of 32,768 tokens, the seed's serving job at BF16.
JOB = """name: s70
platform: dgx-h100
workload:
  name: serve 70B
  kind: serve
  params: 70B
  layers: 80
  hidden: 8192
  heads: 64
  kv_heads: 8
  head_dim: 128
  users: 64
  context: 32768
"""

#: A mixture of experts shaped like Mixtral 8x22B (141B parameters, 56 layers, hidden 6,144, 48
#: heads, 8 KV heads of 128, 8 experts, 2 a token; Mistral AI's model card) on 8-GPU domains.
MOE = ServeShape(141e9, 2.0, 56, 6144, 48, 8, 2 * 56 * 8 * 128 * 2, 32768, 32, experts=8, top_k=2)
H100 = Tiers(8, 450e9, 50e9)


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return str(path)


def test_size_prints_the_replicas_and_the_traffic(bom, tmp_path):
    r = bom("size", write(tmp_path, JOB))
    assert r.exit_code == 0, r.output
    # The doctest's hand-worked case (bom/topology/serving.py: propose, split_serving): TP 8 x 2 replicas,
    # 146.8 MB a GPU.
    assert "Serving split (proposed): TP 8 a replica (8 GPUs) x 2 replicas = 16 GPUs" in r.output
    assert any(line.split()[:4] == ["TP", "all-reduce", "scale-up", "146.80"] for line in r.output.splitlines())
    # The sizing takes the replicas' 16 GPUs, not the 13 its memory total (the weights counted once) asks.
    row = next(line.split() for line in r.output.splitlines() if line.startswith("serve 70B"))
    assert row[2:5] == ["13", "-", "16"] and "replicas" in row and "note:" not in r.output


def test_size_json_has_the_serving_parallelism(bom, tmp_path):
    r = bom("size", write(tmp_path, JOB), "--json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    p = doc["parallelism"]
    assert (p["kind"], p["tp"], p["ep"], p["pp"], p["dp"], p["replica_gpus"], p["gpus"]) == \
        ("serve", 8, 1, 1, 2, 8, 16)
    assert p["tiers"] == {"tp": "scale-up", "dp": "scale-out"}
    assert [t["dim"] for t in p["traffic"]] == ["tp"]          # nothing between replicas
    assert p["traffic"][0]["bytes_per_gpu"] == pytest.approx(80 * 2 * 2 * 7 / 8 * 32 * 8192 * 2)
    assert (doc["gpus_by_memory"], doc["gpus_by_replicas"], doc["gpus"], doc["decided_by"]) == \
        (13, 16, 16, "replicas")


def test_users_serving_split_is_used_and_dp_defaults_to_the_replicas_needed(bom, tmp_path):
    r = bom("size", write(tmp_path, JOB + "  parallelism: {tp: 4}\n"), "--json")
    p = json.loads(r.stdout)["parallelism"]
    # TP 4: 35 GB of weights a GPU leaves 33 GB, 4 x 33 / 10.74 = 12 sequences a replica: 6 replicas.
    assert (p["proposed"], p["tp"], p["dp"], p["sequences_capacity"], p["gpus"]) == (False, 4, 6, 12, 24)
    assert json.loads(r.stdout)["gpus"] == 24     # the given split's replicas, the build's count


def test_serving_tp_past_the_domain_is_refused(bom, tmp_path):
    r = bom("size", write(tmp_path, JOB + "  parallelism: {tp: 16}\n"))
    assert r.exit_code == 2
    assert "TP 16 = 16 GPUs crosses the scale-up boundary: a domain holds 8" in r.output
    assert "workload.parallelism" in r.output


def test_serving_split_whose_replicas_cannot_hold_the_users_is_refused(bom, tmp_path):
    r = bom("size", write(tmp_path, JOB + "  parallelism: {tp: 4, dp: 2}\n"))
    assert r.exit_code == 2 and "32 sequences a replica" in r.output and "Raise dp" in r.output
    r = bom("size", write(tmp_path, JOB + "  parallelism: {tp: 2}\n"))
    assert r.exit_code == 2 and "the weights alone do not fit" in r.output


def test_serving_refuses_cp_and_needs_the_shape(bom, tmp_path):
    r = bom("size", write(tmp_path, JOB + "  parallelism: {tp: 4, cp: 2}\n"))
    assert r.exit_code == 2 and "parallelism.cp splits a training sequence" in r.output
    r = bom("size", write(tmp_path, JOB.replace("  hidden: 8192\n", "") + "  parallelism: {tp: 4}\n"))
    assert r.exit_code == 2 and "parallelism needs the model's shape: add hidden" in r.output


def test_a_serving_job_without_hidden_and_heads_is_sized_as_before(bom, tmp_path):
    r = bom("size", write(tmp_path, JOB.replace("  hidden: 8192\n  heads: 64\n", "")), "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["parallelism"] is None


def test_moe_replica_takes_ep_inside_the_domain():
    # 282 GB of BF16 weights: 4 GPUs hold 272 GB, 8 hold 544; of the 8-GPU groups, EP 8 over the 8 experts.
    p = split_serving("moe", MOE, H100, 68e9)
    assert (p.split.tp, p.split.ep, p.split.dp) == (1, 8, 1) and p.tiers["ep"] == "scale-up"
    ep = [t for t in p.traffic if t.dim == "ep"][0]
    # 56 layers x 2 all-to-alls x 7/8 x top-2 x 32/8 tokens a rank x 6,144 x 2 B.
    assert ep.bytes_per_gpu == pytest.approx(56 * 2 * 7 / 8 * 2 * 4 * 6144 * 2)
    with pytest.raises(BomError, match="TP 2 x EP 8 = 16 GPUs crosses the scale-up boundary"):
        check(MOE, Split(tp=2, ep=8), H100, 68e9)
    with pytest.raises(BomError, match="EP 3 does not divide the 8 experts"):
        check(MOE, Split(tp=1, ep=3, dp=4), Tiers(6, 450e9, 50e9), 68e9)


def test_report_json_and_summary_show_the_serving_split(catalog):
    from bom.inputs.scenario import scenario_from_text
    from bom.inputs.yamlio import load_text
    from bom.outputs.writers.documents import write_html, write_json, write_markdown
    from bom.pipeline import build_scenario, report_of
    from tests.outputs.test_output_schema import _errors

    report = report_of(build_scenario(scenario_from_text(JOB), load_text(JOB, "s.yaml"), catalog), catalog)
    doc = json.loads(write_json(report))
    assert _errors("build", doc) == [] and doc["parallelism"]["kind"] == "serve"
    md = write_markdown(report).decode()
    assert "The tool's serving split: TP 8 a replica (8 GPUs) x 2 replicas = 16 GPUs" in md
    assert "| scale-up | TP 8 | 146.80 | 326.2 |" in md
    assert "| scale-out | 2 replicas, no traffic between them | 0.00 | 0.0 |" in md
    # The decode step at 3.35 TB/s: 60.4 GB a GPU read in 18.04 ms (bom/topology/serving.py: decode).
    assert "A decode step takes at least 18.04 ms (memory-bound: HBM read 18.04 ms at 3,350 GB/s" in md
    assert "at most 55.4 tokens/s a user and 1,773 a replica." in md
    html = write_html(report).decode()
    assert 'id="parallelism"' in html and 'aria-label="serving split on the tiers"' in html
    assert "at most 55.4 tokens/s a user and 1,773 a replica" in html
    assert doc["parallelism"]["decode"]["bound"] == "memory"
