"""Profile: where the clusterbom_bulk script's server time goes against NetBox's own ORM loop (issue 46).

Inside NetBox (``netbox nbshell``) on the site a push of ``--nodes`` DGX H100 made (bench_netbox_orm's
subset, pushed first when absent), in one transaction that is rolled back at the end (the site is left as
it was), inside NetBox's change-logging context with a request of the token's user:

1. the site's cables and devices are deleted (not timed);
2. per mode, its devices, then their modules, then their cables are made again and timed per kind, CPU
   of the nbshell process (process_time) and SQL queries counted, under cProfile:
   ``script``: the clusterbom_bulk script's own ``run`` (bom/netbox/script.py's SOURCE, this checkout's,
   so main's and a branch's can be compared), given the payloads the push sends (ids, tags, terminations);
   ``orm``: bench_netbox_orm's loop (``full_clean()``, ``save()``, the tag added per object).
   Each mode runs in a savepoint rolled back after it, so every mode starts from the same state.
3. the top functions by own time per mode and kind are printed (``--top N``).

The search-cache jobs NetBox queues on commit never run here (rolled back). NetBox 4.7 coalesces them: one
job per transaction (netbox/search/deferred.py), one per object only in autocommit (a deletion outside a
transaction); the push queues one per script job, the ORM loop one (bench_netbox_account counts them).
Run: BOM_NETBOX_DIR=... python3 -m benchmarks.bench_netbox_profile [--nodes 16] [--modes script,orm]
[--rounds 3] [--top 25]; a mode ``script@REF`` runs the script as git REF of this checkout has it
(``script@main``); ``--top 0`` times without cProfile (its overhead is about 2x).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]

PROFILE = r'''
import cProfile, io, pstats, time, uuid
from django.db import connection, transaction
from dcim.models import Cable, Device, Interface, Module, ModuleBay, Site
from extras.models import Tag
from netbox.context_managers import event_tracking
from users.models import User
from utilities.request import NetBoxFakeRequest

site = Site.objects.get(name=SITE)
tag = Tag.objects.get(slug=TAG)
user = User.objects.get(username=USER)
req = NetBoxFakeRequest({"id": uuid.uuid4(), "user": user, "META": {}, "COOKIES": {}, "POST": {}, "GET": {},
                         "FILES": {}, "path": "/bench/", "method": "POST"})
devs = [dict(name=d.name, role=d.role_id, device_type=d.device_type_id, site=d.site_id, location=d.location_id,
             rack=d.rack_id, position=float(d.position) if d.position is not None else None, face=d.face,
             status=d.status) for d in Device.objects.filter(site=site).order_by("pk")]
for d in devs:
    for k in [k for k, v in d.items() if v is None or v == ""]:
        del d[k]
mods = [(m.device.name, m.module_bay.name, m.module_type_id, m.status)
        for m in Module.objects.filter(device__site=site).select_related("device", "module_bay").order_by("pk")]
cabs = []
for c in Cable.objects.filter(terminations___device__site=site).distinct().order_by("pk"):
    a, b = c.a_terminations[0], c.b_terminations[0]
    cabs.append(((a.device.name, a.name), (b.device.name, b.name), dict(type=c.type, status=c.status,
                 length=str(c.length), length_unit=c.length_unit, label=c.label, description=c.description)))
scripts = {}
for mode, text in SOURCES.items():
    ns = {}
    exec(text, ns)
    scripts[mode] = ns["BulkCreate"]()
    scripts[mode].request = req
queries = [0]


def counting(execute, sql, params, many, context):
    queries[0] += 1
    return execute(sql, params, many, context)


def by_script(mode, label, items):
    def run():
        scripts[mode].run({"model_label": label, "items": json.dumps(items), "run_id": "p"}, True)
    return run


def payloads(kind):
    if kind == "devices":
        return [{**d, "tags": [tag.pk]} for d in devs]
    if kind == "modules":
        dev = {d.name: d.pk for d in Device.objects.filter(site=site)}
        bays = {(b.device.name, b.name): b.pk
                for b in ModuleBay.objects.filter(device__site=site).select_related("device")}
        return [{"device": dev[dn], "module_bay": bays[(dn, bn)], "module_type": mt, "status": st,
                 "replicate_components": False, "tags": [tag.pk]} for dn, bn, mt, st in mods]
    ifs = {(i.device.name, i.name): i.pk for i in Interface.objects.filter(device__site=site).select_related("device")}
    return [{**attrs, "a_terminations": [{"object_type": "dcim.interface", "object_id": ifs[a]}],
             "b_terminations": [{"object_type": "dcim.interface", "object_id": ifs[b]}], "tags": [tag.pk]}
            for a, b, attrs in cabs]


def orm_devices():
    for d in devs:
        o = Device(**{k + ("_id" if k in ("role", "device_type", "site", "location", "rack") else ""): v
                      for k, v in d.items()})
        o.full_clean()
        o.save()
        o.tags.add(tag)


def orm_modules():
    dev = {d.name: d for d in Device.objects.filter(site=site)}
    bays = {(b.device.name, b.name): b for b in ModuleBay.objects.filter(device__site=site).select_related("device")}
    for dn, bn, mt, st in mods:
        o = Module(device=dev[dn], module_bay=bays[(dn, bn)], module_type_id=mt, status=st)
        o._disable_replication = True
        o.full_clean()
        o.save()
        o.tags.add(tag)


def orm_cables():
    ifs = {(i.device.name, i.name): i for i in Interface.objects.filter(device__site=site).select_related("device")}
    for a, b, attrs in cabs:
        o = Cable(**attrs)
        o.a_terminations = [ifs[a]]
        o.b_terminations = [ifs[b]]
        o.full_clean()
        o.save()
        o.tags.add(tag)


ORM_FN = {"devices": orm_devices, "modules": orm_modules, "cables": orm_cables}
LABEL = {"devices": "dcim.device", "modules": "dcim.module", "cables": "dcim.cable"}
out = {"n": {"devices": len(devs), "modules": len(mods), "cables": len(cabs)}}
with event_tracking(req), transaction.atomic(), connection.execute_wrapper(counting):
    for c in Cable.objects.filter(terminations___device__site=site).distinct():
        c.delete()
    Device.objects.filter(site=site).delete()
    for rnd in range(ROUNDS):
        for mode in MODES:
            sid = transaction.savepoint()
            for kind in ("devices", "modules", "cables"):
                fn = ORM_FN[kind] if mode == "orm" else by_script(mode, LABEL[kind], payloads(kind))
                prof = cProfile.Profile()
                q0, c0 = queries[0], time.process_time()
                if TOP and rnd == 0:
                    prof.enable()
                fn()
                prof.disable()
                cpu, q = time.process_time() - c0, queries[0] - q0
                rec = out.setdefault(mode, {}).setdefault(kind, {"cpu": [], "queries": q})
                rec["cpu"].append(cpu)
                if rnd == 0 and TOP:
                    s = io.StringIO()
                    pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(TOP)
                    rec["top"] = s.getvalue()
            transaction.savepoint_rollback(sid)
    transaction.set_rollback(True)
print("RESULT=" + json.dumps(out))
'''


def _source_at(ref: str) -> str:
    """The script's SOURCE as bom/netbox/script.py at git ``ref`` had it (``script@main``: main's)."""
    import subprocess
    text = subprocess.run(["git", "show", f"{ref}:bom/netbox/script.py"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout
    ns: dict = {}
    exec(compile(text, f"{ref}:bom/netbox/script.py", "exec"), ns)
    return str(ns["source"]())


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from benchmarks.bench_netbox_orm import inside
    from bom.netbox import script
    from tests.netbox import live

    args = sys.argv[1:]

    def opt(name: str, default: str) -> str:
        return args[args.index(name) + 1] if name in args else default

    nodes, rounds, top = int(opt("--nodes", "16")), int(opt("--rounds", "3")), int(opt("--top", "25"))
    modes = opt("--modes", "script,orm").split(",")
    st = live.state()
    name = f"nb-orm-{nodes}"
    sources = {m: script.source() if m == "script" else _source_at(m.partition("@")[2]) for m in modes
               if m.startswith("script")}
    out = inside(st, PROFILE, SITE=f"{name}-s1", TAG=name, USER=st.get("NETBOX_USER", "bom-admin"),
                 SOURCES=sources, MODES=modes, ROUNDS=rounds, TOP=top)  # type: ignore[arg-type]
    n = out.pop("n")
    print(f"{nodes} DGX H100: {n['devices']} devices, {n['modules']} modules, {n['cables']} cables; "
          f"load {os.getloadavg()[0]:.1f}; nbshell CPU (process_time), median of {rounds}")
    for mode, kinds in out.items():
        for kind, rec in kinds.items():
            cpu = sorted(rec["cpu"])[len(rec["cpu"]) // 2]
            print(f"{mode:8} {kind:8} {cpu:7.2f} s  {cpu / max(n[kind], 1) * 1000:7.2f} ms/object  "
                  f"{rec['queries'] / max(n[kind], 1):6.1f} queries/object")
    for mode, kinds in out.items():
        for kind, rec in kinds.items():
            if rec.get("top"):
                print(f"\n=== {mode} {kind}: top {top} by own time\n{rec['top']}")


if __name__ == "__main__":
    main()
