"""Even shares: how whole ports (or devices) spread over leaves (or switches), the first ones one more.
The one rule both the closed form and the cable plan spread by."""

from __future__ import annotations


def split(total: int, parts: int) -> list[tuple[int, int]]:
    """``total`` ports over ``parts`` leaves as evenly as whole ports allow: [(ports, leaves)], the
    first leaves one more (:func:`share` says which leaf takes a given port).

    >>> split(10, 4)
    [(3, 2), (2, 2)]
    """
    q, r = divmod(total, parts)
    return [(p, n) for p, n in ((q + 1, r), (q, parts - r)) if n]


def share(unit: int, total: int, parts: int) -> int:
    """Which of ``parts`` takes the ``unit``-th of ``total`` units when they split as :func:`split` does.

    >>> [share(u, 10, 4) for u in range(10)]
    [0, 0, 0, 1, 1, 1, 2, 2, 3, 3]
    """
    q, rem = divmod(total, parts)
    big = rem * (q + 1)
    return unit // (q + 1) if unit < big else rem + (unit - big) // q


def paired(unit: int, total: int, parts: int) -> int:
    """Which of ``parts`` switches in MLAG pairs takes the ``unit``-th of ``total`` units: consecutive units
    alternate between a pair's two switches (a node's two ports dual-homed), the pairs taking even
    shares of them as :func:`share` gives.

    >>> [paired(u, 8, 4) for u in range(8)]
    [0, 1, 0, 1, 2, 3, 2, 3]
    """
    return 2 * share(unit // 2, -(-total // 2), parts // 2) + unit % 2


def runs(total: int, parts: int, block: int) -> list[tuple[int, int, int]]:
    """(units, part, block) of each run of consecutive units, of ``total`` split over ``parts`` as
    :func:`share` does, that one part and one block of ``block`` units take (a site's client links by
    border leaf and router): work per part and block, not per unit.

    >>> runs(10, 4, 4)
    [(3, 0, 0), (1, 1, 0), (2, 1, 1), (2, 2, 1), (2, 3, 2)]
    """
    out = []
    at = 0
    for part, size in enumerate(size for size, n in split(total, parts) for _ in range(n)):
        end = at + size
        while at < end:
            stop = min(end, (at // block + 1) * block)
            out.append((stop - at, part, at // block))
            at = stop
    return out
