"""Scale-across: two sites 40 km and 600 km apart, counts derived from the DWDM rules."""

from __future__ import annotations

import pytest

from bom.inputs.scenario import scenario_from_text
from bom.inputs.yamlio import load_text
from bom.pipeline.model import build_model

# The compute fabric is InfiniBand (Q3400), so the routers' Ethernet client ports land on border leaves
# of the Ethernet in-band fabric (sites.attach: auto; test_dci_attach.py). These tests ran the compute
# fabric at 4:1 to leave spine cages for them, an Ethernet end on an InfiniBand port.
BASE = """\
name: two-sites
platform: gb300-nvl72
gpus: 1152
sites: {count: 2, distance: "DIST", dci_bandwidth: "25.6 Tbit/s"}
fabrics: {compute: {}, inband: {switch: sn5600}}
"""


def model(catalog, distance, amplifier=None):
    text = BASE.replace("DIST", distance)
    if amplifier:
        text = text.replace('dci_bandwidth: "25.6 Tbit/s"', f'dci_bandwidth: "12.8 Tbit/s", amplifier: {amplifier}')
    return build_model(scenario_from_text(text), load_text(text, "s.yaml"), catalog, None)


def test_40_km_of_400zr_through_a_mux_is_amplified(catalog):
    m = model(catalog, "40 km")
    d = m.dci
    # 25.6 Tbit/s / 400 Gbit/s = 64 wavelengths; a module at both ends: 128.
    assert (d.wavelengths, d.modules) == (64, 128)
    assert d.coherent.standard == "400zr"
    # 64 channels at 75 GHz fit one fibre pair; a mux/demux at each end of it.
    assert (d.channels, d.fibre_pairs, d.muxes) == (64, 1, 2)
    # 40 km is within 400ZR's unamplified reach, but not its 11 dB unamplified loss budget (the line's
    # loss rule, bom/topology/dci.py line_loss; this test said 0 amplifiers before the rule): fibre
    # 40 km x 0.25 dB/km = 10 dB, the mux and the demux 6 + 6 = 12 dB, 6 mated pairs x 0.25 dB
    # (each module's own, each end's mux channel and line port) = 1.5 dB: 23.5 dB > 11 dB. So a
    # booster and a pre-amplifier each way on the one fibre pair: 4 EDFAs, no in-line hut.
    assert not d.choice.amplified and d.amplified
    assert (d.loss.fibre_db, d.loss.mux_db, d.loss.mated_pairs, d.loss.total_db) == (10, 12, 6, 23.5)
    assert d.loss.budget_db == 11 and d.loss.over
    assert (d.amplifiers_per_fibre_pair, d.amplifiers, d.amplifier_sites) == (4, 4, 0) and d.dark_fibre_km == 40
    assert m.to_json()["tiers"]["scale-across"]["line_loss"]["loss_db"] == 23.5
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
    text = BASE.replace('"DIST", dci_bandwidth: "25.6 Tbit/s"', '"40 km", dci_fraction: 0.0625')
    m = build_model(scenario_from_text(text), load_text(text, "s.yaml"), catalog, None)
    # 1,152 GPUs = 16 racks = 288 trays, 144 per site x 4 ports x 800G = 460.8 Tbit/s; 1/16 -> 28.8
    # Tbit/s = 72 wavelengths -> 2 fibre pairs of 64 channels.
    assert m.dci.wavelengths == 72 and m.dci.fibre_pairs == 2


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
    import bom.inputs.validation
    import bom.model.dci
    import bom.model.plane

    # The span and amplifier rules live with the DCI's type, the ratio with the scenario's parsers.
    for module in (bom.model.dci, bom.model.plane, bom.inputs.validation, bom.catalog.media):
        result = doctest.testmod(module)
        assert result.failed == 0 and result.attempted > 0, module.__name__


# The routers' client links on border leaves of the Ethernet in-band fabric (the compute fabric is
# InfiniBand); a hub's site 1 brings three times the others' (its shape's border leaves are sized for it).
TOPOLOGY = """\
name: campus
platform: gb300-nvl72
gpus: 4608
fabrics: {compute: {}, inband: {switch: sn5600}}
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


# An Ethernet compute fabric (SN5600, the HGX H100 default) takes the routers' client links on its top
# layer's free cages. (This case was DGX H100 on QM9700 InfiniBand, now refused for its protocol.)
FULL_SPINES = """\
name: full-spines
platform: hgx-h100
nodes: 256
sites: {count: 2, distance: "10 km", dci_bandwidth: "3.2 Tbit/s"}
"""


def test_client_links_need_free_cages_on_the_top_layer(bom, tmp_path):
    """At 1:1 every spine port of 128 HGX H100 per site holds a leaf link, so the routers' 8 client
    links per site (4 twin-port 400G modules, 4 of the 800G spines' cages) have nowhere to land: the
    build refuses it (the cable plan already did, and the build wrote a BOM of links that could not
    be cabled), at the line of dci_bandwidth."""
    path = tmp_path / "full.yaml"
    path.write_text(FULL_SPINES)
    for command in ("build", "cables"):
        r = bom(command, str(path), "-o", str(tmp_path / command))
        assert r.exit_code == 2, r.stdout
        assert f"{path}:4" in r.stderr and "need 4 free cages" in r.stderr and "have 0" in r.stderr


def test_line_ports_are_patched_to_their_mux_channels_with_bought_cords(catalog):
    """Each wavelength's coherent module is patched to its mux/demux channel at both ends: an OS2 LC
    duplex cord the BOM buys (its plan row names the part), one per wavelength end."""
    from bom.cableplan import rows as plan
    from bom.costing.categories import Category
    from bom.costing.lines import dci_lines

    m = model(catalog, "40 km")
    d = m.dci
    assert d.patch_cords == 2 * d.wavelengths == 128
    assert d.patch is not None and d.patch.row.fibre == "os2" and d.patch.row.connector == "lc-duplex"
    assert d.patch.length_m >= m.floor.in_rack_m
    cords = [x for x in dci_lines(d, catalog) if x.category == Category.PATCH_CORD]
    # and the same cord from each of the 2 terminal amplifiers at both ends of the 1 amplified fibre pair
    assert d.amplified and d.fibre_pairs == 1 and d.amplifier_patch_cords == 4
    assert [(x.sku, x.hop, x.quantity) for x in cords] == [(d.patch.part_number, "site-site", 128),
                                                           (d.patch.part_number, "mux-amplifier", 4)]
    c = plan.COL
    rows = [r for r in plan.rows(m, catalog=catalog) if r[c["hop"]] == "site-site" and r[c["b_role"]] == "mux"]
    assert len(rows) == 128 and {r[c["cable_part"]] for r in rows} == {d.patch.part_number}
    assert plan.check(m, plan.tally(plan.rows(m, catalog=catalog))) == []


def test_no_mux_no_patch_cord(catalog):
    """Without a mux/demux (a wavelength on its own fibre pair) the line port takes the dark fibre."""
    from bom.links.line import DCI_LINE

    assert DCI_LINE.patch_cords(64, None) == 0 and DCI_LINE.patch_cords(64, object()) == 128


def test_the_line_loss_rule(catalog):
    """One wavelength's unamplified loss: fibre (0.25 dB/km with splices) + the mux and demux passes +
    every mated pair, held to the module's unamplified budget (400ZR: 11 dB)."""
    from bom.topology.dci import line_loss

    zr, mux = catalog.get("coherent", "qdd-400g-zr-s"), catalog.get("dwdm", "ncs1k-md-64-c")
    # Without a mux/demux, 30 km: 7.5 dB of fibre + the modules' 2 mated pairs x 0.25 = 8 dB <= 11: no amplifier.
    alone = line_loss(zr, None, 30_000, 0.25)
    assert (alone.total_db, alone.mated_pairs, alone.over) == (8.0, 2, False)
    # 2 km through the 64-channel mux/demux: 0.5 + 12 + 6 x 0.25 = 14 dB > 11: the mux alone passes the budget.
    short = line_loss(zr, mux, 2_000, 0.25)
    assert (short.total_db, short.over) == (14.0, True)
    assert "> the module's unamplified budget 11 dB" in short.why()
    # A module with no budget in the catalog: its reach alone decides (never over).
    zrp = catalog.get("coherent", "qdd-400g-zrp-s")
    assert line_loss(zrp, mux, 2_000, 0.25).over is False


def test_amplifiers_show_in_the_bom_and_the_plan(catalog):
    """The terminal EDFAs the loss rule adds are BOM lines and the fibre pair's plan row names them."""
    from bom.cableplan import rows as plan
    from bom.costing.categories import Category
    from bom.costing.lines import dci_lines

    m = model(catalog, "40 km")
    amps = [x for x in dci_lines(m.dci, catalog) if x.category == Category.DWDM and x.catalog_id == "ncs1001-edfa"]
    assert [x.quantity for x in amps] == [4]
    c = plan.COL
    pairs = [r for r in plan.rows(m, catalog=catalog) if r[c["hop"]] == "fibre-pair"]
    assert [r[c["via"]] for r in pairs] == ["0 in-line amplifier sites, 2 x NCS1001 + NCS1K-EDFA per pair"]


def test_the_default_line_counts_its_amplifiers(default_report, catalog):
    """The built-in default: 64 wavelengths of 400ZR over 40 km through a 64-channel mux/demux. It
    counted no amplifier (40 km is 400ZR's unamplified reach). Its loss without amplifiers: fibre
    40 km x 0.25 dB/km = 10.0 dB, mux 6 dB + demux 6 dB = 12.0 dB, 6 mated pairs x 0.25 dB (LC
    grade B) = 1.5 dB; 23.5 dB > 11 dB (400ZR unamplified): a booster and a pre-amplifier each way on
    its one fibre pair, 4 EDFAs, no in-line hut."""
    from bom.costing.categories import Category

    m = default_report.model
    j = m.to_json()["tiers"]["scale-across"]
    assert j["line_loss"] == {"fibre_db": 10.0, "mux_demux_db": 12.0, "mated_pairs": 6, "connectors_db": 1.5,
                              "loss_db": 23.5, "budget_db": 11.0, "over_budget": True,
                              "why": m.dci.loss.why()}
    assert (j["amplified"], j["amplifiers"], j["amplifiers_per_fibre_pair"], j["inline_amplifier_sites"]) == (
        True, 4, 4, 0)
    edfa = [x for x in default_report.lines if x.category == Category.DWDM and x.catalog_id == "ncs1001-edfa"]
    assert sum(x.quantity for x in edfa if x.fabric == "dci") == 4


def test_terminal_amplifiers_are_patched_to_their_mux_line_port(catalog):
    """A 120 km route is amplified: at both ends of each fibre pair a booster (the mux/demux's transmit
    fibre, line/1) and a pre-amplifier (its receive fibre, line/2), rack-mounted beside the mux/demux,
    each patched to it with the line's own OS2 LC cord: plan rows of hop mux-amplifier, one per
    amplifier the placement stands, as many as the BOM buys and the JSON counts."""
    from bom.cableplan import rows as plan
    from bom.costing.lines import dci_lines

    m = model(catalog, "120 km")
    d = m.dci
    assert d.amplified and not d.pluggable and d.mux is not None
    c = plan.COL
    all_rows = list(plan.rows(m, catalog=catalog))
    cords = [r for r in all_rows if r[c["hop"]] == "mux-amplifier"]
    terminal = sum(d.site_amplifiers(s) for s in range(1, d.sites + 1))
    assert len(cords) == d.amplifier_patch_cords == terminal == 2 * 2 * d.fibre_pairs > 0
    assert {(r[c["a_role"]], r[c["b_role"]]) for r in cords} == {("mux", "amplifier")}
    assert {r[c["a_port"]] for r in cords} == {"line/1", "line/2"} and {r[c["b_port"]] for r in cords} == {"p1"}
    # every amplifier in the racks has its cord, once
    amps = {r[c["b_device"]] for r in cords}
    placed = {s.device for r in m.placement.racks() for s in m.placement.elevation(r) if s.role == "amplifier"}
    assert amps == placed and len(amps) == len(cords)
    assert {r[c["cable_part"]] for r in cords} == {d.patch.part_number}
    assert all(r[c["length_m"]] <= r[c["sold_length_m"]] for r in cords)
    line = [x for x in dci_lines(d, catalog) if x.hop == "mux-amplifier"]
    assert [x.quantity for x in line] == [d.amplifier_patch_cords]
    assert m.dci.to_json()["amplifier_patch_cords"] == len(cords)
    assert plan.check(m, plan.tally(all_rows)) == []


def test_a_pluggable_line_system_needs_no_cord(catalog):
    """Cisco's QDD OLS plugs into a router port: no rack amplifier, no cord."""
    m = model(catalog, "120 km", amplifier="qdd-ols")
    assert m.dci.pluggable and m.dci.amplifier_patch_cords == 0
