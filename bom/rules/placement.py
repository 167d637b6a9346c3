"""Placement: every device the model buys stands in a rack at a U (closed form: the model's counts
against the placement's; the plan: every device a row names), and every rack holds its devices
within its U and power budget without two devices on one U.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator

from bom import names
from bom.cableplan.rows import COL
from bom.model.checks import ERROR, WARNING, End, Report, Rule, Violation
from bom.model.placement import Layout
from bom.model.records import PlanRow
from bom.roles import SWITCH_LAYERS, Layer, RackKind
from bom.rules.context import Context
from bom.rules.ports import plan_end
from bom.units import magnitude


def bought(ctx: Context) -> Iterator[tuple[str, int, str]]:
    """(role, how many the model buys, its part) of every kind of device the placement must hold."""
    m = ctx.model
    yield Layer.NODE, m.cluster.nodes, m.platform.id
    for f in m.fabrics.values():
        for layer in SWITCH_LAYERS:
            n = f.switches(layer)
            if n:
                part = f.switch_id if layer == Layer.LEAF else f.spine_switch_id or ""
                yield names.switch_role(f.name, layer), n, part
    e = m.endpoints
    if e is not None:
        sites = m.cluster.site_count
        for role, row, n in ((Layer.UFM, e.ufm, e.ufm_count), (Layer.MGMT, e.mgmt, e.mgmt_count),
                             (Layer.STORAGE, e.storage, e.storage_count)):
            if row is not None and n:
                yield role, n * sites, row.id
    d = m.dci
    if d is not None:
        yield Layer.ROUTER, d.routers, d.router.id
        if d.mux is not None:
            yield Layer.MUX, d.muxes, d.mux.id
        # The terminal ones (in-line amplifiers stand in huts on the routes; a pluggable one in a router).
        if d.amplifier is not None and not d.pluggable:
            n = sum(d.site_amplifiers(s) for s in range(1, d.sites + 1))
            if n:
                yield Layer.AMPLIFIER, n, d.amplifier.id


def devices(ctx: Context) -> Iterator[Violation]:
    p = ctx.model.placement
    if p is None:
        return
    for role, n, part in bought(ctx):
        placed = p.devices(role)
        if placed < n:
            yield Violation("placement.devices", f"{n - placed:,} of {n:,} {role} ({part})",
                            f"the BOM buys {n:,} {role} devices and the placement stands {placed:,} of them in "
                            f"a rack at a U", "place them (bom/placement/layout.py): a network rack at a U, "
                            "with their power", End(role, part), None, n - placed)


def racks(ctx: Context) -> Iterator[Violation]:
    """Per distinct rack layout (the racks of a block are mostly one layout repeated): U and power
    within budget, no U taken twice."""
    p = ctx.model.placement
    if p is None:
        return
    # Judged per layout object (a layout's hash walks its slots as the judging does); the wrong ones
    # merged by value, in the order a walk of every rack meets them.
    copies: Counter[Layout] = Counter()
    for lay, n in p.layout_racks():
        if _layout_wrong(lay):
            copies[lay] += n
    for lay, n in copies.items():
        wrong = _layout_wrong(lay)
        if wrong:
            r = lay.rack
            yield Violation("placement.racks", f"{lay.kind} rack ({r.catalog_id}) x {n:,}", "; ".join(wrong),
                            "move devices to another rack, or raise racks.rack_units / racks.power_budget",
                            End(lay.kind + " rack", r.catalog_id), None, n)


def cooling(ctx: Context) -> Iterator[Violation]:
    """A platform that needs liquid cooling stands only in halls the layout says have it."""
    m = ctx.model
    need, halls = m.platform.cooling, m.scenario.layout.cooling
    if need != "liquid" or halls is None:
        return
    by_site = m.cluster.nodes_by_site
    per_site = halls if isinstance(halls, list) else [halls] * len(by_site)
    for k, (nodes, hall) in enumerate(zip(by_site, per_site, strict=True), 1):
        if hall == "air":
            racks = math.ceil(nodes / m.floor.nodes_per_rack)
            yield Violation("placement.cooling", f"site {k}: {racks:,} compute racks",
                            f"{m.platform.id} needs liquid cooling (a coolant loop to the rack), the hall is "
                            "air-only (layout.cooling)",
                            "build in a hall with facility water (layout.cooling: liquid for this site), or pick "
                            "an air-cooled platform", End("compute rack", m.platform.id), None, racks)


def rack_power(ctx: Context) -> Iterator[Violation]:
    """Every rack draws at most what the hall feeds a rack (layout.rack_power_limit)."""
    limit = ctx.model.scenario.layout.rack_power_limit
    p = ctx.model.placement
    if limit is None or p is None:
        return

    feed = magnitude(limit, "power")
    copies: Counter[Layout] = Counter()   # as in racks(): the racks over the feed merged by value
    for lay, n in p.layout_racks():
        if lay.power_w > feed + 1e-6:
            copies[lay] += n
    for lay, n in copies.items():
        if lay.power_w > feed + 1e-6:
            pid = ctx.model.platform.id
            whole = f"; a {pid} system fills its rack and cannot be spread" \
                if lay.kind == RackKind.COMPUTE and ctx.model.platform.nodes_per_system > 1 else ""
            yield Violation("placement.rack_power", f"{lay.kind} rack ({lay.rack.catalog_id}) x {n:,}",
                            f"the rack draws {lay.power_w / 1000:,.1f} kW, the hall feeds {feed / 1000:,.1f} kW a rack "
                            f"(layout.rack_power_limit){whole}",
                            "build in a hall that feeds the rack (raise layout.rack_power_limit), or pick a platform "
                            "whose racks draw less", End(lay.kind + " rack", lay.rack.catalog_id), None, n)


def _layout_wrong(lay: Layout) -> list[str]:
    r = lay.rack
    out = []
    top = max((u + item.height - 1 for item, u in lay.slots if item.height), default=0)
    if top > r.u_budget or lay.used_u > r.u_budget:
        out.append(f"its devices take {max(top, lay.used_u)}U of {r.u_budget}U")
    if r.power_budget_w and lay.power_w > r.power_budget_w + 1e-6:
        out.append(f"they draw {lay.power_w:,.0f} W of a {r.power_budget_w:,.0f} W budget")
    # A and B feeds: either alone carries the rack when the other fails.
    feed_w = r.pdus // 2 * r.pdu_capacity_w
    if r.pdu_capacity_w and lay.power_w > feed_w + 1e-6:
        out.append(f"one feed's {r.pdus // 2} PDU(s) carry {feed_w:,.0f} W, the rack draws {lay.power_w:,.0f} W "
                   "(each of the A and B feeds must carry it alone)")
    taken: dict[int, str] = {}
    for item, u in lay.slots:
        for k in range(u, u + item.height):
            if k in taken:
                out.append(f"U{k} holds a {taken[k]} and a {item.role}")
                break
            taken[k] = item.role
    return out


# --- the plan: every device a row names has a rack and a U ---------------------------------------

_SIDES = (("a", COL["a_rack"], COL["a_u"], COL["a_device"]), ("b", COL["b_rack"], COL["b_u"], COL["b_device"]))
#: Unplaced devices remembered (to report each once); past it the set starts again, so a plan whose
#: every device is unplaced still runs in bounded memory (and reports some devices twice).
REMEMBER = 100_000
#: What to change for an end that stands for a network the model does not build.
EXTERNAL: dict[str, str] = {
    Layer.INBAND: "build the in-band fabric (fabrics.inband) so the management switches' uplinks land on its leaves, "
                  "or place the site network's switch they go to"}


class Unplaced:
    """A device the plan names with no rack or no U, reported once."""

    def __init__(self, ctx: Context, report: Report) -> None:
        seen: set[object] = set()
        ar, au, br, bu = COL["a_rack"], COL["a_u"], COL["b_rack"], COL["b_u"]

        def row(r: PlanRow) -> None:
            if r[ar] and r[au] != "" and r[br] and r[bu] != "":
                return
            for side, rack_i, u_i, dev_i in _SIDES:
                dev = r[dev_i]
                if (r[rack_i] and r[u_i] != "") or dev in seen:
                    continue
                if len(seen) >= REMEMBER:
                    seen.clear()
                seen.add(dev)
                report(_unplaced(r, side, dev))

        self.row, self.done = row, seen.clear


def _unplaced(r: PlanRow, side: str, dev: str) -> Violation:
    role = str(r[COL[side + "_role"]])
    return Violation("placement.unplaced", str(dev),
                     f"{dev} ({role}) is cabled by {r[COL['cable_id']]} and has no rack and no U",
                     EXTERNAL.get(role, "place it (bom/placement/layout.py): a network rack at a U, with its power"),
                     plan_end(r, "a"), plan_end(r, "b"))


RULES = (
    Rule("placement.devices", ERROR, "devices",
         "every device the BOM buys stands in a rack at a U (the model's counts against the placement's)",
         closed=devices),
    Rule("placement.unplaced", WARNING, "devices",
         "every device the cable plan names has a rack and a U",
         stream=Unplaced),
    Rule("placement.cooling", ERROR, "racks",
         "a platform that needs liquid cooling stands only in halls the layout says have it",
         closed=cooling),
    Rule("placement.rack_power", ERROR, "racks",
         "every rack draws at most what the hall feeds a rack (layout.rack_power_limit)",
         closed=rack_power),
    Rule("placement.racks", ERROR, "racks",
         "every rack holds its devices within its U and power budget, one device per U, and either "
         "power feed's PDUs carry it alone",
         closed=racks),
)
