"""bom export simai: the topology and workload read as SimAI reads them (its readers are C++: ``SetupNetwork``
in astra-sim-alibabacloud/astra-sim/network_frontend/ns3/common.h and ``Workload::initialize_workload`` in
astra-sim/workload/Workload.cc, aliyun/SimAI at cef83f9; ported below token for token), and checked
against the plan and the split they come from."""

from __future__ import annotations

import re
from collections import defaultdict

import pytest

from bom import pipeline
from bom.inputs.scenario import load_scenario
from bom.pipeline import exports
from tests.paths import TESTS

#: The 504-GPU MoE job on GB300 NVL72 in two buildings (EP 8, PP 4: every kind of layer, and the DCI).
MOE = TESTS / "topology" / "moe_504_two_sites.yaml"
TWO_SITE = TESTS / "netbox" / "scenarios" / "two-site.yaml"   # DGX H100: NVLink inside the node


def read_topology(text: str) -> dict:
    """SimAI's SetupNetwork: the head's six fields, the NVSwitch then switch ids (whitespace-separated, as
    ``>>`` reads them), then ``link_num`` links of five fields; node types 0 GPU, 1 switch, 2 NVSwitch."""
    tok = text.split()
    node_num, gpus_per_server, nvswitch_num, switch_num, link_num = map(int, tok[:5])
    gpu_type, at = tok[5], 6
    node_type = [0] * node_num
    for kind, count in ((2, nvswitch_num), (1, switch_num)):
        for _ in range(count):
            node_type[int(tok[at])] = kind   # an id past node_num is an IndexError, as SimAI's vector is
            at += 1
    links = []
    for _ in range(link_num):
        src, dst, rate, delay, err = tok[at:at + 5]
        at += 5
        assert 0 <= int(src) < node_num and 0 <= int(dst) < node_num
        assert re.fullmatch(r"\d+(\.\d+)?(e\+\d+)?Gbps", rate) and re.fullmatch(r"\d+(\.\d+)?(e[+-]\d+)?ns", delay)
        links.append((int(src), int(dst), float(rate[:-4]), float(delay[:-2]), float(err)))
    assert at == len(tok), "tokens past the last link"
    return {"gpus_per_server": gpus_per_server, "gpu_type": gpu_type, "node_type": node_type, "links": links}


COMM = re.compile(r"NONE|(ALLREDUCE|ALLTOALL|ALLREDUCEALLTOALL|ALLGATHER|REDUCESCATTER)(_EP|_DP_EP)?")


def read_workload(text: str) -> tuple[dict[str, int], list[list[str]]]:
    """Workload::initialize_workload for HYBRID_TRANSFORMER_FWD_IN_BCKWD: the head's ``key: value`` tokens,
    SimAI's format check (every group nonzero; pp_comm given exactly when PP > 1), the layer count, then
    12 fields a layer (name, dependency, and compute time, collective and size for forward, input
    gradient and weight gradient, then the update time)."""
    first, second, *rest = text.split("\n")
    tok = first.split()
    assert tok[0] == "HYBRID_TRANSFORMER_FWD_IN_BCKWD"
    head = {k.rstrip(":"): int(tok[i + 1]) for i, k in enumerate(tok[1:], start=1)
            if k in ("model_parallel_NPU_group:", "ep:", "pp:", "vpp:", "ga:", "all_gpus:", "pp_comm", "pp_comm:")}
    assert all(head.get(k) for k in ("model_parallel_NPU_group", "ep", "pp", "vpp", "ga", "all_gpus"))
    assert (head["pp"] != 1) == bool(head.get("pp_comm"))
    fields = " ".join(rest).split()
    layers = [fields[i:i + 12] for i in range(0, len(fields), 12)]
    assert len(layers) == int(second) and all(len(x) == 12 for x in layers)
    for x in layers:
        assert int(x[1]) == -1 and all(int(x[i]) >= 0 for i in (2, 4, 5, 7, 8, 10, 11))
        assert all(COMM.fullmatch(x[i]) for i in (3, 6, 9)), x
    return head, layers


def _built(path):
    sc, src = load_scenario(path)
    cat = pipeline.catalog_for(sc, src, None, None)
    model = pipeline.build_scenario(sc, src, cat)
    return sc.name, model, exports.rendered(exports.export("simai", model, cat, sc.name))


@pytest.fixture(scope="module")
def moe():
    return _built(MOE)


def _per_gpu(topo):
    """Each GPU's Gbit/s to NVSwitches and to switches."""
    types, out = topo["node_type"], defaultdict(lambda: [0.0, 0.0])
    for a, b, gbps, _, _ in topo["links"]:
        if types[a] == 0:
            out[a][0 if types[b] == 2 else 1] += gbps
    return out


def test_the_nvl72_twin_reads_as_simai_reads_it_at_the_platforms_rates(moe):
    name, model, files = moe
    topo = read_topology(files[f"{name}-simai-topo.txt"].decode())
    types = topo["node_type"]
    gpus = [i for i, t in enumerate(types) if t == 0]
    assert gpus == list(range(model.cluster.gpus))              # GPUs first, ids 0..G-1
    assert topo["gpus_per_server"] == 72 and types.count(2) == 18 * model.cluster.gpus // 72
    # NVLink 5: 1.8 TB/s a GPU both ways (catalogs/platforms.yaml, gb300-nvl72), 7,200 Gbit/s one way;
    # ConnectX-8: 4 x 800 Gbit/s a tray of 4 GPUs, 800 a GPU.
    assert {tuple(v) for v in _per_gpu(topo).values()} == {(7200.0, 800.0)}
    # each NVLink domain's GPUs reach only its own 18 chips (SimAI: id // gpus_per_server)
    for a, b, *_ in topo["links"]:
        if types[a] == 0 and types[b] == 2:
            assert a // 72 == (b - model.cluster.gpus) // 18


def test_the_twin_joins_the_sites_at_the_dci_bandwidth_and_the_routes_delay(moe):
    name, model, files = moe
    topo = read_topology(files[f"{name}-simai-topo.txt"].decode())
    types = topo["node_type"]
    switch_links = [x for x in topo["links"] if types[x[0]] == 1 and types[x[1]] == 1]
    dci = [x for x in switch_links if x[3] > 1000]
    assert len(dci) == 1
    assert dci[0][2] == pytest.approx(model.dci.bandwidth_gbps)      # 64 x 400G wavelengths
    assert dci[0][3] == pytest.approx(model.dci.distance_m * 4.9)    # 40 km at 4.9 ns/m


def test_the_workload_carries_the_split_and_its_traffic(moe):
    name, model, files = moe
    head, layers = read_workload(files[f"{name}-simai-workload.txt"].decode())
    p = model.sizing.parallelism
    s = p.split
    assert (head["model_parallel_NPU_group"], head["ep"], head["pp"], head["ga"], head["all_gpus"]) == \
        (s.tp, s.ep, s.pp, p.microbatches, s.gpus)
    by = {x[0]: x for x in layers}
    assert sum(int(by["step_compute"][i]) for i in (2, 5, 8)) == pytest.approx(p.compute_s * 1e9, rel=1e-6)
    traffic = {t.dim: t.bytes_per_gpu for t in p.traffic}
    # the collectives' sizes give back the bytes a GPU sends (ring: an all-to-all sends (d-1)/d of it)
    ep = int(by["ep_alltoall"][4]) + int(by["ep_alltoall"][7])
    assert ep * (s.ep - 1) / s.ep == pytest.approx(traffic["ep"], rel=1e-6)
    assert head["pp_comm"] * 2 * p.microbatches == pytest.approx(traffic["pp"], rel=1e-6)
    assert by["dp_grad_reduce_scatter"][9] == "REDUCESCATTER" and by["dp_param_all_gather"][9] == "ALLGATHER"


def test_a_dgx_twin_keeps_nvlink_in_the_node_and_names_its_gpu(tmp_path):
    name, model, files = _built(TWO_SITE)
    topo = read_topology(files[f"{name}-simai-topo.txt"].decode())
    assert topo["gpu_type"] == "H100" and topo["gpus_per_server"] == 8
    # NVLink 4: 900 GB/s a GPU both ways, 3,600 Gbit/s one way; 8 x 400G ConnectX-7 ports, one a GPU
    assert {tuple(v) for v in _per_gpu(topo).values()} == {(3600.0, 400.0)}
    assert f"{name}-simai-workload.txt" not in files   # the scenario sizes no job's split


@pytest.mark.slow
def test_the_defaults_twin_reads_as_simai_reads_it(default_report, catalog):
    """The default design, 4,608 GB300 GPUs in two buildings (no workload: the topology alone)."""
    model = default_report.model
    files = exports.rendered(exports.export("simai", model, catalog, "gb300-two-sites"))
    assert set(files) == {"gb300-two-sites-simai-topo.txt"}
    topo = read_topology(files["gb300-two-sites-simai-topo.txt"].decode())
    assert topo["node_type"].count(0) == model.cluster.gpus == 4608
    assert {tuple(v) for v in _per_gpu(topo).values()} == {(7200.0, 800.0)}


def test_a_torus_is_refused_with_the_export_that_lists_it(tmp_path):
    from bom.errors import BomError

    path = tmp_path / "tpu.yaml"
    path.write_text("name: t\nplatform: tpu-v4-pod\ngpus: 64\nfabrics:\n  compute: {}\n")
    with pytest.raises(BomError) as e:
        _built(path)
    assert "optical circuit switches" in e.value.message and "expected-topology" in (e.value.hint or "")
