"""Lead times (catalog rows and price-file quotes), the order's Lead time column and each site's
earliest in-service date with the cost of the GPUs that wait for the last part.

DGX H100's catalog lead time is 12 weeks = 84 days (Dell Taiwan via United Daily News, The Register
2024-04-12: 8-12 weeks, the longer end); the switches below are given 200 days by a test price file.
"""

from __future__ import annotations

import datetime as dt
import json

import openpyxl
import pytest

from bom.costing.categories import Category
from bom.costing.schedule import arrival, gating, schedules_json, site_schedule, takes, whole_days
from bom.costing.tco import capital_recovery_factor
from bom.inputs.scenario import parse_scenario
from bom.inputs.yamlio import load_text
from bom.pipeline import build_scenario, catalog_for, report_of
from tests.spreadsheet import errors, named_values, recalc

SCENARIO = """name: sched
platform: dgx-h100
gpus: 576
fabrics: {compute: {}}
order_date: 2027-01-04
prices: [prices.csv]
"""
PRICES = "sku,price,quote_ref,lead_time\nMQM9700-NS2F,30000,Q-7,200\nMMA4Z00-NS,900,Q-8,10 weeks\n"


def _report(tmp_path, scenario=SCENARIO, prices=PRICES):
    f = tmp_path / "s.yaml"
    f.write_text(scenario)
    (tmp_path / "prices.csv").write_text(prices)
    src = load_text(scenario, str(f))
    sc = parse_scenario(src)
    cat = catalog_for(sc, src)
    return report_of(build_scenario(sc, src, cat), cat)


def test_a_quote_gives_a_lead_time_and_the_catalog_row_its_own(tmp_path):
    r = _report(tmp_path)
    by = {o.sku: o for o in r.order}
    assert by["DGXH-G640F+P2EDI36"].lead_time_days == 84             # 12 weeks, the catalog row
    assert "The Register" in by["DGXH-G640F+P2EDI36"].lead_time_source
    assert by["MQM9700-NS2F"].lead_time_days == 200                    # a number of days
    assert by["MMA4Z00-NS"].lead_time_days == 70                       # "10 weeks"
    assert by["MQM9700-NS2F"].lead_time_source.startswith("quote Q-7 (")
    # a fibre trunk: the catalog's estimate by part class, with its range
    trunk = by["MFP7E10-N005"]
    assert (trunk.lead_time_days, trunk.lead_time_low_days, trunk.lead_time_high_days) == (70, 28, 70)
    assert trunk.lead_time_estimate and trunk.lead_time_source.startswith("estimate: by part class, a fibre cable")
    assert not by["MQM9700-NS2F"].lead_time_estimate and by["MQM9700-NS2F"].lead_time_low_days is None
    j = {o["sku"]: o for o in r.to_json()["order"]}
    assert j["MQM9700-NS2F"]["lead_time_days"] == 200 and j["MFP7E10-N005"]["lead_time_estimate"] is True


def test_the_site_is_in_service_after_its_last_part_and_its_racks(tmp_path):
    """Ordered 2027-01-04; the switches arrive last at 200 days, the GPU systems at 84, so they wait
    116 days; 576 GPUs stand in the racks the placement counts, 12 racks a day (the default), then
    7 days of burn-in (the default): in service = 2027-01-04 + 200 d + ceil(racks / 12) d + 7 d. The
    wait costs the GPU systems' capital charge: GPU capex x CRF(8 %, 5 years) / 365 x 116 days."""
    r = _report(tmp_path)
    (s,) = r.schedule
    racks = r.model.racks
    assert (s.longest_lead_days, s.longest_part, s.gpu_lead_days) == (200, "MQM9700-NS2F", 84)
    assert s.install_days == -(-racks // 12) and s.burn_in_days == 7
    assert s.in_service == dt.date(2027, 1, 4) + dt.timedelta(days=200 + s.install_days + 7)
    assert [(c.start, c.end) for c in s.chain] == [
        (dt.date(2027, 1, 4), dt.date(2027, 7, 23)), (dt.date(2027, 7, 23), dt.date(2027, 7, 23) + dt.timedelta(
            days=s.install_days)), (dt.date(2027, 7, 23) + dt.timedelta(days=s.install_days), s.in_service)]
    assert s.chain[0].what.startswith("MQM9700-NS2F (200 d lead time)") and s.gate.catalog_id == "qm9700"
    assert s.idle_gpu_days == 116
    assert s.idle_gpu_cost_usd == pytest.approx(r.tco.capex_gpu_usd * capital_recovery_factor(0.08, 5) / 365 * 116)
    assert s.without_lead_time == sum(1 for o in r.order if o.lead_time_days is None)
    j = r.to_json()
    assert j["order_date"] == "2027-01-04" and j["in_service"][0]["date"] == s.in_service.isoformat()


def test_the_install_rate_is_an_input(tmp_path):
    r = _report(tmp_path, SCENARIO + "tco: {install_racks_per_day: 1}\n")
    (s,) = r.schedule
    assert s.install_days == r.model.racks
    assert r.inputs["install_racks_per_day"].source == "scenario"


@pytest.mark.parametrize("bad", ["soon", "-3", "20 years"])
def test_an_unreadable_lead_time_in_a_price_file_is_refused(bom, tmp_path, bad):
    (tmp_path / "s.yaml").write_text(SCENARIO)
    (tmp_path / "prices.csv").write_text(f"sku,price,lead_time\nMQM9700-NS2F,30000,{bad}\n")
    r = bom("build", str(tmp_path / "s.yaml"), "-o", str(tmp_path / "o"))
    assert r.exit_code == 2
    assert "prices.csv:2" in r.output and "lead_time" in r.output
    assert not (tmp_path / "o").exists()


def test_a_catalog_lead_time_needs_its_source(bom, tmp_path):
    import yaml

    from bom.catalog.load import builtin_dir

    rows = yaml.safe_load((builtin_dir() / "platforms.yaml").read_text())["platforms"]
    row = next(r for r in rows if r["id"] == "dgx-h100")
    row = {**row, "id": "dgx-h100-x"}
    row.pop("lead_time_source")
    (tmp_path / "over").mkdir()
    (tmp_path / "over" / "platforms.yaml").write_text(yaml.safe_dump({"platforms": [row]}))
    (tmp_path / "s.yaml").write_text("name: s\nplatform: dgx-h100-x\ngpus: 8\ncatalogs: [over]\n")
    r = bom("build", str(tmp_path / "s.yaml"), "-o", str(tmp_path / "o"))
    assert r.exit_code == 2
    assert "lead_time goes with lead_time_source" in r.output


@pytest.mark.slow
def test_the_schedule_sheet_recalculates_to_the_json(bom, tmp_path):
    """One site here; the next test has two, each taking its own parts."""
    (tmp_path / "s.yaml").write_text(SCENARIO)
    (tmp_path / "prices.csv").write_text(PRICES)
    r = bom("build", str(tmp_path / "s.yaml"), "-o", str(tmp_path / "o"), "-q")
    assert r.exit_code == 0, r.stderr
    _agrees(tmp_path / "o" / "sched.json", tmp_path / "o" / "sched.xlsx", tmp_path)


@pytest.mark.slow
def test_a_two_site_schedule_recalculates_per_site_and_follows_an_edited_lead_time(bom, tmp_path):
    """The default scenario (two sites) with quoted lead times for its GPU systems (and the MGX racks and
    CDUs that come with them, 52 weeks in the catalog) and its coherent optics; then the coherent optic's
    lead time edited on the Order sheet moves both sites' dates."""
    text = (_default_text() + "order_date: 2027-01-04\nprices: [prices.csv]\n")
    (tmp_path / "s.yaml").write_text(text)
    (tmp_path / "prices.csv").write_text("sku,price,lead_time\ngb300-nvl72,3700000,180\nmgx-nvl72-rack,0,180\n"
                                         "cdu-2300,250000,180\nqdd-400g-zr-s,6000,240\n")
    r = bom("build", str(tmp_path / "s.yaml"), "-o", str(tmp_path / "o"), "-q")
    assert r.exit_code == 0, r.stderr
    j = json.loads((tmp_path / "o" / "gb300-two-sites.json").read_text())
    assert [s["longest_lead_days"] for s in j["in_service"]] == [240, 240]
    assert [s["idle_gpu_days"] for s in j["in_service"]] == [60, 60]
    done = _agrees(tmp_path / "o" / "gb300-two-sites.json", tmp_path / "o" / "gb300-two-sites.xlsx", tmp_path)
    wb = openpyxl.load_workbook(tmp_path / "o" / "gb300-two-sites.xlsx")
    ws = wb["Order"]
    head = [c.value for c in ws[1]]
    lead, part = head.index("Lead time (days)") + 1, head.index("Part number") + 1
    row = next(n for n in range(2, ws.max_row + 1) if ws.cell(n, part).value == "QDD-400G-ZR-S")
    ws.cell(row, lead).value = 300
    edited = tmp_path / "edited.xlsx"
    wb.save(edited)
    after = named_values(recalc(edited, tmp_path / "e"))
    before = named_values(done)
    for site in (1, 2):
        assert after[f"site{site}_longest_lead_days"] == 300
        assert (after[f"site{site}_in_service"] - before[f"site{site}_in_service"]).days == 60
        assert after[f"site{site}_idle_gpu_days"] == 120


def test_each_site_takes_its_own_lines_and_alike_sites_share_their_arrivals(default_report):
    """Each site's arrivals are the order lines it takes, the last to arrive first (made line by line
    here); the default's two sites take the same lines and share one tuple, and the JSON one list."""
    r = default_report
    for s in r.schedule:
        mine = [arrival(o, r.order_date) for o in r.order if takes(o, s.site)]
        known = sorted((a for a in mine if a.days is not None),
                       key=lambda a: (-whole_days(a.days or 0.0), a.category != Category.COMPUTE, a.sku))
        assert s.arrivals == tuple(known + [a for a in mine if a.days is None])
    first, second = r.schedule
    assert first.arrivals is second.arrivals
    j = schedules_json(r.schedule)
    assert j[0]["arrivals"] is j[1]["arrivals"]
    assert j == [{**s.to_json(), "arrivals": [a.to_json() for a in s.arrivals]} for s in r.schedule]
    assert [x["also_last"] for x in j] == [s.also_last for s in r.schedule]
    assert [x["chain"] for x in j] == [[c.to_json() for c in s.chain] for s in r.schedule]


def _default_text() -> str:
    from bom.resources import data_dir

    return (data_dir("scenarios") / "default.yaml").read_text()


def _agrees(json_path, xlsx_path, tmp_path):
    j = json.loads(json_path.read_text())
    done = recalc(xlsx_path, tmp_path)
    assert errors(done) == []
    v = named_values(done)
    for s in j["in_service"]:
        k = s["site"]
        assert v[f"site{k}_longest_lead_days"] == pytest.approx(s["longest_lead_days"])
        assert v[f"site{k}_gpu_lead_days"] == pytest.approx(s["gpu_lead_days"])
        assert v[f"site{k}_install_days"] == s["install_days"]
        assert v[f"site{k}_in_service"].date().isoformat() == s["date"]
        assert v[f"site{k}_idle_gpu_days"] == pytest.approx(s["idle_gpu_days"])
        assert v[f"site{k}_idle_gpu_cost_usd"] == pytest.approx(s["idle_gpu_cost_usd"], rel=1e-6)
    return done


def test_alike_sites_find_their_gate_once_and_each_schedule_is_its_own(default_report):
    """Sites sharing one arrivals tuple find its gate and GPU lead time once (``gates``); each site's schedule,
    its gate and GPU lead time, equals the one made without the shared answers, and the gate it holds is
    gating(arrivals)'s."""
    r = default_report
    first, second = r.schedule
    assert first.arrivals is second.arrivals
    gates: dict = {}
    args = (r.order_date, 4.0, r.tco, 0.08, 5.0, 7.0, None)
    for s in r.schedule:
        shared = site_schedule(s.arrivals, s.site, s.gpus, s.racks, 1000, *args, gates)
        alone = site_schedule(s.arrivals, s.site, s.gpus, s.racks, 1000, *args)
        assert shared == alone and shared.gate == alone.gate == gating(s.arrivals) and shared.gate is not None
    assert len(gates) == 1
