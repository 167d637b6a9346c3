"""Google Cloud TPU v5p slices smaller than a cube: their own hosts, a copper mesh, no optics.

Source: Google Cloud TPU documentation, "TPU v5p" (docs.cloud.google.com/tpu/docs/v5p, the same
table at cloud.google.com/tpu/docs/v5p-training), read 2026-12-06 with the `search` tool. Slice
table (Topology | Cores | Chips | Hosts | Cubes):

    2x2x1 |   8 |  4 |  1 | N/A
    2x2x2 |  16 |  8 |  2 | N/A
    2x4x4 |  64 | 32 |  8 | N/A
    4x4x4 | 128 | 64 | 16 | 1

and "All 4x4x4 and larger slices (one cube) have full 3D torus": a smaller slice has no
wraparound, so no link leaves the cube on optics to the OCS. Issue 22: the tool built 64 chips and
16 hosts (a whole cube, 96 optics, 48 OCS) for each of the three; whole cubes and the pod matched.
The slice's copper links are the mesh's (n - 1) x (chips / n) summed over its edges (not
published; the torus closed form of bom/topology/scaleup.py without the wraparound).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bom.inputs.scenario import load_scenario, scenario_from_text
from bom.inputs.yamlio import load_text
from bom.model.checks import WARNING
from bom.pipeline import build_scenario, report_of
from bom.rules.run import check


def build(catalog, gpus: int):
    text = f"name: v5p\nplatform: tpu-v5p-pod\ngpus: {gpus}\n"
    return build_scenario(scenario_from_text(text), load_text(text, "v5p.yaml"), catalog)


@pytest.mark.parametrize(("gpus", "hosts", "shape", "copper"), [
    (4, 1, "2x2x1", 4),      # Google: 4 chips, 1 host (tool was 64 chips, 16 hosts)
    (8, 2, "2x2x2", 12),     # Google: 8 chips, 2 hosts
    (32, 8, "2x4x4", 64),    # Google: 32 chips, 8 hosts
])
def test_sub_cube_slice_hosts(catalog, gpus, hosts, shape, copper):
    m = build(catalog, gpus)
    assert (m.cluster.gpus, m.cluster.nodes) == (gpus, hosts)
    assert m.cluster.rounding()["why"].startswith(f"a {shape} slice")
    up = m.tiers()["scale-up"]
    assert (up["cubes"], up["optical_links"], up["ocs"], up["modules"]) == (0, 0, 0, 0)   # Cubes: N/A
    assert up["copper_links"] == copper
    assert m.placement.devices("node") == hosts


def test_between_slices_takes_the_next_published_one(catalog):
    # 5 chips: no 5-chip slice is published; the next, 2x2x2, is 8 chips on 2 hosts.
    assert (build(catalog, 5).cluster.gpus, build(catalog, 5).cluster.nodes) == (8, 2)


@pytest.mark.parametrize(("gpus", "hosts", "cubes"), [(33, 16, 1), (64, 16, 1), (128, 32, 2)])
def test_whole_cubes_are_unchanged(catalog, gpus, hosts, cubes):
    # Google: 4x4x4 = 64 chips, 16 hosts, 1 cube; 4x4x8 = 128 chips, 32 hosts, 2 cubes. Past the
    # largest sub-cube slice (32 chips) a request takes a whole cube.
    m = build(catalog, gpus)
    assert (m.cluster.nodes, m.tiers()["scale-up"]["cubes"]) == (hosts, cubes)
    assert m.tiers()["scale-up"]["optical_links"] == 96 * cubes


def test_a_slice_is_priced_per_host(catalog):
    m = build(catalog, 8)
    line = next(x for x in report_of(m, catalog).lines if x.category == "compute")
    assert (line.quantity, line.unit) == (2, "host")
    assert line.unit_price_usd * 16 == pytest.approx(m.platform.price_usd)   # a host's share of the cube


def test_check_clean_on_the_reference_case(catalog):
    scenario, src = load_scenario(Path(__file__).with_name("tpu_v5p_slice.yaml"))
    m = build_scenario(scenario, src, catalog)
    assert (m.cluster.gpus, m.cluster.nodes) == (8, 2)
    checks = check(m, catalog, plan=True)
    assert [r.id for r in checks.failed if r.severity != WARNING] == []
