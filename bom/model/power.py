"""The power plan: every device supply on a PDU outlet, and the loads it puts on each phase, bank,
PDU, rack feed, row distribution and UPS (data types; :mod:`bom.links.power` makes them, one rule for
the closed form and the plan's rows).

The distribution model, stated: every rack has two feeds, A and B; a rack's PDUs alternate between
them (the first on A, the second on B, ...). Feed A of every rack of a row hangs on that row's A-side
distribution (a busway or remote power panel), feed B on its B side; every row's A side hangs on its
site's (hall's) UPS A, its B side on UPS B (2N). A rack-scale system's power shelves each take a
three-phase whip from one of their rack's feed circuits (the place of a PDU), alternating A and B.

Loads are the devices' maximum (the placement's power per device: facility sizing's basis), shared
evenly over the supplies that carry them: ``normal`` with both feeds up, ``failover`` with the other
feed lost (each device's draw on the supplies of the surviving feed). Ratings take the PDU row's
continuous-load share (``outlets.continuous``: NEC 210.20(A)'s 80 %).

Records are small and frozen: the failure-domain work reads which feed each supply is on
(:class:`Cord`), which devices a feed's loss drops (:attr:`RackPower.down`) and the feeds each row
hangs on (:class:`Hang`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

from typing_extensions import TypedDict

from bom import names
from bom.model.records import Count
from bom.roles import Feed, RackKind


@dataclass(frozen=True)
class Cord:
    """One power cord (or whip) of a rack: a PDU outlet to one supply of one device."""

    pdu: int             # the PDU's number in its rack, from 0 (the rack's PDUs in slot order)
    outlet: int          # the outlet's number on the PDU, from 0; -1: a whip on the PDU's whole circuit
    bank: int            # the outlet's bank (branch breaker), from 0; -1 for a whip
    phase: int           # the bank's phase, from 0 (L1); -1 for a whip (it draws on all three)
    feed: Feed
    device: int          # the device's slot number in its rack's layout
    supply: int          # the supply's number on the device, from 0
    part: str            # the power cord's catalog row
    kind: str            # its kind: c13-c14, c19-c20, whip
    part_number: str     # the sold length's part number
    length_m: float      # the length the cord must reach
    sold_m: float        # the length bought
    load_w: float        # what the supply draws with both feeds up
    failover_w: float    # what it draws with the other feed lost


@dataclass(frozen=True)
class Load:
    """What one phase, bank, PDU or feed of a rack carries, and its continuous rating."""

    pdu: int             # -1: the whole feed
    bank: int            # -1: a phase or a PDU or a feed
    phase: int           # -1: a bank's PDU total, a PDU, or a feed
    feed: Feed
    normal_w: float
    failover_w: float    # with the other feed lost
    rating_w: float

    @property
    def worst_w(self) -> float:
        return max(self.normal_w, self.failover_w)

    @property
    def headroom_w(self) -> float:
        """What is left under the rating at the worst of the two."""
        return self.rating_w - self.worst_w


@dataclass(frozen=True)
class RackPower:
    """One rack layout's power plan (every rack of that layout alike)."""

    cords: tuple[Cord, ...]
    phases: tuple[Load, ...]     # each PDU's phases
    banks: tuple[Load, ...]      # each PDU's banks
    pdus: tuple[Load, ...]       # each PDU
    feeds: tuple[Load, ...]      # feed A, feed B
    draw_w: float                # what the rack's devices draw (their maximum)
    #: (device slot, supply) of each supply no outlet of its feed was left for.
    short: tuple[tuple[int, int], ...] = ()
    #: Device slots that losing a feed (A, then B) leaves with fewer supplies than they need (N of N+M).
    down: tuple[tuple[Feed, int], ...] = ()
    #: Device slots whose catalog row states no supplies (an overlay's row): not on the plan.
    unknown: tuple[int, ...] = ()

    def feeds_of(self) -> dict[int, set[object]]:
        """Each cabled device slot's feeds (its cords'), whatever rule placed them."""
        out: dict[int, set[object]] = {}
        for c in self.cords:
            out.setdefault(c.device, set()).add(c.feed)
        return out

    def supplies_of(self, slot: int) -> int:
        """The cords a device slot takes."""
        return sum(1 for c in self.cords if c.device == slot)


class Hang(NamedTuple):
    """A row of racks' two sides and the site UPS each hangs on, with their loads (a tuple: a million-GPU
    campus has thousands, made in one C call each)."""

    site: int
    row: int
    racks: int
    feed: Feed
    ups: str             # the UPS the row's side hangs on (site, feed: "s1-ups-A")
    normal_w: float
    failover_w: float
    rating_w: float      # 0: not given (sized to the load)


class RowSides(NamedTuple):
    """The row sides of ``sites`` sites in a row from ``first``, alike (a site shape's rows summed once, the
    sites' own racks standing alike): each side's (row, racks, feed, normal W, failover W), in (row, feed)
    order, and the row distribution's rating (0: not given). Each site's :class:`Hang` records are these
    with the site and its UPS (:attr:`PowerPlan.hangs`)."""

    first: int
    sites: int
    sides: tuple[tuple[int, int, Feed, float, float], ...]
    rating_w: float

    def hangs(self, site: int) -> list[Hang]:
        """Site ``site``'s row sides (one of these sites) and the UPS each hangs on."""
        ups = {feed: f"{names.site(site)}-ups-{feed}" for feed in dict.fromkeys(f for _, _, f, _, _ in self.sides)}
        return [Hang(site, row, racks, feed, ups[feed], normal, failover, self.rating_w)
                for row, racks, feed, normal, failover in self.sides]


class CordCountJson(TypedDict):
    part: str
    """The power cord's catalog row (cord-c13-c14, cord-c19-c20, whip-3ph-60a)."""
    part_number: str
    """The sold length's part number."""
    length_m: float
    """The sold length [m]."""
    count: Count
    """Cords of this part and length over the whole cluster."""


class FeedJson(TypedDict):
    feed: Feed
    """The rack feed (A or B)."""
    normal_kw: float
    """What it carries with both feeds up [kW]."""
    failover_kw: float
    """What it carries with the other feed lost [kW]."""
    rating_kw: float
    """Its PDUs' continuous rating [kW]."""


class RackPowerJson(TypedDict):
    kind: RackKind
    """What the racks hold."""
    racks: Count
    """Racks of this layout over the cluster."""
    draw_kw: float
    """What one rack's devices draw (their maximum) [kW]."""
    pdus: Count
    """PDUs (or whip circuits) in one rack."""
    cords: Count
    """Power cords in one rack."""
    feeds: list[FeedJson]
    """Each feed's load and rating."""
    worst_phase_share: float
    """The most loaded phase's worst load (normal or failover) over its rating."""
    phase_imbalance: float
    """The most loaded PDU's phase spread with both feeds up: (max - min) / max of its phases, 0 balanced."""


class HangJson(TypedDict):
    ups: str
    """The UPS (site and feed) the distribution hangs on."""
    rows: Count
    """Rows of racks whose side of this feed hangs on it."""
    normal_kw: float
    """What it carries with both feeds up [kW]."""
    failover_kw: float
    """What it carries with the other side lost [kW]."""
    rating_kw: float
    """Its rating (feeds.ups_capacity); 0: not given, sized to the load."""


class PowerJson(TypedDict):
    basis: str
    """What the loads are: the devices' maximum, shared over their supplies; the continuous-load share."""
    cords: list[CordCountJson]
    """Power cords by part and sold length (the BOM's power cord lines)."""
    racks: list[RackPowerJson]
    """Each rack layout's feeds and phase loads."""
    ups: list[HangJson]
    """Each site UPS and the rows hanging on it."""


@dataclass(frozen=True)
class RackGroup:
    """The racks of one layout over the cluster and their power plan."""

    kind: RackKind
    rack: str                              # the rack's catalog row
    racks: int
    plan: RackPower
    slots: tuple[tuple[str, str], ...]     # each slot's (role, catalog row): what a device slot is

    def device(self, slot: int) -> str:
        """A slot's device as a person finds it: "the 3rd leaf (q3400)"."""
        role, row = self.slots[slot]
        nth = sum(1 for r, _ in self.slots[:slot + 1] if r == role)
        return f"{role} {nth} ({row})"

    @property
    def where(self) -> str:
        return f"{self.kind} rack ({self.rack}) x {self.racks:,}"


@dataclass(frozen=True)
class PowerPlan:
    """The closed form of the power plan: every rack layout's plan with how many racks have it, the
    cords by part and sold length, and each row side's and UPS's load."""

    groups: tuple[RackGroup, ...]
    #: (power cord row, sold part number, sold length [m]) -> cords over the cluster
    cords: tuple[tuple[tuple[str, str, float], int], ...]
    #: Each run of alike sites' row sides, in site order (a million-GPU campus's ten sites: one).
    row_sides: tuple[RowSides, ...]
    continuous: float           # the continuous-load share the ratings take
    continuous_source: str

    @cached_property
    def hangs(self) -> tuple[Hang, ...]:
        """Each site's row sides and the UPS each hangs on, site by site (made when asked: the build's
        sums read :attr:`row_sides`)."""
        return tuple(h for run in self.row_sides for site in range(run.first, run.first + run.sites)
                     for h in run.hangs(site))

    @property
    def cord_count(self) -> int:
        return sum(n for _, n in self.cords)

    def ups(self) -> dict[str, tuple[int, float, float, float]]:
        """Each UPS: (rows hanging on it, normal W, failover W, rating W)."""
        return dict(self._ups)

    @cached_property
    def _ups(self) -> dict[str, tuple[int, float, float, float]]:
        # Summed once: every row side of every site, read by the JSON, the report, the summary and the workbook;
        # a run of alike sites' sides summed once, in their order (each site's sums the same floats).
        out: dict[str, tuple[int, float, float, float]] = {}
        for run in self.row_sides:
            per_feed: dict[Feed, tuple[int, float, float, float]] = {}
            for _, _, feed, normal_w, failover_w in run.sides:
                rows, normal, failover, _ = per_feed.get(feed, (0, 0.0, 0.0, 0.0))
                per_feed[feed] = (rows + 1, normal + normal_w, failover + failover_w, 0.0)
            for site in range(run.first, run.first + run.sites):
                out.update((f"{names.site(site)}-ups-{feed}", sums) for feed, sums in per_feed.items())
        return out

    @property
    def basis(self) -> str:
        """What the loads and ratings are."""
        return (f"each device's maximum shared evenly over its supplies; ratings at {self.continuous:.0%} "
                f"continuous ({self.continuous_source.split(':')[0]})")

    def to_json(self, ups_rating_w: float = 0.0) -> PowerJson:
        racks: list[RackPowerJson] = []
        for g in self.groups:
            p = g.plan
            worst = max((ld.worst_w / ld.rating_w for ld in p.phases if ld.rating_w), default=0.0)
            racks.append({"kind": g.kind, "racks": g.racks, "draw_kw": round(p.draw_w / 1000, 3),
                          "pdus": len(p.pdus), "cords": len(p.cords),
                          "feeds": [{"feed": f.feed, "normal_kw": round(f.normal_w / 1000, 3),
                                     "failover_kw": round(f.failover_w / 1000, 3),
                                     "rating_kw": round(f.rating_w / 1000, 3)} for f in p.feeds],
                          "worst_phase_share": round(worst, 4), "phase_imbalance": round(imbalance(p), 4)})
        return {"basis": self.basis,
                "cords": [{"part": part, "part_number": pn, "length_m": sold, "count": n}
                          for (part, pn, sold), n in self.cords],
                "racks": racks,
                "ups": [{"ups": name, "rows": rows, "normal_kw": round(normal / 1000, 3),
                         "failover_kw": round(failover / 1000, 3), "rating_kw": round(ups_rating_w / 1000, 3)}
                        for name, (rows, normal, failover, _) in self.ups().items()]}


def imbalance(p: RackPower) -> float:
    """The most loaded PDU's phase spread with both feeds up: (max - min) / max over its phases."""
    worst, at = -1.0, -1
    for ld in p.pdus:
        if ld.normal_w > worst:
            worst, at = ld.normal_w, ld.pdu
    loads = [ld.normal_w for ld in p.phases if ld.pdu == at]
    return (max(loads) - min(loads)) / max(loads) if loads and max(loads) > 0 else 0.0
