"""Scenario rules checked when the file is read (validators on the scenario models), so `bom size`,
`bom build` and `bom cables` refuse the same file at the same line, before any stage runs."""

from __future__ import annotations

import json

import pytest

from tests.inputs.test_scenario import check_error, write

BASE = """\
name: rules
platform: gb300-nvl72
gpus: 144
"""


@pytest.mark.parametrize("extra,line,words", [
    ("sites: {count: 2, dci_bandwidth: '25.6 Tbit/s'}\n", 4, ["sites.distance", "need the distance", "40 km"]),
    ("sites:\n  count: 2\n  distance: 2 km\n", 4, ["sites.dci_bandwidth", "dci_fraction", "one of them"]),
    ("sites:\n  count: 2\n  distance: 2 km\n  dci_bandwidth: 25.6 Tbit/s\n  dci_fraction: 0.1\n", 7,
     ["sites.dci_bandwidth", "not both"]),
    ("fabrics:\n  compute: {uplinks: spine}\n", 5, ["fabrics.compute.uplinks", "out-of-band fabric only"]),
    ("fabrics:\n  storage:\n    topology: rail-optimized\n", 6, ["fabrics.storage.topology", "rail-agnostic",
                                                                  "topology: tor"]),
    ("fabrics:\n  oob:\n    planes: 2\n", 6, ["fabrics.oob.planes", "does not apply", "uplinks: spine"]),
    # Moved here from the stages (bom/topology/fabrics.py, planes.py, endpoints.py), messages as they were.
    ("fabrics:\n  compute: {topology: pair, su_nodes: 4}\n", 5,
     ["fabrics.compute.su_nodes", "su_nodes has no meaning for a switch pair (two switches take every node)",
      "Drop su_nodes, or use topology: rail-optimized for scalable units."]),
    ("fabrics:\n  compute: {topology: rail-only, su_nodes: 4}\n", 5,
     ["fabrics.compute.su_nodes", "su_nodes has no meaning for a rail-only fabric (a rail's leaf takes every node)"]),
    ("fabrics:\n  compute:\n    topology: pair\n    min_spines: 4\n", 7,
     ["fabrics.compute.min_spines", "min_spines asks for a spine layer, and topology pair has none"]),
    ("fabrics:\n  compute:\n    layers: 1\n    min_spines: 4\n", 7,
     ["fabrics.compute.min_spines", "min_spines asks for a spine layer, and layers: 1 has none",
      "Drop min_spines, or use topology: rail-optimized (or tor) with layers: auto or 2."]),
    ("fabrics:\n  compute:\n    topology: pair\n    layers: 2\n", 7,   # named at layers now, not the fabric
     ["fabrics.compute.layers", "a switch pair has one layer (two switches joined by ISLs)", "Drop layers"]),
    ("fabrics:\n  compute:\n    topology: tor\n    rails_per_leaf: 1\n", 7,
     ["fabrics.compute.rails_per_leaf", "rails_per_leaf has no meaning for topology tor (its leaves take whole nodes "
      "or racks, not rails)", "Drop rails_per_leaf, or use topology: rail-optimized or rail-only."]),
    ("fabrics:\n  compute:\n    topology: rail-only\n    layers: 3\n", 7,
     ["fabrics.compute.layers", "a rail-only fabric has one layer (rail leaves, no spine); layers is 3"]),
    ("fabrics:\n  storage:\n    layers: 2\n    oversubscription: {leaf: 1, spine: 3}\n", 7,
     ["fabrics.storage.oversubscription.spine", "a spine ratio sets the spines' uplinks to a core layer; two layers "
      "have none", "Set layers: 3 (or auto), or drop oversubscription.spine."]),
    ("storage: {checkpoints: 5}\n", 4,
     ["storage.count", "the storage block gives no count, capacity or throughput, and there is no training job",
      'Add count: 8, or capacity: "2 PB" and/or throughput: "400 GB/s".']),
])
@pytest.mark.parametrize("command", ["size", "build", "cables"])
def test_rules_refuse_at_the_key(bom, tmp_path, extra, line, words, command):
    path = write(tmp_path, BASE + extra)
    args = [command, path] + (["-q", "-o", str(tmp_path / "out")] if command != "size" else [])
    check_error(bom(*args), path, line, *words)
    assert not (tmp_path / "out").exists()


#: The issue's two-site GB300 scenario, every multi-site key left out.
TWO_SITES = "sites:\n  count: 2\n"


@pytest.mark.parametrize("command", ["size", "build", "cables"])
def test_every_missing_multi_site_key_is_named_in_one_message(bom, tmp_path, command):
    """One run names the distance and the DCI bandwidth, each at its place with its hint (three runs
    on main dbe2868: an Ethernet fabric, which border leaves of the DCI's own now stand in for, then
    the distance, then the bandwidth)."""
    path = write(tmp_path, BASE + TWO_SITES)
    args = [command, path] + (["-q", "-o", str(tmp_path / "out")] if command != "size" else [])
    r = bom(*args)
    assert r.exit_code == 2, r.output
    err = " ".join(r.stderr.split())
    assert err.startswith("error: 2 problems: (1) "), err
    assert f'(1) {path}:4: sites.distance: two or more sites need the distance between them. Add distance: "40 km".' \
        in err
    assert (f"(2) {path}:4: sites.dci_bandwidth: sites need dci_bandwidth (per site pair) or dci_fraction (of a "
            "site's scale-out bandwidth), one of them. Add dci_bandwidth: \"25.6 Tbit/s\" (or dci_fraction: 0.125).") \
        in err
    assert not (tmp_path / "out").exists()


def test_dci_bandwidth_auto_names_its_overlap_with_the_rest(bom, tmp_path):
    """auto with no overlap and no distance: both in one message."""
    r = bom("size", write(tmp_path, BASE + "sites:\n  count: 2\n  dci_bandwidth: auto\n"))
    assert r.exit_code == 2
    err = " ".join(r.stderr.split())
    assert "2 problems" in err and "sites.distance" in err and "sites.dci_overlap" in err and "dci_overlap: 0.5" in err


def test_the_fixes_applied_build(catalog):
    """The one message's fixes (BomError.fix) applied at once: the scenario builds (border leaves of the
    DCI's own take the routers' client links, the compute fabric being InfiniBand)."""
    import yaml

    from bom.errors import MultiError
    from bom.inputs.scenario import scenario_from_text
    from bom.inputs.yamlio import load_text
    from bom.pipeline import build_scenario

    text = BASE + TWO_SITES
    with pytest.raises(MultiError) as e:
        scenario_from_text(text)
    assert e.value.fix == {("sites", "distance"): "40 km", ("sites", "dci_bandwidth"): "25.6 Tbit/s"}
    data = yaml.safe_load(text)
    for path, value in e.value.fix.items():
        data[path[0]][path[1]] = value
    fixed = yaml.safe_dump(data)
    model = build_scenario(scenario_from_text(fixed), load_text(fixed, "s.yaml"), catalog)
    assert model.dci is not None and model.dci.attach == "dci" and model.dci.border_leaves == 2


def test_one_site_needs_no_distance(bom, tmp_path):
    r = bom("build", write(tmp_path, BASE + "sites: {count: 1}\n"), "-q", "-o", str(tmp_path / "out"), "--json")
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["tiers"]["scale-across"]["links"] == 0


def test_a_rule_error_names_its_key_in_the_json_error(bom, tmp_path):
    path = write(tmp_path, BASE + "fabrics:\n  oob:\n    layers: 2\n")
    r = bom("build", path, "--json", "-o", str(tmp_path / "out"))
    assert r.exit_code == 2
    assert "fabrics.oob.layers" in r.stderr + r.stdout
