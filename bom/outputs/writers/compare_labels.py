"""How each comparison metric is named and printed for people: words with units, number formats."""

from __future__ import annotations

#: metric -> (label in words with its unit, kind). Kinds: usd, usd4, count, ratio, share, watt, gbps, days, mwh.
METRICS: dict[str, tuple[str, str]] = {
    "gpus": ("GPUs built", "count"),
    "gpus_per_domain": ("GPUs per scale-up domain", "count"),
    "domains": ("Scale-up domains", "count"),
    "scale_up_links_per_gpu": ("Scale-up links per GPU", "ratio"),
    "scale_up_copper_share": ("Scale-up copper share (of links)", "share"),
    "scale_up_copper_cost_share": ("Scale-up copper share (of network cost)", "share"),
    "scale_out_links_per_gpu": ("Scale-out links per GPU", "ratio"),
    "scale_out_copper_share": ("Scale-out copper share (of links)", "share"),
    "scale_out_copper_cost_share": ("Scale-out copper share (of network cost)", "share"),
    "scale_across_links_per_gpu": ("Scale-across links per GPU", "ratio"),
    "scale_across_copper_share": ("Scale-across copper share (of links)", "share"),
    "scale_across_copper_cost_share": ("Scale-across copper share (of network cost)", "share"),
    "network_copper_share": ("Copper share of scale-out and scale-across links", "share"),
    "cluster_copper_share": ("Copper share of all links (scale-up, scale-out, scale-across)", "share"),
    "interruptions_per_day": ("Job interruptions a day (published failure rates, bom faults)", "ratio"),
    "goodput": ("Goodput under interruptions (Young's checkpoint interval)", "share"),
    "usd_per_useful_gpu_hour": ("Cost per useful GPU-hour (USD, levelised, over the goodput)", "usd4"),
    "support_links_per_gpu": ("Storage, in-band and out-of-band links per GPU", "ratio"),
    "modules_per_gpu": ("Pluggable optical modules per GPU", "ratio"),
    "engine_ports_per_gpu": ("Co-packaged optical-engine ports per GPU", "ratio"),
    "laser_sources_per_gpu": ("External laser modules (CPO) per GPU", "ratio"),
    "optics_power_w_per_gpu": ("Optics power per GPU (pluggables, AOCs, CPO lasers; W)", "watt"),
    "fibre_runs_per_gpu": ("Fibre runs per GPU", "ratio"),
    "lit_strands_per_gpu": ("Lit fibre strands per GPU", "ratio"),
    "switches_per_gpu": ("Switches per GPU", "ratio"),
    "support_switches_per_gpu": ("Storage, in-band and out-of-band switches per GPU", "ratio"),
    "scale_out_gbps_per_gpu": ("Scale-out bandwidth per GPU (Gbit/s)", "gbps"),
    "network_capex_per_gpu": ("Network capex per GPU (USD)", "usd"),
    "network_power_w_per_gpu": ("Network power per GPU (W)", "watt"),
    "network_capex_share": ("Network share of hardware capex", "share"),
    "network_power_share": ("Network share of IT power", "share"),
    "capex_per_gpu": ("Capex per GPU (USD)", "usd"),
    "tco_usd": ("TCO over the period (USD)", "usd"),
    "usd_per_gpu_hour": ("Cost per GPU-hour (USD, levelised)", "usd4"),
    "usd_per_pflop_hour_bf16": ("Cost per dense BF16 PFLOP/s-hour (USD, levelised)", "usd4"),
    "usd_per_pflop_hour_fp8": ("Cost per dense FP8 PFLOP/s-hour (USD, levelised)", "usd4"),
    "usd_per_pflop_hour_fp4": ("Cost per dense FP4 PFLOP/s-hour (USD, levelised)", "usd4"),
    "job_gpu_hours": ("Job: GPU-hours", "count"),
    "job_wall_days": ("Job: wall time (days)", "days"),
    "job_energy_mwh": ("Job: facility energy (MWh)", "mwh"),
    "job_cost_usd": ("Job: cost at the cost per GPU-hour (USD, levelised)", "usd"),
    "job_marginal_cost_usd": ("Job: cost at the marginal rate, energy and support (USD)", "usd"),
}

#: Excel number formats per kind (never scientific).
XLSX_FORMATS = {"usd": '#,##0 "USD"', "usd4": '0.0000 "USD"', "count": "#,##0", "ratio": "#,##0.000",
                "share": "0.0%", "watt": '#,##0.0 "W"', "gbps": '#,##0 "Gbit/s"', "days": '#,##0.0 "d"',
                "mwh": '#,##0.0 "MWh"'}


def label(metric: str) -> str:
    return METRICS.get(metric, (metric.replace("_", " "), "ratio"))[0]


def kind(metric: str) -> str:
    return METRICS.get(metric, ("", "share" if "share" in metric else "ratio"))[1]


def fmt(metric: str, value: float) -> str:
    """A value as people read it: 1,234 USD, 12.3 %, 0.125 (never 1.2e+03).

    >>> fmt("tco_usd", 123456789.4), fmt("scale_out_copper_share", 0.269), fmt("modules_per_gpu", 2.875)
    ('123,456,789 USD', '26.9 %', '2.875')
    """
    k = kind(metric)
    if k == "usd":
        return f"{value:,.0f} USD"
    if k == "usd4":
        return f"{value:,.4f} USD"
    if k == "share":
        return f"{value * 100:.1f} %"
    if k == "count":
        return f"{value:,.0f}"
    if k == "watt":
        return f"{value:,.1f} W"
    if k == "gbps":
        return f"{value:,.0f} Gbit/s"
    if k == "days":
        return f"{value:,.1f} d"
    if k == "mwh":
        return f"{value:,.1f} MWh"
    return f"{value:,.3f}"


def change(metric: str, cur: float, prev: float) -> str:
    """The change against the previous generation: percentage points for shares, else per cent.

    >>> change("modules_per_gpu", 3.0, 2.0), change("scale_out_copper_share", 0.1, 0.25), change("x", 1, 0)
    ('+50.0 %', '-15.0 pp', 'new')
    """
    if kind(metric) == "share":
        return f"{(cur - prev) * 100:+.1f} pp"
    if prev == 0:
        return "new" if cur else "0.0 %"
    return f"{(cur / prev - 1) * 100:+.1f} %"
