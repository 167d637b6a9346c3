"""bom diff's Markdown and workbook (bom/outputs/writers/diff.py) through the publisher: the default against
the default on co-packaged-optics compute switches (q3450-ld). The workbook's Summary, Order delta and
Work order sheets; recalculated by LibreOffice (slow), its formulas give the JSON's deltas back."""

from __future__ import annotations

import json

import openpyxl
import pytest

from bom.outputs.commandsets import diff_output
from bom.outputs.publish import write_all
from bom.outputs.writers.diff import WORK_ORDER_ROWS
from tests.spreadsheet import errors, named_values, recalc


@pytest.fixture(scope="module")
def written(cpo_diff, tmp_path_factory):
    old, new, d, moves, _ = cpo_diff   # tests/conftest.py: built once a session
    paths = write_all(diff_output(d, old.doc, new.doc, moves), tmp_path_factory.mktemp("diff"))
    return d, moves, {p.name: p for p in paths}, old.doc, new.doc


def test_the_publisher_writes_the_diffs_files(written):
    d, moves, paths, _, _ = written
    assert set(paths) == {f"gb300-two-sites-diff{s}" for s in
                          (".json", ".md", ".xlsx", "-workorder.csv", "-workorder-parts.csv")}
    assert json.loads(paths["gb300-two-sites-diff.json"].read_text()) == json.loads(json.dumps(d.to_json()))
    md = paths["gb300-two-sites-diff.md"].read_text()
    assert "## Order delta" in md and "| buy | Q3450-LD | switch |" in md
    assert len(paths["gb300-two-sites-diff-workorder.csv"].read_text().splitlines()) == len(moves) + 1


def test_the_workbook_has_summary_order_delta_and_work_order(written):
    d, moves, paths, _, _ = written
    wb = openpyxl.load_workbook(paths["gb300-two-sites-diff.xlsx"], read_only=True)   # 10,000 rows: read-only
    assert wb.sheetnames == ["Summary", "Order delta", "Work order"]
    order = list(wb["Order delta"].values)
    assert len(order) == len(d.order) + 1 and order[1][6] == "=F2-E2"
    assert len(moves) > WORK_ORDER_ROWS   # the first rows, then where the rest are
    work = list(wb["Work order"].values)
    assert len(work) == WORK_ORDER_ROWS + 2 and "more rows in the work-order CSV" in work[-1][0]
    wb.close()


@pytest.mark.slow   # LibreOffice
def test_the_workbook_recalculates_to_the_jsons_deltas(written, tmp_path):
    d, _, paths, a, b = written
    got = recalc(paths["gb300-two-sites-diff.xlsx"], tmp_path)
    assert errors(got) == []
    v = named_values(got)
    assert v["diff_net"] == pytest.approx(sum(o["delta_usd"] for o in d.order))
    assert v["diff_buy"] - v["diff_return"] == pytest.approx(v["diff_net"])
    for key in ("capex_usd", "tco_usd", "it_power_kw"):
        assert v[f"diff_totals_{key}"] == pytest.approx(b["totals"][key] - a["totals"][key])
    assert v["diff_tiers_scale_out_modules"] == b["tiers"]["scale-out"]["modules"] - a["tiers"]["scale-out"]["modules"]
