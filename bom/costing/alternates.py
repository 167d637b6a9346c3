"""Alternates that pull the date in: for each gating or long-lead link part, the other parts the catalog
holds for the same links, with what each changes.

A long-lead part is a link part (a module, cable, AOC, fibre or coherent optic) that gates a site or
arrives after the GPU systems (it holds them idle, and would gate were they sooner). Its alternates are
the standard lookup's other fits for the links it serves (the same rate, cages, lane rate, patch panels
and length: another module standard, copper or an AOC for an optic, another maker's part;
:meth:`bom.catalog.media.Media.alternatives`). Each is priced by building the cluster with it in the
part's place where it fits (bom/pipeline/alternates.py): the changes to the hardware, capex, TCO, IT
power, the day the network's last part arrives and the in-service date are the two builds' differences,
spares, rounding and installation included, so they are the amounts the catalog implies. The data types
live here; the builds are the pipeline's.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from typing_extensions import TypedDict

from bom.costing.categories import Category
from bom.costing.schedule import Arrival, SiteSchedule
from bom.model.records import Count, Date

#: The BOM categories of link parts: what the standard lookup chooses, and so has alternates.
LINK_PARTS = frozenset({Category.TRANSCEIVER, Category.COPPER_CABLE, Category.AOC, Category.FIBRE_TRUNK,
                        Category.PATCH_CORD, Category.COHERENT_OPTIC})


class LongLeadJson(TypedDict):
    """A link part whose lead time matters: it gates a site or arrives after the GPU systems."""

    catalog_id: str
    """Its catalog row."""
    sku: str
    """Its part number."""
    lead_time_days: float
    """Its lead time [days]."""
    why: str
    """Why it matters."""


@dataclass(frozen=True)
class LongLead:
    """A link part whose lead time matters, and why."""

    catalog_id: str
    sku: str
    lead_time_days: float
    why: str

    def to_json(self) -> LongLeadJson:
        return {"catalog_id": self.catalog_id, "sku": self.sku, "lead_time_days": self.lead_time_days,
                "why": self.why}


def long_lead_parts(schedule: Sequence[SiteSchedule]) -> list[LongLead]:
    """The link parts that gate a site or arrive after its GPU systems (they hold the GPUs idle, and would
    gate were the GPUs sooner), longest lead time first. A build whose GPU systems arrive last has none:
    their own lead time sets the date, and no link part's alternate moves it."""
    out: dict[str, LongLead] = {}

    def add(a: Arrival, why: str) -> None:
        if a.catalog_id and a.catalog_id not in out and a.days is not None:
            out[a.catalog_id] = LongLead(a.catalog_id, a.sku, a.days, why)

    for s in schedule:
        gate = s.gate
        if gate is not None and gate.category in LINK_PARTS:
            add(gate, f"gates site {s.site}")
        gpu = max((a.arrives for a in s.arrivals if a.category == Category.COMPUTE and a.arrives), default=None)
        for a in s.arrivals:
            if a.category in LINK_PARTS and gpu is not None and a.arrives is not None and a.arrives > gpu:
                add(a, f"arrives after the GPU systems at site {s.site}")
    return sorted(out.values(), key=lambda x: (-x.lead_time_days, x.catalog_id))


def network_ready(schedule: Sequence[SiteSchedule]) -> dt.date | None:
    """The day the last link part of any site arrives (None: no link part has a lead time)."""
    days = [a.arrives for s in schedule for a in s.arrivals if a.category in LINK_PARTS and a.arrives is not None]
    return max(days, default=None)


class ChangeJson(TypedDict):
    """What a build changes against another, each the new less the old."""

    hardware_usd: float
    """Change of the hardware (spares included) [USD]."""
    capex_usd: float
    """Change of capex [USD]."""
    tco_usd: float
    """Change of the TCO over the period [USD]."""
    it_power_kw: float
    """Change of the IT power, typical [kW]."""
    network_ready_days: int
    """Change of the day the network's last part arrives [days]."""
    in_service_days: int
    """Change of the latest site's in-service date [days]."""


@dataclass(frozen=True)
class Change:
    """What a build changes against another, each the new less the old: an alternate's build against
    this one, or the --prefer-available build against the build without it."""

    hardware_usd: float
    capex_usd: float
    tco_usd: float
    it_power_kw: float
    network_ready_days: int      # the day the network's last part arrives
    in_service_days: int         # the latest site's in-service date

    def to_json(self) -> ChangeJson:
        return {"hardware_usd": round(self.hardware_usd, 2), "capex_usd": round(self.capex_usd, 2),
                "tco_usd": round(self.tco_usd, 2), "it_power_kw": round(self.it_power_kw, 4),
                "network_ready_days": self.network_ready_days, "in_service_days": self.in_service_days}


class AlternateJson(ChangeJson):
    """Another part for a long-lead part's links, priced by building with it in the part's place: each
    change is the build with it less this build (in the JSON after ``where``)."""

    part: str
    """The long-lead part's catalog id."""
    part_number: str
    """Its part number."""
    why: str
    """Why the part matters."""
    option: str
    """The alternate in the standard lookup (what --prefer-available names)."""
    label: str
    """Its part numbers as the BOM prints them."""
    standard: str
    """Its interface standard ("400G SR4", "800G AEC")."""
    medium: str
    """Its medium on the ladder (passive copper ... coherent)."""
    lead_time_days: float | None
    """The longest lead time of the parts it brings (null: one is unknown)."""
    lead_time_estimate: bool
    """Whether one of them is an estimate by part class."""
    links: Count
    """The part's links it takes over (where it fits)."""
    of_links: Count
    """The part's links in this build."""
    where: list[str]
    """The link classes it takes over: fabric, hop, bucket."""
    in_service: Date
    """The latest site's in-service date with it."""
    rules_ok: bool
    """Whether the design rules' closed form still passes."""
    shortens: bool
    """Whether it brings the in-service date, or else the network's last part, in."""


@dataclass(frozen=True)
class Alternate:
    """Another part for a long-lead part's links, and what building with it changes."""

    part: str                    # the long-lead part's catalog id
    part_number: str
    why: str                     # why the part matters (LongLead.why)
    option: str                  # the alternate's option name in the standard lookup (what --prefer-available names)
    label: str                   # its part numbers as the BOM prints them
    standard: str                # "800G AEC", "800G 2xDR4", ...
    medium: str
    lead_time_days: float | None  # the longest lead time of the parts it brings (None: one is unknown)
    lead_time_estimate: bool
    links: int                   # the part's links it takes over (where it fits)
    of_links: int                # the part's links in the build
    where: tuple[str, ...]       # the link classes (fabric hop, bucket) it takes over
    change: Change               # the build with it less the build without
    in_service: dt.date          # the latest site's in-service date with it
    rules_ok: bool               # the design rules' closed form still passes

    @property
    def shortens(self) -> bool:
        """Whether it brings the in-service date, or else the network's last arrival, in."""
        c = self.change
        return c.in_service_days < 0 or (c.in_service_days == 0 and c.network_ready_days < 0)

    def to_json(self) -> AlternateJson:
        return {"part": self.part, "part_number": self.part_number, "why": self.why, "option": self.option,
                "label": self.label, "standard": self.standard, "medium": self.medium,
                "lead_time_days": self.lead_time_days, "lead_time_estimate": self.lead_time_estimate,
                "links": self.links, "of_links": self.of_links, "where": list(self.where),
                **self.change.to_json(), "in_service": self.in_service.isoformat(), "rules_ok": self.rules_ok,
                "shortens": self.shortens}


class TakenJson(TypedDict):
    """A part --prefer-available replaced."""

    part: str
    """Its catalog id."""
    part_number: str
    """Its part number."""
    options: list[str]
    """The alternates taken, first that fits each link."""
    labels: list[str]
    """Their part numbers."""


@dataclass(frozen=True)
class Taken:
    """A part a --prefer-available build replaced where the alternates fit: the options it took, first that fits."""

    part: str
    part_number: str
    options: tuple[str, ...]
    labels: tuple[str, ...]

    def to_json(self) -> TakenJson:
        return {"part": self.part, "part_number": self.part_number, "options": list(self.options),
                "labels": list(self.labels)}


class PreferredJson(ChangeJson):
    """What bom build --prefer-available took, and what it changed against the build without it (in the
    JSON after ``taken``)."""

    taken: list[TakenJson]
    """The parts replaced."""
    rules_ok: bool
    """Whether the design rules' closed form passes."""


@dataclass(frozen=True)
class Preferred:
    """What bom build --prefer-available took, and what that changed against the build without it."""

    taken: list[Taken]
    change: Change
    rules_ok: bool

    def to_json(self) -> PreferredJson:
        return {"taken": [t.to_json() for t in self.taken], **self.change.to_json(), "rules_ok": self.rules_ok}


class AlternatesJson(TypedDict):
    """The long-lead parts, every alternate for them, and what bom build --prefer-available took."""

    long_lead: list[LongLeadJson]
    """The long-lead link parts."""
    options: list[AlternateJson]
    """Every alternate priced."""
    preferred: PreferredJson | None
    """What --prefer-available took (null: built without it)."""


@dataclass(frozen=True)
class Alternates:
    """The long-lead parts, every alternate for them, and what bom build --prefer-available took (None:
    built without it)."""

    parts: list[LongLead]
    options: list[Alternate]
    preferred: Preferred | None = None

    def to_json(self) -> AlternatesJson:
        return {"long_lead": [p.to_json() for p in self.parts], "options": [a.to_json() for a in self.options],
                "preferred": self.preferred.to_json() if self.preferred is not None else None}
