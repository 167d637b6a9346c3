"""Issue 22 item 8: the scheduled fabric in its chassis form, an Arista 7800R4 "AI Spine" (Broadcom
Jericho3-AI line cards, Ramon3 fabric elements inside the box) as the spine of a compute fabric,
counted part by part by the catalog's ``modular:`` mechanism (bom/costing/lines.py chassis_lines).

The published figures, and where they were read (2026-12-06):

- [DS] "Arista 7800R4 Series AI Spine Switch Datasheet", as secondary pages quote it (the PDF was
  not at hand): systems DCS-7804, -7808, -7812 (4, 8, 12 slots) and DCS-7816L ("16-Slot",
  "576x 800G"); line cards 7800R4-36PE, 7800R4C-36PE, 7800R4K-36PE ("36x 800G", "28.8T/slot",
  OSFP800, 2 x 400G breakout per port); "up to 576 ports of 800GbE in a single system, using
  36-port 800GbE OSFP line cards (DCS-7800R4-36PE-LC)"; the 16-slot system "1,152 x 400GbE".
- [QSG] Arista 7800 Series Quick Start Guide (arista.com/en/qsg-7800-series), Preparation, Table 2
  "Rack Space Requirements": DCS-7808 16 RU, DCS-7816 32 RU.

Fabric modules, supervisors and power supplies per chassis are not in any source read: the rows
carry estimates marked unconfirmed, and the tests take them from the row (a change to the row moves
the expected count with it; the rule checked is "per chassis", not the number). The case is not a
published design: tests/reference/arista_7800r4_spine.yaml, 64 Gaudi 3 servers (6 x 800G OSFP each)
on 7060X6-64PE rail leaves, whose figures follow from [DS]'s port counts.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from bom.costing.lines import all_lines
from bom.inputs.scenario import load_scenario, scenario_from_text
from bom.inputs.yamlio import load_text
from bom.pipeline.model import build_model
from bom.units import magnitude

HERE = Path(__file__).parent
CASE = HERE / "arista_7800r4_spine.yaml"
BIG, SMALL = "arista-7816lr4-36pe", "arista-7808r4-36pe"
CARD_PORTS = 36        # [DS] "36x 800G" per 7800R4-36PE line card
SLOTS = {BIG: 16, SMALL: 8}   # [DS] DCS-7816L "16-Slot", DCS-7808 "8-Slot"


def _model_of(catalog, text: str):
    return build_model(scenario_from_text(text), load_text(text, "s.yaml"), catalog, None)


def _fabric(platform: str, nodes: int, spine: str) -> str:
    return (f"name: s\nplatform: {platform}\nnodes: {nodes}\nfabrics:\n"
            f"  compute: {{switch: arista-7060x6-64pe, spine: {spine}, su_nodes: 32, layers: 2}}\n")


def _spine_lines(model, catalog):
    return {x.sku: x for x in all_lines(model, catalog)
            if x.fabric == "compute" and x.hop == "spine" and x.category == "switch"}


def test_rows_carry_the_datasheet_port_counts(catalog):
    for sid, slots in SLOTS.items():
        row = catalog.get("switches", sid)
        m = row.modular
        assert m.slots == slots and m.line_card.ports == CARD_PORTS        # [DS]
        assert m.line_card.part_number == "DCS-7800R4-36PE-LC"             # [DS]
        assert (magnitude(row.port_rate, "rate"), row.form_factor) == (800, "osfp")   # [DS] OSFP800
        assert row.ports == slots * CARD_PORTS
        assert {magnitude(b.rate, "rate"): b.ports for b in row.breakouts}[400] == 2 * row.ports  # [DS] 2 x 400G
    assert catalog.get("switches", BIG).ports == 576            # [DS] DCS-7816L "576x 800G"
    assert catalog.get("switches", SMALL).ports == 288          # 8 x 36
    assert catalog.get("switches", SMALL).rack_units == 16      # [QSG] Table 2: DCS-7808 16 RU
    assert catalog.get("switches", BIG).rack_units == 32        # [QSG] DCS-7816 32 RU (7816L: unconfirmed)
    assert "rack_units" in catalog.get("switches", BIG).unconfirmed


def test_reference_case_one_chassis_line_cards_from_the_ports_used(catalog):
    scenario, src = load_scenario(CASE)
    m = build_model(scenario, src, catalog, None)
    f = m.fabrics["compute"]
    p = f.first
    row = catalog.get("switches", BIG)
    mod = row.modular
    # 2 SUs of 32 Gaudi 3 servers, 6 rails: 6 rail leaves per SU (32 x 800G down, 32 up, 1:1).
    assert (m.cluster.nodes, p.groups, p.leaves_per_group) == (64, 2, 6)
    assert (f.switches("leaf"), p.leaf_down, p.leaf_up) == (12, 32, 32)
    # One 7816LR4 takes every uplink: 12 x 32 = 384 <= 576 [DS], at the ports' own 800G.
    assert f.switches("spine") == 1 and f.port_use("spine") == [(1, 384)]
    assert p.up.rate_gbps == 800
    # The spine ports used are the leaves' uplinks, and each is one leaf-spine link.
    assert sum(n * u for n, u in f.port_use("spine")) == f.switches("leaf") * p.leaf_up == f.hop_links("leaf-spine")
    lines = _spine_lines(m, catalog)
    # Line cards from the ports used: ceil(384 / 36 [DS]) = 11 of the 16 slots.
    assert lines["DCS-7800R4-36PE-LC"].quantity == math.ceil(384 / CARD_PORTS) == 11
    # Per chassis, from the row (the counts are the row's estimates, marked unconfirmed).
    assert lines[mod.chassis.part_number].quantity == 1
    assert lines[mod.fabric_cards.part_number].quantity == mod.fabric_cards.count
    assert lines[mod.supervisors.part_number].quantity == mod.supervisors.count
    assert lines[mod.power_supplies.part_number].quantity == mod.power_supplies.count
    assert {"modular.fabric_cards.count", "modular.power_supplies.count"} <= set(row.unconfirmed)
    # The row's own price (a full chassis) is not billed: its part number's line is the bare frame's,
    # and the power is the used cards' and the chassis parts' own draw, not a full chassis's.
    assert lines[row.part_number].unit_price_usd == mod.chassis.price_usd < row.price_usd
    w = lambda part: magnitude(part.power, "power")  # noqa: E731
    assert sum(x.power_w for x in lines.values()) == pytest.approx(
        11 * w(mod.line_card) + w(mod.chassis) + mod.fabric_cards.count * w(mod.fabric_cards)
        + mod.supervisors.count * w(mod.supervisors) + mod.power_supplies.count * w(mod.power_supplies))


@pytest.mark.parametrize("platform,nodes,spine,chassis,used,cards", [
    # 96 Gaudi 3: 3 SUs x 6 leaves x 32 = 576 uplinks, the full 16-slot chassis [DS] "576x 800G".
    ("gaudi3-hls3", 96, BIG, 1, 576, 16),
    # 128 Gaudi 3: 24 leaves x 32 = 768 > 576: two chassis, 384 ports each, ceil(384 / 36) = 11 cards each.
    ("gaudi3-hls3", 128, BIG, 2, 384, 11),
    # 48 Gaudi 3 on 8-slot chassis: 12 leaves x 32 = 384 > 288 [8 x 36]: two, 192 each, ceil(192 / 36) = 6.
    ("gaudi3-hls3", 48, SMALL, 2, 192, 6),
])
def test_chassis_and_line_cards_follow_the_uplinks(catalog, platform, nodes, spine, chassis, used, cards):
    m = _model_of(catalog, _fabric(platform, nodes, spine))
    f = m.fabrics["compute"]
    assert f.first.up.rate_gbps == 800
    assert f.port_use("spine") == [(chassis, used)]
    assert chassis * used == f.switches("leaf") * f.first.leaf_up == f.hop_links("leaf-spine")
    lines = _spine_lines(m, catalog)
    mod = catalog.get("switches", spine).modular
    assert lines[mod.line_card.part_number].quantity == chassis * cards == chassis * math.ceil(used / CARD_PORTS)
    for part in (mod.chassis, mod.fabric_cards, mod.supervisors, mod.power_supplies):
        assert lines[part.part_number].quantity == chassis * part.count


def test_400g_nics_uplink_at_800g_and_fill_a_card_with_72_when_asked(catalog):
    """400G NICs (HGX H100) on 800G leaves under an 800G chassis: the leaf-to-chassis links run at the
    switches' own 800G (uplink_rate: native, the default), 4 rail leaves x 32 = 128 ports, ceil(128 /
    36) = 4 cards; at the NICs' 400G (uplink_rate: downlink), two on each 800G port ([DS] 2 x 400G
    breakout, 72 x 400G a card): 256 links, ceil(256 / 72) = 4 cards, twice the modules."""
    m = _model_of(catalog, _fabric("hgx-h100", 32, SMALL))
    f = m.fabrics["compute"]
    assert f.first.up.rate_gbps == 800 and f.port_use("spine") == [(1, 128)]
    assert _spine_lines(m, catalog)["DCS-7800R4-36PE-LC"].quantity == math.ceil(128 / CARD_PORTS) == 4
    m = _model_of(catalog, _fabric("hgx-h100", 32, SMALL).replace("layers: 2}", "layers: 2, uplink_rate: downlink}"))
    f = m.fabrics["compute"]
    assert f.first.up.rate_gbps == 400 and f.port_use("spine") == [(1, 256)]
    assert _spine_lines(m, catalog)["DCS-7800R4-36PE-LC"].quantity == math.ceil(256 / (2 * CARD_PORTS)) == 4


def test_cli_build_and_check_the_case(bom, tmp_path):
    r = bom("build", str(CASE), "--json", "-q", "-o", str(tmp_path))
    assert r.exit_code == 0, r.output
    j = json.loads(r.stdout)
    spine = {ln["sku"]: ln["quantity"] for ln in j["lines"] if ln["fabric"] == "compute" and ln["hop"] == "spine"}
    assert spine["DCS-7800R4-36PE-LC"] == 11 and spine["DCS-7816L"] == 1
    assert j["fabrics"]["compute"]["spine_switch"] == BIG
    c = bom("check", str(CASE))
    assert c.exit_code == 0 and "no error, no warning" in c.stdout, c.stdout


def test_the_rack_budget_counts_the_cards_in_use_as_the_bom_does(catalog):
    """One rule for a chassis's draw: the rack it stands in is budgeted for the cards its used ports
    fill, at their maximum ([DS] 1,110 W a card), as the BOM's lines give it; not a full chassis."""
    scenario, src = load_scenario(CASE)
    m = build_model(scenario, src, catalog, None)
    lines = _spine_lines(m, catalog).values()
    chassis = m.fabrics["compute"].switches("spine")
    per_chassis = sum(x.power_max_w for x in lines) / chassis
    card = next(x for x in lines if x.sku == "DCS-7800R4-36PE-LC")
    assert (card.unit_power_w, card.unit_power_max_w) == (915, 1110)      # [DS] 915 W typical, 1,110 W max
    placed = [i for i in m.placement.by_item() if i.catalog_id == BIG]
    assert placed and {i.power_w for i in placed} == {per_chassis}
    full = catalog.get("switches", BIG)
    assert per_chassis < magnitude(full.power_max, "power")                # 11 of 16 cards, not a full chassis
