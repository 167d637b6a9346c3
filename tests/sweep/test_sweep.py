"""bom sweep end to end in this process (bom/sweep/__init__.py, the command): the 3 x 3 grid's frontier, a
point rebuilt from its row, resuming from the results file."""

from __future__ import annotations

import json
from pathlib import Path

from bom import sweep
from bom.inputs.scenario import load_scenario
from bom.pipeline import build_scenario, catalog_for, report_of
from bom.sweep.evaluate import figures_of
from tests.sweep.conftest import GRID


def _run(path: Path, out: Path):  # type: ignore[no-untyped-def]
    prep = sweep.prepare(path)
    done = sweep.run(prep, out)
    return prep, done, sweep.result(prep, done.journal.done, done.journal.date)


def test_the_3x3_grid_frontier_is_the_cheapest_design_of_each_size(write, tmp_path) -> None:
    """GPUs x oversubscription, capex (min) against GPUs (max). By hand: at each size, more oversubscription
    means fewer spine ports and so less capex (checked below on the figures), and a bigger cluster always costs
    more; so the frontier is the 4:1 design of each size, p0002, p0005, p0008."""
    _, done, doc = _run(write(GRID), tmp_path / "out")
    assert done.computed == 9 and not done.stopped
    capex = {(p["overrides"]["gpus"], p["overrides"]["fabrics.compute.oversubscription"]): p["figures"]["capex_usd"]
             for p in doc["points"]}
    for gpus in (288, 576, 1152):
        assert capex[gpus, 1] > capex[gpus, 2] > capex[gpus, 4]
    assert capex[288, 4] < capex[576, 1] and capex[576, 4] < capex[1152, 1]
    assert doc["frontier"] == ["p0002", "p0005", "p0008"]
    assert [p["id"] for p in doc["points"] if p["frontier"]] == ["p0002", "p0005", "p0008"]
    assert doc["counts"] == {"points": 9, "feasible": 9, "infeasible": 0, "frontier": 3}


def test_a_point_written_out_builds_to_its_row(write, tmp_path, bom) -> None:
    path = write(GRID)
    _, _, doc = _run(path, tmp_path / "out")
    result = bom("sweep", str(path), "--point", "p0004", "-o", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    assert "oversubscription: 2" in result.output and "gpus: 576" in result.output
    assert f"date: {doc['date']}" in result.output   # priced on the sweep's day, whenever it is built
    scenario = tmp_path / "p0004.yaml"
    scenario.write_text(result.output)
    sc, src = load_scenario(scenario)
    catalog = catalog_for(sc, src)
    report = report_of(build_scenario(sc, src, catalog), catalog)
    assert figures_of(report) == doc["points"][4]["figures"]


def test_an_unknown_point_is_named(write, bom) -> None:
    result = bom("sweep", str(write(GRID)), "--point", "p0099")
    assert result.exit_code == 2 and "--point" in result.output and "p0008" in result.output


def test_a_second_run_reads_every_design_back_and_builds_none(write, tmp_path) -> None:
    path, out = write(GRID), tmp_path / "out"
    _, _, first = _run(path, out)
    _, again, second = _run(path, out)
    assert (again.computed, again.resumed) == (0, 9)
    assert json.dumps(first) == json.dumps(second)


def test_the_command_writes_the_files_and_the_frontiers_scenarios(write, tmp_path, bom) -> None:
    out = tmp_path / "out"
    result = bom("sweep", str(write(GRID)), "-o", str(out), "--workers", "1", "-q")
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in out.iterdir())
    assert names == ["small-p0002.yaml", "small-p0005.yaml", "small-p0008.yaml", "small-sweep-results.jsonl",
                     "small-sweep.csv", "small-sweep.html", "small-sweep.json", "small-sweep.xlsx"]
    assert "9 designs (9 built now, 0 read back): 9 feasible, 0 refused, 3 on the frontier" in result.output
