"""bom export slurm / k8s: topology.conf (tree and block) and Kubernetes node labels, checked against the
cable plan they are read from, the tree form by Slurm's own slurmctld where it runs (Debian's slurm-wlm)."""

from __future__ import annotations

import getpass
import os
import re
import shutil
import socket
import subprocess
import time
from collections import defaultdict

import pytest
import yaml

from bom import pipeline
from bom.cableplan import rows as plan
from bom.inputs.scenario import load_scenario
from bom.pipeline import exports
from tests.paths import TESTS

TWO_SITE = TESTS / "netbox" / "scenarios" / "two-site.yaml"   # DGX H100: a node is its own NVLink domain
#: Four GB300 NVL72 racks: a domain is a rack's 18 compute trays (NVIDIA GB300 NVL72: 72 GPUs, 18 trays of 4).
NVL = "name: nvl-pod\nplatform: gb300-nvl72\ngpus: 288\nfabrics:\n  compute: {}\n  oob: {}\n"


def expand(hosts: str) -> list[str]:
    """A Slurm hostlist expanded (written apart from the writer's: ``a-[01-03,05],b``)."""
    out = []
    for part in re.findall(r"[^,\[]+(?:\[[^\]]*\])?", hosts):
        m = re.fullmatch(r"(.*)\[(.*)\]", part)
        if m is None:
            out.append(part)
            continue
        for span in m[2].split(","):
            lo, _, hi = span.partition("-")
            out += [f"{m[1]}{n:0{len(lo)}d}" for n in range(int(lo), int(hi or lo) + 1)]
    return out


def _files(path, kind):
    sc, src = load_scenario(path)
    cat = pipeline.catalog_for(sc, src, None, None)
    model = pipeline.build_scenario(sc, src, cat)
    return sc.name, model, cat, exports.rendered(exports.export(kind, model, cat, sc.name))


@pytest.fixture(scope="module")
def two_site():
    return _files(TWO_SITE, "slurm")


@pytest.fixture(scope="module")
def nvl(tmp_path_factory):
    path = tmp_path_factory.mktemp("nvl") / "nvl.yaml"
    path.write_text(NVL)
    return _files(path, "slurm")


def _plan_up(model, cat):
    """Each compute-fabric device's switches above it, straight from the plan's rows."""
    c, up = plan.COL, defaultdict(set)
    for r in plan.rows(model, catalog=cat):
        if r[c["fabric"]] == "compute" and r[c["b_role"]] in ("leaf", "spine", "core"):
            up[r[c["a_device"]]].add(r[c["b_device"]])
    return up


def _entries(text):
    """SwitchName -> (Nodes or Switches, their names expanded); every line a comment or an entry."""
    out = {}
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        m = re.fullmatch(r"SwitchName=(\S+) (Nodes|Switches)=(\S+)", line)
        assert m, line
        out[m[1]] = (m[2], expand(m[3]))
    return out


def test_each_node_stands_under_the_leaves_the_plan_wires_it_to(two_site):
    name, model, cat, files = two_site
    entries = _entries(files[f"{name}-topology-tree.conf"].decode())
    comments = dict(re.findall(r"^# (\S+): (\S+)$", files[f"{name}-topology-tree.conf"].decode(), re.M))
    up = _plan_up(model, cat)
    nodes = {d for d in up if "-node-" in d}
    placed = [n for kind, names in entries.values() if kind == "Nodes" for n in names]
    assert sorted(placed) == sorted(nodes)            # every node once
    for sw, (kind, names) in entries.items():
        if kind == "Nodes":
            assert {s for n in names for s in up[n]} == set(expand(comments[sw]))
    # one root: the sites' spines under their DCI routers
    children = {c for kind, names in entries.values() if kind == "Switches" for c in names}
    assert len(set(entries) - children) == 1


def test_an_nvl72_domain_is_one_block_of_18_trays(nvl):
    name, model, cat, files = nvl
    text = files[f"{name}-topology-block.conf"].decode()
    blocks = {}
    for line in text.splitlines()[1:]:
        m = re.fullmatch(r"BlockName=(\S+) Nodes=(\S+)", line)   # topology.conf(5), Slurm 23.11: topology/block
        assert m, line
        blocks[m[1]] = expand(m[2])
    assert len(blocks) == 288 // 72
    assert all(len(v) == 18 for v in blocks.values())
    c = plan.COL
    racks = defaultdict(set)
    for r in plan.rows(model, catalog=cat, scale_up=True):
        if r[c["tier"]] == "scale-up" and r[c["a_role"]] == "node":
            racks[r[c["b_device"]]].add(r[c["a_device"]])
    assert sorted(map(sorted, blocks.values())) == sorted(map(sorted, {frozenset(v) for v in racks.values()}))


def test_no_block_file_where_nvlink_stays_inside_a_node(two_site):
    name, _, _, files = two_site
    assert set(files) == {f"{name}-topology-tree.conf"}


#: Kubernetes label syntax (kubernetes.io, "Labels and Selectors": syntax and character set).
KEY = re.compile(r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                 r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
VALUE = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$")


def test_k8s_labels_are_valid_and_follow_the_tree(nvl):
    name, model, cat, tree = nvl
    files = exports.rendered(exports.export("k8s", model, cat, name))
    labels = yaml.safe_load(files[f"{name}-k8s-node-labels.yaml"])["nodes"]
    entries = _entries(tree[f"{name}-topology-tree.conf"].decode())
    leaf_of = {n: sw for sw, (kind, names) in entries.items() if kind == "Nodes" for n in names}
    assert set(labels) == set(leaf_of)
    for node, lab in labels.items():
        assert all(KEY.match(k) and VALUE.match(v) for k, v in lab.items()), lab
        assert lab["network.topology.nvidia.com/block"] == leaf_of[node]
        assert lab["network.topology.nvidia.com/accelerator"].startswith("nvl")
        assert lab["topology.kubernetes.io/zone"] == "s1"
    per_domain = defaultdict(set)
    for node, lab in labels.items():
        per_domain[lab["network.topology.nvidia.com/accelerator"]].add(node)
    assert sorted(len(v) for v in per_domain.values()) == [18] * 4


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
def test_slurmctld_reads_the_tree_and_scontrol_shows_it(two_site, tmp_path):
    """Slurm 22.05 (Debian 12's) parses topology/tree; topology/block came in 23.11, so the block file is
    checked against topology.conf(5)'s grammar above, not by this Slurm."""
    name, _, _, files = two_site
    _slurmctld(files[f"{name}-topology-tree.conf"].decode(), tmp_path)


@pytest.mark.slow
def test_slurmctld_reads_the_defaults_tree(default_report, catalog, tmp_path):
    """The default design: 1,152 GB300 trays under 64 leaves, 2 spine groups and the DCI routers."""
    files = exports.rendered(exports.export("slurm", default_report.model, catalog, "gb300-two-sites"))
    entries = _slurmctld(files["gb300-two-sites-topology-tree.conf"].decode(), tmp_path)
    assert sum(len(names) for kind, names in entries.values() if kind == "Nodes") == 1152


def _slurmctld(tree, tmp_path):
    if not shutil.which("slurmctld") or not shutil.which("scontrol"):
        if os.environ.get("CI") == "true":
            pytest.fail("slurmctld is not installed (scripts/test.sh installs slurm-wlm)")
        pytest.skip("slurmctld is not installed (Debian: slurm-wlm)")
    (tmp_path / "topology.conf").write_text(tree)
    entries = _entries(tree)
    nodes = [n for kind, names in entries.values() if kind == "Nodes" for n in names]
    conf = tmp_path / "slurm.conf"
    conf.write_text("\n".join([
        "ClusterName=bomtest", "SlurmctldHost=localhost", f"SlurmctldPort={_free_port()}",
        f"SlurmdPort={_free_port()}", "AuthType=auth/none", "CredType=cred/none", f"SlurmUser={getpass.getuser()}",
        f"StateSaveLocation={tmp_path}/state", f"SlurmdSpoolDir={tmp_path}/spool",
        f"SlurmctldPidFile={tmp_path}/slurmctld.pid", "MpiDefault=none", "MailProg=/bin/true",
        "ProctrackType=proctrack/linuxproc", "TopologyPlugin=topology/tree",
        *(f"NodeName={n} NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN" for n in nodes),
        "PartitionName=all Nodes=ALL Default=YES", ""]))
    (tmp_path / "state").mkdir()
    env = {**os.environ, "SLURM_CONF": str(conf)}
    ctld = subprocess.Popen(["slurmctld", "-D", "-f", str(conf)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, env=env, text=True)
    try:
        shown = ""
        for _ in range(60):
            r = subprocess.run(["scontrol", "show", "topology"], capture_output=True, text=True, env=env,
                               timeout=20)
            if r.returncode == 0 and r.stdout.strip():
                shown = r.stdout
                break
            if ctld.poll() is not None:
                break
            time.sleep(0.5)
    finally:
        ctld.terminate()
        try:
            log = ctld.communicate(timeout=30)[0]
        except subprocess.TimeoutExpired:
            ctld.kill()
            log = ctld.communicate()[0]
    assert shown, log
    got = {m[1]: m[2] for m in re.finditer(r"SwitchName=(\S+) Level=(\d+)", shown)}
    assert set(got) == set(entries)
    for sw, (kind, names) in entries.items():
        line = next(x for x in shown.splitlines() if x.startswith(f"SwitchName={sw} "))
        if kind == "Nodes":
            assert got[sw] == "0" and expand(re.search(r"Nodes=(\S+)", line)[1]) == sorted(names)
        else:
            assert sorted(expand(re.search(r"Switches=(\S+)", line)[1])) == sorted(names)
    assert "error: topology" not in log.lower()
    return entries
