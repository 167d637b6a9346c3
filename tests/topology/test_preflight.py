"""The scenario's rules that need the catalog (bom/topology/preflight.py): checked once before the stages,
each refused with the message, key, line and hint it had in its stage, and every problem found named at once."""

from __future__ import annotations

import pytest

from bom.errors import BomError, LimitError, MultiError, MultiLimitError
from bom.inputs.scenario import scenario_from_text
from bom.topology import preflight
from tests.inputs.test_scenario import check_error, write

H100 = "name: p\nplatform: dgx-h100\nnodes: 8\n"
J3 = "name: p\nplatform: mi355x-platform\nnodes: 16\n"
TWO_SITES = "name: p\nplatform: gb300-nvl72\ngpus: 144\nfabrics: {compute: {}, inband: {switch: sn5600}}\n"


@pytest.mark.parametrize("text, line, words", [
    # the racks (bom/topology/geometry.py nodes_per_rack)
    # 14.4 kW: the 14.3 kW node and the draw of the A/B pair of PDUs its rack needs (pdu-3ph-60a: 10 W each,
    # 34.5 kW a PDU), 14,320 W rounded up to 0.1 kW.
    ("name: p\nplatform: dgx-b200\nnodes: 4\nracks: {power_budget: \"10 kW\"}\n", 4,
     ["racks.power_budget", "the rack power budget (10.0 kW) is below one dgx-b200 node (14.3 kW)",
      "Raise racks.power_budget to at least 14.4 kW."]),
    (H100 + "racks: {power_budget: \"30 kW\"}\nlayout: {nodes_per_rack: 4}\n", 5,
     ["layout.nodes_per_rack", "4 dgx-h100 nodes per rack (8U, 10.2 kW each) do not fit one compute rack: the power "
      "binds (40,800 W over the legrand-nvidpd13 rack's 30,000 W budget)",
      "Leave layout.nodes_per_rack out (the rack's budgets give it), lower it, or raise racks.power_budget."]),
    # the compute fabric's rails (the planner's, bom/topology/planes.py)
    ("name: p\nplatform: gb300-nvl72\ngpus: 144\nfabrics:\n  compute: {rails_per_leaf: 1}\n", 5,
     ["fabrics.compute.rails_per_leaf", "rails_per_leaf has no meaning on a rack-scale platform",
      "Drop rails_per_leaf."]),
    (H100 + "fabrics:\n  compute: {rails_per_leaf: 3}\n", 5,
     ["fabrics.compute.rails_per_leaf", "rails_per_leaf 3 must divide the 8 rails of a node",
      "Use a divisor of 8: rails_per_leaf: 1 is a leaf per rail."]),
    # a scheduled fabric (bom/topology/fabrics.py check_scheduled, planes.py _check_scheduled)
    (J3 + "fabrics:\n  compute: {switch: arista-7720r4-128pe}\n", 5,
     ["fabrics.compute.switch", "is a scheduled fabric's fabric element", "Use it as fabrics.compute.spine"]),
    (J3 + "fabrics:\n  compute: {}\n  storage: {switch: arista-7700r4c-38pe}\n", 6,
     ["fabrics.storage.switch", "the tool builds a scheduled fabric as the compute fabric",
      "Drop switch here (the platform's own for this fabric), or name an Ethernet leaf."]),
    (J3 + "fabrics:\n  compute:\n    switch: arista-7700r4c-38pe\n    oversubscription: \"2:1\"\n", 7,
     ["fabrics.compute.oversubscription", "the fabric's speedup), so a leaf ratio has no meaning"]),
    (J3 + "fabrics:\n  compute:\n    switch: arista-7700r4c-38pe\n    layers: 1\n", 7,
     ["fabrics.compute.layers", "reach each other only through fabric elements", "Use layers: auto, 2 or 3."]),
    # the storage appliance (bom/topology/endpoints.py)
    (H100 + "storage: {appliance: mgmt-x86-2s, count: 2}\n", 4,
     ["storage.ports", "storage appliance 'mgmt-x86-2s' has no storage-fabric ports", "Give storage.ports: 1 or more"]),
    (H100 + "storage: {appliance: mgmt-x86-2s, count: 2, ports: 2}\n", 4,
     ["storage.ports", "appliance 'mgmt-x86-2s' has no storage ports in the catalog; give both ports and rate"]),
    (H100 + "storage:\n  appliance: mgmt-x86-2s\n  ports: 2\n  rate: 400 Gbit/s\n  capacity: 2 PB\n", 8,
     ["storage.capacity", "appliance 'mgmt-x86-2s' has no capacity in the catalog, so a capacity cannot size it",
      "Give storage.count: 8 (appliances)."]),
    # the DCI's amplifier (bom/topology/dci.py)
    (TWO_SITES + "sites: {count: 2, distance: 40 km, dci_bandwidth: 3.2 Tbit/s, amplifier: ncs1k-md-64-c}\n", 5,
     ["sites.amplifier", "dwdm row 'ncs1k-md-64-c' is a mux, not an amplifier", "Name a dwdm row of kind amplifier"]),
    # the DCI router's ports at the wavelength's rate (was a generic "no 800 Gbit/s part ... qsfp-dd cage
    # ... osfp cage" at the client link, keyed to nothing the scenario says)
    (TWO_SITES + "sites: {count: 2, distance: 40 km, dci_bandwidth: 3.2 Tbit/s, wavelength_rate: 800 Gbit/s}\n", 5,
     ["sites.wavelength_rate", "the DCI router cisco-8201-32fh (catalogs/defaults.yaml, dci-router) has no 800 "
      "Gbit/s port", "(its ports run at 400, 100 Gbit/s)",
      "Use 400 Gbit/s wavelengths (wavelength_rate: 400 Gbit/s), the router's client rate; or give a catalog "
      "overlay whose dci-router default has 800G ports."]),
    # out-of-band spines of their own
    (H100 + "fabrics:\n  compute: {}\n  oob: {uplinks: spine, spine: sn2202}\n", 6,
     ["fabrics.oob.spine", "'sn2202'", "Did you mean"]),
])
def test_a_catalog_rule_is_refused_as_its_stage_refused_it(bom, tmp_path, text, line, words):
    path = write(tmp_path, text)
    err = check_error(bom("build", path, "-q", "-o", str(tmp_path / "out")), path, line, *words)
    assert "problems" not in err    # one problem is told as it always was
    assert not (tmp_path / "out").exists()


def test_every_catalog_problem_is_named_at_once(bom, tmp_path):
    """Three typos in three ids: one run names all three, each at its own line, in the order the stages
    would have met them (compute, endpoints, storage)."""
    path = write(tmp_path, H100 + "fabrics:\n  compute: {switch: q3401}\n  storage: {switch: sn560}\n"
                                  "management: {server: mgmt-x86}\nstorage: {count: 2}\n")
    r = bom("check", path)
    err = check_error(r, path, 5, "3 problems: (1)", "fabrics.compute.switch", "'q3401'", "Did you mean 'q3400'",
                      f"(2) {path}:7: management.server", "'mgmt-x86'", f"(3) {path}:6: fabrics.storage.switch",
                      "'sn560'")
    assert err.index("(1)") < err.index("(2)") < err.index("(3)")


def test_a_platform_without_ports_for_two_fabrics_says_both(bom, tmp_path, catalog):
    """A TPU pod has no storage or in-band ports and its RA no storage appliance: every limit at once, a
    limit still (a comparison leaves such fabrics out of that generation)."""
    text = "name: p\nplatform: tpu-v4-pod\ngpus: 4096\nfabrics:\n  compute: {}\n  storage: {}\n  inband: {}\n"
    path = write(tmp_path, text)
    check_error(bom("build", path, "-q", "-o", str(tmp_path / "out")), path, 6, "3 problems",
                "storage: fabrics.storage carries no storage", "names no storage appliance",
                f"{path}:6: fabrics.storage: platform 'tpu-v4-pod' has no storage ports in the catalog",
                f"{path}:7: fabrics.inband: platform 'tpu-v4-pod' has no inband ports in the catalog",
                "Drop fabrics.inband, or add an inband port entry to the platform row (a catalog overlay).")
    with pytest.raises(MultiLimitError) as e:
        preflight.check(scenario_from_text(text), catalog)
    assert isinstance(e.value, LimitError) and [p.key for p in e.value.problems] == [
        "storage", "fabrics.storage", "fabrics.inband"]


@pytest.mark.slow
def test_an_800g_wavelength_builds_with_an_800g_router(bom, tmp_path):
    """The hint's other half (its fix, 400G wavelengths, is tests/test_hints.py's case): a catalog overlay
    whose DCI router has 800G ports (here an SN5600's OSFP cages, the 800G coherent pluggable's) builds."""
    text = TWO_SITES + "sites: {count: 2, distance: 40 km, dci_bandwidth: 3.2 Tbit/s, wavelength_rate: %s}\n"
    overlay = tmp_path / "cat"
    overlay.mkdir()
    (overlay / "defaults.yaml").write_text("defaults:\n  - {id: dci-router-800, fabric: dci, layer: router, "
                                           "switch: sn5600, source: an 800G router for the test}\n")
    r = bom("build", write(tmp_path, text % "800 Gbit/s"), "-q", "-o", str(tmp_path / "b"),
            "--catalog", str(overlay))
    assert r.exit_code == 0, r.output


def test_a_limit_and_a_typo_are_not_a_limit(catalog):
    """A comparison skips a generation it cannot build (a limit) but stops at a typo: several problems
    with a typo among them are not a limit."""
    text = H100 + 'racks: {power_budget: "10 kW"}\nmanagement: {ufm: ufm-appliance}\n'
    with pytest.raises(MultiError) as e:
        preflight.check(scenario_from_text(text), catalog)
    assert not isinstance(e.value, LimitError) and len(e.value.problems) == 2
    assert e.value.key == "racks.power_budget" and e.value.problems[1].key == "management.ufm"


def test_the_default_and_every_reference_case_pass(catalog):
    from pathlib import Path

    from bom.inputs.scenario import load_scenario
    from bom.pipeline.build import catalog_for

    for path in [None, *sorted((Path(__file__).parent.parent / "reference").glob("*.yaml"))]:
        scenario, src = load_scenario(path)
        preflight.check(scenario, catalog_for(scenario, src) if scenario.catalogs else catalog)


def test_a_scenario_with_no_platform_is_told_what_to_add(catalog):
    with pytest.raises(BomError) as e:
        preflight.check(scenario_from_text("name: p\ngpus: 8\n"), catalog)
    assert e.value.key == "platform" and "a build needs a platform" in str(e.value) and "dgx-h100" in e.value.hint

