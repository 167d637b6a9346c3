"""Floor plan -> cable lengths: every run between where the placement stands its two ends.

Racks stand in rows (:mod:`bom.placement.racks` says which rack stands where: a scalable unit's
racks with its network rack in its own rows, the shared racks in the middle of the hall). A run
goes up from its cage into the overhead tray (``rise``), along the tray across the rows between
the two racks (``row_pitch`` each) and along the row by the racks between them (``rack_width``
each), down again, plus ``slack``; inside one rack it is the in-rack run. :func:`route` is the
one rule for a run's length, and both consumers of a hop take it: the closed form (the hops'
ends below, counted per rack and per copy of a repeated section, never per cable) and the cable
plan (each row's run between its two devices' racks).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable

from bom.catalog.rows import Platform
from bom.errors import LimitError
from bom.inputs.scenario import Layout, Scenario
from bom.model.floorplan import EndGroups, Floorish, FloorPlan, Run
from bom.model.placement import RackType
from bom.model.plane import Plane
from bom.model.shares import share
from bom.units import magnitude

#: Defaults: 600 mm racks, 1.2 m deep with a 1.2 m aisle (2.4 m row pitch); 1 m of rise at
#: each end (a cage at mid-height of a 2.2 m rack up to the tray over it); 0.3 m slack; 1.5 m
#: for a run inside a rack. A cable to the next rack is then 0.6 + 2 x 1 + 0.3 = 2.9 m.
DEFAULTS = {"racks_per_row": 16, "rack_width": 0.6, "row_pitch": 2.4, "rise": 1.0, "slack": 0.3,
            "in_rack": 1.5}


def floor_plan(platform: Platform, spec: Layout | None = None) -> FloorPlan:
    """The platform's defaults, overridden by the scenario's ``layout`` block."""
    def get(name: str, dim: str | None = None) -> float:
        value = getattr(spec, name, None) if spec is not None else None
        if value is None:
            return float(DEFAULTS[name]) if name in DEFAULTS else float(platform.nodes_per_rack)
        return magnitude(value, dim) if dim else float(value)

    plan = FloorPlan(int(get("nodes_per_rack")), int(get("racks_per_row")), get("rack_width", "length"),
                     get("row_pitch", "length"), get("rise", "length"), get("slack", "length"),
                     get("in_rack", "length"), int(getattr(spec, "patch_panels", 0) or 0))
    if plan.racks_per_row < 1 or plan.nodes_per_rack < 1:
        raise LimitError("a floor plan needs at least one rack per row and one node per rack",
                         key="layout", hint="Set layout.racks_per_row and layout.nodes_per_rack >= 1.")
    return plan


#: Topologies whose leaves serve a group of nodes from the group's network rack (not each rack's own).
GROUPED = ("rail-optimized", "rail-only", "pair")


def block_nodes(compute: Plane | None, fp: FloorPlan) -> int:
    """Nodes per placement block: the compute SU (rail-optimised; a switch pair's one group, its two
    switches in the block's network rack); else a row of racks less one place for the block's
    network rack (its management switches and whatever a compute rack cannot hold), so a block and
    its network rack fill one row.

    >>> block_nodes(None, FloorPlan(4, 10, 0.6, 2.4, 1.0, 0.3, 1.5))
    36
    """
    if compute is not None and compute.topology in GROUPED:
        return compute.group_nodes
    return fp.nodes_per_rack * max(1, fp.racks_per_row - 1)


def in_rack(fp: FloorPlan) -> Run:
    """A run between two devices of one rack."""
    return Run(fp.in_rack_m, "in-rack")


def route(a: tuple[int, int], b: tuple[int, int], fp: FloorPlan) -> Run:
    """The run between racks standing at (row, position) ``a`` and ``b``: up into the tray, across
    the rows between them at the row pitch and along the row by the racks between them, down, plus
    slack; inside one rack, the in-rack run. The one rule for a run's length: the closed form and
    the cable plan both take it, from where the placement stands the two racks.

    >>> fp = FloorPlan(4, 8, 0.6, 2.4, 1.0, 0.3, 1.5)
    >>> route((1, 5), (2, 1), fp)   # a row across and four racks along: 2.4 + 2.4 + 2 + 0.3
    Run(length_m=7.1, bucket='cross-row')
    >>> route((3, 2), (3, 3), fp), route((3, 2), (3, 2), fp).bucket
    (Run(length_m=2.9, bucket='in-row'), 'in-rack')
    """
    if a == b:
        return in_rack(fp)
    # Made once per floor plan and distance (the floor plan is kept so its id is never reused).
    key = (id(fp), abs(a[0] - b[0]), abs(a[1] - b[1]))
    run = _ROUTES.get(key)
    if run is None:
        if len(_ROUTES) > 100_000:
            _ROUTES.clear()
            _KEPT.clear()
        _KEPT[id(fp)] = fp
        rows = key[1]
        # To the millimetre: the same distance reached by other rows and racks is the same run.
        run = _ROUTES[key] = Run(round(fp.run(rows, key[2] * fp.rack_width_m), 3), "cross-row" if rows else "in-row")
    return run


#: Runs by (floor plan, rows apart, racks apart along the row), and the floor plans they are of.
_ROUTES: dict[tuple[int, int, int], Run] = {}
_KEPT: dict[int, FloorPlan] = {}


def runs_apart(fp: FloorPlan) -> dict[tuple[int, int], Run]:
    """The runs between two racks by how far apart they stand (rows, places; signed: (0, 0) is one rack),
    for one floor plan: the walks fill it with :func:`route`'s run as they meet each distance (it depends
    on nothing else), and every walk of the floor plan shares it (a build's hops meet the same distances
    again: a million-GPU site's hops about 4,500 route calls without it)."""
    got = _APART.get(id(fp))
    if got is None or got[0] is not fp:
        if len(_APART) >= 8:   # a sweep or the suite builds many floor plans in one process
            _APART.clear()
        got = _APART[id(fp)] = (fp, {})
    return got[1]


#: :func:`runs_apart`'s tables by floor plan (kept with it, so its id is not reused while it is held).
_APART: dict[int, tuple[FloorPlan, dict[tuple[int, int], Run]]] = {}


def unplaced_run(fp: FloorPlan) -> Run:
    """A run to a network the scenario does not build (the site's in-band network when no in-band
    fabric is built): its far end stands nowhere in the placement, so the run is taken as a row away
    and half a row along, as to a shared rack."""
    return shared_rack(fp)


def shared_rack(fp: FloorPlan) -> Run:
    """A device in the site's shared racks (storage, management, UFM) to a leaf: a row away, half a row
    along."""
    return Run(fp.run(1, fp.row_m / 2), "cross-row")


def rail_leaf(plane: Plane, node: int) -> int:
    """Which of a rail's leaves in the SU takes ``node``: the j-th leaf the next ``rail_leaf_nodes``."""
    return min(node // plane.rail_leaf_nodes, plane.leaves_per_rail - 1)


# --- ends from where the placement stands the devices ------------------------------------------

class Profiles:
    """One end of a hop, device by device: each device's ports per run. Devices with the same
    profile make one end group (:data:`EndGroups`), in the order they were first seen."""

    def __init__(self) -> None:
        self.devices: dict[object, list] = {}

    def add(self, device: Hashable, run: Run, ports: int, devices: int = 1) -> None:
        """``ports`` ports of ``device`` (a class of ``devices`` alike devices) on ``run``."""
        d = self.devices.get(device)
        if d is None:
            d = self.devices[device] = [devices, {}]
        d[1][run] = d[1].get(run, 0) + ports

    def groups(self, times: int = 1) -> EndGroups:
        out: dict[tuple[tuple[Run, int], ...], int] = {}
        for n, runs in self.devices.values():
            key = tuple(runs.items())
            out[key] = out.get(key, 0) + n * times
        return [(n, dict(key)) for key, n in out.items()]


def leaf_of(plane: Plane, n: int, r: int, fill: int) -> int:
    """The leaf (0-based, in its group and plane) that takes port ``r`` of the group's node ``n``
    (``fill`` nodes in the group): a ToR splits the rack's ports port-major over its leaves; a rail
    SU gives rail ``r`` to the leaves of its rail set, the j-th of them the next nodes; a
    rack-scale domain's leaf takes every port of its nodes."""
    if plane.topology == "tor":
        return share(r * fill + n, fill * plane.node_ports, plane.leaves_per_group)
    if plane.nodes_per_leaf:
        return n // plane.nodes_per_leaf
    return r // plane.rails_per_leaf * plane.leaves_per_rail + rail_leaf(plane, n)


def leaf_loads(p: Plane, planes: int) -> list[tuple[int, int]]:
    """(1, node ports used) of each leaf of one site, in leaf order (every plane): the nodes' links
    take each leaf's first downlinks (:func:`leaf_of`)."""
    pattern: dict[int, list[int]] = {}
    out: list[int] = []
    for g in range(p.groups):
        fill = p.group_nodes if g < p.groups - 1 else p.last_group_nodes
        if fill not in pattern:
            used = pattern[fill] = [0] * p.leaves_per_group
            for n in range(fill):
                for r in range(p.node_ports):
                    used[leaf_of(p, n, r, fill)] += 1
        out += pattern[fill] * planes
    return [(1, used) for used in out]


def pod_leaves(plane: Plane, pl: int, planes: int) -> list[list[int]]:
    """Each pod's leaves of plane ``pl`` (site indices), group by group in leaf order: a group's leaves
    are consecutive (a range a group, or a pod's share of one where a pod ends in the group), the last
    pod taking every leaf past the others'."""
    out: list[list[int]] = [[] for _ in range(plane.pods)]
    lpg, size, last = plane.leaves_per_group, plane.pod_size, plane.pods - 1
    for g in range(plane.groups):
        base, seq, local = (g * planes + pl) * lpg, g * lpg, 0
        while local < lpg:
            pod = min((seq + local) // size, last)
            end = lpg if pod == last else min(lpg, (pod + 1) * size - seq)
            out[pod] += range(base + local, base + end)
            local = end
    return out


def by_spot(floor: Floorish, role: str, devices: Iterable[int]) -> dict[tuple[int, int], int]:
    """How many of ``devices`` (of ``role``) stand in each rack, in first-seen order (counted in C)."""
    return dict(Counter(map(floor.spots(role).__getitem__, devices)))


def between(fp: FloorPlan, a_spots: dict[tuple[int, int], int], b_spots: dict[tuple[int, int], int],
            per_pair: int, lo: Profiles, up: Profiles, tags: tuple[Hashable, Hashable]) -> None:
    """Every device of one set (``a_spots``: how many stand in each rack, :func:`by_spot`) joined to every
    device of another (``b_spots``) by ``per_pair`` links, counted rack by rack (devices in one rack share
    their runs). ``tags`` tell each end's set of devices from the others in the same racks (another
    plane's, another pod's): a device's ports must all be under one tag, since its cages are counted
    over all its ports (a core takes one spine of every pod)."""
    for a, na in a_spots.items():
        for b, nb in b_spots.items():
            run = route(a, b, fp)
            lo.add((tags[0], a), run, nb * per_pair, na)
            up.add((tags[1], b), run, na * per_pair, nb)


def binding(rack: RackType, height_u: int, power_w: float) -> tuple[str, ...]:
    """The rack's limits a load of ``height_u`` and ``power_w`` breaks, height first: a rack that
    does not fit says which limit binds, so the advice names the key that would make it fit.

    >>> r = RackType("r48", 48, 44_000.0)
    >>> binding(r, 64, 40_000.0), binding(r, 40, 81_600.0), binding(r, 64, 81_600.0), binding(r, 48, 44_000.0)
    (('height',), ('power',), ('height', 'power'), ())
    """
    return tuple(name for name, over in (("height", height_u > rack.u_budget),
                                         ("power", power_w > rack.power_budget_w)) if over)


def over_limits(rack: RackType, height_u: int, power_w: float) -> str:
    """The load against the rack's two budgets in words, the binding limits named first.

    >>> r = RackType("legrand-nvidpd13", 48, 44_000.0)
    >>> over_limits(r, 64, 40_800.0)
    'the height binds (64U in a 48U legrand-nvidpd13 rack); the power fits (40,800 W of its 44,000 W budget)'
    >>> over_limits(r, 64, 81_600.0)
    'both limits bind: the height (64U in a 48U legrand-nvidpd13 rack) and the power (81,600 W over its 44,000 W \
budget)'
    """
    limits = binding(rack, height_u, power_w)
    height = f"{height_u}U in a {rack.u_budget}U {rack.catalog_id} rack"
    if len(limits) == 2:
        return (f"both limits bind: the height ({height}) and the power ({power_w:,.0f} W over its "
                f"{rack.power_budget_w:,.0f} W budget)")
    if limits == ("height",):
        return (f"the height binds ({height}); the power fits ({power_w:,.0f} W of its "
                f"{rack.power_budget_w:,.0f} W budget)")
    return (f"the power binds ({power_w:,.0f} W over the {rack.catalog_id} rack's {rack.power_budget_w:,.0f} W "
            f"budget); the height fits ({height_u}U of its {rack.u_budget}U)")


#: What to raise for each binding limit, as the scenario says it.
RAISE_LIMIT = {"height": "racks.rack_units (a taller rack)", "power": "racks.power_budget"}


def rack_budget(platform: Platform, scenario: Scenario) -> tuple[float, tuple[str, ...]] | None:
    """A compute rack's power budget [W] and the scenario key it comes from (``()``: the platform's): the
    scenario's, else the platform's, lowered to the hall's feed (``layout.rack_power_limit``) where one
    whole system still fits under it; None when neither gives one."""
    sup = platform.support
    spec = scenario.racks
    at: tuple[str, ...]
    if spec.power_budget is not None:
        power, at = magnitude(spec.power_budget, "power"), ("racks", "power_budget")
    elif sup is not None:
        power, at = magnitude(sup.rack_power_budget, "power"), ()
    else:
        return None
    system_w = platform.node_power_w * rack_share(platform)
    limit = scenario.layout.rack_power_limit
    if limit is not None and system_w <= magnitude(limit, "power") < power:
        # The hall feeds less than the rack could take: spread the nodes (whole systems) under its feed.
        # A system over the feed cannot be spread; the design rule placement.rack_power says so.
        power, at = magnitude(limit, "power"), ("layout", "rack_power_limit")
    return power, at


def rack_share(platform: Platform) -> int:
    """The nodes of one system a rack must hold whole: the system, or its rack's half of it (NVL36x2)."""
    return platform.nodes_per_system // platform.racks_per_system


def nodes_per_rack(platform: Platform, scenario: Scenario) -> tuple[int, float]:
    """Nodes per compute rack (given, or as many whole systems as the rack's power holds) and the
    rack's power budget [W] (the scenario's, else the platform's). That a system, and the nodes given,
    fit the budget is the preflight's rule (bom/topology/preflight.py)."""
    sup = platform.support
    budget = rack_budget(platform, scenario)
    if budget is None:
        return scenario.layout.nodes_per_rack or platform.nodes_per_rack, 0.0
    power = budget[0]
    per_system = platform.nodes_per_system
    given = scenario.layout.nodes_per_rack
    u = scenario.racks.rack_units or 48
    if given is not None:
        return given, power
    if platform.racks_per_system > 1:
        # A system over two racks stands half in each: its racks hold nothing else.
        return platform.nodes_per_rack, power
    systems = int(power // (platform.node_power_w * per_system))
    per_u = max(1, u // max(1, platform.node_rack_units * per_system + (sup.rack_device_units if sup else 0)))
    return max(1, min(systems, per_u)) * per_system, power
