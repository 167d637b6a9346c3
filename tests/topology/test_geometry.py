"""The hops' ends from where the placement stands the devices (bom/topology/geometry.py): the closed forms a
pod's leaves and a set's racks are made by, against the device-by-device walks they replace."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from bom.topology.geometry import by_spot, pod_leaves


def _pod_leaves_one_by_one(plane: SimpleNamespace, pl: int, planes: int) -> list[list[int]]:
    """A leaf at a time, as the pods' leaves were first listed."""
    out: list[list[int]] = [[] for _ in range(plane.pods)]
    lpg = plane.leaves_per_group
    for seq in range(plane.leaves):
        g, local = divmod(seq, lpg)
        out[min(seq // plane.pod_size, plane.pods - 1)].append((g * planes + pl) * lpg + local)
    return out


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 12), st.integers(1, 9), st.integers(1, 40), st.integers(1, 6), st.data())
def test_a_pods_leaves_by_ranges_are_the_leaf_by_leaf_list(groups, lpg, pod_size, planes, data):
    """Pods that end inside a group, a last pod taking the rest, several planes: the same lists."""
    leaves = groups * lpg
    pods = data.draw(st.integers(1, max(1, -(-leaves // pod_size)) + 1))
    plane = SimpleNamespace(groups=groups, leaves_per_group=lpg, leaves=leaves, pod_size=pod_size, pods=pods)
    pl = data.draw(st.integers(0, planes - 1))
    assert pod_leaves(plane, pl, planes) == _pod_leaves_one_by_one(plane, pl, planes)   # type: ignore[arg-type]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 4), st.integers(1, 4)), min_size=1, max_size=20), st.data())
def test_a_sets_racks_in_first_seen_order(spots, data):
    devices = data.draw(st.lists(st.integers(0, len(spots) - 1), max_size=30))
    floor = SimpleNamespace(spots=lambda role: spots)
    want: dict[tuple[int, int], int] = {}
    for d in devices:
        want[spots[d]] = want.get(spots[d], 0) + 1
    got = by_spot(floor, "spine", devices)   # type: ignore[arg-type]
    assert list(got.items()) == list(want.items()) and type(got) is dict
