"""Exposed communication counts (issue 42, item 7): the step is the compute plus the pipeline bubble
and the communication the split cannot hide; the job's days and cost follow; the proposer takes the
split with the shortest step; DP replicas follow the sites' sizes. The 504-GPU MoE job of the issue
(tests/topology/moe_504_two_sites.yaml) is hand-checked in bom/topology/parallelism.py: plan."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bom.model.parallelism import Split, Tiers
from bom.topology.parallelism import Shape, propose, split_training, step_time

MOE_YAML = Path(__file__).with_name("moe_504_two_sites.yaml")
MOE = Shape(1e12, 64, 8192, 64, 4096, 8 * 2**20, active_params=40e9, experts=64, top_k=2)
GB300 = Tiers(72, 900e9, 100e9, sites=2, dci_bps=3.2e12, site_gpus=(288, 216))
STEPS = 30e12 / (8 * 2**20)


def _build(catalog, text: str):   # type: ignore[no-untyped-def]
    from bom.inputs.scenario import scenario_from_text
    from bom.inputs.yamlio import load_text
    from bom.pipeline import build_scenario

    return build_scenario(scenario_from_text(text), load_text(text, "s.yaml"), catalog)


def test_the_moe_job_s_step_days_and_cost_count_its_exposed_communication(catalog):
    model = _build(catalog, MOE_YAML.read_text())
    p = model.sizing.parallelism
    assert model.cluster.gpus == 504 and model.cluster.nodes_by_site == (72, 54)   # 288 + 216 GPUs
    assert (p.split, p.dp_sites, p.gpus) == (Split(tp=1, ep=8, pp=4, dp=120), (72, 48), 480)
    assert p.step_s == pytest.approx(p.compute_s + p.bubble_s + p.exposed_s)
    assert (round(p.compute_s, 3), round(p.bubble_s, 3), round(p.exposed_s, 3), round(p.step_s, 3)) == \
        (2.097, 0.37, 1.443, 3.91)
    from bom.pipeline import report_of

    job = report_of(model, catalog).job
    # Before issue 42: 7.2e24 FLOP / (504 x 5e15 x 0.4) = 82.7 days at the MFU alone.
    assert job.wall_days == pytest.approx(STEPS * p.step_s / 86400, rel=1e-9)
    assert round(job.wall_days, 1) == 161.8 and job.step_factor == pytest.approx(161.843 / 82.672, rel=1e-4)
    assert job.gpu_hours == pytest.approx(job.wall_days * 24 * 504)
    assert job.cost_usd == pytest.approx(job.gpu_hours * job.usd_per_gpu_hour)


def test_the_job_line_says_the_deadline_is_missed(bom):
    r = bom("build", str(MOE_YAML), "-o", str(Path("/tmp") / "bom-moe-504-test"))
    assert r.exit_code == 0, r.output
    assert "161.8 days on 504 GPUs" in r.output and "past its 90-day deadline: the step is 1.96 x its compute" \
        in r.output


def test_the_proposer_takes_the_shortest_step():
    """Every TP x EP mix filling the domain's group of 8, each at the first PP whose stage fits and keeps
    its pipelines full (the candidates the proposer weighs), against the one taken: TP 1 x EP 8."""
    from bom.topology.parallelism import memory_bytes, microbatches

    p = split_training("moe", MOE, GB300, 463, 5e15, 0.4, 244.8e9)
    steps = {}
    for tp, ep in ((1, 8), (2, 4), (4, 2), (8, 1)):
        for pp in range(1, 65):
            unit = tp * ep * pp
            s = Split(tp=tp, ep=ep, pp=pp, dp=(288 // unit + 216 // unit) * ep)
            if s.dp and memory_bytes(MOE, s) <= 244.8e9 and microbatches(MOE, s) >= pp:
                steps[(tp, ep)] = (s, step_time(MOE, s, GB300, 5e15, 0.4))
                break
    assert steps[(1, 8)][0] == p.split and steps[(1, 8)][1] == pytest.approx(p.step_s)
    assert p.step_s == min(t for _, t in steps.values()), steps


def test_dp_follows_the_sites_split():
    """sites.split [2, 1]: 7 racks as 5 + 2 (360 + 144 GPUs) hold 11 + 4 groups of 32."""
    tiers = Tiers(72, 900e9, 100e9, sites=2, dci_bps=3.2e12, site_gpus=(360, 144))
    p = split_training("moe", MOE, tiers, 463, 5e15, 0.4, 244.8e9)
    assert p.dp_sites == (88, 32) and p.split.dp == 120
    even = split_training("moe", MOE, Tiers(72, 900e9, 100e9, sites=2, dci_bps=3.2e12), 463, 5e15, 0.4, 244.8e9)
    assert even.dp_sites == (64, 64)            # no sizes known: an even share, as before


def test_the_split_of_a_scenario_follows_its_sites_split(bom, tmp_path):
    text = MOE_YAML.read_text().replace("  count: 2\n", "  split: [2, 1]\n")
    f = tmp_path / "s.yaml"
    f.write_text(text)
    r = bom("size", str(f), "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["parallelism"]["dp_sites"] == [88, 32]


def test_a_dense_model_on_one_stage_keeps_its_smallest_tp():
    """The seeds' 70B job: TP 2 holds it on one stage and moves the least; its step is compute and
    exposed TP traffic (no pipeline, no bubble)."""
    seventy = Shape(70e9, 80, 8192, 64, 8192, 16 * 2**20, kv_dim=8 * 128)
    s = propose(seventy, 2048, Tiers(8, 900e9, 100e9), 240e9, 2.25e15, 0.4)
    assert s == Split(tp=2, dp=1024)
