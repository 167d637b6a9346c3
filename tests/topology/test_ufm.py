"""bom/topology/ufm.py, bom/links/ufm.py: the UFM appliances' ports on the compute fabric's spare leaf downlinks."""

from __future__ import annotations

from pathlib import Path

import pytest

from bom.errors import LimitError
from bom.links.ufm import place_ports
from tests.topology.test_build import build

H100 = "name: u\nplatform: dgx-h100\nfabrics: {compute: {switch: qm9700, su_nodes: 32}}\n"


def test_half_used_cages_first_one_port_per_leaf():
    # 8 leaves with 31 of 32 ports used (a half-used twin cage each) take 4 ports and no new module.
    assert place_ports([(8, 31)], 32, 2, 4) == (4, 0)
    # Leaves with an even number used open a cage per port; the odd ones are used first.
    assert place_ports([(8, 30), (2, 31)], 32, 2, 4) == (4, 2)
    # Full leaves have no room.
    assert place_ports([(32, 32)], 32, 2, 1) is None
    # More ports than leaves with room: a second port on the same leaves (into the cage the first opened).
    assert place_ports([(2, 30)], 32, 2, 3) == (2, 2)


def test_explicit_ufm_count_without_room_is_an_error(catalog):
    text = H100 + "nodes: 128\nmanagement: {ufm_count: 2}\n"
    with pytest.raises(LimitError) as exc:
        build(catalog, text)
    assert exc.value.key == "management.ufm_count"
    assert "one node fewer" in exc.value.hint


def test_ufm_count_zero_connects_nothing(catalog):
    f = build(catalog, H100 + "nodes: 127\nmanagement: {ufm_count: 0}\n").fabrics["compute"]
    assert f.hop_links("ufm-leaf") == 0 and f.ufm is None


def test_ethernet_compute_has_no_ufm(catalog):
    text = "name: e\nplatform: dgx-h100\nnodes: 31\nfabrics: {compute: {switch: sn5600}}\n"
    f = build(catalog, text).fabrics["compute"]
    assert f.hop_links("ufm-leaf") == 0


def test_cli_exit_2_names_the_key(bom, tmp_path: Path):
    p = tmp_path / "s.yaml"
    p.write_text(H100 + "nodes: 128\nmanagement: {ufm_count: 2}\n")
    r = bom("build", str(p), "--json")
    assert r.exit_code == 2 and "management.ufm_count" in r.output


def test_each_site_places_its_own_ufm_ports(catalog):
    # Two buildings of 31 DGX H100 each: each site's 4 UFM ports take its own SU's spare ports.
    # The routers' Ethernet client ports on border leaves of an Ethernet storage fabric (the compute
    # fabric is InfiniBand, and the DGX H100's in-band SN4600C has no 400G ports; the compute fabric ran
    # at 3:2 to leave its spine cages to them before).
    text = H100.replace("fabrics: {compute: {", "fabrics: {storage: {switch: sn5600}, compute: {") + (
        "nodes: 62\nsites: {count: 2, distance: \"40 km\", dci_bandwidth: \"1.6 Tbit/s\"}\n")
    f = build(catalog, text).fabrics["compute"]
    assert f.hop_links("ufm-leaf") == 2 * 4 and f.ufm.leaves == 2 * 4 and f.ufm.leaf_modules == 0


# --- issue 42: every UFM bought is on the fabric it manages ------------------------------------

def test_the_default_s_ufm_appliances_are_on_the_compute_spines(default_report):
    # GB300 NVL72 on Q3400, 2,304 GPUs a site: the trays fill all 32 leaves' 72 downlinks, the 18
    # spines carry 32 x 72 of their 18 x 144 ports: each site's 4 UFM ports take 4 spines' free ports
    # (an HA pair on two switches of one tier, as the UFM-SDN Appliance manual asks).
    model = default_report.model
    j = model.fabrics["compute"].to_json()
    assert j["switches"] == {"leaf": 64, "spine": 36, "core": 0}
    assert j["links"]["ufm-top"] == 8 and "ufm-leaf" not in j["links"]
    assert {k: j["ufm"][k] for k in ("hop", "layer", "ports", "leaves", "top_switches", "added_switches")} == {
        "hop": "ufm-top", "layer": "spine", "ports": 8, "leaves": 0, "top_switches": 8, "added_switches": 0}
    assert model.endpoints.ufm_count == 4
    assert any(w.startswith("fabrics.compute: the UFM appliances' 8 ports are on the spines' free ports")
               for w in model.warnings)


def test_the_504_gpu_moe_build_buys_no_ufm_off_its_fabric_and_says_why(catalog):
    # 7 racks, 4 and 3 a site: site 1's 4 Q3400 leaves and 2 spines are full (4 x 72 trays' ports, 4 x 72
    # uplinks on 2 x 144), so no site's UFM pair has a port; before, 8 were bought with in-band links only.
    from tests.topology.test_exposed_step import MOE_YAML, _build

    m = _build(catalog, MOE_YAML.read_text())
    assert m.endpoints.ufm_count == 0 and m.fabrics["compute"].ufm is None
    assert [w[:88] for w in m.warnings if "UFM" in w] == [
        "fabrics.compute: the platform's 4 UFM appliances per site (management.ufm_count) are not"]
    assert not [g for f in m.fabrics.values() for g in f.groups if g.lower == "ufm"]


def test_a_full_fabric_buys_no_ufm_and_says_why(catalog):
    # 128 DGX H100 fill the 32 leaves and the 16 spines: no UFM is bought (no spine is bought for it).
    m = build(catalog, H100 + "nodes: 128\n")
    assert m.endpoints.ufm_count == 0 and m.fabrics["compute"].ufm is None
    assert m.fabrics["compute"].switches("spine") == 16
    assert [w for w in m.warnings if "UFM" in w] == [
        "fabrics.compute: the platform's 4 UFM appliances per site (management.ufm_count) are not bought: no port "
        "of the compute fabric is free for a site's 4 UFM port(s): every one of the 32 leaves' 32 downlinks per "
        "site carries a node, and the spines' ports carry the fabric's own links (the RAs add no switch for the "
        "UFM), and an appliance off the fabric cannot be its subnet manager. Run the subnet manager on a managed "
        "switch, or free a port for each (one node fewer per UFM port, as the DGX SuperPOD RA does) and set "
        "management.ufm_count."]
    # The hint, applied as written: one node fewer per UFM port, and the count set.
    again = build(catalog, H100 + "nodes: 124\nmanagement: {ufm_count: 4}\n")
    assert again.fabrics["compute"].hop_links("ufm-leaf") == 4


def test_a_switch_pair_takes_the_ufm_past_its_links(catalog):
    text = ("name: b\nplatform: dgx-h100\nnodes: 7\n"
            "fabrics: {compute: {switch: qm9700, topology: pair}, inband: {}, oob: {}}\n")
    f = build(catalog, text).fabrics["compute"]
    assert f.hop_links("ufm-top") == 2 and f.ufm.layer == "leaf" and f.ufm.top == 2


# --- an HDR fabric's UFM on an HDR port -------------------------------------------------------

@pytest.mark.parametrize("extra", ["", "management: {ufm_count: 2}\n"])
def test_the_dgx_a100_s_ufm_is_on_its_hdr_fabric(catalog, extra):
    # 18 DGX A100 on 8 QM8700 leaves: the leaves have spare downlinks, and the A100 platforms' UFM
    # appliance has an HDR QSFP56 port for them. Before, the platform's UFM was the NDR appliance 3.1
    # (a 400G OSFP port): the default bought none (no part joins it to a QSFP56 cage) and an explicit
    # ufm_count was refused.
    m = build(catalog, "name: a\nplatform: dgx-a100\ngpus: 144\n" + extra)
    f = m.fabrics["compute"]
    assert m.endpoints.ufm_count == 2 and f.hop_links("ufm-leaf") == 2 and f.ufm.leaves == 2
    assert not [w for w in m.warnings if "not bought" in w]
