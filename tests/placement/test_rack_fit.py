"""A rack that does not fit names the limit that binds (issue 42, item 8): 64U of DGX H100 in a 48U
rack is the height, not the power budget; the advice names only the key that lifts the binding
limit. One case per limit (height, power, both), as the user sees the message (exit 2, file and
line), and the packer's own check of one device against an empty rack."""

from __future__ import annotations

import pytest

from bom.errors import LimitError
from bom.model.placement import Item, RackType
from bom.placement.racks import check_fits

H100 = "name: tall\nplatform: dgx-h100\ngpus: 256\nlayout: {nodes_per_rack: %d}\n"

CASES = {
    # 8 x 8U = 64U in the 48U rack, 81.7 kW (with the PDUs) under a 100 kW budget: the height alone.
    "height": (H100 % 8 + 'racks: {power_budget: "100 kW"}\n',
               "8 dgx-h100 nodes (8U, 10,200 W each) do not fit one compute rack: the height binds (64U in a 48U "
               "legrand-nvidpd13 rack); the power fits (81,660 W of its 100,000 W budget)",
               "or raise racks.rack_units (a taller rack).", "racks.power_budget"),
    # 4 x 8U = 32U fits; 4 x 10.2 kW = 40.8 kW over a 30 kW budget: the power alone.
    "power": (H100 % 4 + 'racks: {power_budget: "30 kW"}\n',
              "4 dgx-h100 nodes per rack (8U, 10.2 kW each) do not fit one compute rack: the power binds (40,800 W "
              "over the legrand-nvidpd13 rack's 30,000 W budget); the height fits (32U of its 48U)",
              "or raise racks.power_budget.", "racks.rack_units"),
    # 64U and 81.6 kW against the RA's 48U and 44 kW: both, height first.
    "both": (H100 % 8,
             "8 dgx-h100 nodes per rack (8U, 10.2 kW each) do not fit one compute rack: both limits bind: the height "
             "(64U in a 48U legrand-nvidpd13 rack) and the power (81,600 W over its 44,000 W budget)",
             "or raise racks.rack_units (a taller rack) and racks.power_budget.", None),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_rack_fit_error_names_the_limit_that_binds(bom, tmp_path, case):
    text, message, hint, not_named = CASES[case]
    f = tmp_path / "s.yaml"
    f.write_text(text)
    r = bom("check", str(f))
    assert r.exit_code == 2, r.output
    assert "s.yaml:4: layout.nodes_per_rack:" in r.stderr
    assert message in r.stderr and hint in r.stderr, r.stderr
    if not_named:   # the limit that does not bind is not offered as the fix
        assert f"raise {not_named}" not in r.stderr.replace("Raise", "raise")


RACK = RackType("r48", 48, 10_000.0)


@pytest.mark.parametrize("item,says,lift", [
    (Item("node", "tall", 64, 5_000.0), "the height binds (64U in a 48U r48 rack); the power fits",
     "Raise racks.rack_units (a taller rack), or pick a smaller device."),
    (Item("node", "hot", 4, 12_000.0), "the power binds (12,000 W over the r48 rack's 10,000 W budget); "
     "the height fits (4U of its 48U)", "Raise racks.power_budget, or pick a smaller device."),
    (Item("node", "big", 64, 12_000.0), "both limits bind: the height (64U in a 48U r48 rack) and the power",
     "Raise racks.rack_units (a taller rack) and racks.power_budget, or pick a smaller device."),
], ids=["height", "power", "both"])
def test_a_device_that_fits_no_rack_names_its_binding_limit(item, says, lift):
    with pytest.raises(LimitError) as e:
        check_fits(RACK, item)
    assert f"a {item.catalog_id} (node, {item.height}U, {item.power_w:,.0f} W) fits no rack: {says}" in e.value.message
    assert e.value.hint == lift


def test_a_device_that_fits_raises_nothing():
    check_fits(RACK, Item("node", "ok", 48, 10_000.0))
