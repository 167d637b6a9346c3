"""Rack elevations: the same slots as the placement's own elevation, totals within budget, samples."""

from __future__ import annotations

import pytest

from bom.inputs.scenario import load_scenario
from bom.pipeline import build_scenario
from bom.placement.elevation import HEADER, elevation_rows, samples
from tests.paths import REFERENCE as REFERENCE_DIR

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


def test_h100_compute_rack_scale_up_summary(catalog):
    """A DGX H100 rack: 8 GPUs x 18 NVLink links a node, inside the nodes (no rack copper)."""
    from collections import Counter

    sc, src = load_scenario(FULL)
    rows = [x for x in elevation_rows(build_scenario(sc, src, catalog)) if x[COL["kind"]] == "compute"]
    nodes = Counter(x[COL["rack"]] for x in rows if x[COL["role"]] == "node")
    for x in rows:
        assert (x[COL["scale_up_links"]], x[COL["scale_up_cables"]]) == (nodes[x[COL["rack"]]] * 8 * 18, 0)
    assert set(nodes.values()) == {4, 3}   # the last SU's last rack holds 3 (127 nodes)
