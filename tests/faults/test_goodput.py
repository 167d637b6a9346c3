"""Young's goodput (bom/faults/goodput.py): the optimum beats any other interval, and the extremes."""

from __future__ import annotations

import math

import pytest

from bom.faults.goodput import goodput, optimal_interval


@pytest.mark.parametrize("per_day", [0.5, 2.0, 7.76])
def test_the_optimal_interval_keeps_the_most(per_day: float) -> None:
    best = goodput(per_day, 60.0, 600.0)
    for factor in (0.5, 0.8, 1.25, 2.0):
        assert goodput(per_day, 60.0, 600.0, best.interval_s * factor).share < best.share


def test_the_lost_share_at_the_optimum_is_twice_the_checkpoint_share_and_the_restarts() -> None:
    g = goodput(4.0, 30.0, 300.0)
    mtbi = 86400 / 4
    assert g.interval_s == pytest.approx(math.sqrt(2 * 30 * mtbi))
    assert 1 - g.share == pytest.approx(2 * 30 / g.interval_s + 300 / mtbi)


def test_more_interruptions_lose_more_and_never_below_zero() -> None:
    shares = [goodput(n, 60.0, 600.0).share for n in (0.1, 1, 10, 100)]
    assert shares == sorted(shares, reverse=True)
    assert goodput(1e6, 60.0, 600.0).share == 0.0
    assert optimal_interval(60.0, 0.0) == 0.0
