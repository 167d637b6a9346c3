"""The cable plan: every link from device and port to device and port, as the closed form builds it.

A generator over the :class:`~bom.model.model.Model` that yields one row per fibre run or copper-assembly
leg, with the link it carries, for every scale-out fabric and for scale-across. It walks the same
rules the closed form counts with (:mod:`bom.topology.planes`, :mod:`bom.topology.geometry`,
:mod:`bom.topology.linkgroups`) and
takes every part number and sold length from the link group the BOM counts (``LinkGroup.runs``),
so it never looks a part up again; aggregating the rows (:func:`tally`) gives the closed-form
counts back, which ``tests/cableplan/test_rows.py`` checks scenario by scenario.

A switch fabric's hops (node-leaf per topology, a pair's ISLs, leaf-spine, spine-core) are the
patterns of :mod:`bom.links.fabric` (``FABRIC_HOPS``), the UFM's ports :mod:`bom.links.ufm`, the
DCI routers' client links :mod:`bom.links.dci` and the coherent line side :mod:`bom.links.line`,
which the closed form counts with too; the port bookkeeping they share with the hops here is
:mod:`bom.links.ports`.

Numbering (site-local, 0-based here, 1-based in names; :mod:`bom.names` makes the names):

- nodes in scalable-unit (or rack) order; a node's scale-out port ``q = rail * planes + plane``
  at the link rate, its cage ``q // (ports per cage)``: rail 1 of a DGX H100 is ``p1/1``, rail 2
  ``p1/2``; on the other fabrics the port carries the fabric's name (``oob-p1``, ``storage-p2``);
- as the placement (bom/placement/racks.py) numbers them: the leaves of group (SU or rack) ``g``, plane
  ``pl``: ``(g * planes + pl) * leaves_per_group + local``, where a rail leaf is ``local = rail *
  leaves_per_rail + j`` (j-th leaf of the rail; a small pod's leaf carries ``rails_per_leaf``
  rails, so ``rail`` here is the rail set ``r // rails_per_leaf``, and a switch pair's two
  switches are the two halves of every node's rails); spines ``(pod * planes + pl) * spines_per_pod +
  s``; cores ``(pl * spines_per_pod + i) * cores_per_group + c`` (core group i takes spine i of
  every pod);
- a switch's downlinks fill its first cages, its uplinks the cages after its downlinks (or its
  dedicated uplink cages), whatever the group uses, so a partial SU keeps the full SU's
  pattern; uplink ``u`` of a leaf goes to spine ``u // links_per_pair`` (the spreading rule);
  uplinks at the switch's native rate are its own cages past the downlinks (``p33`` on a
  64-cage switch whose downlinks take 32), dedicated uplink ports are numbered after its cages;
  a switch pair's ISL ``j`` joins uplink port ``j`` of each switch;
- a cage takes ports of one module part (runs of different fibre lengths share a twin-port
  module), or of one link group for a copper head (one head is one cable): ports come in order
  and a new cage opens when the open cage of that part is full, as the closed form counts;
- DCI: a site's router ports are its client ports, then its line ports, router by router;
  client links go to an Ethernet compute fabric's top layer a cage at a time, switch by switch,
  on ports the fabric leaves free, or to the border leaves of the Ethernet in-band or storage
  fabric, split evenly over them (:mod:`bom.links.dci`; the line side: :mod:`bom.links.line`).

Rows are plain tuples in :data:`FIELDS` order (fast to make and to hand to ``csv.writer``);
:class:`CableRow` names them for other consumers (the NetBox writer).

For consumers: ``cable_rows(model, catalog=catalog)`` yields :class:`CableRow`; the devices and
their rack units come from ``model.placement`` (``racks()``, ``elevation(rack)``; or
:func:`bom.placement.elevation.elevation_rows`); a device's interfaces are the ports its rows name: ``p17``
a cage, ``p17/2`` its second port, ``oob-p1`` a node's NIC port on another fabric, ``mgmt`` a
device's management port, ``line`` and ``p1``.. a mux/demux's line and channel ports,
``gpu1-nvl3`` / ``nvs2-p5-l3`` NVLink (``--scale-up``). ``a_module``/``b_module`` is the part in
the cage, ``cable_part``/``cable_type``/``sold_length_m`` the cable, ``bundle`` the bought
cable several rows share. DCI routers and muxes have no placement (empty rack and U).
"""

from __future__ import annotations

import contextlib
import gc
import itertools
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from bom import names
from bom.catalog.load import load_catalog  # the built-in catalog, read only when none is given
from bom.errors import LimitError
from bom.links.line import DCI_LINE
from bom.links.pattern import HopContext
from bom.links.ports import Kind, Locator, Place, RowState, Switches, place_of
from bom.links.power import PowerView, plans_of
from bom.links.registry import FAMILIES, Where, dci_view, view_of
from bom.links.scaleup import scale_up_row_count
from bom.links.ufm import UFM_LEAF
from bom.links.views import FabricLinks, ScaleUpView, View
from bom.model.floor import floors
from bom.model.floorplan import Run
from bom.model.hops import HOPS, HopKind
from bom.model.records import PlanRow
from bom.roles import SWITCH_LAYERS, FabricKind, FabricRole, Layer

if TYPE_CHECKING:
    from bom.catalog.rows import Catalog
    from bom.model.linkgroups import LinkGroup
    from bom.model.model import Model
    from bom.model.placement import Placement
    from bom.model.plane import Plane


class CableRow(NamedTuple):
    """One row of the plan: one fibre run or copper-assembly leg and the link it carries.

    Lengths in metres, rates in Gbit/s; ``a_u``/``b_u`` are the lowest rack unit the device
    occupies (1 = bottom), ``""`` where a device has no placement.
    """

    cable_id: str         # unique per row: C00000001
    label: str            # TIA-606 style, near end first: "<rack>-<U>:<port> / <rack>-<U>:<port>"
    link_id: str          # the link the run carries (several runs of one link share it)
    bundle: str           # the bought cable several rows share (a splitter, a fan-out trunk), else ""
    tier: str             # scale-out | scale-across | scale-up
    fabric: str           # compute | storage | inband | oob | dci
    hop: str              # node-leaf | leaf-spine | spine-core | fabric-dci | site-site | fibre-pair
    plane: int | str      # 1-based plane of the fabric
    rail: int | str       # 1-based rail (node-leaf of a rail-optimised fabric)
    a_site: str
    a_row: str
    a_rack: str
    a_u: int | str
    a_device: str
    a_role: str
    a_port: str
    a_module: str         # part number of the module in the cage ("" for an assembly head)
    b_site: str
    b_row: str
    b_rack: str
    b_u: int | str
    b_device: str
    b_role: str
    b_port: str
    b_module: str
    medium: str           # passive-copper, active-copper, aoc, multimode, smf-parallel, ...
    rate_gbps: float
    cable_type: str       # dac | acc | aec | aoc | rj45 | "<fibre> <connector> <kind>"
    cable_part: str       # the orderable part at its sold length ("" where the BOM buys none)
    strands: int          # lit fibre strands of this run
    length_m: float       # required length on the floor plan
    sold_length_m: float | str
    bucket: str           # in-rack | in-row | cross-row | route
    panels: int           # patch panels the run passes
    via: str              # what it passes: patch panel part, mux channel, amplifier sites


FIELDS: tuple[str, ...] = CableRow._fields
COL = {name: i for i, name in enumerate(FIELDS)}
#: The columns a link group fixes for its every row on one floor-plan run (``Kind.tail``: medium to via),
#: shared by the rows of a section: a writer formats them once per distinct value.
REPEATS = (COL["medium"], len(FIELDS))


def repeats_in(header: tuple[str, ...]) -> tuple[int, int] | None:
    """Where :data:`REPEATS`' columns stand together in ``header`` (a profile's), else None."""
    start, end = REPEATS
    at = header.index(FIELDS[start]) if FIELDS[start] in header else -1
    return (at, at + end - start) if at >= 0 and header[at:at + end - start] == FIELDS[start:end] else None


class Unplaced:
    """No placement: devices are named by site, role and index; rack and U stay empty."""

    def where(self, role: str, site: int, index: int) -> tuple[str, str, str, int | str, str]:
        s = names.site(site)
        return s, "", "", "", f"{s}-{role}-{index + 1:02d}"


def _cable_type(g: LinkGroup) -> str:
    o = g.choice.option
    if o.assembly is not None:
        return o.assembly.kind
    if o.fibre is not None:
        return f"{o.fibre.fibre} {o.fibre.connector} {o.fibre.kind}"
    return ""


def _kinds(groups: list[LinkGroup], start: int) -> dict[str, dict[Run, Kind]]:
    """Per hop, every run of every link group with the parts the BOM counts on it."""
    out: dict[str, dict[Run, Kind]] = defaultdict(dict)
    for n, g in enumerate(groups, start=start):
        o = g.choice.option
        a_mod = g.lower_end.part.part_number if g.lower_end.part is not None else ""
        b_mod = g.upper_end.part.part_number if g.upper_end.part is not None else ""
        if o.assembly is not None:
            a = o.assembly
            heads = (a.end_a.count, a.end_b.count) if g.lower_end is o.a else (a.end_b.count, a.end_a.count)
            bundle, per = (0, 1) if a.links == 1 else (1, 1) if heads[0] == 1 else (2, 1) if heads[1] == 1 \
                else (3, a.links)
            runs, strands = 1, 0
        else:
            runs = max(1, o.runs_per_link)
            strands = o.lit_per_link // runs
            bundle, per = (3, o.runs_per_cable) if o.runs_per_cable > 1 else (0, 1)
        via = ""
        if g.panel is not None and g.choice.panels:
            via = f"{g.choice.panels} x {g.panel.part_number}"
        counter = [0]
        for run, c in g.runs.items():
            tail = (g.medium, g.rate_gbps, _cable_type(g), c.part_number or "", strands, run.length_m,
                    c.length_m if c.part_number else "", run.bucket, c.panels if g.panel else 0, via)
            # The closed form shares a device's cages among one hop's ports of one module part; the
            # UFM's ports fill the nodes' half-used leaf cages where it says they do
            # (bom/links/ufm.py: UfmLeaf.shares_cages), else cages of their own.
            hop = UFM_LEAF.shares if g.hop == UFM_LEAF.hop and UFM_LEAF.shares_cages(groups, g) else g.hop
            a_key = (hop, g.lower_end.part.id) if g.lower_end.part is not None else n
            b_key = (hop, g.upper_end.part.id) if g.upper_end.part is not None else n
            out[g.hop][run] = Kind(n, (g.tier, g.fabric, g.hop), a_mod, b_mod, tail, runs, g.lower_end.ports,
                                    g.upper_end.ports, a_key, b_key, bundle, per, counter)
    return out


class _RowState(RowState):
    """A :class:`~bom.links.ports.RowState` of one model (typed for this module)."""

    model: Model


def _sites(view: View) -> Iterator[tuple[int, int, Plane]]:
    """(1-based site number, its shape's index, plane of that site) in the cluster's site order."""
    n = 0
    for k, (count, p) in enumerate(view.shapes):
        for _ in range(count):
            n += 1
            assert p is not None
            yield n, k, p


def _walk(plan: _RowState, view: View, kind: FabricKind, kinds: dict[str, dict[Run, Kind]],
          tops: dict[int, Switches] | None) -> Iterator[Iterator[PlanRow]]:
    """One fabric's row generators in its family's order (chained: the code after each ``yield`` runs
    once that hop's rows are all out). A switch fabric site by site, each site's cage ranges kept in
    ``tops`` where the DCI routers' client links take its free ports; the other families hop by hop."""
    family = FAMILIES[kind]
    patterns = family.patterns(view)
    fp = plan.model.floor
    if family.site_major:
        assert isinstance(view, FabricLinks)
        for site, k, p in _sites(view):
            sw = Switches(view.name, view.planes, p, site)
            for pattern in patterns:
                ctx = HopContext(view, fp, shape=k, site=site, plan=plan, switches=sw, kinds=kinds.get(pattern.hop, {}))
                if pattern.applies(ctx):
                    yield pattern.rows(ctx)
            if tops is not None:
                tops[site] = sw   # the DCI's client links use its free ports
            plan.forget(site)
        return
    for pattern in patterns:
        for site in pattern.plan_sites(view):
            at = HopContext(view, fp, shape=view.shape_of(site), site=site, plan=plan,
                            switches=tops.get(site) if tops else None, kinds=kinds.get(pattern.hop, {}))
            if pattern.applies(at):
                yield pattern.rows(at)
            plan.forget(site)   # its places (the management switches' uplinks) are not read again


# --- the plan -------------------------------------------------------------------------------

@contextlib.contextmanager
def no_cycle_collection() -> Iterator[None]:
    """The cycle collector off while a plan streams (or neighbour files are read past it), back as it
    was after. The plan's rows are tuples of strings and numbers and make no reference cycles
    (``tests/cableplan/test_rows.py`` checks that a plan streamed without the collector leaves
    nothing for it), so reference counting frees each chunk; the collector's passes over the
    hundreds of thousands of rows made a second were a fifth to a third of the plan's time, and
    half the CPU time of reading a 100,000-GPU site's neighbour files (benchmarks/bench_verify.py)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def rows(model: Model, locator: Locator | None = None, catalog: Catalog | None = None,
         scale_up: bool = False, power: bool = False) -> Iterator[PlanRow]:
    """Every row of the plan, fabric by fabric, then scale-across (plain tuples), each fabric in its
    family's order (:data:`bom.links.registry.FAMILIES`).

    ``locator``: where devices stand (default: the model's placement); ``catalog``: the one the
    model was built with (the management switches' ports; default: the built-in catalog);
    ``scale_up``: every GPU's NVLink links too (else they stay a per-rack summary); ``power``: the power
    cords last, a row per cord (fabric and tier ``power``: bom/links/power.py), as ``bom cables`` writes.
    """
    if locator is None:
        locator = PlacementLocator(model.placement)
    plan = _RowState(model, locator)
    plan.floors = floors(model.placement)
    plan.shape_of = [k for k, shape in enumerate(model.cluster.sites) for _ in range(shape.count)]
    if catalog is None:
        catalog = load_catalog()
    plan.catalog = catalog
    return itertools.chain.from_iterable(_hops(plan, catalog, scale_up, power))


def _hops(plan: _RowState, catalog: Catalog, scale_up: bool, power: bool) -> Iterator[Iterator[PlanRow]]:
    model = plan.model
    where = Where(model.placement, model.floor, model.fabrics, model.endpoints, catalog)
    if scale_up:
        yield from _walk(plan, ScaleUpView.of(model.platform, model.cluster.sites), FabricKind.SCALE_UP, {}, None)
    attach = model.dci.attach if model.dci is not None else None
    tops: dict[int, Switches] = {}
    start = 0
    for f in model.fabrics.values():
        kinds = _kinds(f.groups, start)
        start += len(f.groups)
        yield from _walk(plan, view_of(f, where), f.kind, kinds, tops if f.name == attach else None)
    if model.dci is not None:
        yield from _walk(plan, dci_view(model.dci, where), FabricKind.DCI, _kinds(model.dci_groups, start), tops)
    if power and model.power is not None and model.platform.support is not None:
        # The power cords last: every rack of every site, a row per cord (bom/links/power.py).
        view = PowerView.of(model.placement, plans_of(catalog, model.platform.support.pdu))
        yield from _walk(plan, view, FabricKind.POWER, {}, None)


def power_rows(model: Model, catalog: Catalog | None = None, locator: Locator | None = None) -> Iterator[PlanRow]:
    """The power cords alone (the rows :func:`rows` ends with under ``power``), cable ids from 1."""
    if model.power is None or model.platform.support is None:
        return iter(())
    plan = _RowState(model, locator or PlacementLocator(model.placement))
    plan.floors = floors(model.placement)
    plan.shape_of = [k for k, shape in enumerate(model.cluster.sites) for _ in range(shape.count)]
    cat = catalog if catalog is not None else load_catalog()
    view = PowerView.of(model.placement, plans_of(cat, model.platform.support.pdu))
    return itertools.chain.from_iterable(_walk(plan, view, FabricKind.POWER, {}, None))


class PlacementLocator:
    """Devices where the placement (bom/placement/racks.py) stands them; roles it does not place (DCI
    routers and muxes) keep unplaced names."""

    def __init__(self, placement: Placement) -> None:
        self.placement = placement
        self.unplaced = Unplaced()
        self._spans: dict[tuple[str, int], list[_Span]] = {}
        # Per role, the run of one section copy's devices last placed: (site, first index, their places).
        self._run: dict[str, tuple[int, int, list[Place]]] = {}

    def where(self, role: str, site: int, index: int) -> tuple[str, str, str, int | str, str]:
        """What :meth:`Placement.names_of` says (the first five columns of :meth:`place`)."""
        (s, row, rack, u, device, _), _ = self.place(role, site, index)
        return s, row, rack, u, device   # type: ignore[return-value]  # a place's columns as where gave them

    def place(self, role: str, site: int, index: int) -> Place:
        """The device's place on a plan row (:func:`~bom.links.ports.place_of`), from each section's devices
        worked out once for its copies (a copy of a block stands whole rows after the last: the same
        positions, U and numbers, its rows shifted), not a section search per device; the devices of a
        copy (up to :data:`RUN` of them) placed together, each rack named once."""
        run = self._run.get(role)
        if run is not None and run[0] == site and 0 <= index - run[1] < len(run[2]):
            return run[2][index - run[1]]
        spans = self._spans.get((role, site))
        if spans is None:
            spans = self._spans[role, site] = _spans(self.placement, role, site)
        for first, end, per_copy, rows, devices in spans:
            if index < end:
                copy, local = divmod(index - first, per_copy)
                lo = local - local % RUN
                places = _copy_places(role, site, copy * rows, devices[lo:lo + RUN])
                self._run[role] = (site, index - local + lo, places)
                return places[local - lo]
        return place_of(self.unplaced.where(role, site, index), role)


#: The most devices of one section copy :meth:`PlacementLocator.place` places together.
RUN = 1024


def _copy_places(role: str, site: int, shift: int, devices: list[tuple[int, int, int, int]]) -> list[Place]:
    """The places of a copy's ``devices`` (row, position, U, number in its rack), their rows ``shift``
    past the first copy's."""
    s, out = names.site(site), []
    racks: dict[tuple[int, int], tuple[str, str]] = {}
    for row, pos, u, nth in devices:
        row += shift
        r = racks.get((row, pos))
        if r is None:
            r = racks[row, pos] = (f"r{row:02d}", names.rack(site, row, pos))
        out.append(place_of((s, r[0], r[1], u, names.device(r[1], role, nth)), role))
    return out


#: A section's devices of one role in one site: (its first index, the index past its last, devices a
#: copy, rows from one copy to the next, each device of a copy's (row, position, U, number in its rack)).
_Span = tuple[int, int, int, int, list[tuple[int, int, int, int]]]


def _spans(placement: Placement, role: str, site: int) -> list[_Span]:
    """Every section of ``site`` holding devices of ``role``, in the placement's numbering order
    (:meth:`Placement.names_of`: its rows and positions from :meth:`Section.spot`, the one rule)."""
    out: list[_Span] = []
    first, per = 0, placement.racks_per_row
    try:
        sections = placement.site_sections(site)
    except LimitError:   # no such site: its devices keep unplaced names
        return out
    for _, sec, start in sections:
        n = sec.per_copy(role)
        if not n:
            continue
        devices = [(*sec.spot(start, 0, offset, per), sec.layouts[offset].slots[slot][1], nth)
                   for (offset, slot), nth in zip(sec.where(role), sec.nth(role), strict=True)]
        rows = sec.stride(per) // per if sec.copies > 1 else 0
        out.append((first, first + sec.copies * n, n, rows, devices))
        first += sec.copies * n
    return out


def cable_rows(model: Model, locator: Locator | None = None) -> Iterator[CableRow]:
    """The same rows as :class:`CableRow` named tuples (for consumers that read fields by name)."""
    return map(CableRow._make, rows(model, locator))


def row_count(model: Model, scale_up: bool = False, power: bool = False) -> int:
    """How many rows the plan has, from the closed form (no row is made)."""
    n = sum(g.links * max(1, g.choice.option.runs_per_link) for g in model.groups)
    if scale_up:
        up = model.scale_up
        n += scale_up_row_count(model.platform, up.links, up.optical_links, up.inter_rack_links)
    d = model.dci
    if d is not None:
        n += DCI_LINE.row_count(d)
    if power and model.power is not None:
        n += model.power.cord_count
    return n


# --- aggregates (the closed form checked against the plan) -----------------------------------

def _layers(hop: str, b_role: str) -> tuple[str, str]:
    """The closed form's layers at the two ends of a row's hop (``LinkGroup.lower`` / ``.upper``)."""
    m = HOPS[HopKind(hop)]
    if m.upper == Layer.TOP:   # the compute fabric's top layer: the far device's role says which
        return m.lower, b_role.rsplit("-", 1)[-1]
    return m.lower, m.upper


@dataclass
class Tally:
    """What the plan adds up to, in the closed form's terms (per fabric, and scale-across)."""

    links: Counter[tuple[str, str]] = field(default_factory=Counter)        # (fabric, hop)
    modules: Counter[tuple[str, str]] = field(default_factory=Counter)      # (fabric, layer)
    switches: Counter[tuple[str, str]] = field(default_factory=Counter)     # (fabric, layer)
    cables: Counter[str] = field(default_factory=Counter)
    fibre_runs: Counter[str] = field(default_factory=Counter)
    fibre_strands: Counter[str] = field(default_factory=Counter)
    copper_links: Counter[str] = field(default_factory=Counter)
    fibre_pairs: int = 0
    patch_cords: int = 0        # bought cords from a line port to its mux/demux channel
    amplifier_cords: int = 0    # bought cords from a terminal amplifier to its mux/demux line port
    coherent: int = 0
    mux_ports: int = 0
    muxes: int = 0
    racks: int = 0
    rows: int = 0


def tally(plan_rows: Iterable[PlanRow]) -> Tally:
    """Aggregate rows: distinct links, modules (device cages), switches, cables, fibre, copper."""
    t = Tally()
    links: dict[str, set[str]] = defaultdict(set)
    cages: dict[tuple[str, str], set[tuple[str, str]]] = defaultdict(set)
    devices: dict[tuple[str, str], set[str]] = defaultdict(set)
    bundles: dict[str, set[str]] = defaultdict(set)
    copper: dict[str, set[str]] = defaultdict(set)
    racks: set[str] = set()
    muxes: set[str] = set()
    c = COL
    for r in plan_rows:
        t.rows += 1
        fabric, hop, lid = r[c["fabric"]], r[c["hop"]], r[c["link_id"]]
        if lid and lid not in links[fabric]:
            links[fabric].add(lid)
            t.links[fabric, hop] += 1
        for side, layer in zip(("a", "b"), _layers(hop, r[c["b_role"]]), strict=True):
            role, dev, port, mod = (r[c[f"{side}_role"]], r[c[f"{side}_device"]], r[c[f"{side}_port"]],
                                    r[c[f"{side}_module"]])
            devices[fabric, layer].add(dev)
            if mod and hop == HopKind.SITE_SITE:
                t.coherent += 1
            elif mod:
                cages[fabric, layer].add((dev, port.split("/")[0]))
            if r[c[f"{side}_rack"]]:
                racks.add(r[c[f"{side}_rack"]])
            if role == Layer.MUX:
                muxes.add(dev)
        if hop == HopKind.SITE_SITE and r[c["b_role"]] == Layer.MUX:
            t.mux_ports += 1
            t.patch_cords += bool(r[c["cable_part"]])
        elif hop == HopKind.MUX_AMPLIFIER:
            t.amplifier_cords += bool(r[c["cable_part"]])
        bundle = r[c["bundle"]]
        if bundle:
            bundles[fabric].add(bundle)
        elif r[c["cable_part"]]:
            t.cables[fabric] += 1
        medium = r[c["medium"]]
        if medium in ("passive-copper", "active-copper"):
            copper[fabric].add(lid)
        elif r[c["cable_type"]] == "os2 dark fibre pair":
            t.fibre_pairs += 1
        elif medium != "coherent" and r[c["strands"]]:
            t.fibre_runs[fabric] += 1
            t.fibre_strands[fabric] += r[c["strands"]]
    for fabric, b in bundles.items():
        t.cables[fabric] += len(b)
    for key, ends in cages.items():
        t.modules[key] = len(ends)
    for key, devs in devices.items():
        t.switches[key] = len(devs)
    for fabric, lids in copper.items():
        t.copper_links[fabric] = len(lids)
    t.racks, t.muxes = len(racks), len(muxes)
    return t


def closed_form(model: Model) -> dict[str, dict[str, object]]:
    """The closed form's figures in :class:`Tally`'s terms, for the checks and the CLI summary."""
    out: dict[str, dict[str, object]] = {}
    for f in model.fabrics.values():
        layers = {g.lower for g in f.groups} | {g.upper for g in f.groups}
        hops = sorted({g.hop for g in f.groups})
        out[f.name] = {
            "links": {h: f.hop_links(h) for h in hops if f.hop_links(h)},
            "modules": {k: f.modules_at(k) for k in sorted(layers) if f.modules_at(k)},
            "switches": {k: f.switches(k) for k in SWITCH_LAYERS if f.switches(k)},
            "cables": sum(g.cables for g in f.groups),
            "fibre_runs": sum(g.fibre_runs for g in f.groups),
            "fibre_strands": sum(g.fibre_strands for g in f.groups),
            "copper_links": sum(g.links for g in f.groups if g.copper),
        }
    return out


def plan_figures(t: Tally, model: Model) -> dict[str, dict[str, object]]:
    """The tally in the shape of :func:`closed_form` (switch layers only, no node counts)."""
    out: dict[str, dict[str, object]] = {}
    for f in model.fabrics.values():
        n = f.name
        out[n] = {
            "links": {h: v for (fab, h), v in sorted(t.links.items()) if fab == n},
            "modules": {k: v for (fab, k), v in sorted(t.modules.items()) if fab == n},
            "switches": {k: v for (fab, k), v in sorted(t.switches.items())
                         if fab == n and k in SWITCH_LAYERS},
            "cables": t.cables[n], "fibre_runs": t.fibre_runs[n], "fibre_strands": t.fibre_strands[n],
            "copper_links": t.copper_links[n],
        }
    return out


def check(model: Model, t: Tally, power: bool = False) -> list[str]:
    """Where the plan and the closed form disagree (empty when they agree); ``power``: the plan has the
    power cords (:func:`rows`' ``power``)."""
    want, got = closed_form(model), plan_figures(t, model)
    out = [f"{fab}.{k}: closed form {v!r}, plan {got[fab][k]!r}"
           for fab, fig in want.items() for k, v in fig.items() if got[fab][k] != v]
    d = model.dci
    if d is not None:
        figures = {"site-site links": (d.links, t.links[FabricRole.DCI, HopKind.SITE_SITE]),
                   "fabric-dci links": (sum(g.links for g in model.dci_groups),
                                        t.links[FabricRole.DCI, HopKind.FABRIC_DCI]),
                   "fibre pairs": (d.fibre_pairs, t.fibre_pairs), "mux/demux": (d.muxes, t.muxes),
                   "patch cords": (d.patch_cords, t.patch_cords),
                   "amplifier patch cords": (d.amplifier_patch_cords, t.amplifier_cords),
                   "coherent modules": (d.modules, t.coherent),
                   "client modules": (sum(g.modules for g in model.dci_groups),
                                      sum(v for (fab, _), v in t.modules.items() if fab == FabricRole.DCI))}
        out += [f"dci {k}: closed form {a}, plan {b}" for k, (a, b) in figures.items() if a != b]
    if power and model.power is not None:
        cords = model.power.cord_count
        plan = {"cords": t.links[FabricKind.POWER, HopKind.PDU_SUPPLY], "cables": t.cables[FabricKind.POWER]}
        out += [f"power {k}: closed form {cords}, plan {v}" for k, v in plan.items() if v != cords]
    return out


