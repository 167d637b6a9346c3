"""Cisco Routed Optical Networking's pluggable line system (QDD OLS) on a 120 km 400ZR pair.

Source: Cisco, Interface and Hardware Component Configuration Guide for NCS 5500 Series Routers,
IOS XR Release 7.10.x, chapter "Configuring QDD Optical Line System" (the same text in the NCS 540
guide, Release 24.4.1), read 2026-12-06 with the `search` tool: the QDD OLS is "a new pluggable
optical amplifier that interconnects two routers or switches ... over a single span point-to-point
link", a QSFP-DD module "plugged into a port of the router"; it carries "8 or 16 optical channels
without any additional optical hardware unit" and "up to 32 optical channels" with external
passive mux/demux units, in place of the NCS 1000 / NCS 2000 amplifiers. Issue 22: for a
12.8 Tbit/s, 120 km 400ZR pair Cisco's design uses one amplifier per end, where the tool counted 4
shelf EDFAs (a booster and a pre-amplifier per direction, tests/reference/test_dci_400zr.py).

Published: 12.8 Tbit/s = 32 x 400ZR wavelengths, 1 fibre pair, 1 QDD OLS at each end = 2.
"""

from __future__ import annotations

import pytest

from bom.errors import BomError
from bom.inputs.scenario import scenario_from_text
from bom.inputs.yamlio import load_text
from bom.pipeline.model import build_model

BASE = """\
name: dci-ols
platform: gb300-nvl72
gpus: 2304
sites: {count: 2, distance: "DIST", dci_bandwidth: "BW"AMP}
fabrics: {compute: {}, inband: {switch: sn5600}}
"""


def text(distance: str = "120 km", bandwidth: str = "12.8 Tbit/s", amplifier: str | None = "qdd-ols") -> str:
    return (BASE.replace("DIST", distance).replace("BW", bandwidth)
            .replace("AMP", f", amplifier: {amplifier}" if amplifier else ""))


def model(catalog, **kw):
    t = text(**kw)
    return build_model(scenario_from_text(t), load_text(t, "dci.yaml"), catalog, None)


def test_one_pluggable_amplifier_per_end(catalog):
    d = model(catalog).dci
    assert d.coherent.standard == "400zr" and d.amplified and d.inline_sites == 0
    assert (d.wavelengths, d.fibre_pairs) == (32, 1)              # 12.8 Tbit/s / 400G: 32 channels
    assert d.amplifier.id == "qdd-ols" and d.pluggable
    assert d.amplifiers == 2 and d.amplifiers_per_fibre_pair == 2   # Cisco: one per end (tool was 4)
    assert [d.site_amplifiers(s) for s in (1, 2)] == [1, 1]
    # Each takes a router port: 32 client + 32 line + 1 amplifier = 65 ports a site, past two
    # 32-port routers (the default router row), so three.
    assert [d.site_routers(s) for s in (1, 2)] == [3, 3]


def test_shelf_amplifiers_by_default(catalog):
    d = model(catalog, amplifier=None).dci
    assert d.amplifier.id == "ncs1001-edfa" and not d.pluggable
    assert d.amplifiers == 4 and [d.site_routers(s) for s in (1, 2)] == [2, 2]


def test_pluggable_stands_in_the_router_not_a_rack(catalog):
    m = model(catalog)
    assert m.placement.devices("amplifier") == 0
    assert m.placement.devices("mux") == 2
    assert m.placement.devices("router") == 6


def test_32_channels_a_fibre_pair(catalog):
    # Cisco: up to 32 channels with an external passive mux/demux; 25.6 Tbit/s (64 x 400ZR) takes two
    # fibre pairs and a QDD OLS at each end of each.
    d = model(catalog, bandwidth="25.6 Tbit/s").dci
    assert (d.wavelengths, d.channels, d.fibre_pairs, d.amplifiers) == (64, 32, 2, 4)


def test_more_than_one_span_is_refused(catalog):
    # Cisco: "over a single span point-to-point link"; 121 km takes OpenZR+ with an in-line hut.
    with pytest.raises(BomError) as e:
        model(catalog, distance="200 km")
    assert e.value.key == "sites.amplifier" and "in-line" in str(e.value)


def test_a_mux_is_not_an_amplifier(catalog):
    from bom.pipeline import build_scenario

    t = text(amplifier="ncs1k-md-64-c")
    with pytest.raises(BomError) as e:
        build_scenario(scenario_from_text(t), load_text(t, "dci.yaml"), catalog)
    assert e.value.key == "sites.amplifier" and "is a mux, not an amplifier" in str(e.value)


def test_check_clean_with_the_plan_equal_to_the_closed_form(catalog):
    """`bom check` on the reference case: no error rule broken, on the closed form and the plan
    (its tally checked against the closed form by complete.rows and ports.count)."""
    from pathlib import Path

    from bom.inputs.scenario import load_scenario
    from bom.model.checks import WARNING
    from bom.rules.run import check

    scenario, src = load_scenario(Path(__file__).with_name("dci_pluggable_ols.yaml"))
    m = build_model(scenario, src, catalog, None)
    assert m.dci.amplifiers == 2
    checks = check(m, catalog, plan=True)
    assert [r.id for r in checks.failed if r.severity != WARNING] == []
