"""Benchmark: load every catalog, then answer 100,000 standard lookups (rates and lengths mixed).

Run: python3 -m benchmarks.bench_lookup
"""

from __future__ import annotations

import contextlib
import random
import time


def main() -> None:
    t0 = time.perf_counter()
    from bom.catalog.load import load_catalog
    from bom.catalog.media import Media
    from bom.errors import LimitError

    t1 = time.perf_counter()
    catalog = load_catalog()
    media = Media(catalog)
    t2 = time.perf_counter()
    rng = random.Random(7)
    rates = [400.0, 800.0, 200.0, 100.0]
    # Lengths from in-rack (0.5 m) to metro (200 km), log-uniform; rounded to 0.1 m as a
    # floor plan's buckets would be, so repeats hit the cache as they do in a real build.
    queries = [(rng.choice(rates), round(10 ** rng.uniform(-0.3, 5.3), 1)) for _ in range(100_000)]
    fails = 0
    t3, c3 = time.perf_counter(), time.process_time()
    for rate, length in queries:
        try:
            media.lookup(rate, length)
        except LimitError:
            fails += 1
    t4, c4 = time.perf_counter(), time.process_time()
    media._tables.clear()
    unique = [(r, length + i * 1e-6) for i, (r, length) in enumerate(queries[:20_000])]
    t5 = time.perf_counter()
    for rate, length in unique:
        with contextlib.suppress(LimitError):
            media.lookup(rate, length)
    t6 = time.perf_counter()
    print(f"import {t1 - t0:.3f} s; load catalogs + build options {t2 - t1:.3f} s "
          f"({sum(len(v) for v in media.by_rate.values())} options)")
    print(f"100,000 mixed lookups: {t4 - t3:.3f} s, {c4 - c3:.3f} CPU s (goal, issue 46: 0.2) ({fails} past "
          f"every reach), {(t4 - t3) / 1e5 * 1e6:.1f} us each")
    print(f"20,000 lookups at distinct lengths: {t6 - t5:.3f} s, {(t6 - t5) / 2e4 * 1e6:.1f} us each")


if __name__ == "__main__":
    main()
