"""NVIDIA DGX BasePOD, RA-11127-001 V5, Table 4.2 (the compute-fabric bill, printed page 13).

A BasePOD-size pod is a switch pair: two QM9700 joined by inter-switch links (ISLs), each
switch taking four of every DGX's eight rails (several rails on one switch: the switch's 64
ports hold 8 nodes x 4 rails plus as many ISLs). Table 4.2, for 4 and 8 DGX nodes at NDR400:

| item (Table 4.2)                                              | part              | 4 nodes | 8 nodes |
| QM9700 switch                                                 | 920-9B210-00FN-0M0 |    2    |    2    |
| 2x400G OSFP flat-top multimode transceivers on DGX            | 980-9I51A-00NS00  |   16    |   32    |
| 2x400G OSFP finned-top multimode transceivers on switches     | 980-9I510-00NS00  |   16    |   32    |
| NDR DAC for switch ISL (twin-port 2x400G, MCP4Y10-N002)       | 980-9IA0J-00N002  |    8    |   16    |

The table's 16/32 "NDR fibre, DGX to IB switches" count twin-port cages, not links: each
node has 8 NDR400 links ("eight compute connections from each node running at NDR400",
System Architecture), so 32 and 64 links on one MPO-12 fibre each.
"""

from __future__ import annotations

import pytest

from bom.inputs.scenario import scenario_from_text
from bom.inputs.yamlio import load_text
from bom.pipeline.model import build_model


def basepod(catalog, nodes: int):
    text = (f"name: basepod-{nodes}\nplatform: dgx-h100\nnodes: {nodes}\n"
            "fabrics:\n  compute: {switch: qm9700, topology: pair}\n")
    return build_model(scenario_from_text(text), load_text(text, "basepod.yaml"), catalog, None)


@pytest.mark.parametrize("nodes,switches,dgx_modules,switch_modules,isl_dacs", [
    (4, 2, 16, 16, 8),     # RA-11127-001 V5 Table 4.2, 4-node column
    (8, 2, 32, 32, 16),    # RA-11127-001 V5 Table 4.2, 8-node column
])
def test_basepod_switch_pair(catalog, nodes, switches, dgx_modules, switch_modules, isl_dacs):
    f = basepod(catalog, nodes).fabrics["compute"]
    j = f.to_json()
    assert j["topology"] == "pair" and j["layers"] == 1
    assert j["switches"] == {"leaf": switches, "spine": 0, "core": 0}
    # 8 NDR400 links per node, half the rails on each switch; the ISLs carry what one switch's
    # nodes send to the other's, non-blocking: 4 rails x nodes links.
    assert j["links"]["node-leaf"] == 8 * nodes and j["links"]["leaf-leaf"] == 4 * nodes
    node = [g for g in f.groups if g.hop == "node-leaf"]
    assert sum(g.modules_lower for g in node) == dgx_modules
    assert {g.lower_end.part.part_number for g in node} == {"MMA4Z00-NS-FLT"}   # 980-9I51A-00NS00
    assert sum(g.modules_upper for g in node) == switch_modules
    assert {g.upper_end.part.part_number for g in node} == {"MMA4Z00-NS"}       # 980-9I510-00NS00
    assert {g.medium for g in node} == {"multimode"}
    isl = [g for g in f.groups if g.hop == "leaf-leaf"]
    assert sum(g.cables for g in isl) == isl_dacs
    assert {g.choice.part_number[:7] for g in isl} == {"MCP4Y10"}                # twin-port DAC


def test_a_pair_too_small_for_the_pod_is_refused(bom, tmp_path):
    # 16 nodes x 4 rails = 64 node ports per switch: no room for ISLs on a 64-port QM9700.
    path = tmp_path / "big.yaml"
    path.write_text("name: big\nplatform: dgx-h100\nnodes: 16\nfabrics:\n  compute: {switch: qm9700, topology: pair}\n")
    r = bom("build", str(path), "--json")
    assert r.exit_code == 2 and "pair of qm9700 holds at most 8 nodes" in r.output
    assert "fabrics.compute" in r.output


# --- the BasePOD's management side (issue 11) ----------------------------------------------------

SUPPORT = ("name: basepod-{n}\nplatform: dgx-h100\nnodes: {n}\n"
           "fabrics: {{compute: {{switch: qm9700, topology: pair}}, inband: {{}}, oob: {{}}}}\n")


def test_basepod_management_side(catalog):
    """DGX BasePOD RA-11127-001 V5 (docs.nvidia.com/dgx-basepod/reference-architecture-infrastructure-
    foundation-enterprise-ai/latest/reference-architectures.html, "DGX BasePOD with NDR400 Compute
    Fabric"), read 2026-12-03 through the stored pages corpus:

    - Table 1 (DGX BasePOD Components): compute nodes 2-8 (NDR400; Table 5, the NDR200 variant: 2-16),
      "Management and storage fabric: NVIDIA SN4600C switches", "OOB management fabric: NVIDIA
      SN2201 switches".
    - System Architecture: "five dual-socket x86 servers for system management" (two Base Command
      Manager head nodes, three for Slurm login or Kubernetes), all in HA pairs or triples.

    NOT read: the RA's switch and cable counts for the SN4600C / SN2201 fabrics and any UFM count.
    Searched (docs and pages corpora): "DGX BasePOD reference architecture management nodes head
    nodes UFM SN4600C SN2201", "RA-11127-001 BasePOD DGX H100 management nodes in-band SN4600C
    out-of-band SN2201", "DGX BasePOD NDR400 switches and cables table SN4600C SN2201 quantity",
    "BasePOD Switches and Cables table ...": the stored excerpts stop before the switch table.
    So the counts below that are not in the list above are the stated rules, not published figures:
    UFM one HA pair below a SuperPOD (bom/topology/endpoints.py BASEPOD_UFM); the in-band and OOB fabrics
    sized by their ports (one SN4600C and one SN2201 hold an 8-node pod, bom/topology/support.py one_leaf).
    """
    from tests.topology.test_build import build

    m = build(catalog, SUPPORT.format(n=8))
    ends = m.endpoints.to_json()
    assert ends["management_servers"]["count"] == 5          # RA-11127-001 V5, System Architecture
    assert m.fabrics["inband"].to_json()["switch"] == "sn4600c"   # RA-11127-001 V5 Table 1
    assert m.fabrics["oob"].to_json()["switch"] == "sn2201"       # RA-11127-001 V5 Table 1
    # Stated rule: one UFM HA pair (not read in the RA), where the compute fabric has ports for it: 8 nodes
    # fill the one QM9700's 64 ports, so the build buys none (the switch's own subnet manager runs it).
    assert ends["ufm"]["count"] == 0 and any("UFM appliances per site" in w for w in m.warnings)
    assert build(catalog, SUPPORT.format(n=7)).endpoints.to_json()["ufm"]["count"] == 2
    for name in ("inband", "oob"):                            # stated rule: the pod's ports fit one switch
        assert m.fabrics[name].to_json()["switches"] == {"leaf": 1, "spine": 0, "core": 0}, name


MLAG = ("name: basepod-mlag\nplatform: dgx-h100\nnodes: 8\n"
        "fabrics: {compute: {switch: qm9700, topology: pair}, inband: {mlag: 2}, oob: {}}\n")


def test_basepod_in_band_is_an_mlag_pair(catalog):
    """NVIDIA DGX BasePOD Deployment Guide (docs.nvidia.com/dgx-basepod/deployment-guide-dgx-basepod/latest/
    network-deploy.html, "SN4600C - managementnet ethernet switches", read 2026-12-06 through the stored
    pages corpus): "MLAG between the two SN4600C switches", "Each headnode / K8s node / DGX is dual homed
    to the SN4600C switches via bond interface", and the SN4600C-1 reference configuration's
    ``nv set interface peerlink bond member swp63,swp64``. With ``fabrics.inband.mlag: 2`` the in-band
    fabric is that pair: two SN4600C, every node's two in-band ports on the two switches, and two
    peer links on the switches' last two ports (p63, p64 of the 64-port SN4600C)."""
    from bom.cableplan.rows import cable_rows
    from tests.topology.test_build import build

    m = build(catalog, MLAG)
    j = m.fabrics["inband"].to_json()
    assert j["switch"] == "sn4600c" and j["switches"]["leaf"] == 2
    assert j["links"]["mlag-peer"] == 2
    rows = [r for r in cable_rows(m) if r.fabric == "inband"]
    peer = [r for r in rows if r.hop == "mlag-peer"]
    assert sorted((r.a_port, r.b_port) for r in peer) == [("p63", "p63"), ("p64", "p64")]   # swp63, swp64
    assert len({r.a_device for r in peer} | {r.b_device for r in peer}) == 2
    homes: dict[str, set[str]] = {}
    for r in rows:
        if r.hop == "node-leaf":
            homes.setdefault(r.a_device, set()).add(r.b_device)
    assert len(homes) == 8 and all(len(leaves) == 2 for leaves in homes.values())   # dual-homed


def test_mlag_is_for_storage_and_in_band_only(bom, tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text("name: m\nplatform: dgx-h100\nnodes: 8\nfabrics: {compute: {mlag: 2}}\n")
    r = bom("build", str(path))
    assert r.exit_code == 2 and "mlag pairs the leaves of the storage and in-band fabrics only" in r.output
    assert "fabrics.compute.mlag" in r.output
