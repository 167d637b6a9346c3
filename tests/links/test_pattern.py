"""The closed form's shorthands (bom/links/pattern.py): a :class:`Fan` and a :class:`Star` fill both ends'
device tables as the pairs and meshes they stand for do, so the end groups (and so the link groups) are the
same, in the same order. The referee (tests/links/test_patterns.py) checks them against the plan's rows."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from bom.links.oob import OobToSpines
from bom.links.pattern import Fan, Item, Mesh, Pair, Star, Tags, _Adder
from bom.model.floorplan import EndGroups, FloorPlan
from bom.topology.geometry import Profiles

FP = FloorPlan(4, 8, 0.6, 2.4, 1.0, 0.3, 1.5)
#: Switches standing two or three to a rack, rows apart, so their runs to the far ends differ and repeat.
LOWER = [(1, 1), (1, 1), (1, 2), (3, 5), (3, 5), (3, 5), (1, 2), (6, 8), (2, 1)]
UPPER = [(4, 4), (4, 4), (9, 1), (4, 5)]


class _Floor:
    def __init__(self, spots: dict[str, list[tuple[int, int]]]) -> None:
        self._spots = spots

    def spots(self, role: str) -> list[tuple[int, int]]:
        return self._spots[role]


def _walk(items: list[Item], copies: int = 1) -> tuple[EndGroups, EndGroups]:
    a, b = Profiles(), Profiles()
    ctx = SimpleNamespace(fp=FP, floor=_Floor({"lo": LOWER, "up": UPPER}))
    add = _Adder(ctx, a, b)   # type: ignore[arg-type]  # the walk reads the floor plan and the floor only
    for item in items:
        add(item, copies)
    return a.groups(2), b.groups(2)


def test_a_fan_counts_as_its_pairs() -> None:
    ends = [(n, s) for n, _, s in OobToSpines.spread(len(LOWER), len(UPPER), 3)]
    pairs: list[Item] = [Pair(("lo", n), ("up", s), 1, "", "", None, None, (LOWER[n], UPPER[s])) for n, s in ends]
    fan = _walk([Fan("lo", "up", iter(ends), LOWER, UPPER)], copies=3)
    assert fan == _walk(pairs, copies=3)
    lower, upper = fan
    assert sum(n for n, _ in lower) == 2 * 3 * len(LOWER) and sum(n for n, _ in upper) == 2 * 3 * len(UPPER)
    assert len(lower) < len(LOWER)   # switches of one rack and one profile are one group


def test_a_star_counts_as_a_mesh_a_lower_device() -> None:
    sets = [[0, 1], [2], [3, 1]]   # each lower device's set of upper devices: the same list for the same set
    members = [(d, sets[d % 3], ("set", d % 3)) for d in range(len(LOWER))]
    meshes: list[Item] = [Mesh("lo", [d], "up", group, 2, 1, Tags(("dev", d), tag)) for d, group, tag in members]
    star = _walk([Star("lo", "up", 2, members)])
    assert star == _walk(meshes)
    assert sum(n for n, _ in star[0]) == 2 * len(LOWER)


def _ordered(groups: EndGroups) -> list[tuple[int, list]]:
    """End groups with each group's runs in their order (a dict's equality ignores it)."""
    return [(n, list(runs.items())) for n, runs in groups]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 3), st.integers(0, len(UPPER) - 1)), min_size=1, max_size=len(LOWER)),
       st.integers(1, 4), st.booleans())
def test_a_fan_fills_both_tables_as_its_pairs_in_their_order(devices: list[tuple[int, int]], copies: int,
                                                             one_link: bool) -> None:
    """Random fans (a link a lower device, or several one after another) walked as a fan and as the pairs it
    stands for: the same end groups, each group's runs in the same order, behind a pair already walked."""
    ends = [(n, (s + k) % len(UPPER)) for n, (links, s) in enumerate(devices) for k in range(1 if one_link else links)]
    first = Pair(("up", 0), ("up", 1), 2, "", "", None, None, (UPPER[0], UPPER[1]))
    pairs: list[Item] = [first, *(Pair(("lo", n), ("up", s), 1, "", "", None, None, (LOWER[n], UPPER[s]))
                                  for n, s in ends)]
    fan = _walk([first, Fan("lo", "up", iter(ends), LOWER, UPPER)], copies=copies)
    walked = _walk(pairs, copies=copies)
    assert [_ordered(g) for g in fan] == [_ordered(g) for g in walked]
