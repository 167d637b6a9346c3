"""bom verify --ib against a real discovery: the plan's fabric simulated by ibsim (Debian's ``ibsim-utils``)
and discovered by ``ibnetdiscover`` (Debian's ``infiniband-diags``) under ``ibsim-run`` (LD_PRELOAD of
libumad2sim: no HCA, no kernel module). The HCAs are named as real hosts name them (``<host> mlx5_<n>``)
and the HCA map says which is which plan port.

One scalable unit (tests/verify/scenarios/ib-hdr-su.yaml: 20 DGX A100, 8 leaves and 4 spines of QM8700, 320
links) is written by ``bom topology --format ibsim``; two swaps and one missing link are made in its net file;
``bom verify`` must find exactly those: 4 miswired cables (a swap is two) and 1 missing, nothing else.

ibsim 0.10 (Debian 12) knows link speeds up to HDR (NDR came in ibsim 0.11, linux-rdma/ibsim commit 0711947
"ibsim: Initial NDR support"): an HDR fabric is simulated at its plan rate, 4xHDR; an NDR link it cannot parse
comes up at its default, 4xSDR (10 Gbit/s), and the speed check says so (the last test).

Each test starts its own ibsim on a socket name of its own (IBSIM_SOCKNAME) and stops it by PID. Measured
here: ibsim ready and ibnetdiscover done in about 0.2 s for the SU, each test under 1 s, so none is slow.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from bom import pipeline
from bom.cableplan.rows import COL, rows
from bom.inputs.scenario import load_scenario
from bom.names import ib_port_number

HERE = Path(__file__).parent
SU = HERE / "scenarios" / "ib-hdr-su.yaml"
POD = HERE / "scenarios" / "ib-pod.yaml"      # 2 DGX H100 on a QM9700: NDR
SBIN = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])
PORT = re.compile(r'^\[(\d+)\](\([0-9a-f]+\))?(\t.*)$')
HEAD = re.compile(r'^(?:Switch|Ca)\t\d+ "([SH]-[0-9a-f]{16})"\t\t# "([^"]*)"')


def _tools() -> dict[str, str]:
    found = {t: shutil.which(t, path=SBIN) for t in ("ibsim", "ibsim-run", "ibnetdiscover")}
    missing = [t for t, p in found.items() if p is None]
    if missing:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{', '.join(missing)} missing: scripts/test.sh installs ibsim-utils and infiniband-diags")
        pytest.skip(f"{', '.join(missing)} not installed (apt-get install ibsim-utils infiniband-diags)")
    return {t: str(p) for t, p in found.items()}


def discover(net: Path, tmp: Path) -> Path:
    """ibnetdiscover's output for the fabric ``net`` simulated by ibsim (started here, stopped by PID)."""
    tools = _tools()
    env = {**os.environ, "IBSIM_SOCKNAME": f"clusterbom-{os.getpid()}-{tmp.name}"[:100]}
    log = tmp / "ibsim.log"
    with log.open("wb") as out:
        sim = subprocess.Popen([tools["ibsim"], "-s", str(net)], stdin=subprocess.PIPE, stdout=out,
                               stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + 30
        while b"Network simulator ready" not in log.read_bytes():
            assert sim.poll() is None, f"ibsim stopped: {log.read_text()[-2000:]}"
            assert time.monotonic() < deadline, f"ibsim not ready in 30 s: {log.read_text()[-2000:]}"
            time.sleep(0.05)
        found = subprocess.run([tools["ibsim-run"], tools["ibnetdiscover"]], capture_output=True, text=True,
                               env=env, timeout=120)
        assert found.returncode == 0, found.stderr[-2000:]
    finally:
        assert sim.stdin is not None
        sim.stdin.close()     # ibsim's console: closed, as its process ends
        sim.terminate()
        try:
            sim.wait(timeout=10)
        except subprocess.TimeoutExpired:
            sim.kill()
            sim.wait()
    out_file = tmp / "ibnetdiscover.txt"
    out_file.write_text(found.stdout)
    return out_file


class Net:
    """A net file's port lines, to rewire: (node id, port) -> the line's index and its far part."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        self.ids: dict[str, str] = {}         # node description -> id
        self.at: dict[tuple[str, int], int] = {}
        self.gone: set[int] = set()            # the lines of links taken out
        node = ""
        for i, line in enumerate(self.lines):
            if m := HEAD.match(line):
                node = m.group(1)
                self.ids[m.group(2)] = node
            elif m := PORT.match(line):
                self.at[node, int(m.group(1))] = i

    def _far(self, end: tuple[str, int]) -> tuple[str, int]:
        m = re.search(r'"([SH]-[0-9a-f]{16})"\[(\d+)\]', self.lines[self.at[end]])
        assert m
        return m.group(1), int(m.group(2))

    def _swap_far(self, x: tuple[str, int], y: tuple[str, int]) -> None:
        mx, my = PORT.match(self.lines[self.at[x]]), PORT.match(self.lines[self.at[y]])
        assert mx and my
        self.lines[self.at[x]] = self.lines[self.at[x]][: mx.start(3)] + my.group(3)
        self.lines[self.at[y]] = self.lines[self.at[y]][: my.start(3)] + mx.group(3)

    def swap(self, a: tuple[str, int], c: tuple[str, int]) -> None:
        """The cables at ports ``a`` and ``c`` in each other's place: a's far end now c's, and back."""
        b, d = self._far(a), self._far(c)
        assert len({a, b, c, d}) == 4
        self._swap_far(a, c)
        self._swap_far(b, d)

    def unplug(self, a: tuple[str, int]) -> None:
        b = self._far(a)
        for end in (a, b):
            self.gone.add(self.at[end])

    def text(self) -> str:
        return "\n".join(x for i, x in enumerate(self.lines) if i not in self.gone)


def _plan(scenario: Path) -> list[tuple[str, str, str, str, str]]:
    """(cable id, a device, a port, b device, b port) of the compute fabric's cables."""
    sc, src = load_scenario(scenario)
    cat = pipeline.catalog_for(sc, src, None, None)
    model = pipeline.build_scenario(sc, src, cat)
    return [tuple(str(r[COL[k]]) for k in ("cable_id", "a_device", "a_port", "b_device", "b_port"))  # type: ignore[misc]
            for r in rows(model, catalog=cat) if r[COL["fabric"]] == "compute"]


@pytest.fixture(scope="module")
def su(tmp_path_factory):
    from typer.testing import CliRunner

    from bom.cli import app

    out = tmp_path_factory.mktemp("su")
    r = CliRunner().invoke(app, ["topology", str(SU), "-o", str(out), "--format", "ibsim"])
    assert r.exit_code == 0, r.output
    return out / "ib-hdr-su-compute-s1.ibnet", out / "ib-hdr-su-compute-s1-hca-map.csv", _plan(SU)


def _verify(bom, scenario: Path, found: Path, hcas: Path, out: Path) -> dict[str, object]:
    r = bom("verify", str(scenario), "--ib", str(found), "--hca-map", str(hcas), "-o", str(out), "--json")
    assert r.exit_code in (0, 1), r.output
    return json.loads(r.stdout)


def _switch_end(net: Net, plan: list[tuple[str, str, str, str, str]], cable: str) -> tuple[str, int]:
    """The switch end (b, the upper device) of a planned cable as the net file numbers it."""
    _, _, _, dev, port = next(x for x in plan if x[0] == cable)
    n = ib_port_number(port, 1)   # QM8700: one port a cage
    assert n is not None
    return net.ids[next(d for d in net.ids if d.startswith(f"MF0;{dev}:"))], n


def test_as_built_the_discovery_matches_the_plan(su, bom, tmp_path):
    net, hcas, plan = su
    found = discover(net, tmp_path)
    text = found.read_text()
    assert text.count("4xHDR") == 2 * len(plan) == 640 and '"s1-r01-rk01-node-01 mlx5_0"' in text
    got = _verify(bom, SU, found, hcas, tmp_path / "v")
    assert (got["ok"], got["missing"], got["miswired"], got["wrong_speed"], got["unexpected"]) == (320, [], [], [], [])


def test_two_swaps_and_a_missing_link_are_found_and_nothing_else(su, bom, tmp_path):
    net_file, hcas, plan = su
    net = Net(net_file.read_text())
    host = [x for x in plan if "-node-" in x[1]]
    up = [x for x in plan if "-leaf-" in x[1] and "-spine-" in x[3]]
    # Two nodes' HCAs in each other's leaf ports (the first two host cables of leaf 1), two leaves' uplinks
    # crossed at the spine (leaf 1's and leaf 2's first), and one host cable never plugged.
    hosts_swapped = [x[0] for x in host if x[3].endswith("leaf-01")][:2]
    ups_swapped = [next(x[0] for x in up if x[1].endswith(f"leaf-0{k}")) for k in (1, 2)]
    unplugged = host[-1][0]
    net.swap(*(_switch_end(net, plan, c) for c in hosts_swapped))
    net.swap(*(_switch_end(net, plan, c) for c in ups_swapped))
    net.unplug(_switch_end(net, plan, unplugged))
    wired = tmp_path / "as-built.ibnet"
    wired.write_text(net.text())
    got = _verify(bom, SU, discover(wired, tmp_path), hcas, tmp_path / "v")
    assert sorted(m["cable_id"] for m in got["miswired"]) == sorted(hosts_swapped + ups_swapped)   # type: ignore[union-attr,index]
    assert got["missing"] == [unplugged]
    assert (got["ok"], got["wrong_speed"], got["unexpected"]) == (320 - 5, [], [])
    # the work order says where each moves: a swap's two cables each found on the other's port
    first = next(m for m in got["miswired"] if m["cable_id"] == hosts_swapped[0])   # type: ignore[union-attr,index]
    assert "mlx5_" not in first["found"] and "p1" in first["found"]


def test_a_link_trained_at_half_width_is_wrong_speed(su, bom, tmp_path):
    """Both ends of one host link enabled at 2x only: ibsim brings it up at 2xHDR, 100 Gbit/s on a 200G plan."""
    net_file, hcas, plan = su
    net = Net(net_file.read_text())
    cable = plan[0][0]
    a = _switch_end(net, plan, cable)
    for end in (a, net._far(a)):
        i = net.at[end]
        net.lines[i] = net.lines[i].replace("4xHDR", "2xHDR")
    wired = tmp_path / "as-built.ibnet"
    wired.write_text(net.text())
    found = discover(wired, tmp_path)
    assert found.read_text().count("2xHDR") == 2
    got = _verify(bom, SU, found, hcas, tmp_path / "v")
    assert got["wrong_speed"] == [{"cable_id": cable, "expected": "200 Gbit/s", "found": "100 Gbit/s"}]
    assert (got["ok"], got["missing"], got["miswired"], got["unexpected"]) == (319, [], [], [])


def test_ibsim_0_10_brings_an_ndr_link_up_at_sdr(bom, tmp_path):
    """What ibsim 0.10 reports for an NDR fabric: every link 4xSDR; the speed check finds every one."""
    r = bom("topology", str(POD), "-o", str(tmp_path / "t"), "--format", "ibsim")
    assert r.exit_code == 0, r.output
    net = tmp_path / "t" / "ib-pod-compute-s1.ibnet"
    assert net.read_text().count("4xNDR") == 36
    found = discover(net, tmp_path)
    assert found.read_text().count("4xSDR") == 36 and "NDR" not in found.read_text()
    got = _verify(bom, POD, found, tmp_path / "t" / "ib-pod-compute-s1-hca-map.csv", tmp_path / "v")
    assert len(got["wrong_speed"]) == 18 and {w["found"] for w in got["wrong_speed"]} == {"10 Gbit/s"}   # type: ignore[union-attr,index]
    assert (got["ok"], got["missing"], got["miswired"], got["unexpected"]) == (0, [], [], [])
