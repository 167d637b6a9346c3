"""`bom faults` end to end: the JSON's records, the files it publishes, goodput and redundancy on a split job."""

from __future__ import annotations

import json

import pytest
from openpyxl import load_workbook

from tests.faults.test_domains import RAIL


@pytest.fixture(scope="module")
def rail_json(tmp_path_factory):   # type: ignore[no-untyped-def]
    from tests.conftest import Run

    folder = tmp_path_factory.mktemp("faults")
    (folder / "rail.yaml").write_text(RAIL)
    r = Run()("faults", str(folder / "rail.yaml"), "-o", str(folder / "out"))
    assert r.exit_code == 0, r.output
    return json.loads((folder / "out" / "faults-rail-leaf-faults.json").read_text()), folder / "out", r.stdout


def test_the_files_and_the_text(rail_json) -> None:   # type: ignore[no-untyped-def]
    j, out, text = rail_json
    assert sorted(p.name for p in out.iterdir()) == [f"faults-rail-leaf-faults.{s}" for s in ("json", "md", "xlsx")]
    wb = load_workbook(out / "faults-rail-leaf-faults.xlsx")
    assert wb.sheetnames == ["Faults", "Interruptions", "Redundancy"]
    assert wb["Faults"].max_row == len(j["domains"]) + 1
    md = (out / "faults-rail-leaf-faults.md").read_text()
    assert "## Failure domains, worst first" in md and "TP 32/66, PP 16/264, DP 2/16" in md
    assert "compute leaf" in text and "goodput" in text


def test_goodput_and_the_cost_of_a_useful_gpu_hour(rail_json) -> None:   # type: ignore[no-untyped-def]
    j, _, _ = rail_json
    g = j["goodput"]
    assert g["interruptions_per_day"] == pytest.approx(j["unexpected_per_day"])
    assert 0 < g["goodput"] <= g["checkpoint_and_restart"] < 1
    assert g["goodput"] == pytest.approx(g["checkpoint_and_restart"] - g["degraded_loss"], abs=2e-6)
    assert g["usd_per_useful_gpu_hour"] == pytest.approx(g["usd_per_gpu_hour"] / g["goodput"], rel=1e-5)
    assert g["job_days_with_failures"] == pytest.approx(g["job_days"] / g["goodput"], rel=1e-4)


def test_redundancy_priced(rail_json) -> None:   # type: ignore[no-untyped-def]
    j, _, _ = rail_json
    by = {o["option"]: o for o in j["redundancy"]}
    assert set(by) == {"dual feeds", "dual-plane NICs", "spare spine", "hot-spare nodes"}
    # DGX H100 on QM9700: no 200G part splits a 400G port over two planes, so the option is not priced.
    plane = by["dual-plane NICs"]
    assert plane["capex_usd"] is None and "not buildable" in plane["why"] and plane["goodput_gain"] > 0
    feeds = by["dual feeds"]
    assert feeds["built"] and feeds["goodput"] is None and feeds["capex_usd"] > 0
    spares = by["hot-spare nodes"]
    assert not spares["built"] and spares["units"] >= 1 and spares["capex_usd"] > 0
    # A node lost takes one of the 33 replicas for the repair time: the spare gives that back.
    assert spares["goodput_gain"] > 0 and spares["goodput"] == pytest.approx(
        j["goodput"]["goodput"] + spares["goodput_gain"], abs=2e-6)
    assert spares["usd_per_useful_gpu_hour"] is not None


def test_bad_input_is_refused_with_the_key(bom, tmp_path) -> None:   # type: ignore[no-untyped-def]
    (tmp_path / "s.yaml").write_text(RAIL + 'faults: {restart: "0 s"}\n')
    r = bom("faults", str(tmp_path / "s.yaml"))
    assert r.exit_code == 2 and "restart" in r.output
