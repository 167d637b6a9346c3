"""The results file (bom/sweep/journal.py): read back on resume, a line cut short dropped, another sweep's
file refused, the first run's date kept."""

from __future__ import annotations

import datetime as dt

import pytest

from bom.errors import BomError
from bom.model.sweep import PointJson
from bom.sweep.journal import Journal


def _row(i: int) -> PointJson:
    return {"id": f"p{i:04d}", "index": i, "overrides": {"gpus": 72 * (i + 1)}, "feasible": True, "refused_by": None,
            "reason": None, "figures": None, "frontier": False}


def test_a_resumed_file_gives_back_its_rows_and_its_date(tmp_path) -> None:
    path = tmp_path / "r.jsonl"
    j = Journal.open(path, "abc", 3, dt.date(2027, 1, 5))
    j.append(_row(0))
    j.append(_row(2))
    j.close()
    again = Journal.open(path, "abc", 3, dt.date(2027, 2, 1))
    assert again.date == dt.date(2027, 1, 5) and sorted(again.done) == [0, 2] and again.done[2] == _row(2)
    again.close()


def test_a_line_cut_short_is_dropped_and_not_appended_to(tmp_path) -> None:
    path = tmp_path / "r.jsonl"
    j = Journal.open(path, "abc", 3, dt.date(2027, 1, 5))
    j.append(_row(0))
    j.close()
    with open(path, "a") as fh:
        fh.write('{"id": "p0001", "ind')   # a kill mid-write
    again = Journal.open(path, "abc", 3, dt.date(2027, 1, 5))
    assert sorted(again.done) == [0]
    again.append(_row(1))
    again.close()
    assert sorted(Journal.open(path, "abc", 3, dt.date(2027, 1, 5)).done) == [0, 1]


def test_another_sweeps_file_is_refused(tmp_path) -> None:
    path = tmp_path / "r.jsonl"
    Journal.open(path, "abc", 3, dt.date(2027, 1, 5)).close()
    with pytest.raises(BomError, match="another sweep's") as e:
        Journal.open(path, "xyz", 3, dt.date(2027, 1, 5))
    assert e.value.where == str(path) and "Delete the file" in (e.value.hint or "")
    path.write_text("name,price\n")
    with pytest.raises(BomError, match="not a sweep's results file"):
        Journal.open(path, "abc", 3, dt.date(2027, 1, 5))
