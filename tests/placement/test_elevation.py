"""Rack elevations: the same slots as the placement's own elevation, totals within budget, samples."""

from __future__ import annotations

import pytest

from bom.inputs.scenario import load_scenario
from bom.pipeline import build_scenario
from bom.placement.elevation import HEADER, elevation_rows, samples
from tests.paths import REFERENCE as REFERENCE_DIR
from tests.paths import ROOT

FULL = REFERENCE_DIR / "superpod_h100_4su_full.yaml"
COL = {h: i for i, h in enumerate(HEADER)}


@pytest.mark.parametrize("path", [None, FULL], ids=["default", "h100-full"])
def test_rows_are_the_placements_slots_within_budget(path, catalog):
    sc, src = load_scenario(path)
    model = build_scenario(sc, src, catalog)
    p = model.placement
    rows = list(elevation_rows(model))
    ref = [(r.id, s.u, s.height, s.device, s.role, s.catalog_id) for r in p.racks() for s in p.elevation(r)]
    assert [(x[COL["rack"]], x[COL["u"]], x[COL["height"]], x[COL["device"]], x[COL["role"]], x[COL["model"]])
            for x in rows] == ref
    for x in rows:
        assert x[COL["rack_u_used"]] <= x[COL["rack_u_budget"]]
        assert x[COL["rack_power_w"]] <= x[COL["rack_power_budget_w"]]
    assert {x[COL["rack"]] for x in rows} == {r.id for r in p.racks()}
    kinds = [v.rack.kind for v in samples(p)]
    assert len(kinds) == len(set(kinds)) and set(kinds) == {r.kind for r in p.racks()}


@pytest.mark.parametrize("path", [None, FULL, ROOT / "tests/golden/scenarios/ring-three-sites.yaml",
                                  ROOT / "tests/golden/scenarios/amd.yaml"],
                         ids=["default", "h100-full", "ring-three-sites", "amd"])
def test_samples_are_each_kinds_first_rack_of_every_rack_walked(path, catalog):
    """The samples read only the sections' first copies: the same racks, views and order as a walk of
    every rack; the first copies are that walk's racks in its order, each layout's first rack among them."""
    sc, src = load_scenario(path)
    p = build_scenario(sc, src, catalog).placement
    seen: dict[str, object] = {}
    for rack in p.racks():
        seen.setdefault(rack.kind, rack)
    got = samples(p)
    assert [v.rack for v in got] == list(seen.values())
    assert [v.slots for v in got] == [tuple(p.elevation(r)) for r in seen.values()]
    walk, firsts = list(p.laid_out()), list(p.first_copies())
    order = {r: i for i, (_, r) in enumerate(walk)}
    assert [order[r] for r in firsts] == sorted(order[r] for r in firsts)
    first_of: dict[int, object] = {}
    for lay, r in walk:
        first_of.setdefault(id(lay), r)
    assert set(first_of.values()) <= set(firsts)


def test_h100_compute_rack_scale_up_summary(catalog):
    """A DGX H100 rack: 8 GPUs x 18 NVLink links a node, inside the nodes (no rack copper)."""
    from collections import Counter

    sc, src = load_scenario(FULL)
    rows = [x for x in elevation_rows(build_scenario(sc, src, catalog)) if x[COL["kind"]] == "compute"]
    nodes = Counter(x[COL["rack"]] for x in rows if x[COL["role"]] == "node")
    for x in rows:
        assert (x[COL["scale_up_links"]], x[COL["scale_up_cables"]]) == (nodes[x[COL["rack"]]] * 8 * 18, 0)
    assert set(nodes.values()) == {4, 3}   # the last SU's last rack holds 3 (127 nodes)


def _runs(roles: list[str]) -> list[tuple[str, int]]:
    """Consecutive runs of one role, bottom up: ["a", "a", "b"] -> [("a", 2), ("b", 1)]."""
    out: list[tuple[str, int]] = []
    for r in roles:
        if out and out[-1][0] == r:
            out[-1] = (r, out[-1][1] + 1)
        else:
            out.append((r, 1))
    return out


#: The NVL72 rack's published front view, bottom up. Compute trays: SemiAnalysis, "AMD 2.0 - New Sense
#: of Urgency | MI450X Chance to Beat Nvidia | Nvidia's New Moat" (2025), on the Oberon rack: "10
#: compute trays at the top of Nvidia's rack" above the 9 NVLink switch trays, 8 below (18 a rack:
#: NVIDIA DGX GB200 User Guide, Hardware). Power shelves at the top and the bottom (ServeTheHome,
#: Pegatron Vera Rubin NVL72 on the same rack); 8 of them (NVL72 AI Factory Enterprise RA, System
#: Hardware & Components: 8 power shelves of 33 kW), 4 and 4 (the split is unconfirmed in the catalog).
NVL72_FRONT = [("power-shelf", 4), ("node", 8), ("nvlink-switch", 9), ("node", 10), ("power-shelf", 4)]


@pytest.mark.parametrize("platform", ["gb200-nvl72", "gb300-nvl72"])
def test_nvl72_compute_rack_is_the_published_front_view(platform, catalog, tmp_path):
    """The compute trays stand below and above the NVLink switch trays, as NVIDIA builds the rack,
    not all below them; the in-rack management switches go on top; every U once, from U1 up."""
    path = tmp_path / "s.yaml"
    path.write_text(f"name: nvl\nplatform: {platform}\ngpus: 144\nfabrics:\n  compute: {{}}\n  oob: {{}}\n")
    model = build_scenario(*load_scenario(path), catalog)
    p = model.placement
    rack = next(r for r in p.racks() if r.kind == "compute")
    slots = sorted((s for s in p.elevation(rack) if s.height), key=lambda s: s.u)
    assert [s.u for s in slots] == list(range(1, len(slots) + 1))
    assert _runs([s.role for s in slots])[:5] == NVL72_FRONT
    assert [s.role for s in slots[35:]] == ["oob-leaf", "oob-leaf"]
    # the node names count up from the bottom, and the cable plan's node ends stand where the rack has them
    nodes = [s for s in slots if s.role == "node"]
    assert [s.device for s in nodes] == [f"{rack.id}-node-{i:02d}" for i in range(1, 19)]
    at = {s.device: s.u for s in nodes}
    from bom.cableplan.rows import COL, rows
    ends = {(r[COL["a_device"]], r[COL["a_u"]]) for r in rows(model, catalog=catalog) if r[COL["a_device"]] in at}
    assert ends and all(at[d] == u for d, u in ends)
