"""Benchmark: ``bom diff`` of a 1M-GPU campus against itself with one parameter changed, against one plan.

The campus of bench_plan ("1M GPUs, 10 buildings", compute fabric and the in-band fabric the DCI's
client ports land on), the new side with ``sites.dci_bandwidth`` halved (51.2 to 25.6 Tbit/s: the
DCI's wavelengths, coherent modules, routers' line ports and client links change, every other row stays).
Each stage runs in its own process, so its peak memory (``ru_maxrss``) is its own:

- ``plan``: one model built and its plan streamed (counted, no file): what the diff is held against;
- ``merge``: both models built, their placements and their plans merged (bom/diff/devices.py and
  cables.py: the streamed part of ``bom diff``), no row kept;
- ``bom diff``: both sides as ``bom diff`` reads them (built, checked, priced: bom/pipeline/diff.py)
  and the whole diff, figures, devices and cables.

Seconds as wall / CPU (``time.process_time``; on a shared machine the CPU time is the figure to read).
Run: python3 -m benchmarks.bench_diff [--case NAME]
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarks.bench_plan import _Clock

if TYPE_CHECKING:
    from bom.catalog.rows import Catalog
    from bom.model.model import Model

EXTRA = 'gpus: 1000080\nsites: {count: 10, distance: "2 km", dci_bandwidth: "51.2 Tbit/s"}\n'
CHANGED = EXTRA.replace("51.2 Tbit/s", "25.6 Tbit/s")
COMPUTE = "fabrics: {compute: {switch: q3400}}\n"
CASES = ("plan", "merge", "bom diff")


def _models(catalog: Catalog, *extras: str) -> list[Model]:
    from benchmarks.cases import scenario
    from bom.pipeline.model import build_model

    out = []
    for extra in extras:
        sc, src = scenario(extra, COMPUTE)
        out.append(build_model(sc, src, catalog, None))  # type: ignore[arg-type]   # cases.scenario: untyped
    return out


def _files(folder: Path) -> tuple[Path, Path]:
    from benchmarks.cases import BASE, with_dci_fabric

    old, new = folder / "old.yaml", folder / "new.yaml"
    old.write_text(BASE + with_dci_fabric(EXTRA, COMPUTE) + EXTRA)
    new.write_text(BASE + with_dci_fabric(CHANGED, COMPUTE) + CHANGED)
    return old, new


def run_case(name: str) -> dict[str, object]:
    import tempfile

    from bom.cableplan.rows import rows
    from bom.catalog.load import load_catalog
    from bom.diff import cables, devices

    catalog = load_catalog()
    load = os.getloadavg()[0]
    clock = _Clock()
    out: dict[str, object] = {"case": name, "load": round(load, 1)}
    if name == "plan":
        (model,) = _models(catalog, EXTRA)
        out["build_s"] = clock.lap()
        out["rows"] = sum(1 for _ in rows(model, catalog=catalog))
        out["stream_s"] = clock.lap()
    elif name == "merge":
        old, new = _models(catalog, EXTRA, CHANGED)
        out["build_s"] = clock.lap()
        d = devices.merge(devices.placed(old.placement), devices.placed(new.placement))
        c = cables.merge(rows(old, catalog=catalog), rows(new, catalog=catalog),
                         logical=(devices.Logical(old.placement), devices.Logical(new.placement)))
        out["stream_s"] = clock.lap()
        out["devices"] = d.to_json()
        out["cables"] = c.to_json()
        out["rows"] = c.same_rows + c.counts["remove"] + c.counts["move"] + c.counts["replace"]
    else:
        from bom.pipeline.diff import diff_sides, load_side

        with tempfile.TemporaryDirectory() as tmp:
            a, b = _files(Path(tmp))
            old_side, new_side = load_side(str(a), "OLD"), load_side(str(b), "NEW")
            out["build_s"] = clock.lap()
            diff = diff_sides(old_side, new_side)
            out["stream_s"] = clock.lap()
        j = diff.to_json()
        out["cables"] = j["cables"]
        out["order_lines"] = len(j["order"])
        out["same"] = j["same"]
    out["peak_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return out


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--case":
        print(json.dumps(run_case(sys.argv[2])))
        return
    names = [sys.argv[1]] if len(sys.argv) == 2 else list(CASES)
    print("seconds as wall / CPU")
    for name in names:
        got = subprocess.run([sys.executable, "-m", "benchmarks.bench_diff", "--case", name], capture_output=True,
                             text=True, check=True, cwd=Path(__file__).resolve().parents[1])
        r = json.loads(got.stdout)
        b, s = r["build_s"], r["stream_s"]
        print(f"{r['case']:9} load {r['load']:4.1f}  build {b[0]:7.2f}/{b[1]:7.2f} s  "
              f"stream {s[0]:7.2f}/{s[1]:7.2f} s  peak {r['peak_mb']:>5} MB  "
              + json.dumps({k: v for k, v in r.items() if k not in ("case", "load", "build_s", "stream_s", "peak_mb")}))


if __name__ == "__main__":
    main()
