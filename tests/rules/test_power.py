"""The power plan's rules (bom/rules/power.py): the default and a clean design break none; an overloaded
phase, a device whose two supplies land on one feed, supplies with no outlet left, a rack-scale rack over
its surviving shelves' circuits with a feed lost, a row over its distribution's rating each fire."""

from __future__ import annotations

import dataclasses
import textwrap

import pytest

from bom.catalog.load import load_catalog
from bom.links.power import power_plan
from bom.model.power import RackGroup
from bom.roles import Feed, RackKind
from bom.rules.power import RULES
from tests.rules.cases import messages, run

IDS = [r.id for r in RULES]
#: The rack PDU row (catalogs/endpoints.yaml) with its input and outlets changed by ``changes``.
PDU = """\
endpoints:
  - id: pdu-3ph-60a
    vendor: OEM
    part_number: "0U rack PDU, 3-phase 415 V {current}"
    orderable: false
    description: a smaller rack PDU
    role: pdu
    rack_units: 0
    power: "10 W"
    power_capacity: "34.5 kW"
    ports:
      oob: {{ports: 1, rate: "1 Gbit/s", form_factor: rj45, ports_per_cage: 1}}
    outlets:
      phases: 3
      voltage: "415 V"
      current: "{current}"
      outlet_voltage: "240 V"
      outlets: {outlets}
      banks: 12
      bank_breaker: "20 A"
      continuous: 0.8
      continuous_source: "NEC 210.20(A)"
      source: a test PDU
    price_usd: 3500
    price_source: estimate
    source: a test PDU
    as_of: 2026-12-06
"""


def _with_pdu(model, tmp_path, current="60 A", outlets="{c13: 24, c19: 24}"):  # type: ignore[no-untyped-def]
    """``model`` whose power plan is made with another PDU row (same placement), and that catalog."""
    d = tmp_path / "cat"
    d.mkdir()
    (d / "pdu.yaml").write_text(textwrap.dedent(PDU.format(current=current, outlets=outlets)))
    cat = load_catalog([d])
    plan = power_plan(model.placement, cat, model.platform.support.pdu, model.scenario.feeds)
    return dataclasses.replace(model, power=plan), cat


@pytest.mark.parametrize("rule", IDS)
def test_a_clean_design_breaks_no_power_rule(clean, catalog, rule):
    assert run(clean, catalog, rule).violations == 0


def test_an_overloaded_phase(clean, catalog, tmp_path):
    """A PDU of 16 A a phase: 240 V x 16 A x 0.8 = 3,072 W a phase, under a DGX H100 rack's 3,400 W (4
    nodes' 3 supplies a feed at 1,700 W, 2 on each phase: one rack's 6 phases of its feed's 2 PDUs)."""
    model, cat = _with_pdu(clean, tmp_path, current="16 A")
    r = run(model, cat, "power.rating")
    assert r.severity == "error" and r.violations
    assert any("phase" in m and "over its 3,072 W continuous rating" in m for m in messages(r)), messages(r)


def test_two_supplies_on_one_feed(clean, catalog):
    """A QM9700's two supplies (1+1) both on feed A: the rule sees the cords, whatever placed them."""
    g = next(g for g in clean.power.groups if g.kind == RackKind.NETWORK)
    slot = next(s for s, (_, row) in enumerate(g.slots) if row == "qm9700")
    cords = tuple(dataclasses.replace(c, feed=Feed.A) if c.device == slot else c for c in g.plan.cords)
    bad: RackGroup = dataclasses.replace(g, plan=dataclasses.replace(g.plan, cords=cords))
    model = dataclasses.replace(clean, power=dataclasses.replace(
        clean.power, groups=tuple(bad if x is g else x for x in clean.power.groups)))
    r = run(model, catalog, "power.one_feed")
    assert r.severity == "error" and r.violations == 1
    assert messages(r) == ["leaf 1 (qm9700) has its 2 redundant supplies all on feed A: losing it drops the device"]


def test_supplies_with_no_outlet_left(clean, tmp_path):
    """A PDU with no C19 outlets: the DGX H100's C20 supplies find none on their feed."""
    model, cat = _with_pdu(clean, tmp_path, outlets="{c13: 24}")
    r = run(model, cat, "power.outlets")
    assert r.severity == "error" and r.violations
    assert "have no outlet of their type left" in messages(r)[0] and "node 1 (dgx-h100) supply 1" in messages(r)[0]


def test_a_feed_lost_on_the_default(default_report, catalog):
    """The default's GB300 NVL72 racks: 142 kW and two management switches over 4 shelves with a feed
    lost is 35.55 kW a whip, over a 60 A 415 V circuit's 34.56 kW at 80 %: the warning says so (NVIDIA's
    power capping on a shelf's loss is not modelled)."""
    model = default_report.model
    r = run(model, catalog, "power.feed_loss")
    assert r.severity == "warning" and r.violations == 1
    assert messages(r) == ["with feed B lost, PDU 1 (feed A) carries 35,549 W, over its 34,560 W continuous rating "
                           "(32 such loads in the rack)"]


def test_a_row_over_its_distribution(clean, catalog):
    """feeds.row_capacity of 10 kW: row 1's two sides (8 compute racks of 4 DGX H100 and a network rack)
    carry 167.9 kW each, 335.8 kW with the other side lost; row 2's (2 racks) 8.7 kW at most: under it."""
    sc = clean.scenario.model_copy(update={"feeds": type(clean.scenario.feeds)(row_capacity="10 kW")})
    plan = power_plan(clean.placement, catalog, clean.platform.support.pdu, sc.feeds)
    r = run(dataclasses.replace(clean, scenario=sc, power=plan), catalog, "power.distribution")
    assert r.severity == "error" and r.violations == 2 and len(plan.hangs) == 4
    assert messages(r)[0].endswith("over its 10.0 kW (feeds.row_capacity)")


def _old_rating(ctx):  # type: ignore[no-untyped-def]
    """power.rating as it was, group by group (each group's loads and cords judged on their own)."""
    from bom.catalog.rows import PowerCord
    from bom.model.checks import End, Violation
    from bom.rules.power import _what
    from bom.units import magnitude
    plan = ctx.model.power
    pdu = ctx.catalog.get("endpoints", ctx.model.platform.support.pdu)
    volts, phases = pdu.outlets.volts("outlet_voltage"), pdu.outlets.phases
    for g in plan.groups:
        p = g.plan
        for loads in (p.phases, p.banks, p.pdus):
            for ld in loads:
                if ld.rating_w and ld.normal_w > ld.rating_w + 1e-6:
                    yield Violation("power.rating", g.where,
                                    f"{_what(ld)} carries {ld.normal_w:,.0f} W, over its {ld.rating_w:,.0f} W "
                                    f"continuous rating ({plan.continuous:.0%} of the breaker)",
                                    "stand more PDUs in the rack (a higher racks.power_budget), or fewer devices "
                                    "a rack", End(f"{g.kind} rack", g.rack), None, g.racks)
        for c in p.cords:
            cord = ctx.catalog.get("power", c.part)
            assert isinstance(cord, PowerCord)
            limit = magnitude(cord.rating, "current") * volts * (phases if c.phase < 0 else 1)
            if c.load_w > limit + 1e-6:
                yield Violation("power.rating", g.where,
                                f"{g.device(c.device)} supply {c.supply + 1} draws {c.load_w:,.0f} W on a "
                                f"{c.part} rated {limit:,.0f} W",
                                "give the device's row the supplies its data sheet lists (more supplies share its "
                                "draw)", End(g.slots[c.device][0], g.slots[c.device][1]), None, g.racks)


def _one_feed_and_hot(model):  # type: ignore[no-untyped-def]
    """``model`` with every group twice (the copy sharing its RackPower, other racks), a QM9700's cords all
    on feed A and one cord of each compute rack drawing 20 kW: groups alike and not, each rule firing."""
    groups = []
    for g in model.power.groups:
        cords = g.plan.cords
        if g.kind == RackKind.NETWORK:
            slot = next(s for s, (_, row) in enumerate(g.slots) if row == "qm9700")
            cords = tuple(dataclasses.replace(c, feed=Feed.A) if c.device == slot else c for c in cords)
        else:
            cords = (dataclasses.replace(cords[0], load_w=20_000.0), *cords[1:])
        g = dataclasses.replace(g, plan=dataclasses.replace(g.plan, cords=cords))
        groups += [g, dataclasses.replace(g, racks=g.racks + 3)]
    return dataclasses.replace(model, power=dataclasses.replace(model.power, groups=tuple(groups)))


def test_rack_plans_shared_by_groups_are_judged_once_as_each_group_was(clean, catalog, tmp_path):
    """Groups sharing one RackPower (alike sites' racks): the rules judge the plan once and write each
    group's violations; the same violations, in the same order, as judging every group on its own."""
    from bom.rules.context import Context
    from bom.rules.power import rating
    hot, cat = _with_pdu(clean, tmp_path, current="16 A")
    for model, c in ((hot, cat), (_one_feed_and_hot(hot), cat), (_one_feed_and_hot(clean), catalog)):
        ctx = Context(model, c)
        assert len({id(g.plan) for g in model.power.groups}) < len(model.power.groups) or model is hot
        old = list(_old_rating(ctx))
        assert old and list(rating(ctx)) == old
    for model, c in ((hot, cat), (_one_feed_and_hot(hot), cat), (_one_feed_and_hot(clean), catalog)):
        apart = dataclasses.replace(model, power=dataclasses.replace(model.power, groups=tuple(
            dataclasses.replace(g, plan=dataclasses.replace(g.plan)) for g in model.power.groups)))
        assert len({id(g.plan) for g in apart.power.groups}) == len(apart.power.groups)
        for rule in IDS:
            shared, alone = run(model, c, rule), run(apart, c, rule)
            assert (shared.violations, shared.kept) == (alone.violations, alone.kept), rule
    assert run(_one_feed_and_hot(clean), catalog, "power.one_feed").violations


def test_alike_sites_rows_over_their_distribution_as_each_sites_hangs(catalog):
    """Two sites of blocks (one run of alike row sides) and a hub with its spokes (runs of their own), a row
    capacity some rows break: the violations are those of every site's :class:`Hang` checked one by one, in
    order, and each UPS's sums are those of its hangs added one by one."""
    from bom.inputs.scenario import scenario_from_text
    from bom.inputs.yamlio import load_text
    from bom.pipeline import build_scenario
    blocks = ('name: blocks\nplatform: gb300-nvl72\ngpus: 9216\nfabrics: {compute: {switch: q3400}, storage: {}, '
              'inband: {}, oob: {}}\nsites: {count: 2, distance: "2 km", dci_bandwidth: "6.4 Tbit/s"}\n')
    hub = ('name: hub\nplatform: dgx-h100\nnodes: 24\nfabrics: {compute: {switch: qm9700}}\n'
           'sites: {count: 3, topology: hub, distance: "40 km", dci_bandwidth: "25.6 Tbit/s"}\n')
    for text, runs in ((blocks, 1), (hub, 2)):
        model = build_scenario(scenario_from_text(text), load_text(text, "t.yaml"), catalog)
        feeds = type(model.scenario.feeds)(row_capacity="60 kW")
        plan = power_plan(model.placement, catalog, model.platform.support.pdu, feeds)
        assert len(plan.row_sides) == runs < model.cluster.site_count
        sc = model.scenario.model_copy(update={"feeds": feeds})
        r = run(dataclasses.replace(model, scenario=sc, power=plan), catalog, "power.distribution")
        over = [h for h in plan.hangs if h.rating_w and max(h.normal_w, h.failover_w) > h.rating_w + 1e-6]
        assert r.violations == len(over) > 0 and [v.where for v in r.kept] == [
            f"site {h.site} row {h.row} side {h.feed}" for h in over][:len(r.kept)]
        ups: dict[str, tuple[int, float, float, float]] = {}
        for h in plan.hangs:
            rows, normal, failover, _ = ups.get(h.ups, (0, 0.0, 0.0, 0.0))
            ups[h.ups] = (rows + 1, normal + h.normal_w, failover + h.failover_w, 0.0)
        assert list(plan.ups().items()) == list(ups.items())
