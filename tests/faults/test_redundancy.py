"""Redundancy priced (bom/faults/redundancy.py): the spares' count and what each option changes."""

from __future__ import annotations

import pytest

from bom.faults.redundancy import poisson_quantile


def test_poisson_spares_cover_the_failures_in_a_repair_time() -> None:
    # P(N <= 3) for mean 0.9 = e^-0.9 (1 + 0.9 + 0.405 + 0.1215) = 0.9865 < 0.99; with 4: 0.9977.
    assert poisson_quantile(0.9, 0.99) == 4
    assert poisson_quantile(0.9, 0.98) == 3
    assert poisson_quantile(0.0, 0.99) == 0


@pytest.mark.parametrize("level", [0.9, 0.99, 0.999])
def test_more_service_more_spares(level: float) -> None:
    assert poisson_quantile(2.0, level) <= poisson_quantile(2.0, min(0.9999, level + 0.009))
