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
