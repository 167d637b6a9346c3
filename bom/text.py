"""Plain-text tables for the terminal (no rich: the commands must start fast)."""

from __future__ import annotations

from collections.abc import Sequence

from bom.sizing import Sizing


def table(headers: Sequence[str], rows: Sequence[Sequence[object]],
          right: Sequence[bool] | None = None) -> str:
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    right = right or [False] * len(headers)
    out = []
    for n, r in enumerate(cells):
        line = "  ".join(c.rjust(w) if right[i] else c.ljust(w)
                         for i, (c, w) in enumerate(zip(r, widths, strict=True)))
        out.append(line.rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def _kw(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}"


def sizing_table(results: Sequence[Sizing]) -> str:
    headers = ["job", "GPUs (mem)", "(time)", "needs", "smallest level", "decided by",
               "IT kW", "facility kW", "fits one domain"]
    rows = [[r.job, r.gpus_by_memory, r.gpus_by_time, f"{r.gpus:,}", r.level_label, r.decided_by,
             _kw(r.it_power_kw), _kw(r.facility_power_kw),
             f"{'yes' if r.fits_in_domain else 'no'} ({r.domain_gpus})"] for r in results]
    return table(headers, rows, [False, True, True, True, False, False, True, True, False])


def levels_go_table(results: Sequence[Sizing]) -> str:
    """The table exactly as the seed's levels.go prints it (for the reference test)."""
    lines = ["job                                  needs GPUs (mem)  (time)   smallest level"]
    lines += [f"{r.job:<36} {r.gpus_by_memory:>10} {r.gpus_by_time:>9}   {r.level_label}"
              for r in results]
    return "\n".join(lines)
