"""One pattern per hop, one walk for both consumers.

A :class:`Pattern` says once what a hop joins: whether a site has it (:meth:`Pattern.applies`), its
pairs of devices in the plan's order (:meth:`Pattern.pairs`: each lower device and upper device,
how many links join them and how the plan names each end's port; a repeated section of the site
given once with its copies, :class:`Section`; every lower device to every upper device,
:class:`Mesh`) and the link's rate and cages for the media lookup (:meth:`Pattern.link`). The closed
form's walk may give shorthands the plan never sees where it would otherwise walk a device at a time
(:class:`Fan`, :class:`Star`): each fills both ends' tables as the pairs it stands for would, in the
plan's order. From the pairs the base class derives both consumers:

- :meth:`Pattern.count`, the closed form: each pair on the run between where its two devices stand,
  a section's first copy standing for all its copies, every site of a shape for all of them, the
  ends grouped by their runs (:class:`~bom.topology.geometry.Profiles`) and counted by
  :func:`~bom.topology.linkgroups.count_hop`: work per section, never per cable;
- :meth:`Pattern.rows`, the cable plan: every pair of one site, every copy, every link, each end's
  port taken from its device's cages (:class:`~bom.links.ports.Ports`) as the BOM counts them.

A pattern may override :meth:`Pattern.rows` for speed (the hops with the most rows do); the
referee, ``tests/links``, checks every pattern's overridden rows against the rows its pairs give,
and its count against its rows, on small synthetic fabrics.

A pattern reads its fabric only through the :class:`HopContext`: the fabric as hops see it (its
view: :mod:`bom.links.views`), the floor plan, the media, and the site being walked with the plan's
port bookkeeping when the plan walks it.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar, Generic, NamedTuple, TypeVar

from bom.errors import LimitError
from bom.model.records import PlanRow
from bom.roles import Tier
from bom.topology.geometry import Profiles, by_spot, route, runs_apart
from bom.topology.linkgroups import count_hop

if TYPE_CHECKING:
    from bom.catalog.media import Media
    from bom.links.ports import Kind, PortEnd, RowState, Switches
    from bom.links.views import View
    from bom.model.floorplan import EndGroups, Floorish, FloorPlan, Run
    from bom.model.hops import HopKind
    from bom.model.linkgroups import LinkGroup
    from bom.model.plane import Plane
    from bom.roles import Layer

Rows = Iterator[PlanRow]
#: Rows a pattern makes before handing them on (a section copy is made whole, so a batch may be more).
BATCH = 4096
#: A device of the site: (role, site-local index from 0).
Dev = tuple[str, int]
Spot = tuple[int, int]


class Fixed(NamedTuple):
    """A port the device has by name (a node's NIC port, a router's client port, a management port)."""

    port: str
    cage: str

    def at(self, key: Hashable, per: int) -> tuple[str, str]:
        return self.port, self.cage


class ByModule:
    """The ``nth`` port of a device whose port names depend on the ports one module serves
    there (an endpoint's 100G ports on a splitter's heads: ``names(per)``); each ``per``'s answer
    worked out once (a pattern hands the same end to every node of a section)."""

    __slots__ = ("_at", "names", "nth")

    def __init__(self, names: Callable[[int], Sequence[str]], nth: int) -> None:
        self.names, self.nth = names, nth
        self._at: dict[int, tuple[str, str]] = {}

    def at(self, key: Hashable, per: int) -> tuple[str, str]:
        out = self._at.get(per)
        if out is None:
            names = self.names(per)
            i = self.nth
            out = self._at[per] = (names[i], names[i - i % per])
        return out


class Pair(NamedTuple):
    """``links`` links between two devices of a site. ``a`` and ``b`` say how the plan names the two
    ends' ports (only the plan reads them); ``spots``, where the two stand when the devices are not
    found by role and index (the management network's devices, found by rack)."""

    lower: Dev
    upper: Dev
    links: int = 1
    plane: int | str = ""
    rail: int | str = ""
    a: PortEnd | None = None
    b: PortEnd | None = None
    spots: tuple[Spot, Spot] | None = None
    #: Lower devices alike in the pair, each with ``links`` links (the upper device takes them all);
    #: the closed form's shorthand for a rack's devices on one switch.
    many: int = 1
    #: The run, where it is not between two places (to a network the scenario does not build).
    run: Run | None = None


class Mesh(NamedTuple):
    """Every device of ``lower`` joined to every device of ``upper`` by ``per_pair`` links (a pod's leaves
    and spines), lower device by lower device in the plan. The closed form counts it rack by rack
    (:func:`~bom.topology.geometry.between`); ``tag`` tells this set from others in the same racks, at
    both ends or (lower, upper) where a device's links span several sets (a core takes one spine of
    every pod). ``a(i)``/``b(i)``: each device's cage range (the plan's)."""

    lower_role: str
    lower: Sequence[int]
    upper_role: str
    upper: Sequence[int]
    per_pair: int
    plane: int | str
    tag: object
    a: Callable[[int], PortEnd] | None = None
    b: Callable[[int], PortEnd] | None = None


class Section(NamedTuple):
    """A repeated section of the site (a placement section's copies: a scalable unit, a row of racks):
    ``make(copy)`` gives one copy's pairs. The closed form reads copy 0 for all ``copies`` (copies
    stand alike, a whole number of rows apart); the plan reads every copy in order."""

    copies: int
    make: Callable[[int], Iterable[Pair]]


class Fan(NamedTuple):
    """The closed form's shorthand for many pairs of one link each between devices found by index (a
    site's management switches to its OOB spines): ``ends`` gives each pair's (lower, upper) index in
    the plan's order, ``lower_at`` and ``upper_at`` where each device of the two roles stands. Counted
    as those pairs are, without a :class:`Pair` each; a lower device's links come one after another and
    in no other item of the walk (so it is counted by its profile, not kept device by device)."""

    lower_role: str
    upper_role: str
    ends: Iterable[tuple[int, int]]
    lower_at: Sequence[Spot]
    upper_at: Sequence[Spot]


class Star(NamedTuple):
    """The closed form's shorthand for a :class:`Mesh` of one lower device each: devices of ``lower_role``,
    each joined by ``per_pair`` links to every device of one set of ``upper_role`` (a pod's spine ``s`` to
    core group ``s``). ``ends`` gives each lower device's index with its set (a list: the same object for
    the same set) and the set's tag, in the plan's order; a lower device is in no other item of the walk
    (so it is counted by its profile, not kept device by device)."""

    lower_role: str
    upper_role: str
    per_pair: int
    ends: Iterable[tuple[int, Sequence[int], object]]


Item = Pair | Mesh | Section | Fan | Star


class Tags(NamedTuple):
    """A mesh's sets at its two ends, where they differ."""

    lower: object
    upper: object


class Link(NamedTuple):
    """The lookup's key for a hop: rate, the cage at each end, the lane rate."""

    rate_gbps: float
    ff_lower: str
    ff_upper: str
    lane_gbps: float | None


V = TypeVar("V", bound="View")
T = TypeVar("T")


@dataclass
class HopContext(Generic[V]):
    """What a pattern reads: the fabric as the hops see it (``view``), the floor plan, and either the
    media (the closed form) or one site's port bookkeeping (the plan: ``plan``, ``switches``,
    ``kinds``). ``shape`` is the site shape walked, ``site`` a site of it (from 1) and ``sites`` how
    many sites the walk stands for (the closed form: every site of the shape; the plan: one)."""

    view: V
    fp: FloorPlan
    media: Media | None = None
    shape: int = 0
    site: int = 1
    sites: int = 1
    plan: RowState | None = None
    switches: Switches | None = None
    kinds: dict[Run, Kind] = field(default_factory=dict)
    #: The groups the closed form has counted so far on this fabric (a later hop may share their cages).
    groups: list[LinkGroup] = field(default_factory=list)
    #: Why an endpoint's own part was not used, by role (the closed form fills it: ``endpoint_substitutions``).
    substitutions: dict[str, str] = field(default_factory=dict)
    #: The closed form's :meth:`per_shape` answers (one count of one fabric: its view and placement).
    memo: dict[Hashable, object] = field(default_factory=dict)

    @property
    def p(self) -> Plane:
        """The plane of one site of the walked shape."""
        p = self.view.shapes[self.shape][1]
        assert p is not None
        return p

    @property
    def floor(self) -> Floorish:
        return self.view.floors[self.shape]

    @property
    def expanding(self) -> bool:
        """The plan walks (ports are named and taken), not the closed form."""
        return self.plan is not None

    def at(self, shape: int, site: int, sites: int) -> HopContext[V]:
        return replace(self, shape=shape, site=site, sites=sites)

    def per_shape(self, key: Hashable, make: Callable[[], T]) -> T:
        """What ``make()`` gives for the walked site's shape (``key`` says what it is): worked out once
        per shape while the plan walks its sites (every site of a shape alike), and once per shape in one
        closed form's count of the fabric (its hops ask again: whether they apply, their pairs, their
        modules)."""
        memo = self.memo if self.plan is None else self.plan.memo
        k = (key, self.view.name, self.shape)
        if k not in memo:
            memo[k] = make()
        return memo[k]  # type: ignore[return-value]  # what make() gave for this key

    def spot(self, dev: Dev) -> Spot:
        """Where a device of the walked site stands (the plan's own cache while it walks)."""
        if self.plan is not None:
            return self.plan.spot(dev[0], self.site, dev[1])
        return self.view.spot(self.shape, self.site, dev[0], dev[1])


class _Adder:
    """One site shape's pairs added to its two ends: each pair on the run between where its devices
    stand, a section's first copy for all its copies. A device's place and the run between two places
    are looked up once per walk (a switch takes many pairs; many pairs join the same two racks); a pair
    goes straight into the two ends' device tables (:class:`~bom.topology.geometry.Profiles`: a device's
    ports summed per run, so consecutive pairs of the same two devices need no joining first)."""

    __slots__ = ("a", "apart", "b", "ctx", "fp", "lo", "runs", "sets", "spots", "up")

    def __init__(self, ctx: HopContext[Any], a: Profiles, b: Profiles) -> None:
        self.ctx, self.a, self.b, self.fp = ctx, a, b, ctx.fp
        self.lo, self.up = a.devices, b.devices
        self.spots: dict[Dev, Spot] = {}
        self.runs: dict[tuple[Spot, Spot], Run] = {}
        #: Runs by how far apart two racks stand (rows, places; signed): the walks of many distinct rack
        #: pairs (a mesh, a fan, a star) meet few distances, and :func:`route` depends on nothing else;
        #: shared by every walk on the floor plan (:func:`~bom.topology.geometry.runs_apart`).
        self.apart = runs_apart(ctx.fp)
        self.sets: dict[tuple[str, tuple[int, ...]], dict[Spot, int]] = {}

    def spot(self, dev: Dev) -> Spot:
        s = self.spots.get(dev)
        if s is None:
            s = self.spots[dev] = self.ctx.spot(dev)
        return s

    def racks(self, role: str, devices: Sequence[int]) -> dict[Spot, int]:
        """A mesh end's devices by rack (a core group meets spine ``s`` of every pod: the same set)."""
        if len(devices) == 1:   # a spine of a pod to its core group: a set of its own
            return {self.ctx.floor.spots(role)[devices[0]]: 1}
        key = (role, tuple(devices))
        out = self.sets.get(key)
        if out is None:
            out = self.sets[key] = by_spot(self.ctx.floor, role, devices)
        return out

    def pair(self, item: Pair, copies: int) -> None:
        """:meth:`Profiles.add <bom.topology.geometry.Profiles.add>` of both ends, inline (a hop may have
        a pair per device of a site)."""
        lower, upper, links, _, _, _, _, spots, many, run = item
        if run is None:
            if spots is None:
                known = self.spots
                spots = (known.get(lower) or self.spot(lower), known.get(upper) or self.spot(upper))
            run = self.runs.get(spots)
            if run is None:
                run = self.runs[spots] = route(spots[0], spots[1], self.fp)
        d = self.lo.get(lower)
        if d is None:
            d = self.lo[lower] = [copies * many, {}]
        runs = d[1]
        runs[run] = runs.get(run, 0) + links
        d = self.up.get(upper)
        if d is None:
            d = self.up[upper] = [copies, {}]
        runs = d[1]
        runs[run] = runs.get(run, 0) + links * many

    def mesh(self, item: Mesh) -> None:
        """:func:`~bom.topology.geometry.between`, with the walk's runs and both ends' tables inline: each
        rack's entry at both ends found once, not once per rack pair."""
        tag = item.tag
        lo_tag, up_tag = tag if isinstance(tag, Tags) else (tag, tag)
        per, lo, up, apart, fp = item.per_pair, self.lo, self.up, self.apart, self.fp
        a_spots = self.racks(item.lower_role, item.lower)
        b_spots = self.racks(item.upper_role, item.upper)
        if not a_spots:
            return
        ups = []
        for b, nb in b_spots.items():
            d = up.get((up_tag, b))
            if d is None:
                d = up[up_tag, b] = [nb, {}]
            ups.append((b, nb * per, d[1]))
        if not ups:
            return
        for a, na in a_spots.items():
            d = lo.get((lo_tag, a))
            if d is None:
                d = lo[lo_tag, a] = [na, {}]
            mine, theirs = d[1], na * per
            for b, nb_per, r in ups:
                run = apart.get((a[0] - b[0], a[1] - b[1]))
                if run is None:
                    run = apart[a[0] - b[0], a[1] - b[1]] = route(a, b, fp)
                mine[run] = mine.get(run, 0) + nb_per
                r[run] = r.get(run, 0) + theirs

    def fan(self, item: Fan, copies: int) -> None:
        """:meth:`pair` of each of the fan's pairs (one link each), as C-level passes over the fan: each
        distinct pair of racks routed once, each lower device's runs added up over its links (a device of one
        link: its devices counted per run, not one by one) and counted under its profile, each upper
        device's runs counted over its pairs; both tables filled in the order the pairs would fill them."""
        lower_role, upper_role, ends, lower_at, upper_at = item
        got = list(zip(*ends, strict=True))
        if not got:
            return
        ns, ss = got
        lo, up = self.lo, self.up
        runs = self._fan_runs(list(zip(map(lower_at.__getitem__, ns), map(upper_at.__getitem__, ss), strict=True)))
        if len(set(ns)) == len(ns):   # a link a lower device: its profile is its run
            for run, devices in Counter(runs).items():
                _profiled(lo, lower_role, {run: 1}, copies * devices)
        else:   # a lower device's links come one after another: its runs added up (a few a device)
            cur = ns[0]
            prof: dict[Run, int] = {}
            for n, run in zip(ns, runs, strict=True):
                if n != cur:
                    _profiled(lo, lower_role, prof, copies)
                    cur, prof = n, {}
                prof[run] = prof.get(run, 0) + 1
            _profiled(lo, lower_role, prof, copies)
        by_upper = sorted(range(len(ss)), key=ss.__getitem__)   # stable: each device's pairs in the walk's order
        counted = {s: Counter(map(runs.__getitem__, links))
                   for s, links in itertools.groupby(by_upper, ss.__getitem__)}
        for s in dict.fromkeys(ss):   # the upper devices in the order the walk first meets them
            d = up.get((upper_role, s))
            if d is None:
                up[upper_role, s] = [copies, dict(counted[s])]
            else:
                r = d[1]
                for run, n in counted[s].items():
                    r[run] = r.get(run, 0) + n

    def _fan_runs(self, spots: list[tuple[Spot, Spot]]) -> list[Run]:
        """The run of each pair of places, each distinct pair looked up once (by how far apart it stands)."""
        apart, fp = self.apart, self.fp
        known: dict[tuple[Spot, Spot], Run] = {}
        for key in dict.fromkeys(spots):
            a, b = key
            run = apart.get((a[0] - b[0], a[1] - b[1]))
            if run is None:
                run = apart[a[0] - b[0], a[1] - b[1]] = route(a, b, fp)
            known[key] = run
        return list(map(known.__getitem__, spots))

    def star(self, item: Star) -> None:
        """:meth:`mesh` of each lower device and its set, inline (both ends' tables as a mesh fills them)."""
        lower_role, upper_role, per, ends = item
        lo, up, apart, fp = self.lo, self.up, self.apart, self.fp
        at = self.ctx.floor.spots(lower_role)
        sets: dict[int, tuple[Sequence[int], list[tuple[Spot, int]]]] = {}
        for d, group, tag in ends:
            got = sets.get(id(group))
            if got is None:
                got = sets[id(group)] = (group, list(self.racks(upper_role, group).items()))
            a = at[d]
            prof: dict[Run, int] = {}
            for b, nb in got[1]:
                run = apart.get((a[0] - b[0], a[1] - b[1]))
                if run is None:
                    run = apart[a[0] - b[0], a[1] - b[1]] = route(a, b, fp)
                prof[run] = prof.get(run, 0) + nb * per
                e = up.get((tag, b))
                if e is None:
                    e = up[tag, b] = [nb, {}]
                r = e[1]
                r[run] = r.get(run, 0) + per
            _profiled(lo, lower_role, prof, 1)

    def __call__(self, item: Item, copies: int) -> None:
        if type(item) is Pair:
            self.pair(item, copies)
        elif isinstance(item, Fan):
            self.fan(item, copies)
        elif isinstance(item, Star):
            self.star(item)
        elif isinstance(item, Mesh):
            self.mesh(item)
        elif isinstance(item, Section):
            pair = self.pair
            for one in item.make(0):
                pair(one, copies * item.copies)
        else:   # a subclass of Pair
            self.pair(item, copies)


def _profiled(table: dict[object, list], role: str, runs: dict[Run, int], devices: int) -> None:
    """``devices`` devices of ``role`` with ``runs`` in a device table, under their profile: devices of one
    profile are one entry (:meth:`Profiles.groups <bom.topology.geometry.Profiles.groups>` groups by it)."""
    key = (role, tuple(runs.items()))
    d = table.get(key)
    if d is None:
        table[key] = [devices, runs]
    else:
        d[0] += devices


class Pattern(Generic[V]):
    """One hop's pattern. Subclasses set ``hop``, ``lower`` and ``upper`` (the layers at its two ends,
    :data:`bom.model.hops.HOPS`) and define :meth:`pairs` and :meth:`link`; :meth:`applies` says
    whether a site has the hop (both consumers ask it, and only it)."""

    hop: HopKind
    lower: Layer
    upper: Layer
    #: An endpoint's hop on the fabric (the UFM's, storage's, management ports'): the closed form lists
    #: a fabric's own links (its nodes' and its switch layers') first, then its endpoints'.
    attached: ClassVar[bool] = False

    def applies(self, ctx: HopContext[V]) -> bool:
        return True

    def pairs(self, ctx: HopContext[V]) -> Iterator[Item]:
        """The hop's pairs in one site of the walked shape, in the plan's order."""
        raise NotImplementedError

    def link(self, ctx: HopContext[V]) -> Link | Sequence[Link]:
        """The links' rate, cages and lane for the lookup (several: the ways to try, in order)."""
        raise NotImplementedError

    # -- the closed form ---------------------------------------------------------------------
    def ends(self, ctx: HopContext[V]) -> tuple[EndGroups, EndGroups]:
        """Both ends over every site: each pair on its run, grouped by device (a walk per site shape)."""
        lo: EndGroups = []
        up: EndGroups = []
        for k, site, sites in ctx.view.units():
            one = ctx.at(k, site, sites)
            if not self.applies(one):
                continue
            a, b = Profiles(), Profiles()
            add = _Adder(one, a, b)
            for item in self.pairs(one):
                add(item, 1)
            lo += a.groups(sites)
            up += b.groups(sites)
        return lo, up

    @staticmethod
    def _route(ctx: HopContext[V], item: Pair) -> Run:
        spots = item.spots or (ctx.spot(item.lower), ctx.spot(item.upper))
        return route(spots[0], spots[1], ctx.fp)

    def count(self, ctx: HopContext[V]) -> list[LinkGroup]:
        """The hop's link groups over every site (the closed form): the first of :meth:`link`'s ways
        the catalog has parts for."""
        lo, up = self.ends(ctx)
        if not lo:
            return []
        way = self.link(ctx)
        first: LimitError | None = None
        for w in [way] if isinstance(way, Link) else way:
            try:
                return self.count_way(ctx, w, lo, up)
            except LimitError as exc:
                first = first or exc
        assert first is not None
        return self.unjoined(ctx, first, lo, up)

    def layers(self, ctx: HopContext[V]) -> tuple[Layer, Layer]:
        """The closed form's layers at the two ends (``LinkGroup.lower`` / ``.upper``)."""
        return self.lower, self.upper

    def count_way(self, ctx: HopContext[V], way: Link, lo: EndGroups, up: EndGroups) -> list[LinkGroup]:
        """The link groups of both ends at one way's rate and cages (:func:`count_hop`)."""
        assert ctx.media is not None and isinstance(ctx.view.tier, Tier)   # a link tier: the power family counts none
        lower, upper = self.layers(ctx)
        return count_hop(ctx.media, ctx.fp, fabric=ctx.view.name, tier=ctx.view.tier, hop=self.hop,
                         lower=lower, upper=upper, lower_groups=lo, upper_groups=up,
                         rate_gbps=way.rate_gbps, ff_lower=way.ff_lower, ff_upper=way.ff_upper,
                         lane_gbps=way.lane_gbps)

    def unjoined(self, ctx: HopContext[V], exc: LimitError, lo: EndGroups, up: EndGroups) -> list[LinkGroup]:
        """When the catalog has no part for any way: an error (an endpoint's hop may count its port as
        the nodes' instead, and say so)."""
        raise exc

    # -- the plan ------------------------------------------------------------------------------
    def plan_sites(self, view: V) -> Iterable[int]:
        """The sites the plan walks the hop at (each site; a hop between sites walks once)."""
        return range(1, sum(count for count, _ in view.shapes) + 1)

    def rows(self, ctx: HopContext[V]) -> Rows:
        """The hop's rows in the walked site: every pair of every copy, every link, each end's port.
        Made a section copy (or a mesh, or a run of single pairs) at a time into one list, handed on
        by a C-level chain: no generator step per row."""
        return itertools.chain.from_iterable(self._batches(ctx))

    def _batches(self, ctx: HopContext[V]) -> Iterator[list[PlanRow]]:
        out: list[PlanRow] = []
        for item in self.pairs(ctx):
            if isinstance(item, Section):
                for c in range(item.copies):
                    self._pair_rows(ctx, item.make(c), out)
                    if len(out) >= BATCH:
                        yield out
                        out = []
            elif isinstance(item, Mesh):
                self._mesh_rows(ctx, item, out)
            else:
                assert isinstance(item, Pair)   # a Fan or a Star is the closed form's shorthand only
                self._pair_rows(ctx, (item,), out)
            if len(out) >= BATCH:
                yield out
                out = []
        if out:
            yield out

    @staticmethod
    def _pair_rows(ctx: HopContext[V], pairs: Iterable[Pair], out: list[PlanRow]) -> None:
        plan = ctx.plan
        assert plan is not None
        plan.pair_rows(out, pairs, ctx.site, ctx.kinds, ctx.fp)

    @staticmethod
    def _mesh_rows(ctx: HopContext[V], item: Mesh, out: list[PlanRow]) -> None:
        plan = ctx.plan
        assert plan is not None and item.a is not None and item.b is not None
        plan.mesh_rows(out, (item.lower_role, item.lower, item.a), (item.upper_role, item.upper, item.b), item.per_pair,
                       item.plane, ctx.site, ctx.kinds, ctx.fp)


def ordered(patterns: Iterable[Pattern[V]]) -> list[Pattern[V]]:
    """The closed form's order: a fabric's own hops in registry order, then its endpoints' hops."""
    ps = list(patterns)
    return [p for p in ps if not p.attached] + [p for p in ps if p.attached]


