"""The Pareto frontier (bom/model/sweep.py) on grids checked by hand."""

from __future__ import annotations

from bom.model.sweep import ObjectiveJson, PointJson, frontier, pareto

MIN_MIN: list[ObjectiveJson] = [{"figure": "usd_per_gpu_hour", "goal": "min"}, {"figure": "facility_mw", "goal": "min"}]


def _point(i: int, cost: float, mw: float, feasible: bool = True) -> PointJson:
    return {"id": f"p{i:04d}", "index": i, "overrides": {}, "feasible": feasible, "refused_by": None, "reason": None,
            "figures": {"usd_per_gpu_hour": cost, "facility_mw": mw, "gpus": 100 * (i + 1)},  # type: ignore[typeddict-item]
            "frontier": False}


#: A 3 x 3 grid (rows: three racks' designs, columns: three oversubscriptions), cost per GPU-hour and MW:
#:
#:          col 0        col 1        col 2
#: row 0   (3.0, 10)    (2.5, 12)    (2.0, 15)
#: row 1   (3.2,  9)    (2.6, 12)    (2.4, 13)
#: row 2   (4.0,  8)    (3.0, 11)    (2.0, 16)
#:
#: By hand: (2.0, 15) beats (2.0, 16) (same cost, less power) and (2.4, 13)? no: 13 < 15, so (2.4, 13) stays;
#: (2.5, 12) beats (2.6, 12) and (3.0, 11)? no: 11 < 12, so (3.0, 11) stays; (3.0, 10) beats (3.0, 11), so it
#: goes; (3.2, 9) and (4.0, 8) each have the least power at their cost. Frontier: (2.0, 15), (2.4, 13),
#: (2.5, 12), (3.0, 10), (3.2, 9), (4.0, 8): p0002, p0005, p0001, p0000, p0003, p0006, cheapest first.
GRID = [(3.0, 10), (2.5, 12), (2.0, 15), (3.2, 9), (2.6, 12), (2.4, 13), (4.0, 8), (3.0, 11), (2.0, 16)]


def test_the_frontier_of_a_3x3_grid_is_the_one_found_by_hand() -> None:
    points = [_point(i, c, mw) for i, (c, mw) in enumerate(GRID)]
    assert frontier(points, MIN_MIN) == ["p0002", "p0005", "p0001", "p0000", "p0003", "p0006"]


def test_a_goal_of_max_turns_the_frontier() -> None:
    # Most GPUs (100 x (i + 1)) for the least cost: every point with more GPUs than all cheaper ones.
    points = [_point(i, c, mw) for i, (c, mw) in enumerate(GRID)]
    objectives: list[ObjectiveJson] = [{"figure": "usd_per_gpu_hour", "goal": "min"}, {"figure": "gpus", "goal": "max"}]
    # p0008 has the least cost (2.0, with p0002) and the most GPUs (900): it beats every other point.
    assert frontier(points, objectives) == ["p0008"]


def test_refused_points_are_not_on_the_frontier_and_do_not_hide_others() -> None:
    points = [_point(i, c, mw, feasible=i != 2) for i, (c, mw) in enumerate(GRID)]
    # Without p0002, (2.0, 16) is the cheapest and nothing beats it.
    assert frontier(points, MIN_MIN) == ["p0008", "p0005", "p0001", "p0000", "p0003", "p0006"]


def test_equal_points_both_stay_and_a_missing_figure_leaves_a_point_out() -> None:
    assert pareto([(1.0, 1.0), (1.0, 1.0), (2.0, 2.0)]) == [0, 1]
    p = _point(0, 1.0, 1.0)
    p["figures"]["facility_mw"] = None  # type: ignore[index,typeddict-item]
    assert frontier([p, _point(1, 5.0, 5.0)], MIN_MIN) == ["p0001"]


def test_the_frontier_is_what_a_brute_force_finds() -> None:
    import random

    rng = random.Random(7)
    keys = [(rng.randint(0, 9), rng.randint(0, 9), rng.randint(0, 9)) for _ in range(200)]
    brute = [i for i, k in enumerate(keys)
             if not any(o != k and all(a <= b for a, b in zip(o, k, strict=True)) for o in keys)]
    assert pareto([tuple(map(float, k)) for k in keys]) == brute
