"""The UFM appliances' compute-fabric ports: on the leaves' spare downlinks (hop ``ufm-leaf``) or,
in a site whose every leaf downlink carries a node, on the top layer's free ports (hop ``ufm-top``).

Two patterns (:mod:`bom.links.pattern`), each site shape taking one of them (:func:`room`: the
leaves where they have room for the site's ports, else the top layer). On the leaves the ports
spread one per leaf a round over the leaves with room, the leaves with a half-used twin-port cage
first (the port shares that cage's module), then the leaves nearest the UFM (:func:`spread`,
:meth:`UfmLeaf.spread`, leaf by leaf, for both the closed form and the cable plan); on the top layer
one per switch a round over the switches with free cages (:func:`spread_top`, on the cages
:func:`bom.links.dci.top_free` finds free, the plan on each switch's own range). Each port is on
the run between the UFM's rack and its switch's. Why they go where they go, and what to say when
there is no room, is the model's (:mod:`bom.topology.ufm`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from bom.catalog.media import cage
from bom.errors import LimitError, keyed
from bom.links.dci import top_free
from bom.links.pattern import ByModule, HopContext, Item, Link, Pair, Pattern
from bom.links.ports import PlanMismatchError, Ports, Switches, port_names
from bom.links.views import FabricLinks, UfmLinks
from bom.model.hops import HopKind
from bom.roles import Layer
from bom.topology.geometry import leaf_loads, route
from bom.units import magnitude

if TYPE_CHECKING:
    from bom.model.floorplan import Floorish, FloorPlan, Run
    from bom.model.linkgroups import LinkGroup
    from bom.model.plane import Plane

__all__ = ["UFM_LEAF", "UFM_TOP", "UfmLeaf", "UfmLinks", "UfmTop", "leaf_room", "place_ports", "room", "spread",
           "spread_top", "summary", "top_room"]


def leaf_room(p: Plane, planes: int) -> int:
    """Downlinks the leaves of one site (every plane) leave free of nodes."""
    return sum(p.leaf_down - used for _, used in leaf_loads(p, planes))


def top_room(p: Plane, planes: int) -> int:
    """Ports the top layer of one site (every plane) leaves free of the fabric's own links (in a fabric
    of one switch or a pair, its switches' ports past the nodes' and the pair's links)."""
    return sum(top_free(p, planes)[1]) * p.spine.ports_per_cage


def top_layer(p: Plane) -> Layer:
    """The layer whose free ports ``ufm-top`` takes: the cores, the spines, or a one-layer fabric's leaves."""
    return {3: Layer.CORE, 2: Layer.SPINE}.get(p.layers, Layer.LEAF)


def room(p: Plane, planes: int, ports: int) -> HopKind | None:
    """The hop a site's ``ports`` UFM ports take: to the leaves' spare downlinks, to the top layer's free
    ports, or none (None: no room)."""
    if leaf_room(p, planes) >= ports:
        return HopKind.UFM_LEAF
    if top_room(p, planes) >= ports:
        return HopKind.UFM_TOP
    return None


def spread_top(free: Sequence[int], per_cage: int, ports: int) -> list[int]:
    """The top switch each of a site's ``ports`` UFM ports goes to: one per switch a round over the
    switches with free cages (``free``, cages each leaves free; ``per_cage`` ports a cage), so the
    appliances of an HA pair stand on different switches.

    >>> spread_top([0, 2, 1], 2, 5)
    [1, 2, 1, 2, 1]
    """
    left = [f * per_cage for f in free]
    out: list[int] = []
    i = -1
    while len(out) < ports:
        if not any(left):
            raise PlanMismatchError("the top layer ran out of free ports for the UFM")
        i = (i + 1) % len(left)
        if left[i] > 0:
            left[i] -= 1
            out.append(i)
    return out


def spread(loads: Sequence[tuple[int, int]], down: int, per_cage: int, ports: int,
           near: Sequence[float] = ()) -> list[tuple[int, int, bool, int]] | None:
    """Place ``ports`` one per leaf a round on leaves of ``down`` downlinks: ``loads`` is (leaves,
    ports used on each) per group of leaves; the result (group, ports taken, whether each opens a
    cage, round) in placement order, or None when the leaves have no room. In each round the
    leaves with a half-used cage come first, then the nearest (``near``: each group's distance
    from the UFM), then by group.
    """
    left, out = ports, []
    for rnd in range(down):
        cands = sorted(((used + rnd) % per_cage == 0, near[g] if near else 0.0, g)
                       for g, (_, used) in enumerate(loads) if used + rnd < down)
        for opens, _, g in cands:
            take = min(left, loads[g][0])
            out.append((g, take, opens, rnd))
            left -= take
            if not left:
                return out
        if not cands:
            break
    return None


def place_ports(loads: list[tuple[int, int]], down: int, per_cage: int, ports: int,
                near: Sequence[float] = ()) -> tuple[int, int] | None:
    """Spread ``ports`` over the leaves with room (:func:`spread`): (leaves used, modules added), or None."""
    return summary(spread(loads, down, per_cage, ports, near))


def summary(placed: list[tuple[int, int, bool, int]] | None) -> tuple[int, int] | None:
    """(leaves used, modules added) of a :func:`spread`."""
    if placed is None:
        return None
    return (sum(take for _, take, _, rnd in placed if rnd == 0), sum(take for _, take, opens, _ in placed if opens))


def _room(ctx: HopContext[FabricLinks]) -> HopKind | None:
    """The hop the walked site's UFM ports take (:func:`room`; None: no UFM, or no room)."""
    ufm = ctx.view.ufm
    return None if ufm is None else ctx.per_shape("ufm-room", lambda: room(ctx.p, ctx.view.planes, ufm.ports))


@lru_cache(maxsize=64)
def _ufm_names(ports: int, per: int) -> tuple[str, ...]:
    return tuple(port_names(-(-ports // per), per))


class UfmLeaf(Pattern[FabricLinks]):
    """The UFM's ports to the compute leaves (lower end ``ufm``), a hop of their own so that
    ``node-leaf`` keeps meaning the nodes' links; their ports share the nodes' leaf cages."""

    hop, lower, upper = HopKind.UFM_LEAF, Layer.UFM, Layer.LEAF
    attached = True
    #: The hop whose cages the UFM's ports fill (the cable plan's cage keys).
    shares = HopKind.NODE_LEAF

    def applies(self, ctx: HopContext[FabricLinks]) -> bool:
        return _room(ctx) == HopKind.UFM_LEAF

    def spread(self, p: Plane, planes: int, ufm: UfmLinks, floor: Floorish, fp: FloorPlan, role: str
               ) -> list[tuple[int, int, bool, int]] | None:
        """One site's UFM ports over its leaves, one per leaf a round, the leaves nearest the first
        UFM first (:func:`spread`, leaf by leaf)."""
        loads = leaf_loads(p, planes)
        home = floor.spot(Layer.UFM, 0)
        # Each leaf's distance from the UFM: a run per rack of leaves, not per leaf.
        by_rack: dict[tuple[int, int], float] = {}
        near = []
        for spot in floor.spots(role)[:len(loads)]:
            far = by_rack.get(spot)
            if far is None:
                far = by_rack[spot] = route(home, spot, fp).length_m
            near.append(far)
        assert len(near) == len(loads)   # the placement stands every leaf of the site
        return spread(loads, p.leaf_down, p.leaf.ports_per_cage, ufm.ports, near)

    def place(self, fab: FabricLinks, fp: FloorPlan, ufm: UfmLinks) -> list[tuple[int, int] | None]:
        """Per site shape: (leaves used, modules added) in one site, None where there is no room."""
        return [summary(self.spread(plane, fab.planes, ufm, floor, fp, fab.role(Layer.LEAF)))
                for plane, floor in zip(fab.planes_of, fab.floors, strict=True)]

    def _placed(self, ctx: HopContext[FabricLinks]) -> list[tuple[int, int, bool, int]]:
        ufm = ctx.view.ufm
        assert ufm is not None
        placed = ctx.per_shape("ufm-spread", lambda: self.spread(ctx.p, ctx.view.planes, ufm, ctx.floor, ctx.fp,
                                                                 ctx.view.role(Layer.LEAF)))
        assert placed is not None   # the model found room (else it connects no UFM port)
        return placed

    def pairs(self, ctx: HopContext[FabricLinks]) -> Iterator[Item]:
        fab, sw = ctx.view, ctx.switches
        ufm = fab.ufm
        assert ufm is not None
        role = fab.role(Layer.LEAF)
        for u, (i, _, _, _) in enumerate(self._placed(ctx)):
            d, r = divmod(u, ufm.nic.ports)
            if sw is None:
                yield Pair((Layer.UFM, d), (role, i))
            else:
                yield Pair((Layer.UFM, d), (role, i), 1, 1, "", ByModule(lambda per: _ufm_names(ufm.nic.ports, per), r),
                           sw.leaf_down(i))

    def link(self, ctx: HopContext[FabricLinks]) -> Link:
        p, ufm = ctx.view.first, ctx.view.ufm
        assert ufm is not None
        nic = ufm.nic
        return Link(min(magnitude(nic.rate, "rate"), p.leaf.rate_gbps), cage(nic.form_factor, nic.ports_per_cage, True),
                    cage(p.leaf.form_factor, p.leaf.ports_per_cage, True), None)

    def count(self, ctx: HopContext[FabricLinks]) -> list[LinkGroup]:
        """The hop's link groups; a UFM port in a leaf's half-used twin-port cage shares the module
        already counted there (one run, so one group; a part-less end, copper, has no modules to
        correct)."""
        with keyed((), "management.ufm", only=LimitError):
            groups = super().count(ctx)
        if not groups:
            return groups
        opening: Counter[Run] = Counter()
        for k, site, sites in ctx.view.units():
            one = ctx.at(k, site, sites)
            if not self.applies(one):
                continue
            for pair, (_, _, opens, _) in zip(self.pairs(one), self._placed(one), strict=True):
                assert isinstance(pair, Pair)
                opening[self._route(one, pair)] += sites * opens
        for g in groups:
            if self.shares_cages(ctx.groups, g):
                g.modules_upper = sum(opening[run] for run in g.runs)
        return groups

    def shares_cages(self, node_groups: Sequence[LinkGroup], g: LinkGroup) -> bool:
        """Whether the UFM ports of link group ``g`` fill the nodes' half-used leaf cages: only where
        every node port on the fabric's leaves takes one module part, the UFM's. Else (another part,
        or parts mixed with copper, whose half-used cages the leaf-by-leaf count does not see) the
        UFM's ports open cages of their own; the closed form and the cable plan both ask this."""
        if g.upper_end.part is None:
            return False
        parts = {n.upper_end.part.id if n.upper_end.part is not None else None
                 for n in node_groups if n.hop == self.shares}
        return parts == {g.upper_end.part.id}


class UfmTop(Pattern[FabricLinks]):
    """The UFM's ports to the top layer's free ports (spines; cores in three layers) in a site whose
    every leaf downlink carries a node: one per switch a round (:func:`spread_top`), each in a cage
    of its own past the fabric's links (lower end ``ufm``)."""

    hop, lower, upper = HopKind.UFM_TOP, Layer.UFM, Layer.SPINE
    attached = True

    def applies(self, ctx: HopContext[FabricLinks]) -> bool:
        return _room(ctx) == HopKind.UFM_TOP

    def layers(self, ctx: HopContext[FabricLinks]) -> tuple[Layer, Layer]:
        return self.lower, top_layer(ctx.view.first)

    @staticmethod
    def top_ports(sw: Switches, layer: Layer, i: int) -> Ports:
        """The ``i``-th top switch's cage range the fabric's own links filled first (a one-layer fabric's
        switch: its cages past the nodes' and the pair's links, as the DCI's client links take them)."""
        if layer == Layer.CORE:
            return sw.core_lo(i)
        if layer == Layer.SPINE:
            return sw.spine_lo(i)
        role, firsts = sw.top()
        cages, per = sw.p.spine.cages, sw.p.spine.ports_per_cage
        return Ports(firsts[i], cages - firsts[i], per, port_names(cages, per), (role, i))

    @staticmethod
    def plane_of(p: Plane, layer: Layer, i: int, planes: int) -> int:
        """The 1-based plane of the ``i``-th top switch of a site (the placement's numbering; a one-layer
        fabric's ports on plane 1, as ``ufm-leaf``'s)."""
        if layer == Layer.CORE:
            return i // (p.spines_per_pod * p.cores_per_group) + 1
        if layer == Layer.SPINE:
            return (i // p.spines_per_pod) % planes + 1
        return 1

    def pairs(self, ctx: HopContext[FabricLinks]) -> Iterator[Item]:
        fab, sw, p = ctx.view, ctx.switches, ctx.p
        ufm = fab.ufm
        assert ufm is not None
        layer, free = top_free(p, fab.planes)
        role = fab.role(layer)
        for u, i in enumerate(spread_top(free, p.spine.ports_per_cage, ufm.ports)):
            d, r = divmod(u, ufm.nic.ports)
            if sw is None:
                yield Pair((Layer.UFM, d), (role, i))
            else:
                yield Pair((Layer.UFM, d), (role, i), 1, self.plane_of(p, layer, i, fab.planes), "",
                           ByModule(lambda per: _ufm_names(ufm.nic.ports, per), r), self.top_ports(sw, layer, i))

    def link(self, ctx: HopContext[FabricLinks]) -> Link:
        p, ufm = ctx.view.first, ctx.view.ufm
        assert ufm is not None
        nic = ufm.nic
        return Link(min(magnitude(nic.rate, "rate"), p.spine.rate_gbps),
                    cage(nic.form_factor, nic.ports_per_cage, True),
                    cage(p.spine.form_factor, p.spine.ports_per_cage, True), None)

    def count(self, ctx: HopContext[FabricLinks]) -> list[LinkGroup]:
        with keyed((), "management.ufm", only=LimitError):
            return super().count(ctx)


UFM_LEAF = UfmLeaf()
UFM_TOP = UfmTop()
