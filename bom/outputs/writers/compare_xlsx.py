"""The comparison workbook: a sheet per generation with its BOM as an Excel table and its cost
figures as formulas over it, and a Comparison sheet whose every figure is a formula over those
sheets and the shared Inputs, labelled in words with units, with the change from the previous
generation in per cent (percentage points for shares)."""

from __future__ import annotations

import re

from openpyxl import Workbook
from openpyxl.chart import BarChart, Reference
from openpyxl.styles import Alignment, Font
from openpyxl.utils import get_column_letter

from bom.costing.categories import NOT_NETWORK, OPTICS, SWITCHES, Category
from bom.costing.compare import DTYPES, SCOPES, Comparison, Generation
from bom.outputs.writers.compare_labels import XLSX_FORMATS, kind, label
from bom.outputs.writers.xlsx import (
    COUNT,
    USD0,
    bom_table,
    crf,
    define_name,
    fx,
    header_row,
    inputs_sheet,
    paper_setup,
    put_cell,
    to_bytes,
)
from bom.roles import SUPPORT, TIERS, FabricRole, Tier

#: Facts of each generation written as values at the top of its sheet (rows 2..), column B.
FACTS = ("gpus", "gpus_per_domain", "domains", "racks", "links_install", "dark_fibre_km", "scale_out_gbps_per_gpu",
         "scale_up_links", "scale_up_copper", "scale_out_links", "scale_out_copper", "scale_across_links",
         "scale_across_copper", "network_links", "network_copper", "support_links", "modules", "fibre_runs",
         "lit_strands", "engine_ports", "nodes", "job_gpu_hours", "pflops_bf16", "pflops_fp8", "pflops_fp4",
         "interruptions_per_day", "goodput")
#: Cost figures of each generation as formulas over its BOM table and the Inputs (below the facts).
COSTS = ("hardware", "network", "it_w", "net_w", "capex_gpu", "capex_network", "capex_facility", "capex", "energy",
         "support", "opex", "annual_cost", "gpu_hours_per_year", "it_max_w", "cool_w", "owned")
BOM_TOP = len(FACTS) + len(COSTS) + 4
#: The Comparison sheet's first generation column: after Metric, Key and Scope.
FIRST_GEN_COL = 4


def _facts(g: Generation) -> dict[str, float]:
    m = g.report.model
    t = g.report.totals
    out: dict[str, float] = {"gpus": m.cluster.gpus, "gpus_per_domain": g.platform.gpus_per_domain,
                             "domains": m.cluster.domains, "racks": m.racks, "links_install": g.report.links,
                             "dark_fibre_km": g.report.dark_fibre_km,
                             "scale_out_gbps_per_gpu": g.metrics()["scale_out_gbps_per_gpu"]}
    # Scale-out per-tier figures are the compute fabric's; the network figures every fabric's (SCOPES).
    compute, network = t.fabrics[FabricRole.COMPUTE], t.network
    for tier, totals in ((Tier.SCALE_UP, t.scale_up), (Tier.SCALE_OUT, compute),
                         (Tier.SCALE_ACROSS, t.scale_across)):
        key = tier.replace("-", "_")
        out[f"{key}_links"] = totals.links
        out[f"{key}_copper"] = totals.copper_links
    out["network_links"] = network.links
    out["network_copper"] = network.copper_links
    out["support_links"] = t.fabric_links(SUPPORT)
    out["modules"] = network.modules + t.scale_up.modules
    out["fibre_runs"] = network.fibre_runs
    out["lit_strands"] = network.fibre_strands
    out["engine_ports"] = round(g.metrics()["engine_ports_per_gpu"] * m.cluster.gpus)
    out["nodes"] = m.cluster.nodes
    out["job_gpu_hours"] = g.report.job.gpu_hours if g.report.job is not None else 0.0
    out["interruptions_per_day"] = g.metrics()["interruptions_per_day"]   # bom/faults' (no formula: its model)
    out["goodput"] = g.metrics()["goodput"]
    for d in DTYPES:   # dense PFLOP/s per GPU at each dtype (0: the GPU has none)
        out[f"pflops_{d}"] = g.platform.flops_per_gpu(d) / 1e15 if getattr(g.platform, f"{d}_dense") else 0.0
    return out


#: Sheet names Excel refuses or that this workbook uses itself.
RESERVED = ("comparison", "inputs", "history")


def sheet_names(ids: list[str]) -> list[str]:
    """One valid, unique sheet name per platform id, derived once: at most 31 characters, none of
    ``[]:*?/\\``, no leading or trailing apostrophe, unique ignoring case (Excel's rules).

    >>> sheet_names(["a" * 40, "a" * 40 + "b", "inputs"])
    ['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaa~2', 'inputs~2']
    """
    out: list[str] = []
    taken = set(RESERVED)
    for pid in ids:
        base = re.sub(r"[\[\]:*?/\\\x00-\x1f]", "_", pid).strip("'") or "platform"
        name, n = base[:31], 1
        while name.lower() in taken:
            n += 1
            name = f"{base[:31 - len(str(n)) - 1]}~{n}"
        taken.add(name.lower())
        out.append(name)
    return out


def _cost_formulas(table: str, fact: dict[str, str]) -> dict[str, str]:
    """The generation's TCO, the same model as the main workbook's TCO sheet (bom/costing/tco.py)."""
    usd, cat = f"{table}[Extended price]", f"{table}[Category]"
    cls = f"{table}[Asset class]"
    c = {k: f"$B${len(FACTS) + 2 + i}" for i, k in enumerate(COSTS)}
    it_kw = f"{c['it_w']}/1000"          # typical: the energy cost
    peak_kw = f"{c['it_max_w']}/1000"    # maximum: space per kW (the capacity a contract reserves)
    cool_kw = f"{c['cool_w']}/1000"      # the CDUs' pumps: facility power on top of IT x PUE
    power, power_max = f"{table}[Extended power]", f"{table}[Extended power max]"
    cdu = f'SUMIFS({{}},{cat},"{Category.COOLING}")'
    built = 'in_facility="build"'
    return {
        "hardware": f"SUM({usd})",
        "network": f"SUM({usd})" + "".join(f'-SUMIFS({usd},{cat},"{k}")' for k in NOT_NETWORK),
        "it_w": f"SUM({power})-" + cdu.format(power),
        "net_w": f"SUM({power})" + "".join(f'-SUMIFS({power},{cat},"{k}")' for k in NOT_NETWORK),
        "capex_gpu": f'SUMIFS({usd},{cls},"gpu")',
        "capex_network": f'SUMIFS({usd},{cls},"network")+{fact["links_install"]}*in_install_link',
        "capex_facility": f'SUMIFS({usd},{cls},"facility")+{fact["racks"]}*in_install_rack',
        "capex": f"{c['capex_gpu']}+{c['capex_network']}+{c['capex_facility']}+IF({built},{c['owned']},0)",
        "energy": f"({it_kw}*in_pue+{cool_kw})*in_hours*in_electricity",
        "support": (f"{c['capex_gpu']}*in_support_gpu+{c['capex_network']}*in_support_network"
                    f"+{c['capex_facility']}*in_support_facility"),
        "opex": (f"{c['energy']}+{c['support']}+{fact['dark_fibre_km']}*in_dark_fibre"
                 f'+IF({built},0,IF(in_space_basis="kW",{peak_kw}*in_colocation*12,{fact["racks"]}*in_space))'
                 f"+in_staff_fte*in_staff_cost+{fact['gpus']}*in_licence_gpu+{fact['nodes']}*in_licence_node"
                 f"+{c['capex']}*(in_insurance+in_property_tax)"),
        "annual_cost": (f"{c['capex_gpu']}*{crf('in_discount_rate', 'in_life_gpu')}"
                        f"+{c['capex_network']}*{crf('in_discount_rate', 'in_life_network')}"
                        f"+{c['capex_facility']}*{crf('in_discount_rate', 'in_life_facility')}"
                        f"+IF({built},{c['owned']}*{crf('in_discount_rate', 'in_life_building')},0)+{c['opex']}"),
        "gpu_hours_per_year": f"{fact['gpus']}*in_hours*in_utilisation*(1-in_ramp_months/(24*in_years))",
        "it_max_w": f"SUM({power_max})-" + cdu.format(power_max),
        "cool_w": cdu.format(power_max),
        # The building (construction per MW of critical IT, and the grid connection per MW of facility power).
        "owned": f"{peak_kw}/1000*in_build_capex+({peak_kw}*in_pue+{cool_kw})/1000*in_grid_connection",
    }


def _generation_sheet(wb: Workbook, g: Generation, title: str, i: int) -> tuple[str, str]:
    table = f"BOM_{i}"
    ws = wb.create_sheet(title)
    put_cell(ws, 1, 1, "Figure")
    put_cell(ws, 1, 2, "Value")
    for c in (1, 2):
        ws.cell(1, c).font = Font(bold=True)
    fact = {name: f"$B${n}" for n, name in enumerate(FACTS, start=2)}
    values = _facts(g)
    for n, name in enumerate(FACTS, start=2):   # in FACTS' order: the formulas point at these rows
        value = values[name]
        put_cell(ws, n, 1, name)
        put_cell(ws, n, 2, value, COUNT if float(value).is_integer() else "0.000")
    for n, (name, formula) in enumerate(_cost_formulas(table, fact).items(), start=len(FACTS) + 2):
        put_cell(ws, n, 1, name)
        put_cell(ws, n, 2, fx(formula), COUNT if name == "gpu_hours_per_year" else
                 USD0 if not name.endswith("_w") else '#,##0 "W"')
    bom_table(ws, g.report.lines, BOM_TOP, table=table, flags={o.sku: o.flags for o in g.report.order})
    ws.column_dimensions["A"].width = 26
    ws.freeze_panes = None
    return title, table


def _metric_formulas(sheet: str, table: str) -> dict[str, str]:
    """Each comparison metric as a formula over one generation's sheet and the Inputs."""
    q = "'" + sheet.replace("'", "''") + "'"
    fact = {name: f"{q}!$B${n}" for n, name in enumerate(FACTS, start=2)}
    cost = {name: f"{q}!$B${n}" for n, name in enumerate(COSTS, start=len(FACTS) + 2)}
    usd, cat, tier, qty = (f"{table}[{c}]" for c in ("Extended price", "Category", "Tier", "Qty"))
    gpus = fact["gpus"]
    hardware, network, it_w, net_w = cost["hardware"], cost["network"], cost["it_w"], cost["net_w"]
    out = {"gpus": gpus, "gpus_per_domain": fact["gpus_per_domain"], "domains": fact["domains"]}
    for t in TIERS:
        key = t.replace("-", "_")
        links, copper = fact[f"{key}_links"], fact[f"{key}_copper"]
        fab = "" if t != Tier.SCALE_OUT else f',{table}[Fabric],"{FabricRole.COMPUTE}"'
        not_net = "".join(f'-SUMIFS({usd},{tier},"{t}",{cat},"{c}"{fab})' for c in NOT_NETWORK)
        net_tier = f'(SUMIFS({usd},{tier},"{t}"{fab}){not_net})'
        out[f"{key}_links_per_gpu"] = f"{links}/{gpus}"
        out[f"{key}_copper_share"] = f"IF({links}=0,0,{copper}/{links})"
        copper_usd = f'SUMIFS({usd},{tier},"{t}",{cat},"{Category.COPPER_CABLE}"{fab})'
        out[f"{key}_copper_cost_share"] = f"IF({net_tier}=0,0,{copper_usd}/{net_tier})"
    links, copper = fact["network_links"], fact["network_copper"]
    out["network_copper_share"] = f"IF({links}=0,0,{copper}/{links})"
    up_links, up_copper = fact["scale_up_links"], fact["scale_up_copper"]
    out["cluster_copper_share"] = f"IF({links}+{up_links}=0,0,({copper}+{up_copper})/({links}+{up_links}))"
    out["support_links_per_gpu"] = f"{fact['support_links']}/{gpus}"
    out["modules_per_gpu"] = f"{fact['modules']}/{gpus}"
    out["fibre_runs_per_gpu"] = f"{fact['fibre_runs']}/{gpus}"
    out["lit_strands_per_gpu"] = f"{fact['lit_strands']}/{gpus}"
    # Installed switches only: the spares on the shelf are not part of the fabric.
    out["switches_per_gpu"] = ("(" + "+".join(f'SUMIFS({qty},{cat},"{c}",{table}[Fabric],"<>spares")' for c in SWITCHES)
                               + f")/{gpus}")
    out["support_switches_per_gpu"] = ("(" + "+".join(f'SUMIFS({qty},{cat},"{Category.SWITCH}",{table}[Fabric],"{k}")'
                                                       for k in SUPPORT) + f")/{gpus}")
    out["scale_out_gbps_per_gpu"] = fact["scale_out_gbps_per_gpu"]
    out["engine_ports_per_gpu"] = f"{fact['engine_ports']}/{gpus}"
    installed = f'{table}[Fabric],"<>spares"'
    out["laser_sources_per_gpu"] = f'SUMIFS({qty},{cat},"{Category.LASER_SOURCE}",{installed})/{gpus}'
    out["optics_power_w_per_gpu"] = ("(" + "+".join(f'SUMIFS({table}[Extended power],{cat},"{c}",{installed})'
                                                    for c in OPTICS) + f")/{gpus}")
    out["network_capex_per_gpu"] = f"({network})/{gpus}"
    out["network_power_w_per_gpu"] = f"({net_w})/{gpus}"
    out["network_capex_share"] = f"IF({hardware}=0,0,{network}/{hardware})"
    out["network_power_share"] = f"IF({it_w}=0,0,{net_w}/{it_w})"
    out["capex_per_gpu"] = f"{cost['capex']}/{gpus}"
    out["tco_usd"] = f"{cost['capex']}+in_years*{cost['opex']}"
    out["usd_per_gpu_hour"] = f"{cost['annual_cost']}/{cost['gpu_hours_per_year']}"
    out["interruptions_per_day"] = fact["interruptions_per_day"]
    out["goodput"] = fact["goodput"]
    out["usd_per_useful_gpu_hour"] = f"IF({fact['goodput']}=0,0,{out['usd_per_gpu_hour']}/{fact['goodput']})"
    job = fact["job_gpu_hours"]   # the job's metrics, when the comparison sizes each generation from one
    out["job_gpu_hours"] = job
    for d in DTYPES:
        pf = fact[f"pflops_{d}"]
        out[f"usd_per_pflop_hour_{d}"] = f"IF({pf}=0,0,{out['usd_per_gpu_hour']}/{pf})"
    out["job_wall_days"] = f"{job}/{gpus}/24"
    out["job_energy_mwh"] = f"({cost['it_w']}/1000*in_pue+{cost['cool_w']}/1000)*{job}/{gpus}/1000"
    out["job_cost_usd"] = f"{job}*{out['usd_per_gpu_hour']}"
    out["job_marginal_cost_usd"] = f"{job}*({cost['energy']}+{cost['support']})/{cost['gpu_hours_per_year']}"
    return out


def _col(n: int) -> str:
    return get_column_letter(n)


def workbook(c: Comparison) -> Workbook:
    wb = Workbook()
    ws = wb.active
    ws.title = "Comparison"
    inputs_sheet(wb, list(c.generations[0].report.inputs.values()))
    names = sheet_names([g.label for g in c.generations])
    sheets = [_generation_sheet(wb, g, name, i)
              for i, (g, name) in enumerate(zip(c.generations, names, strict=True), start=1)]
    metrics = list(c.rows()[0])
    n_gen = len(sheets)
    # Scope: what each figure is about (the compute fabric, the whole network, the cluster: SCOPES).
    header_row(ws, ["Metric", "Key", "Scope"] + [g.label for g in c.generations], [44, 10, 16] + [18] * n_gen)
    first = FIRST_GEN_COL
    for i, metric in enumerate(metrics, start=2):
        put_cell(ws, i, 1, label(metric))
        put_cell(ws, i, 2, metric)
        put_cell(ws, i, 3, str(SCOPES[metric]))
        for j, (sheet, table) in enumerate(sheets, start=first):
            put_cell(ws, i, j, fx(_metric_formulas(sheet, table)[metric]), XLSX_FORMATS[kind(metric)])
        define_name(wb, f"cmp_{metric}", f"Comparison!${_col(first)}${i}:${_col(n_gen + first - 1)}${i}")
    delta_top = len(metrics) + 3
    put_cell(ws, delta_top, 1, "Change against the previous generation (per cent; percentage points for shares)")
    ws.cell(delta_top, 1).font = Font(bold=True)
    for i, metric in enumerate(metrics, start=delta_top + 1):
        put_cell(ws, i, 1, label(metric))
        put_cell(ws, i, 2, metric)
        put_cell(ws, i, 3, str(SCOPES[metric]))
        row = metrics.index(metric) + 2
        for j in range(first + 1, n_gen + first):
            cur, prev = f"{_col(j)}{row}", f"{_col(j - 1)}{row}"
            if kind(metric) == "share":
                put_cell(ws, i, j, fx(f"({cur}-{prev})*100"), '+0.0" pp";-0.0" pp"')
            else:
                put_cell(ws, i, j, fx(f'IF({prev}=0,"",{cur}/{prev}-1)'), "+0.0%;-0.0%")
    notes = [(g.label, n) for g, n in zip(c.generations, c.kind_notes(), strict=True) if n]
    notes += [(g.label, g.note) for g in c.generations if g.note]
    row = delta_top + len(metrics) + 2
    for pid, note in notes:
        put_cell(ws, row, 1, f"{pid}: {note}")
        ws.cell(row, 1).alignment = Alignment(wrap_text=False)
        row += 1
    for k, (title, metric) in enumerate((("Scale-out copper share (links)", "scale_out_copper_share"),
                                         ("Pluggable optical modules per GPU", "modules_per_gpu"),
                                         ("Optics power per GPU (W)", "optics_power_w_per_gpu"),
                                         ("Network capex per GPU (USD)", "network_capex_per_gpu"))):
        r = metrics.index(metric) + 2
        chart = BarChart()
        chart.title, chart.legend, chart.width, chart.height = title, None, 16, 8
        chart.add_data(Reference(ws, min_col=first, max_col=n_gen + first - 1, min_row=r), from_rows=True)
        chart.set_categories(Reference(ws, min_col=first, max_col=n_gen + first - 1, min_row=1))
        ws.add_chart(chart, f"{_col(n_gen + first + 1)}{2 + 18 * k}")
    for sheet in wb.worksheets:
        paper_setup(sheet, f"{c.name} comparison")
    return wb


def write_compare_xlsx(c: Comparison) -> bytes:
    first = c.generations[0].report
    return to_bytes(workbook(c), f"{c.name}: platform generations compared", first.document_date,
                    "AI cluster generations compared: network, cost and power per GPU")


__all__ = ["write_compare_xlsx"]
