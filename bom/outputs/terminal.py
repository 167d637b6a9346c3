"""Plain-text tables for the terminal (no rich: the commands must start fast)."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import sys
import textwrap
from collections.abc import Mapping, Sequence

from pydantic import BaseModel

from bom.catalog.media import COHERENT_STANDARD, LADDER, Lookup, metres
from bom.costing.compare import Comparison
from bom.costing.phases import Phases
from bom.costing.report import Report
from bom.costing.tco import GPU_HOUR_BASIS, Tco
from bom.model.checks import Checks
from bom.model.dci import Dci
from bom.model.hops import HopKind
from bom.model.model import Model
from bom.model.parallelism import Parallelism
from bom.model.records import Cell
from bom.model.sizing import LevelPower, Sizing
from bom.outputs.writers.common import terminal_text
from bom.outputs.writers.common import terminal_text as tt
from bom.roles import SWITCH_LAYERS, FabricRole, Tier
from bom.topology.sizing import USABLE_MEMORY_FRACTION, buildings_for
from bom.units import Quantity


def terminal_width() -> int | None:
    """The width tables must fit: ``COLUMNS`` when set, the terminal's when stdout is one, else None."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if sys.stdout.isatty():
        return shutil.get_terminal_size().columns
    return None


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[:max(1, width - 1)] + "…"


def _fit(widths: list[int], right: Sequence[bool], limit: int | None,
         data: Sequence[int] | None = None) -> list[int]:
    """Narrow columns until the row fits ``limit``: long text first (to KEEP_TEXT characters),
    then the headers of number columns (down to their widest number), then text to MIN_COLUMN.
    A number itself is never clipped."""
    widths = list(widths)
    if limit is None:
        return widths
    data = data or widths
    cols = range(len(widths))
    # A floor per column and stage; None: the column does not give way in that stage.
    stages = [[None if right[i] else max(MIN_COLUMN, min(data[i], KEEP_TEXT)) for i in cols],
              [max(MIN_COLUMN, data[i]) if right[i] else None for i in cols],
              [None if right[i] else MIN_COLUMN for i in cols]]
    for floors in stages:
        while sum(widths) + 2 * (len(widths) - 1) > limit:
            give = {i: widths[i] - f for i in cols if (f := floors[i]) is not None and widths[i] > f}
            if not give:
                break
            widths[max(give, key=give.__getitem__)] -= 1
    return widths


#: Text this short (ids, part numbers) is clipped only when nothing else can give way.
KEEP_TEXT = 12
#: A text column is never narrowed below this many characters.
MIN_COLUMN = 5


def table(headers: Sequence[str], rows: Sequence[Sequence[Cell]],
          right: Sequence[bool] | None = None, width: int | None = -1) -> str:
    """Columns padded to their widest cell; text columns clipped with "…" to fit ``width``
    (default: :func:`terminal_width`; None: no limit)."""
    # a cell is one line whatever it holds (an overlay's part number, a NetBox name): by the rule of
    # every printed line, and measured as it is shown
    cells = [[tt(h) for h in headers]] + [[tt(str(c)) for c in r] for r in rows]
    right = right or [False] * len(headers)
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    data = [max((len(r[i]) for r in cells[1:]), default=0) for i in range(len(headers))]
    widths = _fit(widths, right, terminal_width() if width == -1 else width, data)
    out = []
    for n, r in enumerate(cells):
        line = "  ".join(_clip(c, w).rjust(w) if right[i] else _clip(c, w).ljust(w)
                         for i, (c, w) in enumerate(zip(r, widths, strict=True)))
        out.append(line.rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def _kw(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}"


def flops(value: float) -> str:
    """FLOP/s with an SI prefix: 2.25e15 -> "2.25 PFLOP/s"."""
    for prefix, scale in (("E", 1e18), ("P", 1e15), ("T", 1e12), ("G", 1e9)):
        if value >= scale:
            return f"{value / scale:,.3g} {prefix}FLOP/s"
    return f"{value:,.3g} FLOP/s"


def sizing_heading(accelerator: str, power_from: str | None) -> str:
    power = f"; power per GPU from {power_from}" if power_from else ""
    return (f"Sizing the reference example jobs on {tt(accelerator)}; usable memory "
            f"{USABLE_MEMORY_FRACTION:.0%}{power}.")


def sizing_table(results: Sequence[Sizing]) -> str:
    """One row per job; the time column shows "-" for a job with no deadline, and the FLOP/s
    per GPU and MFU it was computed from."""
    headers = ["job", "GPUs (mem)", "GPUs (time)", "needs", "smallest level", "decided by", "deadline",
               "FLOP/s per GPU", "MFU", "IT kW", "facility kW", "fits one domain"]
    rows = []
    for r in results:
        timed = r.deadline_days is not None
        fits = f"yes ({r.gpus:,} of {r.domain_gpus:,})" if r.fits_in_domain else \
            f"no ({r.gpus:,} > {r.domain_gpus:,})"
        rows.append([r.job, f"{r.gpus_by_memory:,}", f"{r.gpus_by_time:,}" if timed else "-", f"{r.gpus:,}",
                     r.level_label, r.decided_by, f"{r.deadline_days:g} d" if timed else "-",
                     flops(r.flops_per_gpu) if timed else "-", f"{r.mfu:.0%}" if timed else "-",
                     _kw(r.it_power_kw), _kw(r.facility_power_kw), fits])
    return table(headers, rows, [False, True, True, True, False, False, True, True, True, True, True, False])


def levels_table(levels: Sequence[LevelPower], building_kw: float | None) -> str:
    """Each level of scale's power, and whether it fits one building ("3 buildings at 100 MW")."""
    rows = []
    for lv in levels:
        if lv.buildings is None or building_kw is None:   # counted only against a building's power
            fits = "-"
        else:
            fits = "fits one building" if lv.buildings == 1 else \
                f"{lv.buildings:,} buildings at {building_kw / 1000:,.4g} MW"
        rows.append([lv.label, f"{lv.gpus:,.0f}", f"{lv.it_kw / 1000:,.3f}", f"{lv.facility_kw / 1000:,.3f}", fits])
    return (table(["level", "GPUs", "IT MW", "facility MW", "buildings"], rows, [False, True, True, True, False])
            + "\nIT MW: the GPU systems at the platform's power, before the network, storage and cooling"
              "\na build adds; bom build with sites.power sizes the buildings from the whole build.")


def job_buildings(gpus: int, facility_kw: float | None, building_kw: float | None) -> str:
    """"The job's 100,000 GPUs: 194 MW of facility power, 2 buildings at 100 MW" ("" without both figures)."""
    if facility_kw is None or building_kw is None:
        return ""
    n = buildings_for(facility_kw, building_kw)
    return (f"The job's {gpus:,} GPUs: {facility_kw / 1000:,.1f} MW of facility power, "
            + ("fits one building" if n == 1 else f"{n:,} buildings") + f" at {building_kw / 1000:,.4g} MW.")


def parallelism_text(p: Parallelism) -> str:
    """The split, the tier each dimension spans, and each one's traffic and time per step."""
    if p.kind == "serve":
        return serving_text(p)
    s = p.split
    degrees = " x ".join(f"{k.upper()} {v}" for k, v in s.as_dict().items() if k != "ep" or v > 1)
    head = [f"Parallelism ({'proposed' if p.proposed else 'given'}): {degrees} = {p.gpus:,} GPUs"
            + (f" (EP {s.ep} carved out of DP)" if s.ep > 1 else ""),
            f"  memory {p.memory_gb:,.1f} of {p.memory_limit_gb:,.1f} GB usable a GPU; "
            f"{p.microbatches:,} sequences a pipeline a step",
            "  tiers: " + ", ".join(f"{k.upper()} {t}" for k, t in p.tiers.items())]
    rows = [[t.dim.upper(), t.collective, t.tier, f"{t.bytes_per_gpu / 1e9:,.2f}", f"{t.seconds:,.3f}",
             f"{t.exposed_s:,.3f}" if not t.dim.startswith("dp") else "hidden"] for t in p.traffic]
    body = table(["dim", "collective", "tier", "GB a GPU a step", "s at tier rate", "exposed s"], rows,
                 [False, False, False, True, True, True]) if rows else "  no traffic between GPUs"
    tail = [f"  step {p.step_s:,.2f} s: compute {p.compute_s:,.2f} s at the job's MFU"
            + (f", pipeline bubble {p.bubble_s:,.2f} s" if p.bubble_s else "")
            + f", exposed communication {p.exposed_s:,.2f} s ({p.exposed_share:.0%} of the step; DP hides under "
            "the backward pass, 2/3 of the compute)"]
    if len(set(p.dp_sites)) > 1:
        tail.append(f"  DP replicas in the sites, in proportion to their GPUs: {' + '.join(map(str, p.dp_sites))}")
    if p.dci_bytes_per_site:
        tail.append(f"  between sites: a site sends {p.dci_bytes_per_site / 1e9:,.0f} GB a step"
                    + (f"; {p.dci_gbps_needed:,.0f} Gbit/s per site pair moves it in {p.dci_overlap:.0%} of the "
                       "compute (sites.dci_overlap)" if p.dci_gbps_needed is not None else ""))
    return "\n".join(head + [body] + tail)


def serving_degrees(p: Parallelism) -> str:
    """"TP 4 x 6 replicas" (EP and PP when a replica has them)."""
    s = p.split
    parts = [f"TP {s.tp}"] + [f"{k.upper()} {v}" for k, v in (("ep", s.ep), ("pp", s.pp)) if v > 1]
    return f"{' x '.join(parts)} a replica ({p.replica_gpus:,} GPUs) x {s.dp:,} replicas"


def serving_text(p: Parallelism) -> str:
    """A serving split: the replica's group and tiers, and its traffic per decode step."""
    head = [f"Serving split ({'proposed' if p.proposed else 'given'}): {serving_degrees(p)} = {p.gpus:,} GPUs",
            f"  memory {p.memory_gb:,.1f} of {p.memory_limit_gb:,.1f} GB usable a GPU; {p.microbatches:,} "
            f"sequences a replica (its KV cache holds {p.sequences_capacity:,})",
            "  tiers: " + ", ".join(f"{'replicas' if k == 'dp' else k.upper()} {t}" for k, t in p.tiers.items())]
    rows = [[t.dim.upper(), t.collective, t.tier, f"{t.bytes_per_gpu / 1e6:,.2f}", f"{t.seconds * 1e6:,.1f}"]
            for t in p.traffic]
    body = table(["dim", "collective", "tier", "MB a GPU a decode step", "us at tier rate"], rows,
                 [False, False, False, True, True]) if rows else "  no traffic between a replica's GPUs"
    tail = [f"  a decode step (one token for each of a replica's sequences) waits on {p.exposed_s * 1e6:,.1f} us "
            "of it; replicas exchange nothing but requests and tokens over scale-out"]
    return "\n".join(head + [body] + tail + decode_lines(p))


def decode_lines(p: Parallelism) -> list[str]:
    """The decode step's bounds and the tokens/s they allow (and the target, when one is given)."""
    d = p.decode
    if d is None:
        return ["  decode step: not worked out (the platform row gives no memory_bandwidth)"]
    target = f"; target {p.tokens_per_s_target:,g} a user (workload.tokens_per_s_per_user)" \
        if p.tokens_per_s_target is not None else ""
    return [f"  decode step at least {d.step_s * 1e3:,.2f} ms ({d.bound}-bound: HBM read {d.read_s * 1e3:,.2f} ms at "
            f"{d.hbm_gbps:,.0f} GB/s, arithmetic {d.compute_s * 1e3:,.2f} ms, communication {d.comm_s * 1e3:,.3f} ms)",
            f"  at most {d.tokens_per_s_user:,.1f} tokens/s a user, {d.tokens_per_s_replica:,.0f} a replica{target}"]


def split_note(p: Parallelism, sized_gpus: int) -> str | None:
    """When the given split's GPUs differ from the sizing's: which one the build takes."""
    if p.kind == "serve":
        return None     # the sizing takes the replicas' GPUs (bom/topology/sizing.py: with_replicas)
    if p.proposed or p.gpus == sized_gpus:
        return None
    less = p.gpus < sized_gpus
    return (f"  note: the split runs on {p.gpus:,} GPUs, {'fewer' if less else 'more'} than the {sized_gpus:,} the "
            f"sizing asks for; the build takes the sizing's"
            + (" (the deadline needs them)" if less else "") + ".")


#: A catalog row's field as :func:`value` writes it: a quantity, a nested row part, a mapping or list of
#: them, text, a number or a date.
CatalogValue = (BaseModel | Quantity | Mapping[str, "CatalogValue"] | Sequence["CatalogValue"] | str | float
                | dt.date | None)


def value(v: CatalogValue) -> str:
    """A catalog value as a person writes it: "800 Gbit/s", not ``<Quantity(800.0, ...)>``."""
    if isinstance(v, BaseModel):
        v = {name: getattr(v, name) for name in type(v).model_fields}
    if isinstance(v, Quantity):
        unit = f"{v.units:~C}".replace("flop", "FLOP")
        return f"{v.magnitude:,.6g} {unit}" if unit else f"{v.magnitude:,.6g}"
    if isinstance(v, dict):
        return ", ".join(f"{k} {value(x)}" for k, x in v.items() if x is not None)
    if isinstance(v, (list, tuple)):
        return "; ".join(value(x) for x in v) if v else "none"
    if v is None:
        return "-"
    return str(v)


def show_row(kind: str, row: BaseModel, origin: str) -> str:
    """Every field of one catalog row, one a line, after the file it came from."""
    singular = {"switches": "switch", "coherent": "coherent module", "dwdm": "DWDM part",
                "fibres": "fibre"}.get(kind, kind.removesuffix("s"))

    lines = [f"# A {singular} from {tt(origin)}."]
    lines += [f"{name}: {tt(value(getattr(row, name)))}" for name in type(row).model_fields]
    return "\n".join(lines)


def levels_go_table(results: Sequence[Sizing]) -> str:
    """The table exactly as the seed's levels.go prints it (for the reference test)."""
    lines = ["job                                  needs GPUs (mem)  (time)   smallest level"]
    lines += [f"{r.job:<36} {r.gpus_by_memory:>10} {r.gpus_by_time:>9}   {r.level_label}"
              for r in results]
    return "\n".join(lines)


def lookup_report(result: Lookup, twin_of: float | None = None) -> str:
    """The chosen link with what stands at each end and the cable or fibre between them, and the
    best option of every other medium, with why it lost. Parts are named by part number, as in the
    BOM and the cable plan. ``twin_of``: the rate asked for, carried as two links on twin-port ends."""
    c = result.choice
    j = c.to_json()

    def end(e: str) -> str:
        kind, cage, ports = j[f"end_{e}"], j[f"form_factor_{e}"], j[f"ports_per_module_{e}"]
        serves = "one link" if ports == 1 else f"{ports} links"
        if c.option.coherent is not None:
            return f"end {e}: coherent module {j['coherent']} ({cage})"
        if kind == "pluggable":
            return f"end {e}: module {j[f'module_{e}']} in cage {cage} (one module serves {serves})"
        if kind == "optical engine":
            return f"end {e}: optical engine on the switch package (no module; lasers counted per switch)"
        return f"end {e}: the cable's own head in cage {cage} (one head serves {serves})"

    parts = [end("a"), end("b"),
             f"cable {j['cable']}" if j["cable"] else None,
             f"fibre {j['fibre']} x{j['fibre_runs']} ({j['connector']}, {j['lit_strands']} lit strands)"
             if j["fibre"] else None,
             "dark fibre pair between the coherent modules" if j["coherent"] else None]

    twin = ([f"{twin_of:g} Gbit/s in one cage = two {c.option.rate_gbps:g} Gbit/s links on twin-port ends "
             "(each part below carries both; price and power are per link, twice per cage pair)"]
            if twin_of else [])
    lines = [*twin,
             f"{c.option.rate_gbps:g} Gbit/s over {metres(c.required_m)} -> {c.option.standard} "
             f"({c.medium}): {c.option.label}",
             *[f"  {p}" for p in parts if p],
             f"  {c.price_usd:,.2f} USD and {c.power_w:.2f} W per link ({j['pj_per_bit']:g} pJ/bit); "
             f"reach {metres(c.option.reach_max_m)} "
             f"(margin {metres(c.margin_m)})"
             + (f"; loss {c.loss_db:.2f} of {c.option.loss_budget_db:.2f} dB" if c.option.fibre else "")
             + (f"; amplified, {c.amplifiers} in-line amplifier sites" if c.amplified else "")]
    seen = {c.medium}
    runners = []
    for medium in LADDER:
        for r in result.runners_up:
            if r.option.medium == medium and medium not in seen:
                runners.append(f"  {medium:<15} {r.option.standard} {r.option.label}: {r.reason}.")
                seen.add(medium)
    if runners:
        lines += ["passed over:", *runners]
    return "\n".join(tt(line) for line in lines)   # each one line, whatever a part number holds


def build_summary(model: Model) -> str:
    """What was built: the cluster, each fabric's switches and links, and the three tiers."""
    c = model.cluster
    lines = [f"{model.scenario.name}: {c.gpus:,} GPUs on {model.platform.id} - {c.nodes:,} nodes, "
             f"{c.domains:,} scale-up domains of {model.platform.gpus_per_domain}, {model.racks:,} "
             f"{'rack' if model.racks == 1 else 'racks'}, "
             f"{c.site_count} {'site' if c.site_count == 1 else 'sites'}"]
    rnd = c.rounding()
    if rnd["extra"]:
        lines.append(f"  GPUs: {rnd['requested']:,} requested, {rnd['built']:,} built ({rnd['why']})")
    if model.placement is not None:
        counts = ", ".join(f"{n:,} {k}" for k, n in model.placement.counts().items() if n)
        lines.append(f"  racks: {counts}")
    if model.sizing is not None:
        z = model.sizing
        lines.append(f"  sized: {z.gpus_by_memory:,} GPUs by memory, {z.gpus_by_time:,} by time -> "
                     f"{z.gpus:,} ({z.level_label}, decided by {z.decided_by})")
        if z.parallelism is not None:
            p = z.parallelism
            if p.kind == "serve":
                lines.append(f"  split: {serving_degrees(p)}; {p.exposed_s * 1e6:,.1f} us of scale-up traffic a "
                             "decode step (bom size for the traffic per tier)")
            else:
                degrees = " x ".join(f"{k.upper()} {v}" for k, v in p.split.as_dict().items() if k != "ep" or v > 1)
                lines.append(f"  split: {degrees}; step {p.step_s:,.2f} s, {p.exposed_share:.0%} exposed communication"
                             + (f"; {p.dci_bytes_per_site / 1e9:,.0f} GB a site a step between sites"
                                if p.dci_bytes_per_site else "") + " (bom size for the traffic per tier)")
    totals = model.totals()
    rows: list[list[Cell]] = []
    for name, f in model.fabrics.items():
        t = totals.fabrics[name]
        hops = (HopKind.NODE_LEAF, HopKind.LEAF_SPINE, HopKind.SPINE_CORE)
        rows.append([name, f.switch_id, f.layers, f.planes,
                     "/".join(f"{t.switches[k]:,}" for k in SWITCH_LAYERS),
                     "/".join(f"{t.hop(h):,}" for h in hops)
                     + (f" + {t.hop(HopKind.LEAF_LEAF):,} ISL" if t.hop(HopKind.LEAF_LEAF) else ""),
                     f"{t.node_modules:,}/{t.switch_modules:,}", f"{t.copper_links:,}", f"{t.optical_links:,}"])
    lines.append(table(["fabric", "switch", "layers", "planes", "leaf/spine/core", "links by hop",
                        "modules node/switch", "copper", "optical"], rows,
                       [False, False, True, True, True, True, True, True, True]))
    up, out, across, su = totals.scale_up, totals.scale_out, totals.scale_across, model.scale_up
    copper = "all copper" if up.copper_links == up.links else f"{up.copper_links:,} copper"
    head = f"scale-up:     {_count(up.links, 'link')} in {_count(su.domains, 'domain')}"
    if up.optical_links:
        ocs = f"{su.ocs:,} optical circuit switch" + ("" if su.ocs == 1 else "es")
        lines.append(f"{head}: {up.copper_links:,} copper inside cubes, {up.optical_links:,} optical to {ocs} "
                     f"({_count(up.modules, 'module')}, {_count(up.fibre_runs, 'fibre run')})")
    elif su.kind == "switched":
        lines.append(f"{head} over {su.switch_chips:,} scale-up switch chips in {su.switch_trays:,} trays, "
                     f"{copper}, {_count(up.modules, 'module')}")
    else:
        lines.append(f"{head}, {copper}, {_count(up.modules, 'module')}")
    if su.inter_rack_links:
        lines.append(f"              + {su.inter_rack_links:,} switch-chip links between the domains' rack pairs "
                     f"in {_count(su.inter_rack_cables, 'cable')}")
    lines.append(f"scale-out:    {out.links:,} links, {out.modules:,} modules, {out.fibre_runs:,} "
                 f"fibre runs ({out.fibre_strands:,} lit strands), copper share "
                 f"{out.copper_share:.1%}")
    engines = sum(t.engine_ports() for t in totals.fabrics.values() if t.tier == Tier.SCALE_OUT)
    if engines:   # co-packaged optics: ports without modules, lasers bought per switch
        lines.append(f"              {engines:,} switch ports are co-packaged optical engines (no module; "
                     f"external laser modules are BOM lines)")
    if across.dci is not None:
        d = across.dci
        std = COHERENT_STANDARD.get(d.coherent.standard, d.coherent.standard)
        lines.append(f"scale-across: {across.wavelengths:,} wavelengths of {std} over "
                     f"{d.distance_km:g} km on {_count(d.pairs, 'cabled site pair')} "
                     f"({d.topology}), {_count(across.coherent_modules, 'coherent module')}, "
                     f"{_count(across.fibre_pairs, 'fibre pair')}, {_count(d.amplifiers, 'amplifier')} "
                     f"({_count(d.amplifier_sites, 'in-line amplifier hut')})" + _line_loss(d)
                     + ("" if d.attach == FabricRole.COMPUTE else
                        f"; client links on {d.border_leaves:,} border leaves of its own ({d.border.switch.id})"
                        if d.border is not None else f"; client links on the {d.attach} fabric's border leaves"))
    else:
        lines.append("scale-across: none (one site)")
    return "\n".join(lines)


def _line_loss(d: Dci) -> str:
    """The coherent line's unamplified loss against its module's budget, when the catalog has one."""
    loss = d.loss
    if loss is None or loss.budget_db is None:
        return ""
    return f"; line loss {loss.total_db:.1f} dB unamplified, budget {loss.budget_db:g} dB"


def _count(n: int, word: str) -> str:
    """ "1 fibre pair", "2 fibre pairs": the word agrees with its number."""
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def totals_line(report: Report) -> str:
    t = report.tco
    return (f"capex {t.capex_usd:,.0f} USD (network {t.network_capex_share:.1%}), IT power "
            f"{t.it_power_kw:,.0f} kW, facility {t.facility_power_kw:,.0f} kW, TCO {t.tco_usd:,.0f} USD "
            f"over {report.inputs['years'].value:g} years, {t.usd_per_gpu_hour:.3f} USD per GPU-hour levelised"
            + job_line(report) + in_service_line(report) + power_line(report))


def power_line(report: Report) -> str:
    """Each site's power against its building and the CDUs ("" for one site with no building power and no CDUs)."""
    power, cooling = report.power, report.cooling
    out = ""
    if power is not None and (len(power.sites) > 1 or power.sites[0].limit_kw is not None):
        out += "\n" + power.summary()
    if cooling is not None:
        water = sum(s.water_l_min for s in cooling.sites)
        out += (f"\ncooling: {cooling.cdus:,} CDUs ({cooling.cdu.id}, N+1 per site), {cooling.power_w / 1000:,.0f} kW "
                f"of pumps in the facility power, facility water {water:,.0f} L/min at {cooling.loop_dt_k:g} K")
    return out


def in_service_line(report: Report) -> str:
    """Each site's earliest in-service date (the first few sites), "" without a schedule."""
    sched = report.schedule
    if not sched:
        return ""

    def gate(s: object) -> str:
        g = getattr(s, "gate", None)
        return f"{terminal_text(g.sku)} last, {g.label}" if g is not None else "no lead time known"

    shown = "; ".join(f"site {s.site} {s.in_service} ({gate(s)} + {s.install_days} d install + {s.burn_in_days} d "
                      f"burn-in)" for s in sched[:4])
    more = f"; {len(sched) - 4} more sites in the workbook" if len(sched) > 4 else ""
    out = f"\nin service (ordered {report.order_date}): {shown}{more}"
    alt = report.alternates
    pref = alt.preferred if alt is not None else None
    if pref is not None:
        took = "; ".join(f"{terminal_text(t.part_number)} -> {terminal_text(t.labels[0])}" for t in pref.taken)
        out += (f"\nprefer-available took {took}: in service {pref.change.in_service_days:+d} d, TCO "
                f"{pref.change.tco_usd:+,.0f} USD, design rules {'pass' if pref.rules_ok else 'FAIL'}")
    elif alt is not None and any(a.shortens for a in alt.options):
        out += ("\nalternates that bring a date in are listed in the report (bom build --prefer-available takes "
                "those that move the in-service date)")
    return out


def job_line(report: Report) -> str:
    """The job's cost on a line of its own ("" without a training job)."""
    j = report.job
    if j is None:
        return ""
    late = ""
    if j.deadline_days and j.wall_days > j.deadline_days * (1 + 1e-9):
        # The sizing counts GPUs at the MFU alone; the split's bubble and exposed communication lengthen the step.
        late = (f"; past its {j.deadline_days:,.0f}-day deadline: the step is {j.step_factor:,.2f} x its compute "
                "at the MFU on every GPU built (bom size shows the split's bubble and exposed communication)")
    return (f"\njob {terminal_text(j.name)}: {j.gpu_hours:,.0f} GPU-hours, {j.wall_days:,.1f} days on {j.gpus:,} GPUs, "
            f"{j.energy_mwh:,.0f} MWh, {j.cost_usd:,.0f} USD at the cost per GPU-hour (levelised) "
            f"({j.marginal_cost_usd:,.0f} USD marginal: energy and support){late}")


def compare_table(result: Comparison) -> str:
    rows = []
    for g, m in zip(result.generations, result.rows(), strict=True):
        # "*": a whole-network or cost figure that misses a fabric this generation left out.
        star = {k: " *" if k in result.not_comparable(g) else "  " for k in m}
        rows.append([g.label, f"{m['gpus']:,.0f}", f"{m['gpus_per_domain']:.0f}",
                     f"{m['scale_out_links_per_gpu']:.2f}", f"{m['scale_up_copper_share']:.1%}",
                     f"{m['scale_out_copper_share']:.1%}", f"{m['cluster_copper_share']:.1%}",
                     f"{m['modules_per_gpu']:.2f}{star['modules_per_gpu']}",
                     f"{m['optics_power_w_per_gpu']:,.1f}{star['optics_power_w_per_gpu']}",
                     f"{m['network_capex_per_gpu']:,.0f}{star['network_capex_per_gpu']}",
                     f"{m['network_power_w_per_gpu']:,.0f}{star['network_power_w_per_gpu']}",
                     f"{m['usd_per_gpu_hour']:.3f}{star['usd_per_gpu_hour']}"])
    width = shutil.get_terminal_size().columns
    notes = [f"{g.label}: {g.note}" for g in result.generations if g.note]
    notes += [f"{pid}: not built: {why}" for pid, why in result.skipped.items()]
    notes = ["\n".join(textwrap.wrap(n, width, initial_indent="  ", subsequent_indent="    ")) for n in notes]
    scope = ("copper is the share of links on copper: scale-up (the NVLink or other scale-up tier), "
             "scale-out (the compute fabric) and all (every link of the cluster); compute links: the compute "
             "fabric's; pluggables, USD, W: every fabric and the DCI (storage, in-band and OOB links per GPU are "
             "in the JSON and the workbook).")
    if any(result.not_comparable(g) for g in result.generations):
        scope += (" *: not comparable with the other columns: this generation could not build every fabric "
                  "the others have (see its note), so its whole-network and cost figures leave that fabric out.")
    return "\n".join([table(["platform", "GPUs", "domain", "compute links/GPU", "copper scale-up",
                              "copper scale-out", "copper all", "pluggables/GPU", "optics W/GPU",
                              "network USD/GPU", "network W/GPU", "USD/GPU-h"], rows, [False] + [True] * 11),
                       "\n".join(textwrap.wrap(scope, width, initial_indent="  ", subsequent_indent="  "))]
                      + _job_table(result) + notes)


def _job_table(result: Comparison) -> list[str]:
    """The job each generation was sized for: its time and cost side by side (none without a job)."""
    pairs = [(g, m) for g, m in zip(result.generations, result.rows(), strict=True) if "job_cost_usd" in m]
    if not pairs:
        return []
    rows = [[g.label, f"{m['gpus']:,.0f}", f"{m['job_gpu_hours']:,.0f}", f"{m['job_wall_days']:,.1f}",
             f"{m['job_energy_mwh']:,.0f}", f"{m['job_cost_usd']:,.0f}", f"{m['job_marginal_cost_usd']:,.0f}"]
            for g, m in pairs]
    return ["", "the job on each generation:",
            table(["platform", "GPUs", "GPU-hours", "wall days", "MWh", "cost USD", "marginal USD"], rows,
                  [False] + [True] * 6)]


def checks_text(checks: Checks, name: str = "", show: int = 3) -> str:
    """``bom check``: each rule with violations (errors first), its count and its first ``show``
    violations (where, both ends, what to change); the rules that passed on one line; the summary."""
    read = "the closed form and the cable plan" if checks.plan else "the closed form"
    out = [f"Design rules for {tt(name)} ({read}):"]
    for r in checks.failed:
        out.append("")
        out.append(f"{r.id} [{r.severity}]: {r.violations:,} violation{'s' * (r.violations != 1)} "
                   f"({r.affected:,} {r.rule.unit}) - {r.rule.checks}")
        for v in r.kept[:show]:
            out.append(f"  {tt(v.where)}: {tt(v.message)}")
            for label, e in (("a", v.a), ("b", v.b)):
                if e is not None:
                    out.append(f"      {label}: {tt(e.text())}")
            out.append(f"      change: {tt(v.fix)}")
        if r.violations > show:
            out.append(f"  ... and {r.violations - show:,} more (bom check --json lists the first {r.keep})")
    passed = [r.id for r in checks.results if r.ok]
    if passed:
        out += ["", "Passed: " + ", ".join(passed) + "."]
    out += ["", checks.summary()]
    return "\n".join(out)


def phases_table(phases: Phases, whole: Tco | None = None) -> str:
    """The build-out: each phase's date, GPUs, capex and re-cabling under both growth policies, and
    each policy's totals (capex, re-cabling, TCO, cost per GPU-hour levelised and undiscounted), against
    the final build bought at once (``whole``) on both bases."""
    names = list(phases.policies)
    head = f"{'phase':<14} {'date':<10} {'GPUs':>8}" + "".join(
        f" {n + ' capex USD':>22} {n + ' re-cabled':>18}" for n in names)
    out = [f"Build-out in phases (scenario's growth: {phases.chosen.policy})", head]
    for k, p in enumerate(phases.chosen.phases):
        cells = "".join(f" {g.phases[k].capex_usd:>22,.0f} {g.phases[k].recabled_links:>18,}"
                        for g in phases.policies.values())
        out.append(f"{p.name:<14} {p.date.isoformat():<10} {p.gpus:>8,}" + cells)
    for n, g in phases.policies.items():
        out.append(f"{n}: capex {g.capex_usd:,.0f} USD (installation {g.installation_usd:,.0f} shared by the "
                   f"links each phase brings, re-cabling {g.recabling_usd:,.0f}, spares apart; discounted to the "
                   f"first phase {g.capex_pv_usd:,.0f}), TCO {g.tco_usd:,.0f} USD, "
                   f"{g.gpu_hours:,.0f} GPU-hours worked, {g.usd_per_gpu_hour:.3f} USD per GPU-hour levelised "
                   f"({g.undiscounted_usd_per_gpu_hour:.3f} undiscounted)")
    if whole is not None:
        out.append(f"all at once on the first phase's date: {whole.usd_per_gpu_hour:.3f} USD per GPU-hour levelised "
                   f"({whole.undiscounted_usd_per_gpu_hour:.3f} undiscounted)")
    out.append(f"basis: {GPU_HOUR_BASIS}")
    return "\n".join(out)
