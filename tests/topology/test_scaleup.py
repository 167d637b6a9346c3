"""The scale-up tier's three kinds: electrical, switched inside a rack, torus over OCS."""

from __future__ import annotations

import copy
import json

import pytest

from bom.catalog.load import builtin_dir
from bom.catalog.rows import Platform, ScaleUpPart, Torus
from bom.costing.lines import scale_up_lines
from bom.errors import BomError
from bom.inputs.validation import validate
from bom.inputs.yamlio import load_file, load_text
from bom.links.scaleup import TORUS
from bom.topology.scaleup import scale_up

PART = dict(vendor="x", part_number="x", description="x", power="1 W", price_usd=1,
            price_source="estimate", source="x")


def torus(cube: list[int], ports: int = 136) -> Torus:
    return Torus(cube=cube, ocs=ScaleUpPart(id="o", ports=ports, **PART), optic=ScaleUpPart(id="m", **PART),
                 fibre=ScaleUpPart(id="f", **PART))


@pytest.mark.parametrize("cube,expected", [
    ([4, 4, 4], (144, 96, 48)),     # TPU v4: 3 x 16 lines of 3 links; 6 faces of 16; 3 x 16 groups
    ([2, 2, 2], (12, 24, 12)),
    ([4, 4], (24, 16, 8)),          # a 2D torus of 4 x 4 chips
    ([4, 4, 8], (304, 160, 80)),     # 3 x 32 + 3 x 32 + 7 x 16 inside,
])
def test_cube_closed_form(cube, expected):
    t = torus(cube)
    inside, optical, groups = TORUS.cube_links(t)
    assert (inside, optical, groups) == expected
    # Every chip has 2 ports per dimension: the copper links take two each, the optical one.
    assert 2 * inside + optical == 2 * len(cube) * t.chips


def _platform(catalog, pid: str, **scale_up_changes) -> Platform:
    p = catalog.platform(pid)
    return p.model_copy(update={"scale_up": p.scale_up.model_copy(update=scale_up_changes)})


def test_tpu_pod_counts_and_chip_link_identity(catalog):
    p = catalog.platform("tpu-v4-pod")
    up = scale_up(p, 4096)
    assert (up.cubes, up.links, up.optical_links, up.ocs, up.ocs_ports) == (64, 64 * 144, 6144, 48, 48 * 136)
    assert up.modules == up.fibre_runs == up.fibre_strands == 6144
    # Chip-to-chip links: copper ones plus one per pair of optical links joined through an OCS.
    assert up.links + up.optical_links // 2 == 4096 * p.scale_up.links_per_gpu // 2
    j = up.to_json()
    assert j["links"] == 9216 + 6144 and j["copper_links"] == 9216 and j["ocs_ports_used"] == 6144
    assert j["copper_share"] == pytest.approx(9216 / 15360)


def test_partial_pod_still_closes_its_torus(catalog):
    # A slice of 4 cubes wraps around through every OCS group: 48 switches, 8 ports each.
    up = scale_up(catalog.platform("tpu-v4-pod"), 256)
    assert (up.cubes, up.optical_links, up.ocs, up.domains) == (4, 384, 48, 1)
    # Two pods and a bit: whole pods keep 48 each, the rest is its own domain.
    up = scale_up(catalog.platform("tpu-v4-pod"), 2 * 4096 + 64)
    assert (up.domains, up.ocs) == (3, 3 * 48)


def test_more_cubes_than_an_ocs_has_ports(catalog):
    # v5p: 140 cubes need 280 ports per group; 136-port switches -> 3 per group (assumed).
    up = scale_up(catalog.platform("tpu-v5p-pod"), 8960)
    assert (up.cubes, up.ocs, up.optical_links) == (140, 48 * 3, 140 * 96)


def test_electrical_without_switch_chips_joins_two_gpus(catalog):
    # MI300X: 7 Infinity Fabric links per GPU, all-to-all among 8: 28 links a node, no module.
    up = scale_up(catalog.platform("mi300x-platform"), 64)
    assert (up.links, up.modules, up.switch_chips, up.kind) == (8 * 28, 0, 0, "electrical")
    # Gaudi 3: 21 ports per chip, 3 to each of 7 peers: 84 a node.
    assert scale_up(catalog.platform("gaudi3-hls3"), 8).links == 84
    # With switch chips a link runs GPU to chip (unchanged: GB200 NVL72).
    nvl = scale_up(catalog.platform("gb200-nvl72"), 72)
    assert (nvl.links, nvl.cables, nvl.switch_chips) == (72 * 18, 5184, 18)


def test_switched_domain_counts_its_switches(catalog):
    up = scale_up(catalog.platform("helios-mi455x"), 144)
    su = catalog.platform("helios-mi455x").scale_up
    assert up.kind == "switched" and up.domains == 2
    assert (up.switch_chips, up.switch_trays, up.cables) == (2 * su.switch_chips_per_domain,
                                                             2 * su.switch_trays_per_domain,
                                                             2 * su.copper_cables_per_domain)
    assert up.links == 144 * su.links_per_gpu and up.to_json()["switch"] == su.switch


def test_lines_buy_ocs_optics_and_fibre_only_for_a_torus(catalog):
    p = catalog.platform("tpu-v4-pod")
    lines = {x.category: x for x in scale_up_lines(p, scale_up(p, 4096))}
    assert set(lines) == {"switch", "transceiver", "fibre trunk"}
    assert (lines["switch"].quantity, lines["transceiver"].quantity, lines["fibre trunk"].quantity) == (48, 6144, 6144)
    assert all(x.tier == "scale-up" and x.source for x in lines.values())
    assert lines["switch"].unit_power_w == 108.0
    mi = catalog.platform("mi300x-platform")
    assert scale_up_lines(mi, scale_up(mi, 64)) == []


def _row(file: str, pid: str) -> tuple[dict, object]:
    """A platform row's raw data from its catalog file (so a test can change a key and revalidate)."""
    src = load_file(builtin_dir() / file, "catalog file")
    i = next(i for i, r in enumerate(src.data["platforms"]) if r["id"] == pid)
    return copy.deepcopy(src.data["platforms"][i]), src


@pytest.mark.parametrize("change,message", [
    ({"kind": "torus-ocs"}, "needs torus"),
    ({"kind": "switched", "switch": None}, "needs switch"),
])
def test_kind_without_its_parts_is_refused(change, message):
    data, src = _row("platforms-amd.yaml", "mi300x-platform")
    data["scale_up"].update(change)
    with pytest.raises(BomError, match=message):
        validate(Platform, data, src, ("platforms", 0))


def test_a_torus_system_is_one_cube():
    data, src = _row("platforms-google.yaml", "tpu-v4-pod")
    validate(Platform, data, src, ("platforms", 0))
    data["nodes_per_system"] = 8
    with pytest.raises(BomError, match="one cube"):
        validate(Platform, data, src, ("platforms", 0))


def test_cube_edges_and_ocs_ports_are_checked():
    with pytest.raises(ValueError, match="two chips"):
        torus([4, 1, 4])
    with pytest.raises(ValueError, match="ports"):
        Torus(cube=[4], ocs=ScaleUpPart(id="o", **PART), optic=ScaleUpPart(id="m", **PART),
              fibre=ScaleUpPart(id="f", **PART))


def test_tpu_build_reports_the_optical_scale_up_tier(bom, tmp_path):
    path = tmp_path / "tpu.yaml"
    path.write_text("name: tpu\nplatform: tpu-v4-pod\ngpus: 512\n")
    r = bom("build", str(path), "-o", str(tmp_path / "o"), "--json", "-q")
    assert r.exit_code == 0, r.stderr
    j = json.loads(r.stdout)
    up = j["tiers"]["scale-up"]
    assert (up["kind"], up["cubes"], up["optical_links"], up["modules"], up["ocs"]) == ("torus-ocs", 8, 768, 768, 48)
    bom_lines = [x for x in j["lines"] if x["tier"] == "scale-up" and x["fabric"] == "ici"]
    assert {x["category"]: x["quantity"] for x in bom_lines} == {"switch": 48, "transceiver": 768, "fibre trunk": 768}
    # The order's default spares cover them too: 2 % of optics, 1 % of fibre, one switch a site.
    spares = {x["category"]: x["quantity"] for x in j["lines"] if x["tier"] == "scale-up" and x["fabric"] == "spares"}
    assert spares == {"switch": 1, "transceiver": 16, "fibre trunk": 8}
    text = bom("build", str(path), "-o", str(tmp_path / "o2"))
    assert "768 optical to 48 optical circuit switches" in text.stdout


def test_cable_plan_lists_every_cube_to_ocs_fibre(catalog):
    from collections import Counter

    from bom.cableplan import rows as plan
    from bom.inputs.scenario import scenario_from_text
    from bom.pipeline import build_scenario

    text = "name: tpu\nplatform: tpu-v4-pod\ngpus: 512\n"
    model = build_scenario(scenario_from_text(text), load_text(text, "t.yaml"), catalog)
    rows = [r for r in plan.rows(model, catalog=catalog, scale_up=True) if r[plan.COL["hop"]] == "cube-ocs"]
    assert len(rows) == model.scale_up.optical_links == 8 * 96
    assert plan.row_count(model, scale_up=True) - plan.row_count(model) == len(rows)
    ends = Counter((r[plan.COL["b_device"]], r[plan.COL["b_port"]]) for r in rows)
    assert max(ends.values()) == 1                                   # every OCS port taken once
    per_ocs = Counter(r[plan.COL["b_device"]] for r in rows)
    assert len(per_ocs) == 48 and set(per_ocs.values()) == {2 * 8}   # each OCS joins both faces of 8 cubes
    assert {r[plan.COL["a_module"]] for r in rows} == {catalog.platform("tpu-v4-pod").scale_up.torus.optic.part_number}


def test_switched_build_says_where_its_links_go(bom, tmp_path):
    path = tmp_path / "helios.yaml"
    path.write_text("name: helios\nplatform: helios-mi455x\ngpus: 72\nfabrics: {compute: {}}\n")
    r = bom("build", str(path), "-o", str(tmp_path / "o"))
    assert r.exit_code == 0, r.stderr
    assert "864 links in 1 domain over 12 scale-up switch chips in 6 trays" in r.stdout


def test_rack_summary_counts_scale_up_as_the_tier_does(catalog):
    from bom.inputs.scenario import scenario_from_text
    from bom.pipeline import build_scenario
    from bom.placement.elevation import HEADER, elevation_rows

    col = {h: i for i, h in enumerate(HEADER)}
    for pid, gpus, per_rack in (("tpu-v4-pod", 256, 144 + 96), ("mi300x-platform", 32, 4 * 28)):
        text = f"name: x\nplatform: {pid}\ngpus: {gpus}\n"
        model = build_scenario(scenario_from_text(text), load_text(text, "x.yaml"), catalog)
        compute = {r[col["rack"]]: r[col["scale_up_links"]] for r in elevation_rows(model) if r[col["role"]] == "node"}
        assert set(compute.values()) == {per_rack}       # a cube rack; a rack of 4 MI300X nodes


def test_compare_counts_a_torus_optics_in_the_network(bom, tmp_path):
    r = bom("compare", "--platforms", "tpu-v4-pod,mi300x-platform", "--gpus", "256", "-o", str(tmp_path / "c"),
            "--json")
    assert r.exit_code == 0, r.stderr
    gens = {g["platform"]: g for g in json.loads(r.stdout)["generations"]}
    # 4 cubes x 96 optical links, one optic each, over 256 chips (+ the scale-out's own modules).
    assert gens["tpu-v4-pod"]["metrics"]["modules_per_gpu"] >= 384 / 256
