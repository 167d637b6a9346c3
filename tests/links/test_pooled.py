"""The pooled fabric's node-leaf pattern: a run of node ports' leaves as the per-port rule gives them."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from bom.links.pooled import PooledNodeLeaf
from bom.model.fabrics import PooledShape
from bom.model.shares import paired, share


class _Fab:
    """What :meth:`PooledNodeLeaf.leaf` reads of a pooled fabric's view."""

    def __init__(self, planes: int, mlag: bool) -> None:
        self.planes, self.mlag = planes, mlag

    def spread(self, unit: int, total: int, parts: int) -> int:
        return paired(unit, total, parts) if self.mlag else share(unit, total, parts)


SHAPES = [PooledShape(80 + 2 * 144, 0, 72, 0, block_units=144),   # two full blocks, a partial one
          PooledShape(3 * 82, 0, 42, 0, block_units=82),          # full blocks only, 41 + 41
          PooledShape(25002, 18, 144, 1, block_units=144),        # the 100k-GPU site's in-band
          PooledShape(100, 0, 36, 0)]                             # one block, no full one past it


@pytest.mark.parametrize("ps", SHAPES)
@pytest.mark.parametrize(("planes", "lpg", "mlag"), [(1, 1, False), (2, 2, True), (2, 3, False)])
def test_leaves_are_each_ports_leaf(ps: PooledShape, planes: int, lpg: int, mlag: bool) -> None:
    """Every run of ports, inside a block and across blocks, in every plane: the leaves
    :meth:`PooledNodeLeaf.leaf` gives port by port (the block's table made once, read for them all)."""
    fab: Any = _Fab(planes, mlag)
    p: Any = SimpleNamespace(leaves_per_group=lpg)
    hop, n = PooledNodeLeaf(), ps.node_units
    for pl in range(planes):
        block: list[int] = []
        want = [hop.leaf(fab, ps, p, u, pl) for u in range(n)]
        for start, stop in [(0, n), (0, 1), (5, 77), (70, 150), (n - 3, n), (143, 289), (n // 2, n // 2)]:
            stop = min(stop, n)
            assert hop.leaves(fab, ps, p, pl, start, stop, block) == want[start:stop]
    assert len(set(want)) > 1
