"""Whole builds from scenarios: tiers, copper in the rack, and limits that exit 2."""

from __future__ import annotations

import json

import pytest

from bom.inputs.scenario import scenario_from_text
from bom.inputs.yamlio import load_text
from bom.pipeline.model import build_model


def build(catalog, text):
    return build_model(scenario_from_text(text), load_text(text, "s.yaml"), catalog, None)


@pytest.mark.slow   # the default built and written by the CLI: 1.3 to 1.8 s under load, near the 2 s budget
def test_default_scenario_has_all_three_tiers(bom):
    r = bom("build", "--json")
    assert r.exit_code == 0
    t = json.loads(r.stdout)["tiers"]
    assert t["scale-up"]["links"] > 0 and t["scale-up"]["modules"] == 0
    assert t["scale-out"]["links"] > 0 and t["scale-out"]["modules"] > 0
    assert t["scale-across"]["wavelengths"] > 0


def test_scale_up_is_copper_and_never_optics(catalog):
    m = build(catalog, "name: a\nplatform: gb200-nvl72\ngpus: 144\n")
    up = m.tiers()["scale-up"]
    # 2 NVL72 domains; 72 GPUs x 18 NVLink links each; the rack's copper spine cables.
    assert (up["domains"], up["links"], up["modules"], up["fibre_runs"]) == (2, 2 * 72 * 18, 0, 0)
    assert up["cables"] == 2 * m.platform.scale_up.copper_cables_per_domain
    assert up["switch_trays"] == 2 * 9


def test_tor_in_rack_runs_are_copper(catalog):
    m = build(catalog, "name: t\nplatform: gb200-nvl72\ngpus: 576\n"
                       "fabrics: {compute: {switch: qm9700, topology: tor}}\n")
    f = m.fabrics["compute"]
    node_leaf = [g for g in f.groups if g.hop == "node-leaf"]
    assert node_leaf and all(g.copper and g.bucket == "in-rack" for g in node_leaf)
    assert all(g.modules == 0 and g.fibre_runs == 0 for g in node_leaf)
    # 18 trays x 4 ports = 72 per rack over 32 downlinks: 3 ToRs per rack, 8 racks.
    assert f.switches("leaf") == 24
    # The tier holds the 4 UFM links too (optical, from the management rack).
    assert f.hop_links("ufm-leaf") == 4
    # The leaves nearest the spine rack reach it on copper too (their route is short enough).
    copper_up = sum(g.links for g in f.groups if g.hop == "leaf-spine" and g.copper)
    assert all(g.length_m <= 5 for g in f.groups if g.hop == "leaf-spine" and g.copper)
    assert m.tiers()["scale-out"]["copper_share"] == pytest.approx(
        (576 + copper_up) / (576 + f.hop_links("leaf-spine") + 4))


def test_three_layer_build(catalog):
    m = build(catalog, "name: big\nplatform: dgx-h100\nnodes: 2000\n")
    f = m.fabrics["compute"].to_json()
    # 2,000 nodes / 32 = 63 SUs (62.5) x 8 rails = 504 leaves, 32 up each. The pod with the
    # fewest spines + cores: one SU (8 leaves) on 8 spines (4 links to each, 32 down / 32 up)
    # -> 63 pods, 504 spines; each spine's 32 uplinks over 63 pods -> 32 cores per core group
    # (63 x 1 <= 64 ports), 8 groups -> 256 cores. Pods of 4 SUs would need 16 x 32 = 512
    # spines and the same 256 cores (16 pods x 32 up over 64 ports: 8 per group, 32 groups).
    assert f["layers"] == 3 and f["switches"]["leaf"] == 504
    assert f["links"]["node-leaf"] == 16000 and f["links"]["leaf-spine"] == 504 * 32
    assert f["switches"]["spine"] == 63 * 8 and f["links"]["spine-core"] == 63 * 8 * 32
    assert f["switches"]["core"] == 8 * 32


@pytest.mark.parametrize("text,line,words", [
    ("name: x\nplatform: dgx-h100\nnodes: 2000\nfabrics:\n  compute: {layers: 2}\n", 5,
     ["fabrics.compute", "two layers", "layers: 3"]),
    ("name: x\nplatform: dgx-h100\nnodes: 20000\n", 1, ["three layers of qm9700 hold at most", "GPUs"]),
    ("name: x\nplatform: dgx-h100\nnodes: 20\nlayout: {racks_per_row: 0}\n", 4,
     ["layout.racks_per_row", "greater than or equal to 1"]),
    ("name: x\nplatform: dgx-h100\nnodes: 20\nfabrics:\n  compute: {switch: qm9701}\n", 5,
     ["Did you mean 'qm9700'"]),
    ("name: x\nplatform: dgx-h100\nnodes: 20\nfabrics:\n  compute: {switch: sn2201}\n", 5,
     ["no 400 Gbit/s ports"]),
])
def test_limits_exit_2(bom, tmp_path, text, line, words):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    r = bom("build", str(path))
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.stderr and f"{path}:{line}" in r.stderr, r.stderr
    for w in words:
        assert w in r.stderr, r.stderr


def test_workload_scenario_is_sized_then_built(bom, tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text("name: w\nplatform: gb300-nvl72\nworkload: {kind: pretrain, params: 70e9, "
                    "tokens: 15e12, deadline: \"60 d\"}\n")
    j = json.loads(bom("build", str(path), "--json").stdout)
    assert j["sizing"]["gpus"] <= j["gpus"] and j["gpus"] % 72 == 0


def test_patch_panels_on_runs_that_leave_their_row(catalog):
    base = "name: p\nplatform: dgx-h100\nnodes: 127\nfabrics: {compute: {media: [multimode, smf-parallel]}}\n"
    plain = build(catalog, base)
    panels = build(catalog, base + "layout: {patch_panels: 2}\n")
    cross = [g for g in panels.groups if g.bucket == "cross-row"]
    assert cross and all(g.panel is not None for g in cross)
    # Two panels on every cross-row run: 2 x ceil(runs / 48 ports) panel units per group.
    assert all(g.panels == 2 * -(-g.fibre_runs // g.panel.ports) for g in cross)
    # Each panel adds a mated pair (0.35 dB for MPO) to the loss of the same run.
    by_key = {(g.hop, g.length_m): g for g in plain.groups}
    for g in cross:
        before = by_key[(g.hop, g.length_m)]
        assert g.choice.loss_db == pytest.approx(before.choice.loss_db + 2 * 0.35)
    assert all(g.panels == 0 for g in panels.groups if g.bucket != "cross-row")


def test_counts_that_never_settle_are_an_error_not_the_last_round(catalog, monkeypatch):
    """The OOB/in-band rounds raise when the counts still move after the last round (before, the
    build silently kept whatever the sixth round gave)."""
    import itertools

    from bom.errors import BomError
    from bom.model.fabrics import OobFabric
    from bom.pipeline import model as build

    real_leaves, real_build = OobFabric.leaves, build.build_oob
    calls = itertools.count()
    extra: dict[int, int] = {}

    def build_oob(*args, **kwargs):
        oob = real_build(*args, **kwargs)
        extra[id(oob)] = next(calls)   # each round one management switch more (a bug the loop must not hide)
        return oob

    monkeypatch.setattr(build, "build_oob", build_oob)
    monkeypatch.setattr(OobFabric, "leaves", property(lambda self: real_leaves.fget(self) + extra.get(id(self), 0)))
    text = "name: f\nplatform: dgx-h100\nnodes: 64\nfabrics: {compute: {}, inband: {}, oob: {}}\n"
    with pytest.raises(BomError, match="did not settle in 6 rounds"):
        build_model(scenario_from_text(text), load_text(text, "f.yaml"), catalog, None)
