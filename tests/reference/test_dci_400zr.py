"""400ZR data-centre interconnect at 80 km and 120 km, against the published design limits.

OIF-400ZR-01.0, Implementation Agreement 400ZR (OIF, 10 March 2020), Introduction and
application reference models: 400ZR is specified for amplified, point-to-point DWDM links
of up to 120 km (80 to 120 km), a single span with amplification at its ends and none in
line, on a 75 GHz grid (64 channels in the C band, 25.6 Tb/s per fibre pair at 400G), and
for unamplified single-wavelength links. Cisco's 400ZR optic (QDD-400G-ZR-S, optics table):
"requires EDFA for links in excess of 40km", "80 km+ (120 km max)". The terminal EDFAs of a
bookended point-to-point span are one per direction at each end (Juniper BTI7800, 96-Channel
Amplifier AMP1: "two erbium-doped optical amplifiers ... bidirectional amplification ...
single span point-to-point applications").

So at 80 km and at 120 km: 400ZR, one span, no in-line amplifier hut; a fibre pair takes a
booster and a pre-amplifier in each direction, 4 EDFAs; 25.6 Tb/s is 64 wavelengths on one
fibre pair with a 64-channel 75 GHz mux/demux at each end. Past 120 km 400ZR does not reach
and the route moves to OpenZR+ with in-line huts every 80 km.
"""

from __future__ import annotations

import pytest

from bom.inputs.scenario import scenario_from_text
from bom.inputs.yamlio import load_text
from bom.pipeline.model import build_model

BASE = """\
name: dci
platform: gb300-nvl72
gpus: 2304
sites: {count: SITES, distance: "DIST", dci_bandwidth: "25.6 Tbit/s"}
fabrics: {compute: {}, inband: {switch: sn5600}}   # the routers' client ports on Ethernet border leaves
"""


def dci(catalog, distance: str, sites: int = 2):
    text = BASE.replace("DIST", distance).replace("SITES", str(sites))
    return build_model(scenario_from_text(text), load_text(text, "dci.yaml"), catalog, None).dci


@pytest.mark.parametrize("km", [80, 120])
def test_400zr_single_span(catalog, km):
    d = dci(catalog, f"{km} km")
    assert d.coherent.standard == "400zr" and d.coherent.part_number == "QDD-400G-ZR-S"
    assert (d.wavelengths, d.modules, d.channels, d.fibre_pairs, d.muxes) == (64, 128, 64, 1, 2)
    assert d.choice.amplified                        # past the 40 km unamplified reach
    assert d.inline_sites == 0 and d.amplifier_sites == 0
    assert d.amplifiers_per_fibre_pair == 4 and d.amplifiers == 4
    j = d.to_json()
    assert (j["inline_amplifier_sites"], j["amplifiers"], j["dark_fibre_km"]) == (0, 4, km)


def test_past_120_km_takes_zr_plus_and_a_hut(catalog):
    d = dci(catalog, "121 km")
    assert d.coherent.standard == "openzr+"
    # 121 km in 80 km spans: 2 spans, 1 hut; per fibre pair 2 x (1 + 2) = 6 EDFAs.
    assert (d.inline_sites, d.amplifier_sites, d.amplifiers) == (1, 1, 6)


def test_huts_are_per_route_amplifiers_per_fibre_pair(catalog):
    # Three sites 200 km apart, 51.2 Tb/s per site pair: 3 routes (a full mesh), 2 fibre pairs
    # each. 200 km in 80 km spans: 3 spans, 2 huts per route, 6 huts in all (each hut serves both
    # fibre pairs of its route); EDFAs per fibre pair 2 x (2 + 2) = 8, 6 fibre pairs -> 48.
    text = BASE.replace("DIST", "200 km").replace("SITES", "3").replace("25.6 Tbit/s", "51.2 Tbit/s").replace(
        "gpus: 2304", "gpus: 6912")
    d = build_model(scenario_from_text(text), load_text(text, "dci.yaml"), catalog, None).dci
    assert (d.routes, d.fibre_pairs, d.inline_sites, d.amplifier_sites) == (3, 6, 2, 6)
    assert d.amplifiers == 6 * 8

