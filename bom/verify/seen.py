"""What the sources saw: neighbour pairs indexed by (device, port), the one index the check reads.

Names are compared in one canonical form (:func:`device_key`, :func:`port_key`): case does not
count, and ``_`` stands for ``/`` (a Linux interface name cannot hold ``/``, so a host or a veth
named after the plan's port ``p1/2`` is ``p1_2``). A far port may be known by several names (a
host's LLDP port id is its MAC, its description the interface name; an InfiniBand switch port is a
number, the plan's a cage and port): every alias is indexed, and a planned end matches any.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

End = tuple[str, str]   # (device key, port key)
#: A device's ports: port key -> the pair seen there or pairs (a list while added to, then a tuple).
Ports = dict[str, int | list[int] | tuple[int, ...]]


def device_key(name: str) -> str:
    return name.strip().lower()


def port_key(name: str) -> str:
    return name.strip().lower().replace("/", "_")


class Link:
    """One neighbour pair as one source reports it: ``near`` sees ``far``, each end by any of its names.
    A view of the pair's row in :class:`Seen`'s columns (made when asked: a 100,000-GPU site reports
    about a million pairs, and :class:`Seen` holds them as numbers in arrays, not one object each).

    Names as the source writes them are kept for the report (``near_shown``, ``shown``) and joined
    only when asked.
    """

    __slots__ = ("seen", "i")

    def __init__(self, seen: Seen, i: int) -> None:
        self.seen, self.i = seen, i

    @property
    def near_device(self) -> str:
        return self.seen.reporter[self.i][0]

    @property
    def near_name(self) -> str:
        return self.seen.reporter[self.i][1]

    @property
    def source(self) -> str:
        """The file it came from."""
        device, _, source = self.seen.reporter[self.i]
        return self.seen.file(device) if source is None else source

    @property
    def near_ports(self) -> tuple[str, ...]:
        """Port keys: every name the near port is known by."""
        return self.seen.near[self.i][0]

    @property
    def near_port(self) -> str:
        return self.seen.near[self.i][1]

    @property
    def far_device(self) -> str:
        return _key(self.seen.far[self.i])

    @property
    def far_name(self) -> str:
        c = self.seen.far[self.i]
        return c if c.__class__ is str else c[1]

    @property
    def far_ports(self) -> tuple[str, ...]:
        return self.seen.far_keys(self.i)

    @property
    def far_port(self) -> str:
        return self.seen.far_port[self.i][1]

    @property
    def rate_gbps(self) -> float | None:
        """The link's speed, where the source says it."""
        return self.seen.rate(self.i)

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


def far_cell(key: str, name: str) -> str | tuple[str, str]:
    """A far device's cell: its name alone where the name is its key (a plan's names are), else both."""
    return name if key == name else (key, name)


def _key(cell: str | tuple[str, str]) -> str:
    return cell if cell.__class__ is str else cell[0]


#: Array type codes, narrowest first: a column widens to the next when a place does not fit.
_WIDER = {"B": "H", "H": "i", "i": "q"}
_LIMIT = {"B": 0xFF, "H": 0xFFFF, "i": 0x7FFFFFFF, "q": 0x7FFFFFFFFFFFFFFF}


class Column:
    """One column of the pairs: each pair's place (a number in an array as narrow as the places need)
    in a table of the values the pairs share (:attr:`cells`, each value once; 0: no value). A column's
    own table keeps its places small: a site's port names are a few hundred (two bytes a pair), its
    speeds a few (one byte)."""

    __slots__ = ("cells", "places", "at")

    def __init__(self) -> None:
        self.cells: list[Any] = [None]
        self.places: dict[object, int] = {}   # a value -> its place in cells (while reading)
        self.at: array[int] = array("B")

    def __len__(self) -> int:
        return len(self.at)

    def __getitem__(self, i: int) -> Any:
        """Pair ``i``'s value."""
        return self.cells[self.at[i]]

    def cell(self, value: object) -> int:
        """``value``'s place in :attr:`cells`, added once."""
        at = self.places.get(value)
        if at is None:
            at = self.places[value] = len(self.cells)
            self.cells.append(value)
            if at > _LIMIT[self.at.typecode]:   # widened before the place is appended (Seen.append)
                self.at = array(_WIDER[self.at.typecode], self.at)
        return at

    def append(self, place: int) -> None:
        try:
            self.at.append(place)
        except OverflowError:   # the first place past this type's range: every place one size up
            self.at = array(_WIDER[self.at.typecode], self.at)
            self.append(place)


#: An alias's bytes: text as Python holds it (a lone surrogate from a JSON escape included).
_UTF8 = ("utf-8", "surrogatepass")
#: The first byte of a MAC held as its 6 bytes (never a byte of UTF-8 text): a host port's alias is its
#: MAC as lldpd writes it, 17 characters.
_MAC = 0xFE


def _packed(alias: str) -> bytes:
    """An alias as held: a MAC (lower-case, colons, as it reads back exactly) in 7 bytes, else its text."""
    if len(alias) == 17:
        try:
            raw = bytes.fromhex(alias.replace(":", ""))
        except ValueError:
            raw = b""
        if len(raw) == 6 and raw.hex(":") == alias:
            return bytes((_MAC,)) + raw
    return alias.encode(*_UTF8)


def _unpacked(held: bytes | bytearray) -> str:
    return held[1:].hex(":") if held and held[0] == _MAC else held.decode(*_UTF8)


@dataclass
class Seen:
    """Every neighbour pair of every source, indexed by each of its ends (the plan is streamed past it).

    A pair is a row of columns (:class:`Column`), each a place in its column's table of values that
    many pairs share (the reporting file, the near port's names, the far device, the far port's shared
    names, the speed), with the one name of its own a far port may have (a host's MAC as its LLDP port
    id) as bytes in :attr:`alias_text` (a MAC as its 6): about 12 bytes a pair (``bom verify`` at 100,000 GPUs holds
    about 900,000: benchmarks/bench_verify.py).
    """

    #: (near device key, its name, source: None for the device's own LLDP file, :meth:`file`)
    reporter: Column = field(default_factory=Column)
    near: Column = field(default_factory=Column)       # (near port keys, its name)
    far: Column = field(default_factory=Column)        # (far device key, its name), or the name: far_cell
    far_port: Column = field(default_factory=Column)   # (far port keys but the alias, shown)
    rates: Column = field(default_factory=Column)      # (type, speed)
    #: The pairs whose far port has a name of its own (a host's MAC: never shared, so never a cell), in
    #: the order added, and where each one's text ends in :attr:`alias_text`: the alias of
    #: ``aliased[k]`` is ``alias_text[alias_end[k - 1]:alias_end[k]]`` (from 0 for the first).
    aliased: array[int] = field(default_factory=lambda: array("I"))
    alias_end: array[int] = field(default_factory=lambda: array("Q"))
    alias_text: bytearray = field(default_factory=bytearray)
    explained: bytearray = field(default_factory=bytearray)
    #: device key -> port key -> the pair (its row, less the device's first row in :attr:`first`:
    #: a device's own file's pairs are rows in a run, so nearly every one is a small number Python
    #: keeps once) or pairs seen at that end. Once a device's pairs are all in (its file read), its
    #: mapping is shared with every device whose ports and rows are laid out alike (:attr:`layouts`):
    #: a site's nodes are a few layouts.
    by_end: dict[str, Ports] = field(default_factory=dict)
    #: Every device a source names (a pair's end) or covers, numbered in the order met: the number
    #: places it in :attr:`first` and :attr:`paired` (and in the check's table of the plan's devices).
    ids: dict[str, int] = field(default_factory=dict)
    first: array[int] = field(default_factory=lambda: array("q"))   # by number: the device's first row
    paired: bytearray = field(default_factory=bytearray)             # by number: 1 if a pair names it
    #: device key -> the LLDP file that reported it, as its name less ".json" in :attr:`folder` (the
    #: device's name as the file gives it: no path held per file; :meth:`file`), or in :attr:`odd_files`
    files: dict[str, str] = field(default_factory=dict)
    folder: Path | None = None
    odd_files: dict[str, str] = field(default_factory=dict)   # device key -> a file's path not so named
    #: The devices whose every port a source reports: an LLDP file's device, each node ibnetdiscover
    #: lists (a device only named as someone's neighbour may have other ports no one saw). Known
    #: before any pair is added.
    covered: set[str] = field(default_factory=set)
    #: The devices ibnetdiscover lists: it sees their InfiniBand ports, and no other port of theirs.
    infiniband: set[str] = field(default_factory=set)
    port_keys: dict[str, str] = field(default_factory=dict)     # a name -> its port_key, each name once
    #: Each device name once (while reading: sys.intern's table would keep its size for good).
    texts: dict[str, str] = field(default_factory=dict)
    device_keys: dict[str, str] = field(default_factory=dict)   # a name -> its device_key
    port_names: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)   # see ports_of
    #: The devices whose port mapping is their own (still being added to); a layout -> its shared mapping.
    open: set[str] = field(default_factory=set)
    layouts: dict[tuple[object, ...], Ports] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.explained)

    @property
    def links(self) -> list[Link]:
        """Every pair, in the order added (a view of each)."""
        return [Link(self, i) for i in range(len(self))]

    @property
    def columns(self) -> tuple[Column, ...]:
        return (self.reporter, self.near, self.far, self.far_port, self.rates)

    def file(self, device: str) -> str:
        """The path of ``device``'s LLDP file."""
        odd = self.odd_files.get(device)
        return odd if odd is not None else str(Path(self.folder or ".", f"{self.files[device]}.json"))

    def named(self, device: str) -> bool:
        """Whether a pair names ``device`` (at either end)."""
        n = self.ids.get(device)
        return n is not None and n < len(self.paired) and bool(self.paired[n])

    def number(self, device: str) -> int:
        """``device``'s number (:attr:`ids`), given it when first met."""
        n = self.ids.get(device)
        if n is None:
            n = self.ids[device] = len(self.ids)
            self.first.append(-1)
            self.paired.append(0)
        return n

    def add(self, near: tuple[str, tuple[str, ...]], far: tuple[str, tuple[str, ...]],
            names: tuple[str, str, str, str], source: str, rate: float | None = None, alias: str | None = None
            ) -> None:
        """Add a pair: ``near`` and ``far`` (device key, port keys), ``names`` the near device, its
        port, the far device and its port as the source writes them; ``alias``: one more key of the
        far port, its own (a host's MAC). Indexed by its near end, and by its far end when no source
        covers the far device (a device that reports its own ports is looked up by what it reports)."""
        (near_dev, near_ports), (far_dev, far_ports) = near, far
        near_name, near_port, far_name, far_port = names
        self.append(self.reporter.cell((near_dev, near_name, source)), self.near.cell((near_ports, near_port)),
                    self.far.cell(far_cell(far_dev, far_name)), self.far_port.cell((far_ports, far_port)),
                    0 if rate is None else self.rates.cell((type(rate), rate)), alias)

    def append(self, reporter: int, near: int, far: int, far_port: int, rate: int, alias: str | None) -> None:
        """Add a pair by its cells' places in each column (:meth:`add`; each place from its column's
        :meth:`Column.cell`, which widens the column to hold it)."""
        i = len(self.explained)
        self.reporter.at.append(reporter)   # the arrays' own appends: a pair is read in a few microseconds
        self.near.at.append(near)
        self.far.at.append(far)
        self.far_port.at.append(far_port)
        self.rates.at.append(rate)
        if alias is not None:
            self.alias_text += _packed(alias)
            self.aliased.append(i)
            self.alias_end.append(len(self.alias_text))
        self.explained.append(0)
        near_dev, far_dev = self.reporter.cells[reporter][0], _key(self.far.cells[far])
        ids, paired = self.ids, self.paired
        n = ids.get(near_dev)
        paired[self.number(near_dev) if n is None else n] = 1
        n = ids.get(far_dev)
        paired[self.number(far_dev) if n is None else n] = 1
        self._index(near_dev, self.near.cells[near][0], i)
        if far_dev not in self.covered:
            ports = self.far_port.cells[far_port][0]
            self._index(far_dev, ports if alias is None else (alias, *ports), i)

    def _index(self, device: str, ports: tuple[str, ...], i: int) -> None:
        at = self.by_end.get(device)
        n = self.ids[device]
        if at is None:
            at = self.by_end[device] = {}
            self.first[n] = i
            self.open.add(device)
        elif device not in self.open:   # a shared layout: this device's own again
            at = self.by_end[device] = {p: list(x) if isinstance(x, tuple) else x for p, x in at.items()}
            self.open.add(device)
        i -= self.first[n]
        for p in ports:
            was = at.get(p)
            if was is None:
                at[p] = i
            elif isinstance(was, list):
                was.append(i)
            else:
                at[p] = [was, i] if isinstance(was, int) else [*was, i]

    def done(self, device: str) -> None:
        """``device``'s pairs are in (until more come): its mapping shared with the devices laid out alike."""
        if device not in self.open:
            return
        self.open.discard(device)
        at = self.by_end[device]
        layout = tuple((p, tuple(x) if isinstance(x, list) else x) for p, x in at.items())
        shared = self.layouts.get(layout)
        if shared is None:
            shared = self.layouts[layout] = dict(layout)
        self.by_end[device] = shared

    def find(self, end: End) -> Sequence[int]:
        """The pairs seen at ``end`` (their rows), in the order added."""
        at = self.by_end.get(end[0])
        if at is None:
            return ()
        got = at.get(end[1])
        if got is None:
            return ()
        first = self.first[self.ids[end[0]]]
        return (first + got,) if isinstance(got, int) else [first + i for i in got]

    def read(self) -> None:
        """Reading is over: every mapping shared, and what only reading looks up dropped (the names'
        keys, the cells' places, the layouts' table)."""
        for device in list(self.open):
            self.done(device)
        caches: list[dict[Any, Any]] = [self.port_keys, self.device_keys, self.port_names, self.layouts, self.texts]
        for cache in caches + [c.places for c in self.columns]:
            cache.clear()
        for device in self.covered:   # numbered too: the check places every device a source names or covers
            self.number(device)

    def alias(self, i: int) -> str | None:
        """Pair ``i``'s far port's name of its own, if any."""
        k = bisect_left(self.aliased, i)
        if k == len(self.aliased) or self.aliased[k] != i:
            return None
        return _unpacked(self.alias_text[self.alias_end[k - 1] if k else 0:self.alias_end[k]])

    def far_keys(self, i: int) -> tuple[str, ...]:
        """Every key the far port of pair ``i`` is known by (its alias first)."""
        keys = self.far_port[i][0]
        alias = self.alias(i)
        return keys if alias is None else (alias, *keys)

    def rate(self, i: int) -> float | None:
        return self.rates[i][1] if self.rates.at[i] else None

    def joins(self, i: int, a: End, b: End) -> bool:
        """Whether pair ``i`` is the cable from ``a`` to ``b`` (either way round)."""
        # the columns read directly: this runs for every pair at a planned cable's ends
        reporter, far, near = self.reporter, self.far, self.near
        nd, fd = reporter.cells[reporter.at[i]][0], far.cells[far.at[i]]
        if fd.__class__ is not str:
            fd = fd[0]
        if a[0] == nd and b[0] == fd and a[1] in near.cells[near.at[i]][0] and self._far_is(i, b[1]):
            return True
        return b[0] == nd and a[0] == fd and b[1] in near.cells[near.at[i]][0] and self._far_is(i, a[1])

    def _far_is(self, i: int, port: str) -> bool:
        """Whether ``port`` is a key of pair ``i``'s far port (the alias decoded only past the shared ones)."""
        far_port = self.far_port
        return port in far_port.cells[far_port.at[i]][0] or port == self.alias(i)

    def text(self, name: str) -> str:
        """``name``, one string for each text (:attr:`texts`)."""
        return self.texts.setdefault(name, name)

    def device_key(self, name: str) -> str:
        """:func:`device_key`, each name once (and each key one string: the name's own where it is its
        key, as a plan's lower-case names are)."""
        k = self.device_keys.get(name)
        if k is None:
            k = device_key(name)
            if k == name:
                k = name
            k = self.device_keys[name] = self.device_keys.setdefault(k, k)
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
