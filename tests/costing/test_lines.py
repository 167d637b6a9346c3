"""BOM lines: a modular spine counted part by part, line cards from the ports used."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bom.costing.categories import Category
from bom.costing.lines import Line, all_lines, merge
from bom.inputs.scenario import scenario_from_text
from bom.inputs.yamlio import load_text
from bom.pipeline.model import build_model
from bom.roles import Tier
from bom.units import magnitude

CHASSIS = "ptx10008-lc1301"


def build(catalog, nodes: int, extra: str = ""):
    text = (f"name: chassis\nplatform: dgx-h100\nnodes: {nodes}\n"
            f"fabrics:\n  compute: {{switch: juniper-qfx5240-64od, spine: {CHASSIS}, su_nodes: 64{extra}}}\n")
    return build_model(scenario_from_text(text), load_text(text, "c.yaml"), catalog, None)


def spine_lines(model, catalog, hop="spine"):
    return {line.sku: line for line in all_lines(model, catalog)
            if line.fabric == "compute" and line.hop == hop and line.category == "switch"}


@pytest.mark.parametrize("nodes,chassis,cards", [
    # 32 DGX (one partial stripe): 8 rail leaves x 32 uplinks = 256 x 400G on one chassis;
    # a 36 x 800G card is 72 x 400G -> 4 cards (half the slots).
    (32, 1, 4),
    # 256 DGX (4 stripes): 32 leaves x 64 uplinks over 4 chassis, 512 ports each -> 8 cards each.
    (256, 4, 32),
    # 128 DGX: 16 leaves x 64 = 1,024 links over 2 chassis, 512 each -> 8 cards each.
    (128, 2, 16),
])
def test_line_cards_follow_the_ports_used(catalog, nodes, chassis, cards):
    m = build(catalog, nodes)
    f = m.fabrics["compute"]
    row = catalog.get("switches", CHASSIS)
    mod = row.modular
    assert f.switches("spine") == chassis
    used = f.port_use("spine")
    assert sum(n * u for n, u in used) == f.hop_links("leaf-spine")
    lines = spine_lines(m, catalog)
    per_card = mod.line_card.ports * 2          # 400G links on 800G ports
    assert lines[mod.line_card.part_number].quantity == cards == sum(n * math.ceil(u / per_card) for n, u in used)
    # Frame, fabric cards, supervisors and power supplies per chassis, each its own line.
    for part in (mod.chassis, mod.fabric_cards, mod.supervisors, mod.power_supplies):
        line = lines[part.part_number]
        assert line.quantity == chassis * part.count and line.unit_price_usd == part.price_usd
        assert line.unit_power_w == magnitude(part.power, "power") and line.catalog_id == CHASSIS
    # The chassis row's own price (a full chassis) is not billed on top of its parts.
    assert row.part_number not in lines
    power = sum(line.power_w for line in lines.values())
    assert power == pytest.approx(chassis * (1000 + 6 * 300 + 2 * 100) + cards * 1500)


def test_three_layers_count_core_chassis_too(catalog):
    m = build(catalog, 300, ", layers: 3")
    f = m.fabrics["compute"]
    mod = catalog.get("switches", CHASSIS).modular
    per_card = mod.line_card.ports * 2
    for hop in ("spine", "core"):
        used = f.port_use(hop)
        assert sum(n for n, _ in used) == f.switches(hop) > 0
        cards = sum(n * math.ceil(u / per_card) for n, u in used)
        assert spine_lines(m, catalog, hop)[mod.line_card.part_number].quantity == cards
    # Every spine uplink lands on a core port.
    assert sum(n * u for n, u in f.port_use("core")) == f.hop_links("spine-core")


def test_modular_row_ports_must_fill_its_slots(bom, tmp_path):
    from bom.catalog.load import builtin_dir

    text = (builtin_dir() / "switches-chassis.yaml").read_text().replace("    ports: 288\n", "    ports: 280\n", 1)
    d = tmp_path / "cat"
    d.mkdir()
    (d / "chassis.yaml").write_text(text.replace("cages: 288", "cages: 280"))
    r = bom("catalog", "validate", str(d))
    assert r.exit_code == 2 and "slots x the line card's ports" in r.stderr and "8 x 36" in r.stderr, r.stderr


def test_unknown_spine_names_the_key(bom, tmp_path):
    s = tmp_path / "s.yaml"
    s.write_text("name: x\nplatform: dgx-h100\nnodes: 64\nfabrics:\n  compute: {spine: ptx10009}\n")
    r = bom("build", str(s), "--json")
    assert r.exit_code == 2 and "fabrics.compute.spine" in r.stderr and "ptx10008-lc1301" in r.stderr, r.stderr


def _merged_one_by_one(lines):  # type: ignore[no-untyped-def]
    """merge as it was: each line added to its place's line so far, a Line made per addition."""
    merged = {}
    for line in lines:
        key = (line.tier, line.fabric, line.hop, line.category, line.sku, str(line.unit_price_usd))
        old = merged.get(key)
        merged[key] = line if old is None else Line(**{**old.__dict__, "quantity": old.quantity + line.quantity})
    return list(merged.values())


_QTY = st.one_of(st.integers(0, 10**6), st.floats(0, 1e6, allow_nan=False), st.sampled_from([0.1, 0.2, 1e-17]))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b"]), st.sampled_from(["x", "y"]), st.sampled_from([1.0, 1, 0.1, 2.5]),
                          _QTY, st.sampled_from(["d1", "d2"])), max_size=30))
def test_merge_is_the_line_by_line_sum(specs):  # type: ignore[no-untyped-def]
    """One line per part and place, its quantity summed in the lines' order (floats to the last bit), its
    other fields the first line's; a line alone in its place is itself."""
    lines = [Line(Tier.SCALE_OUT, "compute", hop, Category.SWITCH, "row", sku, desc, "v", q, "each", price, 10.0,
                  "list", "2026-01-01", "src") for sku, hop, price, q, desc in specs]
    got, want = merge(lines), _merged_one_by_one(lines)
    assert got == want and [type(x.quantity) for x in got] == [type(x.quantity) for x in want]
    assert [x.quantity.hex() if isinstance(x.quantity, float) else x.quantity for x in got] == \
        [x.quantity.hex() if isinstance(x.quantity, float) else x.quantity for x in want]
