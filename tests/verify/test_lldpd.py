"""bom verify --lldp against a real lldpd: a small Ethernet pod (tests/verify/scenarios/eth-pod.yaml:
three hosts, two leaves, 30 cables) built as network namespaces joined by veth pairs named after the
plan's ports, an lldpd (Debian's ``lldpd`` package) in each; two pairs are crossed and one is left
out, and ``bom verify`` must find exactly those.

Needs root and lldpd (scripts/test.sh installs it); skips otherwise. Starts and stops only its own
namespaces and lldpd processes, by PID. How lldpd behaves in a namespace:
docs/tooling-notes.md, section "lldpd in network namespaces".
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import pytest

from bom import pipeline
from bom.cableplan.rows import COL, rows
from bom.inputs.scenario import load_scenario
from tests.verify.neighbours import ifname

HERE = Path(__file__).parent
ETH = HERE / "scenarios" / "eth-pod.yaml"
SWAP = ("C00000001", "C00000009")    # node-01 p1 and node-02 p1 in each other's leaf ports
OMIT = "C00000030"                    # one ISL never cabled
WAIT_S = 40.0


def _need() -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to make network namespaces and run lldpd")
    for tool in ("lldpd", "lldpcli", "ip"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (apt-get install lldpd iproute2; scripts/test.sh installs lldpd)")


def _sysname(entry: dict[str, object]) -> str:
    return str(entry["chassis"][0]["name"][0]["value"])   # type: ignore[index]


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=30)


class Pod:
    """The namespaces, veth pairs and lldpd processes of one test; ``close`` removes only them."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.ns: dict[str, str] = {}                # device -> namespace
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.sock: dict[str, str] = {}
        self.ports: dict[str, int] = defaultdict(int)   # device -> its cabled ports
        self.sockets: Path | None = None
        self.links: list[tuple[str, str]] = []          # (namespace, interface), up once lldpd is configured

    def namespace(self, device: str) -> str:
        if device not in self.ns:
            name = f"cbv{os.getpid()}-{len(self.ns)}"
            _ip("netns", "add", name)
            self.ns[device] = name
            _ip("-n", name, "link", "set", "lo", "up")
        return self.ns[device]

    def cable(self, a: tuple[str, str], b: tuple[str, str]) -> None:
        na, nb = self.namespace(a[0]), self.namespace(b[0])
        _ip("link", "add", ifname(a[1]), "netns", na, "type", "veth", "peer", "name", ifname(b[1]), "netns", nb)
        self.links += [(na, ifname(a[1])), (nb, ifname(b[1]))]
        self.ports[a[0]] += 1
        self.ports[b[0]] += 1

    def start(self, switches: set[str]) -> None:
        # The control sockets in a folder lldpd's unprivileged user (_lldpd) can reach: pytest's
        # tmp_path is under a 0700 folder, where lldpcli gets "Permission denied".
        self.sockets = Path(tempfile.mkdtemp(prefix="clusterbom-lldpd-"))
        os.chmod(self.sockets, 0o755)
        for dev, ns in self.ns.items():
            sock = str(self.sockets / f"{ns}.sock")
            self.sock[dev] = sock
            # Its configuration for the lldpcli it starts itself (-O), which then resumes it
            conf = self.sockets / f"{ns}.conf"
            conf.write_text(f"configure system hostname {dev}\n" +
                            # a switch names its ports by interface name; a host sends its MAC
                            ("configure lldp portidsubtype ifname\n" if dev in switches else ""))
            conf.chmod(0o644)
            log = (self.tmp / f"{ns}.log").open("wb")
            self.procs[dev] = subprocess.Popen(["ip", "netns", "exec", ns, "lldpd", "-d", "-u", sock, "-O", str(conf)],
                                               stdout=log, stderr=subprocess.STDOUT)
        for dev, sock in self.sock.items():   # again, in case its own lldpcli could not
            self._cli(sock, "configure", "system", "hostname", dev)
            if dev in switches:
                self._cli(sock, "configure", "lldp", "portidsubtype", "ifname")
            self._cli(sock, "resume")
        # The links come up only now: no frame leaves before each lldpd has its name and port ids (a
        # neighbour would keep a first frame's name, "vm", and port id beside the new ones for 120 s).
        for ns, name in self.links:
            _ip("-n", ns, "link", "set", name, "up")
        for sock in self.sock.values():
            self._cli(sock, "update")

    def _cli(self, sock: str, *args: str) -> str:
        deadline = time.monotonic() + 5
        while True:
            r = subprocess.run(["lldpcli", "-u", sock, *args], capture_output=True, text=True, timeout=30)
            if r.returncode == 0 and r.stdout.strip() or args[0] != "-f" and r.returncode == 0:
                return r.stdout
            if time.monotonic() > deadline:
                pytest.fail(f"lldpcli {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
            time.sleep(0.2)   # the socket is not there yet

    def neighbours(self, dev: str, fmt: str) -> str:
        return self._cli(self.sock[dev], "-f", fmt, "show", "neighbors")

    def wait(self) -> None:
        """Until every device sees a neighbour on each of its cabled ports."""
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            names = {d: [_sysname(e) for e in json.loads(self.neighbours(d, "json0"))["lldp"][0].get("interface", [])]
                     for d in self.ns}
            seen = {d: len(n) for d, n in names.items()}
            if all(seen[d] == self.ports[d] and set(names[d]) <= set(self.ns) for d in self.ns):
                return
            for sock in self.sock.values():
                self._cli(sock, "update")
            time.sleep(1)
        pytest.fail(f"lldpd did not see every neighbour within {WAIT_S:.0f} s: {seen} of {dict(self.ports)}: {names}")

    def close(self) -> None:
        for p in self.procs.values():
            if p.poll() is None:
                p.terminate()
        for p in self.procs.values():
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=10)
        for ns in self.ns.values():
            # lldpd's privilege-separated child, if it outlived its parent: ours, in our namespace
            r = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True, timeout=30)
            for pid in r.stdout.split():
                os.kill(int(pid), 15)
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)
        if self.sockets is not None:
            shutil.rmtree(self.sockets, ignore_errors=True)


@pytest.mark.slow   # network namespaces and an lldpd each: 3 s and more (root and lldpd only)
def test_lldpd_pod_finds_the_crossed_and_the_missing_cables(bom, catalog, tmp_path):
    _need()
    sc, src = load_scenario(ETH)
    plan = list(rows(pipeline.build_scenario(sc, src, catalog), catalog=catalog))
    b_end = {r[COL["cable_id"]]: (r[COL["b_device"]], r[COL["b_port"]]) for r in plan}
    b_end[SWAP[0]], b_end[SWAP[1]] = b_end[SWAP[1]], b_end[SWAP[0]]
    work = tmp_path / "pod"
    work.mkdir()
    pod = Pod(work)
    try:
        for r in plan:
            if r[COL["cable_id"]] != OMIT:
                pod.cable((r[COL["a_device"]], r[COL["a_port"]]), b_end[r[COL["cable_id"]]])
        pod.start({r[COL["b_device"]] for r in plan if r[COL["b_role"]] == "leaf"})
        pod.wait()
        out = tmp_path / "lldp"
        out.mkdir()
        for n, dev in enumerate(sorted(pod.ns)):   # both of lldpcli's JSON forms
            (out / f"{dev}.json").write_text(pod.neighbours(dev, "json0" if n % 2 else "json"))
    finally:
        pod.close()
    assert not any(ns in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
                   for ns in pod.ns.values())
    r = bom("verify", str(ETH), "--lldp", str(out), "-o", str(tmp_path / "out"), "--json")
    assert r.exit_code == 1, r.output
    got = json.loads(r.stdout)
    assert got["missing"] == [OMIT]
    assert [m["cable_id"] for m in got["miswired"]] == list(SWAP)
    assert got["unexpected"] == [] and got["wrong_speed"] == []
    assert got["ok"] == len(plan) - 3 and got["not_checked"] == 0
