"""Where the DCI routers' client ports land (``sites.attach``, bom/pipeline/model.py ``_attach``;
the patterns in bom/links/dci.py): both ends of a client link speak the routers' protocol (Ethernet)
at the wavelength's rate. An Ethernet compute fabric takes them on its top layer's free cages; an
InfiniBand compute fabric reaches another building through Ethernet, on border leaves of the
Ethernet in-band fabric (else of an Ethernet storage fabric), else on border leaves of the DCI's own
(catalogs/defaults.yaml's DCI border leaf), said in the warnings, priced and cabled."""

from __future__ import annotations

import re

import pytest

from bom.cableplan import rows as plan
from bom.inputs.scenario import scenario_from_text
from bom.inputs.yamlio import load_text
from bom.pipeline.model import build_model
from tests.cableplan.test_rows import check_closed_form
from tests.rules.test_severity import FINDINGS

C = plan.COL
#: The issue's case: the default scenario at 1,152 GPUs (Q3400 InfiniBand compute, SN5600 storage
#: and in-band), two sites 40 km apart, 25.6 Tbit/s (64 wavelengths) per site pair.
ISSUE = """\
name: gb300-1152-two-sites
platform: gb300-nvl72
gpus: 1152
fabrics:
  compute: {switch: q3400}
  storage: {switch: sn5600}
  inband: {switch: sn5600}
  oob: {switch: sn2201}
sites: {count: 2, distance: "40 km", dci_bandwidth: "25.6 Tbit/s"}
"""


def _model(text, catalog):
    return build_model(scenario_from_text(text), load_text(text, "s.yaml"), catalog, None)


def _protocol(catalog, row):
    """The protocol of the switch a plan row's far end (a router or a fabric switch) is."""
    if row[C["b_role"]] == "router":
        return "ethernet"
    return catalog.get("switches", row[C["b_role"]]).protocol


def test_an_infiniband_compute_fabric_reaches_the_other_site_through_the_in_band_fabric(catalog):
    """The 1,152-GPU case: its 64 client links a site went to 32 spine cages of the Q3400s that were
    not there (the build refused, and on main before that wrote a BOM the plan refused). They now
    land on a border leaf of its own in the SN5600 in-band fabric, uplinked to its spines."""
    m = _model(ISSUE, catalog)
    d = m.dci
    assert d.attach == "inband" and d.to_json()["client_fabric"] == "inband"
    inband = m.fabrics["inband"]
    # 64 client links at 400G on SN5600 (2 x 400G a cage) are 32 cages, one leaf group of their own
    # in each site: one border leaf a site.
    assert [ps.border_groups for ps in inband.pooled] == [1] and inband.border_leaves == 2
    assert inband.to_json()["border_leaves"] == 2
    # Counted once, on the DCI (hop fabric-dci): 64 links a site, a QSFP-DD module at the router and a
    # twin-port OSFP at the leaf (64 / 2 = 32 a site), from the lookup at 400G over the run: 400G DR4
    # since the catalog has a QSFP-DD DR4 (parallel single-mode comes before duplex FR4 on the ladder).
    (g,) = m.dci_groups
    assert (g.fabric, g.hop, g.lower, g.upper, g.links, g.rate_gbps) == ("dci", "fabric-dci", "router", "leaf",
                                                                         128, 400.0)
    assert (g.lower_end.part.part_number, g.modules_lower, g.upper_end.part.part_number, g.modules_upper) == (
        "QDD-400G-DR4-S", 128, "MMS4X00-NS", 64)
    assert inband.hop_links("fabric-dci") == 0   # not counted twice
    # Both ends Ethernet: the router and the in-band leaf; none on an InfiniBand port.
    rows = check_closed_form(m, catalog)
    client = [r for r in rows if r[C["hop"]] == "fabric-dci"]
    assert len(client) == 128
    assert {r[C["b_role"]] for r in client} == {"inband-leaf"}
    leaves = {r[C["b_device"]] for r in client}
    assert len(leaves) == 2
    for leaf in leaves:
        assert catalog.get("switches", "sn5600").protocol == "ethernet"
        # The border leaf carries the client links and its uplinks only (no node, no endpoint; its
        # management port is on the OOB fabric).
        hops = {r[C["hop"]] for r in rows if leaf in (r[C["a_device"]], r[C["b_device"]]) and r[C["fabric"]] != "oob"}
        assert hops == {"fabric-dci", "leaf-spine"}, hops


def test_the_issue_case_builds_and_cables(bom, tmp_path):
    path = tmp_path / "issue.yaml"
    path.write_text(ISSUE)
    for command in ("build", "cables"):
        r = bom(command, str(path), "-o", str(tmp_path / command), "--quiet")
        assert r.exit_code == 0, r.output


def test_without_an_in_band_fabric_an_ethernet_storage_fabric_takes_them(catalog):
    m = _model(ISSUE.replace("  inband: {switch: sn5600}\n", ""), catalog)
    assert m.dci.attach == "storage" and m.fabrics["storage"].border_leaves == 2
    check_closed_form(m, catalog)


def test_an_ethernet_compute_fabric_keeps_them_on_its_top_layer(catalog):
    """SN5600 compute (DGX B200): the client links on its spines' free cages, two 400G links to an 800G
    cage (the spine at the wavelength's rate), as before the rule; the in-band fabric is not touched."""
    text = ("name: eth\nplatform: dgx-b200\nnodes: 64\nfabrics: {compute: {switch: sn5600, oversubscription: 1.25}, "
            'inband: {switch: sn5600}}\nsites: {count: 2, distance: "10 km", dci_bandwidth: "3.2 Tbit/s"}\n')
    m = _model(text, catalog)
    assert m.dci.attach == "compute"
    assert [(ps.border_units, ps.border_groups) for ps in m.fabrics["inband"].pooled] == [(0, 0)]
    (g,) = m.dci_groups
    assert (g.upper, g.links, g.upper_end.ports, g.modules_upper) == ("spine", 16, 2, 8)
    rows = check_closed_form(m, catalog)
    ports = [r[C["b_port"]] for r in rows if r[C["hop"]] == "fabric-dci"]
    assert len(ports) == 16 and all("/" in p for p in ports)   # 400G breakout ports of 800G cages


def test_attach_can_be_chosen(catalog):
    # An Ethernet compute fabric (SN5600), but the client ports asked on the in-band fabric's border
    # leaves: 8 links a site at 400G, 4 twin-port cages of an SN5600 leaf, one border leaf a site.
    text = ("name: eth\nplatform: dgx-b200\nnodes: 256\n"
            "fabrics: {compute: {switch: sn5600}, inband: {switch: sn5600}}\n"
            'sites: {count: 2, distance: "10 km", dci_bandwidth: "3.2 Tbit/s", attach: inband}\n')
    m = _model(text, catalog)
    assert m.dci.attach == "inband"
    assert [(ps.border_units, ps.border_groups) for ps in m.fabrics["inband"].pooled] == [(8, 1)]
    assert {g.upper for g in m.dci_groups} == {"leaf"}
    check_closed_form(m, catalog)


def test_a_hub_sizes_each_shapes_border_leaves_for_its_busiest_site(catalog):
    """Four equal sites on a hub: site 1 ends three pairs (192 client links), the others one (64).
    The border leaves of the one site shape are sized for 192 (each site gets them); each site's
    links are counted as they are, and the plan agrees."""
    text = ("name: hub\nplatform: gb300-nvl72\ngpus: 4608\nfabrics: {compute: {}, inband: {switch: sn5600}}\n"
            'sites: {count: 4, topology: hub, distance: "40 km", dci_bandwidth: "25.6 Tbit/s"}\n')
    m = _model(text, catalog)
    (ps,) = m.fabrics["inband"].pooled
    # 192 links at 400G: 96 twin-port cages, which the in-band fabric (the trays' 200G BlueField-3 ports
    # since issue 42, 4 a cage) counts as 384 of its 200G ports; leaf groups take them in 3 groups.
    assert (ps.border_units, ps.border_groups) == (384, 3)
    assert sum(g.links for g in m.dci_groups) == 192 + 3 * 64
    check_closed_form(m, catalog)


def test_a_one_leaf_in_band_fabric_takes_them_on_its_leaf(catalog):
    text = ("name: pod\nplatform: gb300-nvl72\nnodes: 36\nfabrics: {compute: {switch: q3400}, inband: {}}\n"
            'sites: {count: 2, distance: "40 km", dci_bandwidth: "1.6 Tbit/s"}\n')
    m = _model(text, catalog)
    f = m.fabrics["inband"]
    assert f.first.layers == 1 and f.border_leaves == 0 and m.dci.attach == "inband"
    rows = check_closed_form(m, catalog)
    assert {r[C["b_role"]] for r in rows if r[C["hop"]] == "fabric-dci"} == {"inband-leaf"}


#: The issue's two-site DGX H100 cluster on the RA's own QM9700 InfiniBand fabric and nothing else.
DGX_H100_QM9700 = """\
name: dgx-h100-qm9700-two-sites
platform: dgx-h100
nodes: 64
fabrics: {compute: {switch: qm9700}}
sites: {count: 2, distance: "40 km", dci_bandwidth: "12.8 Tbit/s"}
"""
#: The two-site GB300 scenario with no fabric but the (InfiniBand Q3400) compute fabric.
GB300_ALONE = """\
name: gb300-two-sites
platform: gb300-nvl72
gpus: 1152
sites: {count: 2, distance: "40 km", dci_bandwidth: "25.6 Tbit/s"}
"""


def _own_border(m, catalog, links_a_site: int):
    """What every build with the DCI's own border leaves has: the catalog's default border switch, as
    many a site as half its ports at 400G take, the client links on them in the site's own racks (the
    closed form and the plan agree), a BOM line at the row's price and power, and the warning."""
    from bom.costing.lines import all_lines

    row = catalog.get("switches", catalog.default("dci", "leaf"))
    assert row.id == "sn5600" and row.protocol == "ethernet"
    d = m.dci
    assert d.attach == "dci" and d.border.switch is row and d.to_json()["client_fabric"] == "dci"
    # SN5600 at 400G: 128 ports in 64 twin-port cages; half the cages (32) take client links: 64 a leaf.
    per_leaf = 64 // 2 * (128 // 64)
    assert d.border.per_leaf == per_leaf
    leaves = -(-links_a_site // per_leaf)
    assert [d.site_border_leaves(s) for s in (1, 2)] == [leaves, leaves] and d.border_leaves == 2 * leaves
    assert m.to_json()["fabrics"]["dci"]["border_switch"] == "sn5600"
    assert m.to_json()["fabrics"]["dci"]["border_leaves"] == 2 * leaves
    # Priced: one line of the DCI's leaves at the catalog row's price and typical power.
    (line,) = [x for x in all_lines(m, catalog) if x.fabric == "dci" and x.hop == "leaf"]
    assert (line.catalog_id, line.quantity, line.unit_price_usd, line.unit_power_w, line.category) == (
        "sn5600", 2 * leaves, row.price_usd, 940.0, "DCI switch")
    assert line.price_usd == 2 * leaves * 55_000   # catalogs/switches.yaml sn5600 price_usd
    # Cabled: every client link a router port to a border leaf port, counted once on the DCI.
    (g,) = m.dci_groups
    assert (g.hop, g.lower, g.upper, g.links, g.rate_gbps) == ("fabric-dci", "router", "leaf", 2 * links_a_site, 400.0)
    rows = check_closed_form(m, catalog)
    client = [r for r in rows if r[C["hop"]] == "fabric-dci"]
    assert len(client) == 2 * links_a_site and {r[C["b_role"]] for r in client} == {"dci-leaf"}
    assert {r[C["bucket"]] for r in client} == {"in-rack"}   # the leaves stand with the routers
    assert len({r[C["b_device"]] for r in client}) == 2 * leaves
    # Said: the build's warning names the switch, the count and why.
    (note,) = [w for w in m.warnings if "border leaves of its own" in w]
    assert f"{2 * leaves} x sn5600" in note and "InfiniBand" in note and "not in the BOM" in note
    return g


def test_two_site_dgx_h100_on_qm9700_builds_with_border_leaves_of_its_own(catalog):
    """The issue's case: refused before (no Ethernet fabric), and its hint (an SN5600 in-band fabric)
    refused again (the management servers' 100G QSFP28 ports). 12.8 Tbit/s is 32 wavelengths of 400G a
    site pair: 32 client links a site on one SN5600 a site."""
    m = _model(DGX_H100_QM9700, catalog)
    g = _own_border(m, catalog, 32)
    # A QSFP-DD 400G DR4 at the router, a twin-port OSFP 2xDR4 at the leaf (two links a module).
    assert (g.lower_end.part.part_number, g.modules_lower, g.upper_end.part.part_number, g.modules_upper) == (
        "QDD-400G-DR4-S", 64, "MMS4X00-NS", 32)
    assert "compute: qm9700 is InfiniBand" in m.dci.border.why


def test_two_site_gb300_with_no_other_fabric_builds_with_border_leaves_of_its_own(catalog):
    """64 wavelengths a site pair: 64 client links a site, one SN5600 a site (32 of its cages)."""
    m = _model(GB300_ALONE, catalog)
    assert list(m.fabrics) == ["compute"] and m.fabrics["compute"].first.leaf.id == "q3400"
    g = _own_border(m, catalog, 64)
    assert (g.modules_lower, g.modules_upper) == (128, 64)


@pytest.mark.slow   # a build and a check with every writer: 1.5 to 1.7 s, too near the fast loop's 2 s
@pytest.mark.parametrize("text,platform", [(DGX_H100_QM9700, "dgx-h100"), (GB300_ALONE, "gb300-nvl72")],
                         ids=["dgx-h100-qm9700", "gb300"])
def test_they_build_and_check_clean(bom, tmp_path, text, platform):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    r = bom("build", str(path), "-o", str(tmp_path / "out"), "--quiet")
    assert r.exit_code == 0, r.output
    assert "border leaves of its own" in r.stderr
    r = bom("check", str(path))
    # Clean but for the platform's findings (tests/rules/test_severity.py: GB300 NVL72's draw past one feed).
    warned = {(platform, rule) for rule in re.findall(r"^(\S+) \[warning\]", r.output, re.M)}
    assert r.exit_code == 0 and "no error" in r.output and warned <= FINDINGS, r.output


#: Fabrics that cannot take the routers' client links build with the DCI's own border leaves too.
OWN = [
    ("no-ethernet", ISSUE.replace("  storage: {switch: sn5600}\n  inband: {switch: sn5600}\n", ""),
     "compute: q3400 is InfiniBand"),
    ("ib-storage", ISSUE.replace("  inband: {switch: sn5600}\n", "").replace("storage: {switch: sn5600}",
                                                                            "storage: {switch: qm9700}"),
     "storage: qm9700 is InfiniBand"),
    # An Ethernet in-band fabric without 400G ports (DGX H100's SN4600C at 100G), and no other.
    ("no-400g", "name: h\nplatform: dgx-h100\nnodes: 64\nfabrics: {compute: {}, inband: {}}\n"
                'sites: {count: 2, distance: "40 km", dci_bandwidth: "1.6 Tbit/s"}\n',
     "inband: sn4600c has no 400 Gbit/s ports"),
]


@pytest.mark.parametrize("case,text,why", OWN, ids=[c[0] for c in OWN])
def test_no_fabric_for_them_gives_border_leaves_of_its_own(catalog, case, text, why):
    m = _model(text, catalog)
    assert m.dci.attach == "dci" and why in m.dci.border.why and m.dci.border_leaves == 2
    check_closed_form(m, catalog)


REFUSED = [
    # Asked explicitly on the InfiniBand compute fabric: refused, with attach: auto as the way out.
    ("attach-compute", ISSUE.replace('25.6 Tbit/s"}', '25.6 Tbit/s", attach: compute}'), 9,
     ["sites.attach", "attach: compute", "q3400 is InfiniBand", "one protocol at one rate", "Use attach: auto"]),
    # On a fabric the scenario does not build (the scenario's own rule, before any build).
    ("attach-absent", ISSUE.replace("  inband: {switch: sn5600}\n", "").replace('25.6 Tbit/s"}',
                                                                              '25.6 Tbit/s", attach: inband}'), 8,
     ["sites.attach", "does not build", "Use attach: auto", "add fabrics.inband"]),
]


@pytest.mark.parametrize("case,text,line,words", REFUSED, ids=[c[0] for c in REFUSED])
def test_refused_with_the_key_and_what_to_add(bom, tmp_path, case, text, line, words):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    for command in ("build", "cables"):
        r = bom(command, str(path), "-o", str(tmp_path / command))
        assert r.exit_code == 2, r.output
        assert f"{path}:{line}" in r.stderr, r.stderr
        for w in words:
            assert w in r.stderr, (w, r.stderr)
        assert not (tmp_path / command).exists()
