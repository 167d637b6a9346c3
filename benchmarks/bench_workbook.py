"""Benchmark: the BOM workbook (``write_xlsx``) at 1k and at the million-GPU ten-building campus, in process.

Per sheet: its cells, its styled cells, the CPU seconds of the function that makes it and of openpyxl's
save of it; then ``write_xlsx`` whole, the least of N (each run from a cold wrapped-line cache, as a build
runs it once). The scenarios are the build curve's (every fabric, as ``/tmp/cg``'s 1k and 1M builds).
Run: python3 -m benchmarks.bench_workbook [--runs 7] [--table]

In instructions (the deterministic count; CPU time on a shared machine is noisy): ``--writes N --only 1k|1M``
builds that scenario's report and writes the workbook N times, nothing printed; under valgrind a workbook is
half the difference between N=3 and N=1:
PYTHONHASHSEED=0 valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
    python3 -m benchmarks.bench_workbook --writes 3 --only 1M
"""

from __future__ import annotations

import argparse
import gc
import time
from typing import Any

from benchmarks.cases import SIZES, scenario

FABRICS = "fabrics: {compute: {switch: q3400}, storage: {}, inband: {}, oob: {uplinks: spine}}\n"
SHEETS = ("_inputs", "_bom", "_order", "_order_print", "_links", "_power", "_tiers", "_tco", "_schedule",
          "_phases", "_range", "_sensitivity", "_checks", "_summary")


def _report(label: str) -> Any:
    from bom.catalog.load import load_catalog
    from bom.pipeline import build_scenario, report_of

    catalog = load_catalog()
    sc, src = scenario(SIZES[label], FABRICS)
    return report_of(build_scenario(sc, src, catalog), catalog)   # type: ignore[arg-type]


def _timed_sheets(r: Any) -> tuple[Any, dict[str, float], dict[str, float]]:
    """The workbook made and saved with each sheet function's and each sheet's save's CPU seconds."""
    import openpyxl.worksheet._writer as sheet_writer

    from bom.outputs.writers import xlsx

    made: dict[str, float] = {}
    saved: dict[str, float] = {}
    own = {name: getattr(xlsx, name) for name in SHEETS}
    own_write = sheet_writer.WorksheetWriter.write

    def timed(name: str) -> Any:
        def run(wb: Any, *args: Any) -> Any:
            before = {ws.title for ws in wb.worksheets}
            t0 = time.process_time()
            out = own[name](wb, *args)
            new = [ws.title for ws in wb.worksheets if ws.title not in before] or ["Summary"]
            made[new[0]] = time.process_time() - t0
            return out
        return run

    def write(self: Any) -> None:
        t0 = time.process_time()
        own_write(self)
        saved[self.ws.title] = time.process_time() - t0

    for name in SHEETS:
        setattr(xlsx, name, timed(name))
    sheet_writer.WorksheetWriter.write = write
    gc.disable()   # as write_xlsx runs
    try:
        wb = xlsx.workbook(r)
        xlsx.to_bytes(wb, r.name, r.document_date)
    finally:
        gc.enable()
        for name in SHEETS:
            setattr(xlsx, name, own[name])
        sheet_writer.WorksheetWriter.write = own_write
    return wb, made, saved


def table(label: str, r: Any) -> None:
    _timed_sheets(r)   # warm: imports, first-call caches
    wb, made, saved = _timed_sheets(r)
    print(f"{label}: {'sheet':16} {'cells':>7} {'styled':>7} {'make s':>7} {'save s':>7}")
    for ws in wb.worksheets:
        # a record (put_cell's value, type, style) or an openpyxl Cell
        styled = sum(1 for c in ws._cells.values()
                     if (c[2] is not None and any(c[2]) if type(c) is tuple else c.has_style))
        print(f"{'':{len(label) + 2}}{ws.title:16} {len(ws._cells):7,} {styled:7,} {made.get(ws.title, 0):7.3f} "
              f"{saved.get(ws.title, 0):7.3f}")


def least(r: Any, runs: int) -> float:
    from bom.outputs.writers import xlsx

    best = float("inf")
    cache = getattr(xlsx, "_wrapped_lines", None)   # none before this branch: runs against main too
    for _ in range(runs):
        if cache is not None:
            cache.cache_clear()
        t0 = time.process_time()
        xlsx.write_xlsx(r)
        best = min(best, time.process_time() - t0)
    return best


def writes(labels: list[str], n: int) -> None:
    """Each scenario's workbook written ``n`` times (each from a cold wrapped-line cache), for a count of
    instructions: a workbook is the difference between two counts over the difference of their ``n``."""
    from bom.outputs.writers import xlsx

    for label in labels:
        r = _report(label)
        for _ in range(n):
            cache = getattr(xlsx, "_wrapped_lines", None)
            if cache is not None:
                cache.cache_clear()
            xlsx.write_xlsx(r)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--table", action="store_true", help="the per-sheet table too")
    ap.add_argument("--writes", type=int, default=0, help="write the workbook N times, print nothing")
    ap.add_argument("--only", choices=("1k", "1M"), help="one scenario")
    args = ap.parse_args()
    labels = [label for label in ("1k GPUs", "1M GPUs, 10 buildings") if args.only is None
              or label.startswith(args.only)]
    if args.writes:
        writes(labels, args.writes)
        return
    for label in labels:
        r = _report(label)
        if args.table:
            table(label, r)
        print(f"{label}: write_xlsx least of {args.runs} {least(r, args.runs):.3f} CPU s")


if __name__ == "__main__":
    main()
