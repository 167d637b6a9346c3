"""Where devices stand (bom/model/floor.py): one set of floors per placement."""

from __future__ import annotations

from bom.inputs.scenario import scenario_from_text
from bom.inputs.yamlio import load_text
from bom.model.floor import Floor, floors
from bom.pipeline.model import build_model
from bom.roles import Layer


def _placement(gpus: int, catalog):  # type: ignore[no-untyped-def]
    text = f"name: f\nplatform: gb300-nvl72\ngpus: {gpus}\nfabrics: {{compute: {{}}, oob: {{}}}}\n"
    return build_model(scenario_from_text(text), load_text(text, "f.yaml"), catalog, None).placement


def test_one_placement_one_set_of_floors(catalog) -> None:  # type: ignore[no-untyped-def]
    """The fabric views and the cable plan of one placement share its floors (each device's spot found
    once); they answer as a floor made afresh does; another placement has its own."""
    placement = _placement(288, catalog)
    shared = floors(placement)
    assert floors(placement) is shared
    fresh = tuple(Floor(shape, placement.racks_per_row) for shape in placement.sites)
    nodes = shared[0].count(Layer.NODE)
    assert nodes > 1
    assert [shared[0].spot(Layer.NODE, i) for i in range(nodes)] == [fresh[0].spot(Layer.NODE, i) for i in range(nodes)]
    other = _placement(144, catalog)
    assert floors(other) is not shared and floors(other)[0].count(Layer.NODE) < nodes
