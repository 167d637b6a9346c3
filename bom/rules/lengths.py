"""Lengths and loss: every run's sold length covers it, its medium reaches it, its fibre loss fits
the modules' budget with a margin, the coherent line's span loss fits the coherent module or is
amplified (closed form, per floor-plan run and once for the DCI line), and every plan row is at
least as long as the route between the two racks the placement stands its ends in (the plan).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from bom.cableplan.rows import COL
from bom.catalog.media import END_CONNECTIONS, metres
from bom.catalog.rows import Fibre
from bom.model.checks import ERROR, End, Report, Rule, Violation
from bom.model.hops import HopKind
from bom.model.records import PlanRow
from bom.roles import Layer
from bom.rules.context import Context, end, where
from bom.rules.ports import plan_end
from bom.topology.geometry import route as geometry_route
from bom.units import magnitude

if TYPE_CHECKING:
    from bom.catalog.media import Choice
    from bom.model.floorplan import Run
    from bom.model.linkgroups import LinkGroup
    from bom.model.model import Model

#: Loss kept in reserve under a module's budget: a repair splice (0.3 dB, TIA-568 allows 0.3 per
#: fusion splice) and the connectors' wear over the cable's life.
LOSS_MARGIN_DB = 0.3
#: Lengths closer than this are equal (floating point of summed metres).
EPS_M = 1e-6
#: Mated pairs a coherent line adds at each end over plain fibre: the patch cord at the mux channel
#: and the mux's line port onto the dark fibre.
MUX_CONNECTIONS = 2


def db(x: float) -> str:
    """A loss for people: 29 dB, 1.78 dB, 0.3 dB (no trailing zeros).

    >>> db(29.0), db(1.7799999), db(0.3)
    ('29 dB', '1.78 dB', '0.3 dB')
    """
    return f"{x:.2f}".rstrip("0").rstrip(".") + " dB"


def _runs(ctx: Context) -> Iterator[tuple[LinkGroup, Run, Choice]]:
    for g in ctx.groups:
        for run, c in g.runs.items():
            yield g, run, c


def _run_violation(rule: str, ctx: Context, g: LinkGroup, run: Run, message: str, fix: str) -> Violation:
    lo, up = ctx.devices(g)
    # One violation per floor-plan run length of the group (the group's links are in ``where``).
    return Violation(rule, f"{where(g)}: the {metres(run.length_m)} runs", message, fix, end(g, True, lo),
                     end(g, False, up))


def sold(ctx: Context) -> Iterator[Violation]:
    for g, run, c in _runs(ctx):
        if c.length_m + EPS_M < run.length_m:
            yield _run_violation("lengths.sold", ctx, g, run,
                                 f"{c.part_number or g.choice.option.name} is sold {metres(c.length_m)} long for a "
                                 f"{metres(run.length_m)} run", "order the next sold length that covers the run")
    d = ctx.model.dci
    patch_m = ctx.model.floor.in_rack_m
    if d is not None and d.patch is not None and d.patch.length_m + EPS_M < patch_m:
        yield Violation("lengths.sold", f"dci {HopKind.SITE_SITE} patch cords",
                        f"{d.patch.part_number} is {metres(d.patch.length_m)} for a {metres(patch_m)} "
                        f"patch to the mux/demux", "order the next sold length that covers the patch")


def reach(ctx: Context) -> Iterator[Violation]:
    for g, run, c in _runs(ctx):
        o = c.option
        need = max(run.length_m, c.length_m)
        if need > o.reach_max_m + EPS_M or run.length_m + EPS_M < o.reach_min_m:
            yield _run_violation("lengths.reach", ctx, g, run,
                                 f"{o.name} ({o.medium}) reaches {metres(o.reach_min_m)} to {metres(o.reach_max_m)}; "
                                 f"the run is {metres(run.length_m)}, its cable {metres(c.length_m)}",
                                 "pick a medium that reaches the run (the ladder's next step) or shorten the route")
    d = ctx.model.dci
    if d is not None and d.distance_m > d.choice.option.reach_max_m + EPS_M:
        yield Violation("lengths.reach", f"dci {HopKind.SITE_SITE}",
                        f"{d.coherent.part_number} reaches {metres(d.choice.option.reach_max_m)}; the route is "
                        f"{metres(d.distance_m)}", "pick a coherent module of longer reach or add a regeneration site")


def fibre_loss(c: Choice) -> float:
    """A run's insertion loss: its fibre at the sold length and every mated pair on it (the modules'
    own two and two per patch panel it passes)."""
    o = c.option
    return o.attenuation_db_per_m * c.length_m + (END_CONNECTIONS + c.panels) * o.loss_per_pair_db


#: A run's receive-power window below its transmitter's launch power [dB]: the loss it is expected to
#: have, the most its modules' budget allows less the margin, and what the window was taken from.
Window = tuple[float, float, str]


def receive_window(c: Choice) -> Window | None:
    """The window the ``lengths.loss`` rule holds a fibre run to, as a receiver sees it: the run's
    expected loss (:func:`fibre_loss`) and the budget less :data:`LOSS_MARGIN_DB`. None for a run with
    no fibre of its own to lose light in (copper, an active cable's sealed fibre, the coherent line,
    whose window is :func:`line_window`)."""
    o = c.option
    if o.fibre is None or o.coherent is not None:
        return None
    return fibre_loss(c), o.loss_budget_db - LOSS_MARGIN_DB, "modules' loss budget less the margin"


def line_window(model: Model) -> Window | None:
    """The coherent line's window: one wavelength's unamplified loss (the model's ``LineLoss``) against
    the module's budget with the amplifier stages that stand (the ``lengths.coherent`` rule's)."""
    d = model.dci
    if d is None or d.loss is None or d.loss.budget_db is None:
        return None
    amplified = d.amplifiers and d.loss.amplified_budget_db is not None
    top = d.loss.amplified_budget_db if amplified else d.loss.budget_db
    assert top is not None
    return d.loss.total_db, top, ("coherent budget with its amplifier stages" if amplified
                                  else "coherent module's unamplified budget")


#: How a plan row names its run's parts: fabric, hop, a module, b module, cable part, sold length, panels.
RunKey = tuple[str, str, str, str, str, "float | str", int]


def run_windows(model: Model) -> dict[RunKey, Window]:
    """Every fibre run's window, keyed as the plan's rows name the run's parts (:data:`RunKey`), so a
    row finds the window of the link group it came from."""
    out: dict[RunKey, Window] = {}
    for g in model.groups:
        a = g.lower_end.part.part_number if g.lower_end.part is not None else ""
        b = g.upper_end.part.part_number if g.upper_end.part is not None else ""
        for c in g.runs.values():
            w = receive_window(c)
            if w is not None:
                out[(g.fabric, g.hop, a, b, c.part_number or "", c.length_m if c.part_number else "",
                     c.panels if g.panel is not None else 0)] = w
    return out


def loss(ctx: Context) -> Iterator[Violation]:
    for g, run, c in _runs(ctx):
        o = c.option
        if o.fibre is None or o.coherent is not None:
            continue
        lost = fibre_loss(c)
        if lost > o.loss_budget_db - LOSS_MARGIN_DB + 1e-9:
            yield _run_violation("lengths.loss", ctx, g, run,
                                 f"the run loses {db(lost)} ({metres(c.length_m)} of {o.fibre.fibre.upper()}, "
                                 f"{END_CONNECTIONS + c.panels} mated pairs, {c.panels} patch panels); the modules' "
                                 f"budget is {db(o.loss_budget_db)} less a {db(LOSS_MARGIN_DB)} margin",
                                 "use fewer patch panels, a shorter route or a module with a larger budget")


# --- the coherent line --------------------------------------------------------------------------

def os2_db_per_m(ctx: Context) -> float:
    """The catalog's single-mode fibre loss per metre (its best OS2 row: what a dark fibre is held to)."""
    rows = [f for f in ctx.catalog.by_kind["fibres"] if isinstance(f, Fibre) and f.fibre == "os2"]
    return min((magnitude(f.attenuation, "attenuation") for f in rows), default=0.4) / 1000


def coherent(ctx: Context) -> Iterator[Violation]:
    """A coherent line whose span loss (the model's :class:`~bom.topology.dci.LineLoss`: fibre,
    mux and demux, mated pairs) is over the module's unamplified budget has its amplifiers counted:
    an amplifier part and a count of them, the BOM's DWDM amplifier line (``dci_lines``); and a single
    span's loss fits the budget its amplifier stages give (the unamplified budget plus the gain of each
    stage ``sites.amplifiers`` stands, where the amplifier row gives them).

    ``Dci.amplified`` is true whenever the loss is over, so it cannot say whether amplifiers are
    counted; a catalog with no amplifier row leaves ``Dci.amplifier`` None and the BOM no line."""
    d = ctx.model.dci
    if d is None or d.loss is None:
        return
    c = d.coherent
    r = End(Layer.ROUTER, d.router.id, "line", c.part_number, "coherent line port")
    if d.amplifiers and not d.inline_sites and d.loss.over_amplified:
        # One span: its loss against the budget with the stages that stand at its ends (sites.amplifiers).
        stages = " and ".join({"booster": "a booster", "pre-amp": "a pre-amplifier"}[s] for s in d.end_stages)
        yield Violation("lengths.coherent", f"dci {HopKind.SITE_SITE} ({d.links:,} wavelengths, {d.pairs} routes)",
                        f"{d.loss.why_amplified(stages)}: over the budget with {stages} at each end",
                        "stand a booster and a pre-amplifier at each end (sites.amplifiers: both), or shorten the "
                        "route", r, r, d.links)
    if not d.loss.over or (d.amplifier is not None and d.amplifiers):
        return
    why = " (the catalog has no DWDM amplifier row)" if d.amplifier is None else ""
    yield Violation("lengths.coherent", f"dci {HopKind.SITE_SITE} ({d.links:,} wavelengths, {d.pairs} routes)",
                    f"{d.loss.why()}, and no amplifier is counted{why}",
                    "count a booster and a pre-amplifier per direction on each fibre pair (an amplified line"
                    + ("; a catalog overlay can add the DWDM amplifier row" if d.amplifier is None else "")
                    + "), or shorten the route", r, r, d.links)


# --- the plan: each row against the route between its racks -------------------------------------

_ARACK, _BRACK, _ASITE, _BSITE, _LEN = COL["a_rack"], COL["b_rack"], COL["a_site"], COL["b_site"], COL["length_m"]


class Route:
    """A row is not shorter than the tray route between the racks of its two ends: a row pitch per
    row between them, a rack width per rack along the row, the rise at both ends and the slack (the
    floor plan's rule, bom/topology/geometry.py); within one rack, the in-rack run.

    ``row`` is a closure: consecutive rows mostly join the same two racks (a node's ports to its
    network rack), so the last pair's route is kept and found by identity (the plan hands every
    row of a device the same rack string)."""

    def __init__(self, ctx: Context, report: Report) -> None:
        fp = ctx.model.floor
        in_rack = fp.in_rack_m
        places: dict[str, tuple[int, int]] = {}   # one site's racks (cleared when the plan moves on)
        last: list[Any] = [None, None, None, None]   # racks a and b, their route, the site

        def place(rack: str) -> tuple[int, int]:
            p = places.get(rack)
            if p is None:
                p = places[rack] = rack_place(rack)
            return p

        def route(a: str, b: str) -> float:
            return geometry_route(place(a), place(b), fp).length_m

        def row(r: PlanRow) -> None:
            a, b = r[_ARACK], r[_BRACK]
            if a is last[0] and b is last[1]:
                need = last[2]
            else:
                site = r[_ASITE]
                if site != last[3]:
                    places.clear()
                # No rack at an end (placement.unplaced) or a route between sites: not the floor's.
                if not a or not b or site != r[_BSITE]:
                    need = None
                elif a == b:
                    need = in_rack
                else:   # the floor plan's one rule for a run (geometry.route), between the rows' racks
                    need = geometry_route(places.get(a) or place(a), places.get(b) or place(b), fp).length_m
                last[:] = a, b, need, site
            if need is not None and r[_LEN] + EPS_M < need:
                report(lambda: route_violation(r, need, place))

        def done() -> None:
            places.clear()
            last[:] = None, None, None, None

        self.row, self.done, self.route = row, done, route


def rack_place(rack: str) -> tuple[int, int]:
    """(row, position) of a rack from its id (s1-r03-rk07: bom/names.py)."""
    _, row, pos = str(rack).rsplit("-", 2)
    return int(row[1:]), int(pos[2:])


def route_violation(r: PlanRow, need: float, place: Callable[[str], tuple[int, int]]) -> Violation:
    c = COL
    (ra, pa), (rb, pb) = place(r[_ARACK]), place(r[_BRACK])
    sold = r[c["sold_length_m"]]
    sold = f"sold {metres(sold)}" if isinstance(sold, (int, float)) else "no sold length"
    how = ("within one rack" if r[_ARACK] == r[_BRACK] else
           f"{abs(ra - rb)} rows apart and {abs(pa - pb)} racks along, with the rise at both ends and slack")
    return Violation("lengths.route", f"{r[c['cable_id']]} ({r[c['fabric']]} {r[c['hop']]})",
                     f"the run is {metres(r[_LEN])} ({r[c['bucket']]}, {sold}); the "
                     f"route from {r[_ARACK]} to {r[_BRACK]} is {metres(need)} ({how})",
                     "size the run on the route the placement gives (bom/topology/geometry.py) and buy the "
                     "sold length that covers it", plan_end(r, "a"), plan_end(r, "b"))


RULES = (
    Rule("lengths.sold", ERROR, "run lengths",
         "every run's sold cable or fibre length covers the run",
         closed=sold),
    Rule("lengths.reach", ERROR, "run lengths",
         "every run's medium reaches it (and is not below its shortest reach)",
         closed=reach),
    Rule("lengths.loss", ERROR, "run lengths",
         f"every fibre run's loss (fibre, connectors, patch panels) fits its modules' budget less "
         f"{LOSS_MARGIN_DB:g} dB",
         closed=loss),
    Rule("lengths.coherent", ERROR, "links",
         "the coherent line's span loss (fibre, mux/demux at both ends, connectors) fits the coherent module "
         "unamplified, or amplifiers are counted",
         closed=coherent),
    Rule("lengths.route", ERROR, "rows",
         "no plan row is shorter than the tray route between its two racks",
         stream=Route),
)
