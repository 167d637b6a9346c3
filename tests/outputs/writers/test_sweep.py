"""The sweep's files (bom/outputs/writers/sweep.py): one row per design, the workbook's sheets, the report's
plot (the frontier as its steps, refused designs marked), the JSON against its schema."""

from __future__ import annotations

import csv
import io
import json
import re

import jsonschema
import pytest
from openpyxl import load_workbook

from bom.model.sweep import PointJson, SweepJson, sweep_json
from bom.outputs.commandsets import sweep_output
from bom.outputs.schema import output_schema
from bom.outputs.writers.sweep import staircase


def _point(i: int, cost: float, mw: float, feasible: bool = True, built: bool = True) -> PointJson:
    figures = {"platform": "gb300-nvl72", "compute_switch": "q3400", "gpus": 288, "sites": 1, "capex_usd": 1e7 * cost,
               "tco_usd": 2e7 * cost, "usd_per_gpu_hour": cost, "usd_per_useful_gpu_hour": None, "facility_mw": mw,
               "it_mw": mw / 1.25, "copper_share": 0.8, "network_capex_share": 0.1, "job_days": None,
               "deadline_days": None, "deadline_met": None, "in_service": "2027-12-01", "check_errors": 0,
               "check_warnings": 0}
    return {"id": f"p{i:04d}", "index": i, "overrides": {"gpus": 72 * (i + 1), "tco.pue": 1.25},
            "feasible": feasible, "refused_by": None if feasible else "constraints.capex",
            "reason": None if feasible else "=HYPERLINK(\"x\") over the limit", "figures": figures if built else None,
            "frontier": False}  # type: ignore[typeddict-item]


@pytest.fixture()
def doc() -> SweepJson:
    points = [_point(0, 3.0, 10), _point(1, 2.0, 15), _point(2, 2.5, 12), _point(3, 4.0, 11),
              _point(4, 1.0, 5, feasible=False), _point(5, 1.0, 1, feasible=False, built=False)]
    return sweep_json("s", "s.yaml", "inline", "2027-01-04", {"gpus": [72, 144], "tco.pue": [1.25]},
                      [{"figure": "usd_per_gpu_hour", "goal": "min"}, {"figure": "facility_mw", "goal": "min"}],
                      {"capex": "40e6 USD"}, points)


def test_every_design_is_one_row_with_its_reason_kept_as_text(doc) -> None:
    files = sweep_output(doc, {"p0001": "name: s-p0001\n"}).files
    rows = list(csv.DictReader(io.StringIO(files["s-sweep.csv"].decode())))
    assert [r["id"] for r in rows] == [f"p{i:04d}" for i in range(6)]
    assert [r["frontier"] for r in rows] == ["True", "True", "True", "False", "False", "False"]
    assert rows[4]["refused_by"] == "constraints.capex" and rows[4]["reason"].startswith("'=HYPERLINK")
    assert rows[2]["axis:gpus"] == "216" and rows[2]["gpus"] == "288"   # the value set, the figure built
    assert rows[2]["usd_per_gpu_hour"] == "2.5" and rows[5]["usd_per_gpu_hour"] == ""
    assert rows[1]["rebuild"] == "bom sweep s.yaml --point p0001 > p0001.yaml && bom build p0001.yaml"
    assert files["s-p0001.yaml"] == b"name: s-p0001\n"


def test_the_json_holds_to_its_schema(doc) -> None:
    schema = output_schema()
    validator = jsonschema.Draft202012Validator({**schema, "$ref": "#/$defs/sweep"})
    data = json.loads(sweep_output(doc, {}).files["s-sweep.json"])
    assert list(validator.iter_errors(data)) == []
    assert data["frontier"] == ["p0001", "p0002", "p0000"]
    data["points"][0]["surprise"] = 1
    assert list(validator.iter_errors(data)) != []


def test_the_workbook_has_the_points_and_the_frontier_best_first(doc) -> None:
    wb = load_workbook(io.BytesIO(sweep_output(doc, {}).files["s-sweep.xlsx"]))
    assert wb.sheetnames == ["Sweep", "Points", "Frontier"]
    assert [c.value for c in wb["Frontier"]["A"]][1:] == ["p0001", "p0002", "p0000"]
    assert wb["Points"].max_row == 7 and wb["Points"]["E6"].data_type == "s"   # the reason stays text


def test_the_plot_draws_the_frontier_as_its_steps_and_marks_refused_designs(doc) -> None:
    html = sweep_output(doc, {}).files["s-sweep.html"].decode()
    assert len(re.findall(r'<circle class="front"', html)) == 3 and len(re.findall(r'<circle class="dot"', html)) == 1
    assert len(re.findall(r'<path class="refused"', html)) == 1   # the one refused design that was built
    line = re.search(r'<polyline points="([^"]+)"', html)
    assert line is not None and len(line.group(1).split()) == 5   # three designs, two corners between them


def test_a_staircase_turns_at_the_next_designs_x() -> None:
    assert staircase([(1, 9), (2, 5), (4, 1)]) == [(1, 9), (2, 9), (2, 5), (4, 5), (4, 1)]


@pytest.mark.slow   # starts Chromium
def test_the_report_renders_in_chromium_with_the_plot(doc, tmp_path) -> None:
    import subprocess

    from tests.outputs.writers.test_report import FLAGS, chromium

    html = tmp_path / "s-sweep.html"
    html.write_bytes(sweep_output(doc, {}).files["s-sweep.html"])
    shot = tmp_path / "sweep.png"
    run = subprocess.run([chromium(), *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}",
                          "--window-size=1100,1100", html.as_uri()], capture_output=True, text=True, timeout=120)
    assert shot.exists() and shot.stat().st_size > 20_000, run.stderr[-2000:]
    assert "Uncaught" not in run.stderr and "CONSOLE" not in run.stderr
    dom = subprocess.run([chromium(), *FLAGS, f"--user-data-dir={tmp_path / 'profile2'}", "--dump-dom",
                          html.as_uri()], capture_output=True, text=True, timeout=120).stdout
    assert dom.count('class="front"') == 3 and '<svg class="frontier"' in dom
