"""Plain-text tables for the terminal (no rich: the commands must start fast)."""

from __future__ import annotations

from collections.abc import Sequence

from bom.sizing import Sizing


def table(headers: Sequence[str], rows: Sequence[Sequence[object]],
          right: Sequence[bool] | None = None) -> str:
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    right = right or [False] * len(headers)
    out = []
    for n, r in enumerate(cells):
        line = "  ".join(c.rjust(w) if right[i] else c.ljust(w)
                         for i, (c, w) in enumerate(zip(r, widths, strict=True)))
        out.append(line.rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def _kw(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}"


def sizing_table(results: Sequence[Sizing]) -> str:
    headers = ["job", "GPUs (mem)", "(time)", "needs", "smallest level", "decided by",
               "IT kW", "facility kW", "fits one domain"]
    rows = [[r.job, r.gpus_by_memory, r.gpus_by_time, f"{r.gpus:,}", r.level_label, r.decided_by,
             _kw(r.it_power_kw), _kw(r.facility_power_kw),
             f"{'yes' if r.fits_in_domain else 'no'} ({r.domain_gpus})"] for r in results]
    return table(headers, rows, [False, True, True, True, False, False, True, True, False])


def levels_go_table(results: Sequence[Sizing]) -> str:
    """The table exactly as the seed's levels.go prints it (for the reference test)."""
    lines = ["job                                  needs GPUs (mem)  (time)   smallest level"]
    lines += [f"{r.job:<36} {r.gpus_by_memory:>10} {r.gpus_by_time:>9}   {r.level_label}"
              for r in results]
    return "\n".join(lines)


def lookup_report(result: object) -> str:
    """The chosen link and the best option of every other medium, with why it lost."""
    from bom.media import LADDER, Lookup

    assert isinstance(result, Lookup)
    c = result.choice
    j = c.to_json()
    optical = c.option.coherent is None
    parts = [f"module {j['module_a']} (x1/{j['ports_per_module_a']} per link)"
             if j["module_a"] and optical else None,
             f"module {j['module_b']} (x1/{j['ports_per_module_b']} per link)"
             if j["module_b"] and j["module_b"] != j["module_a"] and optical else None,
             f"cable {j['cable']}" if j["cable"] else None,
             f"fibre {j['fibre']} x{j['fibre_runs']} ({j['connector']}, {j['lit_strands']} lit strands)"
             if j["fibre"] else None,
             f"coherent {j['coherent']} at both ends, dark fibre pair" if j["coherent"] else None]
    from bom.media import metres

    lines = [f"{c.option.rate_gbps:g} Gbit/s over {metres(c.required_m)} -> {c.medium}: {c.option.name}",
             *[f"  {p}" for p in parts if p],
             f"  {c.price_usd:,.2f} USD and {c.power_w:.2f} W per link; reach {metres(c.option.reach_max_m)} "
             f"(margin {metres(c.margin_m)})"
             + (f"; loss {c.loss_db:.2f} of {c.option.loss_budget_db:.2f} dB" if c.option.fibre else "")
             + (f"; amplified, {c.amplifiers} in-line amplifier sites" if c.amplified else "")]
    seen = {c.medium}
    runners = []
    for medium in LADDER:
        for r in result.runners_up:
            if r.option.medium == medium and medium not in seen:
                runners.append(f"  {medium:<15} {r.option.name}: {r.reason}")
                seen.add(medium)
    if runners:
        lines += ["passed over:", *runners]
    return "\n".join(lines)


def build_summary(model: object) -> str:
    """What was built: the cluster, each fabric's switches and links, and the three tiers."""
    from bom.build import Model

    assert isinstance(model, Model)
    c = model.cluster
    lines = [f"{model.scenario.name}: {c.gpus:,} GPUs on {model.platform.id} - {c.nodes:,} nodes, "
             f"{c.domains:,} scale-up domains of {model.platform.gpus_per_domain}, {model.racks:,} racks, "
             f"{c.site_count} site(s)"]
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
    rows = []
    for name, f in model.fabrics.items():
        j = f.to_json()
        sw, ln = j["switches"], j["links"]
        rows.append([name, j["switch"], j["layers"], j["planes"],
                     f"{sw['leaf']:,}/{sw['spine']:,}/{sw['core']:,}",
                     f"{ln['node-leaf']:,}/{ln['leaf-spine']:,}/{ln['spine-core']:,}",
                     f"{j['modules']['node']:,}/{j['modules']['switch']:,}", f"{j['copper_links']:,}",
                     f"{j['optical_links']:,}"])
    lines.append(table(["fabric", "switch", "layers", "planes", "leaf/spine/core", "links by hop",
                        "modules node/switch", "copper", "optical"], rows,
                       [False, False, True, True, True, True, True, True, True]))
    t = model.tiers()
    up, out, across = t["scale-up"], t["scale-out"], t["scale-across"]
    lines.append(f"scale-up:     {up['links']:,} links in {up['domains']:,} domains, all copper, 0 modules")
    lines.append(f"scale-out:    {out['links']:,} links, {out['modules']:,} modules, {out['fibre_runs']:,} "
                 f"fibre runs ({out['fibre_strands']:,} lit strands), copper share "
                 f"{out['copper_share']:.1%}")
    if model.dci is not None:
        lines.append(f"scale-across: {across['wavelengths']:,} wavelengths of {across['standard']} over "
                     f"{across['distance_km']:g} km, {across['coherent_modules']:,} coherent modules, "
                     f"{across['fibre_pairs']:,} fibre pairs, {across['amplifiers']:,} amplifiers")
    else:
        lines.append("scale-across: none (one site)")
    return "\n".join(lines)


def totals_line(report: object) -> str:
    from bom.report import Report

    assert isinstance(report, Report)
    t = report.tco
    return (f"capex {t.capex_usd:,.0f} USD (network {t.network_capex_share:.1%}), IT power "
            f"{t.it_power_kw:,.0f} kW, facility {t.facility_power_kw:,.0f} kW, TCO {t.tco_usd:,.0f} USD "
            f"over {report.inputs['years'].value:g} years, {t.usd_per_gpu_hour:.3f} USD per GPU-hour")


def compare_table(result: object) -> str:
    from bom.compare import Comparison

    assert isinstance(result, Comparison)
    rows = []
    for g, m in zip(result.generations, result.rows(), strict=True):
        rows.append([g.platform.id, f"{m['gpus']:,.0f}", f"{m['gpus_per_domain']:.0f}",
                     f"{m['scale_out_links_per_gpu']:.2f}", f"{m['scale_out_copper_share']:.1%}",
                     f"{m['scale_out_copper_cost_share']:.1%}", f"{m['support_links_per_gpu']:.2f}",
                     f"{m['modules_per_gpu']:.2f}",
                     f"{m['network_capex_per_gpu']:,.0f}", f"{m['network_power_w_per_gpu']:,.0f}",
                     f"{m['network_capex_share']:.1%}", f"{m['usd_per_gpu_hour']:.3f}"])
    notes = [f"  {g.platform.id}: {g.note}" for g in result.generations if g.note]
    notes += [f"  {pid}: not built: {why}" for pid, why in result.skipped.items()]
    # The three scale-out columns are the compute fabric's; modules and network the whole network's.
    return "\n".join([table(["platform", "GPUs", "domain", "compute links/GPU", "copper (links)",
                              "copper (cost)", "support links/GPU", "modules/GPU", "network USD/GPU",
                              "network W/GPU", "network share", "USD/GPU-h"], rows, [False] + [True] * 11),
                       "  compute links and copper: the compute fabric; support: storage, in-band and OOB;"
                       " modules, USD, W: every fabric and the DCI"]
                      + notes)
