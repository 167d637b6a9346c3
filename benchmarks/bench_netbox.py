"""Benchmark: pushing a plan into a real NetBox (scripts/netbox-up.sh), by the paths NetBox offers.

Cases: the small pod (tests/netbox/scenarios/pod8.yaml) and one scalable unit (su32.yaml, 32 DGX
H100 nodes), each pushed from nothing (its sites purged first) with list POSTs of 250
(``bom netbox push``'s default) and with one object per POST (``--batch 1``), then the exported
files through NetBox's bulk-import forms (tag, sites, locations, racks, devices, cables; the
makers, roles and device types exist by then). Objects are those the push creates (NetBox also
instantiates each device's interfaces from its type inside the device POST). Ends with the
cable count of a 16,000-GPU design and its push time at the measured seconds per cable.
Run: python3 -m benchmarks.bench_netbox [--case "small pod"|"one SU"]
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
SC = ROOT / "tests" / "netbox" / "scenarios"
#: The 16,000-GPU design of the estimate: 2,000 DGX H100 nodes, the compute and OOB fabrics.
BIG = "name: nb-16k\nplatform: dgx-h100\ngpus: 16000\nfabrics:\n  compute: {switch: qm9700}\n  oob: {switch: sn2201}\n"
CSV_FILES = ("00-tags.csv", "01-sites.csv", "02-locations.csv", "03-racks.csv", "07-devices.csv", "08-cables.csv")


def _renamed(src: Path, name: str, tmp: Path) -> Path:
    text = src.read_text()
    old = next(line for line in text.splitlines() if line.startswith("name:"))
    out = tmp / f"{name}.yaml"
    out.write_text(text.replace(old, f"name: {name}"))
    return out


def _push(st: dict[str, str], scenario: Path, batch: int) -> dict:
    env = {**os.environ, "NETBOX_TOKEN": st["NETBOX_TOKEN"]}
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "bom.cli", "netbox", "push", str(scenario), "--url", st["NETBOX_URL"],
                        "--batch", str(batch), "--json", "-q"], capture_output=True, text=True, cwd=ROOT, env=env)
    if r.returncode:
        raise SystemExit(r.stderr)
    out = json.loads(r.stdout)
    out["wall"] = time.perf_counter() - t0
    return out


def _csv_import(st: dict[str, str], scenario: Path, tmp: Path) -> dict[str, float]:
    from bom.netbox.export import FILES
    from tests.netbox import live

    out = tmp / f"{scenario.stem}-files"
    subprocess.run([sys.executable, "-m", "bom.cli", "netbox", "export", str(scenario), "-o", str(out)], check=True,
                   cwd=ROOT, capture_output=True)
    s = live.web_session(st)
    seconds = {}
    for name in CSV_FILES:
        t0 = time.perf_counter()
        live.import_form(s, st["NETBOX_URL"], FILES[name], (out / name).read_text())
        seconds[name] = time.perf_counter() - t0
    return seconds


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from bom import pipeline
    from bom.cableplan import rows as plan
    from bom.inputs.scenario import load_scenario
    from tests.netbox import live

    st = live.state()
    nb = live.api(st)
    only = sys.argv[sys.argv.index("--case") + 1] if "--case" in sys.argv else None
    per_cable = None
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for case, src in (("small pod", SC / "pod8.yaml"), ("one SU", SC / "su32.yaml")):
            if only and only != case:
                continue
            for batch in (250, 1):
                sc = _renamed(src, f"nb-bench-{src.stem}-b{batch}", tmp)
                live.purge(nb, [f"{sc.stem}-s1"])
                r = _push(st, sc, batch)
                made, cables = sum(r["created"].values()), r["created"].get("cables", 0)
                cs = r["seconds"].get("cables", 0.0)
                print(f"{case}, push batch {batch}: {made:,} objects in {r['wall']:.1f} s = "
                      f"{made / r['wall']:.1f} objects/s; devices {r['created'].get('devices', 0)} in "
                      f"{r['seconds'].get('devices', 0):.1f} s; {cables:,} cables in {cs:.1f} s = "
                      f"{cs / max(cables, 1):.3f} s per cable", flush=True)
                if batch == 250:
                    per_cable = cs / max(cables, 1)
                live.purge(nb, [f"{sc.stem}-s1"])
            sc = _renamed(src, f"nb-bench-{src.stem}-csv", tmp)
            live.purge(nb, [f"{sc.stem}-s1"])
            if t := nb.extras.tags.get(slug=sc.stem):
                t.delete()
            secs = _csv_import(st, sc, tmp)
            n_dev = nb.dcim.devices.count(site_id=[s.id for s in nb.dcim.sites.filter(name=[f"{sc.stem}-s1"])])
            n_cab = sum(1 for _ in (tmp / f"{sc.stem}-files" / "08-cables.csv").open()) - 1
            total = sum(secs.values())
            print(f"{case}, CSV import: {n_dev + n_cab:,} devices and cables in {total:.1f} s = "
                  f"{(n_dev + n_cab) / total:.1f} objects/s; devices {secs['07-devices.csv']:.1f} s, "
                  f"cables {secs['08-cables.csv']:.1f} s = {secs['08-cables.csv'] / n_cab:.3f} s per cable", flush=True)
            live.purge(nb, [f"{sc.stem}-s1"])
        big = tmp / "big.yaml"
        big.write_text(BIG)
        sc_, src_ = load_scenario(big)
        cat = pipeline.catalog_for(sc_, src_, None, None)
        rows = plan.row_count(pipeline.build_scenario(sc_, src_, cat))
    line = f"16,000 GPUs (2,000 DGX H100, compute and OOB fabrics): {rows:,} cables"
    if per_cable:
        line += f"; at {per_cable:.3f} s per cable about {rows * per_cable / 3600:.1f} h for the cables alone"
    print(line)


if __name__ == "__main__":
    main()
