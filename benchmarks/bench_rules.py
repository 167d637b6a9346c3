"""Benchmark: the design rules' cost, against what they ride on.

Two targets (issue 21):

- the closed-form rules (what every ``bom build`` runs) add at most 10 % to a build: per size, the
  closed-form checks against the build they are part of (model, report and every writer of
  ``bom build``, the cable plan files left out as a build leaves them out past 100,000 rows);
- the plan-stream rules (``bom check``) over a 1,000,000-GPU plan take at most the plan's own time
  again, with no more memory: the plan streamed and counted alone, then the plan streamed through
  every plan rule, each in its own process so that its peak memory (``ru_maxrss``) is its own.

Times are wall / CPU seconds (``time.process_time``: on a shared machine the wall clock counts the
other processes' turns, the CPU time does not); the load average is printed with each case.
``bom cables`` feeds the plan rules the rows it writes: its time with and without them (``--cables``).
Run: python3 -m benchmarks.bench_rules [--closed | --stream | --cables]
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

#: Sizes for the closed form (every fabric, so every rule has something to read) and the stream.
CLOSED = ("1k GPUs", "16k GPUs", "100k GPUs", "1M GPUs, 10 buildings")
ALL = "fabrics: {compute: {switch: q3400}, storage: {}, inband: {}, oob: {uplinks: spine}}\n"
STREAM = {
    "1M GPUs, 10 buildings (ring)": ('gpus: 1000080\nsites: {count: 10, topology: ring, distance: "2 km", '
                                     'dci_bandwidth: "51.2 Tbit/s"}\n', "fabrics: {compute: {switch: q3400}}\n"),
    "100k GPUs, every fabric": ("gpus: 100008\n", ALL),
}


class Clock:
    """(wall, CPU) seconds since the last lap."""

    def __init__(self) -> None:
        import time

        self.time = time
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def lap(self) -> tuple[float, float]:
        wall, cpu = self.time.perf_counter(), self.time.process_time()
        out = (round(wall - self.wall, 3), round(cpu - self.cpu, 3))
        self.wall, self.cpu = wall, cpu
        return out


def closed(name: str) -> dict[str, object]:
    """One build as ``bom build`` makes it, with its closed-form checks timed apart."""
    from benchmarks.cases import SIZES, scenario
    from bom.catalog.load import load_catalog
    from bom.outputs.sets import render
    from bom.pipeline import report_of
    from bom.pipeline.model import build_model
    from bom.rules.run import check

    catalog = load_catalog()
    sc, src = scenario(SIZES[name], ALL if not name.startswith("1M") else "fabrics: {compute: {switch: q3400}}\n")
    load = os.getloadavg()[0]
    clock = Clock()
    model = build_model(sc, src, catalog, None)
    t_model = clock.lap()
    checks = check(model, catalog)
    t_checks = clock.lap()
    report = report_of(model, catalog, checks=checks)
    files = render(report)
    t_outputs = clock.lap()
    build = (t_model[0] + t_checks[0] + t_outputs[0], t_model[1] + t_checks[1] + t_outputs[1])
    return {"case": name, "load": round(load, 1), "gpus": model.cluster.gpus, "groups": len(model.groups),
            "model_s": t_model, "checks_s": t_checks, "report_and_writers_s": t_outputs, "build_s": build,
            "share_cpu": round(t_checks[1] / build[1], 4), "violations": checks.errors + checks.warnings,
            "bytes": sum(len(b) for b in files.values())}


def stream(name: str, rules: bool) -> dict[str, object]:
    """The plan alone (rows counted) or the plan through every rule (closed form and plan)."""
    from benchmarks.cases import scenario
    from bom.cableplan import rows as plan
    from bom.catalog.load import load_catalog
    from bom.pipeline.model import build_model
    from bom.rules.run import check  # imported by both runs: the comparison is of the work, not the code

    catalog = load_catalog()
    sc, src = scenario(*STREAM[name])
    model = build_model(sc, src, catalog, None)
    load = os.getloadavg()[0]
    base_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    clock = Clock()
    if rules:
        checks = check(model, catalog, plan=True)
        n, found = plan.row_count(model), {r.id: r.violations for r in checks.results if r.violations}
    else:
        n, found = sum(1 for _ in plan.rows(model, catalog=catalog)), {}
    t = clock.lap()
    return {"case": name, "rules": rules, "load": round(load, 1), "rows": n, "s": t,
            "rows_per_cpu_s": round(n / max(t[1], 1e-9)), "model_mb": round(base_mb),
            "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024), "violations": found}


def cables(name: str, rules: bool) -> dict[str, object]:
    """``bom cables`` (CSV, workbook when it fits, elevations) with or without the plan rules fed
    the rows as they are written."""
    import tempfile

    from benchmarks.cases import scenario
    from bom.catalog.load import load_catalog
    from bom.outputs import planfiles
    from bom.pipeline.model import build_model
    from bom.rules.run import PlanRules

    catalog = load_catalog()
    model = build_model(*scenario(*STREAM[name]), catalog, None)
    clock = Clock()
    with tempfile.TemporaryDirectory() as tmp:
        feed = PlanRules(model, catalog) if rules else None
        files = planfiles.write_plan(model, Path(tmp) / "o", "bench", catalog=catalog,
                                     also=feed.rows if feed is not None else None)
        found = feed.finish().warnings if feed is not None else 0
    return {"case": name, "rules": rules, "rows": files.rows, "s": clock.lap(), "warnings": found,
            "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def _child(*args: str) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-m", "benchmarks.bench_rules", *args], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parents[1])
    return json.loads(out.stdout)


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--child-closed":
        print(json.dumps(closed(sys.argv[2])))
        return
    if len(sys.argv) > 3 and sys.argv[1] == "--child-stream":
        print(json.dumps(stream(sys.argv[2], sys.argv[3] == "rules")))
        return
    if len(sys.argv) > 3 and sys.argv[1] == "--child-cables":
        print(json.dumps(cables(sys.argv[2], sys.argv[3] == "rules")))
        return
    which = sys.argv[1] if len(sys.argv) > 1 else ""
    print("seconds as wall / CPU")
    if which in ("", "--closed"):
        print("closed-form rules in a build (model + checks + report + writers; target: checks <= 10 % of it)")
        for name in CLOSED:
            r = _child("--child-closed", name)
            m, c, o, b = (r[k] for k in ("model_s", "checks_s", "report_and_writers_s", "build_s"))
            print(f"  {name:24} load {r['load']:4.1f}  groups {r['groups']:>3}  model {m[0]:6.3f}/{m[1]:6.3f}  "
                  f"checks {c[0]:6.3f}/{c[1]:6.3f}  report+writers {o[0]:6.2f}/{o[1]:6.2f}  "
                  f"build {b[0]:6.2f}/{b[1]:6.2f}  checks' share {r['share_cpu']:.1%} of the CPU")
    if which in ("", "--stream"):
        print("plan-stream rules (target: plan + rules <= 2 x the plan alone, no more peak memory)")
        for name in STREAM:
            alone, ruled = _child("--child-stream", name, "plan"), _child("--child-stream", name, "rules")
            for r in (alone, ruled):
                s = r["s"]
                print(f"  {name:30} {'plan + rules' if r['rules'] else 'plan alone':12} load {r['load']:4.1f}  "
                      f"rows {r['rows']:>10,}  {s[0]:7.2f}/{s[1]:7.2f} s  {r['rows_per_cpu_s']:>9,} rows/CPU s  "
                      f"peak {r['peak_mb']:>4} MB (model {r['model_mb']} MB)")
            ratio = ruled["s"][1] / alone["s"][1]
            print(f"  {'':30} plan + rules / plan alone: {ratio:.2f}x CPU, peak {ruled['peak_mb']} vs "
                  f"{alone['peak_mb']} MB; violations: {ruled['violations']}")
    if which in ("", "--cables"):
        print("bom cables with the plan rules fed the rows it writes")
        name = "100k GPUs, every fabric"
        plain, ruled = _child("--child-cables", name, "plain"), _child("--child-cables", name, "rules")
        for r in (plain, ruled):
            print(f"  {name:30} {'with rules' if r['rules'] else 'without':12} rows {r['rows']:>10,}  "
                  f"{r['s'][0]:7.2f}/{r['s'][1]:7.2f} s  peak {r['peak_mb']:>4} MB")
        print(f"  {'':30} with / without: {ruled['s'][1] / plain['s'][1]:.2f}x CPU")


if __name__ == "__main__":
    main()
