"""The review report (HTML with an inline SVG diagram), the Markdown summary, JSON and CSV."""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import io
from collections import Counter
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from bom.costing.categories import CATEGORIES
from bom.costing.lines import Line
from bom.costing.order import OrderLine
from bom.costing.report import Report
from bom.costing.schedule import SiteSchedule
from bom.costing.tco import NOT_INCLUDED
from bom.model.power import imbalance
from bom.outputs.planfiles import build_note, plan_json
from bom.outputs.writers.common import csv_writer, json_text, markdown_text, price_ranges, range_source, visible_text
from bom.outputs.writers.diagram import diagram
from bom.outputs.writers.tables import Rows, html_rows, html_value, html_values, markdown_rows
from bom.placement.elevation import samples
from bom.resources import data_dir


def qty(v: float, digits: int = 1) -> str:
    """A number as a report prints it: thousands separators and no trailing ".0" (17.5, 2,800)."""
    if not isinstance(v, (int, float)):   # a text input (the space basis)
        return str(v)
    text = f"{v:,.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def num(v: float | str, d: int = 0) -> str:
    """A number with thousands separators and ``d`` decimals (a text as it is): the templates' ``num``."""
    if isinstance(v, str):
        return v
    return f"{v:,.0f}" if d == 0 else f"{v:,.{d}f}"   # the whole numbers of every table: a fixed format spec


def usd(v: float) -> str:
    """A whole-dollar amount: the templates' ``usd``."""
    return f"{v:,.0f} USD"


def pct(v: float) -> str:
    """A share as a percentage with one decimal, none when it is whole: 0.127 -> "12.7%", 1 -> "100%"."""
    return f"{v:.1%}".replace(".0%", "%")


def environment(autoescape: bool, trusted: bool = False) -> Any:
    """The Jinja environment over templates/ with the number filters every template uses;
    ``trusted`` text (our own generated reference, no user input) is not cleaned for Markdown."""
    return _env(autoescape, trusted)


@functools.lru_cache(maxsize=2)
def _env(autoescape: bool, trusted: bool = False) -> Any:
    """One jinja2 environment per escaping mode: templates compile once per process."""
    import jinja2  # lazy: jinja2 loads only for a report


    clean = visible_text if autoescape or trusted else markdown_text   # HTML escapes markup itself
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(data_dir("templates"))),
                             bytecode_cache=_bytecode_cache(jinja2),
                             autoescape=autoescape, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                             finalize=lambda v: clean(v) if isinstance(v, str) and type(v) is not Rows else v)
    env.filters["num"] = num
    env.filters["usd"] = usd
    env.filters["pct"] = pct
    env.filters["qty"] = qty
    return env


def _bytecode_cache(jinja2: Any) -> Any:
    """Jinja's own compiled-template cache (its default folder, ``_jinja2-cache-<uid>`` in the temporary
    directory, private to the user): compiling the report's templates was 0.46 s of every build's 2.6.
    A template's entry is keyed by its name and checked against its source, so an edited template
    compiles again. No cache (each build compiles) where the folder cannot be made or written."""
    class Quiet(jinja2.FileSystemBytecodeCache):
        def dump_bytecode(self, bucket: Any) -> None:
            with contextlib.suppress(OSError):
                super().dump_bytecode(bucket)

    try:
        return Quiet()
    except (OSError, RuntimeError):   # jinja refuses a folder another user owns or others can write
        return None


#: Violations the report and the summary show per broken rule (the workbook's Checks sheet and the
#: JSON keep the first 20, `bom check --json` too).
SHOWN_PER_RULE = 5


def _context(r: Report) -> dict[str, Any]:
    sources = Counter(line.price_source for line in r.lines)
    prices: dict[str, list[float]] = {}   # each category's prices in one pass, summed as before
    for x in r.lines:
        prices.setdefault(x.category, []).append(x.price_usd)
    by_category = [(c, sum(prices.get(c, ()))) for c in CATEGORIES]
    m = r.model
    return {"report": r, "model": m, "cluster": m.cluster, "tco": r.tco, "totals": r.totals,
            "across": r.totals.scale_across, "inputs": r.inputs, "lines": r.lines,
            "tco_rows": _tco_rows(r), "facility_rows": _facility_rows(r),
            "by_category": [(c, v) for c, v in by_category if v], "description": m.scenario.description,
            "estimates": sources["estimate"], "quotes": sources["quote"], "lists": sources["list"],
            "order": r.order, "warnings": r.warnings, "quote_rows": r.quotes, "sens": r.sensitivity,
            "ranges": price_ranges(r.lines), "range_source": range_source,
            "priced_on": r.priced_on, "rates": m.scenario.exchange_rates, "checks": r.checks,
            "shown_per_rule": SHOWN_PER_RULE, "job": r.job, "not_included": NOT_INCLUDED,
            "range": _range_rows(r), "histogram": _histogram(r), "phase_rows": _phase_rows(r),
            "phase_schedules": _phase_schedules(r), "power_plan": _power_plan(r)}


def _power_plan(r: Report) -> dict[str, Any] | None:
    """The power plan's section: per rack layout its feeds, headroom and worst phase; each site UPS."""
    plan = r.model.power
    if plan is None:
        return None
    def kw(w: float) -> str:
        return qty(w, 1)   # "2" not "2.0"
    racks = []
    # Rack groups alike share one RackPower (alike sites' racks): its figures made once a plan.
    figures: dict[int, dict[str, Any]] = {}
    for g in plan.groups:
        p = g.plan
        got = figures.get(id(p))
        if got is None:
            worst = max((ld.worst_w / ld.rating_w for ld in p.phases if ld.rating_w), default=0.0)
            a = p.feeds[0]
            got = figures[id(p)] = dict(
                pdus=len(p.pdus), cords=len(p.cords), draw=kw(p.draw_w / 1000), feed=kw(a.normal_w / 1000),
                lost=kw(a.failover_w / 1000), rating=kw(a.rating_w / 1000),
                headroom=kw(min(f.headroom_w for f in p.feeds) / 1000), worst=pct(worst), imbalance=pct(imbalance(p)),
                down=len({s for _, s in p.down}))
        # Rows as attributes, not dict keys: jinja's `x.kind` tries the attribute first (a dict's miss raises).
        racks.append(SimpleNamespace(kind=g.kind, rack=g.rack, racks=g.racks, **got))
    ups = [SimpleNamespace(name=name, rows=rows, load=kw(normal / 1000), lost=kw(failover / 1000))
           for name, (rows, normal, failover, _) in plan.ups().items()]
    return {"racks": racks, "ups": ups, "cords": plan.cord_count, "basis": plan.basis}


#: Sites drawn as a timeline in the report (each site has its row in the table; the sites of one shape are alike).
TIMELINE_SITES = 4
_LABEL_W, _CHART_W, _ROW_H, _TOP = 250, 640, 15, 30


def _timelines(r: Report) -> list[SimpleNamespace]:
    """Each shown site's critical path as an SVG timeline (its title, and its ``body``: the drawing rendered
    once for the sites alike, those that share their arrivals and chain)."""
    from markupsafe import Markup  # lazy: jinja2's, loaded only for a report

    out, bodies = [], {}
    for s in r.schedule[:TIMELINE_SITES]:
        key = (id(s.arrivals), s.order_date, s.in_service, tuple(s.chain))
        if key not in bodies:
            chart = _chart(s)
            bodies[key] = chart, Markup(timeline_svg(chart))
        chart, body = bodies[key]
        out.append(SimpleNamespace(**vars(chart), site=s.site, in_service=s.in_service, body=body))
    return out


#: A timeline's parts, as the report's template wrote them (``{}``: a value, written as ``{{ v }}`` writes it).
_TICK = ('<line x1="{}" y1="20" x2="{}" y2="{}" stroke="#d5dbe5"/><text x="{}" y="26" font-size="9" '
         'fill="#5a6372">{}</text>\n')
_GATING = ' fill="#c00000" font-weight="bold"'
_DONE = '<line x1="{}" y1="20" x2="{}" y2="{}" stroke="#375623" stroke-width="2"/>\n'


def timeline_svg(t: SimpleNamespace) -> str:
    """A site's timeline drawing (:func:`_chart`'s parts) below its title: its ticks, a bar per part and step,
    the in-service line; the text the template ``timeline.svg.j2`` rendered with autoescape, written in Python
    (a million-GPU campus's timeline has a bar per part: 89, ten values each). Text cells are escaped together
    (:func:`~bom.outputs.writers.tables.html_values`), numbers written as their str()."""
    low = t.height - 6
    ticks = [c for k in t.ticks for c in (k.x, k.x, low, k.x + 2, k.label)]
    texts = html_values([c for row in t.rows for c in ("yes" if row.gating else "no", row.kind, row.label, row.note,
                                                      row.label[:40])])
    size = _number(t.row_h - 4)
    bars = []
    for k, row in enumerate(t.rows):
        yes, kind, label, note, short = texts[5 * k:5 * k + 5]
        if row.kind == "unknown":
            tail = (f'<text x="{_number(row.x + 2)}" y="{_number(row.y + 11)}" font-size="10" fill="#9a5b00">'
                    f'unknown lead time</text>')
        else:
            tail = (f'<rect x="{_number(row.x)}" y="{_number(row.y + 2)}" width="{_number(row.w)}" height="{size}" '
                    f'fill="{"#c00000" if row.gating else "#8ea9db"}"/>')
        bars.append(f'<g class="bar" data-gating="{yes}" data-kind="{kind}"><title>{label}: {note}</title>\n'
                    f'<text x="4" y="{_number(row.y + 11)}" font-size="10"{_GATING if row.gating else ""}>{short}'
                    f'</text>\n{tail}</g>\n')
    head = str(html_rows(_TICK, ticks)) if ticks else ""   # str(): a Markup's + would escape the bars
    return head + "".join(bars) + str(html_rows(_DONE, [t.done, t.done, low]))


#: The diagram's wire colours by medium, as the report's template set them.
_WIRE_COLOURS = {"copper": "#c26a00", "optical": "#2f6fb5", "mixed": "#6b4fa0", "coherent": "#8e2c7e",
                 "boundary": "#c0392b"}


def diagram_svg(d: Any) -> str:
    """The cluster diagram's shapes (:func:`~bom.outputs.writers.diagram.diagram`'s boxes, wires, tier boundaries
    and labels), each a line as the report's template wrote it with autoescape, written in Python: every value
    escaped together (:func:`~bom.outputs.writers.tables.html_values`) and each line put together from them (a
    million-GPU campus's ten sites draw 180 shapes, eight values each)."""
    cells: list[Any] = []
    for b in d.boxes:
        dot = b.kind == "site-dot"
        cells += (b.kind, b.x, b.y, b.w, b.h, b.w / 2 if dot else 6, b.fill, b.fill if dot else "#305496")
    for w in d.wires:
        cells += (w.medium, w.path) if w.path else (w.medium,)
        if w.cy is not None:
            cells += (w.x1, w.y1, (w.x1 + w.x2) / 2, w.cy, w.x2, w.y2, _WIRE_COLOURS[w.medium])
        else:
            cells += (w.x1, w.y1, w.x2, w.y2, _WIRE_COLOURS[w.medium], 2 if w.dashed else 3)
    for u in d.boundaries:
        cells += (u.tier, u.links, u.modules, u.fibre_runs, u.x1, u.y, u.x2, u.y)
    for t in d.texts:
        cells += (t.x, t.y, t.size, t.anchor, t.weight, t.fill)
        cells += (t.path, t.value, t.text) if t.path else (t.text,)
    v = iter(html_values(cells))
    out = [f'  <rect class="box" data-kind="{next(v)}" x="{next(v)}" y="{next(v)}" width="{next(v)}" '
           f'height="{next(v)}" rx="{next(v)}" fill="{next(v)}" stroke="{next(v)}"/>\n' for _ in d.boxes]
    for w in d.wires:
        head = f'class="wire" data-medium="{next(v)}"' + (f' data-json="{next(v)}"' if w.path else "")
        if w.cy is not None:
            out.append(f'  <path {head} d="M {next(v)} {next(v)} Q {next(v)} {next(v)} {next(v)} {next(v)}" '
                       f'fill="none" stroke="{next(v)}" stroke-width="2.5"/>\n')
        else:
            out.append(f'  <line {head} x1="{next(v)}" y1="{next(v)}" x2="{next(v)}" y2="{next(v)}" stroke="{next(v)}" '
                       f'stroke-width="{next(v)}"{_DASHED if w.dashed else ""}/>\n')
    out += [f'  <line class="boundary" data-tier="{next(v)}" data-links="{next(v)}" data-modules="{next(v)}" '
            f'data-fibre-runs="{next(v)}" x1="{next(v)}" y1="{next(v)}" x2="{next(v)}" y2="{next(v)}" stroke="#c0392b" '
            f'stroke-width="2" stroke-dasharray="8 5"/>\n' for _ in d.boundaries]
    for t in d.texts:
        head = (f'  <text class="label" x="{next(v)}" y="{next(v)}" font-size="{next(v)}" text-anchor="{next(v)}" '
                f'font-weight="{next(v)}" fill="{next(v)}"')
        if t.path:
            head += f' data-json="{next(v)}" data-value="{next(v)}"'
        out.append(f'{head}{_HALO if t.halo else ""}>{next(v)}</text>\n')
    return "".join(out)


_DASHED = ' stroke-dasharray="8 5"'
_HALO = ' stroke="#ffffff" stroke-width="4" paint-order="stroke"'


def _number(v: Any) -> str:
    """``{{ v }}`` of a number (its str(): no character to escape); anything else as jinja writes it."""
    return str(v) if type(v) in (int, float) else html_value(v)


def _chart(s: SiteSchedule) -> SimpleNamespace:
    """A site's timeline's parts: a bar per part from the order date to its arrival, then installation,
    burn-in and the in-service day; the gating chain flagged (drawn red), a tick every four weeks.
    Attributes, not dict keys, down to each row: jinja's ``x.kind`` tries the attribute first, and a
    dict's miss raises (an exception per value drawn)."""
    span = max(1, (s.in_service - s.order_date).days + 7)
    scale = _CHART_W / span

    def x(day: dt.date) -> float:
        return round(_LABEL_W + (day - s.order_date).days * scale, 1)

    rows: list[dict[str, Any]] = []
    gate = s.gate
    for a in s.arrivals:
        if a.arrives is None:
            rows.append({"label": a.sku, "note": "unknown lead time", "x": x(s.order_date), "w": 0.0,
                         "gating": False, "kind": "unknown"})
            continue
        rows.append({"label": a.sku, "note": f"{a.label}, arrives {a.arrives}", "x": x(s.order_date),
                     "w": round(max(1.0, x(a.arrives) - x(s.order_date)), 1),
                     "gating": gate is not None and a.arrives == gate.arrives, "kind": "part"})
    for step in s.chain[1:]:
        rows.append({"label": step.what, "note": f"{step.days} d, {step.start} to {step.end}", "x": x(step.start),
                     "w": round(max(1.0, x(step.end) - x(step.start)), 1), "gating": True, "kind": "step"})
    every = 28 * max(1, -(-span // (28 * 8)))   # four weeks apart, or a multiple: at most eight labels
    ticks = [SimpleNamespace(x=x(s.order_date + dt.timedelta(days=d)), label=str(s.order_date + dt.timedelta(days=d)))
             for d in range(0, span, every)]
    return SimpleNamespace(rows=[SimpleNamespace(**row, y=_TOP + i * _ROW_H) for i, row in enumerate(rows)],
                           ticks=ticks, height=_TOP + len(rows) * _ROW_H + 10, width=_LABEL_W + _CHART_W + 20,
                           label_w=_LABEL_W, done=x(s.in_service), row_h=_ROW_H)


def _phase_schedules(r: Report) -> list[dict[str, Any]]:
    """Each phase's critical path under the scenario's growth, for the report and the summary."""
    if r.phases is None:
        return []
    out = []
    for p in r.phases.chosen.phases:
        sch = p.schedule
        if sch is None:
            continue
        gate = sch.gate
        out.append({"name": p.name, "order_date": sch.order_date, "gate": gate.sku if gate else "-",
                    "lead": gate.label if gate else "unknown", "install": max(sch.install_days, default=0),
                    "burn_in": sch.burn_in_days, "feasible": sch.feasible, "target": sch.target, "late": sch.late,
                    "earns_from": sch.earns_from})
    return out


def _phase_rows(r: Report, width: int = 40) -> list[dict[str, Any]]:
    """The build-out's timeline under the scenario's growth: each phase's date, GPUs in service (with
    a bar to scale), what it buys, capex so far and the links it re-cables; and each policy's phase
    capex beside it."""
    if r.phases is None:
        return []
    chosen, most = r.phases.chosen.phases, max(p.gpus for p in r.phases.chosen.phases)
    out, so_far = [], 0.0
    for k, p in enumerate(chosen):
        so_far += p.capex_usd
        out.append({"name": p.name, "date": p.date, "gpus": p.gpus, "capex": p.capex_usd, "so_far": so_far,
                    "recabled": p.recabled_links, "bar": "#" * max(1, round(width * p.gpus / most)),
                    "policies": [g.phases[k].capex_usd for g in r.phases.policies.values()]})
    return out


def _range_rows(r: Report) -> list[tuple[str, str, str, str]]:
    """(figure, P10, P50, P90) as printed."""
    if r.range is None:
        return []
    out = []
    for key, label, digits in (("capex", "Capex", 0), ("tco", "TCO over the period", 0),
                               ("usd_per_gpu_hour", "Cost per GPU-hour (levelised)", 4)):
        p = r.range.percentiles(key)
        p10, p50, p90 = (f"{v:,.{digits}f} USD" for v in (p.p10, p.p50, p.p90))
        out.append((label, p10, p50, p90))
    for s in r.range.in_service:   # the schedule risk: the dates beside the money
        point = s.site.order_date + dt.timedelta(days=s.site.point_days)
        out.append((f"In service, site {s.site.site} (lead times as they stand: {point})",
                    str(s.date("p10")), str(s.date("p50")), str(s.date("p90"))))
    return out


def _histogram(r: Report, width: int = 40) -> list[tuple[str, int, str]]:
    """The cost per GPU-hour's histogram as (bin, draws, bar of # characters)."""
    if r.range is None:
        return []
    bins = r.range.histogram()
    most = max(n for *_, n in bins) or 1
    return [(f"{lo:,.3f}-{hi:,.3f}", n, "#" * round(width * n / most)) for lo, hi, n in bins]


def _tco_rows(r: Report) -> list[tuple[str, str]]:
    t = r.tco
    usd = "{:,.0f} USD".format
    return [("Hardware (BOM, spares included)", usd(t.hardware_usd)), ("  of it network", usd(t.network_usd)),
            ("  of it spares", usd(r.spares_usd)), ("  of it storage appliances", usd(r.storage_usd)),
            ("Installation", usd(t.installation_usd)), ("Capex", usd(t.capex_usd)),
            ("Capex: GPU systems / network / facility",
             f"{usd(t.capex_gpu_usd)} / {usd(t.capex_network_usd)} / {usd(t.capex_facility_usd)}"),
            ("IT power, typical (the energy cost's basis)", f"{t.it_power_kw:,.1f} kW"),
            ("IT power at maximum (facility sizing: power, cooling, space per kW)", f"{t.it_power_max_kw:,.1f} kW"),
            ("Energy per year", usd(t.energy_per_year)), ("Support per year", usd(t.support_per_year)),
            ("Dark fibre per year", usd(t.dark_fibre_per_year)), ("Space per year", usd(t.space_per_year)),
            ("Operations staff per year", usd(t.staff_per_year)),
            ("Software licences per year", usd(t.licences_per_year)),
            ("Insurance and property tax per year", usd(t.insurance_tax_per_year)),
            ("Opex per year", usd(t.opex_per_year)),
            ("Depreciation per year (straight line)", usd(t.depreciation_per_year)),
            ("Capital charge per year (capital recovery factor)", usd(t.capital_charge_per_year)),
            ("Cost per year (capital charge + opex)", usd(t.annual_cost_usd)),
            ("TCO (capex + years x opex, undiscounted)", usd(t.tco_usd)),
            ("NPV of the costs", usd(t.npv_usd)),
            ("Share of the period in service (deployment ramp)", pct(t.service_share)),
            ("Cost per GPU-hour (levelised)", f"{t.usd_per_gpu_hour:,.4f} USD"),
            ("Cost per GPU-hour (undiscounted: TCO over the period's GPU-hours)",
             f"{t.undiscounted_usd_per_gpu_hour:,.4f} USD"),
            ("Marginal cost per GPU-hour (energy and support)", f"{t.marginal_usd_per_gpu_hour:,.4f} USD"),
            ("Cost per PFLOP/s-hour (dense FP8)", f"{t.usd_per_pflop_hour:,.4f} USD"),
            ("Network share of IT power", pct(t.network_power_share))] + _facility_rows(r) + _job_rows(r)


def _facility_rows(r: Report) -> list[tuple[str, str]]:
    """Each site's power against its building, the CDUs, and the facility leased against built."""
    t = r.tco
    usd, mw = "{:,.0f} USD".format, (lambda kw: f"{kw / 1000:,.2f} MW")
    out = [("Facility power at maximum (IT x PUE + CDUs)", mw(t.facility_power_max_kw))]
    if r.power is not None:
        out.append(("Sites, decided by", f"{len(r.power.sites)} ({r.power.decided_by})"))
        for s in r.power.sites:
            limit = "" if s.limit_kw is None else f" of {mw(s.limit_kw)} ({'fits' if s.fits else 'over'})"
            out.append((f"Site {s.site}: IT / facility power at maximum",
                        f"{mw(s.it_kw)} / {mw(s.facility_kw)}{limit}"))
    if r.cooling is not None:
        c = r.cooling
        water = sum(s.water_l_min for s in c.sites)
        out += [("Cooling: CDUs (N+1 per site)", f"{c.cdus:,} x {c.cdu.id} ({c.capacity_w / 1000:,.0f} kW each)"),
                ("Cooling: CDU pumps (facility power)", f"{t.cooling_power_kw:,.0f} kW"),
                ("Cooling: facility water / heat to air",
                 f"{water:,.0f} L/min at {c.loop_dt_k:g} K / {sum(s.air_kw for s in c.sites):,.0f} kW")]
    out += [("Facility", "built" if t.facility_built else "leased"),
            ("Lease: space per year", usd(t.lease_per_year)),
            ("Build: construction / grid connection", f"{usd(t.building_capex_usd)} / {usd(t.grid_connection_usd)}"),
            ("Build: capital charge per year", usd(t.build_per_year))]
    return out


def _job_rows(r: Report) -> list[tuple[str, str]]:
    j = r.job
    if j is None:
        return []
    return [(f"Job {j.name}: GPU-hours", qty(j.gpu_hours, 0)),
            ("Job: wall time on every GPU built", f"{j.wall_days:,.1f} d"),
            ("Job: facility energy", f"{j.energy_mwh:,.1f} MWh"),
            ("Job: cost at the cost per GPU-hour (levelised)", f"{j.cost_usd:,.0f} USD"),
            ("Job: cost at the marginal rate (energy and support)", f"{j.marginal_cost_usd:,.0f} USD")]


#: The HTML report's BOM table row (the template's loop body as it was, a ``{}`` per value it writes).
_HTML_BOM_ROW = ('<tr><td class="k">{}</td><td>{}</td><td class="k">{}</td><td>{}</td><td>{}</td>\n<td>{}</td>'
                 '<td class="n">{}{}{}</td>\n<td class="n">{}</td>\n<td class="n">{}{}{}</td>\n<td class="n">{}</td>\n'
                 '<td class="n">{}</td><td class="{}">{}</td>\n<td class="src">{}</td></tr>\n')


def html_bom_rows(lines: Sequence[Line]) -> Any:
    """The HTML report's BOM table's rows (``Markup``)."""
    from markupsafe import Markup  # lazy: jinja2's, loaded only for a report

    br, none = Markup("<br>"), ("", "", "")
    cells: list[Any] = []
    for x in lines:
        low, high, each = x.unit_price_low_usd, x.unit_price_high_usd, x.unit == "each"
        cells += (x.tier, x.fabric, x.hop, x.category, x.sku, x.description, qty(x.quantity),
                  *(none[:2] if each else (" ", x.unit)), usd(x.unit_price_usd),
                  *(none if low is None or high is None else (usd(low), br, usd(high))), usd(x.price_usd),
                  qty(x.power_w), "est" if x.price_source == "estimate" else "", x.price_source,
                  range_source(x.unit_price_range_source, x.price_source))
    return html_rows(_HTML_BOM_ROW, cells)


def html_order_rows(order: Sequence[OrderLine], ranges: dict[str, tuple[float, float, str]]) -> Any:
    """The HTML report's order table's rows (``Markup``): a column per site where the first line is split."""
    from markupsafe import Markup  # lazy: jinja2's, loaded only for a report

    split = order[0].per_site if order else None
    row = ('<tr><td>{}</td><td>{}</td><td class="n">{}{}{}</td>\n' + '<td class="n">{}</td>' * len(split or ())
           + '<td class="n">{}</td><td class="n">{}{}{}</td>\n<td class="n">{}</td>\n<td class="n">{}{}{}</td>\n'
             '<td class="n">{}</td><td>{}</td>\n<td class="src">{}</td>\n<td>{}{}{}{}</td><td>{}</td>\n'
             '<td class="flag">{}</td></tr>\n')
    br, none = Markup("<br>"), ("", "", "")
    cells: list[Any] = []
    for o in order:
        unit = ("", "") if o.unit == "each" else (" ", o.unit)
        rg = ranges.get(o.sku)
        sites = (list(map(num, o.per_site)) if o.per_site else [""] * len(split)) if split else []
        cells += (o.sku, o.description, qty(o.installed), *unit, *sites, num(o.spares), qty(o.total), *unit,
                  usd(o.unit_price_usd), *((usd(rg[0]), br, usd(rg[1])) if rg else none), usd(o.extended_usd),
                  o.price_source, rg[2] if rg else range_source(None, o.price_source), o.quote_ref,
                  *((" (valid until ", o.valid_until, ")") if o.valid_until else none), o.vendor, "; ".join(o.flags))
    return html_rows(row, cells)


def _power_cells(plan: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    """The power plan's racks' and UPS' cells, as both documents' loops wrote them."""
    racks = [c for x in plan["racks"] for c in (num(x.racks), x.kind, x.rack, x.pdus, x.cords, x.draw, x.feed,
                                                 x.lost, x.rating, x.headroom, x.worst, x.imbalance, x.down)]
    return racks, [c for u in plan["ups"] for c in (u.name, u.rows, u.load, u.lost)]


def html_power_rows(plan: dict[str, Any] | None) -> tuple[Any, Any]:
    """The HTML report's power tables' rows (racks, UPS), or ("", "") with no power plan."""
    if plan is None:
        return "", ""
    racks, ups = _power_cells(plan)
    return (html_rows("<tr><td>{} {}</td><td>{}</td>" + '<td class="n">{}</td>' * 10 + "</tr>\n", racks),
            html_rows('<tr><td>{}</td><td class="n">{}</td><td class="n">{}</td><td class="n">{}</td></tr>\n', ups))


def html_site_rows(r: Report) -> tuple[Any, Any]:
    """The HTML report's sites and cabled site pairs tables' rows, or ("", "") on one site."""
    m, across = r.model, r.totals.scale_across
    if m.cluster.site_count <= 1 or across.dci is None:
        return "", ""
    dci = across.dci
    sites = [c for s in m.site_sizes for c in (s.site, num(s.nodes), num(s.gpus),
                                               ", ".join([f"site {o}" for o in dci.neighbours(s.site)]))]
    pair = (num(dci.wavelengths_per_pair), num(dci.fibre_pairs_per_pair), qty(across.distance_km))
    pairs = [c for a, b in dci.site_pairs for c in (a, b, *pair)]
    return (html_rows('<tr><td>site {}</td><td class="n">{}</td><td class="n">{}</td>\n<td>{}</td></tr>\n', sites),
            html_rows('<tr><td>site {} - site {}</td><td class="n">{}</td><td class="n">{}</td><td class="n">{}</td>'
                      '</tr>\n', pairs))


def write_html(r: Report) -> bytes:
    from markupsafe import Markup  # lazy: jinja2's, loaded only for a report

    ctx = _context(r)
    ctx["bom_rows"], ctx["order_rows"] = html_bom_rows(r.lines), html_order_rows(r.order, ctx["ranges"])
    ctx["power_rows"], ctx["sites_rows"] = html_power_rows(ctx["power_plan"]), html_site_rows(r)
    ctx["d"], ctx["timelines"] = diagram(r), _timelines(r)
    ctx["diagram_body"] = Markup(diagram_svg(ctx["d"]))   # our own text, escaped as it was made
    ctx["elevations"], ctx["cabling"] = samples(r.model.placement), build_note(r.model, r.cable_plan)
    return _env(True).get_template("report.html.j2").render(**ctx).encode()


def markdown_order_rows(order: Sequence[OrderLine], ranges: dict[str, tuple[float, float, str]]) -> str:
    """The Markdown summary's order table's rows."""
    cells: list[Any] = []
    for o in order:
        rg, d = ranges.get(o.sku), 0 if o.unit == "each" else 1
        cells += (o.sku, num(o.installed, d), num(o.spares), num(o.total, d), num(o.unit_price_usd, 2),
                  num(rg[0], 2) + " USD" if rg else "", num(rg[1], 2) + " USD" if rg else "", usd(o.extended_usd),
                  o.price_source, rg[2] if rg else range_source(None, o.price_source), o.quote_ref,
                  *((" (valid until ", o.valid_until, ")") if o.valid_until else ("", "", "")),
                  "; ".join(map(str, o.flags)))
    return markdown_rows("| {} | {} | {} | {} | {} USD | {} | {} | {} | {} | {} | {}{}{}{} | {} |\n", cells)


def markdown_power_rows(plan: dict[str, Any] | None) -> tuple[str, str]:
    """The Markdown summary's power tables' rows (racks, UPS), or ("", "") with no power plan."""
    if plan is None:
        return "", ""
    racks, ups = _power_cells(plan)
    return markdown_rows("| {} {} |" + " {} |" * 11 + "\n", racks), markdown_rows("| {} | {} | {} | {} |\n", ups)


def write_markdown(r: Report) -> bytes:
    ctx = _context(r)
    ctx["order_rows"], ctx["power_rows"] = markdown_order_rows(r.order, ctx["ranges"]), \
        markdown_power_rows(ctx["power_plan"])
    return _env(False).get_template("summary.md.j2").render(**ctx).encode()


def write_json(r: Report) -> bytes:
    # C1 and bidi controls and Unicode line breaks from catalog text as \u escapes: the same JSON,
    # which `cat` and `bom build --json` show safely
    data = r.to_json()
    data["cable_plan"] = plan_json(r.model, r.cable_plan)
    return (json_text(data, indent=2) + "\n").encode()


#: Beside the point price, the range public prices span and where it is published (blank: none, a
#: placeholder when price_source is estimate).
CSV_COLS = ["tier", "fabric", "hop", "category", "catalog_id", "sku", "description", "vendor", "quantity",
            "unit", "unit_price_usd", "unit_price_low_usd", "unit_price_high_usd", "price_range_source",
            "extended_usd", "unit_power_w", "extended_power_w", "price_source", "as_of", "source"]


def write_csv(r: Report) -> bytes:
    buf = io.StringIO()
    w = csv_writer(buf)
    w.writerow(CSV_COLS)
    for x in r.lines:
        row = [x.tier, x.fabric, x.hop, x.category, x.catalog_id, x.sku, x.description, x.vendor,
               int(x.quantity) if x.unit == "each" else x.quantity, x.unit, x.unit_price_usd,
               _blank(x.unit_price_low_usd), _blank(x.unit_price_high_usd),
               range_source(x.unit_price_range_source, x.price_source),
               round(x.price_usd, 2), x.unit_power_w, round(x.power_w, 3), x.price_source, x.as_of, x.source]
        w.writerow(row)
    return buf.getvalue().encode()


def _blank(x: float | None) -> float | str:
    return "" if x is None else x


CART_COLS = ["vendor", "part_number", "maker", "description", "unit", "quantity", "installed", "spares",
             "rounded_up", "unit_price_usd", "currency", "unit_price", "quote_ref", "avl"]


def cart_cols(sites: int) -> list[str]:
    """The cart's columns: per site the units installed there and its spares (deliveries split by site)."""
    return CART_COLS + [f"site{s}_{what}" for s in range(1, sites + 1) for what in ("installed", "spares")]


def write_cart(r: Report) -> bytes:
    """The order as carts for the quoting tools: one block of lines per vendor (who quoted, else the
    maker), each part number with its quantity to order (installed + spares + a quote's rounding), its
    price in USD and as quoted (currency), and per site the units installed and the spares held there
    (blank where the order has no split; a quote's rounding is in the quantity, not a site's).
    An unpriced line (0 USD: leased, or a part the catalog has no price for) has a blank price, never 0."""
    buf = io.StringIO()
    w = csv_writer(buf)
    sites = r.model.cluster.site_count
    w.writerow(cart_cols(sites))

    def count(o: OrderLine, x: float) -> float:
        return int(x) if o.unit == "each" else x

    for o in sorted(r.order, key=lambda o: (o.vendor.lower(), o.sku)):
        split: list[object] = []
        for s in range(sites):
            split += [count(o, o.per_site[s]) if o.per_site is not None else "",
                      o.spares_per_site[s] if o.spares_per_site is not None else ""]
        quoted = o.unit_price if o.unit_price is not None else o.unit_price_usd
        w.writerow([o.vendor, o.sku, o.maker, o.description, o.unit, count(o, o.total), count(o, o.installed),
                    count(o, o.spares), count(o, o.rounded_up), o.unit_price_usd or "", o.currency, quoted or "",
                    o.quote_ref, "; ".join(o.avl), *split])
    return buf.getvalue().encode()
