"""Sites of their own size: whole systems shared out by weight."""

from __future__ import annotations

import pytest

from bom.inputs.scenario import scenario_from_text
from bom.inputs.yamlio import load_text
from bom.pipeline.model import build_model
from bom.topology.cluster import site_systems


@pytest.mark.parametrize("systems,weights,expected", [
    (64, (1, 1), [32, 32]), (10, (2, 1, 1), [5, 3, 2]), (4, (100, 1, 1, 1), [1, 1, 1, 1]),
    (7, (1, 1, 1), [3, 2, 2]), (128, (2, 1, 1, 1), [51, 26, 26, 25])])
def test_site_systems(systems, weights, expected):
    shares = site_systems(systems, weights)
    assert shares == expected and sum(shares) == systems and min(shares) >= 1


SPLIT = """\
name: split
platform: gb300-nvl72
gpus: 9216
sites: {split: [2, 1, 1, 1], distance: "2 km", dci_bandwidth: "25.6 Tbit/s"}
fabrics: {compute: {}, inband: {}}   # the routers' Ethernet client ports on the in-band fabric's border leaves
"""


def test_split_builds_sites_of_their_own_size(catalog):
    m = build_model(scenario_from_text(SPLIT), load_text(SPLIT, "s.yaml"), catalog, None)
    c = m.cluster
    assert c.site_count == 4 and c.nodes_by_site == (918, 468, 468, 450)   # 51/26/26/25 racks of 18 nodes
    assert sum(s.count * s.nodes for s in c.sites) == c.nodes == 2304
    # Each site is its own fabric: the leaves follow each site's size.
    shapes = m.fabrics["compute"].to_json()["site_switches"]
    assert [s["sites"] for s in shapes] == [1, 2, 1] and shapes[0]["leaf"] > shapes[2]["leaf"]
    assert m.to_json()["site_sizes"][0] == {"site": 1, "nodes": 918, "gpus": 3672}


def test_split_and_count_must_agree(bom, tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(SPLIT.replace("split: [2, 1, 1, 1]", "count: 3, split: [2, 1, 1, 1]"))
    r = bom("build", str(path), "-o", str(tmp_path / "o"))
    assert r.exit_code == 2 and "count is 3 but split gives 4 sites" in r.stderr
    path.write_text(SPLIT.replace("[2, 1, 1, 1]", "[2, 0, 1]"))
    assert bom("build", str(path), "-o", str(tmp_path / "o")).exit_code == 2
