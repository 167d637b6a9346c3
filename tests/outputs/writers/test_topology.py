"""bom topology: one fabric of one site as Graphviz DOT (rendered by dot itself) and draw.io XML, checked
against the cable plan it is drawn from."""

from __future__ import annotations

import os
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
OOB = Path(__file__).parent / "scenarios" / "oob-104.yaml"     # a 298-device OOB fabric


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
    """A 298-device OOB fabric, past netlab's 150 node ids, its /24 management subnet from .100 and its /24 of
    loopbacks (a management switch is node 262): the export says what netlab needs, and netlab makes the lab.
    Measured here: netlab create took under a minute wall (about 20 CPU s) on a shared 2-core machine."""
    from typer.testing import CliRunner

    from bom.cli import app

    r = CliRunner().invoke(app, ["topology", str(OOB), "-o", str(tmp_path / "o"), "--fabric", "oob", "--format",
                                 "netlab"])
    assert r.exit_code == 0, r.output
    text = (tmp_path / "o" / "oob-104-oob-s1-netlab.yml").read_text()
    assert "oob-104-oob-s1: 298 devices" in r.output
    assert [line for line in text.splitlines() if line.startswith(("defaults.const", "addressing"))] == \
        ["defaults.const.MAX_NODE_ID: 298", "addressing.mgmt.ipv4: 192.168.0.0/16",
            "addressing.loopback.ipv4: 10.0.0.0/16", "addressing.router_id.ipv4: 10.0.0.0/16"]
    clab = _netlab_create(text.encode(), tmp_path)
    _same_lab(clab, _plan_runs("oob", "s1", OOB))
    mgmt = [n["mgmt-ipv4"] for n in clab["topology"]["nodes"].values()]
    assert len(set(mgmt)) == 298 and max(mgmt, key=lambda a: tuple(map(int, a.split(".")))) == "192.168.1.142"


def test_netlab_limits_follow_the_device_count():
    from bom.outputs.writers.topology import _netlab_limits

    assert _netlab_limits(150) == [] and _netlab_limits(154) == ["defaults.const.MAX_NODE_ID: 154"]
    assert _netlab_limits(155)[1:] == ["addressing.mgmt.ipv4: 192.168.0.0/16"]
    assert len(_netlab_limits(255)) == 4 and len(_netlab_limits(65_434)) == 4
    with pytest.raises(BomError):
        _netlab_limits(65_435)
