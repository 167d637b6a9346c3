"""The comparison workbook: a sheet per generation with its full BOM, and a Comparison sheet
whose every figure is a formula over those sheets and the shared Inputs."""

from __future__ import annotations

from openpyxl import Workbook
from openpyxl.chart import BarChart, Reference
from openpyxl.styles import Font

from bom.compare import SCOPES, SUPPORT, Comparison, Generation
from bom.lines import FACILITY
from bom.writers.xlsx import COUNT, SHARE, USD0, _f, _header, _name, _put, bom_table, inputs_sheet, to_bytes

TIERS = ("scale-up", "scale-out", "scale-across")
#: Facts of each generation written as values at the top of its sheet (rows 2..), column B.
FACTS = ("gpus", "gpus_per_domain", "domains", "racks", "links_install", "dark_fibre_km", "scale_out_gbps_per_gpu",
         "scale_up_links", "scale_up_copper", "scale_out_links", "scale_out_copper", "scale_across_links",
         "scale_across_copper", "network_links", "network_copper", "support_links", "modules", "fibre_runs",
         "lit_strands")
BOM_TOP = len(FACTS) + 4


def _facts(g: Generation) -> dict[str, float]:
    m = g.report.model
    t = m.tiers()
    out: dict[str, float] = {"gpus": m.cluster.gpus, "gpus_per_domain": g.platform.gpus_per_domain,
                             "domains": m.cluster.domains, "racks": m.racks, "links_install": g.report.links,
                             "dark_fibre_km": g.report.dark_fibre_km,
                             "scale_out_gbps_per_gpu": g.metrics()["scale_out_gbps_per_gpu"]}
    for tier in TIERS:
        key = tier.replace("-", "_")
        out[f"{key}_links"] = int(t[tier]["links"])
        out[f"{key}_copper"] = int(t[tier].get("copper_links", 0) or 0)
    so, sa = t["scale-out"], t["scale-across"]
    # Scale-out facts are the compute fabric's; the whole network's links and copper stand apart.
    out["network_links"] = out["scale_out_links"] + out["scale_across_links"]
    out["network_copper"] = out["scale_out_copper"] + out["scale_across_copper"]
    compute = m.fabrics["compute"].groups
    out["scale_out_links"] = sum(x.links for x in compute)
    out["scale_out_copper"] = sum(x.links for x in compute if x.copper)
    out["support_links"] = sum(x.links for k, f in m.fabrics.items() if k in SUPPORT for x in f.groups)
    out["modules"] = int(so["modules"]) + int(sa["modules"])
    out["fibre_runs"] = int(so["fibre_runs"]) + int(sa.get("fibre_runs", 0) or 0)
    out["lit_strands"] = int(so["fibre_strands"]) + int(sa.get("fibre_strands", 0) or 0)
    return out


def _generation_sheet(wb: Workbook, g: Generation) -> tuple[str, int]:
    title = g.platform.id[:31]
    ws = wb.create_sheet(title)
    _header(ws, ["Figure", "Value"] + [""] * 16, [26, 16] + [12] * 16)
    for n, (name, value) in enumerate(_facts(g).items(), start=2):
        _put(ws, n, 1, name)
        _put(ws, n, 2, value, COUNT if float(value).is_integer() else "0.000")
    last = bom_table(ws, g.report.lines, BOM_TOP)
    ws.freeze_panes = None
    return title, last


def _metric_formulas(sheet: str, last: int) -> dict[str, str]:
    """Each comparison metric as a formula over one generation's sheet and the Inputs."""
    q = f"'{sheet}'"
    fact = {name: f"{q}!$B${n}" for n, name in enumerate(FACTS, start=2)}
    rng = {c: f"{q}!${c}${BOM_TOP + 1}:${c}${last}" for c in "BCEJMO"}
    gpus = fact["gpus"]
    usd, watt, cat, tier = rng["M"], rng["O"], rng["E"], rng["B"]
    hardware = f"SUM({usd})"
    not_net = ("compute", *FACILITY)
    network = f"({hardware}" + "".join(f'-SUMIFS({usd},{cat},"{c}")' for c in not_net) + ")"
    it_w = f"SUM({watt})"
    net_w = f"({it_w}" + "".join(f'-SUMIFS({watt},{cat},"{c}")' for c in not_net) + ")"
    capex = f"({hardware}+{fact['links_install']}*in_install_link+{fact['racks']}*in_install_rack)"
    opex = (f"({it_w}/1000*in_pue*in_hours*in_electricity+{capex}*in_support+{fact['dark_fibre_km']}*in_dark_fibre"
            f"+{fact['racks']}*in_space)")
    tco = f"({capex}+in_years*{opex})"
    out = {"gpus": gpus, "gpus_per_domain": fact["gpus_per_domain"], "domains": fact["domains"]}
    fab = rng["C"]
    for t in TIERS:
        key = t.replace("-", "_")
        links, copper = fact[f"{key}_links"], fact[f"{key}_copper"]
        # Scale-out: the compute fabric's lines only (as the metric's scope says).
        only = f',{fab},"compute"' if t == "scale-out" else ""
        net_tier = f'(SUMIFS({usd},{tier},"{t}"{only})-SUMIFS({usd},{tier},"{t}",{cat},"compute"{only}))'
        out[f"{key}_links_per_gpu"] = f"{links}/{gpus}"
        out[f"{key}_copper_share"] = f"IF({links}=0,0,{copper}/{links})"
        out[f"{key}_copper_cost_share"] = (f'IF({net_tier}=0,0,SUMIFS({usd},{tier},"{t}",{cat},"copper cable"{only})'
                                           f"/{net_tier})")
    out["network_copper_share"] = f"IF({fact['network_links']}=0,0,{fact['network_copper']}/{fact['network_links']})"
    out["support_links_per_gpu"] = f"{fact['support_links']}/{gpus}"
    out["modules_per_gpu"] = f"{fact['modules']}/{gpus}"
    out["fibre_runs_per_gpu"] = f"{fact['fibre_runs']}/{gpus}"
    out["lit_strands_per_gpu"] = f"{fact['lit_strands']}/{gpus}"
    out["switches_per_gpu"] = (f'(SUMIFS({rng["J"]},{cat},"switch")+SUMIFS({rng["J"]},{cat},"DCI switch"))/{gpus}')
    out["support_switches_per_gpu"] = ("(" + "+".join(f'SUMIFS({rng["J"]},{cat},"switch",{fab},"{k}")'
                                                       for k in SUPPORT) + f")/{gpus}")
    out["scale_out_gbps_per_gpu"] = fact["scale_out_gbps_per_gpu"]
    out["network_capex_per_gpu"] = f"{network}/{gpus}"
    out["network_power_w_per_gpu"] = f"{net_w}/{gpus}"
    out["network_capex_share"] = f"IF({hardware}=0,0,{network}/{hardware})"
    out["network_power_share"] = f"IF({it_w}=0,0,{net_w}/{it_w})"
    out["capex_per_gpu"] = f"{capex}/{gpus}"
    out["tco_usd"] = tco
    out["usd_per_gpu_hour"] = f"{tco}/({gpus}*in_years*in_hours*in_utilisation)"
    return out


FORMATS = {"network_capex_per_gpu": USD0, "capex_per_gpu": USD0, "tco_usd": USD0, "usd_per_gpu_hour": '0.0000 "USD"',
           "network_power_w_per_gpu": '#,##0.0 "W"'}


def _format(metric: str) -> str:
    if metric in FORMATS:
        return FORMATS[metric]
    if "share" in metric:
        return SHARE
    return "0.000" if "per_gpu" in metric else COUNT


def workbook(c: Comparison) -> Workbook:
    wb = Workbook()
    ws = wb.active
    ws.title = "Comparison"
    inputs_sheet(wb, list(c.generations[0].report.inputs.values()))
    sheets = [_generation_sheet(wb, g) for g in c.generations]
    metrics = list(c.rows()[0])
    _header(ws, ["Metric"] + [g.platform.id for g in c.generations] + ["Scope"],
            [30] + [16] * len(c.generations) + [28])
    for i, metric in enumerate(metrics, start=2):
        _put(ws, i, 1, metric)
        _put(ws, i, len(c.generations) + 2, SCOPES[metric])
        for j, (sheet, last) in enumerate(sheets, start=2):
            _put(ws, i, j, _f(_metric_formulas(sheet, last)[metric]), _format(metric))
        _name(wb, f"cmp_{metric}", f"Comparison!$B${i}:${chr(64 + len(sheets) + 1)}${i}")
    delta_top = len(metrics) + 3
    _put(ws, delta_top, 1, "Change against the previous generation")
    ws.cell(delta_top, 1).font = Font(bold=True)
    for i, metric in enumerate(metrics, start=delta_top + 1):
        _put(ws, i, 1, metric)
        for j in range(3, len(sheets) + 2):
            col, prev = chr(64 + j), chr(63 + j)
            _put(ws, i, j, _f(f"{col}{metrics.index(metric) + 2}-{prev}{metrics.index(metric) + 2}"), _format(metric))
    for k, (title, metric) in enumerate((("Scale-out copper share (links)", "scale_out_copper_share"),
                                         ("Optical modules per GPU", "modules_per_gpu"))):
        row = metrics.index(metric) + 2
        chart = BarChart()
        chart.title, chart.legend, chart.width, chart.height = title, None, 16, 8
        chart.add_data(Reference(ws, min_col=2, max_col=len(sheets) + 1, min_row=row), from_rows=True)
        chart.set_categories(Reference(ws, min_col=2, max_col=len(sheets) + 1, min_row=1))
        ws.add_chart(chart, f"{chr(66 + len(sheets) + 1)}{2 + 18 * k}")
    return wb


def write_compare_xlsx(c: Comparison) -> bytes:
    return to_bytes(workbook(c), f"{c.name} comparison")


__all__ = ["write_compare_xlsx"]
