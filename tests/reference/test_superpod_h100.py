"""NVIDIA DGX SuperPOD with DGX H100, 4 SU (RA-11333-001, Tables 4, 7 and 8): every count exact.

127 DGX H100 (+ UFM) built as 4 full SUs of 32 nodes on QM9700, rail-optimised and
non-blocking: 32 leaf + 16 spine switches; 1,016 node-leaf links plus the 4 UFM links (their own
hop, ``ufm-leaf``: Table 4's "Compute and UFM" 1,020 = 1,016 + 4) and 1,024 leaf-spine links, all
multimode fibre; 1,536 twin-port OSFP modules in the switches (the UFM ports share the half-used
cages the missing node leaves), 508 (4 per DGX) in the nodes and 4 in the UFM appliances.
Table 8 names the parts: "Switch OSFP Transceivers, leaf and spine, 980-9I510-00NS00"
(MMA4Z00-NS, finned top) x 1,536 and "System OSFP Transceivers, in the DGX H100 systems,
980-9I51A-00NS00" (MMA4Z00-NS-FLT, flat top) x 508; all compute cables are multimode fibre
(980-9I570-00N030 = MFP7E10-N030).

Table 4 at 1 to 4 SU is reproduced by test_table4_compute_and_ufm_cables (RA-11333-001 V11 and
the DGX B200 RA-11334-001 publish the same Table 4).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bom.inputs.scenario import load_scenario
from bom.pipeline.model import build_model

CASE = Path(__file__).with_name("superpod_h100_4su.yaml")


def test_superpod_h100_4su_counts(catalog):
    scenario, src = load_scenario(CASE)
    j = build_model(scenario, src, catalog, None).to_json()
    f = j["fabrics"]["compute"]
    assert (j["gpus"], j["nodes"], j["domains"]) == (1016, 127, 127)
    # Table 7: 38 racks (32 compute racks of 4 DGX, 4 SU leaf racks, a spine rack, a management rack).
    assert j["racks"] == 38
    assert j["rack_counts"]["compute"] == 32
    assert f["layers"] == 2
    assert f["switches"] == {"leaf": 32, "spine": 16, "core": 0}
    assert f["links"] == {"node-leaf": 1016, "leaf-spine": 1024, "spine-core": 0, "ufm-leaf": 4}
    assert f["modules"] == {"node": 508, "switch": 1536, "ufm": 4}
    assert f["ufm"]["ports"] == 4 and f["ufm"]["leaf_modules"] == 0
    assert (f["copper_links"], f["optical_links"]) == (0, 2044)
    t = j["tiers"]["scale-out"]
    assert t == {"links": 2044, "ports": 4088, "modules": 2048, "cables": 2044, "fibre_runs": 2044,
                 "fibre_strands": 2044 * 8, "copper_links": 0, "copper_share": 0.0}


# RA-11333-001 V11 (DGX H100) Table 4 "Compute fabric component count", the same in RA-11334-001
# (DGX B200) Table 4: SU, nodes (31 per SU 1: "a DGX system must be removed to accommodate for UFM
# connectivity"), leaf, spine, "Compute and UFM" cables, "Spine-Leaf" cables.
TABLE4 = [(1, 31, 8, 4, 252, 256), (2, 63, 16, 8, 508, 512), (3, 95, 24, 16, 764, 768),
          (4, 127, 32, 16, 1020, 1024)]


@pytest.mark.parametrize("platform", ["dgx-h100", "dgx-b200"])
@pytest.mark.parametrize(("su", "nodes", "leaves", "spines", "compute_and_ufm", "spine_leaf"), TABLE4)
def test_table4_compute_and_ufm_cables(catalog, platform, su, nodes, leaves, spines, compute_and_ufm, spine_leaf):
    scenario, src = load_scenario(CASE)
    update = {"nodes": nodes, "platform": platform}
    if platform != "dgx-h100":      # the B200's own rack layout (its power budget holds 2 per rack)
        update["layout"] = type(scenario.layout)()
    scenario = scenario.model_copy(update=update)
    f = build_model(scenario, src, catalog, None).to_json()["fabrics"]["compute"]
    assert f["switches"] == {"leaf": leaves, "spine": spines, "core": 0}
    assert f["links"]["node-leaf"] == nodes * 8                     # the nodes' links alone
    assert f["links"]["node-leaf"] + f["links"]["ufm-leaf"] == compute_and_ufm
    assert f["links"]["leaf-spine"] == spine_leaf
    assert f["modules"]["ufm"] == 4                                  # one per UFM port, at the UFM
    # The 4 UFM ports share the twin-port cages the missing node left half used: no leaf module added.
    # (16 down + 16 up twin-port cages per leaf, one cage per two links at the spines; Table 8's modules).
    assert f["modules"]["switch"] == leaves * 32 + spine_leaf // 2


def test_ufm_takes_no_port_when_every_leaf_port_carries_a_node(catalog):
    # 128 nodes fill all 32 x 32 leaf downlinks and the 16 spines' 64 ports: the platform default buys no
    # UFM appliance (one off the fabric cannot be its subnet manager) and says why in the warnings.
    scenario, src = load_scenario(CASE)
    model = build_model(scenario.model_copy(update={"nodes": 128}), src, catalog, None)
    f = model.to_json()["fabrics"]["compute"]
    assert f["switches"] == {"leaf": 32, "spine": 16, "core": 0}
    assert "ufm-leaf" not in f["links"] and "ufm-top" not in f["links"] and model.endpoints.ufm_count == 0
    assert any("every one of the 32 leaves' 32 downlinks per site carries a node" in w for w in model.warnings)


def test_all_multimode_with_the_ra_modules(catalog):
    scenario, src = load_scenario(CASE)
    groups = build_model(scenario, src, catalog, None).groups
    assert {g.medium for g in groups} == {"multimode"}
    # Table 8: the DGX end takes the flat-top twin-port part, every switch cage the finned one.
    node = [g for g in groups if g.hop == "node-leaf"]
    assert {g.lower_end.part.part_number for g in node} == {"MMA4Z00-NS-FLT"}
    assert sum(g.modules_lower for g in node) == 508
    ends = ("node-leaf", "ufm-leaf")
    switch_ends = [g.upper_end for g in groups] + [g.lower_end for g in groups if g.hop not in ends]
    # The UFM's single 400G port (its catalog row: one OSFP flat-top cage) takes a 400G SR4 module.
    assert {g.lower_end.part.part_number for g in groups if g.lower == "ufm"} == {"MMA4Z00-NS400"}
    assert {e.part.part_number for e in switch_ends} == {"MMA4Z00-NS"}
    assert {g.choice.option.fibre.part_number for g in groups} == {"MFP7E10-N0xx"}


def test_build_command_prints_the_same(bom):
    r = bom("build", str(CASE), "--json")
    assert r.exit_code == 0
    assert json.loads(r.stdout)["fabrics"]["compute"]["modules"] == {"node": 508, "switch": 1536, "ufm": 4}
