"""What changes between two builds' JSON documents (``bom build``'s ``<name>.json``): size, the order per
part number (buy or return, priced, with lead times), money per BOM category, the TCO's parts, power
and cooling, copper share and modules per GPU, and the design rules the new design newly breaks.

Every figure is read off the two documents (no rule of the model is applied again), so a diff of two
scenarios and a diff of their written JSON say the same.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from bom.diff.records import CategoryDeltaJson, FigureJson, OrderDeltaJson, RuleJson
from bom.roles import Tier

Doc = Mapping[str, Any]

#: Money within a cent and quantities within a thousandth are the same (rounding in the JSON).
EPS = 0.005

SIZE = ("gpus", "nodes", "racks", "sites")
TCO_TOTALS = ("capex_usd", "hardware_usd", "network_capex_usd", "installation_usd", "spares_usd",
              "opex_per_year_usd", "energy_per_year_usd", "tco_usd", "usd_per_gpu_hour")
POWER_TOTALS = ("it_power_kw", "it_power_max_kw", "network_power_kw", "facility_power_kw", "facility_power_max_kw",
                "cooling_power_kw")
COOLING = ("cdus", "cdu_power_total_kw")
OPTICS = ("links", "modules", "copper_links", "copper_share")


def _num(v: object) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def figure(name: str, old: object, new: object) -> FigureJson | None:
    """The figure when it moves (a figure one side lacks counts as 0 there); else None."""
    a, b = _num(old), _num(new)
    if a is None and b is None:
        return None
    a, b = a or 0.0, b or 0.0
    if abs(b - a) <= EPS * max(1e-3, min(1.0, abs(a) + abs(b))):
        return None
    return {"name": name, "old": a, "new": b, "delta": b - a}


def _figures(pairs: Iterable[tuple[str, object, object]]) -> list[FigureJson]:
    return [f for f in (figure(n, a, b) for n, a, b in pairs) if f is not None]


def _at(doc: Doc, *path: str) -> object:
    cur: object = doc
    for p in path:
        if not isinstance(cur, Mapping):
            return None
        cur = cur.get(p)
    return cur


def size(old: Doc, new: Doc) -> list[FigureJson]:
    return _figures((k, old.get(k), new.get(k)) for k in SIZE)


def tco(old: Doc, new: Doc) -> list[FigureJson]:
    """The totals' money and every numeric figure of the finance block (the TCO's parts by category)."""
    keys = [("totals", k) for k in TCO_TOTALS]
    fin = {**(old.get("finance") or {}), **(new.get("finance") or {})}
    keys += [("finance", k) for k in fin if _num(fin[k]) is not None]
    return _figures((".".join(k), _at(old, *k), _at(new, *k)) for k in keys)


def power(old: Doc, new: Doc) -> list[FigureJson]:
    keys = [("totals", k) for k in POWER_TOTALS] + [("cooling", k) for k in COOLING]
    return _figures((".".join(k), _at(old, *k), _at(new, *k)) for k in keys)


def _per_gpu(doc: Doc, tier: str) -> float:
    gpus = _num(doc.get("gpus")) or 0.0
    modules = _num(_at(doc, "tiers", tier, "modules")) or 0.0
    return modules / gpus if gpus else 0.0


def optics(old: Doc, new: Doc) -> list[FigureJson]:
    """Per tier: links, modules, copper links and share, and modules per GPU."""
    out = []
    for tier in Tier:
        if _at(old, "tiers", tier) is None and _at(new, "tiers", tier) is None:
            continue
        out += _figures((f"tiers.{tier}.{k}", _at(old, "tiers", tier, k), _at(new, "tiers", tier, k)) for k in OPTICS)
        f = figure(f"tiers.{tier}.modules_per_gpu", _per_gpu(old, tier), _per_gpu(new, tier))
        if f is not None:
            out.append(f)
    return out


def _order(doc: Doc) -> dict[tuple[str, str], dict[str, Any]]:
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for o in doc.get("order") or []:
        key = (str(o.get("catalog_id") or ""), str(o.get("sku") or ""))
        if key in out:   # one part number on two order lines: their sums
            prev = out[key]
            out[key] = {**prev, "total": prev["total"] + o["total"], "extended_usd": prev["extended_usd"]
                        + o["extended_usd"]}
        else:
            out[key] = dict(o)
    return out


def order(old: Doc, new: Doc) -> list[OrderDeltaJson]:
    """Per part number (catalog id and SKU): the quantity and money that move, what to do, when it comes."""
    a, b = _order(old), _order(new)
    out: list[OrderDeltaJson] = []
    for key in sorted(a.keys() | b.keys()):
        o, n = a.get(key, {}), b.get(key, {})
        q0, q1 = float(o.get("total", 0.0)), float(n.get("total", 0.0))
        d_usd = float(n.get("extended_usd", 0.0)) - float(o.get("extended_usd", 0.0))
        if abs(q1 - q0) <= 1e-9 and abs(d_usd) <= EPS:
            continue
        ref = n or o
        action = "buy" if q1 > q0 else "return" if q1 < q0 else "reprice"
        lead = _num(ref.get("lead_time_days"))
        out.append({"catalog_id": key[0], "sku": key[1], "category": str(ref.get("category", "")),
                    "action": action, "old_quantity": q0, "new_quantity": q1, "delta_quantity": q1 - q0,
                    "unit_price_usd": float(ref.get("unit_price_usd") or 0.0), "delta_usd": d_usd,
                    "lead_time_days": lead})
    return out


def _by_category(doc: Doc) -> dict[str, float]:
    out: dict[str, float] = defaultdict(float)
    for o in doc.get("order") or []:
        out[str(o.get("category", ""))] += float(o.get("extended_usd", 0.0))
    return out


def categories(old: Doc, new: Doc) -> list[CategoryDeltaJson]:
    a, b = _by_category(old), _by_category(new)
    out: list[CategoryDeltaJson] = []
    for cat in sorted(a.keys() | b.keys()):
        x, y = a.get(cat, 0.0), b.get(cat, 0.0)
        if abs(y - x) > EPS:
            out.append({"category": cat, "old_usd": x, "new_usd": y, "delta_usd": y - x})
    return out


def _rules(doc: Doc) -> list[Mapping[str, Any]]:
    got = _at(doc, "checks", "rules")
    return [r for r in got if isinstance(r, Mapping)] if isinstance(got, list) else []


def rules(old: Doc, new: Doc) -> list[RuleJson]:
    """Rules with violations in the new design and none in the old (or not run there)."""
    before = {r["id"]: r.get("violations", 0) for r in _rules(old)}
    out: list[RuleJson] = []
    for r in _rules(new):
        if r.get("violations", 0) and not before.get(r["id"], 0):
            out.append({"id": r["id"], "severity": r.get("severity", ""), "violations": int(r["violations"]),
                        "checks": r.get("checks", "")})
    return out
