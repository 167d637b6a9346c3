"""Benchmark: a push of a subset of the 16,000-GPU design by each path against NetBox's own ORM cost per
object (issue 46), on the NetBox of ``BOM_NETBOX_SERVER=gunicorn scripts/netbox-up.sh``.

The design is the 16,000-GPU one of bench_netbox_paths (DGX H100, QM9700 compute, SN2201 out of band)
cut to ``--nodes`` nodes (a scalable unit is 32). Per round, for each path in ``--paths``:

1. the subset's site emptied inside NetBox (``netbox nbshell``: not timed);
2. ``bom netbox push --path P`` (list POSTs of 250 with ``--workers`` in flight, or the clusterbom_bulk
   script run by the RQ worker): wall seconds per object of each kind, and the server's CPU seconds
   (gunicorn's and the RQ worker's processes and PostgreSQL's, from /proc) for the whole push;
3. then, the objects that push made are read, deleted and made again inside NetBox through the ORM
   (``full_clean()`` and ``save()`` per object as the REST serializer does, the tag added, in one
   transaction, inside NetBox's change-logging context ``event_tracking`` with a request of the token's
   user: every object gets its change record): NetBox's own cost per object of each kind, wall, and CPU
   of the nbshell process, PostgreSQL and the RQ worker (the search-cache updates the saves queue, also
   after the script ended). The change records written are counted, to show they were.
Between steps the RQ worker is let go idle (its CPU counts for the step that queued its work).

Prints one line per measurement with the load average, then per kind the ratio push/ORM (wall), and
the 16,000- and 100,000-GPU push times at the rates measured (objects of each kind from the plan).
Run: BOM_NETBOX_DIR=... python3 -m benchmarks.bench_netbox_orm [--nodes 32] [--paths list,script]
[--workers 5] [--rounds 1]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).parents[1]
KINDS = ("devices", "modules", "cables")

#: Inside NetBox (nbshell). EMPTY: delete the site's cables, modules and devices. ORM: read what the push
#: made, delete it, make it again through the ORM in NetBox's change-logging context, time each kind.
EMPTY = r'''
from dcim.models import Cable, Device, Site
site = Site.objects.filter(name=SITE).first()
if site is not None:
    for c in Cable.objects.filter(terminations___device__site=site).distinct():
        c.delete()
    Device.objects.filter(site=site).delete()
print("RESULT=" + json.dumps({}))
'''
ORM = r'''
import os, time, uuid
from django.db import transaction
from core.models import ObjectChange
from dcim.models import Cable, Device, Interface, Module, ModuleBay, Site
from extras.models import Tag
from netbox.context_managers import event_tracking
from users.models import User
from utilities.request import NetBoxFakeRequest

site = Site.objects.get(name=SITE)
tag = Tag.objects.get(slug=TAG)
devs = [dict(name=d.name, role_id=d.role_id, device_type_id=d.device_type_id, site_id=d.site_id,
             location_id=d.location_id, rack_id=d.rack_id, position=d.position, face=d.face, status=d.status)
        for d in Device.objects.filter(site=site).order_by("pk")]
mods = [(m.device.name, m.module_bay.name, m.module_type_id, m.status)
        for m in Module.objects.filter(device__site=site).select_related("device", "module_bay").order_by("pk")]
cabs = []
for c in Cable.objects.filter(terminations___device__site=site).distinct().order_by("pk"):
    a, b = c.a_terminations[0], c.b_terminations[0]
    cabs.append(((a.device.name, a.name), (b.device.name, b.name), dict(type=c.type, status=c.status,
                 length=c.length, length_unit=c.length_unit, label=c.label, description=c.description)))
for c in Cable.objects.filter(terminations___device__site=site).distinct():
    c.delete()
Device.objects.filter(site=site).delete()


def quiet():
    """Wait until the RQ worker is idle: every deleted object queued its search-cache removal (autocommit,
    one job each: 317 jobs, about 60 s of CPU for 16 nodes) and that work is not the ORM's making."""
    last = None
    while (now := others()[1]) != last:
        last = now
        time.sleep(3)


user = User.objects.get(username=USER)
req = NetBoxFakeRequest({"id": uuid.uuid4(), "user": user, "META": {}, "COOKIES": {}, "POST": {}, "GET": {},
                         "FILES": {}, "path": "/bench/", "method": "POST"})
out = {}
changes0 = ObjectChange.objects.count()


def others():
    """CPU seconds of PostgreSQL (postmaster, backends, exited ones) and the RQ worker's group (it runs the
    search-cache updates the saves queue), as the bench reads the server's."""
    pg, rq = 0, 0
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            f = open(f"/proc/{p}/stat").read().rpartition(")")[2].split()
        except OSError:
            continue
        pid, ppid, pgid = int(p), int(f[1]), int(f[2])
        whole = pid == PG or pgid == RQ
        ticks = int(f[11]) + int(f[12]) + ((int(f[13]) + int(f[14])) if whole else 0)
        if pgid == RQ or ppid == RQ:   # a running horse: rq forks it into a process group of its own
            rq += ticks
        elif pid == PG or ppid == PG:
            pg += ticks
    hz = os.sysconf("SC_CLK_TCK")
    return pg / hz, rq / hz


def timed(kind, fn, n):
    t0, c0, o0 = time.perf_counter(), time.process_time(), others()
    fn()
    own, o1 = time.process_time() - c0, others()
    pg, rq = o1[0] - o0[0], o1[1] - o0[1]
    out[kind] = {"n": n, "wall": time.perf_counter() - t0, "cpu": own + pg + rq, "own": own, "pg": pg, "rq": rq}


def make_devices():
    for d in devs:
        o = Device(**d)
        o.full_clean()
        o.save()
        o.tags.add(tag)


def make_modules():
    dev = {d.name: d for d in Device.objects.filter(site=site)}
    bays = {(b.device.name, b.name): b for b in ModuleBay.objects.filter(device__site=site).select_related("device")}
    for dn, bn, mt, st in mods:
        o = Module(device=dev[dn], module_bay=bays[(dn, bn)], module_type_id=mt, status=st)
        o._disable_replication = True
        o.full_clean()
        o.save()
        o.tags.add(tag)


def make_cables():
    ifs = {(i.device.name, i.name): i for i in Interface.objects.filter(device__site=site).select_related("device")}
    for a, b, attrs in cabs:
        o = Cable(**attrs)
        o.a_terminations = [ifs[a]]
        o.b_terminations = [ifs[b]]
        o.full_clean()
        o.save()
        o.tags.add(tag)


quiet()
with event_tracking(req), transaction.atomic():
    timed("devices", make_devices, len(devs))
    timed("modules", make_modules, len(mods))
    timed("cables", make_cables, len(cabs))
out["changes"] = ObjectChange.objects.count() - changes0
print("RESULT=" + json.dumps(out))
'''


def _load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def _ticks(pid: int, children: bool) -> int:
    try:
        f = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0
    return int(f[11]) + int(f[12]) + ((int(f[13]) + int(f[14])) if children else 0)


def server_cpu(st: dict[str, str]) -> float:
    """CPU seconds of the server's processes: gunicorn's and the RQ worker's process groups, PostgreSQL's
    postmaster and its backends (with what exited children used: RQ's work horses, closed backends)."""
    groups = {int(st[k]) for k in ("WEB_PID", "RQ_PID") if st.get(k)}
    pg, rq = int(st.get("PG_PID") or 0), int(st.get("RQ_PID") or 0)
    total = 0
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            f = (p / "stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        pid, ppid, pgid = int(p.name), int(f[1]), int(f[2])
        # ppid == RQ: a running horse (rq forks each into a process group of its own; reaped, it counts in the
        # worker's children's CPU)
        if pgid in groups or pid == pg or ppid == pg or (rq and ppid == rq):
            total += _ticks(pid, pid in groups or pid == pg)
    return total / os.sysconf("SC_CLK_TCK")


def settle(st: dict[str, str]) -> None:
    """Wait until the RQ worker is idle: the saves queue search-cache updates it runs after the push (or
    the ORM's saves) returned; their CPU belongs to what queued them."""
    rq = int(st.get("RQ_PID") or 0)
    if not rq:
        return
    last = -1
    while True:
        # the worker's group and its running horse (in a process group of its own, the worker its parent)
        now = sum(_ticks(int(p.name), True) for p in Path("/proc").iterdir()
                  if p.name.isdigit() and rq in _pgid(p))
        if now == last:
            return
        last = now
        time.sleep(3)


def _pgid(p: Path) -> tuple[int, int]:
    """(process group, parent) of a process, (0, 0) when it is gone."""
    try:
        f = (p / "stat").read_text().rpartition(")")[2].split()
        return int(f[2]), int(f[1])
    except (OSError, IndexError, ValueError):
        return 0, 0


def inside(st: dict[str, str], code: str, **names: str | int) -> dict:
    head = "import json\n" + "".join(f"{k} = {v!r}\n" for k, v in names.items())
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(head + code)
    env = {**os.environ, "NETBOX_ROOT": st["NETBOX_ROOT"]}
    try:
        r = subprocess.run([f"{st['NETBOX_VENV']}/bin/netbox", "nbshell", "-c", f"exec(open({f.name!r}).read())"],
                           capture_output=True, text=True, env=env)
    finally:
        os.unlink(f.name)
    line = next((x for x in r.stdout.splitlines() if x.startswith("RESULT=")), None)
    if line is None:
        raise SystemExit(r.stdout[-2000:] + r.stderr[-3000:])
    return json.loads(line.removeprefix("RESULT="))


#: The push with each HTTP request timed (requests.Session.request, which pynetbox and the script's client
#: call): the longest ones go to the file $BENCH_REQUESTS, to hold against gunicorn's worker timeout.
TIMED = r'''
import atexit, json, os, sys, threading, time
import requests
from urllib.parse import urlsplit
took, lock, send = [], threading.Lock(), requests.Session.request


def request(self, method, url, *a, **kw):
    t0 = time.perf_counter()
    try:
        return send(self, method, url, *a, **kw)
    finally:
        body = kw.get("json")
        n = len(body) if isinstance(body, list) else 1
        with lock:
            took.append((time.perf_counter() - t0, method, urlsplit(url).path, n))


requests.Session.request = request
atexit.register(lambda: open(os.environ["BENCH_REQUESTS"], "w").write(json.dumps(sorted(took)[-5:][::-1])))
from bom.cli import main
sys.argv = ["bom", *sys.argv[1:]]
main()
'''


def push(st: dict[str, str], scenario: Path, path: str, workers: int) -> dict:
    fd, took = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    env = {**os.environ, "NETBOX_TOKEN": st["NETBOX_TOKEN"], "PYTHONPATH": str(ROOT), "BENCH_REQUESTS": took}
    c0, t0 = server_cpu(st), time.perf_counter()
    r = subprocess.run([sys.executable, "-c", TIMED, "netbox", "push", str(scenario), "--url", st["NETBOX_URL"],
                        "--path", path, "--install-script", "--workers", str(workers), "--json", "-q"],
                       capture_output=True, text=True, cwd=ROOT, env=env)
    if r.returncode:
        raise SystemExit(r.stderr)
    out = json.loads(r.stdout)
    out["wall"] = time.perf_counter() - t0
    out["longest"] = json.loads(Path(took).read_text() or "[]")
    os.unlink(took)
    settle(st)
    out["server_cpu"] = server_cpu(st) - c0
    return out


def timeout(st: dict[str, str]) -> str:
    """gunicorn's worker timeout as netbox-up.sh wrote it in the run's gunicorn.py ('-' under runserver)."""
    conf = Path(st.get("BOM_NETBOX_DIR", "")) / "gunicorn.py"
    lines = conf.read_text().splitlines() if conf.is_file() else []
    return next((x.split("=")[1].strip() for x in lines if x.startswith("timeout")), "-")


def orm(st: dict[str, str], site: str, tag: str) -> dict:
    settle(st)
    t0 = time.perf_counter()
    out = inside(st, ORM, SITE=site, TAG=tag, USER=st.get("NETBOX_USER", "bom-admin"),
                 PG=int(st.get("PG_PID") or 0), RQ=int(st.get("RQ_PID") or 0))
    out["wall"] = time.perf_counter() - t0
    before = server_cpu(st)
    settle(st)
    # the search-cache updates the ORM's saves queued, run after it ended: on the cables, the last kind
    out["cables"]["cpu"] += server_cpu(st) - before
    return out


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from benchmarks.bench_netbox_paths import BIG, counts
    from tests.netbox import live

    args = sys.argv[1:]

    def opt(name: str, default: str) -> str:
        return args[args.index(name) + 1] if name in args else default

    nodes, workers, rounds = int(opt("--nodes", "32")), int(opt("--workers", "5")), int(opt("--rounds", "1"))
    paths = opt("--paths", "list,script").split(",")
    st = live.state()
    name = f"nb-orm-{nodes}"
    site = f"{name}-s1"
    rates: dict[str, dict[str, list[float]]] = {p: {k: [] for k in KINDS} for p in [*paths, "orm"]}
    cpu: dict[str, list[float]] = {p: [] for p in paths}
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        sc = tmp / f"{name}.yaml"
        sc.write_text(f"name: {name}\nplatform: dgx-h100\nnodes: {nodes}\n"
                      "fabrics:\n  compute: {switch: qm9700}\n  oob: {switch: sn2201}\n")
        print(f"{nodes} DGX H100 (QM9700, SN2201), server {st.get('NETBOX_SERVER', '?')}, {os.cpu_count()} cores",
              flush=True)
        for rnd in range(rounds):
            for p in paths:
                inside(st, EMPTY, SITE=site)
                settle(st)
                r = push(st, sc, p, workers)
                made, secs = r["created"], r["seconds"]
                print(f"round {rnd + 1}, push --path {p} (took {r['path']}, {workers} workers, {_load()}): "
                      f"{sum(made.values()):,} objects in {r['wall']:.0f} s, server CPU {r['server_cpu']:.0f} s; "
                      + ", ".join(f"{k} {made.get(k, 0):,} in {secs.get(k, 0):.1f} s "
                                  f"({secs.get(k, 0) / max(made.get(k, 0), 1):.3f} s each)" for k in KINDS),
                      flush=True)
                print(f"round {rnd + 1}, --path {p}: longest requests (gunicorn's worker timeout {timeout(st)} s): "
                      + "; ".join(f"{m} {u} ({n} objects) {t:.1f} s" for t, m, u, n in r["longest"]), flush=True)
                for k in KINDS:
                    if made.get(k):
                        rates[p][k].append(secs[k] / made[k])
                o = orm(st, site, name)
                print(f"round {rnd + 1}, the same inside NetBox through the ORM ({_load()}): "
                      + ", ".join(f"{k} {o[k]['n']:,} in {o[k]['wall']:.1f} s ({o[k]['wall'] / max(o[k]['n'], 1):.3f} "
                                  f"s each, CPU {o[k]['cpu'] / max(o[k]['n'], 1):.3f})" for k in KINDS)
                      + f"; {o['changes']:,} change records", flush=True)
                for k in KINDS:
                    if o[k]["n"]:
                        rates["orm"][k].append(o[k]["wall"] / o[k]["n"])
                orm_cpu = sum(o[k]["cpu"] for k in KINDS)
                n = sum(o[k]["n"] for k in KINDS)
                cpu[p].append(r["server_cpu"] / orm_cpu)
                print(f"round {rnd + 1}, --path {p}: the server's CPU for the whole push {r['server_cpu']:.0f} s "
                      f"against the ORM's {orm_cpu:.0f} s for its {n:,} devices, modules and cables (with "
                      f"PostgreSQL and the RQ worker): {r['server_cpu'] / orm_cpu:.2f}x", flush=True)
        inside(st, EMPTY, SITE=site)
        med = {p: {k: sorted(v)[len(v) // 2] for k, v in kr.items() if v} for p, kr in rates.items()}
        for p in paths:
            if cpu[p]:
                print(f"--path {p} / ORM, the server's CPU: {sorted(cpu[p])[len(cpu[p]) // 2]:.2f}x (median of "
                      f"{len(cpu[p])})")
            print(f"--path {p} / ORM, wall per object: " + ", ".join(
                f"{k} {med[p][k] / med['orm'][k]:.2f}x" for k in KINDS if k in med[p] and k in med["orm"]))
        for label, text in BIG.items():
            n = counts(text, tmp)
            for p in [*paths, "orm"]:
                t = sum(n[k] * med[p].get(k, 0) for k in KINDS)
                print(f"{label}: {', '.join(f'{n[k]:,} {k}' for k in KINDS)}: {p} {t / 3600:.1f} h")


if __name__ == "__main__":
    main()
