"""Running the rules over one model: the closed form (every build) and, for ``bom check``, the
cable plan streamed once with every plan rule looking at each row; :class:`PlanRules` lets a
command that streams the plan anyway (``bom cables``) hand the rows over as it writes them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from bom.cableplan.rows import COL, rows
from bom.model.checks import KEEP, MODEL, PLAN, Checks, RuleResult
from bom.model.records import PlanRow
from bom.roles import Tier
from bom.rules.context import Context
from bom.rules.registry import RULES

if TYPE_CHECKING:
    from bom.catalog.rows import Catalog
    from bom.model.checks import RowCheck, Rule
    from bom.model.model import Model


def check(model: Model, catalog: Catalog, plan: bool = False, keep: int = KEEP,
          rules: Iterable[Rule] = RULES) -> Checks:
    """The rules' checks: the closed-form part of each rule, and with ``plan`` every plan rule over
    the streamed cable plan (rules that read only the plan are not run without it)."""
    ctx = Context(model, catalog)
    results: list[RuleResult] = []
    streams: list[RowCheck] = []
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
        feed(streams, rows(ctx.model, catalog=ctx.catalog))
        for s in streams:
            s.done()
    return Checks(results, plan)


def feed(streams: Sequence[RowCheck], plan_rows: Iterable[PlanRow]) -> None:
    """Every row to every plan rule (nothing is kept but what the rules keep)."""
    calls = [s.row for s in streams]
    if len(calls) == 6:   # the registry's six plan rules: unrolled, the calls are most of the time
        a, b, c, d, e, f = calls
        for r in plan_rows:
            a(r)
            b(r)
            c(r)
            d(r)
            e(r)
            f(r)
    else:
        for r in plan_rows:
            for call in calls:
                call(r)


class PlanRules:
    """The plan rules alone, fed the rows a chunk at a time by whoever streams the plan; the
    scale-up rows (``bom cables --scale-up``: NVLink inside a rack, no part to order) are not theirs."""

    def __init__(self, model: Model, catalog: Catalog, keep: int = KEEP, rules: Iterable[Rule] = RULES) -> None:
        ctx = Context(model, catalog)
        self.results = [RuleResult(r, (PLAN,), keep=keep) for r in rules if r.stream is not None]
        self.streams = [stream(ctx, res.add) for res in self.results if (stream := res.rule.stream) is not None]
        self.tier = COL["tier"]

    def rows(self, chunk: Iterable[PlanRow]) -> None:
        t = self.tier
        feed(self.streams, (r for r in chunk if r[t] != Tier.SCALE_UP))

    def finish(self) -> Checks:
        for s in self.streams:
            s.done()
        return Checks(self.results, plan=True)
