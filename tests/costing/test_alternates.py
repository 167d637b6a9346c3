"""Issue 43, item 4: the alternates that pull the date in. A DGX H100 cluster whose NIC-end optic
(MMA4Z00-NS-FLT, 16 weeks, an estimate by part class) gates its in-service date: the switch-end
optic is quoted at 8 weeks, and an overlay adds a second source for the NIC end (ACME-SR4-FLT, the
same flat-top twin-port 2 x SR4, dearer, quoted at 4 weeks). Building with it moves the date and the TCO by
the amounts the catalog implies; --prefer-available takes it and the design rules still pass."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json

import pytest

from bom import pipeline
from bom.costing.tco import compute_tco
from bom.inputs.scenario import load_scenario

SCENARIO = """name: h100-second-source
platform: dgx-h100
gpus: 256
fabrics: {compute: {}}
order_date: 2027-01-04
catalogs: [over]
prices: [prices.csv]
"""
PRICES = "sku,price,quote_ref,lead_time\nMMA4Z00-NS,1200,Q-1,8 weeks\n"
ACME = """modules:
  - id: acme-sr4-flt
    vendor: Acme Optics
    part_number: ACME-SR4-FLT
    description: 800G twin-port OSFP 2xSR4 multimode, flat top, coded for ConnectX-7
    form_factor: osfp-flat
    ports: 2
    port_rate: "400 Gbit/s"
    port_type: 400g-sr4
    lanes: 4
    lane_rate: "100 Gbit/s"
    medium: multimode
    connector: mpo12-apc
    lit_strands: 8
    reach_max: "50 m"
    loss_budget: "1.8 dB"
    power: "13 W"
    price_usd: 1450
    price_source: quote
    lead_time: "4 weeks"
    lead_time_source: "Acme Optics quote Q-77 (2027-01-02)"
    source: "Acme Optics data sheet ACME-SR4-FLT rev B (2026-11)"
    as_of: 2027-01-02
"""
ALT = "acme-sr4-flt+mma4z00-ns over mfp7e10-n"


def _write(tmp_path):
    (tmp_path / "over").mkdir(exist_ok=True)
    (tmp_path / "over" / "modules.yaml").write_text(ACME)
    (tmp_path / "prices.csv").write_text(PRICES)
    (tmp_path / "s.yaml").write_text(SCENARIO)
    return tmp_path / "s.yaml"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    path = _write(tmp_path_factory.mktemp("alt"))
    sc, src = load_scenario(path)
    cat = pipeline.catalog_for(sc, src)
    plain = pipeline.report_of(pipeline.build_scenario(sc, src, cat), cat)
    plain = pipeline.with_alternates(plain, sc, src, cat)
    subs = dataclasses.replace(cat, substitutes={"mma4z00-ns-flt": (ALT,)})
    chosen = pipeline.report_of(pipeline.build_scenario(sc, src, subs), subs)
    return sc, src, cat, plain, chosen


def test_the_nic_optic_gates_and_its_alternates_are_listed(built):
    _, _, _, plain, _ = built
    (s,) = plain.schedule
    assert s.gate.catalog_id == "mma4z00-ns-flt" and s.longest_lead_days == 112
    assert s.in_service == dt.date(2027, 1, 4) + dt.timedelta(days=112 + s.install_days + 7)
    parts = {p.catalog_id: p for p in plain.alternates.parts}
    assert parts["mma4z00-ns-flt"].why == "gates site 1"
    acme = next(a for a in plain.alternates.options if a.option == ALT)
    assert acme.part == "mma4z00-ns-flt" and acme.label == "ACME-SR4-FLT + MMA4Z00-NS over MFP7E10-N0xx"
    assert acme.standard == "400G SR4" and acme.lead_time_days == 70   # the fibre's 10 weeks now come last
    assert acme.links == acme.of_links == 256 and acme.where == ("compute node-leaf in-row",)
    assert acme.rules_ok and acme.shortens
    j = plain.to_json()["alternates"]
    assert any(o["option"] == ALT and o["in_service_days"] == acme.change.in_service_days for o in j["options"])


def test_the_alternate_moves_the_date_and_the_tco_by_the_amounts_the_catalog_implies(built):
    """Date: the NIC optic's 112 days out, the next to arrive are the DGX H100 and the switches at 84 days
    (12 weeks): 28 days earlier. Money: the same modules, one for one (installed + spares), at the
    overlay's price and power instead of the NVIDIA part's, through the TCO's own formulas."""
    _, _, cat, plain, chosen = built
    acme = next(a for a in plain.alternates.options if a.option == ALT)
    (before,), (after,) = plain.schedule, chosen.schedule
    assert after.longest_lead_days == 84 and after.gate.days == 84
    assert (after.in_service - before.in_service).days == -28 == acme.change.in_service_days
    old = next(o for o in plain.order if o.catalog_id == "mma4z00-ns-flt")
    new = next(o for o in chosen.order if o.catalog_id == "acme-sr4-flt")
    assert (new.installed, new.spares) == (old.installed, old.spares)
    flt, sub = cat.get("modules", "mma4z00-ns-flt"), cat.get("modules", "acme-sr4-flt")
    d_usd = old.total * (sub.price_usd - flt.price_usd)                   # 1,450 - 1,300 USD a module
    d_w = old.installed * (13.0 - 15.0)                                    # the modules installed draw power
    assert acme.change.hardware_usd == pytest.approx(d_usd) == chosen.tco.hardware_usd - plain.tco.hardware_usd
    b = plain.basis
    net = {**b.capex_by_class, "network": b.capex_by_class["network"] + d_usd}
    want = compute_tco(dataclasses.replace(b, capex_by_class=net, network_usd=b.network_usd + d_usd,
                                           optics_usd=b.optics_usd + d_usd, it_power_w=b.it_power_w + d_w,
                                           network_power_w=b.network_power_w + d_w,
                                           it_power_max_w=b.it_power_max_w + d_w), plain.inputs)
    assert acme.change.tco_usd == pytest.approx(want.tco_usd - plain.tco.tco_usd)
    assert acme.change.it_power_kw == pytest.approx(d_w / 1000)


def test_prefer_available_takes_it_and_the_design_rules_pass(bom, built, tmp_path):
    path = _write(tmp_path)
    r = bom("build", str(path), "-o", str(tmp_path / "o"), "-q", "--prefer-available")
    assert r.exit_code == 0, r.stderr
    doc = json.loads((tmp_path / "o" / "h100-second-source.json").read_text())
    pref = doc["alternates"]["preferred"]
    assert [t["part"] for t in pref["taken"]] == ["mma4z00-ns-flt"] and pref["taken"][0]["options"][0] == ALT
    assert pref["in_service_days"] == -28 and pref["rules_ok"] is True
    assert {o["catalog_id"] for o in doc["order"]} >= {"acme-sr4-flt"}
    assert "mma4z00-ns-flt" not in {o["catalog_id"] for o in doc["order"]}
    checked = bom("check", str(path), "--prefer-available")
    assert checked.exit_code == 0, checked.stdout


def test_the_gpus_waiting_on_the_optic_are_priced_and_the_alternate_ends_the_wait(built):
    """Issue 43, item 3: the DGX H100 systems arrive at 84 days (12 weeks, The Register 2024-04-12) and
    stand idle until the NIC optic's 112 days: 28 days of the GPU systems' capital charge, capex of the GPU
    class x CRF(8 %, 5 years) / 365 x 28 (the TCO's own basis, one site holds every GPU). With the alternate
    nothing arrives after the GPU systems: no wait, no idle cost."""
    from bom.costing.tco import capital_recovery_factor

    _, _, _, plain, chosen = built
    (before,), (after,) = plain.schedule, chosen.schedule
    assert (before.gpu_lead_days, before.longest_lead_days, before.idle_gpu_days) == (84, 112, 28)
    want = plain.tco.capex_gpu_usd * capital_recovery_factor(0.08, 5) / 365 * 28
    assert before.idle_gpu_cost_usd == pytest.approx(want) and want > 100_000
    assert plain.to_json()["in_service"][0]["idle_gpu_cost_usd"] == round(want, 2)
    assert (after.idle_gpu_days, after.idle_gpu_cost_usd) == (0, 0.0)
