"""A point built through the pipeline (bom/sweep/evaluate.py): its figures, or what refused it, kept."""

from __future__ import annotations

from bom import sweep
from bom.model.sweep import FiguresJson
from tests.sweep.conftest import sweep_text


def _doc(write, tmp_path, text):  # type: ignore[no-untyped-def]
    prep = sweep.prepare(write(text))
    done = sweep.run(prep, tmp_path / "out")
    return sweep.result(prep, done.journal.done, done.journal.date)


def test_a_build_error_refuses_the_point_with_the_error(write, tmp_path) -> None:
    # rails_per_leaf on a rack-scale platform: the planner's LimitError, the 8-GPU node builds it.
    text = sweep_text("  platform: [dgx-b200, gb300-nvl72]\n").replace("fabrics: {compute: {}}",
                                                                       "fabrics: {compute: {rails_per_leaf: 1}}")
    doc = _doc(write, tmp_path, text)
    ok, bad = doc["points"]
    assert ok["feasible"] and ok["figures"] is not None
    assert not bad["feasible"] and bad["figures"] is None and not bad["frontier"]
    assert bad["refused_by"] == "LimitError at fabrics.compute.rails_per_leaf"
    assert "rails_per_leaf has no meaning on a rack-scale platform" in bad["reason"]
    assert doc["frontier"] == ["p0000"] and doc["counts"]["infeasible"] == 1


def test_a_constraint_refuses_the_point_and_keeps_its_figures(write, tmp_path) -> None:
    doc = _doc(write, tmp_path, sweep_text("  gpus: [288, 576]\n", 'constraints: {capex: "30e6 USD"}\n'))
    small, big = doc["points"]
    assert small["feasible"] and small["figures"]["capex_usd"] < 30e6
    assert big["refused_by"] == "constraints.capex" and big["figures"]["capex_usd"] > 30e6
    assert big["reason"] == f"capex {big['figures']['capex_usd']:,.0f} USD over the limit 30,000,000 USD"


def test_deadline_met_refuses_a_design_with_no_job_and_one_that_is_late(write, tmp_path) -> None:
    doc = _doc(write, tmp_path, sweep_text("  gpus: [288]\n", "constraints: {deadline_met: true}\n"))
    assert doc["points"][0]["refused_by"] == "constraints.deadline_met"
    assert "no training job" in doc["points"][0]["reason"]


def test_the_figures_are_the_reports(write, tmp_path, catalog) -> None:
    doc = _doc(write, tmp_path, sweep_text("  gpus: [288]\n"))
    f: FiguresJson = doc["points"][0]["figures"]
    assert (f["platform"], f["compute_switch"], f["gpus"], f["sites"]) == ("gb300-nvl72", "q3400", 288, 1)
    # bom faults' figure: the cost per GPU-hour over the goodput, which a 288-GPU cluster keeps above 90 %
    assert f["usd_per_gpu_hour"] < f["usd_per_useful_gpu_hour"] < f["usd_per_gpu_hour"] / 0.9
    assert 0 < f["it_mw"] < f["facility_mw"] and 0 < f["copper_share"] < 1 and f["in_service"] is not None
    assert f["tco_usd"] > f["capex_usd"] > 0 and f["check_errors"] == 0


def test_each_limit_names_itself_and_the_figure_against_it() -> None:
    import datetime as dt

    from bom.inputs.sweep import Constraints
    from bom.sweep.evaluate import broken_limit

    f = {"capex_usd": 5e6, "facility_mw": 2.5, "in_service": "2027-12-19", "deadline_met": False, "job_days": 61.5,
         "deadline_days": 60.0}
    assert broken_limit(f, Constraints()) is None  # type: ignore[arg-type]
    assert broken_limit(f, Constraints(facility_power="2 MW")) == (  # type: ignore[arg-type]
        "constraints.facility_power", "facility power 2.50 MW over the limit 2.00 MW")
    assert broken_limit(f, Constraints(in_service=dt.date(2027, 12, 1))) == (  # type: ignore[arg-type]
        "constraints.in_service", "in service on 2027-12-19, after 2027-12-01")
    assert broken_limit(f, Constraints(in_service=dt.date(2027, 12, 19))) is None  # type: ignore[arg-type]
    assert broken_limit(f, Constraints(deadline_met=True)) == (  # type: ignore[arg-type]
        "constraints.deadline_met", "the job takes 61.5 days, past its 60-day deadline")
