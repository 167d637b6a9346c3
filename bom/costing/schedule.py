"""The day it runs: each site's earliest in-service date from the order date and the lead times.

A site is in service once its last part has arrived and its racks are installed:
in service = order date + the longest lead time of the parts the site takes + ceil(racks / racks
installed per day) days. Until then the GPU systems that arrived earlier stand idle: idle days =
longest lead time - the GPU systems' lead time, and their cost is the GPU systems' capital charge
over those days (capex of the GPU class x its capital recovery factor / 365 x idle days, the site's
share of the GPUs). A part with no lead time (neither its catalog row nor a quote gives one) is
left out and counted, so an unknown never reads as "arrives at once". The workbook's Schedule
sheet computes the same with live formulas over the Order sheet's Lead time column.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from dataclasses import dataclass

from typing_extensions import TypedDict

from bom.costing.categories import Category
from bom.costing.order import OrderLine
from bom.costing.tco import Tco, capital_recovery_factor
from bom.errors import BomError
from bom.model.records import Count, Date

DAYS_PER_YEAR = 365.0


class SiteScheduleJson(TypedDict):
    """One site's earliest in-service date."""

    site: Count
    """The site (1 first)."""
    gpus: Count
    """Its GPUs."""
    racks: Count
    """Its racks."""
    order_date: Date
    """The day the order is placed."""
    longest_lead_days: float
    """The longest lead time of the parts the site takes [days]."""
    longest_part: str
    """The part number that arrives last (empty when no part has a lead time)."""
    gpu_lead_days: float
    """The GPU systems' lead time [days] (0 when unknown)."""
    install_days: Count
    """ceil(racks / racks installed per day)."""
    date: Date
    """The earliest in-service date: order date + longest lead time + install days."""
    idle_gpu_days: float
    """Days the GPU systems wait for the last part."""
    idle_gpu_cost_usd: float
    """The GPU systems' capital charge over those days (the site's share)."""
    without_lead_time: Count
    """The site's order lines with no lead time (left out of the dates)."""


@dataclass(frozen=True)
class SiteSchedule:
    site: int
    gpus: int
    racks: int
    order_date: dt.date
    longest_lead_days: float
    longest_part: str             # the part number that arrives last ("" when no lead time is known)
    gpu_lead_days: float          # the GPU systems' lead time (0 when unknown)
    install_days: int
    in_service: dt.date
    idle_gpu_days: float
    idle_gpu_cost_usd: float
    without_lead_time: int        # the site's order lines with no lead time (left out)

    def to_json(self) -> SiteScheduleJson:
        return {"site": self.site, "gpus": self.gpus, "racks": self.racks, "order_date": self.order_date.isoformat(),
                "longest_lead_days": self.longest_lead_days, "longest_part": self.longest_part,
                "gpu_lead_days": self.gpu_lead_days, "install_days": self.install_days,
                "date": self.in_service.isoformat(), "idle_gpu_days": self.idle_gpu_days,
                "idle_gpu_cost_usd": round(self.idle_gpu_cost_usd, 2), "without_lead_time": self.without_lead_time}


def install_days(racks: int, racks_per_day: float) -> int:
    """Whole days to install a site's racks at ``racks_per_day``.

    >>> install_days(100, 12), install_days(0, 12)
    (9, 0)
    """
    return math.ceil(racks / racks_per_day - 1e-9) if racks else 0


def _in_service(order_date: dt.date, lead_days: int, install: int, site: int) -> dt.date:
    """The order date moved by the longest lead time and the installation; a day past the calendar's
    last (9999-12-31) is bad input, said with the keys that make it."""
    try:
        return order_date + dt.timedelta(days=lead_days + install)
    except OverflowError:
        raise BomError(f"site {site}'s in-service day, {_days(lead_days)} of lead time and {_days(install)} of "
                       f"installation after the order date {order_date.isoformat()}, is past the year 9999",
                       key="tco.install_racks_per_day" if install >= lead_days else "order_date",
                       hint="Check tco.install_racks_per_day (racks a day, e.g. 4), order_date and the parts' "
                            "lead times (catalog overlays and price files).") from None


def _days(n: int) -> str:
    return f"{n:,} days" if n < 10**9 else "more than 10^9 days"


def _takes(o: OrderLine, site: int) -> bool:
    """Whether site ``site`` (1-based) takes part of the line (a line not split by site: every site)."""
    return o.per_site is None or o.per_site[site - 1] != 0


def site_schedule(order: Sequence[OrderLine], site: int, gpus: int, racks: int, total_gpus: int,
                  order_date: dt.date, racks_per_day: float, tco: Tco, discount_rate: float,
                  life_gpu: float) -> SiteSchedule:
    mine = [o for o in order if _takes(o, site)]
    known = [o for o in mine if o.lead_time_days is not None]
    last = max(known, key=lambda o: o.lead_time_days or 0.0, default=None)
    longest = (last.lead_time_days or 0.0) if last is not None else 0.0
    gpu_lead = max((o.lead_time_days or 0.0 for o in known if o.category == Category.COMPUTE), default=0.0)
    days = install_days(racks, racks_per_day)
    idle = max(0.0, longest - gpu_lead)
    per_day = tco.capex_gpu_usd * capital_recovery_factor(discount_rate, life_gpu) / DAYS_PER_YEAR
    cost = per_day * idle * (gpus / total_gpus if total_gpus else 0.0)
    when = _in_service(order_date, math.ceil(longest - 1e-9), days, site)
    return SiteSchedule(site, gpus, racks, order_date, longest, last.sku if last is not None else "", gpu_lead,
                        days, when, idle, cost, len(mine) - len(known))
