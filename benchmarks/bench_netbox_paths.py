"""Benchmark: the paths a push can take into a real NetBox (scripts/netbox-up.sh), on one server and
the same cables (issue 30).

1. ``bom netbox push`` of a design from nothing (list POSTs of 250, one in flight): the seconds per
   object of each kind (a device POST includes the interfaces and module bays NetBox makes from its type).
2. The same cables again, after deleting them inside NetBox, by ``bom netbox push --workers N``
   (N list POSTs in flight; the rest of the plan is matched, only the cables are created).
3. The same cables again by a script run inside NetBox (``netbox nbshell``, the ORM, one
   transaction, no HTTP, no change log): the cost of NetBox's own cable save, signals and path tracing.

Ends with the objects of a 16,000-GPU design (2,000 DGX H100 on QM9700, as bench_netbox) and a
100,000-GPU one (12,500 DGX B300, the default fabrics) and their push time at the rates measured.
The machine's load average is printed beside each figure: on a shared machine it moves them.
Needs the NetBox venv of scripts/netbox-up.sh on this machine (its state file) for steps 2 and 3.
Run: python3 -m benchmarks.bench_netbox_paths [--nodes 32] [--workers 2,4]
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
BIG = {
    "16,000 GPUs (2,000 DGX H100, QM9700)": "platform: dgx-h100\ngpus: 16000\nfabrics:\n  compute: {switch: qm9700}\n"
                                            "  oob: {switch: sn2201}\n",
    "100,000 GPUs (12,500 DGX B300, default fabrics)": "platform: dgx-b300\ngpus: 100000\n",
}

#: Run inside NetBox (nbshell): delete the site's cables; with CSV set, create the export's cables through the ORM.
ORM = r'''
import csv, json, time
from django.db import transaction
from dcim.models import Cable, Interface, Site
from extras.models import Tag
site = Site.objects.get(name=SITE)
t0 = time.perf_counter()
gone = 0
for c in Cable.objects.filter(terminations___device__site=site).distinct():
    c.delete()
    gone += 1
out = {"deleted": gone, "delete_s": time.perf_counter() - t0}
if CSV:
    ifaces = {(i.device.name, i.name): i for i in Interface.objects.filter(device__site=site).select_related("device")}
    tag = Tag.objects.get(slug=TAG)
    rows = list(csv.DictReader(open(CSV)))
    t0 = time.perf_counter()
    with transaction.atomic():
        for r in rows:
            c = Cable(type=r["type"], status=r["status"], length=float(r["length"]), length_unit=r["length_unit"],
                      label=r["label"], description=r["description"])
            c.a_terminations = [ifaces[(r["side_a_device"], r["side_a_name"])]]
            c.b_terminations = [ifaces[(r["side_b_device"], r["side_b_name"])]]
            c.save()
            c.tags.add(tag)
    out.update(created=len(rows), create_s=time.perf_counter() - t0)
print("RESULT=" + json.dumps(out))
'''


def _load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def _push(st: dict[str, str], scenario: Path, workers: int) -> dict:
    env = {**os.environ, "NETBOX_TOKEN": st["NETBOX_TOKEN"], "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "bom.cli", "netbox", "push", str(scenario), "--url", st["NETBOX_URL"],
                        "--workers", str(workers), "--json", "-q"], capture_output=True, text=True, cwd=ROOT, env=env)
    if r.returncode:
        raise SystemExit(r.stderr)
    out = json.loads(r.stdout)
    out["wall"] = time.perf_counter() - t0
    return out


def _inside(st: dict[str, str], site: str, tag: str, csv: Path | None) -> dict:
    """The ORM script in ``netbox nbshell`` on the server's own configuration."""
    code = f"SITE, TAG, CSV = {site!r}, {tag!r}, {str(csv) if csv else ''!r}\n" + ORM
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(code)
    env = {**os.environ, "NETBOX_ROOT": st["NETBOX_ROOT"]}
    r = subprocess.run([f"{st['NETBOX_VENV']}/bin/netbox", "nbshell", "-c", f"exec(open({f.name!r}).read())"],
                       capture_output=True, text=True, env=env)
    os.unlink(f.name)
    line = next((x for x in r.stdout.splitlines() if x.startswith("RESULT=")), None)
    if line is None:
        raise SystemExit(r.stdout[-2000:] + r.stderr[-2000:])
    return json.loads(line.removeprefix("RESULT="))


def counts(text: str, tmp: Path) -> dict[str, int]:
    """The objects a push of a design creates, by the kinds the rates are measured for."""
    from bom import pipeline
    from bom.inputs.scenario import load_scenario
    from bom.netbox.push import plan_objects

    p = tmp / "big.yaml"
    p.write_text("name: nb-big\n" + text)
    sc, src = load_scenario(p)
    cat = pipeline.catalog_for(sc, src, None, None)
    inv, cables = plan_objects(pipeline.build_scenario(sc, src, cat), cat)
    return {"devices": len(inv.devices), "modules": len(inv.modules), "cables": len(cables),
            "interfaces": sum(len(inv.device_types[d.device_type].interfaces) for d in inv.devices)}


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from tests.netbox import live

    args = sys.argv[1:]
    nodes = int(args[args.index("--nodes") + 1]) if "--nodes" in args else 32
    workers = [int(x) for x in (args[args.index("--workers") + 1] if "--workers" in args else "2,4").split(",")]
    st = live.state()
    nb = live.api(st)
    name = f"nb-paths-{nodes}"
    site = f"{name}-s1"
    rate: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        sc = tmp / f"{name}.yaml"
        sc.write_text(f"name: {name}\nplatform: dgx-h100\nnodes: {nodes}\n"
                      "fabrics:\n  compute: {switch: qm9700, topology: rail-optimized}\n  oob: {switch: sn2201}\n")
        live.purge(nb, [site])
        r = _push(st, sc, 1)
        made, secs = r["created"], r["seconds"]
        print(f"{nodes} DGX H100, push from nothing (list POSTs of 250, 1 in flight, {_load()}): "
              f"{sum(made.values()):,} objects in {r['wall']:.0f} s; " + ", ".join(
                  f"{k} {made[k]:,} in {secs.get(k, 0):.1f} s ({secs.get(k, 0) / made[k]:.3f} s each)"
                  for k in ("devices", "module bays", "modules", "cables") if made.get(k)), flush=True)
        for k in ("devices", "modules", "cables"):
            if made.get(k):
                rate[k] = secs.get(k, 0) / made[k]
        best = ("list POSTs, 1 in flight", rate["cables"])
        for n in workers:
            gone = _inside(st, site, name, None)
            r = _push(st, sc, n)
            c = r["seconds"].get("cables", 0) / max(r["created"].get("cables", 0), 1)
            print(f"the {r['created'].get('cables', 0):,} cables again ({gone['deleted']:,} deleted inside NetBox in "
                  f"{gone['delete_s']:.0f} s), {n} list POSTs in flight ({_load()}): "
                  f"{r['seconds'].get('cables', 0):.1f} s = {c:.3f} s per cable", flush=True)
            if c < best[1]:
                best = (f"list POSTs, {n} in flight", c)
        from bom import pipeline
        from bom.inputs.scenario import load_scenario
        from bom.netbox.export import export

        s_, src = load_scenario(sc)
        cat = pipeline.catalog_for(s_, src, None, None)
        export(pipeline.build_scenario(s_, src, cat), cat, tmp / "files")
        o = _inside(st, site, name, tmp / "files" / "08-cables.csv")
        c = o["create_s"] / o["created"]
        print(f"the {o['created']:,} cables again inside NetBox (nbshell, ORM, one transaction, {_load()}): "
              f"{o['create_s']:.1f} s = {c:.3f} s per cable ({o['deleted']:,} deleted first in {o['delete_s']:.0f} s)",
              flush=True)
        print(f"fastest through the REST API (the push's path): {best[0]}, {best[1]:.3f} s per cable; inside "
              f"NetBox (shell on the server, no change log): {c:.3f}")
        rate["cables"] = best[1]
        live.purge(nb, [site])
        for what, text in BIG.items():
            n = counts(text, tmp)
            hours = sum(n[k] * rate.get(k, 0.0) for k in n) / 3600
            print(f"{what}: {n['devices']:,} devices ({n['interfaces']:,} interfaces), {n['modules']:,} transceivers, "
                  f"{n['cables']:,} cables; at {rate['devices']:.3f} s per device, {rate.get('modules', 0):.3f} s "
                  f"per transceiver and {rate['cables']:.3f} s per cable: about {hours:.1f} h", flush=True)


if __name__ == "__main__":
    main()
