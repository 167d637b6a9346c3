"""What the sources saw: neighbour pairs indexed by (device, port), the one index the check reads.

Names are compared in one canonical form (:func:`device_key`, :func:`port_key`): case does not
count, and ``_`` stands for ``/`` (a Linux interface name cannot hold ``/``, so a host or a veth
named after the plan's port ``p1/2`` is ``p1_2``). A far port may be known by several names (a
host's LLDP port id is its MAC, its description the interface name; an InfiniBand switch port is a
number, the plan's a cage and port): every alias is indexed, and a planned end matches any.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

End = tuple[str, str]   # (device key, port key)


def device_key(name: str) -> str:
    return name.strip().lower()


def port_key(name: str) -> str:
    return name.strip().lower().replace("/", "_")


class Link:
    """One neighbour pair as one source reports it: ``near`` sees ``far``, each end by any of its names.
    A view of the pair's row in :class:`Seen`'s columns (made when asked: a 100,000-GPU site reports
    about a million pairs, and :class:`Seen` holds them as shared references, not one object each).

    Names as the source writes them are kept for the report (``near_shown``, ``shown``) and joined
    only when asked.
    """

    __slots__ = ("seen", "i")

    def __init__(self, seen: Seen, i: int) -> None:
        self.seen, self.i = seen, i

    @property
    def near_device(self) -> str:
        return self.seen.reporters[self.i][0]

    @property
    def near_name(self) -> str:
        return self.seen.reporters[self.i][1]

    @property
    def source(self) -> str:
        """The file it came from."""
        return self.seen.reporters[self.i][2]

    @property
    def near_ports(self) -> tuple[str, ...]:
        """Port keys: every name the near port is known by."""
        return self.seen.nears[self.i][0]

    @property
    def near_port(self) -> str:
        return self.seen.nears[self.i][1]

    @property
    def far_device(self) -> str:
        return self.seen.fars[self.i][0]

    @property
    def far_name(self) -> str:
        return self.seen.fars[self.i][1]

    @property
    def far_ports(self) -> tuple[str, ...]:
        return self.seen.far_ports[self.i][0]

    @property
    def far_port(self) -> str:
        return self.seen.far_ports[self.i][1]

    @property
    def rate_gbps(self) -> float | None:
        """The link's speed, where the source says it."""
        return self.seen.rates[self.i]

    @property
    def explained(self) -> bool:
        """A planned cable accounts for it."""
        return bool(self.seen.explained[self.i])

    @explained.setter
    def explained(self, value: bool) -> None:
        self.seen.explained[self.i] = value

    @property
    def near_shown(self) -> str:
        return f"{self.near_name}:{self.near_port}"

    @property
    def shown(self) -> str:
        return f"{self.far_name}:{self.far_port}"

    def near_ends(self) -> list[End]:
        return [(self.near_device, p) for p in self.near_ports]

    def far_ends(self) -> list[End]:
        return [(self.far_device, p) for p in self.far_ports]

    def _near(self, e: End) -> bool:
        return e[0] == self.near_device and e[1] in self.near_ports

    def _far(self, e: End) -> bool:
        return e[0] == self.far_device and e[1] in self.far_ports

    def joins(self, a: End, b: End) -> bool:
        """Whether this pair is the cable from ``a`` to ``b`` (either way round)."""
        return self.seen.joins(self.i, a, b)

    def mirrors(self, other: Link) -> bool:
        """Whether ``other`` is this pair reported from its other end."""
        return any(self._far(e) for e in other.near_ends()) and any(self._near(e) for e in other.far_ends())

    def far_of(self, end: End) -> str:
        """What this pair shows at the other side of ``end``."""
        return self.shown if self._near(end) else self.near_shown

    def key(self) -> frozenset[str]:
        """The pair whichever end reported it (InfiniBand lists each link from both ends)."""
        return frozenset((self.near_shown.lower(), self.shown.lower()))


@dataclass
class Seen:
    """Every neighbour pair of every source, indexed by each of its ends (the plan is streamed past it).

    A pair is a row of columns, each cell a reference to a value many pairs share (the reporting
    file, the near port's names, the far device's, the far port's, the speed): about a tenth of a
    pair held as an object of its own (``bom verify`` at 100,000 GPUs: benchmarks/bench_verify.py).
    """

    reporters: list[tuple[str, str, str]] = field(default_factory=list)   # (near device key, its name, source)
    nears: list[tuple[tuple[str, ...], str]] = field(default_factory=list)   # (near port keys, its name)
    fars: list[tuple[str, str]] = field(default_factory=list)           # (far device key, its name)
    far_ports: list[tuple[tuple[str, ...], str]] = field(default_factory=list)   # (far port keys, shown)
    rates: list[float | None] = field(default_factory=list)
    explained: bytearray = field(default_factory=bytearray)
    #: device key -> port key -> the pair (its row, less the device's first row in :attr:`first`:
    #: a device's own file's pairs are rows in a run, so nearly every one is a small number Python
    #: keeps once) or pairs seen at that end
    by_end: dict[str, dict[str, int | list[int]]] = field(default_factory=dict)
    first: dict[str, int] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)     # device key -> the file that reported it
    devices: set[str] = field(default_factory=set)          # every device key a source names
    #: The devices whose every port a source reports: an LLDP file's device, each node ibnetdiscover
    #: lists (a device only named as someone's neighbour may have other ports no one saw). Known
    #: before any pair is added.
    covered: set[str] = field(default_factory=set)
    #: The devices ibnetdiscover lists: it sees their InfiniBand ports, and no other port of theirs.
    infiniband: set[str] = field(default_factory=set)
    port_keys: dict[str, str] = field(default_factory=dict)     # a name -> its port_key, each name once
    device_keys: dict[str, str] = field(default_factory=dict)   # a name -> its device_key
    port_names: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)   # see ports_of
    #: Each shared cell once (a tuple of the columns' values -> itself).
    shared: dict[object, object] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.reporters)

    @property
    def links(self) -> list[Link]:
        """Every pair, in the order added (a view of each)."""
        return [Link(self, i) for i in range(len(self.reporters))]

    def _one(self, value: Any) -> Any:
        return self.shared.setdefault(value, value)

    def add(self, near: tuple[str, tuple[str, ...]], far: tuple[str, tuple[str, ...]],
            names: tuple[str, str, str, str], source: str, rate: float | None = None) -> None:
        """Add a pair: ``near`` and ``far`` (device key, port keys), ``names`` the near device, its
        port, the far device and its port as the source writes them. Indexed by its near end, and
        by its far end when no source covers the far device (a device that reports its own ports is
        looked up by what it reports)."""
        (near_dev, near_ports), (far_dev, far_ports) = near, far
        near_name, near_port, far_name, far_port = names
        one, i = self._one, len(self.reporters)
        self.reporters.append(one((near_dev, near_name, source)))
        self.nears.append(one((near_ports, near_port)))
        self.fars.append(one((far_dev, far_name)))
        self.far_ports.append(one((far_ports, far_port)))
        self.rates.append(None if rate is None else one((type(rate), rate))[1])
        self.explained.append(0)
        self.devices.add(near_dev)
        self.devices.add(far_dev)
        self._index(near_dev, near_ports, i)
        if far_dev not in self.covered:
            self._index(far_dev, far_ports, i)

    def _index(self, device: str, ports: tuple[str, ...], i: int) -> None:
        at = self.by_end.get(device)
        if at is None:
            at = self.by_end[device] = {}
            self.first[device] = i
        i -= self.first[device]
        for p in ports:
            was = at.get(p)
            if was is None:
                at[p] = i
            elif isinstance(was, list):
                was.append(i)
            else:
                at[p] = [was, i]

    def find(self, end: End) -> Sequence[int]:
        """The pairs seen at ``end`` (their rows), in the order added."""
        at = self.by_end.get(end[0])
        if at is None:
            return ()
        got = at.get(end[1])
        if got is None:
            return ()
        first = self.first[end[0]]
        return (first + got,) if isinstance(got, int) else [first + i for i in got]

    def read(self) -> None:
        """Reading is over: drop what only reading looks up (the names' keys, the shared cells' table)."""
        for cache in (self.port_keys, self.device_keys, self.port_names, self.shared):
            cache.clear()

    def joins(self, i: int, a: End, b: End) -> bool:
        """Whether pair ``i`` is the cable from ``a`` to ``b`` (either way round)."""
        nd, fd, np, fp = self.reporters[i][0], self.fars[i][0], self.nears[i][0], self.far_ports[i][0]
        return (a[0] == nd and a[1] in np and b[0] == fd and b[1] in fp) or \
            (b[0] == nd and b[1] in np and a[0] == fd and a[1] in fp)

    def device_key(self, name: str) -> str:
        """:func:`device_key`, each name once."""
        k = self.device_keys.get(name)
        if k is None:
            k = self.device_keys[name] = device_key(name)
        return k

    def ports_of(self, first: str, last: str) -> tuple[str, ...]:
        """The port keys of a port known by the names ``first`` and ``last`` (the same name twice
        for one), one tuple for each pair of names (a site has a few hundred, on every device)."""
        k = self.port_names.get((first, last))
        if k is None:
            a, b = self.port_key(first), self.port_key(last)
            k = self.port_names[first, last] = (a,) if a == b else (a, b)
        return k

    def port_key(self, name: str) -> str:
        """:func:`port_key`, each name once (a site has a few hundred port names, repeated on every device)."""
        k = self.port_keys.get(name)
        if k is None:
            k = self.port_keys[name] = port_key(name)
        return k

    def at(self, end: End) -> list[Link]:
        return [Link(self, i) for i in self.find(end)]
