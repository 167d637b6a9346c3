"""Floor plan -> cable lengths, in closed form per rack position and row distance.

Racks stand in rows. A rail-optimised scalable unit (SU) takes whole rows and puts its
leaves in a network rack in the middle of its first row, half the SU's racks on each side
(as in the DGX SuperPOD: "server racks in groups of four on the left and right of the leaf
rack"); a ToR fabric puts its leaves in each rack. Spines of a two-layer fabric stand in
a network row in the middle of the hall; in three layers each pod's spines stand in a network row in the middle of the
pod and the cores in the hall's middle row. A run goes up from the cage into the
overhead tray (``rise``), along the tray, and down again, plus ``slack``; along a
network row it runs half the row on average.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from bom.catalog.rows import Platform
from bom.errors import LimitError
from bom.topology.planes import Plane
from bom.units import magnitude

#: Defaults: 600 mm racks, 1.2 m deep with a 1.2 m aisle (2.4 m row pitch); 1 m of rise at
#: each end (a cage at mid-height of a 2.2 m rack up to the tray over it); 0.3 m slack; 1.5 m
#: for a run inside a rack. A cable to the next rack is then 0.6 + 2 x 1 + 0.3 = 2.9 m.
DEFAULTS = {"racks_per_row": 16, "rack_width": 0.6, "row_pitch": 2.4, "rise": 1.0, "slack": 0.3,
            "in_rack": 1.5}


@dataclass(frozen=True)
class FloorPlan:
    nodes_per_rack: int
    racks_per_row: int
    rack_width_m: float
    row_pitch_m: float
    rise_m: float
    slack_m: float
    in_rack_m: float
    patch_panels: int = 0     # on runs that leave their row (structured cabling)

    @property
    def row_m(self) -> float:
        return self.racks_per_row * self.rack_width_m

    def run(self, rows: int, along_m: float) -> float:
        """A run through the overhead tray: ``rows`` row pitches and ``along_m`` along rows."""
        return rows * self.row_pitch_m + along_m + 2 * self.rise_m + self.slack_m


def floor_plan(platform: Platform, spec: object | None = None) -> FloorPlan:
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


@dataclass(frozen=True)
class Run:
    """``ports`` ports per device of a group lie on runs of ``length_m`` in bucket ``bucket``."""

    length_m: float
    bucket: str   # in-rack | in-row | cross-row


#: One end of a hop: (number of devices, {run: ports of each device on that run}).
EndGroups = list[tuple[int, dict[Run, int]]]


def _rack_fills(nodes: int, per_rack: int) -> list[int]:
    full, rest = divmod(nodes, per_rack)
    return [per_rack] * full + ([rest] if rest else [])


def node_leaf(plane: Plane, fp: FloorPlan) -> tuple[EndGroups, EndGroups]:
    """Node end and leaf end of the node-leaf hop (one plane)."""
    if plane.topology == "tor":
        return _tor_node_leaf(plane, fp)
    # A rail SU, a switch pair and a single switch all stand in the SU's network rack.
    shapes = Counter({plane.group_nodes: plane.groups - 1})
    shapes[plane.last_group_nodes] += 1
    node_end: Counter[Run] = Counter()
    leaf_end: EndGroups = []
    for nodes, groups in shapes.items():
        if groups == 0:
            continue
        # The rail's j-th leaf takes nodes [j * leaf_down, (j + 1) * leaf_down) of the SU.
        per_leaf: list[Counter[Run]] = [Counter() for _ in range(plane.leaves_per_rail)]
        first = 0
        fills = _rack_fills(nodes, fp.nodes_per_rack)
        middle = min(len(fills), fp.racks_per_row) // 2   # the network rack stands before this rack
        for i, fill in enumerate(fills):
            rows, pos = divmod(i, fp.racks_per_row)
            racks_away = middle - pos if pos < middle else pos - middle + 1
            run = Run(fp.run(rows, racks_away * fp.rack_width_m), "in-row" if rows == 0 else "cross-row")
            node_end[run] += fill * groups
            for n in range(first, first + fill):
                if plane.nodes_per_leaf:   # whole nodes per leaf: every port of node n
                    per_leaf[n // plane.nodes_per_leaf][run] += plane.node_ports
                else:                      # node n's ports of the leaf's rails on that leaf
                    j = min(n // plane.rail_leaf_nodes, len(per_leaf) - 1)
                    per_leaf[j][run] += plane.rails_per_leaf
            first += fill
        copies = 1 if plane.nodes_per_leaf else plane.node_ports // plane.rails_per_leaf
        for runs, leaves in Counter(frozenset(c.items()) for c in per_leaf).items():
            leaf_end.append((groups * copies * leaves, dict(runs)))
    return [(n, {run: plane.node_ports}) for run, n in node_end.items()], leaf_end


def _tor_node_leaf(plane: Plane, fp: FloorPlan) -> tuple[EndGroups, EndGroups]:
    run = Run(fp.in_rack_m, "in-rack")
    nodes = (plane.groups - 1) * plane.group_nodes + plane.last_group_nodes
    leaf_end: EndGroups = []
    for fill, racks in Counter([plane.group_nodes] * (plane.groups - 1) + [plane.last_group_nodes]).items():
        for ports, count in _split(fill * plane.node_ports, plane.leaves_per_group):
            leaf_end.append((racks * count, {run: ports}))
    return [(nodes, {run: plane.node_ports})], leaf_end


def _split(total: int, parts: int) -> list[tuple[int, int]]:
    """``total`` ports over ``parts`` leaves as evenly as whole ports allow: [(ports, leaves)]."""
    q, r = divmod(total, parts)
    return [(p, n) for p, n in ((q + 1, r), (q, parts - r)) if n]


def _leaf_rows(plane: Plane, fp: FloorPlan) -> list[int]:
    """The row of every group's leaves, group by group."""
    if plane.topology == "tor":
        return [g // fp.racks_per_row for g in range(plane.groups)]
    rows_per_group = math.ceil(math.ceil(plane.group_nodes / fp.nodes_per_rack) / fp.racks_per_row)
    return [g * rows_per_group for g in range(plane.groups)]


def _row_run(fp: FloorPlan, delta: int) -> Run:
    return Run(fp.run(delta, fp.row_m / 2), "in-row" if delta == 0 else "cross-row")


def _pods(plane: Plane, rows: list[int]) -> list[list[tuple[int, int]]]:
    """Each pod's leaves as (row of their group, leaves there), group by group in order."""
    size = plane.pod_size
    pods: list[list[tuple[int, int]]] = [[]]
    room = size
    for row in rows:
        left = plane.leaves_per_group
        while left:
            if room == 0:
                pods.append([])
                room = size
            take = min(left, room)
            pods[-1].append((row, take))
            left -= take
            room -= take
    return pods


def _centre(plane: Plane, fp: FloorPlan, pod: list[tuple[int, int]]) -> int:
    return (pod[0][0] + _rows_after(plane, fp, pod[-1][0])) // 2


def leaf_spine(plane: Plane, fp: FloorPlan) -> tuple[EndGroups, EndGroups]:
    """Leaf end and spine end of the leaf-spine hop (one plane)."""
    leaf_end: Counter[Run] = Counter()
    spine_end: EndGroups = []
    for pod in _pods(plane, _leaf_rows(plane, fp)):
        centre = _centre(plane, fp, pod)
        spine_ports: Counter[Run] = Counter()
        for row, leaves in pod:
            run = _row_run(fp, abs(row - centre))
            leaf_end[run] += leaves
            spine_ports[run] += leaves * plane.leaf_spine_per_pair
        spine_end.append((plane.spines_per_pod, dict(spine_ports)))
    return [(n, {run: plane.leaf_up}) for run, n in leaf_end.items()], spine_end


def leaf_leaf(plane: Plane, fp: FloorPlan) -> tuple[EndGroups, EndGroups]:
    """The ISLs of a switch pair: both switches stand in one network rack."""
    run = Run(fp.in_rack_m, "in-rack")
    return [(1, {run: plane.isl})], [(1, {run: plane.isl})]


def _rows_after(plane: Plane, fp: FloorPlan, row: int) -> int:
    if plane.topology == "tor":
        return row
    return row + math.ceil(math.ceil(plane.group_nodes / fp.nodes_per_rack) / fp.racks_per_row) - 1


def spine_core(plane: Plane, fp: FloorPlan) -> tuple[EndGroups, EndGroups]:
    """Spine end and core end of the spine-core hop (one plane, three layers)."""
    rows = _leaf_rows(plane, fp)
    hall_centre = (rows[0] + _rows_after(plane, fp, rows[-1])) // 2
    spine_end: Counter[Run] = Counter()
    core_ports: Counter[Run] = Counter()
    for pod in _pods(plane, rows):
        run = _row_run(fp, abs(_centre(plane, fp, pod) - hall_centre))
        spine_end[run] += plane.spines_per_pod
        core_ports[run] += plane.spine_core_per_pair
    return ([(n, {run: plane.spine_up}) for run, n in spine_end.items()],
            [(plane.cores, dict(core_ports))])
