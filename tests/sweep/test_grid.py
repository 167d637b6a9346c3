"""The sweep's points (bom/sweep/grid.py): overrides set into the base's keys, the platform axis as bom compare
reads it, each value checked on its own, a point as a scenario file."""

from __future__ import annotations

import pytest
import yaml

from bom import sweep
from bom.errors import BomError
from bom.sweep.grid import scenario_yaml, with_overrides
from tests.sweep.conftest import GRID, sweep_text


def test_the_grid_is_the_axes_product_first_axis_slowest(write) -> None:
    prep = sweep.prepare(write(GRID))
    assert [p.id for p in prep.points] == [f"p{i:04d}" for i in range(9)]
    assert [tuple(p.overrides.values()) for p in prep.points[:4]] == [(288, 1), (288, 2), (288, 4), (576, 1)]
    assert prep.points[5].scenario["fabrics"]["compute"] == {"oversubscription": 4}
    assert prep.points[5].scenario["gpus"] == 576


def test_the_platform_axis_resets_what_the_platform_owns_and_takes_a_switch() -> None:
    base = {"platform": "gb300-nvl72", "gpus": 144, "layout": {"racks_per_row": 8},
            "fabrics": {"compute": {"switch": "q3400", "su_nodes": 8, "planes": 2}, "oob": {"switch": "sn2201"}}}
    data = with_overrides(base, {"platform": "gb300-nvl72@q3450-ld"})
    # bom compare's rule (bom/costing/compare.py, PLATFORM_OWNED): the platform's own switches and floor plan.
    assert data["fabrics"] == {"compute": {"planes": 2, "switch": "q3450-ld"}, "oob": {}}
    assert "layout" not in data and base["fabrics"]["compute"]["switch"] == "q3400"   # the base is untouched
    # Another axis that sets a switch wins over the platform's default.
    assert with_overrides(base, {"platform": "dgx-b200", "fabrics.compute.switch": "qm9700"})["fabrics"][
        "compute"]["switch"] == "qm9700"


def test_a_value_that_makes_no_valid_scenario_is_named_at_its_line(write) -> None:
    with pytest.raises(BomError) as e:
        sweep.prepare(write(sweep_text('  fabrics.compute.oversubscription: [1, "x:2"]\n')))
    assert "axes.fabrics.compute.oversubscription.1" in str(e.value) and "sweep.yaml:9" in str(e.value)
    assert "is not a ratio" in str(e.value)


def test_an_unknown_platform_or_switch_is_named(write) -> None:
    with pytest.raises(BomError, match="axes.platform.1: unknown platform 'gb301'"):
        sweep.prepare(write(sweep_text("  platform: [gb300-nvl72, gb301]\n")))
    with pytest.raises(BomError, match="unknown switch 'q9999'"):
        sweep.prepare(write(sweep_text("  platform: [gb300-nvl72@q9999]\n")))


def test_a_point_is_a_scenario_file_with_its_overrides_said(write) -> None:
    prep = sweep.prepare(write(GRID))
    text = scenario_yaml(prep.points[7], "small")
    assert text.startswith("# bom sweep small, point p0007:\n#   gpus: 1152\n#   fabrics.compute.oversubscription: 2\n")
    data = yaml.safe_load(text)
    assert data["name"] == "small-p0007" and data["gpus"] == 1152


def test_relative_price_files_stay_the_base_files(write, tmp_path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "base.yaml").write_text("name: b\nplatform: gb300-nvl72\ngpus: 72\nprices: [q.csv]\n")
    (tmp_path / "sub" / "q.csv").write_text("sku,price,currency,price_source,quoted_on\n")
    prep = sweep.prepare(write("name: s\nbase: sub/base.yaml\naxes: {gpus: [72]}\n"))
    assert prep.points[0].scenario["prices"] == [str((tmp_path / "sub" / "q.csv").resolve())]


def test_a_price_file_axis_is_read_from_the_sweep_files_folder(write, tmp_path) -> None:
    (tmp_path / "q.csv").write_text("sku,price,currency,price_source,quoted_on\n")
    prep = sweep.prepare(write(sweep_text("  prices.files: [[], [q.csv]]\n")))
    assert [p.scenario["prices"]["files"] for p in prep.points] == [[], [str((tmp_path / "q.csv").resolve())]]
