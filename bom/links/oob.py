"""The out-of-band fabric's hops, each one pattern (:mod:`bom.links.pattern`).

:class:`OobNodeLeaf` (hop ``node-leaf``): the management port of every managed device of a
placement section, in rack order, over the section's management switches, the ports split as
evenly as :func:`~bom.model.shares.split` splits them (the closed form groups a rack's devices by
the switch they go to; the plan hands each switch its share of the devices, device by device).

The management switches' uplinks: to a separate OOB spine layer (:class:`OobToSpines`, hop
``leaf-spine``) or to the site's in-band network when no in-band fabric is built
(:class:`OobToInband`, hop ``leaf-inband``). Into a built in-band fabric they are that fabric's
``oob-leaf`` endpoint hop (:mod:`bom.links.pooled`) and neither pattern applies. How many switches
stand where is the model's (:func:`bom.topology.support.oob_sections`).

The plan walks the management network hop by hop (every site's management ports, then every
site's uplinks), where a switch fabric is walked site by site.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from bom import names
from bom.catalog.media import cage
from bom.links.pattern import Fan, Fixed, HopContext, Item, Link, Pair, Pattern, Rows, Section
from bom.links.ports import Kind, Place, PlanMismatchError, Ports, port_names
from bom.links.views import OobLinks, uplink_names
from bom.model.hops import HopKind
from bom.model.records import PlanRow
from bom.model.shares import split
from bom.roles import Layer, RackKind
from bom.topology.geometry import route, unplaced_run
from bom.units import magnitude

if TYPE_CHECKING:
    from bom.model.fabrics import OobSection
    from bom.model.placement import Layout, Placement, Rack, SiteLayout

Spot = tuple[int, int]
#: (block section number, or None for the shared racks; managed devices' and management switches'
#: places, each with where its rack stands)
#: One rack of a copy: its kind, its managed devices and its management switches (in slot order).
OobRack = tuple[str, list, list]
#: (block section number, or None for the shared racks; the copy's racks, each device and switch a
#: plan place with where its rack stands)
Copy = tuple[int | None, list[OobRack]]


def assign(racks: list[tuple[str, int, int]]) -> Iterator[tuple[int, int, int, int]]:
    """One copy's managed devices over its management switches, from (kind, managed devices,
    switches) of each of its racks: (rack, switch number in the copy, its first port, devices),
    each rack's devices in order. A compute rack's devices go to its own switches (the RA's two in
    each NVL72 rack), every other device to the switches that stand outside the compute racks (the
    block's network rack, the shared racks), each group split as evenly as
    :func:`~bom.topology.geometry.split` splits it. The closed form and the cable plan both take
    this; the counts are :func:`bom.topology.support.oob_sections`'.

    >>> list(assign([("compute", 3, 2), ("network", 2, 1), ("compute", 1, 0)]))
    [(0, 0, 0, 2), (0, 1, 0, 1), (1, 2, 0, 2), (2, 2, 2, 1)]
    """
    first = 0
    pool: list[tuple[int, int]] = []
    pool_leaves: list[int] = []
    groups: list[tuple[list[tuple[int, int]], list[int]]] = []
    for r, (kind, managed, leaves) in enumerate(racks):
        nums = list(range(first, first + leaves))
        first += leaves
        if kind == RackKind.COMPUTE and leaves:
            groups.append(([(r, managed)] if managed else [], nums))
        else:
            pool += [(r, managed)] if managed else []
            pool_leaves += nums
    if pool:
        groups.append((pool, pool_leaves))
    for devs, nums in groups:
        total = sum(n for _, n in devs)
        if total and not nums:
            raise PlanMismatchError(f"{total} managed devices have no management switch to go to")
        at, left = 0, devs[0][1] if devs else 0
        li = 0
        for ports, count in split(total, len(nums)):
            for _ in range(count):
                j = 0
                while j < ports:
                    take = min(ports - j, left)
                    yield devs[at][0], nums[li], j, take
                    j += take
                    left -= take
                    if not left and at + 1 < len(devs):
                        at += 1
                        left = devs[at][1]
                li += 1


def _every_copy(pairs: list[Pair]) -> Callable[[int], list[Pair]]:
    """The same pairs in every copy of a section."""
    return lambda copy: pairs


#: A device of a rack layout as a plan names it in every rack of that layout: its U, role, name past the
#: rack's id and U as labels print it.
_Named = tuple[int, str, str, str]


def _managed(lay: Layout) -> tuple[list[_Named], list[_Named]]:
    """A rack layout's managed devices and its management switches, in slot order, named as
    :meth:`Placement.elevation` names them (their role's count in the rack, bottom up)."""
    seen: Counter[str] = Counter()
    devs: list[_Named] = []
    leaves: list[_Named] = []
    for item, u in lay.slots:
        seen[item.role] += 1
        if item.managed or item.role == HopKind.OOB_LEAF:
            suffix = names.device("", item.role, seen[item.role])
            # names.unit reads a 0U device's index off its name's end, which the rack's id does not change
            (devs if item.managed else leaves).append((u, item.role, suffix, names.unit(u, suffix)))
    return devs, leaves


def _places(site: str, rack: Rack, named: list[_Named]) -> list[tuple[Place, Spot]]:
    """Each device's place on a plan row, and where its rack stands."""
    rid, row, spot = rack.id, f"r{rack.row:02d}", (rack.row, rack.position)
    return [(((site, row, rid, u, rid + suffix, role), f"{rid}-{unit}"), spot) for u, role, suffix, unit in named]


def copies(placement: Placement, shape: SiteLayout, site: int, merged: bool = False) -> Iterator[Copy]:
    """Each copy of each block section of ``site``, then all its shared racks together.
    ``merged``: the site's one management switch takes the shared racks' devices too
    (:func:`bom.topology.support.oob_sections`)."""
    if merged:
        found = list(copies(placement, shape, site))
        if len(found) == 2 and found[-1][0] is None:
            (n, racks), (_, rest) = found
            yield n, racks + rest
            return
        yield from found
        return
    number = list(itertools.accumulate((sec.block for sec in shape.sections), initial=0))
    shared: list[OobRack] = []
    s = names.site(site)
    # each layout's devices named once (by the layout object, kept with them: a section's racks share one)
    named: dict[int, tuple[Layout, tuple[list[_Named], list[_Named]]]] = {}
    for (k, _), laid in itertools.groupby(placement.site_racks(site, shape), key=lambda r: r[:2]):
        block = k < len(shape.sections) and shape.sections[k].block   # a site's own racks are not a block
        racks = [] if block else shared
        for _, _, lay, rack in laid:
            hit = named.get(id(lay))
            if hit is None:
                hit = named[id(lay)] = (lay, _managed(lay))
            devs, leaves = hit[1]
            racks.append((lay.kind, _places(s, rack, devs), _places(s, rack, leaves)))
        if block:
            yield number[k], racks
    if any(devs for _, devs, _ in shared):
        yield None, shared


class OobNodeLeaf(Pattern[OobLinks]):
    """Every managed device's management port to its section's management switches."""

    hop, lower, upper = HopKind.NODE_LEAF, Layer.NODE, Layer.LEAF

    @staticmethod
    def sections(view: OobLinks, k: int) -> list[tuple[int | None, list[tuple[Spot, tuple[str, int, int]]], int]]:
        """Shape ``k``'s block sections and then its shared racks, as the management network
        groups them: (section number or None, each rack's spot in copy 0 and (kind, managed devices,
        management switches), copies); one management switch for a one-block site takes the shared
        racks' devices too (:func:`bom.topology.support.oob_sections`)."""
        placement, f = view.placement, view.oob
        assert placement is not None
        per = placement.racks_per_row
        shape = placement.sites[k]
        blocks, n_shared = f.per_shape[k] if k < len(f.per_shape) else ([], 1)
        starts = shape.starts(per)
        shared: list[tuple[Spot, tuple[str, int, int]]] = []
        found: list[tuple[int | None, list[tuple[Spot, tuple[str, int, int]]], int]] = []
        counted: dict[int, tuple[str, int, int]] = {}   # by layout object: racks packed alike share one
        for n, sec in enumerate(shape.sections):
            racks = [] if sec.block else shared
            for i, lay in enumerate(sec.layouts):
                kind = counted.get(id(lay))
                if kind is None:
                    kind = counted[id(lay)] = (lay.kind, sum(1 for item, _ in lay.slots if item.managed),
                                               sum(1 for item, _ in lay.slots if item.role == HopKind.OOB_LEAF))
                racks.append((sec.spot(starts[n], 0, i, per), kind))
            if sec.block:
                found.append((n, racks, sec.copies))
        if len(blocks) == 1 and not n_shared and len(found) == 1 and found[0][2] == 1 and shared:
            found[0] = (found[0][0], found[0][1] + shared, 1)   # one switch takes the site
        elif any(r[1][1] for r in shared):
            found.append((None, shared, 1))
        return found

    def pairs(self, ctx: HopContext[OobLinks]) -> Iterator[Item]:
        """A section's racks, each rack's devices on one management switch a pair (:func:`assign`)."""
        for n, racks, times in self.sections(ctx.view, ctx.shape):
            leaves = [spot for spot, (_, _, ls) in racks for _ in range(ls)]
            # The ends are keys of the closed form's devices, found by their spots, not (role, index):
            # the plan walks this hop's own rows.
            pairs = [Pair((ctx.shape, n, r, li), (ctx.shape, n, li), 1,  # type: ignore[arg-type]
                          many=devs, spots=(racks[r][0], leaves[li]))
                     for r, li, _, devs in assign([r for _, r in racks])]
            yield Section(times, _every_copy(pairs))

    def link(self, ctx: HopContext[OobLinks]) -> Link:
        rj45 = cage("rj45", 1)
        return Link(magnitude(ctx.view.switch.port_rate, "rate"), rj45, rj45, None)

    def rows(self, ctx: HopContext[OobLinks]) -> Rows:
        """Each copy's managed devices over its management switches (:func:`assign`), device by
        device, where the placement stands them: a copy's rows made into one list (no generator step
        a row), each run's kind found once per (device rack, switch rack)."""
        return itertools.chain.from_iterable(self._copies(ctx))

    def _copies(self, ctx: HopContext[OobLinks]) -> Iterator[list[PlanRow]]:
        plan, view = ctx.plan, ctx.view
        assert plan is not None and view.placement is not None
        leaf = view.switch
        names_ = port_names(leaf.cages, leaf.ports_per_cage)
        per, mgmt, kinds, fp = leaf.ports_per_cage, names.MGMT_PORT, ctx.kinds, ctx.fp
        by_spots: dict[tuple[Spot, Spot], Kind] = {}
        for n, racks in site_copies(view, ctx.shape, ctx.site):
            sec = _oob_section(view, ctx.shape, n)
            leaves = [lf for _, _, ls in racks for lf in ls]
            devs = sum(len(ds) for _, ds, _ in racks)
            if len(leaves) != sec.per_rack * sec.racks + sec.block or devs != sec.devices:
                raise PlanMismatchError(f"a section has {devs} managed devices and {len(leaves)} management "
                                        f"switches; the OOB fabric counts {sec.devices} and "
                                        f"{sec.per_rack * sec.racks + sec.block}")
            out: list[PlanRow] = []
            cursor = [0] * len(racks)
            for r, li, j0, n_devs in assign([(kind, len(ds), len(ls)) for kind, ds, ls in racks]):
                lf, l_spot = leaves[li]
                on = racks[r][1]
                for j in range(j0, j0 + n_devs):
                    dev, d_spot = on[cursor[r]]
                    cursor[r] += 1
                    k = by_spots.get((d_spot, l_spot))
                    if k is None:
                        k = by_spots[d_spot, l_spot] = kinds[route(d_spot, l_spot, fp)]
                    if k.one:
                        out.append(plan.row(k, 1, "", dev, mgmt, mgmt, lf, names_[j], names_[j - j % per]))
                    else:
                        out += plan.rows(k, 1, "", dev, mgmt, mgmt, lf, names_[j], names_[j - j % per])
            yield out


def site_copies(view: OobLinks, shape: int, site: int) -> list[Copy]:
    """The copies of ``site``'s sections with their devices and switches where they stand."""
    assert view.placement is not None
    blocks, n_shared = view.oob.per_shape[shape] if shape < len(view.oob.per_shape) else ([], 1)
    return list(copies(view.placement, view.placement.sites[shape], site, merged=len(blocks) == 1 and not n_shared))


def _oob_section(view: OobLinks, shape: int, n: int | None) -> OobSection:
    """The fabric's count of section ``n`` of a site shape (None: its shared racks): the fabric lists
    each shape's block sections, then its shared racks' where they have switches of their own."""
    f = view.oob
    first = 0
    for k in range(shape):
        blocks, shared = f.per_shape[k] if k < len(f.per_shape) else ([], 1)
        first += len(blocks) + (1 if shared else 0)
    blocks = f.per_shape[shape][0] if shape < len(f.per_shape) else []
    placement = view.placement
    assert placement is not None
    numbers = [i for i, sec in enumerate(placement.sites[shape].sections) if sec.block]
    return f.sections[first + (len(blocks) if n is None else numbers.index(n))]


class OobUplinks(Pattern[OobLinks]):
    """The management switches' uplinks (one pattern per far end)."""

    lower = Layer.LEAF

    @staticmethod
    def up(view: OobLinks) -> tuple[list[str], int, str]:
        """A management switch's uplink ports, ports per cage, and the cage the lookup asks for."""
        leaf = view.switch
        assert leaf.uplinks is not None
        return uplink_names(leaf), leaf.uplinks.ports_per_cage, cage(leaf.uplinks.form_factor, 1, True)

    def rate(self, view: OobLinks) -> float:
        assert view.switch.uplinks is not None
        return magnitude(view.switch.uplinks.rate, "rate")


class OobToSpines(OobUplinks):
    """Each site's management switches to its own OOB spines, round robin (:meth:`spread`)."""

    hop, upper = HopKind.LEAF_SPINE, Layer.SPINE

    def applies(self, ctx: HopContext[OobLinks]) -> bool:
        return bool(ctx.view.oob.spines)

    @staticmethod
    def turns(leaves: int, spines: int, per_leaf: int) -> tuple[Iterator[int], Iterator[int], Iterator[int]]:
        """(management switch, its uplink, spine) of each uplink of one site, as three iterators: each
        switch's uplinks to the site's spines round robin, switches in number order (C-level iterators: a
        campus site has thousands)."""
        switches = itertools.chain.from_iterable(map(itertools.repeat, range(leaves), itertools.repeat(per_leaf)))
        return switches, itertools.cycle(range(per_leaf)), itertools.cycle(range(spines))

    @staticmethod
    def spread(leaves: int, spines: int, per_leaf: int) -> Iterator[tuple[int, int, int]]:
        """(management switch, its uplink, spine) of one site (:meth:`turns`)."""
        return zip(*OobToSpines.turns(leaves, spines, per_leaf), strict=False)   # the cycles never end

    def pairs(self, ctx: HopContext[OobLinks]) -> Iterator[Item]:
        f, view = ctx.view.oob, ctx.view
        spines = f.site_spines[ctx.shape][1]
        if not ctx.expanding:
            # The closed form: the uplinks as a fan, each with where its two switches stand (the floor's
            # places by index, made a rack at a time).
            switch, _, to = self.turns(f.site_leaves[ctx.shape], spines, f.uplinks_per_leaf)
            yield Fan(HopKind.OOB_LEAF, "oob-spine", zip(switch, to, strict=False),   # the spines cycle
                      ctx.floor.spots(HopKind.OOB_LEAF), ctx.floor.spots("oob-spine"))
            return
        up_names, per, _ = self.up(view)
        ranges: list[Ports] = []
        if ctx.expanding:
            spine = view.spine
            assert spine is not None
            spine_names = port_names(spine.cages, spine.ports_per_cage)
            ranges = [Ports(0, spine.cages, spine.ports_per_cage, spine_names, ("oob-spine", i)) for i in range(spines)]
        for n, j, s in self.spread(f.site_leaves[ctx.shape], spines, f.uplinks_per_leaf):
            if not ranges:
                yield Pair((HopKind.OOB_LEAF, n), ("oob-spine", s))
            else:
                yield Pair((HopKind.OOB_LEAF, n), ("oob-spine", s), 1, 1, "", Fixed(up_names[j], up_names[j - j % per]),
                           ranges[s])

    def link(self, ctx: HopContext[OobLinks]) -> Link:
        spine = ctx.view.spine
        assert spine is not None
        ff = self.up(ctx.view)[2]
        return Link(self.rate(ctx.view), ff, cage(spine.form_factor, spine.ports_per_cage, True), None)


class OobToInband(OobUplinks):
    """No in-band fabric is built: each uplink to the site's in-band network (a stand-in device that
    stands nowhere in the placement), a port a turn."""

    hop, upper = HopKind.LEAF_INBAND, Layer.INBAND

    def applies(self, ctx: HopContext[OobLinks]) -> bool:
        return not ctx.view.oob.spines and not ctx.view.oob.into_inband

    def pairs(self, ctx: HopContext[OobLinks]) -> Iterator[Item]:
        run = unplaced_run(ctx.fp)
        for n in range(ctx.view.oob.site_leaves[ctx.shape]):
            yield Pair((HopKind.OOB_LEAF, n), (Layer.INBAND, n), ctx.view.oob.uplinks_per_leaf, run=run)

    def link(self, ctx: HopContext[OobLinks]) -> Link:
        ff = self.up(ctx.view)[2]
        return Link(self.rate(ctx.view), ff, ff, None)

    def rows(self, ctx: HopContext[OobLinks]) -> Rows:
        """The site's management switches in the order they stand, each uplink to the stand-in's next port."""
        plan = ctx.plan
        assert plan is not None
        up_names, per, _ = self.up(ctx.view)
        k = ctx.kinds[unplaced_run(ctx.fp)]
        emit = plan.emitter(k)
        name = f"{names.site(ctx.site)}-inband"
        far = ((names.site(ctx.site), "", "", "", name, Layer.INBAND), name)
        turn = 0
        for _, racks in site_copies(ctx.view, ctx.shape, ctx.site):
            for lf, _ in (lf for _, _, ls in racks for lf in ls):
                for j in range(ctx.view.oob.uplinks_per_leaf):
                    turn += 1
                    yield from emit(k, 1, "", lf, up_names[j], up_names[j - j % per], far, f"up{turn}", "")


OOB_NODE_LEAF = OobNodeLeaf()
OOB_TO_SPINES = OobToSpines()
OOB_TO_INBAND = OobToInband()
