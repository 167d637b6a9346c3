"""The standard lookup: the ladder, the 200G-lane world, the loss budget, the limits."""

from __future__ import annotations

import bisect
import json
import re

import pytest

from bom.catalog.media import Media, cage
from bom.errors import LimitError


@pytest.fixture(scope="module")
def media(catalog):
    return Media(catalog)


@pytest.mark.parametrize("rate,length,kw,medium,part", [
    # 1 m at 400G: passive DAC, the twin-port OSFP straight cable (NVIDIA LinkX: DAC to 3 m).
    (400, 1, {}, "passive-copper", "MCP4Y10-N001"),
    # 4 m at 800G: past passive copper's 3 m; a retimed AEC reaches 7 m.
    (800, 4, {}, "active-copper", None),
    # 30 m at 400G: an AOC (QSFP-DD) is the cheapest medium that reaches.
    (400, 30, {}, "aoc", "QDD-400-AOC30M"),
    # ... and with OSFP cages (no 100G-lane AOC in NVIDIA's line) multimode SR4 over 30 m.
    (400, 30, {"form_factor": "osfp"}, "multimode", "MFP7E10-N030"),
    # 300 m at 800G: past multimode's 50 m; parallel single-mode (DR) reaches 500 m.
    (800, 300, {}, "smf-parallel", None),
    (800, 300, {"lane_gbps": 100}, "smf-parallel", None),
    # 1.5 km: past DR's 500 m; 2xFR4 over duplex LC reaches 2 km.
    (400, 1500, {}, "smf-duplex", None),
    # 8 km: LR4, 10 km.
    (400, 8000, {}, "smf-duplex", None),
    # 80 km: coherent 400ZR (120 km amplified).
    (400, 80_000, {}, "coherent", None),
    # 400 km: past 400ZR's 120 km; OpenZR+.
    (400, 400_000, {}, "coherent", None),
    # 3 m at 800G on 200G lanes: no DAC exists at 200G-PAM4; linear active copper.
    (800, 3, {"lane_gbps": 200}, "active-copper", "MCA4K50-X003"),
    # 30 m at 800G on 200G lanes: no multimode and no AOC at 200G; single-mode DR4.
    (800, 30, {"lane_gbps": 200}, "smf-parallel", None),
])
def test_the_ladder(media, rate, length, kw, medium, part):
    choice = media.lookup(rate, length, **kw).choice
    assert choice.medium == medium
    assert choice.margin_m >= 0
    if part:
        assert choice.part_number == part
    if "lane_gbps" in kw:
        assert choice.option.lane_gbps == kw["lane_gbps"]


def test_coherent_parts(media):
    assert media.lookup(400, 80_000).choice.option.coherent.standard == "400zr"
    zrp = media.lookup(400, 400_000).choice
    assert zrp.option.coherent.standard == "openzr+"
    # 400 km in 80 km spans: 5 spans, 4 in-line amplifier sites.
    assert zrp.amplifiers == 4 and zrp.amplified


def test_dr8_uses_an_mpo16_trunk(media):
    c = media.lookup(800, 300, lane_gbps=100).choice
    assert c.option.fibre.connector == "mpo16-apc" and c.option.lit_per_link == 16


def test_3000_km_names_the_longest_reach(media):
    with pytest.raises(LimitError) as err:
        media.lookup(400, 3_000_000)
    assert "3,000 km" in str(err.value) and "1,200 km" in str(err.value)
    assert "qdd-400g-zrp-s" in str(err.value)


def test_no_multimode_or_aoc_or_dac_at_200g_lanes(media):
    for o in media.by_rate[800]:
        if o.lane_gbps == 200:
            assert o.medium not in ("multimode", "aoc")
            assert o.medium != "passive-copper"


def test_loss_budget_moves_sr4_at_its_reach_limit_to_the_next_medium(media):
    # SR4 at 50 m through 2 panels: 0.05 km x 3 dB/km + (2 ends + 2 panels) x 0.35 dB
    # = 1.55 dB within the 1.8 dB budget (NVIDIA: reach holds with two patch panels).
    ok = media.lookup(400, 50, "osfp", panels=2).choice
    assert ok.medium == "multimode"
    assert ok.loss_db == pytest.approx(0.05 * 3.0 + 4 * 0.35)
    # A third panel: 0.15 + 5 x 0.35 = 1.9 dB > 1.8 dB, so parallel single-mode takes over.
    moved = media.lookup(400, 50, "osfp", panels=3, explain=True)
    assert moved.choice.medium == "smf-parallel"
    why = [r.reason for r in moved.runners_up if r.option.medium == "multimode"]
    assert any("loss 1.90 dB" in w and "budget 1.80 dB" in w for w in why)


def test_assemblies_do_not_pass_patch_panels(media):
    assert media.lookup(400, 1, "osfp", panels=1).choice.medium == "multimode"


def test_a_cage_whose_ports_go_to_different_devices_takes_no_straight_copper(media):
    from bom.catalog.media import cage

    # Both ports of a twin cage to one device: the twin-to-twin DAC.
    assert media.lookup(400, 1, cage("osfp", 2), cage("osfp", 2)).choice.medium == "passive-copper"
    # A rail leaf's twin cage serves two nodes: a twin-to-twin cable cannot split, optics can.
    spread = media.lookup(400, 1, cage("osfp", 2, spread=True), cage("osfp", 2, spread=True)).choice
    assert spread.medium == "multimode"
    # A splitter fans the twin head out to two single-port cages, so it still fits.
    split = media.lookup(400, 1, cage("osfp", 2, spread=True), cage("osfp-flat", 1)).choice
    assert split.medium == "passive-copper" and split.part_number.startswith("MCP7Y00")


def test_sold_length_is_the_next_at_or_above(media):
    c = media.lookup(400, 11, "osfp").choice
    assert c.length_m == 15 and c.part_number == "MFP7E10-N015"


def test_twin_port_module_shares(media):
    # Twin-port 2xSR4 at the switch, single-port SR4 flat top at the NIC: half a module + one.
    c = media.lookup(400, 20, "osfp", cage("osfp-flat", 1)).choice
    assert c.option.a.ports == 2 and c.option.b.ports == 1
    assert c.option.a.part.part_number == "MMA4Z00-NS"


def test_preferences(media):
    by_power = media.lookup(400, 30, preference="power").choice
    by_cost = media.lookup(400, 30, preference="cost").choice
    everything = media.lookup(400, 30, explain=True)
    fits = [everything.choice] + [r for r in everything.runners_up if r.reason.startswith("fits")]
    assert by_power.power_w <= everything.choice.power_w
    assert by_cost.price_usd <= everything.choice.price_usd and len(fits) > 1


def test_unknown_rate(media):
    with pytest.raises(LimitError, match="no part in the catalog runs at 123"):
        media.lookup(123, 1)


def test_lookup_command(bom):
    r = bom("lookup", "--rate", "800 Gbit/s", "--reach", "30 m")
    assert r.exit_code == 0 and "multimode" in r.stdout and "passed over:" in r.stdout
    j = json.loads(bom("lookup", "--rate", "400 Gbit/s", "--reach", "80 km", "--json").stdout)
    assert j["choice"]["medium"] == "coherent" and j["passed_over"]


@pytest.mark.parametrize("args,key", [
    (["--rate", "0 Gbit/s", "--reach", "3 m"], "--rate"),
    (["--rate", "-400 Gbit/s", "--reach", "3 m"], "--rate"),
    (["--rate", "fast", "--reach", "3 m"], "--rate"),
    (["--rate", "400 Gbit/s", "--reach", "0 m"], "--reach"),
    (["--rate", "400 Gbit/s", "--reach", "-1 m"], "--reach"),
    (["--rate", "400 Gbit/s", "--reach", "nan m"], "--reach"),
    (["--rate", "400 Gbit/s", "--reach", "3"], "--reach"),
    (["--rate", "400 Gb/s", "--reach", "3 m"], "--rate"),
    (["--rate", "400 Gbit/s", "--reach", "3000 km"], "1,200 km"),
])
def test_lookup_bad_input(bom, args, key):
    r = bom("lookup", *args)
    assert r.exit_code == 2 and key in r.stderr and "Traceback" not in r.stderr


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=300, deadline=None)
@given(rate=st.sampled_from([100.0, 200.0, 400.0, 800.0]),
       length=st.floats(min_value=0.1, max_value=2_000_000),
       ff=st.sampled_from([None, "osfp", "osfp-flat", "qsfp112", "qsfp-dd"]),
       panels=st.integers(0, 4), pref=st.sampled_from(["ladder", "cost", "power"]))
def test_interval_cache_agrees_with_a_direct_lookup(media, rate, length, ff, panels, pref):
    def direct():
        return media._lookup(rate, length, ff, ff, None, pref, panels, False)

    try:
        want = direct().choice
    except LimitError as exc:
        with pytest.raises(LimitError) as err:
            media.lookup(rate, length, ff, preference=pref, panels=panels)
        assert str(err.value) == str(exc)
        return
    got = media.lookup(rate, length, ff, preference=pref, panels=panels).choice
    assert (got.option, got.part_number, got.length_m, got.required_m) == (
        want.option, want.part_number, want.length_m, want.required_m)
    assert got.price_usd == pytest.approx(want.price_usd) and got.loss_db == pytest.approx(want.loss_db)


@pytest.mark.parametrize("rate,start,pref", [(400.0, 1_950.0, "cost"), (400.0, 60_000.0, "ladder"),
                                              (800.0, 9_000.0, "ladder"), (400.0, 159_900.0, "power")])
def test_exact_length_answers_come_from_the_cache_as_a_direct_lookup_gives_them(catalog, rate, start, pref):
    """Fibre cut past its longest stock length and coherent parts depend on the exact length: the
    cache keeps the winning part per interval and cut step and makes its exact length again, which
    is what a lookup without the cache gives (every field, amplifier sites too)."""
    import dataclasses

    from bom.catalog.media import Media

    media = Media(catalog)   # its own caches
    lengths = [start + k * 0.7 for k in range(300)]   # 30 lengths to each 10 m cut step
    for length in lengths:
        try:
            want = media._lookup(rate, length, None, None, None, pref, 0, False).choice
        except LimitError as exc:
            with pytest.raises(LimitError, match=re.escape(str(exc))):
                media.lookup(rate, length, preference=pref)
            continue
        got = media.lookup(rate, length, preference=pref).choice
        assert got.asked == (rate, None, None, None, 0)   # what it was asked, for Media.alternatives
        assert dataclasses.replace(got, asked=None) == want
    assert sum(len(t.exact) for t in media._tables.values()) < len(lengths) / 10


def test_patch_panels_match_the_medium_of_their_runs(catalog):
    # Multimode and single-mode MPO-12/APC runs share a connector but not a panel: the adapters
    # are graded for the fibre (NVIDIA structured cabling requirements, MPO MM vs MPO SM).
    from bom.inputs.scenario import scenario_from_text
    from bom.inputs.yamlio import load_text
    from bom.pipeline.model import build_model

    text = ("name: p\nplatform: dgx-h100\nnodes: 127\nfabrics: {compute: {media: [multimode, smf-parallel]}}\n"
            "layout: {patch_panels: 2, racks_per_row: 2, row_pitch: \"10 m\"}\n")   # some runs past 50 m
    groups = build_model(scenario_from_text(text), load_text(text, "p.yaml"), catalog, None).groups
    paneled = [g for g in groups if g.panels]
    assert {g.medium for g in paneled} == {"multimode", "smf-parallel"}
    for g in paneled:
        assert g.panel.connector == g.choice.option.fibre.connector == "mpo12-apc"
        assert g.panel.medium == ("multimode" if g.medium == "multimode" else "single-mode"), g.panel.id
    assert {g.panel.id for g in paneled if g.medium == "multimode"} == {"mpo-panel-mm-1u"}
    assert {g.panel.id for g in paneled if g.medium != "multimode"} == {"mpo-panel-sm-1u"}


# --- co-packaged optics: an optical engine at the switch end --------------------------------

def test_cpo_port_takes_a_pluggable_at_the_far_end_only(media):
    # The ConnectX-8 end (single-port OSFP RHS) to a Q3450-LD port: DR4 module at the NIC, engine at the switch.
    c = media.lookup(800, 30, cage("osfp-flat", 1, True), cage("cpo", 1, True), 200).choice
    j = c.to_json()
    assert (j["end_a"], j["end_b"]) == ("pluggable", "optical engine")
    assert j["module_a"] == "MMS4A20-XM800" and j["module_b"] is None and j["standard"] == "800G DR4"
    # The engine's power and price are the switch's: the link carries the NIC module's only.
    assert j["power_w"] == 16.0 and c.price_usd == pytest.approx(1500 + 106)


def test_cpo_to_cpo_has_no_module(media):
    j = media.lookup(800, 30, cage("cpo", 1), cage("cpo", 1), 200).choice.to_json()
    assert (j["end_a"], j["end_b"]) == ("optical engine", "optical engine") and j["power_w"] == 0.0


def test_an_unconstrained_lookup_never_picks_an_engine(media):
    # A lookup that names no cage must not assume a CPO switch at either end.
    for rate, length in ((800, 30), (800, 300), (400, 100)):
        j = media.lookup(rate, length).choice.to_json()
        assert "optical engine" not in (j["end_a"], j["end_b"])


def test_assembly_ends_are_none(media):
    j = media.lookup(800, 2).choice.to_json()
    assert j["cable"] and (j["end_a"], j["end_b"]) == ("none", "none")


def test_cpo_reach_is_the_shorter_of_engine_and_module(media):
    with pytest.raises(LimitError):
        media.lookup(800, 600, cage("osfp-flat", 1, True), cage("cpo", 1, True), 200)


def test_lookup_text_names_each_end(bom):
    out = bom("lookup", "--rate", "800 Gbit/s", "--reach", "30 m", "--form-factor", "osfp-flat:1",
              "--far-form-factor", "cpo", "--lane-rate", "200 Gbit/s").output
    assert "end a: module MMS4A20-XM800" in out and "end b: optical engine" in out


def test_cpo_switch_needs_engine_and_lasers(catalog):
    from pydantic import ValidationError

    from bom.catalog.rows import Switch
    row = catalog.get("switches", "q3450-ld").model_dump()
    with pytest.raises(ValidationError, match="laser_source"):
        Switch(**{**row, "laser_source": None})
    with pytest.raises(ValidationError, match="co-packaged"):
        Switch(**{**catalog.get("switches", "q3400").model_dump(), "engine": row["engine"]})


def test_cpo_faceplate_breakouts_counted_per_connector_used(catalog, tmp_path):
    # A faceplate connector carrying two ports needs a fibre shuffle per connector used, per switch:
    # 576 GB300 GPUs, 8 leaves with 72 down + 72 up ports each -> 8 x (36 + 36) = 576 at the leaves,
    # 4 spines with 144 used ports each -> 4 x 72 = 288 (tests/reference/test_cpo_gb300.py has the fabric).
    import yaml

    from bom.catalog.load import builtin_dir, load_catalog
    from bom.costing.lines import all_lines
    from bom.inputs.scenario import scenario_from_text
    from bom.inputs.yamlio import load_text
    from bom.pipeline.model import build_model

    rows = yaml.safe_load((builtin_dir() / "switches-cpo.yaml").read_text())["switches"]
    row = {**next(r for r in rows if r["id"] == "q3450-ld"), "id": "q3450-twin", "cages": 72, "ports_per_cage": 2}
    row["engine"].update(ports_per_connector=2, breakout={
        "vendor": "test", "part_number": "SHUFFLE-2X", "description": "2-port faceplate breakout",
        "price_usd": 100, "price_source": "estimate", "source": "test fixture", "as_of": "2026-12-03"})
    (tmp_path / "cpo.yaml").write_text(yaml.safe_dump({"switches": [row]}))
    cat = load_catalog([tmp_path])
    text = "name: twin\nplatform: gb300-nvl72\ngpus: 576\nfabrics:\n  compute: {switch: q3450-twin}\n"
    model = build_model(scenario_from_text(text), load_text(text, "twin.yaml"), cat, None)
    lines = [x for x in all_lines(model, cat) if x.category == "fibre breakout"]
    by_hop = {x.hop: x.quantity for x in lines}
    assert by_hop == {"node-leaf": 8 * 36, "leaf-spine": 8 * 36 + 4 * 72}
    assert {x.sku for x in lines} == {"SHUFFLE-2X"}


def test_a_shared_faceplate_connector_needs_a_breakout(catalog):
    from pydantic import ValidationError

    from bom.catalog.rows import Engine
    e = catalog.get("switches", "q3450-ld").engine.model_dump()
    with pytest.raises(ValidationError, match="breakout"):
        Engine(**{**e, "ports_per_connector": 4})


@pytest.mark.parametrize(("text", "gbps"), [("400G", 400), ("800G", 800), ("1.6T", 1600), ("400GbE", 400),
                                            ("100GE", 100), ("1.6 Tbit/s", 1600), ("800 G", 800)])
def test_rate_shorthands_read_wherever_a_rate_is(text, gbps):
    from bom.inputs.scenario import Storage
    from bom.units import magnitude, parse_quantity

    assert magnitude(parse_quantity(text, "rate"), "rate") == pytest.approx(gbps)
    # a scenario key reads it too (the same parser)
    assert magnitude(Storage(rate=text).rate, "rate") == pytest.approx(gbps)


def test_shorthand_is_only_a_rate():
    from bom.errors import QuantityError
    from bom.units import parse_quantity

    with pytest.raises(QuantityError):
        parse_quantity("400G", "length")


@pytest.mark.parametrize("rate", ["400G", "800G", "1.6T", "400GbE", "1.6 Tbit/s"])
def test_lookup_takes_shorthands(bom, rate):
    r = bom("lookup", "--rate", rate, "--reach", "30 m")
    assert r.exit_code == 0, r.output


def test_lookup_1600g_is_two_800g_links_on_twin_port_ends(bom):
    # The catalog sells 1.6T twin-port OSFP modules (MMS4A00-XM, 2x800G DR4) and cables, no 1.6T port.
    out = bom("lookup", "--rate", "1.6T", "--reach", "30 m", "--form-factor", "osfp").output
    assert "two 800 Gbit/s links on twin-port ends" in out
    assert "end a: module MMS4A00-XM in cage osfp (one module serves 2 links)" in out
    assert "end b: module MMS4A00-XM in cage osfp (one module serves 2 links)" in out
    j = json.loads(bom("lookup", "--rate", "1.6T", "--reach", "2 m", "--json").output)
    assert j["links_per_cage"] == 2 and j["choice"]["ports_per_module_a"] == 2 == j["choice"]["ports_per_module_b"]


def test_lookup_shows_both_ends_and_the_cable(bom):
    out = bom("lookup", "--rate", "800G", "--reach", "3 m").output
    assert "end a:" in out and "end b:" in out and "\n  cable " in out
    out = bom("lookup", "--rate", "800G", "--reach", "30 m").output
    assert "end a: module" in out and "end b: module" in out and "\n  fibre " in out


def test_lookup_names_parts_by_part_number(bom, catalog):
    """One name per part: the lookup prints part numbers, as the BOM and the cable plan do, never a catalog
    id where the part number differs (mms4a00-xm-rhs is sold as MMS4A00-XM-FLT)."""
    ids = {r.id for kind in ("modules", "cables", "fibres", "coherent") for r in catalog.by_kind[kind]
           if r.id.upper() != r.part_number.upper()}
    assert "mms4a00-xm-rhs" in ids
    for rate, reach in (("800G", "30 m"), ("800G", "3 m"), ("400G", "30 m"), ("400G", "80 km"), ("1.6T", "100 m")):
        out = bom("lookup", "--rate", rate, "--reach", reach).output
        words = set(re.findall(r"[\w.+-]+", out))
        assert not ids & words, f"{rate} {reach}: catalog ids in the lookup: {sorted(ids & words)}"
    assert "MMS4A00-XM-FLT" in bom("lookup", "--rate", "800G", "--reach", "30 m").output


def test_an_interval_only_coherent_parts_reach_keeps_one_winner_whatever_the_cut_step(catalog):
    """Past every fibre and cable option's reach only coherent parts fit, at a fixed price: the cache keeps
    one winner per interval (not one per 10 m cut step) and still gives what a direct lookup gives."""
    import dataclasses

    from bom.catalog.media import Media

    media = Media(catalog)
    lengths = [50_000.0 + k * 37.3 for k in range(200)]   # 7.5 km: 746 cut steps
    for length in lengths:
        want = media._lookup(400.0, length, None, None, None, "ladder", 0, False).choice
        got = media.lookup(400.0, length).choice
        assert want.option.coherent is not None and dataclasses.replace(got, asked=None) == want
    table = media._tables[(400.0, None, None, None, "ladder", 0)]
    spanned = {bisect.bisect_left(table.breakpoints, x) for x in lengths}
    assert len(table.exact) == len(spanned) < 5
