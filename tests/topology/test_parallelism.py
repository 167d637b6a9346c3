"""The parallelism stage from the command line: the split, its checks, its traffic, and the DCI it sizes."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from bom.model.parallelism import Split, Tiers
from bom.topology.parallelism import Shape, check, split_training

#: The seeds' 70B pretraining job (levels.go) with Llama 3 70B's shape (arXiv:2407.21783, Table 3:
#: 80 layers, model dimension 8,192, 64 heads, 8 KV heads) and a 16M-token batch (Table 4).
JOB = """name: p70
platform: dgx-b200
workload:
  name: pretrain 70B
  kind: pretrain
  params: 70B
  tokens: 15T
  deadline: "60 d"
  layers: 80
  hidden: 8192
  heads: 64
  kv_heads: 8
  head_dim: 128
  sequence: 8192
  batch_tokens: 16M
"""
TWO_SITES = 'sites: {count: 2, distance: "40 km", dci_bandwidth: auto, dci_overlap: 0.5}\n' \
            "fabrics: {inband: {switch: sn5600}}\n"


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return str(path)


def test_size_prints_the_split_and_the_traffic(bom, tmp_path):
    r = bom("size", write(tmp_path, JOB))
    assert r.exit_code == 0, r.output
    assert "Parallelism (proposed): TP " in r.output
    assert any(line.split()[:3] == ["TP", "all-reduce", "scale-up"] for line in r.output.splitlines())
    assert "exposed communication" in r.output


def test_size_json_has_the_parallelism(bom, tmp_path):
    r = bom("size", write(tmp_path, JOB + TWO_SITES), "--json")
    assert r.exit_code == 0, r.output
    p = json.loads(r.stdout)["parallelism"]
    assert p["tp"] * p["cp"] * p["pp"] * p["dp"] == p["gpus"] >= json.loads(r.stdout)["gpus"]
    assert p["tiers"]["tp"] == "scale-up" and p["tiers"]["dp"] == "scale-across"
    # A site sends (k-1)/k of 6 B a parameter: 70e9 x 6 / 2 = 210 GB a step.
    assert p["dci_bytes_per_site"] == pytest.approx(210e9)
    across = [t for t in p["traffic"] if t["dim"] == "dp-across"][0]
    # auto: exactly the overlap's share of the compute (the step adds the exposed part on top)
    assert across["seconds"] == pytest.approx(0.5 * p["compute_s"])
    assert p["dci_gbps_needed"] == pytest.approx(210e9 * 8 / (0.5 * p["compute_s"]) / 1e9)
    assert p["step_s"] == pytest.approx(p["compute_s"] + p["bubble_s"] + p["exposed_s"])


def test_users_split_with_tp_past_the_domain_is_refused(bom, tmp_path):
    r = bom("size", write(tmp_path, JOB + "  parallelism: {tp: 16, pp: 2}\n"))
    assert r.exit_code == 2
    assert "TP 16 = 16 GPUs crosses the scale-up boundary: a domain holds 8" in r.output
    assert "workload.parallelism" in r.output


def test_users_split_that_does_not_fit_memory_is_refused(bom, tmp_path):
    r = bom("size", write(tmp_path, JOB + "  parallelism: {tp: 1, pp: 1, dp: 64}\n"))
    assert r.exit_code == 2 and "past the 153.0 GB usable" in r.output and "Raise pp" in r.output


def test_users_split_is_used(bom, tmp_path):
    r = bom("size", write(tmp_path, JOB + "  parallelism: {tp: 8, pp: 4, dp: 48}\n"), "--json")
    p = json.loads(r.stdout)["parallelism"]
    assert (p["proposed"], p["tp"], p["pp"], p["dp"], p["gpus"]) == (False, 8, 4, 48, 1536)
    assert p["tiers"] == {"tp": "scale-up", "pp": "scale-out", "dp": "scale-out"}


def test_parallelism_needs_the_shape(bom, tmp_path):
    text = JOB.replace("  hidden: 8192\n", "") + "  parallelism: {tp: 8}\n"
    r = bom("size", write(tmp_path, text))
    assert r.exit_code == 2 and "parallelism needs the model's shape: add hidden" in r.output


def test_dci_auto_needs_an_overlap_and_a_job(bom, tmp_path):
    r = bom("size", write(tmp_path, JOB + TWO_SITES.replace(", dci_overlap: 0.5", "")))
    assert r.exit_code == 2 and "dci_bandwidth: auto needs dci_overlap" in r.output
    r = bom("build", write(tmp_path, "name: x\nplatform: dgx-b200\ngpus: 64\n" + TWO_SITES), "-o", str(tmp_path))
    assert r.exit_code == 2 and "sizes the DCI from a training job" in r.output


def test_build_summary_names_the_split(bom, tmp_path):
    r = bom("build", write(tmp_path, JOB + TWO_SITES), "-o", str(tmp_path / "out"))
    assert r.exit_code == 0, r.output
    assert "  split: TP " in r.output and "210 GB a site a step between sites" in r.output


def test_dci_auto_builds_the_wavelengths_the_job_needs(tmp_path, catalog):
    from bom.inputs.scenario import scenario_from_text
    from bom.inputs.yamlio import load_text
    from bom.pipeline import build_scenario

    text = JOB + TWO_SITES
    model = build_scenario(scenario_from_text(text), load_text(text, "s.yaml"), catalog)
    split = model.sizing.parallelism
    assert split is not None and split.dci_gbps_needed
    assert model.dci.bandwidth_gbps == pytest.approx(split.dci_gbps_needed)
    assert model.dci.wavelengths_per_pair == math.ceil(split.dci_gbps_needed / 400)
    assert model.to_json()["parallelism"]["dci_overlap"] == 0.5


# --- the pure functions ------------------------------------------------------------------------

MOE = Shape(params=1e12, layers=64, hidden=8192, heads=64, sequence=4096, batch_tokens=2**24, active_params=40e9,
            experts=64, top_k=2)
NVL72 = Tiers(domain_gpus=72, scale_up_bps=900e9, scale_out_bps=100e9)


def test_ep_stays_in_the_domain_beside_tp():
    p = split_training("moe", MOE, NVL72, 4096, 2.25e15, 0.4, 244.8e9)
    s = p.split
    assert s.tp * s.ep <= 72 and 72 % (s.tp * s.ep) == 0 and MOE.experts % s.ep == 0 and s.ep > 1
    assert p.tiers["ep"] == "scale-up"
    assert [t.dim for t in p.traffic if t.dim in ("tp", "ep")] == (["tp", "ep"] if s.tp > 1 else ["ep"])


def test_ep_past_the_domain_is_refused():
    from bom.errors import BomError

    with pytest.raises(BomError, match="TP 8 x EP 16 = 128 GPUs crosses the scale-up boundary"):
        check(MOE, Split(tp=8, ep=16, pp=4, dp=64), NVL72, 244.8e9)


def test_exposed_share_grows_as_the_dci_narrows():
    seventy = Shape(70e9, 80, 8192, 64, 8192, 2**24, kv_dim=1024)
    wide = split_training("70B", seventy, Tiers(8, 900e9, 100e9, sites=2, dci_bps=10e12 / 8), 2048, 2.25e15, 0.4,
                          244.8e9)
    narrow = split_training("70B", seventy, Tiers(8, 900e9, 100e9, sites=2, dci_bps=400e9 / 8), 2048, 2.25e15, 0.4,
                            244.8e9)
    assert narrow.exposed_s > wide.exposed_s
    # 210 GB over one 400G wavelength is 4.2 s, past the backward pass's 2/3 of a 3.82 s step.
    across = [t for t in narrow.traffic if t.dim == "dp-across"][0]
    assert across.seconds == pytest.approx(210e9 * 8 / 400e9)


def test_report_json_and_summary_show_the_parallelism(catalog):
    """The report's own section (HTML with the split drawn on the tiers, Markdown), and the build JSON
    against the output schema."""
    from bom.inputs.scenario import scenario_from_text
    from bom.inputs.yamlio import load_text
    from bom.outputs.writers.documents import write_html, write_json, write_markdown
    from bom.pipeline import build_scenario, report_of
    from tests.outputs.test_output_schema import _errors

    text = JOB + TWO_SITES.replace("auto, dci_overlap: 0.5", '"1.6 Tbit/s"')
    report = report_of(build_scenario(scenario_from_text(text), load_text(text, "s.yaml"), catalog), catalog)
    doc = json.loads(write_json(report))
    assert _errors("build", doc) == []
    par = report.model.sizing.parallelism
    across = [t for t in par.traffic if t.dim == "dp-across"][0]
    assert across.seconds == pytest.approx(210e9 * 8 / 1.6e12)       # a given DCI's cost in step time
    md = write_markdown(report).decode()
    assert "## Parallelism" in md and "| scale-across | DP across 2 sites |" in md
    assert "Between sites a site sends 210 GB a step" in md
    html = write_html(report).decode()
    assert 'id="parallelism"' in html and 'aria-label="parallelism on the tiers"' in html


def test_a_split_smaller_than_the_deadline_needs_says_so(bom, tmp_path):
    r = bom("size", write(tmp_path, JOB + "  parallelism: {tp: 8, pp: 4, dp: 32}\n"))
    assert r.exit_code == 0, r.output
    assert "the split runs on 1,024 GPUs, fewer than the 1,351 the sizing asks for" in r.output


def test_a_split_whose_replicas_overfill_a_site_is_refused(bom, tmp_path):
    """DP shares out over the sites in proportion to their GPUs (issue 42): 1,351 GPUs of DGX B200 are
    85 + 84 nodes, 680 + 672 GPUs; 44 replicas of 32 GPUs go 22 + 22, and site 1's take 704."""
    r = bom("size", write(tmp_path, JOB + "  parallelism: {tp: 8, pp: 4, dp: 44}\n" + TWO_SITES))
    assert r.exit_code == 2, r.output
    assert "DP 44 shares out over the sites in proportion to the groups they hold (22 + 22), and site 1's 22 " \
           "replicas " \
           "of 32 GPUs take 704, past the 680 it builds" in r.output
    r = bom("size", write(tmp_path, JOB + "  parallelism: {tp: 8, pp: 4, dp: 1}\n" + TWO_SITES))
    assert r.exit_code == 2 and "DP 1 does not share out over 2 sites" in r.output


def test_an_odd_dp_shares_out_over_two_sites(bom, tmp_path):
    """33 replicas no longer need an even share: 17 + 16, each site whole pipelines (before issue 42
    refused: 'DP 33 does not share out over 2 sites')."""
    r = bom("size", write(tmp_path, JOB + "  parallelism: {tp: 8, pp: 4, dp: 33}\n" + TWO_SITES), "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["parallelism"]["dp_sites"] == [17, 16]


def test_dp_left_out_fills_each_site_of_two_unequal(bom, tmp_path):
    """1,351 GPUs of DGX B200 are 680 + 672 over two sites: each holds 21 pipelines of 32 GPUs. With dp
    left out the job's GPUs over TP x PP gave 43 = 22 + 21, which the site-share check refused (site 1's 22
    take 704 of its 680); now dp fills each site's whole groups, 42 = 21 + 21."""
    r = bom("size", write(tmp_path, JOB + "  parallelism: {tp: 8, pp: 4}\n" + TWO_SITES), "--json")
    assert r.exit_code == 0, r.output
    p = json.loads(r.stdout)["parallelism"]
    assert (p["dp"], p["dp_sites"], p["proposed"]) == (42, [21, 21], False)


def test_the_moe_two_site_split_with_dp_left_out_is_the_proposer_s(catalog):
    """The 504-GPU MoE job (288 + 216 GPUs): its proposed split TP 1 x EP 8 x PP 4 given back without dp
    was refused (dp 463 / 4 = 116, which EP 8 does not divide); now it is the proposer's DP 120 = 72 + 48."""
    from tests.topology.test_exposed_step import MOE_YAML, _build

    text = MOE_YAML.read_text().replace("  experts_per_token: 2\n",
                                        "  experts_per_token: 2\n  parallelism: {tp: 1, ep: 8, pp: 4}\n")
    p = _build(catalog, text).sizing.parallelism
    assert p is not None and (p.split.dp, p.dp_sites) == (120, (72, 48))


@pytest.mark.parametrize("site_gpus", [(936, 216), (1008, 72), (1368, 432)])
def test_the_proposer_s_split_passes_its_own_site_check(site_gpus):
    """The 1T MoE on GB300 NVL72 domains of 72, two sites of unequal size: the proposer fills each site
    with its whole groups; the shares (and the check of the same split given back) were in proportion
    to the sites' GPUs and put more groups in the smaller site than it holds (936 + 216 GPUs: 58 + 12
    replicas proposed, 56 + 14 shared, site 2's 14 x 16 = 224 GPUs past its 216)."""
    from bom.topology.parallelism import propose, site_replicas

    moe = Shape(1e12, 64, 8192, 64, 4096, 8 * 2**20, active_params=40e9, experts=64, top_k=2)
    tiers = Tiers(72, 900e9, 100e9, sites=2, dci_bps=3.2e12, site_gpus=site_gpus)
    s = propose(moe, sum(site_gpus), tiers, 244.8e9)
    check(moe, s, tiers, 244.8e9)
    p = split_training("moe", moe, tiers, sum(site_gpus), 5e15, 0.4, 244.8e9, given=s)
    assert p.dp_sites == site_replicas(s.tp * s.cp * s.ep * s.pp, s.ep, site_gpus)


def test_a_model_no_split_holds_is_refused_quickly():
    import time

    from bom.errors import LimitError
    from bom.topology.parallelism import propose

    start = time.perf_counter()
    with pytest.raises(LimitError, match="no split of 1e\\+15 parameters fits 68 GB a GPU with TP 8"):
        propose(Shape(1e15, 100000, 8192, 64, 10**6, 1e9), 1000, Tiers(8, 1e11, 1e10), 68e9)
    assert time.perf_counter() - start < 5       # the search is bounded (MAX_STAGES, divisors by the root)
