"""The scheduled fabric in its disaggregated form (issue 22, item 8): Broadcom Jericho3-AI interface
nodes (leaves with host ports and fabric ports) and Ramon3 fabric elements (spines of cell links).
Every fabric port of an interface node is cabled whatever its hosts carry (cells are sprayed over all
of them; the surplus is the speedup), spread evenly over the fabric elements at the finest bundle (an
800G OSFP's two 4-lane halves), and a pair is joined at 800G where whole ports reach it. Read at
stored copies, 2026-12-06:

- [FBOSS] Meta's FBOSS (github.com/facebook/fboss, commit 14ec47e, 2026-08-22):
  fboss/lib/platforms/PlatformProductInfo.cpp maps DCS-DL-7700R4C-38PE-AC-F (and its -DC-F, -B-F and
  DCS-7700R4C-38PE-F variants) to PLATFORM_MERU800BIA and DCS-DS-7720R4-128PE-AC-F to
  PLATFORM_MERU800BFA (PCI vendor 0x3475, Arista);
  platform_mapping_v2/platforms/meru800bia_800g: 18 eth ports of 8 lanes (800G) and 160 fab ports on
  20 transceivers of 8 lanes; meru800bfa: 1,024 fab links on 128 transceivers, two Ramon3 (BCM8892X)
  at 106,250 Mbit/s a link; AgentFeatures.cpp: "DSF Single Stage with 192 RDSWs, 40 FDSWs, 32 EDSWs";
  SaiPlatform.cpp: "RDSW: 36 x 400G NIF ports", "EDSW: 18 x 800G NIF ports"; VoqConstants.h:
  kDsfR192F40E32MaxL1ToLeafLinksPerVd = 224 (192 RDSW + 32 EDSW, one link each per virtual device;
  four virtual devices an FDSW: four links from each leaf to each FDSW, 160 / 40).
- [AMD] AMD, "Cluster architecture and network design for AMD Instinct MI3XX accelerators"
  (github.com/ROCm/gpu-cluster-networking, docs/design/mi3xx.rst), Power requirements, MI355X: "a 4MW
  cluster with 2K MI355X GPUs", "256 MI355X DLC - 2K GPUs"; "Scheduled fabrics design: Quantity ≈ 10 x
  7720R4-128PE & 64 x 7700R4C"; "Estimated typical/load power 7720R4-128PE 1032w/3848w ≈
  10.32kW/38.48kW"; "7720R4C-38PE 593w/1840w ≈ 37.96kW/117.76kW"; "Scheduled fabrics estimated power
  typical/load ≈ 48.28kW/156.24kW". Network design examples: "Rail design - 2048-2304 GPU (256-288
  Nodes)".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bom.errors import BomError
from bom.inputs.scenario import load_scenario, scenario_from_text
from bom.inputs.yamlio import load_text
from bom.model.checks import WARNING
from bom.pipeline import build_scenario, report_of
from bom.pipeline.model import build_model
from bom.rules.run import check

HERE = Path(__file__).parent
LEAF, ELEMENT = "arista-7700r4c-38pe", "arista-7720r4-128pe"
FABRIC_CAGES = 20        # [FBOSS] meru800bia: 160 fab links on 20 transceivers of 8 lanes
HOST_CAGES = 18          # [FBOSS] meru800bia: 18 eth ports of 8 lanes
ELEMENT_CAGES = 128      # [FBOSS] meru800bfa: 1,024 fab links on 128 transceivers


def _model(catalog, name: str):
    scenario, src = load_scenario(HERE / name)
    return build_scenario(scenario, src, catalog)


def _text(catalog, text: str):
    return build_model(scenario_from_text(text), load_text(text, "s.yaml"), catalog, None)


def _built(catalog, text: str):
    """As a command builds it: the rules before the stages first (bom/topology/preflight.py)."""
    return build_scenario(scenario_from_text(text), load_text(text, "s.yaml"), catalog)


@pytest.fixture(scope="module")
def amd(catalog):
    return _model(catalog, "amd_mi355x_scheduled.yaml")


@pytest.fixture(scope="module")
def meta(catalog):
    return _model(catalog, "meta_dsf_single_stage.yaml")


def test_amd_2k_scheduled_design_switch_counts(amd):
    f = amd.fabrics["compute"]
    assert amd.cluster.nodes == 256                                        # [AMD] 256 MI355X DLC - 2K GPUs
    assert f.switches("leaf") == 64                                        # [AMD] 64 x 7700R4C
    assert f.switches("spine") == 10                                       # [AMD] ≈ 10 x 7720R4-128PE
    assert (f.switch_id, f.spine_switch_id) == (LEAF, ELEMENT)


def test_amd_2k_every_fabric_port_cabled_two_to_each_element(amd):
    j = amd.to_json()["fabrics"]["compute"]
    # 64 leaves x 20 fabric cages, all cabled; 20 / 10 elements = 2 whole 800G ports to each.
    assert j["links"]["leaf-spine"] == 64 * FABRIC_CAGES == 1280
    assert j["uplink_rate_gbps"] == 800
    assert j["scheduled"] == {"fabric_ports_per_leaf": 20, "fabric_port_rate_gbps": 800.0, "links_per_pair": 2,
                              "speedup": round(FABRIC_CAGES / HOST_CAGES, 4)}
    # Each element takes 2 links from each of the 64 leaves: its 128 cages, full.
    assert amd.fabrics["compute"].port_use("spine") == [(10, ELEMENT_CAGES)]


def test_amd_2k_scheduled_fabric_power_is_amds_table(amd, catalog):
    lines = [x for x in report_of(amd, catalog).lines
             if x.fabric == "compute" and x.catalog_id in (LEAF, ELEMENT)]
    typical = sum(x.power_w for x in lines)
    load = sum(x.power_max_w for x in lines)
    assert typical == 64 * 593 + 10 * 1032 == pytest.approx(48_280, abs=10)     # [AMD] ≈ 48.28 kW typical
    assert load == 64 * 1840 + 10 * 3848 == pytest.approx(156_240)              # [AMD] ≈ 156.24 kW load


def test_meta_single_stage_192_interface_nodes_40_elements(meta):
    f = meta.fabrics["compute"]
    assert f.switches("leaf") == 192                                       # [FBOSS] 192 RDSWs
    assert f.switches("spine") == 40                                       # [FBOSS] 40 FDSWs
    j = meta.to_json()["fabrics"]["compute"]
    # [FBOSS] four 106.25G links from each leaf to each FDSW: one 4-lane half of an OSFP, 400G.
    assert j["uplink_rate_gbps"] == 400 and j["scheduled"]["links_per_pair"] == 1
    assert j["links"]["leaf-spine"] == 192 * 2 * FABRIC_CAGES == 7680
    # Each element: 192 of its 256 halves ([FBOSS] allows 224 a virtual device, 192 + the 32 EDSWs).
    assert f.port_use("spine") == [(40, 192)]


def test_the_halves_of_a_fabric_cage_go_to_two_elements(meta):
    from bom.cableplan.rows import cable_rows  # the cable plan, as an installer reads it
    first_leaf = "s1-r01-rk05-leaf-01"
    rows = [r for r in cable_rows(meta) if r.hop == "leaf-spine" and r.a_device == first_leaf]
    first = {r.a_port: r.b_device for r in rows if r.a_port.startswith("p19/")}
    assert sorted(first) == ["p19/1", "p19/2"] and len(set(first.values())) == 2
    # The fabric cages are numbered after the 18 host cages.
    assert min(int(r.a_port[1:].split("/")[0]) for r in rows) == HOST_CAGES + 1


def test_a_part_built_unit_still_cables_every_fabric_port(catalog):
    m = _text(catalog, f"name: t\nplatform: mi355x-platform\nnodes: 20\nfabrics: {{compute: {{switch: {LEAF}}}}}\n")
    f = m.fabrics["compute"]
    assert f.hop_links("leaf-spine") == f.switches("leaf") * FABRIC_CAGES


def test_two_stages_past_what_one_stage_of_elements_joins(catalog):
    # One stage: at most 256 leaves (each element's 256 halves, one from each leaf). 264 leaves need two.
    text = f"name: t\nplatform: hgx-h100\nnodes: 1188\nfabrics: {{compute: {{switch: {LEAF}, su_nodes: 36}}}}\n"
    m = _text(catalog, text)
    f = m.fabrics["compute"]
    assert f.switches("leaf") == 264 and f.first.layers == 3 and f.first.scheduled
    assert f.hop_links("leaf-spine") * f.first.up.rate_gbps == 264 * FABRIC_CAGES * 800
    assert f.first.spine.id == ELEMENT


@pytest.mark.parametrize("fabric, key", [
    (f"{{switch: {ELEMENT}}}", "fabrics.compute.switch"),                      # an element takes no hosts
    (f"{{switch: {LEAF}, spine: sn5600}}", "fabrics.compute.spine"),          # cells go to elements only
    (f"{{switch: sn5600, spine: {ELEMENT}}}", "fabrics.compute.spine"),       # elements join only interface nodes
    (f"{{switch: {LEAF}, oversubscription: '2:1'}}", "fabrics.compute.oversubscription"),
    (f"{{switch: {LEAF}, layers: 1}}", "fabrics.compute.layers"),
    (f"{{switch: {LEAF}, uplink_rate: downlink}}", "fabrics.compute.uplink_rate"),
    (f"{{switch: {LEAF}, topology: pair}}", "fabrics.compute.topology"),
    (f"{{switch: {LEAF}, topology: rail-only}}", "fabrics.compute.topology"),
])
def test_a_scheduled_fabric_that_cannot_be_built_is_refused(catalog, fabric, key):
    with pytest.raises(BomError) as e:
        _built(catalog, f"name: t\nplatform: mi355x-platform\nnodes: 16\nfabrics: {{compute: {fabric}}}\n")
    assert e.value.key == key and e.value.hint


def test_a_scheduled_leaf_on_the_storage_fabric_is_refused(catalog):
    with pytest.raises(BomError) as e:
        _built(catalog, "name: t\nplatform: mi355x-platform\nnodes: 16\n"
                       f"fabrics: {{compute: {{}}, storage: {{switch: {LEAF}}}}}\n")
    assert e.value.key == "fabrics.storage.switch"


def test_the_cli_refuses_with_the_key_and_writes_nothing(tmp_path):
    from typer.testing import CliRunner

    from bom.cli import app
    sc = tmp_path / "s.yaml"
    sc.write_text(f"name: t\nplatform: mi355x-platform\nnodes: 16\nfabrics:\n  compute: {{switch: {ELEMENT}}}\n")
    r = CliRunner().invoke(app, ["build", str(sc), "-o", str(tmp_path / "out")])
    assert r.exit_code == 2 and "fabrics.compute.switch" in r.output and "Traceback" not in r.output
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


@pytest.mark.parametrize("name", ["amd_mi355x_scheduled.yaml", "meta_dsf_single_stage.yaml"])
def test_check_clean_on_the_scheduled_cases(catalog, name):
    m = _model(catalog, name)
    checks = check(m, catalog, plan=True)
    assert [r.id for r in checks.failed if r.severity != WARNING] == []


def test_dci_routers_never_land_on_fabric_elements(catalog):
    """Two sites: the routers' client links cannot take a fabric element's cell ports; with no Ethernet
    fabric of host ports to land on, they go to border leaves of the DCI's own, and the warning says why;
    with an in-band fabric, on its border leaves."""
    text = (f"name: t\nplatform: dgx-b200\ngpus: 512\nsites: {{count: 2, distance: 40 km, "
            f"dci_fraction: 0.05}}\nfabrics: {{compute: {{switch: {LEAF}}}}}\n")
    own = _text(catalog, text)
    assert own.dci.attach == "dci" and own.dci.border_leaves == 2 and "fabric element" in own.dci.border.why
    assert any("fabric element" in w and "border leaves of its own" in w for w in own.warnings)
    m = _text(catalog, text.replace("}}\n", "}, inband: {}}\n"))
    assert m.dci.attach == "inband"


def test_past_the_silicons_published_system_size_is_refused(catalog):
    """TechInsights (Broadcom): Jericho3-AI and Ramon3 make "systems with 32,768 ports running at 800
    Gbps"; AMD's guide: a fully scheduled network is limited to "roughly 32,000 GPUs". 3,584 interface
    nodes of 18 x 800G host ports are 64,512; two sites of 1,792 take 32,256 each."""
    text = f"name: t\nplatform: dgx-b200\ngpus: 129024\nfabrics: {{compute: {{switch: {LEAF}, su_nodes: 36}}}}\n"
    with pytest.raises(BomError) as e:
        _text(catalog, text)
    assert e.value.key == "fabrics.compute.switch" and "32,768" in str(e.value) and "64,512" in str(e.value)
    two = text.replace("fabrics:", "sites: {count: 2, distance: 10 km, dci_bandwidth: 12.8 Tbit/s}\nfabrics:")
    two = two.replace("}}\n", "}, inband: {}}\n")
    m = _text(catalog, two)
    assert m.fabrics["compute"].first.leaves * 18 == 32_256



def test_the_report_says_what_the_scheduled_fabric_is(amd, catalog, tmp_path):
    from typer.testing import CliRunner

    from bom.cli import app
    r = CliRunner().invoke(app, ["build", str(HERE / "amd_mi355x_scheduled.yaml"), "-q", "-o", str(tmp_path)])
    assert r.exit_code == 0, r.output
    said = ("compute is a scheduled fabric: 64 interface nodes (arista-7700r4c-38pe) cable all 20 of their 800 "
            "Gbit/s fabric ports to 10 fabric elements (arista-7720r4-128pe), 2 to each: a speedup of 1.11")
    assert said in (tmp_path / "amd-mi355x-scheduled.md").read_text()
    assert said in (tmp_path / "amd-mi355x-scheduled.html").read_text()


def test_two_stages_for_metas_dual_stage_size(catalog):
    """[FBOSS] fboss/agent/VoqConstants.h, dual stage: "Num RDSWs = 512", "Num EDSWs = 128", "Num FDSWs =
    200", "Num SDSWs = 128" (640 interface nodes; 200 + 128 = 328 fabric elements, zones of 128 leaves,
    each FDSW to every SDSW). Not reproduced box for box: on 640 interface nodes of GPUs the tool's pods
    of 25 leaves take 8 elements each (208) and 14 core elements per spine index (112): 320 fabric
    elements, 8 fewer than Meta's zones; both non-blocking (each first-stage element's uplinks at least
    its downlinks), every leaf's 40 halves cabled."""
    text = f"name: t\nplatform: dgx-b200\ngpus: 23040\nfabrics: {{compute: {{switch: {LEAF}, su_nodes: 36}}}}\n"
    p = _text(catalog, text).fabrics["compute"].first
    assert p.leaves == 512 + 128 and p.layers == 3
    assert p.spines + p.cores <= 200 + 128
    assert (p.spines, p.cores) == (208, 112)
    assert p.spine_up >= p.pod_size * p.leaf_spine_per_pair and p.leaf_up * p.up.rate_gbps == 40 * 400
