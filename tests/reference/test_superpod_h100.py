"""NVIDIA DGX SuperPOD with DGX H100, 4 SU (RA-11333-001, Tables 4, 7 and 8): every count exact.

127 DGX H100 (+ UFM) built as 4 full SUs of 32 nodes on QM9700, rail-optimised and
non-blocking: 32 leaf + 16 spine switches; 1,016 node-leaf links (the UFM's 4 more are not
part of our count) and 1,024 leaf-spine links, all multimode fibre; 1,536 twin-port OSFP
modules in the switches and 508 (4 per DGX) in the nodes.
"""

from __future__ import annotations

import json
from pathlib import Path

from bom.build import build_model
from bom.scenario import load_scenario

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
    assert f["links"] == {"node-leaf": 1016, "leaf-spine": 1024, "spine-core": 0}
    assert f["modules"] == {"node": 508, "switch": 1536}
    assert (f["copper_links"], f["optical_links"]) == (0, 2040)
    t = j["tiers"]["scale-out"]
    assert t == {"links": 2040, "ports": 4080, "modules": 2044, "cables": 2040, "fibre_runs": 2040,
                 "fibre_strands": 2040 * 8, "copper_links": 0, "copper_share": 0.0}


def test_all_multimode_with_the_ra_modules(catalog):
    scenario, src = load_scenario(CASE)
    groups = build_model(scenario, src, catalog, None).groups
    assert {g.medium for g in groups} == {"multimode"}
    assert {g.lower_end.part.part_number for g in groups} == {"MMA4Z00-NS"}
    assert {g.upper_end.part.part_number for g in groups} == {"MMA4Z00-NS"}
    assert {g.choice.option.fibre.part_number for g in groups} == {"MFP7E10-N0xx"}


def test_build_command_prints_the_same(bom):
    r = bom("build", str(CASE), "--json")
    assert r.exit_code == 0
    assert json.loads(r.stdout)["fabrics"]["compute"]["modules"] == {"node": 508, "switch": 1536}
