"""The TCO's pure functions: the finance conventions, and how the scenario's tco block sets them."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bom.costing.tco import Basis, capital_recovery_factor, compute_tco, inputs, moved, npv, present_value_factor
from bom.inputs.scenario import scenario_from_text

BASIS = Basis(capex_by_class={"gpu": 8e6, "network": 1.5e6, "facility": 0.2e6}, network_usd=1.5e6,
              gpu_systems_usd=8e6, optics_usd=0.6e6, it_power_w=400e3, network_power_w=30e3, links=512, racks=4,
              gpus=256, dark_fibre_km=0.0, pflops_per_gpu=4.5)


def _with(ins, **values):
    return {**ins, **{k: replace(ins[k], value=v) for k, v in values.items()}}


def test_at_zero_cost_of_capital_and_lives_equal_to_the_period_the_cost_is_the_plain_tco():
    """capital charge = capex / years, so cost per GPU-hour = (capex + years x opex) / GPU-hours."""
    ins = _with(inputs(None), discount_rate=0.0, life_gpu=5.0, life_network=5.0, life_facility=5.0)
    t = compute_tco(BASIS, ins)
    assert t.capital_charge_per_year == pytest.approx(t.capex_usd / 5)
    assert t.usd_per_gpu_hour == pytest.approx(t.tco_usd / (256 * 5 * 8760 * 0.8))
    assert t.npv_usd == pytest.approx(t.tco_usd)


def test_the_capital_recovery_factor_repays_the_capex_at_the_rate():
    crf = capital_recovery_factor(0.08, 6)
    assert crf * present_value_factor(0.08, 6) == pytest.approx(1.0)
    assert npv(0, 1.0, 0.08, 6) == pytest.approx(present_value_factor(0.08, 6))


def test_each_class_depreciates_over_its_own_life():
    t = compute_tco(BASIS, inputs(None))
    ins = inputs(None)
    gpu = 8e6
    network = 1.5e6 + 512 * ins["install_link"].value
    facility = 0.2e6 + 4 * ins["install_rack"].value
    assert t.depreciation_per_year == pytest.approx(gpu / 5 + network / 6 + facility / 10)
    assert t.capex_gpu_usd + t.capex_network_usd + t.capex_facility_usd == pytest.approx(t.capex_usd)
    assert t.usd_per_pflop_hour == pytest.approx(t.usd_per_gpu_hour / 4.5)


def test_colocation_per_kw_month_or_space_per_rack():
    sc = scenario_from_text('name: x\nplatform: dgx-h100\nnodes: 4\n'
                            'tco: {colocation: "150 USD/kW/month", space_basis: rack, space: "7000 USD/yr", '
                            'support: 0.05, discount_rate: 0.1}\n')
    ins = inputs(sc.tco)
    assert ins["colocation"].value == 150 and ins["colocation"].source == "scenario"
    assert ins["support_gpu"].value == ins["support_network"].value == 0.05   # the one rate sets every class
    t = compute_tco(BASIS, ins)
    assert t.space_per_year == 4 * 7000
    kw = compute_tco(BASIS, _with(ins, space_basis="kW"))
    assert kw.space_per_year == pytest.approx(400 * 150 * 12)


def test_the_sensitivity_moves_one_thing_at_a_time():
    ins = inputs(None)
    base = compute_tco(BASIS, ins)
    up = moved(BASIS, ins, "gpu_price", 1.2)
    assert up.capex_usd - base.capex_usd == pytest.approx(0.2 * 8e6)
    assert up.energy_per_year == base.energy_per_year
    optics = moved(BASIS, ins, "optics_price", 1.2)
    assert optics.network_usd - base.network_usd == pytest.approx(0.2 * 0.6e6)
    rate = moved(BASIS, ins, "discount_rate", 1.2)
    assert rate.capex_usd == base.capex_usd and rate.usd_per_gpu_hour > base.usd_per_gpu_hour
