"""bom topology: one fabric of one site as Graphviz DOT (rendered by dot itself) and draw.io XML, checked
against the cable plan it is drawn from."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from bom import pipeline
from bom.cableplan import rows as plan
from bom.errors import BomError
from bom.inputs.scenario import load_scenario
from tests.paths import TESTS

SCENARIO = TESTS / "netbox" / "scenarios" / "two-site.yaml"   # leaves, a spine, UFM; two sites
OOB = Path(__file__).parent / "scenarios" / "oob-104.yaml"     # a 156-device compute fabric, a 298-device OOB
OOB112 = Path(__file__).parent / "scenarios" / "oob-112.yaml"  # a 314-device OOB, 290 links with a host


def _plan_runs(fabric: str, site: str, scenario: Path = SCENARIO) -> list[tuple[str, str, str, str]]:
    sc, src = load_scenario(scenario)
    cat = pipeline.catalog_for(sc, src, None, None)
    model = pipeline.build_scenario(sc, src, cat)
    c = plan.COL
    return [(r[c["a_device"]], r[c["a_port"]], r[c["b_device"]], r[c["b_port"]]) for r in plan.rows(model, catalog=cat)
            if r[c["fabric"]] == fabric and r[c["a_site"]] == site and r[c["b_site"]] == site]


@pytest.fixture(scope="module")
def drawn(tmp_path_factory):
    from typer.testing import CliRunner

    from bom.cli import app

    out = tmp_path_factory.mktemp("topo")
    r = CliRunner().invoke(app, ["topology", str(SCENARIO), "-o", str(out)])
    assert r.exit_code == 0, r.output
    return out, r.output


def test_drawio_holds_every_device_and_run_of_the_plan(drawn):
    out, _ = drawn
    runs = _plan_runs("compute", "s1")
    root = ET.parse(out / "nb-two-site-compute-s1.drawio").getroot()
    cells = root.findall(".//mxCell")
    vertices = {c.get("id"): c.get("value").split("\n")[0] for c in cells if c.get("vertex") == "1"}
    edges = [c for c in cells if c.get("edge") == "1"]
    assert set(vertices.values()) == {d for a, _, b, _ in runs for d in (a, b)}
    assert len(edges) == len(runs)
    got = sorted((vertices[e.get("source")], vertices[e.get("target")], e.get("value")) for e in edges)
    assert got == sorted((a, b, f"{pa} - {pb}") for a, pa, b, pb in runs)
    for c in cells:
        if c.get("vertex") == "1":
            assert c.find("mxGeometry") is not None


@pytest.mark.slow
def test_dot_renders_with_graphviz_and_carries_the_ports(drawn, tmp_path):
    out, _ = drawn
    dot = shutil.which("dot")
    if dot is None:
        if os.environ.get("CI") == "true":
            pytest.fail("Graphviz (dot) is missing: scripts/test.sh installs Debian's graphviz")
        pytest.skip("Graphviz (dot) is not installed")
    src = out / "nb-two-site-compute-s1.dot"
    svg = subprocess.run([dot, "-Tsvg", str(src)], capture_output=True, text=True, timeout=120)
    assert svg.returncode == 0 and not svg.stderr.strip(), svg.stderr
    root = ET.fromstring(svg.stdout)
    ns = "{http://www.w3.org/2000/svg}"
    titles = [t.text for t in root.iter(f"{ns}title")]
    runs = _plan_runs("compute", "s1")
    devices = {d for a, _, b, _ in runs for d in (a, b)}
    assert devices <= set(titles)
    assert sum(1 for t in titles if t and "--" in t) == len(runs)       # one drawn edge per cable run
    texts = {t.text for t in root.iter(f"{ns}text")}
    assert {pa for _, pa, _, _ in runs} | {pb for _, _, _, pb in runs} <= texts   # the ports on the edges
    # The layers stand top down: the spine above the leaves above the nodes.
    y = {}
    for g in root.iter(f"{ns}g"):
        if g.get("class") == "node":
            title = g.find(f"{ns}title").text
            y[title] = float(g.find(f"{ns}text").get("y"))
    spine = min(v for k, v in y.items() if "spine" in k)
    leaf = min(v for k, v in y.items() if "leaf" in k)
    node = min(v for k, v in y.items() if "node" in k)
    assert spine < leaf < node


def test_too_large_or_unknown_is_a_clear_error(tmp_path):
    from typer.testing import CliRunner

    from bom.cli import app

    r = CliRunner().invoke(app, ["topology", str(SCENARIO), "-o", str(tmp_path / "o"), "--max-links", "10"])
    assert r.exit_code == 2 and "--max-links" in r.output and not (tmp_path / "o").exists()
    r = CliRunner().invoke(app, ["topology", str(SCENARIO), "-o", str(tmp_path / "o"), "--fabric", "inband"])
    assert r.exit_code == 2 and "builds no 'inband' fabric" in r.output
    r = CliRunner().invoke(app, ["topology", str(SCENARIO), "-o", str(tmp_path / "o"), "--site", "3"])
    assert r.exit_code == 2 and "--site" in r.output
    assert Path(tmp_path / "o").exists() is False


def _netlab_create(text: bytes, tmp_path: Path) -> dict[str, Any]:
    """``netlab create`` on a netlab topology: its containerlab file (``netlab create`` needs no devices)."""
    import sys

    import yaml

    netlab = shutil.which("netlab", path=str(Path(sys.executable).parent)) or shutil.which("netlab")
    if netlab is None:
        if os.environ.get("CI") == "true":
            pytest.fail("netlab is missing: it is a test extra (pip install -e '.[test]')")
        pytest.skip("netlab (PyPI networklab) is not installed")
    lab = tmp_path / "lab"
    lab.mkdir()
    (lab / "topology.yml").write_bytes(text)
    done = subprocess.run([netlab, "create", "topology.yml"], cwd=lab, capture_output=True, text=True, timeout=900,
                          env={**os.environ, "NO_COLOR": "1"})
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    clab: dict[str, Any] = yaml.safe_load((lab / "clab.yml").read_text())
    return clab


def _same_lab(clab: dict[str, Any], runs: list[tuple[str, str, str, str]]) -> None:
    """Every device a node, every cable run a link, each interface in one link."""
    assert len(clab["topology"]["nodes"]) == len({d for a, _, b, _ in runs for d in (a, b)})
    links = clab["topology"]["links"]
    assert len(links) == len(runs)
    ends = [e for link in links for e in link["endpoints"]]
    assert len(set(ends)) == len(ends)


@pytest.mark.slow
def test_netlab_topology_is_accepted_by_netlab(drawn, tmp_path):
    """netlab itself reads the topology and makes its containerlab lab: a small lab keeps netlab's defaults."""
    out, _ = drawn
    text = (out / "nb-two-site-compute-s1-netlab.yml").read_bytes()
    assert b"MAX_NODE_ID" not in text and b"addressing" not in text
    _same_lab(_netlab_create(text, tmp_path), _plan_runs("compute", "s1"))


@pytest.mark.slow
def test_netlab_takes_a_lab_past_its_defaults(tmp_path):
    """A 314-device OOB fabric, past netlab's 150 node ids, its /24 management subnet from .100, its /24 of
    loopbacks and its 256 /24 LANs (a link with a host on it is a LAN to netlab): the export says what netlab
    needs, and netlab makes the lab. Measured here: about a minute wall (about 25 CPU s) on a shared 2-core
    machine; oob-104's compute fabric (156 devices, 1,860 links, 832 with a host) took 3.6 minutes (69 CPU s)."""
    from typer.testing import CliRunner

    from bom.cli import app

    r = CliRunner().invoke(app, ["topology", str(OOB112), "-o", str(tmp_path / "o"), "--fabric", "oob", "--format",
                                 "netlab"])
    assert r.exit_code == 0, r.output
    text = (tmp_path / "o" / "oob-112-oob-s1-netlab.yml").read_text()
    assert "oob-112-oob-s1: 314 devices" in r.output
    assert [line for line in text.splitlines() if line.startswith(("defaults.const", "addressing"))] == \
        ["defaults.const.MAX_NODE_ID: 314", "addressing.mgmt.ipv4: 192.168.0.0/16",
         "addressing.loopback.ipv4: 10.0.0.0/16", "addressing.router_id.ipv4: 10.0.0.0/16",
         "addressing.lan.prefix: 29"]
    clab = _netlab_create(text.encode(), tmp_path)
    _same_lab(clab, _plan_runs("oob", "s1", OOB112))
    mgmt = [n["mgmt-ipv4"] for n in clab["topology"]["nodes"].values()]
    assert len(set(mgmt)) == 314 and max(mgmt, key=lambda a: tuple(map(int, a.split(".")))) == "192.168.1.158"


def test_netlab_limits_follow_the_device_count():
    from bom.outputs.writers.topology import _netlab_limits

    assert _netlab_limits(150) == [] and _netlab_limits(154) == ["defaults.const.MAX_NODE_ID: 154"]
    assert _netlab_limits(155)[1:] == ["addressing.mgmt.ipv4: 192.168.0.0/16"]
    assert len(_netlab_limits(255)) == 4 and len(_netlab_limits(65_434)) == 4
    assert _netlab_limits(100, 256) == [] and _netlab_limits(100, 257) == ["addressing.lan.prefix: 29"]
    assert _netlab_limits(100, 8193)[-1] == "addressing.lan.ipv4: 172.16.0.0/12"
    for nodes, hosts in ((65_435, 0), (100, 131_073)):
        with pytest.raises(BomError):
            _netlab_limits(nodes, hosts)


def _text_boxes(svg: str) -> list[tuple[float, float, float, float, str]]:
    """Each SVG text's box, its width estimated from Helvetica's average glyph (0.55 em)."""
    ns = "{http://www.w3.org/2000/svg}"
    out = []
    for t in ET.fromstring(svg).iter(f"{ns}text"):
        text = "".join(t.itertext())
        size = float(t.get("font-size", "14"))
        w, x, y = 0.55 * size * len(text), float(t.get("x", "0")), float(t.get("y", "0"))
        x0 = {"middle": x - w / 2, "end": x - w}.get(t.get("text-anchor", "start"), x)
        out.append((x0, y - 0.75 * size, x0 + w, y + 0.2 * size, text))
    return sorted(out)


def _overlapping(svg: str) -> list[tuple[str, str]]:
    boxes = _text_boxes(svg)
    found = []
    for i, (_, y0, x1, y1, a) in enumerate(boxes):
        for bx0, by0, _, by1, b in boxes[i + 1:]:
            if bx0 >= x1:
                break
            if by0 < y1 and y0 < by1:
                found.append((a, b))
    return found


def test_dot_stands_layers_and_racks_in_clusters_and_ports_in_cells(tmp_path, bom):
    """Each layer a cluster of one rank, each rack a cluster inside it, each device's ports cells of its box, each
    cable run an edge between two port cells, each cell one cable's end."""
    r = bom("topology", str(OOB), "-o", str(tmp_path), "--format", "dot")
    assert r.exit_code == 0, r.output
    dot = (tmp_path / "oob-104-compute-s1.dot").read_text()
    runs = _plan_runs("compute", "s1", OOB)
    layers = re.findall(r'subgraph cluster_layer\d+ \{\n    label="([^"]+)"', dot)
    assert layers == ["spine: 16", "leaf: 32", "node, ufm: 108"]
    assert dot.count("rank=same") == len(layers)
    devices = {d for a, _, b, _ in runs for d in (a, b)}
    boxed = re.findall(r'^      "([^"]+)" \[label=<', dot, re.M)
    assert sorted(boxed) == sorted(devices)     # each device once, inside a rack's cluster
    edges = re.findall(r'^  "([^"]+)":([ud]\d+):[ns] -- "([^"]+)":([ud]\d+):[ns] ', dot, re.M)
    assert len(edges) == len(runs)
    cells = [(a, p) for a, pa, b, pb in edges for p in ((a, pa), (b, pb))]
    assert len(set(cells)) == 2 * len(runs)     # every port cell ends one cable
    assert "taillabel" not in dot and "headlabel" not in dot


@pytest.mark.slow
def test_dot_of_a_large_fabric_renders_without_overlapping_labels(tmp_path, bom):
    """156 devices and 1,860 cable runs: Graphviz draws it with no warning, every device, cable and port on it,
    and no two texts overlap (before the ports stood in the boxes: 3,841 overlapping pairs on a 134-device SU)."""
    dot = shutil.which("dot")
    if dot is None:
        if os.environ.get("CI") == "true":
            pytest.fail("Graphviz (dot) is missing: scripts/test.sh installs Debian's graphviz")
        pytest.skip("Graphviz (dot) is not installed")
    r = bom("topology", str(OOB), "-o", str(tmp_path), "--format", "dot")
    assert r.exit_code == 0, r.output
    svg = subprocess.run([dot, "-Tsvg", str(tmp_path / "oob-104-compute-s1.dot")], capture_output=True, text=True,
                         timeout=300)
    assert svg.returncode == 0 and not svg.stderr.strip(), svg.stderr[-2000:]
    runs = _plan_runs("compute", "s1", OOB)
    ns = "{http://www.w3.org/2000/svg}"
    root = ET.fromstring(svg.stdout)
    groups = {g.get("class"): [] for g in root.iter(f"{ns}g")}
    for g in root.iter(f"{ns}g"):
        groups[g.get("class")].append(g.find(f"{ns}title").text if g.find(f"{ns}title") is not None else "")
    assert set(groups["node"]) == {d for a, _, b, _ in runs for d in (a, b)}
    assert len(groups["edge"]) == len(runs)
    assert sum(1 for t in groups["cluster"] if t.startswith("cluster_layer") and "_rack" not in t) == 3
    texts = {"".join(t.itertext()) for t in root.iter(f"{ns}text")}
    assert {p for _, p, _, _ in runs} | {p for _, _, _, p in runs} <= texts
    assert _overlapping(svg.stdout) == []


def test_a_fabric_s_own_switches_stand_in_its_layers_rows():
    """storage-leaf is the storage fabric's leaf row; the compute spines seen on the OOB fabric (their management
    ports) stand with the other endpoints, below the OOB's own leaves."""
    from bom.outputs.writers.topology import LAYERS, Graph
    from bom.roles import Layer

    storage, oob, compute = Graph("s", fabric="storage"), Graph("o", fabric="oob"), Graph("c")
    assert storage.row("storage-leaf") == LAYERS.index(Layer.LEAF) and storage.row("leaf") == len(LAYERS)
    assert oob.row("oob-spine") == LAYERS.index(Layer.SPINE) and oob.row("spine") == len(LAYERS)
    assert compute.row("core") == LAYERS.index(Layer.CORE) and compute.row("node") == len(LAYERS)
    assert compute.row("dci-router") == 0
