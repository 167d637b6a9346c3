"""Scale-across: two sites 40 km and 600 km apart, counts derived from the DWDM rules."""

from __future__ import annotations

import pytest

from bom.inputs.scenario import scenario_from_text
from bom.inputs.yamlio import load_text
from bom.topology.build import build_model

BASE = """\
name: two-sites
platform: gb300-nvl72
gpus: 1152
sites: {count: 2, distance: "DIST", dci_bandwidth: "25.6 Tbit/s"}
"""


def model(catalog, distance):
    text = BASE.replace("DIST", distance)
    return build_model(scenario_from_text(text), load_text(text, "s.yaml"), catalog, None)


def test_40_km_is_unamplified_400zr(catalog):
    m = model(catalog, "40 km")
    d = m.dci
    # 25.6 Tbit/s / 400 Gbit/s = 64 wavelengths; a module at both ends: 128.
    assert (d.wavelengths, d.modules) == (64, 128)
    assert d.coherent.standard == "400zr"
    # 64 channels at 75 GHz fit one fibre pair; a mux/demux at each end of it.
    assert (d.channels, d.fibre_pairs, d.muxes) == (64, 1, 2)
    # 40 km is within 400ZR's unamplified 40 km: no amplifiers.
    assert d.amplifiers == 0 and d.dark_fibre_km == 40
    # Line + client port per wavelength at each site: 128 ports / 32 per router = 4 per site.
    assert d.routers == 8
    t = m.tiers()["scale-across"]
    assert (t["wavelengths"], t["coherent_modules"], t["fibre_pairs"]) == (64, 128, 1)
    # Each site's routers hand the 64 wavelengths to its fabric over 64 client links.
    assert t["client_links"] == 64 * 2
    assert t["links"] == 64 + 128 and t["modules"] == 128 + t["client_modules"]


def test_600_km_moves_to_zr_plus_with_amplifiers(catalog):
    d = model(catalog, "600 km").dci
    assert d.coherent.standard == "openzr+"           # past 400ZR's 120 km
    assert (d.wavelengths, d.modules, d.fibre_pairs) == (64, 128, 1)
    # 600 km in 80 km spans (the line amplifier's span; ZR+ has no single-span limit of its
    # own): 8 spans, 7 in-line amplifier huts on the route. Per fibre pair an EDFA each way at
    # every hut and a booster + pre-amplifier each way at the ends: 2 x (7 + 2) = 18.
    assert d.inline_sites == 7 and d.amplifier_sites == 7 and d.amplifiers == 18
    assert d.dark_fibre_km == 600


def test_fraction_of_scale_out_bandwidth(catalog):
    text = BASE.replace('"DIST", dci_bandwidth: "25.6 Tbit/s"', '"40 km", dci_fraction: 0.125')
    m = build_model(scenario_from_text(text), load_text(text, "s.yaml"), catalog, None)
    # 1,152 GPUs = 16 racks = 288 trays, 144 per site x 4 ports x 800G = 460.8 Tbit/s; 1/8 -> 57.6
    # Tbit/s = 144 wavelengths -> 3 fibre pairs of 64.
    assert m.dci.wavelengths == 144 and m.dci.fibre_pairs == 3


def test_past_every_coherent_part(bom, tmp_path):
    path = tmp_path / "far.yaml"
    path.write_text(BASE.replace("DIST", "3000 km"))
    r = bom("build", str(path))
    assert r.exit_code == 2 and f"{path}:4" in r.stderr and "1,200 km" in r.stderr


@pytest.mark.parametrize("bad,words", [
    ('sites: {count: 2, dci_bandwidth: "1 Tbit/s"}', ["sites.distance"]),
    ('sites: {count: 2, distance: "40 km"}', ["dci_bandwidth"]),
])
def test_incomplete_sites(bom, tmp_path, bad, words):
    path = tmp_path / "s.yaml"
    path.write_text(BASE.splitlines()[0] + "\nplatform: gb300-nvl72\ngpus: 1152\n" + bad + "\n")
    r = bom("build", str(path))
    assert r.exit_code == 2 and all(w in r.stderr for w in words)


def test_doctests_of_the_span_and_ratio_rules():
    import doctest

    import bom.catalog.media
    import bom.topology.dci
    import bom.topology.planes

    for module in (bom.topology.dci, bom.topology.planes, bom.catalog.media):
        result = doctest.testmod(module)
        assert result.failed == 0 and result.attempted > 0, module.__name__


TOPOLOGY = """\
name: campus
platform: gb300-nvl72
gpus: 4608
sites: {count: 4, topology: TOPO, distance: "40 km", dci_bandwidth: "25.6 Tbit/s"}
"""


@pytest.mark.parametrize("topology,pairs,degrees", [
    ("mesh", 6, (3, 3, 3, 3)), ("ring", 4, (2, 2, 2, 2)), ("hub", 3, (3, 1, 1, 1))])
def test_site_topologies(catalog, topology, pairs, degrees):
    text = TOPOLOGY.replace("TOPO", topology)
    m = build_model(scenario_from_text(text), load_text(text, "s.yaml"), catalog, None)
    d = m.dci
    assert (d.pairs, d.degrees, d.topology) == (pairs, degrees, topology)
    # 64 wavelengths per cabled pair; a coherent module at both ends of each.
    assert (d.wavelengths, d.modules, d.fibre_pairs) == (64 * pairs, 128 * pairs, pairs)
    # Each site: line + client port of every wavelength that ends there, 32 ports per router.
    assert d.routers == sum(-(-2 * 64 * k // 32) for k in degrees)
    # The routers' client links: 64 per cabled pair at each end.
    assert m.tiers()["scale-across"]["client_links"] == 64 * sum(degrees)
    assert m.to_json()["tiers"]["scale-across"]["pairs"] == [list(p) for p in d.site_pairs]


def test_mesh_is_the_default(catalog):
    text = TOPOLOGY.replace("topology: TOPO, ", "")
    m = build_model(scenario_from_text(text), load_text(text, "s.yaml"), catalog, None)
    assert m.dci.topology == "mesh" and m.dci.pairs == 6
