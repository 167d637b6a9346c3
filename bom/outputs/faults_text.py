"""``bom faults``' text: the summary lines and each failure domain's cells, shared by the terminal, the
Markdown and the workbook (no openpyxl here: the terminal loads this)."""

from __future__ import annotations

from bom.faults.result import DomainJson, FaultsJson
from bom.model.records import Cell
from bom.outputs.terminal import table

DOMAIN_HEADER = ("element", "what", "count", "GPUs cut off", "scale-up domains broken", "bisection lost",
                 "sites split", "stops the job", "parallel groups stalled", "why")
#: Failure domains the terminal lists (the JSON and the files have them all).
SHOWN = 12


def stalled_text(d: DomainJson) -> str:
    """``TP 1/2,048, PP 8/1,024, ...``: the dimensions with a group stalled; "" without a split."""
    s = d["stalled"]
    if s is None:
        return ""
    return ", ".join(f"{k.upper()} {g['stalled']:,}/{g['groups']:,}" for k, g in s.items() if g["stalled"])


def domain_cells(d: DomainJson) -> tuple[Cell, ...]:
    return (str(d["element"]), d["what"], d["count"], d["gpus_cut"], d["domains_broken"], d["bisection_lost"],
            "yes" if d["sites_split"] else "no", "yes" if d["interrupts"] else "no", stalled_text(d), d["why"])


def summary_lines(j: FaultsJson) -> list[str]:
    g = j["goodput"]
    out = [f"{j['unexpected_per_day']:.3f} unexpected interruptions a day"
           + (f" (one every {g['mtbi_hours']:.2f} h)" if g["mtbi_hours"] else "")
           + f"; goodput {g['goodput']:.2%} ({g['checkpoint_and_restart']:.2%} after checkpoints, redone work and "
           f"restarts, less {g['degraded_loss']:.2%} running short until repairs)."]
    if g["checkpoint_interval_s"]:
        out.append(f"Checkpoint every {g['checkpoint_interval_s'] / 60:.1f} min ({g['checkpoint_write_s']:.0f} s to "
                   f"write), restart {g['restart_s'] / 60:.1f} min, repair {g['repair_s'] / 3600:.1f} h.")
    if g["job_days"] is not None and g["job_days_with_failures"] is not None:
        out.append(f"The job: {g['job_days']:.1f} days without failures, "
                   f"{g['job_days_with_failures']:.1f} days with them.")
    out.append(f"Cost per GPU-hour {g['usd_per_gpu_hour']:.3f} USD, per useful GPU-hour "
               f"{g['usd_per_useful_gpu_hour']:.3f} USD.")
    return out


def faults_text(j: FaultsJson) -> str:
    """The worst failure domains, the interruptions' summary and the redundancy options, for the terminal."""
    rows = [(d["element"], d["what"], f"{d['count']:,}", f"{d['gpus_cut']:,}", f"{d['domains_broken']:,}",
             f"{d['bisection_lost']:.2%}",
             "yes" if d["sites_split"] else "", stalled_text(d)) for d in j["domains"][:SHOWN]]
    out = [f"{j['name']}: {j['gpus']:,} GPUs", "",
           table(["element", "what", "count", "GPUs cut", "domains", "bisection", "split", "groups stalled"], rows,
                 [False, False, True, True, True, True, False, False]), ""]
    out += summary_lines(j)
    opts = [(o["option"], "yes" if o["built"] else "", o["units"],
             "n/a" if o["capex_usd"] is None else f"{o['capex_usd']:,.0f}",
             "n/a" if o["goodput_gain"] is None else f"{o['goodput_gain']:+.3%}",
             "n/a" if o["usd_per_useful_gpu_hour_change"] is None else f"{o['usd_per_useful_gpu_hour_change']:+.4f}")
            for o in j["redundancy"]]
    out += ["", table(["redundancy", "in design", "units", "capex USD", "goodput", "USD/useful GPU-h"], opts,
                      [False, False, True, True, True, True])]
    return "\n".join(out)
