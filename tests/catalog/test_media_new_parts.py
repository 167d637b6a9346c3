"""Issue 22, item 8: `bom lookup` finds a part for the links the catalog could not build before.

Each case failed with "no ... part in the catalog fits" (or "no single-span part reaches") before
the rows were added: HDR QSFP56 to QSFP56 (DGX A100 to QM8700), a 400G QSFP-DD switch port to two
200G QSFP56 nodes, a ConnectX-7 OSFP flat-top NIC to a 400GbE QSFP-DD switch, and a QSFP112 NIC
past the 100 m of NVIDIA's QSFP112 DR4.
"""

from __future__ import annotations

import json

import pytest

from bom.rules.ends import FIBRES


def _lookup(bom, rate, reach, ff, far):
    r = bom("lookup", "--rate", rate, "--reach", reach, "--form-factor", ff, "--far-form-factor", far, "--json")
    assert r.exit_code == 0, r.stderr
    return json.loads(r.stdout)["choice"]


@pytest.mark.parametrize("reach,medium,cable", [
    ("1 m", "passive-copper", "MCP1650-H001E30"),     # HDR DAC, 2 m at most
    ("2 m", "passive-copper", "MCP1650-H002E26"),
    ("30 m", "aoc", "MFS1S00-H030E"),                  # past copper: the HDR AOC
    ("100 m", "aoc", "MFS1S00-H100E"),
])
def test_hdr_qsfp56_links(bom, reach, medium, cable):
    c = _lookup(bom, "200G", reach, "qsfp56:1", "qsfp56:1")
    assert (c["medium"], c["cable"], c["lane_rate_gbps"]) == (medium, cable, 50)
    assert c["form_factor_a"] == c["form_factor_b"] == "qsfp56"


@pytest.mark.parametrize("reach,cable", [("2 m", "MCP7H60-W002R26"), ("20 m", "QDD-2XQ56-400G-AOC20M")])
def test_qsfpdd_400g_port_to_two_200g_qsfp56_nodes(bom, reach, cable):
    c = _lookup(bom, "200G", reach, "qsfp-dd:2:spread", "qsfp56:1")
    assert c["cable"] == cable
    ends = {c["form_factor_a"]: c["ports_per_module_a"], c["form_factor_b"]: c["ports_per_module_b"]}
    assert ends == {"qsfp-dd": 2, "qsfp56": 1}      # one head serves two links, two QSFP56 heads


@pytest.mark.parametrize("reach", ["30 m", "100 m"])
def test_osfp_flat_nic_to_qsfpdd_switch(bom, reach):
    c = _lookup(bom, "400G", reach, "osfp-flat:1", "qsfp-dd:1")
    assert {c["module_a"], c["module_b"]} == {"MMS4X00-NS400", "QDD-400G-DR4-S"}
    assert c["standard"] == "400G DR4" and c["connector"] == "mpo12-apc"
    assert c["reach_max_m"] == 100                     # the NIC's MMS4X00-NS400 limits the link


def test_osfp_flat_nic_to_qsfpdd_switch_has_no_part_past_its_reach(bom):
    r = bom("lookup", "--rate", "400G", "--reach", "150 m", "--form-factor", "osfp-flat:1",
            "--far-form-factor", "qsfp-dd:1")
    assert r.exit_code == 2 and "Traceback" not in r.stderr


@pytest.mark.parametrize("reach,medium,modules", [
    ("150 m", "smf-parallel", {"MMS4X00-NM", "QSFP112-400G-DR4-500M"}),   # past NVIDIA's 100 m QSFP112 DR4
    ("500 m", "smf-parallel", {"MMS4X00-NM", "QSFP112-400G-DR4-500M"}),
    ("1.5 km", "smf-duplex", {"MMS4X50-NM", "QSFP112-400G-FR4"}),
])
def test_qsfp112_past_100_m(bom, reach, medium, modules):
    c = _lookup(bom, "400G", reach, "qsfp112:1", "osfp:2")
    assert c["medium"] == medium and {c["module_a"], c["module_b"]} == modules
    assert c["required_m"] >= 120


def test_new_modules_speak_one_standard_with_their_far_ends(catalog):
    """The ends rules' terms, on the rows: the QSFP-DD DR4 and the QSFP112 DR4 speak 400G DR4 over
    MPO-12/APC on single-mode fibre as NVIDIA's DR4 modules do; the QSFP112 FR4 as the 2xFR4 twin."""
    m = {r.id: r for r in catalog.by_kind["modules"]}
    for new, far in (("qdd-400g-dr4-s", "mms4x00-ns400"), ("qsfp112-400g-dr4-500m", "mms4x00-nm"),
                     ("qsfp112-400g-fr4", "mms4x50-nm")):
        a, b = m[new], m[far]
        assert (a.port_type, a.connector, a.medium, a.lanes, a.lane_rate) == \
               (b.port_type, b.connector, b.medium, b.lanes, b.lane_rate)
        assert "os2" in FIBRES[a.medium]
