"""The power plan's hop: a PDU outlet to a device supply (hop ``pdu-supply``), one pattern.

One rule, :func:`rack_plan`, says how a rack layout's devices take their power, and both consumers
read it: the closed form (:func:`power_plan`: every layout's plan once, times the racks that have it;
layouts whose slots draw alike share one, :class:`Plans`) and the cable plan (:meth:`PduSupply.rows`: every
rack of a site, a row per cord).

The rule, in order:

- the rack's PDUs (in slot order) alternate between its feeds: the first on A, the second on B, ...;
- a rack-scale system's power shelves (supplies ``inlet: whip``) each take a three-phase whip on a PDU's
  whole circuit of their own, the first shelf on A, the second on B, ...; in such a rack every other
  device takes the shelves' DC busbar (the NVL72 Enterprise RA: the in-rack management switches "on DC
  power"), so its power is the shelves';
- every other device's supplies alternate between the feeds (supply 1 on A, supply 2 on B, ...), so
  an N+N device keeps N supplies when a feed is lost; each supply takes a free outlet of its inlet's
  type (C14: a C13 outlet, C20: a C19) on its feed's PDUs, on the phase that carries least so far
  (phase balance), the lowest PDU, then bank, breaking ties;
- a supply for which no outlet of its type is left on its feed is not cabled (``RackPower.short``, the
  rule ``power.outlets``).

Loads: each device's maximum (its placement power) shared evenly over its supplies; with the other feed
lost, over the supplies on the surviving feed. A whip carries its rack's busbar power shared over the
shelves (with a feed lost, over the shelves of the surviving feed), evenly on its three phases (a
three-phase shelf's phases are intrinsically balanced: GE's Open Rack V2.0 shelf specification).

Cord lengths: a 0U PDU's outlets spread evenly along the rack's height; a cord reaches from its
outlet's height to its device's U (1U = 44.45 mm, EIA-310) plus :data:`REAR_REACH` across the rack's
rear; the sold length is the shortest that reaches. A whip drops :data:`WHIP_DROP` from the overhead
feed to the top of the rack, then down to its shelf.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, TypeVar

from bom import names
from bom.catalog.rows import OUTLET_FOR, Dwdm, Endpoint, Platform, PowerCord, Supplies, Switch
from bom.links.pattern import Fixed, HopContext, Item, Link, Pair, Pattern, Rows, Section
from bom.links.views import View
from bom.model.hops import HopKind
from bom.model.linkgroups import LinkGroup
from bom.model.power import Cord, Load, PowerPlan, RackGroup, RackPower, RowSides
from bom.model.records import PlanRow
from bom.roles import FEEDS, FabricKind, Feed, Layer
from bom.units import magnitude

if TYPE_CHECKING:
    from bom.catalog.rows import Catalog, PduOutlets
    from bom.inputs.scenario import Feeds
    from bom.model.placement import Item as PlacedItem
    from bom.model.placement import Layout, Placement, Rack
    from bom.model.placement import Section as PlacedSection

#: One rack unit [m] (EIA-310: 1.75 in).
RACK_UNIT_M = 0.04445
#: From a 0U PDU in the rack's rear side channel across to a device's inlet [m]: the model's allowance
#: (half a 1.2 m deep rack's width and depth, rounded up).
REAR_REACH = 0.6
#: From the overhead feed's tap-off down to the top of the rack [m]: the model's allowance.
WHIP_DROP = 1.0
#: The power shelves' inlet: a three-phase whip on a feed circuit of its own.
WHIP = "whip"
BUSBAR = "busbar"
PHASE_NAMES = ("L1", "L2", "L3")


@dataclass(frozen=True)
class Parts:
    """What the rule reads from the catalog: each placed device's supplies, the PDU's build and the
    power cords by the inlet they reach."""

    supplies: Callable[[PlacedItem], Supplies | None]
    pdu: PduOutlets
    cords: dict[str, PowerCord]        # inlet (c14, c20, whip) -> the cord row


def parts_of(catalog: Catalog, pdu_id: str) -> Parts:
    """The catalog's supplies, the PDU row's outlets and the power cords."""
    pdu = catalog.get("endpoints", pdu_id)
    assert isinstance(pdu, Endpoint) and pdu.outlets is not None   # catalog validate --strict holds it
    cords = {r.inlet: r for r in catalog.rows_of(PowerCord)}

    known: dict[tuple[str, str], Supplies | None] = {}

    def supplies(item: PlacedItem) -> Supplies | None:
        key = (item.role, item.catalog_id)
        if key not in known:   # a catalog row's kind is looked up once, not per slot
            kind = catalog.kind_of(item.catalog_id)
            row = catalog.rows[kind][item.catalog_id] if kind else None
            known[key] = ((row.shelf_supplies if item.role == Layer.POWER_SHELF else row.supplies)
                          if isinstance(row, Platform)
                          else row.supplies if isinstance(row, (Switch, Endpoint, Dwdm)) else None)
        return known[key]

    return Parts(supplies, pdu.outlets, cords)


@dataclass
class _Pdu:
    """One PDU's outlets left, by bank and type, and what each phase carries so far."""

    feed: Feed
    free: list[dict[str, list[int]]]            # per bank: type -> outlet numbers left
    whip: bool = False


def outlet_layout(o: PduOutlets) -> list[tuple[int, str, int, int]]:
    """A PDU's outlets as (number from 0, type, bank, phase): bank by bank, each bank's C13s then C19s,
    bank b on phase b mod phases (the rule's and NetBox's outlet names alike).

    >>> from types import SimpleNamespace as S
    >>> outlet_layout(S(outlets={"c19": 3, "c13": 3}, banks=3, phases=3))[:3]
    [(0, 'c13', 0, 0), (1, 'c19', 0, 0), (2, 'c13', 1, 1)]
    """
    per_bank: dict[str, int] = {str(kind): count // o.banks for kind, count in sorted(o.outlets.items())}
    out, at = [], 0
    for b in range(o.banks):
        for kind, count in per_bank.items():
            for _ in range(count):
                out.append((at, kind, b, b % o.phases))
                at += 1
    return out


def _pdus(n: int, o: PduOutlets) -> list[_Pdu]:
    """The rack's ``n`` PDUs, alternating feeds, each with every outlet of :func:`outlet_layout` free."""
    free: list[dict[str, list[int]]] = [{} for _ in range(o.banks)]   # every PDU's alike: laid out once
    for number, kind, bank, _ in outlet_layout(o):
        free[bank].setdefault(kind, []).append(number)
    return [_Pdu(FEEDS[i % len(FEEDS)], [{kind: list(at) for kind, at in bank.items()} for bank in free])
            for i in range(n)]


def _length(o: PduOutlets, outlet: int, u: int, rack_u: int) -> float:
    """The cord's reach from the outlet's height on a 0U PDU to the device's U."""
    total = sum(o.outlets.values())
    at = 1 + outlet * (rack_u - 1) / max(total - 1, 1)
    return round(REAR_REACH + abs(u - at) * RACK_UNIT_M, 3)


def _sold(cord: PowerCord, need: float) -> tuple[str, float]:
    """The shortest sold length that reaches (the longest where none does: rule ``power.outlets`` has no
    say over length; the plan's row shows both)."""
    sold = _lengths(cord)
    for pn, length in sold:
        if length >= need - 1e-9:
            return pn, length
    return sold[-1]


#: Each cord row's sold lengths, shortest first, in metres (by the row object: a rack layout's plan reads
#: them per cord).
_SOLD: dict[int, tuple[PowerCord, tuple[tuple[str, float], ...]]] = {}


def _lengths(cord: PowerCord) -> tuple[tuple[str, float], ...]:
    hit = _SOLD.get(id(cord))
    if hit is None or hit[0] is not cord:
        sold = sorted(((s.part_number, magnitude(s.length, "length")) for s in cord.lengths), key=lambda s: s[1])
        hit = _SOLD[id(cord)] = (cord, tuple(sold))
    return hit[1]


@dataclass
class _Rack:
    """The rule's working state for one rack layout."""

    parts: Parts
    rack_u: int
    pdus: list[_Pdu]
    phase_load: defaultdict[tuple[int, int], float] = field(default_factory=lambda: defaultdict(float))
    bank_load: defaultdict[tuple[int, int], float] = field(default_factory=lambda: defaultdict(float))
    placed: list[tuple[int, int, int, int, int, Feed, str, float]] = field(default_factory=list)
    short: list[tuple[int, int]] = field(default_factory=list)
    #: :meth:`banks` by (feed, outlet type).
    open: dict[tuple[Feed, str], list[tuple[int, int, list[int], tuple[int, int]]]] = field(default_factory=dict)

    def whip(self, slot: int, nth: int) -> None:
        """A power shelf's whip on a PDU circuit of its feed that nothing else takes."""
        feed = FEEDS[nth % len(FEEDS)]
        for i, p in enumerate(self.pdus):
            if p.feed == feed and not p.whip:
                p.whip = True
                self.placed.append((slot, 0, i, -1, -1, feed, WHIP, 0.0))
                return
        self.short.append((slot, 0))

    def banks(self, feed: Feed, kind: str) -> list[tuple[int, int, list[int], tuple[int, int]]]:
        """(PDU, bank, its free outlets of ``kind``, its (PDU, phase)) on ``feed``'s PDUs that no whip takes, in
        PDU and bank order (the cords come after the whips: rack_plan)."""
        found = self.open.get((feed, kind))
        if found is None:
            phases = self.parts.pdu.phases
            found = self.open[feed, kind] = [(i, b, free[kind], (i, b % phases)) for i, p in enumerate(self.pdus)
                                             if p.feed == feed and not p.whip
                                             for b, free in enumerate(p.free) if kind in free]
        return found

    def cord(self, slot: int, supply: int, inlet: str, load_w: float) -> None:
        feed = FEEDS[supply % len(FEEDS)]
        kind = OUTLET_FOR[inlet]
        o = self.parts.pdu
        phase_load, bank_load = self.phase_load, self.bank_load
        # The least (phase load, bank load, PDU, bank): the banks come in (PDU, bank) order, so the first
        # bank of the least two loads is it.
        best: tuple[int, int] | None = None
        least_p = least_b = 0.0
        for i, b, left, ph in self.banks(feed, kind):
            if left:
                p = phase_load[ph]
                if best is None or p < least_p or (p == least_p and bank_load[i, b] < least_b):
                    best, least_p, least_b = (i, b), p, bank_load[i, b]
        if best is None:
            self.short.append((slot, supply))
            return
        i, b = best
        outlet = self.pdus[i].free[b][kind].pop(0)
        self.phase_load[i, b % o.phases] += load_w
        self.bank_load[i, b] += load_w
        self.placed.append((slot, supply, i, outlet, b, feed, inlet, load_w))


def rack_plan(lay: Layout, parts: Parts) -> RackPower:
    """One rack layout's power plan (the rule; module docstring)."""
    slots = lay.slots
    n_pdus = sum(1 for item, _ in slots if item.role == Layer.PDU)
    st = _Rack(parts, lay.rack.u_budget, _pdus(n_pdus, parts.pdu))
    specs = [parts.supplies(item) if item.role != Layer.PDU else None for item, _ in slots]
    shelves = [s for s, sp in enumerate(specs) if sp is not None and sp.inlet == WHIP]
    # A device that draws nothing (a passive mux) needs no supply; one that draws and says none is unknown,
    # and so is one on a busbar no power shelf of its rack feeds (the system's power stands elsewhere).
    unknown = tuple(s for s, ((item, _), sp) in enumerate(zip(slots, specs, strict=True))
                    if item.role != Layer.PDU and item.power_w > 0
                    and (sp is None or (sp.inlet == BUSBAR and not shelves)))
    # In a rack of power shelves every other device rides the shelves' busbar.
    busbar_w = sum(item.power_w for (item, _), sp in zip(slots, specs, strict=True)
                   if sp is not None and ((bool(shelves) and sp.inlet != WHIP) or sp.inlet == BUSBAR))
    for nth, s in enumerate(shelves):
        st.whip(s, nth)
    for s, (item, _) in enumerate(slots):
        sp = specs[s]
        if sp is None or shelves or sp.inlet in (BUSBAR, WHIP):
            continue
        for k in range(sp.count):
            st.cord(s, k, sp.inlet, item.power_w / sp.count)
    return _finish(lay, parts, st, specs, shelves, busbar_w, unknown)


def _finish(lay: Layout, parts: Parts, st: _Rack, specs: list[Supplies | None], shelves: list[int],
            busbar_w: float, unknown: tuple[int, ...]) -> RackPower:
    """The cords with their loads both ways, and the loads on every phase, bank, PDU and feed."""
    o = parts.pdu
    by_device: dict[int, Counter[Feed]] = defaultdict(Counter)
    for slot, _, _, _, _, feed, _, _ in st.placed:
        by_device[slot][feed] += 1
    shelves_on: Counter[Feed] = Counter(feed for _, _, _, _, _, feed, inlet, _ in st.placed if inlet == WHIP)
    cords: list[Cord] = []
    for slot, supply, pdu, outlet, bank, feed, inlet, load in st.placed:
        item, u = lay.slots[slot]
        on = by_device[slot][feed]
        if inlet == WHIP:
            load, failover = busbar_w / max(len(shelves), 1), busbar_w / shelves_on[feed]
            need = round(WHIP_DROP + (lay.rack.u_budget - u) * RACK_UNIT_M, 3)
        else:
            failover = item.power_w / on
            need = _length(o, outlet, u, lay.rack.u_budget)
        cord = parts.cords[inlet]
        pn, sold = _sold(cord, need)
        phase = -1 if inlet == WHIP else bank % o.phases
        cords.append(_record(Cord, (pdu, outlet, bank, phase, feed, slot, supply, cord.id, cord.kind, pn, need, sold,
                                    load, failover)))
    down = _down(specs, by_device, shelves, shelves_on, busbar_w)
    return _loads(tuple(cords), lay, parts, st, specs, by_device, unknown, down)


def _down(specs: list[Supplies | None], by_device: dict[int, Counter[Feed]], shelves: list[int],
          shelves_on: Counter[Feed], busbar_w: float) -> tuple[tuple[Feed, int], ...]:
    """(feed lost, device slot) of every device that losing the feed leaves with fewer supplies than it
    needs (N of N+M), or, on a rack's busbar, whose surviving shelves carry less than the busbar's draw."""
    out = []
    shelf = specs[shelves[0]] if shelves else None
    for lost in FEEDS:
        left_w = sum(n for f, n in shelves_on.items() if f != lost) * (shelf.rating_w if shelf else 0.0)
        for s, sp in enumerate(specs):
            if sp is None or s in shelves:
                continue
            if shelves or sp.inlet == BUSBAR:
                if left_w < busbar_w - 1e-6:
                    out.append((lost, s))
            elif s in by_device and sum(v for f, v in by_device[s].items() if f != lost) < sp.needed:
                out.append((lost, s))
    return tuple(out)


def _loads(cords: tuple[Cord, ...], lay: Layout, parts: Parts, st: _Rack, specs: list[Supplies | None],
           by_device: dict[int, Counter[Feed]], unknown: tuple[int, ...],
           down: tuple[tuple[Feed, int], ...]) -> RackPower:
    o = parts.pdu
    volts, cont = o.volts("outlet_voltage"), o.continuous
    phase_rating = volts * o.amps("current") * cont
    bank_rating = volts * o.amps("bank_breaker") * cont
    phase: dict[tuple[int, int], list[float]] = defaultdict(lambda: [0.0, 0.0])
    bank: dict[tuple[int, int], list[float]] = defaultdict(lambda: [0.0, 0.0])
    for c in cords:
        if c.phase < 0:   # a whip: its three phases alike
            for ph in range(o.phases):
                phase[c.pdu, ph][0] += c.load_w / o.phases
                phase[c.pdu, ph][1] += c.failover_w / o.phases
        else:
            phase[c.pdu, c.phase][0] += c.load_w
            phase[c.pdu, c.phase][1] += c.failover_w
            bank[c.pdu, c.bank][0] += c.load_w
            bank[c.pdu, c.bank][1] += c.failover_w
    n = len(st.pdus)
    phases = tuple(_record(Load, (i, -1, ph, st.pdus[i].feed, phase[i, ph][0], phase[i, ph][1], phase_rating))
                   for i in range(n) for ph in range(o.phases))
    banks = tuple(_record(Load, (i, b, b % o.phases, st.pdus[i].feed, bank[i, b][0], bank[i, b][1], bank_rating))
                  for i in range(n) for b in range(o.banks) if (i, b) in bank)
    pdus = tuple(Load(i, -1, -1, st.pdus[i].feed, sum(phase[i, ph][0] for ph in range(o.phases)),
                      sum(phase[i, ph][1] for ph in range(o.phases)), phase_rating * o.phases) for i in range(n))
    feeds = tuple(Load(-1, -1, -1, f, sum(p.normal_w for p in pdus if p.feed == f),
                       sum(p.failover_w for p in pdus if p.feed == f),
                       sum(p.rating_w for p in pdus if p.feed == f)) for f in FEEDS)
    draw = sum(item.power_w for item, _ in lay.slots)
    return RackPower(cords, phases, banks, pdus, feeds, draw, tuple(st.short), down, unknown)


def pdus_needed(lay: Layout, parts: Parts) -> int:
    """The PDUs a rack layout's devices need for their outlets (both feeds alike, so twice the busier
    feed's): a power shelf's whip takes a PDU's whole circuit; the cords of each outlet type fill whole
    PDUs. The placement stands at least these (and as many as its power budget needs). Each item object's
    slots counted in C and its supplies looked up once (a rack holds dozens of one switch)."""
    o = parts.pdu
    items = [item for item, _ in lay.slots]
    slots = Counter(map(id, items))
    specs = [(parts.supplies(item), slots[key]) for key, item in dict(zip(map(id, items), items, strict=True)).items()
             if item.role != Layer.PDU]
    shelves = sum(n for sp, n in specs if sp is not None and sp.inlet == WHIP)
    need: Counter[str] = Counter()
    if not shelves:
        for sp, n in specs:
            if sp is not None and sp.inlet in OUTLET_FOR:
                need[OUTLET_FOR[sp.inlet]] += n * -(-sp.count // len(FEEDS))
    have: dict[str, int] = {str(k): v for k, v in o.outlets.items()}
    per_feed = -(-shelves // len(FEEDS)) + max((-(-n // have[kind]) if have.get(kind) else n
                                               for kind, n in need.items()), default=0)
    return per_feed * len(FEEDS)


# --- the closed form --------------------------------------------------------------------------

class Plans:
    """Each rack layout's plan, made once per power shape: layouts whose slots draw alike (the shared
    racks' mixes of spines, cores and leaves of one switch row) have one plan (:func:`shape_of`)."""

    def __init__(self, parts: Parts) -> None:
        self.parts = parts
        self._by: dict[tuple[object, ...], RackPower] = {}
        #: By the layout object first: racks of a section share one.
        self._ids: dict[int, tuple[Layout, RackPower]] = {}

    def __call__(self, lay: Layout) -> RackPower:
        hit = self._ids.get(id(lay))
        if hit is not None:
            return hit[1]
        key = shape_of(lay, self.parts)
        p = self._by.get(key)
        if p is None:
            p = self._by[key] = rack_plan(lay, self.parts)
        self._ids[id(lay)] = (lay, p)   # the layout kept, so its id is not reused
        return p


def shape_of(lay: Layout, parts: Parts) -> tuple[object, ...]:
    """What :func:`rack_plan` reads of a layout: the rack's height, and per slot whether it is a PDU, the
    device's supplies (the catalog's object, by identity), its power and its U. Two layouts of one shape
    have one plan (the plan names slots by number, never by role)."""
    supplies = parts.supplies
    return (lay.rack.u_budget, tuple([(item.role == Layer.PDU, id(supplies(item)), item.power_w, u)
                                      for item, u in lay.slots]))


#: The last catalog's and PDU's :class:`Plans` (:func:`plans_of`).
_LAST: list[tuple[Catalog, str, Plans]] = []
#: Layouts :func:`plans_of` keeps planned before it starts again (a sweep or a test run builds many designs in a
#: process with one catalog; a build has tens of layouts, a million-GPU campus 24 shared-rack ones).
KEEP_LAYOUTS = 256


def plans_of(catalog: Catalog, pdu_id: str) -> Plans:
    """The rack layouts' plans of one catalog and PDU, shared by the calls that ask for the same two (the
    build's closed form and its cable plan's cords: each layout planned once a process, not once a
    consumer). The catalog is held, so its identity stands for its rows."""
    if _LAST and _LAST[0][0] is catalog and _LAST[0][1] == pdu_id and len(_LAST[0][2]._ids) < KEEP_LAYOUTS:
        return _LAST[0][2]
    plans = Plans(parts_of(catalog, pdu_id))
    _LAST[:] = [(catalog, pdu_id, plans)]
    return plans


def power_plan(placement: Placement, catalog: Catalog, pdu_id: str, feeds: Feeds) -> PowerPlan:
    """The closed form: every layout's plan once, times the racks that have it (work per section), and
    each row side's load (work per rack: a row's racks are few)."""
    plans = plans_of(catalog, pdu_id)
    parts = plans.parts
    # Counted by layout object first (a section's alike racks share one; hashing a layout hashes its every
    # slot), then equal layouts merged in the order first seen.
    by_id: dict[int, list] = {}
    for sites, sec in placement.all_sections():
        for lay in sec.layouts:
            hit = by_id.get(id(lay))
            if hit is None:
                hit = by_id[id(lay)] = [lay, 0, any(item.role == Layer.PDU for item, _ in lay.slots)]
            hit[1] += sites * sec.copies
    groups: dict[Layout, int] = Counter()
    for lay, racks, powered in by_id.values():
        if powered:
            groups[lay] += racks
    cords: Counter[tuple[str, str, float]] = Counter()
    out = []
    for lay, racks in groups.items():
        p = plans(lay)
        for c in p.cords:
            cords[c.part, c.part_number, c.sold_m] += racks
        out.append(RackGroup(lay.kind, lay.rack.catalog_id, racks, p,
                             tuple((item.role, item.catalog_id) for item, _ in lay.slots)))
    o = parts.pdu
    return PowerPlan(tuple(out), tuple(sorted(cords.items())), _sides(placement, plans, feeds), o.continuous,
                     o.continuous_source)


def _sides(placement: Placement, plans: Plans, feeds: Feeds) -> tuple[RowSides, ...]:
    """Each row's A and B sides (the distribution model: module docstring of bom.model.power), once for
    each run of sites that stand alike: the rows of a site shape's sections are summed once per shape
    (every site of it alike), its sites' own racks (rows of their own) once per run of sites whose own
    racks stand alike."""
    rating = magnitude(feeds.row_capacity, "power") if feeds.row_capacity is not None else 0.0
    fed: dict[int, tuple[Load, ...]] = {}   # by layout object: a section's racks share theirs

    def add(loads: dict[tuple[int, Feed], list[float]], rows: Iterator[tuple[int, Layout]]) -> None:
        for row, lay in rows:
            feeds_of = fed.get(id(lay))
            if feeds_of is None:
                feeds_of = fed[id(lay)] = (plans(lay).feeds if any(item.role == Layer.PDU for item, _ in lay.slots)
                                           else ())
            for f in feeds_of:
                acc = loads[row, f.feed]
                acc[0] += 1
                acc[1] += f.normal_w
                acc[2] += f.failover_w

    out: list[RowSides] = []
    site = 0
    for shape in placement.sites:
        common: dict[tuple[int, Feed], list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
        for racks, copies, step in placement.site_row_copies(site + 1, shape):
            if copies == 1:
                add(common, iter(racks))
                continue
            # A section's copies stand in rows of their own: a row's sums are its first copy's, row for row.
            first: dict[tuple[int, Feed], list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
            add(first, iter(racks))
            for copy in range(copies):
                common.update(((row + copy * step, feed), list(acc)) for (row, feed), acc in first.items())
        # A site's sides in (row, feed) order: the same as the last site's where its own racks are (by row).
        last: tuple[tuple[int, int], ...] | None = None
        for _ in range(shape.count):
            site += 1
            own = list(placement.site_rack_rows(site, shape, own=True))
            key = tuple((row, id(lay)) for row, lay in own)
            if key == last:
                out[-1] = out[-1]._replace(sites=out[-1].sites + 1)
                continue
            loads: dict[tuple[int, Feed], list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
            loads.update((k, list(v)) for k, v in common.items())
            add(loads, iter(own))
            sides = tuple((row, int(n), feed, normal, failover) for (row, feed), (n, normal, failover)
                          in sorted(loads.items()))
            out.append(RowSides(site, 1, sides, rating))
            last = key
    return tuple(out)



R = TypeVar("R", Cord, Load)
#: Each record's field names, in order.
_FIELDS: dict[type, tuple[str, ...]] = {cls: tuple(f.name for f in fields(cls)) for cls in (Cord, Load)}


def _record(cls: type[R], values: tuple[object, ...]) -> R:
    """A frozen record of its fields' values in order, equal to ``cls(*values)``. A frozen dataclass's
    ``__init__`` sets each field through ``object.__setattr__``; the power plan makes many (a cord per supply and
    a load per phase, bank, PDU and feed of every rack plan)."""
    obj = object.__new__(cls)
    obj.__dict__.update(zip(_FIELDS[cls], values, strict=True))
    return obj


# --- the pattern --------------------------------------------------------------------------------

@dataclass(frozen=True)
class PowerView(View):
    """The racks as the power plan sees them: the placement and each layout's plan."""

    plans: Plans | None = None

    @classmethod
    def of(cls, placement: Placement, plans: Plans) -> PowerView:
        return cls(FabricKind.POWER, FabricKind.POWER, [(s.count, None) for s in placement.sites], (), placement,
                   plans)

    @property
    def plan(self) -> Plans:
        assert self.plans is not None
        return self.plans


def outlet_name(c: Cord) -> str:
    """A PDU outlet's port name (``o07``; a whip's end on the PDU's circuit: ``circuit``)."""
    return "circuit" if c.outlet < 0 else f"o{c.outlet + 1:02d}"


def supply_name(c: Cord, role: str) -> str:
    """A device supply's port name (``psu1``; a power shelf's AC input: ``ac1``)."""
    return f"{'ac' if role == Layer.POWER_SHELF else 'psu'}{c.supply + 1}"


class PduSupply(Pattern[PowerView]):
    """Every device supply of every rack on a PDU outlet of its feed (:func:`rack_plan`)."""

    hop, lower, upper = HopKind.PDU_SUPPLY, Layer.PDU, Layer.SUPPLY

    def applies(self, ctx: HopContext[PowerView]) -> bool:
        return ctx.view.placement is not None

    def plan_sites(self, view: PowerView) -> Iterator[int]:
        assert view.placement is not None
        return iter(range(1, sum(s.count for s in view.placement.sites) + 1))

    def pairs(self, ctx: HopContext[PowerView]) -> Iterator[Item]:
        """Each section of the site a :class:`Section`: every copy's racks alike, a pair a cord (the PDU and
        the device by their slot in the rack, the outlet and supply named as the plan names them)."""
        view = ctx.view
        placement = view.placement
        assert placement is not None
        per = placement.racks_per_row
        for _, sec, start in placement.site_sections(ctx.site):
            def make(copy: int, sec: PlacedSection = sec, start: int = start) -> list[Pair]:
                out = []
                for n, lay in enumerate(sec.layouts):
                    spot = sec.spot(start, copy, n, per)
                    for c in view.plan(lay).cords:
                        role = lay.slots[c.device][0].role
                        out.append(Pair((Layer.PDU, c.pdu), (role, c.device), 1, c.feed,
                                        PHASE_NAMES[c.phase] if c.phase >= 0 else "",
                                        Fixed(outlet_name(c), outlet_name(c)),
                                        Fixed(supply_name(c, role), supply_name(c, role)), (spot, spot)))
                return out
            yield Section(sec.copies, make)

    def link(self, ctx: HopContext[PowerView]) -> Link:
        """No media lookup: a cord is chosen by its inlet (:func:`rack_plan`)."""
        return Link(0.0, "", "", None)

    def count(self, ctx: HopContext[PowerView]) -> list[LinkGroup]:
        """Power cords are no link groups: their closed form is :func:`power_plan`."""
        return []

    def rows(self, ctx: HopContext[PowerView]) -> Rows:
        """Every rack of the site in row order, a row per cord: each rack layout's cords made once into
        what its racks' rows share (:func:`_cords`), then a rack's rows at a time."""
        return itertools.chain.from_iterable(self._racks(ctx))

    def _racks(self, ctx: HopContext[PowerView]) -> Iterator[list[PlanRow]]:
        plan, view = ctx.plan, ctx.view
        placement = view.placement
        assert plan is not None and placement is not None
        shape = placement.sites[view.shape_of(ctx.site)]
        # by layout object, kept beside its cords so its id is not reused: a section's racks share one
        made: dict[int, tuple[Layout, list[_CordRow]]] = {}
        site = names.site(ctx.site)
        for _, _, lay, rack in placement.site_racks(ctx.site, shape):
            hit = made.get(id(lay))
            if hit is None:
                hit = made[id(lay)] = (lay, _cords(lay, view.plan(lay)))
            if hit[1]:
                yield _rack_rows(plan.cable, plan.link, site, rack, hit[1])


#: A cord's row as its rack layout gives it, the rack's id and row left out: the PDU's name past the rack's
#: id, what its label has between the rack's id and the rack's id again, after it, the device's name past
#: the rack's id, the fields before the site, each end's U, role and port, and the fields past the
#: device's port (:func:`_rack_rows`).
_CordRow = tuple[str, str, str, str, tuple[object, ...], int, str, str, int, str, str, tuple[object, ...]]


def _cords(lay: Layout, p: RackPower) -> list[_CordRow]:
    """Each cord of a rack layout as every rack of it writes it: the PDU's outlet to the device's supply,
    the feed in the plane column and the phase in the rail column, the bank in ``via``; the devices named
    as :meth:`Placement.elevation` names them (their role's count in the rack, bottom up)."""
    seen: Counter[str] = Counter()
    suffix: list[str] = []
    pdus: list[int] = []
    for s, (item, _) in enumerate(lay.slots):
        seen[item.role] += 1
        suffix.append(names.device("", item.role, seen[item.role]))
        if item.role == Layer.PDU:
            pdus.append(s)
    out: list[_CordRow] = []
    for c in p.cords:
        a, b = pdus[c.pdu], c.device
        (pdu, pdu_u), (dev, dev_u) = lay.slots[a], lay.slots[b]
        a_port, b_port = outlet_name(c), supply_name(c, dev.role)
        # names.unit reads a 0U device's index off its name's end, which the rack's id does not change
        a_unit, b_unit = names.unit(pdu_u, suffix[a]), names.unit(dev_u, suffix[b])
        out.append((suffix[a], f"-{a_unit}:{a_port} / ", f"-{b_unit}:{b_port}", suffix[b],
                    (FabricKind.POWER, FabricKind.POWER, HopKind.PDU_SUPPLY, c.feed,
                     PHASE_NAMES[c.phase] if c.phase >= 0 else ""),
                    pdu_u, pdu.role, a_port, dev_u, dev.role, b_port,
                    ("", FabricKind.POWER, 0.0, c.kind, c.part_number, 0, c.length_m, c.sold_m, "in-rack", 0,
                     f"bank {c.bank + 1}" if c.bank >= 0 else "")))
    return out


def _rack_rows(cable: Iterator[int], link: Iterator[int], site: str, rack: Rack, cords: list[_CordRow]
               ) -> list[PlanRow]:
    """One rack's rows, a cord's row from what its layout gives it (:func:`_cords`) and the rack."""
    rid, row = rack.id, f"r{rack.row:02d}"
    return [(f"C{next(cable):08d}", f"{rid}{mid}{rid}{tail}", f"L{next(link):08d}", "", *head,
             site, row, rid, a_u, rid + a_name, a_role, a_port, "",
             site, row, rid, b_u, rid + b_name, b_role, b_port, *post)
            for a_name, mid, tail, b_name, head, a_u, a_role, a_port, b_u, b_role, b_port, post in cords]


PDU_SUPPLY = PduSupply()
