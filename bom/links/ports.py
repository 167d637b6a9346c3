"""The cable plan's port bookkeeping: devices' cage ranges, port names, the constant part of a
link group's rows and the counters every hop of one plan shares.

Used by the hops' expansions (:mod:`bom.links.fabric`) and the cable plan (:mod:`bom.cableplan.rows`);
the numbering rules are described there.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from bom import names
from bom.errors import LimitError
from bom.model.records import PlanRow
from bom.roles import FabricRole, Layer
from bom.topology.geometry import route

if TYPE_CHECKING:
    from bom.catalog.rows import Catalog
    from bom.model.floorplan import Floorish, FloorPlan, Run
    from bom.model.plane import Plane


#: The DCI's own border leaves (where no fabric of the scenario takes its routers' client links).
OWN_BORDER_ROLE = names.switch_role(FabricRole.DCI, Layer.LEAF)
#: The roles that stand in a site's own racks (its DCI equipment), not its shape's.
OWN_ROLES = frozenset({Layer.ROUTER, Layer.MUX, Layer.AMPLIFIER, OWN_BORDER_ROLE})
#: A device's place on a plan row: (site, row, rack, U, device, role), and its labels' prefix.
Place = tuple[tuple[object, ...], str]
#: A link's end as the plan names it: (port, its cage's first port).
End = tuple[str, str]


def place_of(where: tuple[str, str, str, int | str, str], role: str) -> Place:
    """A device's place on a plan row from where it stands (:meth:`Locator.where`): its six columns, and its
    labels' prefix (rack and U, or the device's name where it has no rack unit)."""
    s, row, rack, u, device = where
    return (s, row, rack, u, device, role), f"{rack}-{names.unit(u, device)}" if rack and isinstance(u, int) else device


class PortEnd(Protocol):
    """How the plan names one end's port of one link: ``at(key, per)`` -> (port, its cage's first port),
    ``key`` what shares a cage at that end, ``per`` the ports one module there serves (a device's
    cages, :class:`Ports`, or a port by name, :class:`~bom.links.pattern.Fixed`)."""

    def at(self, key: Hashable, per: int) -> tuple[str, str]: ...


class PlanMismatchError(Exception):
    """The plan cannot place a link the closed form counts: a bug, never bad input."""


class Locator(Protocol):
    """Where a device stands: (site, row, rack, U, device name) for the index-th device of a role."""

    def where(self, role: str, site: int, index: int) -> tuple[str, str, str, int | str, str]: ...


def port_names(cages: int, per: int, first_cage: int = 0) -> list[str]:
    if per == 1:
        return [names.port(first_cage + c + 1) for c in range(cages)]
    return [names.port(first_cage + c + 1, s + 1) for c in range(cages) for s in range(per)]


def node_port_names(fabric: str, cages: int, per: int) -> list[str]:
    """A node's ports on ``f``: ``p1/1`` on the compute fabric, ``oob-p1`` on the others (a node
    has a NIC on each fabric, so its port names carry the fabric to stay unique on the device)."""
    ports = port_names(cages, per)
    return ports if fabric == FabricRole.COMPUTE else [f"{fabric}-{n}" for n in ports]


class Ports:
    """One side of a device's cages (downlinks, uplinks, DCI), handed out a link group at a time."""

    __slots__ = ("first", "next", "end", "per", "open", "names", "what", "below")

    def __init__(self, first: int, cages: int, per: int, names_: list[str], what: tuple[str, int]) -> None:
        self.first, self.next, self.end, self.per = first, first, first + cages, per
        self.open: dict[Hashable, list[int]] = {}
        self.names = names_    # indexed by port number on this device (cage * per + sub)
        self.what = what
        self.below: Ports | None = None   # the range before this one on the same device

    def take(self, key: Hashable, fill: int = 0) -> int:
        """The next port for a link whose cage is shared by ``key``; ``fill``: the ports one module (or
        cable head) there serves, where fewer than the cage's (an 800G cage run as two 100G ports for a
        splitter's heads, beside cages of four 200G ports): a cage of that key holds that many."""
        per = self.per
        if per > 1:
            o = self.open.get(key)
            if o is not None and o[1] < (min(fill, per) if fill else per):
                o[1] += 1
                return o[0] * per + o[1] - 1
        c = self.next
        if c >= self.end:
            self._full()
        self.next = c + 1
        if per > 1:
            self.open[key] = [c, 1]
        return c * per

    def _full(self) -> None:
        role, index = self.what
        kinds = max((r.open for r in (self, self.below) if r is not None), key=len)
        if len(kinds) > 1:
            raise LimitError(
                f"{role} {index + 1} runs out of cages in the cable plan: its links take {len(kinds)} kinds "
                f"of module ({', '.join(str(k) for k in kinds)}), and a twin-port cage holds one, so the "
                "half-empty cages of each kind need more cages than the switch has", key="fabrics",
                hint="Restrict the fabric's media to one kind (for example media: [smf-parallel]).")
        raise PlanMismatchError(f"{role} {index + 1} would need a cage past its {self.end} in the cable plan: "
                                "the closed form counts more ports than the device has")

    def at(self, key: Hashable, fill: int) -> tuple[str, str]:
        """The next port for a link whose cage is shared by ``key`` (a :class:`PortEnd`): the port and
        its cage's first port. :meth:`take` written out (one call a link end: the plan's hot path)."""
        per, names_ = self.per, self.names
        if per > 1:
            o = self.open.get(key)
            if o is not None:
                n = o[1]
                if n < (fill if 0 < fill < per else per):
                    o[1] = n + 1
                    first = o[0] * per
                    return names_[first + n], names_[first]
        c = self.next
        if c >= self.end:
            self._full()
        self.next = c + 1
        if per > 1:
            self.open[key] = [c, 1]
        j = c * per
        return names_[j], names_[j]

    def many(self, key: Hashable, fill: int, n: int) -> list[tuple[str, str]]:
        """:meth:`at` ``n`` times in one call (a mesh's links between one pair of switches)."""
        per, names_, out = self.per, self.names, []
        room = fill if 0 < fill < per else per
        o = self.open.get(key) if per > 1 else None
        for _ in range(n):
            if o is not None and o[1] < room:
                first = o[0] * per
                out.append((names_[first + o[1]], names_[first]))
                o[1] += 1
                continue
            c = self.next
            if c >= self.end:
                self._full()
            self.next = c + 1
            if per > 1:
                o = self.open[key] = [c, 1]
            out.append((names_[c * per], names_[c * per]))
        return out

    @property
    def free(self) -> int:
        return self.end - self.next


@dataclass(slots=True)
class Kind:
    """The constant part of every row of one link group on one floor-plan run."""

    gid: int
    head: tuple[str, str, str]
    a_mod: str
    b_mod: str
    tail: tuple[object, ...]
    runs: int                    # rows per link (fibre runs; 1 for an assembly)
    a_per: int                   # ports one module (or head) serves at each end
    b_per: int
    a_key: object                # what shares a cage at each end: the module part, or the group
    b_key: object                # (an assembly's head is one cable)
    bundle: int                  # 0 own cable, 1 lower cage, 2 upper cage, 3 group count
    per_bundle: int = 1
    counter: list[int] = field(default_factory=lambda: [0])
    #: One row per link, made by :meth:`RowState.row` (or the hot loops' copy of it).
    one: bool = field(init=False)

    #: The row's last fields (the far end's module, then :attr:`tail`), made once.
    post: tuple[object, ...] = field(init=False)

    def __post_init__(self) -> None:
        self.one = self.runs == 1 and self.bundle != 3
        self.post = (self.b_mod, *self.tail)

    def next_bundle(self) -> str:
        """The group bundle of the next run (``bundle == 3``: a splitter's or trunk's runs, counted)."""
        n = self.counter[0]
        self.counter[0] = n + 1
        return f"B{self.gid:03d}-{n // self.per_bundle + 1:06d}"


#: What makes one link's rows: (kind, plane, rail, lower end's place, port, cage, upper end's place, port, cage).
Emit = Callable[[Kind, int | str, int | str, Place, str, str, Place, str, str], Sequence[PlanRow]]


#: The device places a plan keeps between sites (about 15 MB): a site of 100,000 GPUs of every fabric
#: is placed once, not once per fabric and hop family.
KEEP_PLACES = 50_000


class RowState:
    """Counters and device places shared by every hop of one plan."""

    def __init__(self, model: Any, locator: Locator) -> None:
        self.model = model
        self.locator = locator
        self.cable = itertools.count(1)
        self.link = itertools.count(1)
        self.places: dict[tuple[str, int, int], tuple[tuple[object, ...], str]] = {}
        self.catalog: Catalog | None = None
        self.spots: dict[tuple[str, int, int], tuple[int, int]] = {}
        self.floors: tuple[Floorish, ...] = ()
        self.shape_of: list[int] = []   # site (from 1) -> its shape's index, at [site - 1]
        self.memo: dict[Hashable, object] = {}   # what a hop works out once per site shape (HopContext.per_shape)
        # A locator that places a section copy's devices at a time says so (PlacementLocator.place).
        bulk = getattr(locator, "place", None)
        self._locate: Callable[[str, int, int], Place] = bulk if bulk is not None else (
            lambda role, site, index: place_of(locator.where(role, site, index), role))

    def spot(self, role: str, site: int, index: int) -> tuple[int, int]:
        """Where the device stands (row, position): the floor of the site's shape, or the site's own
        racks for its DCI equipment."""
        if role not in OWN_ROLES:   # the floor keeps its devices' spots (every site of its shape)
            return self.floors[self.shape_of[site - 1]].spot(role, index)
        key = (role, site, index)
        s = self.spots.get(key)
        if s is None:
            s = self.spots[key] = self.model.placement.own_spot(site, role, index)
        return s

    def run(self, a: tuple[str, int], b: tuple[str, int], site: int, fp: FloorPlan) -> Run:
        """The run between the ``a`` and ``b`` devices, (role, index) in ``site``, where they stand."""
        return route(self.spot(a[0], site, a[1]), self.spot(b[0], site, b[1]), fp)

    def place(self, role: str, site: int, index: int) -> Place:
        key = (role, site, index)
        p = self.places.get(key)
        if p is None:
            p = self.places[key] = self._locate(role, site, index)
        return p

    def forget(self, site: int) -> None:
        """A site is finished: past :data:`KEEP_PLACES` places, drop them all (a campus never holds all
        its devices at once; below, the next fabric or hop family of a site finds its devices placed)."""
        if len(self.places) >= KEEP_PLACES:
            self.places = {}
            self.spots = {}

    def row(self, k: Kind, plane: int | str, rail: int | str, a: Place, a_port: str, a_cage: str, b: Place,
            b_port: str, b_cage: str) -> PlanRow:
        """The one row of a link on one run (the common case: ``k.runs == 1``, no group bundle)."""
        b0 = k.bundle
        bundle = "" if b0 == 0 else f"{a[0][4]}:{a_cage}" if b0 == 1 else f"{b[0][4]}:{b_cage}"
        return (f"C{next(self.cable):08d}", f"{a[1]}:{a_port} / {b[1]}:{b_port}", f"L{next(self.link):08d}",
                bundle, *k.head, plane, rail, *a[0], a_port, k.a_mod, *b[0], b_port, k.b_mod, *k.tail)

    def one_row(self, k: Kind, plane: int | str, rail: int | str, a: Place, a_port: str, a_cage: str, b: Place,
                b_port: str, b_cage: str) -> tuple[PlanRow]:
        return (self.row(k, plane, rail, a, a_port, a_cage, b, b_port, b_cage),)

    def emitter(self, k: Kind) -> Emit:
        """What makes a link's rows (a sequence): ``row`` wrapped, or ``rows`` for several runs."""
        return self.one_row if k.one else self.rows

    def pair_rows(self, out: list[PlanRow], pairs: Iterable[Any], site: int, kinds: dict[Run, Kind],
                  fp: FloorPlan) -> None:
        """The rows of a section copy's :class:`~bom.links.pattern.Pair` s appended to ``out``: each lower
        device's place and spot once for its consecutive pairs (a node's rails), the common link (one
        row, no group bundle) made here in one tuple, the rest by :meth:`add`."""
        place, spot, add, cable, link = self.place, self.spot, self.add, self.cable, self.link
        append = out.append
        last_dev = None
        a0: tuple[object, ...] = ()
        a1 = ""
        a: Place | None = None
        a_spot: tuple[int, int] = (0, 0)
        # The upper devices' places and spots, and the kinds by the two spots, once per call; each upper
        # device's place and kind by the lower device's spot, so a row of a placed pair takes one lookup.
        uppers: dict[tuple[str, int], Place] = {}
        up_spots: dict[tuple[str, int], tuple[int, int]] = {}
        by_spots: dict[tuple[tuple[int, int], tuple[int, int]], Kind] = {}
        by_a: dict[tuple[int, int], dict[tuple[str, int], tuple[Place, Kind]]] = {}
        near: dict[tuple[str, int], tuple[Place, Kind]] | None = None
        for lower, upper, count, plane, rail, a_end, b_end, spots, _many, run in pairs:
            if lower != last_dev or a is None:
                last_dev, a, near = lower, place(lower[0], site, lower[1]), None
                a0, a1 = a
            if run is None and spots is None:
                if near is None:
                    a_spot = spot(lower[0], site, lower[1])
                    near = by_a.get(a_spot)
                    if near is None:
                        near = by_a[a_spot] = {}
                e = near.get(upper)
                if e is None:
                    b = uppers.get(upper)
                    if b is None:
                        b = uppers[upper] = place(upper[0], site, upper[1])
                    b_spot = up_spots.get(upper)
                    if b_spot is None:
                        b_spot = up_spots[upper] = spot(upper[0], site, upper[1])
                    k = by_spots.get((a_spot, b_spot))
                    if k is None:
                        k = by_spots[a_spot, b_spot] = kinds[route(a_spot, b_spot, fp)]
                    e = near[upper] = (b, k)
                b, k = e
            else:
                b = uppers.get(upper)
                if b is None:
                    b = uppers[upper] = place(upper[0], site, upper[1])
                k = kinds[run if run is not None else route(spots[0], spots[1], fp)]
            if count != 1 or k.runs != 1:
                add(out, k, count, plane, rail, a, a_end, b, b_end)
                continue
            ap, ac = a_end.at(k.a_key, k.a_per)
            bp, bc = b_end.at(k.b_key, k.b_per)
            b0, b1 = b
            bundle = k.bundle
            append((f"C{next(cable):08d}", f"{a1}:{ap} / {b1}:{bp}", f"L{next(link):08d}",
                    "" if bundle == 0 else f"{a0[4]}:{ac}" if bundle == 1 else f"{b0[4]}:{bc}" if bundle == 2
                    else k.next_bundle(), *k.head, plane, rail, *a0, ap, k.a_mod, *b0, bp, *k.post))

    def mesh_rows(self, out: list[PlanRow], lower: tuple[str, Iterable[int], Callable[[int], PortEnd]],
                  upper: tuple[str, Iterable[int], Callable[[int], PortEnd]], per: int, plane: int | str,
                  site: int, kinds: dict[Run, Kind], fp: FloorPlan) -> None:
        """A mesh's rows (every lower device to every upper device, ``per`` links a pair) appended to
        ``out``, lower device by lower device: the upper devices' places and spots once."""
        place, spot, cable, link = self.place, self.spot, self.cable, self.link
        append = out.append
        lo, lower_ids, a_of = lower
        up, upper_ids, b_of = upper
        uppers = [(place(up, site, j), spot(up, site, j), b_of(j)) for j in upper_ids]
        # The kinds of a lower device's runs to every upper device, once per spot (a rack's leaves).
        by_spot: dict[tuple[int, int], list[Kind]] = {}
        all_ports = all(isinstance(e, Ports) for _, _, e in uppers)
        for i in lower_ids:
            a_end, a, a_spot = a_of(i), place(lo, site, i), spot(lo, site, i)
            a0, a1 = a
            a_at = a_end.at
            many = all_ports and isinstance(a_end, Ports)
            ks = by_spot.get(a_spot)
            if ks is None:
                ks = by_spot[a_spot] = [kinds[route(a_spot, b_spot, fp)] for _, b_spot, _ in uppers]
            # Each kind's fields up to the near end's port, once per lower device.
            pre: dict[int, tuple[object, ...]] = {}
            for k, (b, _, b_end) in zip(ks, uppers, strict=True):
                if not k.one:
                    self.add(out, k, per, plane, "", a, a_end, b, b_end)
                    continue
                a_key, a_per, b_key, b_per, bundle, post = k.a_key, k.a_per, k.b_key, k.b_per, k.bundle, k.post
                a_mod, b_at = k.a_mod, b_end.at
                head = pre.get(k.gid)
                if head is None:
                    head = pre[k.gid] = (*k.head, plane, "", *a0)
                b0, b1 = b
                if per == 1:
                    ends: Iterable[tuple[End, End]] = ((a_at(a_key, a_per), b_at(b_key, b_per)),)
                elif many:   # each end's ports taken in one call
                    assert isinstance(a_end, Ports) and isinstance(b_end, Ports)
                    ends = zip(a_end.many(a_key, a_per, per), b_end.many(b_key, b_per, per), strict=True)
                else:
                    ends = [(a_at(a_key, a_per), b_at(b_key, b_per)) for _ in range(per)]
                for (ap, ac), (bp, bc) in ends:
                    append((f"C{next(cable):08d}", f"{a1}:{ap} / {b1}:{bp}", f"L{next(link):08d}",
                            "" if bundle == 0 else f"{a0[4]}:{ac}" if bundle == 1 else f"{b0[4]}:{bc}",
                            *head, ap, a_mod, *b0, bp, *post))

    def add(self, out: list[PlanRow], k: Kind, count: int, plane: int | str, rail: int | str, a: Place,
            a_end: PortEnd, b: Place, b_end: PortEnd) -> None:
        """Append the rows of ``count`` links between two placed devices on one run to ``out``, each
        end's port from its :class:`PortEnd`; the common case (one row a link, no group bundle) made
        here in one tuple a row, the rest by :meth:`rows`."""
        a_key, a_per, b_key, b_per = k.a_key, k.a_per, k.b_key, k.b_per
        a_at, b_at = a_end.at, b_end.at
        if k.runs != 1:
            for _ in range(count):
                ap, ac = a_at(a_key, a_per)
                bp, bc = b_at(b_key, b_per)
                out += self.rows(k, plane, rail, a, ap, ac, b, bp, bc)
            return
        cable, link, head, tail, a_mod, b_mod = self.cable, self.link, k.head, k.tail, k.a_mod, k.b_mod
        a0, a1, b0, b1, bundle = a[0], a[1], b[0], b[1], k.bundle
        append = out.append
        for _ in range(count):
            ap, ac = a_at(a_key, a_per)
            bp, bc = b_at(b_key, b_per)
            append((f"C{next(cable):08d}", f"{a1}:{ap} / {b1}:{bp}", f"L{next(link):08d}",
                    "" if bundle == 0 else f"{a0[4]}:{ac}" if bundle == 1 else f"{b0[4]}:{bc}" if bundle == 2
                    else k.next_bundle(), *head, plane, rail, *a0, ap, a_mod, *b0, bp, b_mod, *tail))

    def rows(self, k: Kind, plane: int | str, rail: int | str, a: Place, a_port: str, a_cage: str, b: Place,
             b_port: str, b_cage: str) -> list[PlanRow]:
        """Every row of a link: one per fibre run, each run counted into its group's trunks."""
        lid = f"L{next(self.link):08d}"
        out = []
        for run in range(1, k.runs + 1):
            n = k.counter[0]
            k.counter[0] = n + 1
            bundle = f"B{k.gid:03d}-{n // k.per_bundle + 1:06d}" if k.bundle == 3 else ""
            # Each run is a cable of its own: its labels name the run (the module's connector), so no
            # two cables of the plan share a label.
            label = (f"{a[1]}:{names.run_port(a_port, run)} / {b[1]}:{names.run_port(b_port, run)}" if k.runs > 1
                     else f"{a[1]}:{a_port} / {b[1]}:{b_port}")
            out.append((f"C{next(self.cable):08d}", label, lid, bundle, *k.head, plane, rail, *a[0], a_port,
                        k.a_mod, *b[0], b_port, k.b_mod, *k.tail))
        return out


class Switches:
    """The cage ranges of every switch of one fabric in one site, made on first use."""

    def __init__(self, fabric: str, planes: int, p: Plane, site: int) -> None:
        self.p, self.site, self.planes = p, site, planes
        leaf, up, spine = p.leaf, p.up, p.spine
        self.roles = {k: names.switch_role(fabric, k) for k in (Layer.LEAF, Layer.SPINE, Layer.CORE)}
        self.leaf_names = port_names(leaf.cages, leaf.ports_per_cage)
        # Uplinks at the switch's native rate (2 x 400G downlinks on an 800G cage, 800G uplinks) are
        # the same cages at another count per cage; dedicated uplinks (an SN2201's QSFP28 ports) are
        # cages of their own, numbered after the downlink cages.
        self.native = (p.leaf_uplink is not None and not p.scheduled and p.leaf_uplink.form_factor == leaf.form_factor
                       and p.leaf_uplink.cages == leaf.cages)
        self.up_names = (self.leaf_names if p.leaf_uplink is None else
                         port_names(up.cages, up.ports_per_cage, 0 if self.native else leaf.cages))
        self.spine_names = port_names(spine.cages, spine.ports_per_cage)
        self.down: dict[int, Ports] = {}
        self.up: dict[int, Ports] = {}
        self.spine_down: dict[int, Ports] = {}
        self.spine_up: dict[int, Ports] = {}
        self.core: dict[int, Ports] = {}

    def leaf_down(self, i: int) -> Ports:
        s = self.down.get(i)
        if s is None:
            per = self.p.leaf.ports_per_cage
            s = self.down[i] = Ports(0, self.p.leaf.cages, per, self.leaf_names, (self.roles[Layer.LEAF], i))
        return s

    def leaf_up(self, i: int) -> Ports:
        """Uplinks from the first cage past the downlink share (or past the last downlink cage in use,
        when a device's downlinks take two kinds of module and so a cage more)."""
        s = self.up.get(i)
        if s is None:
            p = self.p
            if p.leaf_uplink is None or self.native:
                first = max(p.leaf_down // p.leaf.ports_per_cage, self.leaf_down(i).next)
                s = Ports(first, p.up.cages - first, p.up.ports_per_cage, self.up_names, (self.roles[Layer.LEAF], i))
                s.below = self.leaf_down(i)
            else:
                s = Ports(0, p.up.cages, p.up.ports_per_cage, self.up_names, (self.roles[Layer.LEAF], i))
            self.up[i] = s
        return s

    def spare(self, i: int) -> list[Ports]:
        """The cages a leaf leaves free (after its downlinks, after its uplinks): where the
        management switches' uplinks land."""
        down, up = self.leaf_down(i), self.leaf_up(i)
        end = up.first if self.p.leaf_uplink is None or self.native else down.end
        return [Ports(down.next, end - down.next, down.per, down.names, down.what),
                Ports(up.next, up.end - up.next, up.per, up.names, up.what)]

    def _spine_split(self, i: int) -> int:
        """A spine's first uplink cage: past half its ports in three layers (or past its last
        downlink cage in use)."""
        half = -(-(self.p.spine.radix // 2) // self.p.spine.ports_per_cage)
        return max(half, self.spine_lo(i).next)

    def spine_lo(self, i: int) -> Ports:
        s = self.spine_down.get(i)
        if s is None:
            s = self.spine_down[i] = Ports(0, self.p.spine.cages, self.p.spine.ports_per_cage,
                                            self.spine_names, (self.roles[Layer.SPINE], i))
        return s

    def spine_hi(self, i: int) -> Ports:
        s = self.spine_up.get(i)
        if s is None:
            first = self._spine_split(i)
            s = self.spine_up[i] = Ports(first, self.p.spine.cages - first, self.p.spine.ports_per_cage,
                                          self.spine_names, (self.roles[Layer.SPINE], i))
            s.below = self.spine_lo(i)
        return s

    def core_lo(self, i: int) -> Ports:
        s = self.core.get(i)
        if s is None:
            s = self.core[i] = Ports(0, self.p.spine.cages, self.p.spine.ports_per_cage, self.spine_names,
                                      (self.roles[Layer.CORE], i))
        return s

    def top(self) -> tuple[str, list[int]]:
        """The top layer's role and each of its switches' first free cage (in :attr:`spine_names`'
        numbering): cores, spines, or the leaves of a fabric of one switch or a switch pair."""
        p = self.p
        if p.layers == 3:
            return self.roles[Layer.CORE], [self.core[i].next if i in self.core else 0
                                        for i in range(p.cores * self.planes)]
        if p.layers == 2:
            return self.roles[Layer.SPINE], [self.spine_down[i].next if i in self.spine_down else 0
                                         for i in range(p.spines * self.planes)]
        return self.roles[Layer.LEAF], [max(self.leaf_down(i).next, self.up[i].next if i in self.up else 0)
                                    for i in range(p.leaves * self.planes)]
