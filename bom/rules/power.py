"""The power plan's rules (bom/links/power.py: each rack layout's plan, once for all its racks).

Ratings are continuous: the PDU row's ``outlets.continuous`` share of each breaker's and input's rating
(NEC 210.20(A): a continuous load takes at most 80 % of its overcurrent device), at the outlet voltage
(a phase of a 415 V wye PDU: 240 V x 60 A x 0.8 = 11,520 W; a bank's 20 A breaker: 3,840 W); a cord at
its own rating (IEC 60320: C13 10 A, C19 16 A) at the outlet voltage.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from bom.catalog.rows import OUTLET_FOR, Dwdm, Endpoint, Platform, PowerCord, Supplies, Switch
from bom.model.checks import ERROR, WARNING, End, Rule, Violation
from bom.model.power import Cord, Load, PowerPlan, RackGroup, RackPower
from bom.roles import Feed, Layer
from bom.rules.context import Context
from bom.units import magnitude

PHASES = ("L1", "L2", "L3")


def _plan(ctx: Context) -> PowerPlan | None:
    return ctx.model.power


def _what(ld: Load) -> str:
    """A load's place in its rack: "PDU 3 (feed A) phase L2", "PDU 1 bank 4", "feed B"."""
    if ld.pdu < 0:
        return f"feed {ld.feed}"
    at = f"PDU {ld.pdu + 1} (feed {ld.feed})"
    if ld.bank >= 0:
        return f"{at} bank {ld.bank + 1} ({PHASES[ld.phase]})"
    return f"{at} phase {PHASES[ld.phase]}" if ld.phase >= 0 else at


def _over(loads: tuple[Load, ...], failover: bool) -> Iterator[tuple[Load, float]]:
    for ld in loads:
        w = ld.failover_w if failover else ld.normal_w
        if ld.rating_w and w > ld.rating_w + 1e-6:
            yield ld, w


def rating(ctx: Context) -> Iterator[Violation]:
    """With both feeds up, every phase, bank breaker and PDU carries at most its continuous rating, and
    every cord at most its own."""
    plan = _plan(ctx)
    if plan is None:
        return
    limits = _Limits(ctx)
    # Racks whose slots draw alike share one RackPower (bom/links/power.py: Plans): what is over is
    # found once a plan, the violations written for each group that has it (alike sites' racks).
    over: dict[int, tuple[list[tuple[Load, float]], list[tuple[Cord, float]]]] = {}
    for g in plan.groups:
        p = g.plan
        got = over.get(id(p))
        if got is None:
            got = over[id(p)] = ([x for loads in (p.phases, p.banks, p.pdus) for x in _over(loads, False)],
                                 list(_cords_over(p, limits)))
        for ld, w in got[0]:
            yield Violation("power.rating", g.where,
                            f"{_what(ld)} carries {w:,.0f} W, over its {ld.rating_w:,.0f} W continuous rating "
                            f"({plan.continuous:.0%} of the breaker)",
                            "stand more PDUs in the rack (a higher racks.power_budget), or fewer devices a rack",
                            End(f"{g.kind} rack", g.rack), None, g.racks)
        for c, limit in got[1]:
            yield Violation("power.rating", g.where,
                            f"{g.device(c.device)} supply {c.supply + 1} draws {c.load_w:,.0f} W on a {c.part} "
                            f"rated {limit:,.0f} W",
                            "give the device's row the supplies its data sheet lists (more supplies share its draw)",
                            End(g.slots[c.device][0], g.slots[c.device][1]), None, g.racks)


class _Limits:
    """A cord's limit in watts by its part and whether it is a whip (on every phase), each part's rating
    read once (a rack holds a few cord parts); the PDU's outlet voltage and phases read when first asked."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.known: dict[tuple[str, bool], float] = {}
        self.volts = self.phases = 0.0

    def of(self, c: Cord) -> float:
        got = self.known.get((c.part, c.phase < 0))
        if got is None:
            if not self.known:
                self._pdu()
            cord = self.ctx.catalog.get("power", c.part)
            assert isinstance(cord, PowerCord)
            got = self.known[c.part, c.phase < 0] = \
                magnitude(cord.rating, "current") * self.volts * (self.phases if c.phase < 0 else 1)
        return got

    def _pdu(self) -> None:
        sup = self.ctx.model.platform.support
        assert sup is not None
        pdu = self.ctx.catalog.get("endpoints", sup.pdu)
        assert isinstance(pdu, Endpoint) and pdu.outlets is not None
        self.volts, self.phases = pdu.outlets.volts("outlet_voltage"), pdu.outlets.phases


def _cords_over(p: RackPower, limits: _Limits) -> Iterator[tuple[Cord, float]]:
    """A cord over its own rating (IEC 60320's current at the outlet voltage; a whip on every phase)."""
    for c in p.cords:
        limit = limits.of(c)
        if c.load_w > limit + 1e-6:
            yield c, limit


def feed_loss(ctx: Context) -> Iterator[Violation]:
    """With either feed lost, the surviving feed's phases, PDUs and the feed itself carry the rack within
    their continuous ratings, and no N+N device (nor a rack-scale system's busbar) loses its power."""
    plan = _plan(ctx)
    if plan is None:
        return
    overs: dict[int, list[tuple[Load, float]]] = {}   # once a RackPower, as in rating
    for g in plan.groups:
        p = g.plan
        over = overs.get(id(p))
        if over is None:
            over = overs[id(p)] = [x for loads in (p.feeds, p.pdus, p.phases) for x in _over(loads, True)]
        if over:
            ld, w = over[0]
            yield Violation("power.feed_loss", g.where,
                            f"with feed {_other(ld.feed)} lost, {_what(ld)} carries {w:,.0f} W, over its "
                            f"{ld.rating_w:,.0f} W continuous rating ({len(over)} such loads in the rack)",
                            "draw less a rack (racks.power_budget, or the maker's power capping on a feed's loss, "
                            "which this model does not apply), or feed each supply from a circuit that carries it",
                            End(f"{g.kind} rack", g.rack), None, g.racks)
        down = sorted({s for _, s in p.down if _n_plus_n(ctx, g, s)})
        if down:
            yield Violation("power.feed_loss", g.where,
                            f"losing a feed drops {len(down)} device(s) whose supplies are redundant: "
                            f"{g.device(down[0])}" + (f" and {len(down) - 1} more" if len(down) > 1 else ""),
                            "split each device's supplies over both feeds (N on each)",
                            End(g.slots[down[0]][0], g.slots[down[0]][1]), None, g.racks)


def _other(feed: Feed) -> Feed:
    return Feed.B if feed == Feed.A else Feed.A


def _supplies(ctx: Context, g: RackGroup, slot: int) -> Supplies | None:
    """A device slot's supplies as its catalog row states them."""
    role, row_id = g.slots[slot]
    kind = ctx.catalog.kind_of(row_id)
    row = ctx.catalog.rows[kind][row_id] if kind else None
    if isinstance(row, Platform):
        return row.shelf_supplies if role == Layer.POWER_SHELF else row.supplies
    return row.supplies if isinstance(row, (Switch, Endpoint, Dwdm)) else None


def _n_plus_n(ctx: Context, g: RackGroup, slot: int) -> bool:
    """Whether a device slot has N+N corded supplies of its own (a tray on the busbar is the shelves')."""
    if any(role == Layer.POWER_SHELF for role, _ in g.slots):
        return False   # a rack of power shelves: its devices ride the busbar
    sp = _supplies(ctx, g, slot)
    return sp is not None and sp.n_plus_n and sp.inlet in OUTLET_FOR and sp.count > 1


def one_feed(ctx: Context) -> Iterator[Violation]:
    """No device with redundant supplies (M of N+M at least 1) has every cord on one feed."""
    plan = _plan(ctx)
    if plan is None:
        return
    alone: dict[int, list[tuple[int, int, object]]] = {}   # once a RackPower, as in rating
    for g in plan.groups:
        got = alone.get(id(g.plan))
        if got is None:
            got = alone[id(g.plan)] = _one_fed(g.plan)
        for s, n, feed in got:
            sp = _supplies(ctx, g, s)
            if sp is not None and sp.spare:
                yield Violation("power.one_feed", g.where,
                                f"{g.device(s)} has its {n} redundant supplies all on feed "
                                f"{feed}: losing it drops the device",
                                "split its supplies over the rack's A and B PDUs (N on each for N+N)",
                                End(g.slots[s][0], g.slots[s][1]), None, g.racks)


def _one_fed(p: RackPower) -> list[tuple[int, int, object]]:
    """The device slots with two cords or more, all on one feed: (slot, cords, the feed), by slot."""
    cords = Counter(c.device for c in p.cords)   # each slot's supplies (RackPower.supplies_of), at once
    return [(s, cords[s], next(iter(feeds))) for s, feeds in sorted(p.feeds_of().items())
            if len(feeds) == 1 and cords[s] >= 2]


def outlets(ctx: Context) -> Iterator[Violation]:
    """Every supply of every device has an outlet of its type on its feed's PDUs."""
    plan = _plan(ctx)
    if plan is None:
        return
    for g in plan.groups:
        short = g.plan.short
        if short:
            s, k = short[0]
            yield Violation("power.outlets", g.where,
                            f"{len(short)} supplies have no outlet of their type left on their feed's PDUs, the "
                            f"first {g.device(s)} supply {k + 1}",
                            "stand more PDUs in the rack (or a PDU row with more outlets of that type)",
                            End(g.slots[s][0], g.slots[s][1]), None, g.racks * len(short))


def distribution(ctx: Context) -> Iterator[Violation]:
    """Each row's A and B distribution, and each site's UPS, within the scenario's ratings (feeds.*), both
    sides up and with the other lost."""
    plan = _plan(ctx)
    feeds = ctx.model.scenario.feeds
    if plan is None:
        return
    for run in plan.row_sides:   # a run of alike sites' sides checked once, each site's named
        if not run.rating_w:
            continue
        over = [(row, racks, feed, max(normal, failover)) for row, racks, feed, normal, failover in run.sides
                if max(normal, failover) > run.rating_w + 1e-6]
        for site in range(run.first, run.first + run.sites):
            for row, racks, feed, worst in over:
                yield Violation("power.distribution", f"site {site} row {row} side {feed}",
                                f"the row's {feed} side carries {worst / 1000:,.1f} kW (with the other side lost), "
                                f"over its {run.rating_w / 1000:,.1f} kW (feeds.row_capacity)",
                                "raise feeds.row_capacity to the distribution built, or stand fewer racks a row",
                                None, None, racks)
    if feeds.ups_capacity is not None:
        cap = magnitude(feeds.ups_capacity, "power")
        for name, (rows, normal, failover, _) in plan.ups().items():
            if max(normal, failover) > cap + 1e-6:
                yield Violation("power.distribution", name,
                                f"{name} carries {max(normal, failover) / 1000:,.1f} kW of {rows} row(s) (with the "
                                f"other UPS lost), over its {cap / 1000:,.1f} kW (feeds.ups_capacity)",
                                "raise feeds.ups_capacity, or split the site over more UPS pairs", None, None, rows)


def unknown(ctx: Context) -> Iterator[Violation]:
    """Every device that draws power says how it takes it (its catalog row's supplies)."""
    plan = _plan(ctx)
    if plan is None:
        return
    for g in plan.groups:
        for s in g.plan.unknown:
            sp = _supplies(ctx, g, s)
            why = ("takes a busbar no power shelf of its rack feeds" if sp is not None
                   else "its catalog row states no supplies")
            yield Violation("power.unknown", g.where,
                            f"{g.device(s)} draws power and {why}: it is not on the power plan",
                            "give the row supplies (catalogs/SCHEMA.md, Power), or its rack the power shelves that "
                            "feed its busbar (support.front_view)",
                            End(g.slots[s][0], g.slots[s][1]), None, g.racks)


RULES = (
    Rule("power.rating", ERROR, "racks",
         "every phase, bank breaker, PDU and power cord carries at most its continuous rating, both feeds up",
         closed=rating),
    Rule("power.feed_loss", WARNING, "racks",
         "either feed lost, the other carries the rack within its ratings and no N+N device goes down",
         closed=feed_loss),
    Rule("power.one_feed", ERROR, "racks",
         "no device with redundant supplies has them all on one feed", closed=one_feed),
    Rule("power.outlets", ERROR, "supplies",
         "every device supply has an outlet of its type on its feed's PDUs", closed=outlets),
    Rule("power.distribution", ERROR, "rows",
         "each row's A and B distribution and each site UPS within feeds.row_capacity and feeds.ups_capacity",
         closed=distribution),
    Rule("power.unknown", WARNING, "racks",
         "every device that draws power states its supplies, and a busbar has its rack's power shelves (else the "
         "device is left off the power plan)", closed=unknown),
)
