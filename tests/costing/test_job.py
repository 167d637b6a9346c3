"""What the job costs, and the TCO's staff, licences, insurance, property tax and deployment ramp.

The job: 70B parameters on 1.4T tokens (the Chinchilla-optimal 70B model: Hoffmann et al. 2022,
"Training Compute-Optimal Large Language Models", table 3), 6 x params x tokens = 5.88e23 FLOP,
on DGX H100 at 989 TFLOP/s dense BF16 per GPU (NVIDIA H100 Tensor Core GPU datasheet: 1,979
TFLOP/s BF16 with sparsity, half of it dense) and the default 40 % MFU.
"""

from __future__ import annotations

import json
from dataclasses import replace

import openpyxl
import pytest

from bom.costing.tco import Basis, compute_tco, inputs
from bom.inputs.scenario import parse_scenario
from bom.inputs.yamlio import load_text
from bom.pipeline import build_scenario, report_of
from bom.pipeline.compare import compare
from tests.spreadsheet import errors, named_values, recalc

JOB = """name: job-h100
platform: dgx-h100
workload: {kind: pretrain, name: 70B on 1.4T, params: 70B, tokens: 1.4T, deadline: "30 d", dtype: bf16}
fabrics: {compute: {}}
"""
FLOP = 6 * 70e9 * 1.4e12
H100_BF16 = 989e12


def _report(text: str, catalog):
    src = load_text(text, "job.yaml")
    return report_of(build_scenario(parse_scenario(src), src, catalog), catalog)


@pytest.fixture(scope="module")
def job_report(catalog):
    return _report(JOB, catalog)


def test_the_job_costs_its_gpu_hours_at_the_tco_and_marginal_rates(job_report):
    j, t = job_report.job, job_report.tco
    gpu_hours = FLOP / (H100_BF16 * 0.4) / 3600           # 412,874.96 GPU-hours by hand
    assert j.flop == FLOP and j.flops_per_gpu == H100_BF16 and j.mfu == 0.4
    assert j.gpu_hours == pytest.approx(412874.96, abs=0.01) == pytest.approx(gpu_hours)
    assert j.gpus == job_report.model.cluster.gpus == 576   # 575 GPUs by time, in whole 8-GPU systems
    assert j.wall_days == pytest.approx(gpu_hours / 576 / 24)
    assert j.wall_days <= 30                                # the deadline it was sized for
    assert j.energy_mwh == pytest.approx(t.facility_power_kw * gpu_hours / 576 / 1000)
    assert j.cost_usd == pytest.approx(gpu_hours * t.usd_per_gpu_hour)
    marginal = (t.energy_per_year + t.support_per_year) / (576 * 8760 * 0.8)
    assert j.marginal_cost_usd == pytest.approx(gpu_hours * marginal)
    assert 0 < j.marginal_cost_usd < j.cost_usd


def test_the_json_carries_the_job(job_report):
    j = job_report.to_json()["job"]
    assert set(j) >= {"gpu_hours", "wall_days", "energy_mwh", "cost_usd", "marginal_cost_usd"}
    assert j["cost_usd"] == pytest.approx(job_report.job.cost_usd, abs=0.01)


def test_a_cluster_sized_by_gpus_or_a_serving_job_has_no_job(catalog, default_report):
    assert default_report.job is None and default_report.to_json()["job"] is None
    serve = _report("name: s\nplatform: dgx-h100\nworkload: {kind: serve, params: 70B}\n", catalog)
    assert serve.job is None


BASIS = Basis(capex_by_class={"gpu": 8e6, "network": 1.5e6, "facility": 0.2e6}, network_usd=1.5e6,
              gpu_systems_usd=8e6, optics_usd=0.6e6, it_power_w=400e3, network_power_w=30e3, links=512, racks=4,
              gpus=256, dark_fibre_km=0.0, pflops_per_gpu=4.5, nodes=32)


def _with(ins, **values):
    return {**ins, **{k: replace(ins[k], value=v) for k, v in values.items()}}


def test_staff_licences_insurance_and_tax_are_opex_by_their_formulas():
    base = compute_tco(BASIS, inputs(None))
    assert (base.staff_per_year, base.licences_per_year, base.insurance_tax_per_year) == (0, 0, 0)  # defaults 0
    t = compute_tco(BASIS, _with(inputs(None), staff_fte=3.0, licence_gpu=4500.0, licence_node=200.0,
                                 insurance=0.005, property_tax=0.01))
    assert t.staff_per_year == 3 * 90520
    assert t.licences_per_year == 256 * 4500 + 32 * 200
    assert t.insurance_tax_per_year == pytest.approx(t.capex_usd * 0.015)
    assert t.opex_per_year - base.opex_per_year == pytest.approx(
        t.staff_per_year + t.licences_per_year + t.insurance_tax_per_year)
    assert t.marginal_usd_per_gpu_hour == base.marginal_usd_per_gpu_hour   # energy and support alone


def test_a_deployment_ramp_takes_half_its_months_off_the_gpu_hours():
    base = compute_tco(BASIS, inputs(None))
    t = compute_tco(BASIS, _with(inputs(None), ramp_months=6.0))
    assert t.service_share == pytest.approx(1 - 3 / 60)          # 3 of the 60 months lost on average
    assert t.annual_cost_usd == base.annual_cost_usd
    assert t.usd_per_gpu_hour == pytest.approx(base.usd_per_gpu_hour / 0.95)


def test_the_scenario_sets_the_new_inputs_with_units():
    src = load_text(JOB + 'tco: {staff_fte: 2, staff_cost: "150000 USD/yr", licence_gpu: "4500 USD/yr", '
                    'licence_node: "500 USD/yr", insurance: 0.005, property_tax: 0.01, ramp_months: 6}\n', "j.yaml")
    ins = inputs(parse_scenario(src).tco)
    assert {k: ins[k].value for k in ("staff_fte", "staff_cost", "licence_gpu", "licence_node", "insurance",
                                      "property_tax", "ramp_months")} == {
        "staff_fte": 2.0, "staff_cost": 150000.0, "licence_gpu": 4500.0, "licence_node": 500.0,
        "insurance": 0.005, "property_tax": 0.01, "ramp_months": 6.0}
    assert all(ins[k].source == "scenario" for k in ("staff_fte", "ramp_months"))


def test_every_new_default_cites_its_source():
    ins = inputs(None)
    for k in ("staff_fte", "staff_cost", "licence_gpu", "licence_node", "insurance", "property_tax", "ramp_months"):
        assert len(ins[k].source) > 40, k
    assert "BLS" in ins["staff_cost"].source and "4,500" in ins["licence_gpu"].source


def test_a_ramp_longer_than_the_period_is_refused(bom, tmp_path):
    f = tmp_path / "s.yaml"
    f.write_text(JOB + "tco: {years: 1, ramp_months: 30}\n")
    r = bom("build", str(f), "-o", str(tmp_path / "o"), "-q")
    assert r.exit_code == 2
    assert "ramp_months" in r.stderr and "24 months" in r.stderr
    assert not (tmp_path / "o").exists()


def test_compare_shows_the_job_on_each_generation_side_by_side(catalog):
    src = load_text(JOB + "platforms: [dgx-h100, gb300-nvl72]\n", "c.yaml")
    c = compare(parse_scenario(src), src, catalog)
    rows = {g.platform.id: m for g, m in zip(c.generations, c.rows(), strict=True)}
    h100, gb300 = rows["dgx-h100"], rows["gb300-nvl72"]
    for m in (h100, gb300):
        assert m["job_cost_usd"] == pytest.approx(m["job_gpu_hours"] * m["usd_per_gpu_hour"])
        assert m["job_wall_days"] <= 30
    assert gb300["job_gpu_hours"] < h100["job_gpu_hours"]   # a faster GPU does the same work in fewer hours
    assert gb300["gpus"] < h100["gpus"]
    assert "job_cost_usd" in c.to_json()["generations"][0]["metrics"]


@pytest.mark.slow
def test_the_workbook_recalculates_the_job_and_the_new_opex_to_the_json(bom, tmp_path):
    f = tmp_path / "job.yaml"
    f.write_text(JOB + 'tco: {staff_fte: 2, licence_gpu: "4500 USD/yr", licence_node: "300 USD/yr", '
                 "insurance: 0.005, property_tax: 0.01, ramp_months: 6}\n")
    r = bom("build", str(f), "-o", str(tmp_path / "o"), "-q")
    assert r.exit_code == 0, r.stderr
    j = json.loads((tmp_path / "o" / "job-h100.json").read_text())
    done = recalc(tmp_path / "o" / "job-h100.xlsx", tmp_path)
    assert errors(done) == []
    v = named_values(done)
    for key in ("gpu_hours", "wall_days", "energy_mwh", "cost_usd", "marginal_cost_usd"):
        assert v[f"job_{key}"] == pytest.approx(j["job"][key], rel=1e-6), key
    for key in ("staff_per_year", "licences_per_year", "insurance_tax_per_year"):
        assert v[f"{key}_usd"] == pytest.approx(j["finance"][key], rel=1e-6), key
    for key in ("service_share", "gpu_hours_per_year", "marginal_usd_per_gpu_hour"):
        assert v[key] == pytest.approx(j["finance"][key], rel=1e-6), key
    assert v["usd_per_gpu_hour"] == pytest.approx(j["totals"]["usd_per_gpu_hour"], rel=1e-6)
    assert j["finance"]["licences_per_year"] == 576 * 4500 + 72 * 300
    # The sensitivity table's base case is the TCO sheet's rate (the new opex and the ramp included).
    assert v["sens_base_usd_per_gpu_hour"] == pytest.approx(v["usd_per_gpu_hour"], rel=1e-9)
    tco = openpyxl.load_workbook(done, data_only=True)["TCO"]
    texts = [c.value for c in tco["A"] if isinstance(c.value, str)]
    assert "Not included in the TCO" in texts


@pytest.mark.slow
def test_the_comparison_workbook_recalculates_the_job_to_the_json(bom, tmp_path):
    f = tmp_path / "job.yaml"
    f.write_text(JOB + "platforms: [dgx-h100, gb300-nvl72]\ntco: {staff_fte: 2, ramp_months: 6, insurance: 0.01}\n")
    out = tmp_path / "c"
    r = bom("compare", str(f), "-o", str(out), "-q")
    assert r.exit_code == 0, r.stderr
    j = json.loads((out / "job-h100-compare.json").read_text())
    done = recalc(out / "job-h100-compare.xlsx", tmp_path)
    assert errors(done) == []
    ws = openpyxl.load_workbook(done, data_only=True)["Comparison"]
    seen = set()
    for row in range(2, ws.max_row + 1):
        metric = ws.cell(row, 2).value
        if metric is None:
            break
        for k, g in enumerate(j["generations"]):
            assert ws.cell(row, 4 + k).value == pytest.approx(g["metrics"][metric], rel=1e-4, abs=1e-9), metric
        seen.add(metric)
    assert {"job_cost_usd", "job_marginal_cost_usd", "job_wall_days", "job_energy_mwh", "usd_per_gpu_hour"} <= seen


def test_build_and_compare_print_the_job(bom, tmp_path):
    f = tmp_path / "job.yaml"
    f.write_text(JOB + "platforms: [dgx-h100, gb300-nvl72]\n")
    r = bom("build", str(f), "-o", str(tmp_path / "b"))
    assert r.exit_code == 0, r.stderr
    assert "job 70B on 1.4T: 412,875 GPU-hours" in r.stdout
    r = bom("compare", str(f), "-o", str(tmp_path / "c"))
    assert r.exit_code == 0, r.stderr
    assert "the job on each generation:" in r.stdout and "marginal USD" in r.stdout


def test_the_storage_sizings_figures_are_on_the_inputs_sheet_with_their_sources(bom, tmp_path):
    # "Every default cites its source in bom/ and on the Inputs sheet": the storage sizing's too.
    import openpyxl

    f = tmp_path / "s.yaml"
    f.write_text(JOB.replace("fabrics: {compute: {}}", "fabrics: {compute: {}, storage: {}}")
                 + "storage: {checkpoints: 3}\n")
    r = bom("build", str(f), "-o", str(tmp_path / "o"), "-q")
    assert r.exit_code == 0, r.output
    ws = openpyxl.load_workbook(tmp_path / "o" / "job-h100.xlsx")["Inputs"]
    rows = {r[0]: r for r in ws.iter_rows(values_only=True) if r[0] and str(r[0]).startswith("Storage:")}
    assert rows["Storage: checkpoints kept"][1:4] == (3, "checkpoints", "scenario storage.checkpoints")
    assert rows["Storage: checkpoint bytes per parameter"][1] == 14 and "ZeRO" in rows[
        "Storage: checkpoint bytes per parameter"][3]
    assert "RA-11333-001 Table 6" in rows["Storage: RA read per 256-GPU SU"][3]
