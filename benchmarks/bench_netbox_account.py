"""Benchmark: where a whole push's server CPU goes, by process and phase, against NetBox's own ORM cost
(issue 46), on the NetBox of ``BOM_NETBOX_SERVER=gunicorn BOM_NETBOX_ACCOUNT=<file> scripts/netbox-up.sh``
(the hooks of benchmarks/bench_netbox_hooks.py: CPU per gunicorn request, per RQ job and per forked horse).

Per round, for each path in ``--paths``: the subset's site emptied (bench_netbox_orm's EMPTY), the push
(bench_netbox_orm.push), then the same devices, modules and cables made again through the ORM
(bench_netbox_orm.orm). Around each, /proc is read for every server process (gunicorn's master and
workers, the RQ worker and what it forked, PostgreSQL's postmaster and backends, Redis); a PostgreSQL
backend is put with its client by its TCP port (``ss -tnp``, sampled each second while the push runs, so a
backend that exits before the end keeps its client). The hooks' lines written during the push give
gunicorn's CPU per request path and the RQ worker's per job function, and the fork's share of each horse.

Prints one table per push and one for the ORM, then the whole-push ratio (server CPU over the ORM's
devices, modules and cables with their PostgreSQL and RQ work) and per-object CPU by kind.
Run: BOM_NETBOX_DIR=... BOM_NETBOX_ACCOUNT=<file> python -m benchmarks.bench_netbox_account [--nodes 16]
[--paths script,list] [--rounds 1]
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import threading
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parents[1]
HZ = os.sysconf("SC_CLK_TCK")
KINDS = ("devices", "modules", "cables")
_PEER = re.compile(r"^\S+\s+\d+\s+\d+\s+(\S+):(\d+)\s+(\S+):(\d+)\s+users:\(\(\"[^\"]*\",pid=(\d+)")


def _stat(pid: int | str) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None


def procs() -> dict[int, tuple[int, int, float, float]]:
    """pid -> (ppid, pgid, own CPU s, reaped children's CPU s)."""
    out = {}
    for p in Path("/proc").iterdir():
        if p.name.isdigit() and (f := _stat(p.name)) is not None:
            out[int(p.name)] = (int(f[1]), int(f[2]), (int(f[11]) + int(f[12])) / HZ, (int(f[13]) + int(f[14])) / HZ)
    return out


class Clients:
    """Which process each PostgreSQL backend serves, from its TCP peer (ss -tnp), kept once seen."""

    def __init__(self, pg_port: int) -> None:
        self.port, self.of = pg_port, {}   # backend pid -> client pid
        self.last: dict[int, float] = {}   # backend pid -> CPU last seen
        self.stop = threading.Event()

    def sample(self) -> None:
        text = subprocess.run(["ss", "-tnpH"], capture_output=True, text=True).stdout
        by_port: dict[tuple[int, int], int] = {}
        for line in text.splitlines():
            m = _PEER.match(line)
            if m:
                by_port[(int(m[2]), int(m[4]))] = int(m[5])
        for (local, remote), pid in by_port.items():
            if local == self.port and (client := by_port.get((remote, local))) is not None:
                self.of[pid] = client
        for pid in list(self.of):
            f = _stat(pid)
            if f is not None:
                self.last[pid] = (int(f[11]) + int(f[12])) / HZ

    def run(self) -> None:
        while not self.stop.wait(1.0):
            self.sample()


def roles(st: dict[str, str], before: dict, after: dict, clients: Clients, pg: int) -> dict[str, float]:
    """CPU seconds between two /proc snapshots, by the server's process roles."""
    web, rq, redis = int(st["WEB_PID"]), int(st["RQ_PID"]), int(st.get("REDIS_PID") or 0)
    out: dict[str, float] = defaultdict(float)
    allp = set(before) | set(after)
    group_of = {p: (after.get(p) or before[p])[1] for p in allp}

    def delta(p: int, i: int) -> float:
        return (after[p][i] if p in after else 0.0) - (before[p][i] if p in before else 0.0)

    def client_role(c: int) -> str:
        g = group_of.get(c)
        if g is None:   # exited before a snapshot saw it: a horse's (the RQ worker's children exit per job)
            return "rq"
        return "web" if g == web else "rq" if g == rq or (after.get(c) or before[c])[0] == rq else "other"

    for p in allp:
        ppid, pgid = (after.get(p) or before[p])[:2]
        if p == web:
            out["gunicorn master"] += delta(p, 2) + delta(p, 3)
        elif pgid == web:
            out["gunicorn workers"] += delta(p, 2)
        elif p == rq:
            out["RQ worker (parent)"] += delta(p, 2)
            out["RQ horses (forked, reaped)"] += delta(p, 3)
        elif ppid == rq and pgid != rq:   # a horse still running (rq forks it into its own process group)
            out["RQ horses (forked, running)"] += delta(p, 2)
        elif pgid == rq:
            out["RQ other children (scheduler)"] += delta(p, 2)
        elif p == pg:
            out["PostgreSQL postmaster"] += delta(p, 2)
        elif ppid == pg:
            c = clients.of.get(p)
            role = f"PostgreSQL backends of {client_role(c)}" if c else "PostgreSQL backends, other"
            if p in after:
                out[role] += delta(p, 2)
        elif p == redis:
            out["Redis"] += delta(p, 2)
    # exited backends: the postmaster's reaped children; put with their client when a sample saw them
    exited = delta(pg, 3)
    for p, (ppid, _, own, _) in before.items():
        if ppid == pg and p not in after:   # its CPU before counts in the reaped total
            exited -= own
    seen = 0.0
    for p, cpu in clients.last.items():
        if p not in after and p in clients.of:
            share = cpu - (before[p][2] if p in before else 0.0)
            out[f"PostgreSQL backends of {client_role(clients.of[p])}"] += share
            seen += share
    out["PostgreSQL backends, exited unseen (short-lived: horses')"] += max(0.0, exited - seen)
    return dict(out)


def hooks(path: Path, offset: int) -> tuple[list[dict[str, Any]], int]:
    data = path.read_bytes() if path.is_file() else b""
    return [json.loads(x) for x in data[offset:].decode().splitlines() if x.strip()], len(data)


def web_table(recs: list[dict[str, Any]]) -> list[str]:
    by: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    for r in recs:
        if r["src"] == "web":
            k = f"{r['method']} {r['path']}"
            by[k][0] += 1
            by[k][1] += r["cpu"]
            by[k][2] += r["wall"]
    return [f"  gunicorn {k}: {int(n)} requests, CPU {c:.2f} s, wall {w:.1f} s"
            for k, (n, c, w) in sorted(by.items(), key=lambda kv: -kv[1][1])]


def rq_table(recs: list[dict[str, Any]]) -> list[str]:
    job: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    horse: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    for r in recs:
        if r["src"] == "job":
            job[r["func"]][0] += 1
            job[r["func"]][1] += r["cpu"]
        elif r["src"] == "horse":
            horse[r["func"]][0] += 1
            horse[r["func"]][1] += r["cpu"]
            horse[r["func"]][2] += r["wall"]
    return [f"  RQ {f}: {int(n)} jobs, horse CPU {c:.2f} s (perform_job {job[f][1]:.2f} s, the fork and the "
            f"horse's start and exit {c - job[f][1]:.2f} s), wall {w:.1f} s"
            for f, (n, c, w) in sorted(horse.items(), key=lambda kv: -kv[1][1])]


def measured(st: dict[str, str], log: Path, fn: Any) -> tuple[Any, dict[str, float], list[dict[str, Any]], float]:
    """fn() with the server's CPU by role around it, the hooks' lines it caused and the children's CPU."""
    from benchmarks.bench_netbox_orm import settle

    settle(st)
    pg = int(st["PG_PID"])
    port = int(re.search(r"'PORT': '(\d+)'", (Path(st["NETBOX_ROOT"]) / "conf/configuration.py").read_text())[1])
    clients = Clients(port)
    clients.sample()
    _, offset = hooks(log, 0)
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    before = procs()
    t = threading.Thread(target=clients.run, daemon=True)
    t.start()
    try:
        out = fn()
        settle(st)
    finally:
        clients.stop.set()
        t.join()
    clients.sample()
    after = procs()
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    recs, _ = hooks(log, offset)
    child = ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime
    return out, roles(st, before, after, clients, pg), recs, child


def show(title: str, by_role: dict[str, float], recs: list[dict[str, Any]], child: float) -> float:
    total = sum(by_role.values())
    print(f"{title}: server CPU {total:.1f} s (the bench's children, client or nbshell, {child:.1f} s)")
    for k, v in sorted(by_role.items(), key=lambda kv: -kv[1]):
        if v >= 0.05:
            print(f"  {k}: {v:.1f} s ({v / max(total, 1e-9):.0%})")
    for line in web_table(recs)[:14] + rq_table(recs):
        print(line)
    return total


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from benchmarks import bench_netbox_orm as bo
    from tests.netbox import live

    args = sys.argv[1:]

    def opt(name: str, default: str) -> str:
        return args[args.index(name) + 1] if name in args else default

    nodes, rounds = int(opt("--nodes", "16")), int(opt("--rounds", "1"))
    paths = opt("--paths", "script").split(",")
    log = Path(os.environ.get("BOM_NETBOX_ACCOUNT") or opt("--log", ""))
    st = live.state()
    name = f"nb-orm-{nodes}"
    site = f"{name}-s1"
    ratios: dict[str, list[float]] = defaultdict(list)
    per: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    with tempfile.TemporaryDirectory() as d:
        sc = Path(d) / f"{name}.yaml"
        sc.write_text(f"name: {name}\nplatform: dgx-h100\nnodes: {nodes}\n"
                      "fabrics:\n  compute: {switch: qm9700}\n  oob: {switch: sn2201}\n")
        print(f"{nodes} DGX H100, {os.cpu_count()} cores, hooks in {log}", flush=True)
        for rnd in range(rounds):
            for p in paths:
                bo.inside(st, bo.EMPTY, SITE=site)
                r, by, recs, child = measured(st, log, lambda p=p: bo.push(st, sc, p, 4))
                made, secs = r["created"], r["seconds"]
                cpu_push = show(f"round {rnd + 1}, push --path {p} (took {r['path']}), {bo._load()}, wall "
                                f"{r['wall']:.0f} s, " + ", ".join(f"{k} {made.get(k, 0):,} in {secs.get(k, 0):.0f} s"
                                                                   for k in KINDS), by, recs, child)
                o, oby, orecs, ochild = measured(st, log, lambda: bo.orm(st, site, name))
                cpu_orm = sum(o[k]["cpu"] for k in KINDS)
                show(f"round {rnd + 1}, the ORM ({bo._load()}): its timed devices, modules, cables {cpu_orm:.1f} s "
                     + "; ".join(f"{k} {o[k]['n']:,}: own {o[k].get('own', 0):.1f}, PostgreSQL "
                                 f"{o[k].get('pg', 0):.1f}, RQ {o[k].get('rq', 0):.1f} s" for k in KINDS)
                     + f", {o['changes']:,} change records; whole nbshell run", oby, orecs, ochild)
                ratios[p].append(cpu_push / cpu_orm)
                job = by_kind(recs)
                for k in KINDS:
                    if o[k]["n"] and made.get(k):
                        per["orm wall"][k].append(o[k]["wall"] / o[k]["n"])
                        per[f"{p} wall"][k].append(secs[k] / made[k])
                        print(f"  {k}: the script job's CPU {job.get(k, 0) / made[k]:.3f} s each against the ORM's "
                              f"own {o[k].get('own', 0) / o[k]['n']:.3f} (without PostgreSQL); wall "
                              f"{secs[k] / made[k]:.3f} against {o[k]['wall'] / o[k]['n']:.3f} s each", flush=True)
                print(f"round {rnd + 1}, --path {p}: whole push {cpu_push:.1f} s of server CPU against the ORM's "
                      f"{cpu_orm:.1f} s: {cpu_push / cpu_orm:.2f}x", flush=True)
        bo.inside(st, bo.EMPTY, SITE=site)
    for p, v in ratios.items():
        print(f"--path {p}: whole push / ORM, server CPU: {', '.join(f'{x:.2f}' for x in v)} "
              f"(median {sorted(v)[len(v) // 2]:.2f}x)")
    extrapolate({w: {k: sorted(x)[len(x) // 2] for k, x in kr.items()} for w, kr in per.items()})


def by_kind(recs: list[dict[str, Any]]) -> dict[str, float]:
    """The script jobs' horse CPU by the kind they made (the hooks name a job's model)."""
    from bom.netbox.script import MODELS

    kind = {m: k for k, m in MODELS.items()}
    out: dict[str, float] = defaultdict(float)
    for r in recs:
        if r["src"] == "horse" and r["func"].startswith("ScriptJob.") and " " in r["func"]:
            out[kind.get(r["func"].split(" ", 1)[1], "?")] += r["cpu"]
    return out


def extrapolate(med: dict[str, dict[str, float]]) -> None:
    """16k and 100k GPUs at the median wall seconds per object of each kind measured (at the load measured)."""
    from benchmarks.bench_netbox_paths import BIG, counts

    with tempfile.TemporaryDirectory() as d:
        for label, text in BIG.items():
            n = counts(text, Path(d))
            print(f"{label}: " + ", ".join(f"{n[k]:,} {k}" for k in KINDS) + "; " + ", ".join(
                f"{w} {sum(n[k] * r.get(k, 0.0) for k in KINDS) / 3600:.1f} h" for w, r in med.items()))


if __name__ == "__main__":
    main()
