"""Issue 22, item 8: the A100 platforms and the parts the published designs needed.

The DGX SuperPOD A100 RA (RA-09950-001, v06, 2020-11-18) is stored only as its title page and
document history: its component tables could not be read, so the 140-node case
(dgx_a100_superpod_140.yaml) is checked here by port arithmetic on the catalog rows and by the
parts it picks, and by `bom check` (tests/rules/test_severity.py runs every reference case and
wants no rule broken). The rows' own published figures are checked against the documents they cite:
DGX A100 6.5 kW maximum (six 3 kW PSUs, launch coverage of the DGX A100 User Guide DU-09821-001),
eight single-port 200 Gb/s HDR NICs, NVLink 3 at 600 GB/s over six NVSwitch chips; QM8700 40 x HDR
200G QSFP56 (QM87xx manual); SN5400 128 x 200GbE split (SN5000 manual, Data Interfaces).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bom.inputs.scenario import load_scenario
from bom.pipeline.model import build_model
from bom.units import magnitude

HERE = Path(__file__).parent


def _build(catalog, name):
    scenario, src = load_scenario(HERE / name)
    return build_model(scenario, src, catalog, None).to_json()


def _by_part(j, hop):
    """catalog id -> quantity on the compute fabric's lines of ``hop`` (a part's sold lengths summed)."""
    out: dict[str, int] = {}
    for ln in j["lines"]:
        if ln["fabric"] == "compute" and ln["hop"] == hop:
            out[ln["catalog_id"]] = out.get(ln["catalog_id"], 0) + ln["quantity"]
    return out


def test_dgx_a100_row_carries_its_published_figures(catalog):
    p = catalog.get("platforms", "dgx-a100")
    assert magnitude(p.power_per_system, "power") == 6500                   # 6,500 W max, six 3 kW PSUs
    assert (p.gpus_per_node, p.scale_out.ports, magnitude(p.scale_out.rate, "rate")) == (8, 8, 200)
    assert p.scale_out.form_factor == "qsfp56" and p.fp8_dense is None    # HDR QSFP56; Ampere has no FP8
    assert magnitude(p.scale_up.bandwidth_per_gpu, "rate") == 600 * 8     # NVLink 3, 600 GB/s per GPU
    assert p.scale_up.switch_chips_per_domain == 6                         # six NVSwitch chips
    assert p.default_switch == "qm8700"
    q = catalog.get("switches", "qm8700")
    assert (q.ports, q.cages, q.form_factor, magnitude(q.port_rate, "rate")) == (40, 40, "qsfp56", 200)


def test_superpod_a100_140_by_port_arithmetic(catalog):
    j = _build(catalog, "dgx_a100_superpod_140.yaml")
    f = j["fabrics"]["compute"]
    assert (j["gpus"], j["nodes"]) == (1120, 140)
    # 7 scalable units of 20 nodes, a leaf per rail: 7 x 8 = 56 leaves, each 20 nodes down and 20 up
    # of its 40 ports (non-blocking), so 1,120 node-leaf and 1,120 leaf-spine links.
    assert f["switches"]["leaf"] == 56
    assert f["links"]["node-leaf"] == 140 * 8 == 1120
    assert f["links"]["leaf-spine"] == 56 * 20
    # 1,120 spine uplinks need a third layer: a 40-port spine gives 20 up, 56 x 20 = 1,120 core ports.
    assert f["layers"] == 3 and f["links"]["spine-core"] == 1120
    # Every compute link is an HDR assembly with QSFP56 heads: no module bought (DAC or AOC), the UFM
    # appliances' HDR ports' neither (ufm-appliance-hdr); every leaf downlink carries a node, so the HA
    # pair's 2 ports are on two cores' free ports (the spines' 1,120 uplinks take 1,120 of the 40 cores'
    # 1,600 ports).
    assert set(f["modules"].values()) == {0}
    assert f["links"]["ufm-top"] == 2 and f["ufm"]["layer"] == "core"
    assert f["copper_links"] + f["optical_links"] == 3 * 1120 + 2


def test_superpod_a100_140_parts_and_check(bom, tmp_path):
    r = bom("build", str(HERE / "dgx_a100_superpod_140.yaml"), "--json", "-q", "-o", str(tmp_path))
    assert r.exit_code == 0, r.output
    j = json.loads(r.stdout)
    ids = {ln["catalog_id"] for ln in j["lines"] if ln["fabric"] == "compute" and ln["category"] != "compute"}
    assert ids <= {"qm8700", "mcp1650-h", "mfs1s00-h"} and {"qm8700", "mfs1s00-h"} <= ids
    c = bom("check", str(HERE / "dgx_a100_superpod_140.yaml"))
    assert c.exit_code == 0 and "no error, no warning" in c.stdout, c.stdout


def test_hgx_a100_on_qsfpdd_leaves_takes_splitters(bom, tmp_path):
    r = bom("build", str(HERE / "hgx_a100_roce_sn5400.yaml"), "--json", "-q", "-o", str(tmp_path))
    assert r.exit_code == 0, r.output
    j = json.loads(r.stdout)
    f = j["fabrics"]["compute"]
    assert f["links"]["node-leaf"] == 32 * 8
    node_leaf = _by_part(j, "node-leaf")
    # One splitter per two node ports (a 400GbE QSFP-DD leaf port split 2 x 200G): 128 assemblies.
    assert set(node_leaf) <= {"mcp7h60-w", "qdd-2xq56-400g-aoc"} and sum(node_leaf.values()) == 32 * 8 // 2
    c = bom("check", str(HERE / "hgx_a100_roce_sn5400.yaml"))
    assert c.exit_code == 0 and "no error, no warning" in c.stdout, c.stdout


def test_osfp_flat_nic_to_qsfpdd_leaf_is_a_dr4_link(bom, tmp_path):
    r = bom("build", str(HERE / "hgx_h100_qsfpdd_leaf.yaml"), "--json", "-q", "-o", str(tmp_path))
    assert r.exit_code == 0, r.output
    j = json.loads(r.stdout)
    node_leaf = _by_part(j, "node-leaf")
    assert node_leaf["mms4x00-ns400"] == 16 * 8 and node_leaf["qdd-400g-dr4-s"] == 16 * 8
    # The ends rules (protocol, cage, lanes, standard, connector) pass: a QSFP-DD module gearboxes
    # 8 x 50G host lanes into the 4 x 100G optical lanes the ConnectX-7's DR4 module runs.
    c = bom("check", str(HERE / "hgx_h100_qsfpdd_leaf.yaml"))
    assert c.exit_code == 0 and "no error, no warning" in c.stdout, c.stdout
    assert "ends.lanes" in c.stdout and "ends.standard" in c.stdout


@pytest.mark.parametrize("platform", ["mi300x-platform", "mi325x-platform", "mi355x-platform", "helios-mi455x"])
def test_amd_platforms_stand_in_racks_of_their_own(catalog, platform):
    """Issue 22: AMD systems were placed in the 'MGX 48U rack of an NVL72 system'. Each now names its
    own rack, sized from the servers' U and power."""
    p = catalog.get("platforms", platform)
    rack = catalog.get("racks", p.support.rack)
    assert p.support.rack != "mgx-nvl72-rack" and "NVL72" not in rack.description
    systems = p.nodes_per_rack // p.nodes_per_system
    used_u = p.nodes_per_rack * p.node_rack_units + p.support.rack_device_units * systems
    assert used_u <= rack.rack_units
    per_rack_w = magnitude(p.power_per_system, "power") * p.nodes_per_rack / p.nodes_per_system
    assert per_rack_w <= magnitude(p.support.rack_power_budget, "power")


def test_no_amd_platform_uses_the_nvl72_rack(catalog):
    amd = [p for p in catalog.by_kind["platforms"] if p.vendor.startswith("AMD")]
    assert len(amd) == 4
    assert not [p.id for p in amd if p.support and "mgx-nvl72-rack" in (p.support.rack, p.support.network_rack)]


def test_only_nvl_rack_systems_stand_in_the_mgx_nvl72_rack(catalog):
    """Issue 22 item 8, the rule behind the AMD case: the MGX rack ships with an NVIDIA NVL72/NVL144
    system, so no other platform (the TPU7x pod stood in it before) is placed in it."""
    users = sorted(p.id for p in catalog.by_kind["platforms"]
                   if p.support and "mgx-nvl72-rack" in (p.support.rack, p.support.network_rack))
    # GB200 NVL36x2: NVIDIA's 36x2 configuration stands in MGX racks (Multi-Node Tuning Guide).
    assert users == ["gb200-nvl36x2", "gb200-nvl72", "gb300-nvl72", "vr-nvl144"]
