"""``bom diff``'s terminal summary (format only: the figures come from :class:`bom.diff.result.Diff`)."""

from __future__ import annotations

from bom.diff.records import FigureJson
from bom.diff.result import Diff

#: Order lines shown in the terminal (the JSON, Markdown and workbook have them all).
ORDER_SHOWN = 20


def _num(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 100 or v == int(v) else f"{v:,.4g}"


def _signed(v: float) -> str:
    return ("+" if v > 0 else "") + _num(v)


def _figures(title: str, figs: list[FigureJson]) -> list[str]:
    if not figs:
        return []
    w = max(len(f["name"]) for f in figs)
    return [f"{title}:"] + [f"  {f['name']:<{w}}  {_num(f['old']):>16} -> {_num(f['new']):>16}  ({_signed(f['delta'])})"
                            for f in figs]


def summary(d: Diff) -> str:
    """What moves, section by section; one line when nothing does."""
    if d.same:
        return f"{d.old} and {d.new}: the same design (no part, figure, device, rule or cable differs)."
    out = [f"{d.old} -> {d.new}"]
    out += _figures("size", d.size)
    if d.order:
        buy = sum(o["delta_usd"] for o in d.order if o["delta_usd"] > 0)
        back = sum(o["delta_usd"] for o in d.order if o["delta_usd"] < 0)
        out.append(f"order: {len(d.order)} part number(s) move; buy {buy:,.0f} USD, return {-back:,.0f} USD")
        for o in sorted(d.order, key=lambda o: -abs(o["delta_usd"]))[:ORDER_SHOWN]:
            lead = f"{o['lead_time_days']:.0f} d" if o["lead_time_days"] is not None else "lead time unknown"
            out.append(f"  {o['action']:<7} {_signed(o['delta_quantity']):>8} x {o['sku']:<28} "
                       f"{_signed(o['delta_usd']):>16} USD  ({o['category']}, {lead})")
        if len(d.order) > ORDER_SHOWN:
            out.append(f"  ... {len(d.order) - ORDER_SHOWN} more in the JSON")
    if d.categories:
        out.append("money by category (the order, spares included):")
        out += [f"  {c['category']:<24} {_num(c['old_usd']):>16} -> {_num(c['new_usd']):>16}  "
                f"({_signed(c['delta_usd'])} USD)" for c in d.categories]
    out += _figures("TCO", d.tco)
    out += _figures("power and cooling", d.power)
    out += _figures("copper and optics", d.optics)
    if d.rules:
        out.append("design rules the new design breaks:")
        out += [f"  {r['id']} ({r['severity']}): {r['violations']:,} violation(s): {r['checks']}" for r in d.rules]
    dv = d.devices
    out.append(f"devices: {dv.added:,} added, {dv.removed:,} removed, {dv.moved:,} moved" if dv.compared
               else "devices: not compared (a side is an output JSON: give the scenarios to compare placements)")
    c = d.cables.to_json()
    out.append(f"cables: {c['added']:,} added, {c['removed']:,} removed, {c['moved']:,} re-patched, "
               f"{c['replaced']:,} replaced ({c['moved_links']:,} links of the old plan moved or taken out)"
               if c["compared"] else "cables: not compared (a side is an output JSON)")
    return "\n".join(out)
