"""The move list of a rebuild (bom/diff/cables.py): the 4 SU to 16 SU DGX B200 cluster with its compute
fabric grown by rebuild (tests/costing/scenarios/b200-4su-16su.yaml). Its moved links are the
re-cabled links bom build counts for the phase (phases[].recabled_links), each with its old and new ends;
re-applying the move list to the 4 SU plan gives the 16 SU plan; bom cables --phase 16su --moves writes
it through the work-order writer. The merge's bound: what it holds is the rows not yet matched."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest

from bom import pipeline
from bom.cableplan.rows import COL, FIELDS, rows
from bom.diff import cables
from bom.inputs.scenario import load_scenario
from bom.pipeline import report_of
from bom.pipeline.moves import phase_moves

B200 = Path(__file__).parents[1] / "costing" / "scenarios" / "b200-4su-16su.yaml"
#: Numbering of a plan (a row's id, its link's, its bundle's): not what is cabled.
NUMBERS = {"cable_id", "link_id", "bundle"}


@pytest.fixture(scope="module")
def rebuild(tmp_path_factory, catalog):
    text = B200.read_text()
    assert "  compute: {}\n" in text
    path = tmp_path_factory.mktemp("rebuild") / "b200-rebuild.yaml"
    path.write_text(text.replace("  compute: {}\n", "  compute: {growth: rebuild}\n"))
    sc, src = load_scenario(path)
    final = pipeline.build_scenario(sc, src, catalog)
    report = pipeline.with_phases(report_of(final, catalog), sc, src, catalog)
    models = pipeline.phase_models(sc, src, catalog, final)
    moves: list[cables.Move] = []
    changes = phase_moves(sc, src, catalog, final, "16su", moves.append)
    return path, report, models, moves, changes


def test_as_many_moved_links_as_the_phase_recables(rebuild):
    _, report, _, moves, changes = rebuild
    assert report.phases.chosen.policy == "rebuild"
    recabled = report.phases.chosen.phases[1].recabled_links
    assert recabled == 1536   # the 4 SU's leaf uplinks and the node links whose leaves the 16 SU renumbers
    assert changes.to_json()["moved_links"] == recabled
    moved = {o[COL["link_id"]] for a, o, _ in moves if a in ("move", "remove")}
    assert len(moved) == recabled


def test_each_moved_link_has_its_old_and_new_ends(rebuild):
    _, _, _, moves, changes = rebuild
    assert changes.counts["remove"] == 0
    for action, o, n in moves:
        if action == "move":
            assert o is not None and n is not None
            ends = lambda r: tuple(r[COL[f]] for f in ("a_device", "a_port", "b_device", "b_port"))  # noqa: E731
            assert ends(o) != ends(n)


def _cabled(plan) -> Counter:
    keep = [i for i, f in enumerate(FIELDS) if f not in NUMBERS]
    return Counter(tuple(r[i] for i in keep) for r in plan)


def test_reapplying_the_move_list_to_the_old_plan_gives_the_new_plan(rebuild, catalog):
    _, _, models, moves, _ = rebuild
    old = list(rows(models[0], catalog=catalog))
    new = list(rows(models[1], catalog=catalog))
    assert _cabled(cables.apply(old, moves)) == _cabled(new)
    assert _cabled(old) != _cabled(new)


def test_the_merge_holds_only_the_rows_not_yet_matched(rebuild, catalog):
    _, _, models, _, changes = rebuild
    new_rows = sum(1 for _ in rows(models[1], catalog=catalog))
    assert changes.reentered == 0
    # the 16 SU's rows past the 4 SU's (one section, compute node-leaf of site 1, holds them) at most
    assert 0 < changes.held_max <= new_rows
    same = cables.merge(rows(models[1], catalog=catalog), rows(models[1], catalog=catalog))
    assert same.same and same.held_max == 0 and same.same_rows == new_rows


def _row(fabric: str, hop: str, site: str, dev: str, port: str, far: str, part: str = "P1") -> tuple:
    r = dict.fromkeys(FIELDS, "")
    r.update(fabric=fabric, hop=hop, a_site=site, b_site=site, a_device=dev, a_port=port, b_device=far,
             b_port="p1", cable_part=part, link_id=f"L-{dev}-{port}")
    return tuple(r[f] for f in FIELDS)


def test_sections_only_one_plan_has():
    a = [_row("c", "node-leaf", "s1", "n1", "p1", "l1"), _row("c", "leaf-spine", "s1", "l1", "p9", "s1"),
         _row("c", "node-leaf", "s2", "n2", "p1", "l2")]
    b = [_row("c", "node-leaf", "s1", "n1", "p1", "l9"), _row("c", "node-leaf", "s2", "n2", "p1", "l2", "P2"),
         _row("c", "spine-core", "s2", "s1", "p1", "c1")]
    got: list[cables.Move] = []
    out = cables.merge(a, b, got.append)
    # leaf-spine of s1 only the old plan has: the new plan never enters it, so it waits to the end
    assert [m[0] for m in got] == ["move", "replace", "add", "remove"]
    assert out.to_json()["moved_links"] == 2 and out.reentered == 0
    assert _cabled(cables.apply(a, got)) == _cabled(b)


def test_cables_writes_the_phase_move_list(rebuild, bom, tmp_path):
    path, report, _, moves, _ = rebuild
    r = bom("cables", str(path), "--phase", "16su", "--moves", "-o", str(tmp_path), "-q")
    assert r.exit_code == 0, r.output
    with (tmp_path / "b200-4su-16su-16su-moves-workorder.csv").open() as fh:
        got = list(csv.DictReader(fh))
    assert len(got) == len(moves)
    moved = {x["link_id"] for x in got if x["action"] in ("move", "remove")}
    assert len(moved) == report.phases.chosen.phases[1].recabled_links
    assert all(x["old_b"] and x["new_b"] for x in got if x["action"] == "move")
    assert (tmp_path / "b200-4su-16su-16su-moves-workorder.xlsx").exists()
    first = bom("cables", str(path), "--phase", "4su", "--moves", "-o", str(tmp_path))
    assert first.exit_code == 2 and "the first" in first.stderr
