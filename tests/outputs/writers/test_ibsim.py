"""bom topology --format ibsim: an InfiniBand fabric as ibsim's net file (ibnetdiscover's topology format) and
the HCA map, checked against the plan they are written from; read back by bom verify --ib as the fabric
would be discovered. The run through ibsim and ibnetdiscover themselves is tests/verify/test_ibsim.py."""

from __future__ import annotations

import csv
import json
import re

import pytest

from bom import pipeline
from bom.cableplan import rows as plan
from bom.inputs.scenario import load_scenario
from bom.names import ib_port_names, ib_port_number
from bom.outputs.writers.ibsim import guid
from tests.paths import TESTS

POD = TESTS / "verify" / "scenarios" / "ib-pod.yaml"         # 2 DGX H100, 2 UFMs on one QM9700 (NDR)
ETH = TESTS / "verify" / "scenarios" / "eth-pod-oob.yaml"     # an Ethernet fabric
STEM = "ib-pod-compute-s1"
HEAD = re.compile(r'^(Switch|Ca)\t(\d+) "([SH]-[0-9a-f]{16})"\t\t# "([^"]*)"')
PORT = re.compile(r'^\[(\d+)\](?:\([0-9a-f]+\))?\t"([SH]-[0-9a-f]{16})"\[(\d+)\].*lid 0 (\dx[A-Z]+)$')


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    from typer.testing import CliRunner

    from bom.cli import app

    out = tmp_path_factory.mktemp("ibsim")
    r = CliRunner().invoke(app, ["topology", str(POD), "-o", str(out), "--format", "ibsim"])
    assert r.exit_code == 0, r.output
    return out, r.output


def _blocks(text: str) -> dict[str, tuple[str, int, str, dict[int, tuple[str, int, str]]]]:
    """id -> (kind, ports, description, {port: (peer id, peer port, width x speed)})."""
    out: dict[str, tuple[str, int, str, dict[int, tuple[str, int, str]]]] = {}
    current = None
    for line in text.splitlines():
        if m := HEAD.match(line):
            current = m.group(3)
            out[current] = (m.group(1), int(m.group(2)), m.group(4), {})
        elif m := PORT.match(line):
            assert current is not None
            out[current][3][int(m.group(1))] = (m.group(2), int(m.group(3)), m.group(4))
    return out


def test_only_the_asked_formats_are_written(written):
    out, said = written
    assert sorted(p.name for p in out.iterdir()) == [f"{STEM}-hca-map.csv", f"{STEM}.ibnet"]
    assert f"{STEM}.ibnet: 1 switch, 18 HCAs, 18 links" in said


def test_the_net_file_is_the_plan(written):
    """Every cable of the plan once from each end, at the switch's catalog port count and numbering, each HCA
    '<host> mlx5_<n>' in its host's port order, each link at the plan's 400G: 4 lanes of NDR's 100G."""
    out, _ = written
    blocks = _blocks((out / f"{STEM}.ibnet").read_text())
    sc, src = load_scenario(POD)
    cat = pipeline.catalog_for(sc, src, None, None)
    model = pipeline.build_scenario(sc, src, cat)
    c = plan.COL
    runs = [r for r in plan.rows(model, catalog=cat) if r[c["fabric"]] == "compute"]
    switches = [b for b in blocks.values() if b[0] == "Switch"]
    assert [(b[1], b[2]) for b in switches] == [(64, "MF0;s1-r01-rk01-leaf-01:MQM9700/U1")]   # QM9700: 64 ports
    assert sum(len(b[3]) for b in blocks.values()) == 2 * len(runs) == 36
    desc = {k: b[2] for k, b in blocks.items()}
    with (out / f"{STEM}-hca-map.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    hca_of = {(r["device"], r["port"]): f"{r['device']} {r['hca']}" for r in rows}
    seen = set()
    for r in runs:
        n = ib_port_number(r[c["b_port"]], 2)
        peer, peer_port, speed = switches[0][3][n]
        assert desc[peer] == hca_of[r[c["a_device"]], r[c["a_port"]]] and peer_port == 1 and speed == "4xNDR"
        assert blocks[peer][3][1][1] == n           # and back from the HCA's end
        seen.add(peer)
    assert len(seen) == 18
    node1 = [hca_of["s1-r01-rk02-node-01", f"p{cage}/{k}"] for cage in (1, 2, 3, 4) for k in (1, 2)]
    assert node1 == [f"s1-r01-rk02-node-01 mlx5_{i}" for i in range(8)]


def test_guids_are_derived_locally_administered_and_in_the_map(written):
    out, _ = written
    text = (out / f"{STEM}.ibnet").read_text()
    with (out / f"{STEM}-hca-map.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 18 and {r["host"] for r in rows} == {""}
    for r in rows:
        g = guid(f"{r['device']} {r['port']}")
        assert r["guid"] == f"0x{g:016x}" and g >> 56 == 0x02 and g % 2 == 0   # the U/L bit; port GUID = + 1
        assert f'Ca\t1 "H-{g:016x}"\t\t# "{r["device"]} {r["hca"]}"' in text and f"caguid=0x{g:x}\n" in text
        assert f"[1]({g + 1:x})\t" in text


def test_the_same_plan_gives_the_same_files(written, tmp_path, bom):
    out, _ = written
    r = bom("topology", str(POD), "-o", str(tmp_path), "--format", "ibsim")
    assert r.exit_code == 0
    for name in (f"{STEM}.ibnet", f"{STEM}-hca-map.csv"):
        assert (tmp_path / name).read_bytes() == (out / name).read_bytes()


def test_read_back_as_discovered_with_the_map_every_cable_is_ok(written, bom, tmp_path):
    """The net file is ibnetdiscover's format: read as a discovery, with the map it matches the plan; without
    it every host link is miswired (the issue's report: HCAs named 'host mlx5_N' name no plan port)."""
    out, _ = written
    net, hcas = out / f"{STEM}.ibnet", out / f"{STEM}-hca-map.csv"
    r = bom("verify", str(POD), "--ib", str(net), "--hca-map", str(hcas), "-o", str(tmp_path / "v"), "--json")
    assert r.exit_code == 0, r.output
    got = json.loads(r.stdout)
    assert (got["ok"], got["missing"], got["miswired"], got["unexpected"], got["wrong_speed"]) == (18, [], [], [], [])
    r = bom("verify", str(POD), "--ib", str(net), "-o", str(tmp_path / "w"), "--json")
    got = json.loads(r.stdout)
    assert r.exit_code == 1 and len(got["miswired"]) == 18 and got["ok"] == 0


def test_an_ethernet_fabric_or_an_unknown_format_is_refused(bom, tmp_path):
    r = bom("topology", str(ETH), "-o", str(tmp_path / "o"), "--format", "ibsim")
    assert r.exit_code == 2 and "--format" in r.output and "not InfiniBand" in r.output
    r = bom("topology", str(POD), "-o", str(tmp_path / "o"), "--format", "svg")
    assert r.exit_code == 2 and "no format 'svg'" in r.output
    assert not (tmp_path / "o").exists()


def test_port_numbers_read_back():
    assert [ib_port_number(f"p{c}/{k}", 2) for c in (1, 8, 32) for k in (1, 2)] == [1, 2, 15, 16, 63, 64]
    assert all(f"p{(n + 1) // 2}_{(n - 1) % 2 + 1}" in ib_port_names(n) for n in range(1, 65))
    assert ib_port_number("p40", 1) == 40 and ib_port_number("p3/x", 2) is None and ib_port_number("x1", 1) is None
