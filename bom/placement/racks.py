"""Packing: each rack filled from U1 upwards with the items of a block or a shared section.

The types (sections, layouts, the placement) are :mod:`bom.model.placement`'s. Each rack is packed
from U1 upwards in the order its items are listed; a 0U device (a vertical PDU) has ``u`` 0 and
``height`` 0. Every rack is checked against its U and power budgets as it is packed: a device that
fits no empty rack is an error naming the limit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bom.errors import LimitError
from bom.model.placement import Item, Layout, RackType, Section
from bom.roles import RackKind
from bom.topology.geometry import RAISE_LIMIT, binding, over_limits

# --- packing ---------------------------------------------------------------------------------

def _fits(rack: RackType, item: Item, used_u: int, power: float) -> bool:
    return used_u + item.height <= rack.u_budget and power + item.power_w <= rack.power_budget_w


def _empty(kind: RackKind, rack: RackType) -> list[tuple[Item, int]]:
    return [(rack.pdu, 0)] * rack.pdus if rack.pdu is not None else []




def check_fits(rack: RackType, item: Item) -> None:
    """``item`` fits an empty rack of this type (else no placement can hold it); the error names
    the limit that binds and only the key that lifts it."""
    base = rack.pdu.power_w * rack.pdus if rack.pdu else 0.0
    limits = binding(rack, item.height, base + item.power_w)
    if limits:
        raise LimitError(
            f"a {item.catalog_id} ({item.role}, {item.height}U, {item.power_w:,.0f} W) fits no rack: "
            f"{over_limits(rack, item.height, base + item.power_w)}",
            key="racks", hint=f"Raise {' and '.join(RAISE_LIMIT[k] for k in limits)}, or pick a smaller device.")


def pack(kind: RackKind, rack: RackType, items: list[tuple[Item, int]]) -> tuple[Layout, ...]:
    """First-fit, in order, from U1 up: as many racks of ``rack`` as the items need."""
    out: list[Layout] = []
    # Racks alike share one layout object (the shared racks repeat a few mixes of devices): what reads a
    # layout's devices (its PDUs, its power plan, its roles) does so once per object.
    # Keyed by the items' objects (each listed item is one object, kept alive by the layouts made): hashing
    # an item hashes its every field in Python, and a rack holds dozens. A rack's key is its slots as runs
    # of one item stacked without a gap (:func:`_run`: one entry per run, not per slot; equal slots, equal
    # runs).
    made: dict[tuple[tuple[int, int, int], ...], Layout] = {}

    def close(slots: list[tuple[Item, int]], runs: list[tuple[int, int, int]]) -> Layout:
        key = tuple(runs)
        lay = made.get(key)
        if lay is None:
            lay = made[key] = Layout(kind, rack, tuple(slots))
        return lay

    slots = _empty(kind, rack)
    empty = _run([], rack.pdu, 0, len(slots)) if slots and rack.pdu is not None else []
    runs = list(empty)
    used, power = 0, sum(i.power_w for i, _ in slots)
    checked: set[int] = set()   # an item listed again (a shared rack's management switch between spines)
    for item, count in items:
        if id(item) not in checked:
            check_fits(rack, item)
            checked.add(id(item))
        while count:
            k, power_after = _room(rack, item, used, power, count)
            if not k:
                out.append(close(slots, runs))
                slots, runs = _empty(kind, rack), list(empty)
                used, power = 0, sum(i.power_w for i, _ in slots)
                # A new rack takes its first device unchecked (check_fits said one fits an empty rack).
                k, power_after = _room(rack, item, used + item.height, power + item.power_w, count - 1)
                k += 1
                full = (count - 1) // k
                if full:
                    # Racks the item fills alone are alike (first-fit never goes back to a closed rack): one
                    # layout for all of them, made once, not device by device.
                    out.extend([close([*slots, *_stacked(item, 0, k)], _run(list(empty), item, 0, k))] * full)
                    count -= full * k
                    k, power_after = _room(rack, item, used + item.height, power + item.power_w, count - 1)
                    k += 1
            slots.extend(_stacked(item, used, k))
            _run(runs, item, used, k)
            h = item.height
            used, power, count = used + k * h, power_after, count - k
    if len(slots) > len(_empty(kind, rack)):
        out.append(close(slots, runs))
    return tuple(out)


def _run(runs: list[tuple[int, int, int]], item: Item, used: int, k: int) -> list[tuple[int, int, int]]:
    """``runs`` (a rack's slots as (item's id, the U below the run, devices) runs) with ``k`` of ``item``
    stacked from ``used`` U up (:func:`_stacked`), joined to the last run where they continue it: so
    the runs of two racks are equal when their slots are."""
    h = item.height
    at = used if h else 0   # 0U devices stand at 0 whatever the rack holds
    if runs:
        last_id, last_at, n = runs[-1]
        if last_id == id(item) and last_at + n * h == at:
            runs[-1] = (last_id, last_at, n + k)
            return runs
    runs.append((id(item), at, k))
    return runs


def _stacked(item: Item, used: int, k: int) -> list[tuple[Item, int]]:
    """``k`` of ``item`` one above another from ``used`` U up (0U devices at 0)."""
    h = item.height
    return [(item, used + 1 + i * h) for i in range(k)] if h else [(item, 0)] * k


def _room(rack: RackType, item: Item, used: int, power: float, most: int) -> tuple[int, float]:
    """How many of ``item`` (at most ``most``) still fit one after another, and the power then
    (added one by one, as the rack's budget check sums them)."""
    k = min(most, (rack.u_budget - used) // item.height) if item.height else most
    n = 0
    while n < k and power + item.power_w <= rack.power_budget_w:
        power += item.power_w
        n += 1
    return n, power


@dataclass(frozen=True)
class BlockSpec:
    """A compute group: its nodes, the devices in each compute rack, the block's network devices."""

    copies: int
    nodes: int
    nodes_per_rack: int
    node: Item
    in_system: tuple[tuple[Item, int], ...] = ()   # per rack, part of the system (NVLink switch trays)
    per_rack: tuple[tuple[Item, int], ...] = ()    # per compute rack when they fit (ToR, in-rack OOB)
    network: tuple[tuple[Item, int], ...] = ()     # the block's leaves
    racks_per_row: int = 16
    racks_per_system: int = 1   # 2: a system's racks stand side by side, never split by the network racks
    #: The system's published front view, bottom up, by role ((node, 8), (nvlink-switch, 9), ...);
    #: empty: the nodes from U1, then ``in_system``.
    front: tuple[tuple[str, int], ...] = ()


def _compute_rack(spec: BlockSpec, rack: RackType, nodes: int) -> tuple[Layout, list[tuple[Item, int]]]:
    """One compute rack of ``nodes`` nodes, and the per-rack devices that did not fit it."""
    slots = _empty(RackKind.COMPUTE, rack)
    used, power = 0, sum(i.power_w for i, _ in slots)
    load = _stack(spec, nodes)
    for item, count in load:
        check_fits(rack, item)
        for _ in range(count):
            if not _fits(rack, item, used, power):
                raise _overfull(spec, rack, nodes, load)
            slots.append((item, used + 1 if item.height else 0))
            used += item.height
            power += item.power_w
    spill: list[tuple[Item, int]] = []
    for item, count in spec.per_rack:
        if used + item.height * count <= rack.u_budget and power + item.power_w * count <= rack.power_budget_w:
            for _ in range(count):
                slots.append((item, used + 1 if item.height else 0))
                used += item.height
                power += item.power_w
        else:
            spill.append((item, count))
    return Layout(RackKind.COMPUTE, rack, tuple(slots)), spill


def _stack(spec: BlockSpec, nodes: int) -> list[tuple[Item, int]]:
    """A compute rack's nodes and system trays bottom up: in the published front view's order where
    there is one (an NVL72's compute trays below and above its switch trays), a rack of fewer nodes
    filling its node blocks from the bottom; what the view does not hold goes on top."""
    if not spec.front:
        return [(spec.node, nodes), *spec.in_system]
    left = {spec.node.role: nodes} | {item.role: n for item, n in spec.in_system}
    items = {spec.node.role: spec.node} | {item.role: item for item, _ in spec.in_system}
    out: list[tuple[Item, int]] = []
    for role, count in spec.front:
        take = min(count, left.get(role, 0))
        if take:
            out.append((items[role], take))
            left[role] -= take
    return out + [(items[r], n) for r, n in left.items() if n]


def _overfull(spec: BlockSpec, rack: RackType, nodes: int, load: list[tuple[Item, int]]) -> LimitError:
    """The compute rack's whole load against its budgets: the error names the limit that binds
    (64U of DGX H100 in a 48U rack is the height, not the power) and the key that lifts it."""
    base = rack.pdu.power_w * rack.pdus if rack.pdu else 0.0
    height = sum(i.height * n for i, n in load)
    power = base + sum(i.power_w * n for i, n in load)
    limits = binding(rack, height, power)
    node = spec.node
    return LimitError(
        f"{nodes} {node.catalog_id} nodes ({node.height}U, {node.power_w:,.0f} W each) do not fit one compute "
        f"rack: {over_limits(rack, height, power)}", key="layout.nodes_per_rack",
        fix={("layout", "nodes_per_rack"): None},
        hint="Leave layout.nodes_per_rack out (the rack's budgets give it), lower it, or raise "
             + " and ".join(RAISE_LIMIT[k] for k in limits) + ".")


def block_section(spec: BlockSpec, compute: RackType, network: RackType) -> Section:
    """A block's racks: compute racks with its network racks in the middle of its first row."""
    full, rest = divmod(spec.nodes, spec.nodes_per_rack)
    fills = [spec.nodes_per_rack] * full + ([rest] if rest else [])
    racks: list[Layout] = []
    spilled: list[tuple[Item, int]] = []
    cache: dict[int, tuple[Layout, list[tuple[Item, int]]]] = {}
    for n in fills:
        if n not in cache:
            cache[n] = _compute_rack(spec, compute, n)
        lay, spill = cache[n]
        racks.append(lay)
        spilled += spill
    net = pack(RackKind.NETWORK, network, list(spec.network) + _merge(spilled))
    middle = _middle(len(racks), len(net), spec.racks_per_row, spec.racks_per_system)
    return Section(spec.copies, tuple(racks[:middle]) + net + tuple(racks[middle:]))


def _middle(racks: int, net: int, per_row: int, per_system: int) -> int:
    """Where the block's ``net`` network racks stand among its ``racks`` compute racks: the middle of its
    first row; for a system over two racks (NVL36x2), the nearest place where no system's two racks are
    split by the network racks or a row's end (its racks are cabled to each other), where there is one.

    >>> _middle(16, 1, 16, 1), _middle(16, 1, 16, 2), _middle(6, 1, 16, 2)   # 16: the row holds 8 systems whole
    (8, 16, 2)
    """
    ideal = min(racks, per_row) // 2
    if per_system == 1:
        return ideal

    def whole(m: int) -> bool:
        at = [i if i < m else i + net for i in range(racks)]
        return m % per_system == 0 and all(at[i] // per_row == at[i + 1] // per_row
                                            for i in range(0, racks - 1, per_system))

    return next((m for d in range(racks + 1) for m in (ideal - d, ideal + d) if 0 <= m <= racks and whole(m)),
                ideal - ideal % per_system)


def _merge(items: list[tuple[Item, int]]) -> list[tuple[Item, int]]:
    out: dict[Item, int] = {}
    for item, n in items:
        out[item] = out.get(item, 0) + n
    return list(out.items())


def shared_sections(groups: list[tuple[RackKind, RackType, list[tuple[Item, int]]]]) -> list[Section]:
    """The shared network, management and storage racks of a site."""
    out = []
    for kind, rack, items in groups:
        items = [(i, n) for i, n in items if n]
        if items:
            out.append(Section(1, pack(kind, rack, items)))
    return out


def managed(section: Section) -> int:
    """Devices with a management port in one copy of ``section``."""
    return sum(1 for lay in section.layouts for item, _ in lay.slots if item.managed)


def rows_needed(racks: int, per_row: int) -> int:
    return math.ceil(racks / per_row)
