"""Running the rules over one model: the closed form (every build) and, for ``bom check``, the
cable plan streamed once with every plan rule looking at each row."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from bom.rules.context import Context
from bom.rules.core import KEEP, MODEL, PLAN, Checks, RuleResult
from bom.rules.registry import RULES

if TYPE_CHECKING:
    from bom.catalog.rows import Catalog
    from bom.model.model import Model
    from bom.rules.core import Rule


def check(model: Model, catalog: Catalog, plan: bool = False, keep: int = KEEP,
          rules: Iterable[Rule] = RULES) -> Checks:
    """The rules' checks: the closed-form part of each rule, and with ``plan`` every plan rule over
    the streamed cable plan (rules that read only the plan are not run without it)."""
    ctx = Context(model, catalog)
    results: list[RuleResult] = []
    streams = []
    for rule in rules:
        read = tuple(k for k, f in ((MODEL, rule.closed), (PLAN, rule.stream if plan else None)) if f is not None)
        if not read:
            continue
        res = RuleResult(rule, read, keep=keep)
        results.append(res)
        if rule.closed is not None:
            for v in rule.closed(ctx):
                res.add(v)
        if plan and rule.stream is not None:
            streams.append(rule.stream(ctx, res.add))
    if streams:
        _stream(ctx, streams)
    return Checks(results, plan)


def _stream(ctx: Context, checks: list) -> None:  # type: ignore[type-arg]
    """One pass over the plan, each row handed to every plan rule (nothing is kept but what the
    rules keep)."""
    from bom.cableplan.rows import rows

    calls = [c.row for c in checks]
    if len(calls) == 4:   # the usual set: unrolled, a call per rule per row is most of the time
        a, b, c, d = calls
        for r in rows(ctx.model, catalog=ctx.catalog):
            a(r)
            b(r)
            c(r)
            d(r)
    else:
        for r in rows(ctx.model, catalog=ctx.catalog):
            for call in calls:
                call(r)
    for c in checks:
        c.done()
