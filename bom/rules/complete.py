"""Completeness: every link group has its cable part and, when it is optical, a module at both ends
(a copper or AOC assembly has neither), the coherent line has its modules and patch cords, every
plan row names the part it is cut from, and a storage fabric has storage on it.
"""

from __future__ import annotations

from collections.abc import Iterator

from bom import names
from bom.cableplan.rows import COL
from bom.model.checks import ERROR, End, Report, Rule, Violation
from bom.model.hops import HopKind
from bom.model.linkgroups import LinkGroup
from bom.model.records import PlanRow
from bom.roles import FabricRole, Layer
from bom.rules.context import Context, end, where
from bom.rules.ports import plan_end


def _missing(g: LinkGroup) -> list[str]:
    """What a link group lacks (or holds wrongly) of its parts."""
    o = g.choice.option
    out = []
    if o.assembly is not None:
        if any(e.part is not None for e in (g.lower_end, g.upper_end)):
            out.append("a copper or AOC assembly with a module in a cage (the assembly's heads are its ends)")
    else:
        for side, e in (("lower", g.lower_end), ("upper", g.upper_end)):
            if e.part is None and e.engine is None:
                out.append(f"no module at the {side} end")
    if any(not c.part_number for c in g.runs.values()):
        out.append(f"no {'assembly' if o.assembly is not None else 'fibre'} part at some run's length")
    return out


def parts(ctx: Context) -> Iterator[Violation]:
    for g in ctx.groups:
        wrong = _missing(g)
        if wrong:
            lo, up = ctx.devices(g)
            yield Violation("complete.parts", where(g), "; ".join(wrong),
                            "add the part to the catalog (an overlay) so the lookup can pick it",
                            end(g, True, lo), end(g, False, up), g.links)
    d = ctx.model.dci
    if d is None:
        return
    r = End(Layer.ROUTER, d.router.id, "line", d.coherent.part_number, "coherent line port")
    if d.mux is not None and d.patch is None:
        yield Violation("complete.parts", f"dci {HopKind.SITE_SITE} ({d.links:,} wavelengths)",
                        "no patch cord from the line ports to their mux/demux channels",
                        "add an OS2 LC duplex patch-cord row to the fibre catalog", r,
                        End(Layer.MUX, d.mux.id, "channel"), d.patch_cords)


def storage(ctx: Context) -> Iterator[Violation]:
    f = ctx.model.fabrics.get(FabricRole.STORAGE)
    e = ctx.model.endpoints
    if f is None or (e is not None and e.storage is not None and e.storage_count):
        return
    links = sum(g.links for g in f.groups)
    yield Violation("complete.storage", f"storage fabric ({f.switches(Layer.LEAF):,} leaves, {links:,} links)",
                    "a storage fabric with no storage appliance on it" + (f" ({e.why})" if e is not None else ""),
                    "add a storage: block (appliance with count, or capacity and throughput), or drop "
                    "fabrics.storage", End(names.switch_role(FabricRole.STORAGE, Layer.LEAF), f.switch_id), None, links)


# --- the plan: every row names its part --------------------------------------------------------

_PART = COL["cable_part"]


class Rows:
    """A plan row with no cable part is a cable nobody orders."""

    def __init__(self, ctx: Context, report: Report) -> None:
        def row(r: PlanRow) -> None:
            if not r[_PART]:
                report(lambda: _no_part(r))

        self.row, self.done = row, lambda: None


def _no_part(r: PlanRow) -> Violation:
    c = COL
    return Violation("complete.rows", f"{r[c['cable_id']]} ({r[c['fabric']]} {r[c['hop']]})",
                     f"the row's {r[c['cable_type']] or r[c['medium']]} has no part to order",
                     "add the part to the catalog so the BOM buys it", plan_end(r, "a"), plan_end(r, "b"))


RULES = (
    Rule("complete.parts", ERROR, "links",
         "every link has its cable part and, when optical, both modules (a copper assembly neither); the "
         "coherent line its patch cords",
         closed=parts),
    Rule("complete.storage", ERROR, "links",
         "a storage fabric has storage appliances on it",
         closed=storage),
    Rule("complete.rows", ERROR, "rows",
         "every cable plan row names the part it is ordered as",
         stream=Rows),
)
