"""The model's stages tied together (bom/pipeline/model.py): the placement made once per distinct design."""

from __future__ import annotations

import pytest

from bom.inputs.scenario import scenario_from_text
from bom.inputs.yamlio import load_text
from bom.pipeline import model as stages

CASES = {
    # The management switches' own spines, every fabric (the build's bench at 30,240 GPUs: three rounds).
    "spines": "platform: gb300-nvl72\ngpus: 30240\n"
              "fabrics: {compute: {switch: q3400}, storage: {}, inband: {}, oob: {uplinks: spine}}\n",
    # The management switches' uplinks into the in-band leaves (the in-band fabric rebuilt each round; two rounds).
    "inband": "platform: dgx-h100\nnodes: 64\nfabrics: {compute: {}, storage: {}, inband: {}, oob: {}}\n",
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_oob_rounds_place_each_design_once(name, catalog, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The management network settles in rounds (switches -> racks -> PDUs -> in-band leaves); a round whose
    design equals the last one's keeps its placement (the model is the one it was), so no two placements
    are of equal designs (main placed the last round's design twice), and the model's placement is its
    design's placed from scratch."""
    placed = []
    real = stages.place

    def place(design, catalog):  # type: ignore[no-untyped-def]
        placed.append(design)
        return real(design, catalog)

    text = f"name: {name}\n{CASES[name]}"
    sc, src = scenario_from_text(text), load_text(text, f"{name}.yaml")
    monkeypatch.setattr(stages, "place", place)
    model = stages.build_model(sc, src, catalog, None)
    assert len(placed) >= 2 and all(a != b for a, b in zip(placed, placed[1:], strict=False))
    assert model.placement == real(placed[-1], catalog)
