"""Benchmark: each hop pattern's closed-form walk inside one model build (first call), and how many items
(pairs, meshes, sections) its ``pairs`` yields: what still walks per device at a size.
Run: python3 -m benchmarks.bench_hops [--size "1M GPUs, 10 buildings"] [--file S.yaml]
"""

from __future__ import annotations

import argparse
import collections
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.bench_process import FABRICS
from benchmarks.cases import BASE, SIZES


def walks(text: str) -> tuple[float, dict[str, list[float]]]:
    """(the model's CPU seconds, {pattern/fabric: [CPU seconds, items, calls]}) of one first build."""
    import bom.links.pattern as pattern
    from bom.catalog.load import load_catalog
    from bom.inputs.scenario import scenario_from_text
    from bom.inputs.yamlio import load_text
    from bom.pipeline.model import build_model

    stats: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0, 0])
    original = pattern.Pattern.ends

    def ends(self: Any, ctx: Any) -> Any:
        t0, n, pairs = time.process_time(), [0], self.pairs

        def counted(one: Any) -> Iterator[Any]:
            for item in pairs(one):
                n[0] += 1
                yield item
        self.pairs = counted
        try:
            return original(self, ctx)
        finally:
            del self.pairs
            s = stats[f"{type(self).__name__}/{ctx.view.name}"]
            s[0] += time.process_time() - t0
            s[1] += n[0]
            s[2] += 1

    pattern.Pattern.ends = ends   # type: ignore[method-assign]
    try:
        sc, src, cat = scenario_from_text(text), load_text(text, "bench.yaml"), load_catalog()
        t0 = time.process_time()
        build_model(sc, src, cat, None)
        return time.process_time() - t0, stats
    finally:
        pattern.Pattern.ends = original   # type: ignore[method-assign]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", choices=sorted(SIZES), default="1M GPUs, 10 buildings")
    ap.add_argument("--file", type=Path)
    args = ap.parse_args()
    text = args.file.read_text() if args.file else BASE + FABRICS + SIZES[args.size]
    total, stats = walks(text)
    print(f"model {total * 1000:.1f} ms (first call)")
    for name, (secs, items, calls) in sorted(stats.items(), key=lambda kv: -kv[1][0]):
        print(f"{secs * 1000:7.1f} ms  items {int(items):6}  calls {int(calls)}  {name}")


if __name__ == "__main__":
    main()
