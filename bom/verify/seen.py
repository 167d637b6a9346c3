"""What the sources saw: neighbour pairs indexed by (device, port), the one index the check reads.

Names are compared in one canonical form (:func:`device_key`, :func:`port_key`): case does not
count, and ``_`` stands for ``/`` (a Linux interface name cannot hold ``/``, so a host or a veth
named after the plan's port ``p1/2`` is ``p1_2``). A far port may be known by several names (a
host's LLDP port id is its MAC, its description the interface name; an InfiniBand switch port is a
number, the plan's a cage and port): every alias is indexed, and a planned end matches any.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

End = tuple[str, str]   # (device key, port key)


def device_key(name: str) -> str:
    return name.strip().lower()


def port_key(name: str) -> str:
    return name.strip().lower().replace("/", "_")


@dataclass(slots=True)
class Link:
    """One neighbour pair as one source reports it: ``near`` sees ``far``, each end by any of its names.

    Names as the source writes them are kept for the report (``near_shown``, ``shown``) and joined
    only when asked: a 100,000-GPU site reports over a million pairs.
    """

    near_device: str
    near_ports: tuple[str, ...]     # port keys: every name the near port is known by
    far_device: str
    far_ports: tuple[str, ...]
    near_name: str                  # the ends as the source names them
    near_port: str
    far_name: str
    far_port: str
    source: str                     # the file it came from
    rate_gbps: float | None = None  # the link's speed, where the source says it
    explained: bool = False         # a planned cable accounts for it

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
        # _near and _far written out: asked of every planned cable's pairs (a million at 100k GPUs)
        nd, np, fd, fp = self.near_device, self.near_ports, self.far_device, self.far_ports
        return (a[0] == nd and a[1] in np and b[0] == fd and b[1] in fp) or \
            (b[0] == nd and b[1] in np and a[0] == fd and a[1] in fp)

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
    """Every neighbour pair of every source, indexed by each of its ends (the plan is streamed past it)."""

    links: list[Link] = field(default_factory=list)
    by_end: dict[End, list[Link]] = field(default_factory=lambda: defaultdict(list))
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

    def add(self, link: Link) -> None:
        """Index ``link`` by its near end, and by its far end when no source covers the far device
        (a device that reports its own ports is looked up by what it reports)."""
        self.links.append(link)
        near, far = link.near_device, link.far_device
        self.devices.add(near)
        self.devices.add(far)
        by_end = self.by_end
        for p in link.near_ports:
            by_end[near, p].append(link)
        if far not in self.covered:
            for p in link.far_ports:
                by_end[far, p].append(link)

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
        return self.by_end.get(end, [])
