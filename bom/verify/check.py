"""The plan against what the sources saw, one planned cable at a time.

The plan is streamed (:func:`bom.cableplan.rows.rows`) past the sources' index of neighbour pairs
(:class:`~bom.verify.seen.Seen`, keyed by (device, port)): memory grows with what was seen and
with the cables that are wrong, never with the plan. Per planned cable (a plan row):

- **ok**: one end sees the other (a source that gives the speed agrees with the plan's rate);
- **wrong speed**: the ends see each other at a speed that is not the plan's (off by more than
  :data:`RATE_TOLERANCE`);
- **missing**: neither end sees a neighbour, and a source can see an end;
- **miswired**: an end sees a neighbour that is not the other end (a swap shows as two);
- **not checked**: no source can see either end, unless ``fabrics`` names the cable's fabric: then
  it is checked all the same. A source sees the ports of the devices it covers (an LLDP file's
  device, every node ibnetdiscover lists), except a server's BMC port (:data:`bom.roles.SERVERS`:
  neither the host's lldpd nor its HCAs see it) and, on a device only ibnetdiscover covers, a port
  on a fabric that is not InfiniBand. A cable at such a port is not checked even on a covered device
  (host-only LLDP files leave every BMC cable unchecked, not missing), unless a source reports a
  neighbour on it.

What a source saw that no planned cable accounts for (no planned port at either end, a device not
in the plan, a second neighbour on a planned port) is **unexpected**.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from bom.cableplan.rows import COL
from bom.model.records import Cell, PlanRow
from bom.names import MGMT_PORT
from bom.roles import SERVERS
from bom.verify.seen import End, Link, Seen, device_key, port_key

#: The plan's device names whose keys are kept at a time while it streams.
DEVICE_KEYS = 4096
#: A speed within this fraction of the plan's rate is the plan's (a source rounds: FDR is 14 x 4).
RATE_TOLERANCE = 0.1


@dataclass
class Problem:
    """A planned cable that is not as planned, with what each end sees."""

    status: str                 # missing | miswired | wrong-speed
    row: PlanRow                # the plan row
    found_a: str = ""           # what the a end sees ("" = nothing)
    found_b: str = ""
    found_rate: float | None = None

    def field(self, name: str) -> Any:
        return self.row[COL[name]]

    def end(self, side: str) -> str:
        return f"{self.field(f'{side}_device')}:{self.field(f'{side}_port')}"

    @property
    def expected(self) -> str:
        return f"{self.end('a')} - {self.end('b')}"

    @property
    def found(self) -> str:
        return "; ".join(f"{self.end(s)} - {f or 'nothing'}" for s, f in (("a", self.found_a), ("b", self.found_b)))


@dataclass
class Unexpected:
    """A neighbour pair no planned cable accounts for."""

    found: str
    source: str
    why: str
    device: str      # the device key to place it by (rack and U), "" if none

    def to_json(self) -> dict[str, str]:
        return {"found": self.found, "source": self.source, "why": self.why}


class Placed:
    """The plan's devices among those a source names or covers: each one's name in the plan and its rack
    and U (what places an unexpected pair in the work order), by its number in :attr:`Seen.ids
    <bom.verify.seen.Seen.ids>`. Held as the plan streams past (100,000 GPUs: 60,000 devices): a byte,
    a rack and a U each, the rack's text once, a name only where it is not its key."""

    def __init__(self, ids: dict[str, int] | None = None) -> None:
        self.ids: dict[str, int] = {} if ids is None else ids
        n = len(self.ids)
        self.state = bytearray(n)               # 0: not in the plan; 1: named as its key; 2: in other
        self.racks: list[Cell] = [None] * n
        self.us: list[Cell] = [None] * n
        self.other: dict[int, str] = {}         # number -> the plan's name, where it is not the key
        self.rack_text: dict[Cell, Cell] = {}   # each rack's text once

    def put(self, n: int, name: str, key: str, rack: Cell, u: Cell) -> None:
        """Device number ``n`` is the plan's ``name`` (its key ``key``), in ``rack`` at ``u``."""
        if name == key:
            self.state[n] = 1
        else:
            self.state[n] = 2
            self.other[n] = name
        self.racks[n] = self.rack_text.setdefault(rack, rack)
        self.us[n] = u

    def __contains__(self, key: object) -> bool:
        n = self.ids.get(key) if isinstance(key, str) else None
        return n is not None and n < len(self.state) and self.state[n] != 0

    def name(self, key: str) -> str:
        """The plan's name of the device ``key`` (the key itself if not in the plan)."""
        n = self.ids.get(key)
        return self.other.get(n, key) if n is not None else key

    def where(self, key: str) -> tuple[Cell, Cell]:
        """Its (rack, U) in the plan, ("", "") if not in the plan."""
        if key not in self:
            return "", ""
        n = self.ids[key]
        return self.racks[n], self.us[n]


@dataclass
class Verification:
    """What ``bom verify`` found."""

    ok: int = 0
    not_checked: int = 0
    missing: list[Problem] = field(default_factory=list)
    miswired: list[Problem] = field(default_factory=list)
    wrong_speed: list[Problem] = field(default_factory=list)
    unexpected: list[Unexpected] = field(default_factory=list)
    placed: Placed = field(default_factory=Placed)     # the sources' devices in the plan: name, rack, U
    netbox: Any = None    # bom.netbox.diff.Diff, with --netbox

    @property
    def match(self) -> bool:
        return not (self.missing or self.miswired or self.wrong_speed or self.unexpected) and \
            (self.netbox is None or self.netbox.match)

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "ok": self.ok,
            "missing": [p.field("cable_id") for p in self.missing],
            "miswired": [{"cable_id": p.field("cable_id"), "expected": p.expected, "found": p.found}
                         for p in self.miswired],
            "unexpected": [u.to_json() for u in self.unexpected],
            "wrong_speed": [{"cable_id": p.field("cable_id"), "expected": f"{p.field('rate_gbps'):g} Gbit/s",
                             "found": f"{p.found_rate:g} Gbit/s"} for p in self.wrong_speed],
            "not_checked": self.not_checked,
        }
        if self.netbox is not None:
            out["netbox"] = self.netbox.to_json()
        return out


def verify(rows: Iterable[PlanRow], seen: Seen, fabrics: Iterable[str] = (), infiniband: Iterable[str] = ()
           ) -> Verification:
    """Stream the plan's rows past ``seen``; ``fabrics``: check every cable of these whatever the coverage;
    ``infiniband``: the InfiniBand fabrics (the ports ibnetdiscover sees)."""
    v = Verification()
    covered = seen.covered
    ib_only = seen.infiniband - seen.files.keys()
    ib_fabrics = frozenset(infiniband)

    def visible(device: str, port: str, role: str, fabric: str) -> bool:
        """Whether a source can see this end of a planned cable."""
        if device not in covered or (port == MGMT_PORT and role in SERVERS):
            return False
        return device not in ib_only or fabric in ib_fabrics
    only = set(fabrics)
    ai, bi, api, bpi = COL["a_device"], COL["b_device"], COL["a_port"], COL["b_port"]
    ari, aui, bri, bui, fi, rate_i = COL["a_rack"], COL["a_u"], COL["b_rack"], COL["b_u"], COL["fabric"], \
        COL["rate_gbps"]
    aro, bro = COL["a_role"], COL["b_role"]
    find, joins, rate_of, explained = seen.find, seen.joins, seen.rate, seen.explained
    for d in covered:   # every device a source names or covers is numbered (Seen.read does it too)
        seen.number(d)
    ids = seen.ids
    placed = v.placed = Placed(ids)
    state, put = placed.state, placed.put
    # A plan names each device on many rows and each port name on many devices: their keys once (the
    # devices' only while near: a plan names a device on rows close together, and holding every
    # device's key would be a second copy of the sources' names).
    dkeys: dict[str, str] = {}
    pkeys: dict[str, str] = {}

    def dk(name: str) -> str:
        if len(dkeys) >= DEVICE_KEYS:
            dkeys.clear()
        k = dkeys[name] = device_key(str(name))
        return k

    def pk(name: str) -> str:
        k = pkeys.get(name)
        if k is None:
            k = pkeys[name] = port_key(str(name))
        return k

    for r in rows:
        na, nb = r[ai], r[bi]
        da, db = dkeys.get(na) or dk(na), dkeys.get(nb) or dk(nb)
        n = ids.get(da)
        if n is not None and not state[n]:
            put(n, na, da, r[ari], r[aui])
        n = ids.get(db)
        if n is not None and not state[n]:
            put(n, nb, db, r[bri], r[bui])
        if only and r[fi] not in only:
            continue
        if not only and da not in covered and db not in covered:
            v.not_checked += 1
            continue
        pa, pb = r[api], r[bpi]
        a, b = (da, pkeys.get(pa) or pk(pa)), (db, pkeys.get(pb) or pk(pb))
        la, lb = find(a), find(b)
        if not la and not lb:
            # asked only here, of a cable nothing was seen on: the rows that match cost nothing more
            if not only and not (visible(da, pa, r[aro], r[fi]) or visible(db, pb, r[bro], r[fi])):
                v.not_checked += 1
            else:
                v.missing.append(Problem("missing", r))
            continue
        joined = [i for i in (*la, *lb) if joins(i, a, b)]
        if joined:
            for i in joined:
                explained[i] = 1
            want = float(r[rate_i])
            # either end's report of a speed that is not the plan's makes it wrong
            tol = RATE_TOLERANCE * want
            rate = next((x for i in joined if (x := rate_of(i)) and abs(x - want) > tol), None)
            if rate is not None:
                v.wrong_speed.append(Problem("wrong-speed", r, found_rate=rate))
            else:
                v.ok += 1
            continue
        for i in (*la, *lb):
            explained[i] = 1
        v.miswired.append(Problem("miswired", r, _found([Link(seen, i) for i in la], a),
                                  _found([Link(seen, i) for i in lb], b)))
    _unexpected(v, seen)
    return v


#: Neighbours named in what one end of a miswired cable sees; the rest are counted (a port that sees
#: 60,000 neighbours is a hub or a hostile file, and its line would be megabytes long).
FOUND_NAMED = 5


def _found(links: Iterable[Link], end: End) -> str:
    names = list(dict.fromkeys(x.far_of(end) for x in links))
    more = len(names) - FOUND_NAMED
    return ", ".join(names[:FOUND_NAMED]) + (f" and {more:,} more" if more > 0 else "")


def _unexpected(v: Verification, seen: Seen) -> None:
    # The far ends of the explained pairs that stand at an end, per end an unexplained pair looks at:
    # each end's pairs walked once, however many unexplained pairs share it (60,000 reports of one
    # far port would otherwise walk 60,000 pairs each).
    explained_far: dict[End, set[End]] = {}

    def mirrored(x: Link) -> bool:
        for e in x.far_ends():
            far = explained_far.get(e)
            if far is None:
                far = explained_far[e] = {(y.far_device, p) for y in seen.at(e)
                                          if y.explained and y.near_device == e[0] and e[1] in y.near_ports
                                          for p in y.far_ports}
            if far and any((x.near_device, p) in far for p in x.near_ports):
                return True
        return False

    reported: set[frozenset[str]] = set()
    for i, done in enumerate(seen.explained):
        if done:
            continue
        x = Link(seen, i)
        if mirrored(x):
            continue   # accounted for, or its report from the other end is
        if x.key() in reported:
            continue
        reported.add(x.key())
        strangers = [d for d in (x.near_device, x.far_device) if d not in v.placed]
        why = (f"{' and '.join(strangers)} {'is' if len(strangers) == 1 else 'are'} not in the plan" if strangers
               else "the plan has no cable on these ports")
        v.unexpected.append(Unexpected(f"{x.near_shown} - {x.shown}", x.source, why,
                                       x.near_device if x.near_device in v.placed else
                                       x.far_device if x.far_device in v.placed else ""))
    for dev in sorted(seen.files):
        if dev not in v.placed and not seen.named(dev):
            v.unexpected.append(Unexpected(f"{dev}: no neighbour", seen.file(dev), f"{dev} is not in the plan", ""))
