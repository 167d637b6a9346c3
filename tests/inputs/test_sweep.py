"""The sweep file (bom/inputs/sweep.py): axes are scenario key paths, checked against the scenario's model;
ranges; objectives; a bad one names its key and what is allowed."""

from __future__ import annotations

import pytest

from bom.errors import BomError
from bom.inputs.sweep import OBJECTIVES, Range, check_key, load_sweep


def _load(tmp_path, text):  # type: ignore[no-untyped-def]
    p = tmp_path / "s.yaml"
    p.write_text(text)
    return load_sweep(p)


@pytest.mark.parametrize("key", ["platform", "gpus", "fabrics.compute.oversubscription", "fabrics.compute.planes",
                                 "fabrics.compute.rails_per_leaf", "fabrics.compute.topology",
                                 "fabrics.compute.growth", "sites.count", "sites.power", "prices.files",
                                 "workload.deadline", "tco.electricity", "layout.racks_per_row"])
def test_every_axis_the_issue_names_is_a_scenario_key(key: str) -> None:
    check_key(key)


def test_an_unknown_key_names_the_step_and_what_is_allowed(tmp_path) -> None:
    with pytest.raises(BomError) as e:
        _load(tmp_path, "name: s\naxes:\n  fabrics.compute.oversubscriptoin: [1, 2]\n")
    text = str(e.value)
    assert "s.yaml:3" in text and "axes" in text and "oversubscriptoin" in text
    assert "oversubscription" in text and "rails_per_leaf" in text   # the suggestion and the allowed keys


def test_a_fabric_that_is_no_fabric_is_refused(tmp_path) -> None:
    with pytest.raises(BomError, match="Known: compute, inband, oob, storage"):
        _load(tmp_path, "name: s\naxes:\n  fabrics.computer.planes: [1, 2]\n")


def test_a_key_under_a_value_is_refused() -> None:
    with pytest.raises(ValueError, match="gpus takes a value"):
        check_key("gpus.count")


def test_a_range_gives_its_values_with_the_unit() -> None:
    assert Range(start=60, stop=120, step=20, unit="MW").values() == ["60 MW", "80 MW", "100 MW", "120 MW"]
    assert Range(start=1, stop=2, step=0.25).values() == [1, 1.25, 1.5, 1.75, 2]
    with pytest.raises(BomError, match="empty"):
        Range(start=3, stop=1, step=1).values()


def test_objectives_take_names_or_goals(tmp_path) -> None:
    sweep, _ = _load(tmp_path, "name: s\naxes: {gpus: [72]}\nobjectives: [capex_usd, {figure: copper_share, "
                               "goal: min}]\n")
    assert [(o.figure, o.direction) for o in sweep.ranked()] == [("capex_usd", "min"), ("copper_share", "min")]
    useful, _ = _load(tmp_path, "name: s\naxes: {gpus: [72]}\nobjectives: [usd_per_useful_gpu_hour]\n")
    assert [(o.figure, o.direction) for o in useful.ranked()] == [("usd_per_useful_gpu_hour", "min")]
    with pytest.raises(BomError, match="Allowed: " + ", ".join(OBJECTIVES)):
        _load(tmp_path, "name: s\naxes: {gpus: [72]}\nobjectives: [cost]\n")


def test_too_many_designs_are_refused_before_any_is_made(tmp_path) -> None:
    sweep, _ = _load(tmp_path, "name: s\naxes:\n  gpus: {start: 1, stop: 1000, step: 1}\n"
                               "  nodes: {start: 1, stop: 1000, step: 1}\n")
    with pytest.raises(BomError, match="1,000,000 designs"):
        sweep.axis_values()
