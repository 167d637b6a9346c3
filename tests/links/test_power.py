"""The power plan's hop (bom/links/power.py): one rule for the closed form and the plan's rows; the
A/B split that keeps an N+N device up when a feed is lost; phase balance; a rack worked by hand."""

from __future__ import annotations

from collections import Counter

import pytest

from bom.cableplan import rows as plan
from bom.catalog.rows import OUTLET_FOR
from bom.inputs.scenario import scenario_from_text
from bom.inputs.yamlio import load_text
from bom.links.pattern import HopContext, Section
from bom.links.power import PDU_SUPPLY, WHIP, Plans, PowerView, parts_of, pdus_needed, rack_plan
from bom.model.placement import Item, Layout, RackType
from bom.pipeline import build_scenario
from bom.roles import FabricKind, Feed, Layer, RackKind

CASES = {
    # Rack-scale: the power shelves' whips, everything else on the busbar; network racks of Q3400s (C20).
    "nvl72": "platform: gb300-nvl72\ngpus: 144\nfabrics: {compute: {}, inband: {}, oob: {}}\n",
    # Node racks of DGX H100 (4+2 supplies), storage, in-band and management switches (C14).
    "dgx": "platform: dgx-h100\nnodes: 8\nfabrics: {compute: {}, storage: {}, inband: {}, oob: {}}\n",
    # Two sites: each site's own racks (DCI routers, amplifiers, a passive mux).
    "dci": ('platform: hgx-h100\nnodes: 64\nfabrics: {compute: {switch: sn5600, oversubscription: 1.25}}\n'
            'sites: {count: 2, distance: "40 km", dci_bandwidth: "3.2 Tbit/s"}\n'),
}
FABRIC, PART, SOLD = plan.COL["fabric"], plan.COL["cable_part"], plan.COL["sold_length_m"]


@pytest.fixture(scope="module")
def models(catalog):  # type: ignore[no-untyped-def]
    out = {}
    for name, body in CASES.items():
        text = f"name: {name}\n{body}"
        out[name] = build_scenario(scenario_from_text(text), load_text(text, f"{name}.yaml"), catalog)
    return out


@pytest.mark.parametrize("name", list(CASES))
def test_count_equals_rows(name, models, catalog) -> None:  # type: ignore[no-untyped-def]
    """The closed form's cords by part and sold length are the plan's rows, and the plan checks."""
    model = models[name]
    rows = list(plan.rows(model, catalog=catalog, power=True))
    assert plan.check(model, plan.tally(rows), power=True) == []
    assert len(rows) == plan.row_count(model, power=True)
    cords = Counter((r[PART], r[SOLD]) for r in rows if r[FABRIC] == FabricKind.POWER)
    assert cords == Counter({(pn, sold): n for (_, pn, sold), n in model.power.cords})
    assert model.power.cord_count > 0


@pytest.mark.parametrize("name", list(CASES))
def test_the_pairs_are_the_rows(name, models, catalog) -> None:  # type: ignore[no-untyped-def]
    """The pattern's pairs (the protocol's Sections) list every cord the plan's rows do, site by site."""
    model = models[name]
    view = PowerView.of(model.placement, Plans(parts_of(catalog, model.platform.support.pdu)))
    pairs = 0
    for site in PDU_SUPPLY.plan_sites(view):
        ctx = HopContext(view, model.floor, shape=view.shape_of(site), site=site)
        for item in PDU_SUPPLY.pairs(ctx):
            assert isinstance(item, Section)
            pairs += sum(len(item.make(c)) for c in range(item.copies))
    assert pairs == model.power.cord_count


def _plans(model):  # type: ignore[no-untyped-def]
    return [g.plan for g in model.power.groups]


@pytest.mark.parametrize("name", list(CASES))
def test_an_n_plus_n_device_survives_a_feed(name, models, catalog) -> None:  # type: ignore[no-untyped-def]
    """Supplies alternate A, B, A, ...: an N+N device has N on each feed, so no feed's loss drops it, and
    no device with redundant supplies has them all on one feed."""
    model = models[name]
    parts = parts_of(catalog, model.platform.support.pdu)
    checked = 0
    for _, sec in model.placement.all_sections():
        for lay in sec.layouts:
            p = rack_plan(lay, parts)
            assert p.short == () and all(len(f) == 2 for s, f in p.feeds_of().items() if p.supplies_of(s) > 1)
            down = {s for _, s in p.down}
            if any(item.role == Layer.POWER_SHELF for item, _ in lay.slots):
                continue   # a rack of power shelves: its devices ride the busbar (test_rack_scale_shelves_take_whips)
            for s, (item, _) in enumerate(lay.slots):
                sp = parts.supplies(item)
                if sp is None or not sp.n_plus_n or sp.inlet not in ("c14", "c20"):
                    continue
                on = Counter(c.feed for c in p.cords if c.device == s)
                assert on == {Feed.A: sp.needed, Feed.B: sp.needed} and s not in down, item
                checked += 1
    assert checked


def test_a_4_plus_2_dgx_h100_is_down_with_a_feed_lost(models) -> None:  # type: ignore[no-untyped-def]
    """Six 3.3 kW supplies, 4+2 (the DGX H100 user guide): 3 on each feed, so a feed's loss leaves 3 of
    the 4 it needs; each surviving supply would carry 10.2 kW / 3 = 3.4 kW, over its 3.3 kW."""
    rack = next(p for g in models["dgx"].power.groups if g.kind == RackKind.COMPUTE for p in [g.plan])
    nodes = {c.device for c in rack.cords if c.failover_w > 0 and c.part == "cord-c19-c20"}
    assert {s for _, s in rack.down} == nodes and len(nodes) == 4
    node = [c for c in rack.cords if c.device == min(nodes)]
    assert [c.load_w for c in node] == pytest.approx([10_200 / 6] * 6)
    assert [c.failover_w for c in node] == pytest.approx([3_400] * 6)


def test_phases_balanced_within_one_supply(models) -> None:  # type: ignore[no-untyped-def]
    """Each supply takes the least-loaded phase of its feed's PDUs: a PDU's phases differ by at most its
    largest supply's load (with both feeds up)."""
    for model in models.values():
        for p in _plans(model):
            for pdu in p.pdus:
                loads = [ld.normal_w for ld in p.phases if ld.pdu == pdu.pdu]
                biggest = max((c.load_w for c in p.cords if c.pdu == pdu.pdu and c.phase >= 0), default=0.0)
                assert max(loads) - min(loads) <= biggest + 1e-6


def test_a_rack_worked_by_hand(catalog) -> None:
    """Two PDUs (one per feed) and two QM9700 (two C14 supplies, 1+1; 1,176 W each on the rack's budget:
    1,720 W less 32 cages x 17 W of optics) and one DGX H100 (six C20, 10,200 W). Ratings at 80 %
    continuous (NEC 210.20(A)): a phase 240 V x 60 A x 0.8 = 11,520 W, a bank 240 V x 20 A x 0.8 = 3,840 W,
    a PDU 3 x 11,520 = 34,560 W."""
    parts = parts_of(catalog, "pdu-3ph-60a")
    pdu = Item(Layer.PDU, "pdu-3ph-60a", 0, 10.0, None)
    qm = Item(Layer.LEAF, "qm9700", 1, 1176.0, "compute")
    dgx = Item(Layer.NODE, "dgx-h100", 8, 10_200.0, None)
    lay = Layout(RackKind.NETWORK, RackType("legrand-nvidpd13", 48, 40_000.0),
                 ((pdu, 0), (pdu, 0), (qm, 1), (qm, 2), (dgx, 3)))
    p = rack_plan(lay, parts)
    assert pdus_needed(lay, parts) == 2
    assert [(c.device, c.supply, c.feed, c.pdu) for c in p.cords if c.device == 2] == [(2, 0, Feed.A, 0),
                                                                                          (2, 1, Feed.B, 1)]
    # One supply of each switch a feed: 588 W each with both up, 1,176 W with the other feed lost.
    assert {(c.load_w, c.failover_w) for c in p.cords if c.device in (2, 3)} == {(588.0, 1176.0)}
    # The DGX's three supplies a feed on three phases (least-loaded first): the two switches took L1 and
    # L2, so L3 first; then 1,700 W on each phase plus a switch's 588 W on two of them.
    a = sorted((ld.phase, round(ld.normal_w)) for ld in p.phases if ld.feed == Feed.A)
    assert a == [(0, 588 + 1700), (1, 588 + 1700), (2, 1700)]
    assert {ld.rating_w for ld in p.phases} == {11_520.0} and {ld.rating_w for ld in p.banks} == {3_840.0}
    assert [round(f.normal_w) for f in p.feeds] == [(2 * 1176 + 10_200) // 2] * 2
    assert [f.rating_w for f in p.feeds] == [34_560.0, 34_560.0]
    assert {s for _, s in p.down} == {4}   # the 4+2 DGX, not the 1+1 switches


def test_rack_scale_shelves_take_whips(models) -> None:  # type: ignore[no-untyped-def]
    """A GB300 NVL72 rack: 8 power shelves, each one whip on a PDU circuit of its own, alternating A and
    B; every tray and the in-rack management switches ride the busbar (no cord). 142 kW (the RA's
    maximum) and the two SN2201's 98 W over 8 shelves is 17.77 kW a whip; with a feed lost, over 4:
    35.55 kW, over a 60 A 415 V circuit's 34.56 kW at 80 % and over the shelves' 4 x 33 kW (the rule
    power.feed_loss says so)."""
    rack = next(g.plan for g in models["nvl72"].power.groups if g.kind == RackKind.COMPUTE)
    assert len(rack.cords) == 8 and {c.part for c in rack.cords} == {"whip-3ph-60a"}
    assert [c.feed for c in rack.cords] == [Feed.A, Feed.B] * 4
    assert len({c.pdu for c in rack.cords}) == 8
    busbar = 18 * 142_000 / 18 + 2 * 98
    assert {round(c.load_w, 1) for c in rack.cords} == {round(busbar / 8, 1)}
    assert {round(c.failover_w, 1) for c in rack.cords} == {round(busbar / 4, 1)}
    lay = next(lay for _, sec in models["nvl72"].placement.all_sections() for lay in sec.layouts
               if lay.kind == RackKind.COMPUTE)
    on_busbar = {s for s, (item, _) in enumerate(lay.slots) if item.role not in (Layer.PDU, Layer.POWER_SHELF)}
    assert len(on_busbar) == 18 + 9 + 2 and set(rack.down) == {(f, s) for f in Feed for s in on_busbar}
    assert max(ld.failover_w for ld in rack.pdus) > 34_560


@pytest.mark.parametrize("name", list(CASES))
def test_the_row_sides_are_every_rack_summed_in_row_order(name, models, catalog) -> None:  # type: ignore[no-untyped-def]
    """The closed form's row sides (summed from the sections' arithmetic, ``Placement.rack_rows``) are every
    rack's feeds, rack by rack as the placement lays them out, to the last bit of each float."""
    _row_sides_are_every_racks(models[name], catalog)


#: Two sites of blocks whose copies stand in rows of their own (summed a first copy for all), beside shared
#: racks that follow one another in a row (summed rack by rack).
BLOCKS = ('name: blocks\nplatform: gb300-nvl72\ngpus: 9216\nfabrics: {compute: {switch: q3400}, storage: {}, '
          'inband: {}, oob: {}}\nsites: {count: 2, distance: "2 km", dci_bandwidth: "6.4 Tbit/s"}\n')


def test_the_row_sides_of_copies_in_rows_of_their_own_are_every_rack_summed(catalog) -> None:  # type: ignore[no-untyped-def]
    """A section's copies summed once by row (``Placement.site_row_copies``) are each copy's racks summed, bit
    for bit, and the sections that share a row are summed rack by rack."""
    model = build_scenario(scenario_from_text(BLOCKS), load_text(BLOCKS, "blocks.yaml"), catalog)
    shape = model.placement.sites[0]
    found = list(model.placement.site_row_copies(1, shape))
    assert any(copies > 1 for _, copies, _ in found) and any(copies == 1 for _, copies, _ in found)
    expanded = [(row + copy * step, id(lay)) for racks, copies, step in found for copy in range(copies)
                for row, lay in racks]
    assert expanded == [(row, id(lay)) for row, lay in model.placement.site_rack_rows(1, shape, own=False)]
    _row_sides_are_every_racks(model, catalog)


def _row_sides_are_every_racks(model, catalog) -> None:  # type: ignore[no-untyped-def]
    pl, plans = model.placement, Plans(parts_of(catalog, model.platform.support.pdu))
    assert [(s, r, id(lay)) for s, r, lay in pl.rack_rows()] == [(k.site, k.row, id(lay)) for lay, k in pl.laid_out()]
    want: dict[tuple[int, int, Feed], list[float]] = {}
    for lay, rack in pl.laid_out():
        if any(item.role == Layer.PDU for item, _ in lay.slots):
            for f in plans(lay).feeds:
                acc = want.setdefault((rack.site, rack.row, f.feed), [0, 0.0, 0.0])
                acc[0], acc[1], acc[2] = acc[0] + 1, acc[1] + f.normal_w, acc[2] + f.failover_w
    got = {(h.site, h.row, h.feed): [h.racks, h.normal_w, h.failover_w] for h in model.power.hangs}
    assert got == {k: want[k] for k in sorted(want)} and len(got) > 1


def test_layouts_of_one_power_shape_share_a_plan_equal_to_their_own(catalog) -> None:
    """``Plans`` plans a power shape once (``shape_of``: the rack's height and per slot whether a PDU, the
    supplies, the power and the U): a layout of other devices that draw alike (a spine's rack and a
    core's of one switch row) gets the same plan, equal to the rule's own plan of it; a layout whose
    device draws otherwise, or stands at another U, gets its own."""
    parts = parts_of(catalog, "pdu-3ph-60a")
    pdu = Item(Layer.PDU, "pdu-3ph-60a", 0, 10.0, None)
    rack = RackType("legrand-nvidpd13", 48, 40_000.0)

    def lay(role: str, watts: float = 1176.0, u: int = 1) -> Layout:
        sw = Item(role, "qm9700", 1, watts, "compute")
        return Layout(RackKind.NETWORK, rack, ((pdu, 0), (pdu, 0), (sw, u), (sw, u + 1)))

    spine, core, hot, high = lay(Layer.SPINE), lay(Layer.CORE), lay(Layer.SPINE, 1300.0), lay(Layer.SPINE, u=5)
    plans = Plans(parts)
    assert plans(core) is plans(spine) and plans(core) == rack_plan(core, parts) == rack_plan(spine, parts)
    for other in (hot, high):
        assert plans(other) is not plans(spine) and plans(other) == rack_plan(other, parts) != plans(spine)


def test_one_catalog_and_pdu_plan_each_layout_once(models, catalog, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The build's closed form and its plan's cords read one set of rack plans (plans_of): the same for the
    same catalog object and PDU, equal to the rule's own, another for another catalog or past KEEP_LAYOUTS."""
    import copy

    from bom.links import power

    model = models["dgx"]
    pdu = model.platform.support.pdu
    shared = power.plans_of(catalog, pdu)
    assert power.plans_of(catalog, pdu) is shared
    lays = [lay for _, sec in model.placement.all_sections() for lay in sec.layouts
            if any(item.role == Layer.PDU for item, _ in lay.slots)]
    assert lays and all(shared(lay) == rack_plan(lay, parts_of(catalog, pdu)) for lay in lays)
    assert power.plans_of(copy.copy(catalog), pdu) is not shared
    again = power.plans_of(catalog, pdu)
    again(lays[0])
    monkeypatch.setattr(power, "KEEP_LAYOUTS", 1)
    assert power.plans_of(catalog, pdu) is not again


def _pdus_slot_by_slot(lay: Layout, parts) -> int:  # type: ignore[no-untyped-def]
    """``pdus_needed`` as it was written: each slot's supplies looked up and added one at a time."""
    o = parts.pdu
    specs = [parts.supplies(item) for item, _ in lay.slots if item.role != Layer.PDU]
    shelves = sum(1 for sp in specs if sp is not None and sp.inlet == WHIP)
    need: Counter[str] = Counter()
    if not shelves:
        for sp in specs:
            if sp is not None and sp.inlet in OUTLET_FOR:
                need[OUTLET_FOR[sp.inlet]] += -(-sp.count // 2)
    have = {str(k): v for k, v in o.outlets.items()}
    return 2 * (-(-shelves // 2) + max(((-(-n // have[k])) if have.get(k) else n for k, n in need.items()), default=0))


def test_pdus_needed_counts_each_item_once_as_slot_by_slot(models, catalog) -> None:  # type: ignore[no-untyped-def]
    """The outlets' PDUs of every layout of the cases and of two sites of blocks (power shelves' whips, C14
    and C20 cords, items listed again between others, PDUs) and of every mix of their devices two at a time:
    the per-item count is the slot-by-slot one."""
    built = [*models.values(), build_scenario(scenario_from_text(BLOCKS), load_text(BLOCKS, "blocks.yaml"), catalog)]
    lays = [lay for m in built for lay, _ in m.placement.layout_racks()]
    parts = parts_of(catalog, built[0].platform.support.pdu)
    mixed = [Layout(a.kind, a.rack, a.slots + b.slots[::-1]) for a in lays[:12] for b in lays[:12]]
    counts = [(pdus_needed(lay, parts), _pdus_slot_by_slot(lay, parts)) for lay in lays + mixed]
    assert all(a == b for a, b in counts) and len({a for a, _ in counts}) > 1
