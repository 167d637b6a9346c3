"""The plan's port bookkeeping (bom/links/ports.py): the ways of taking a device's ports agree."""

from __future__ import annotations

import pytest

from bom.errors import LimitError
from bom.links.ports import Ports, port_names


def _ports(cages: int, per: int) -> Ports:
    return Ports(1, cages, per, port_names(cages + 1, per), ("spine", 0))


@pytest.mark.parametrize(("per", "fill"), [(1, 0), (2, 0), (2, 1), (4, 0), (4, 2), (4, 3)])
def test_many_takes_the_ports_at_takes_one_by_one(per, fill):
    """A mesh takes a pair's links in one call (``many``): the same ports, cages and open cages as
    ``at`` link by link, with keys interleaved (runs of two module parts on one switch)."""
    one, batch = _ports(40, per), _ports(40, per)
    for key, n in [("a", 3), ("b", 1), ("a", 7), ("b", 5), ("a", 1), ("c", 2)]:
        assert batch.many(key, fill, n) == [one.at(key, fill) for _ in range(n)]
        assert (batch.next, batch.open) == (one.next, one.open)
    assert batch.many("a", fill, 0) == []


def test_many_past_the_last_cage_is_refused_as_at_is():
    """Two kinds of module over twin-port cages: the half-empty cages run the switch out of cages,
    and ``many`` says so as ``at`` does."""
    ports = _ports(3, 2)
    ports.many("x", 0, 3)
    with pytest.raises(LimitError, match="kinds of module"):
        ports.many("y", 0, 4)
