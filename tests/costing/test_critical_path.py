"""Issue 43, items 2 and 3: each site's and phase's critical path (order, the gating part's arrival,
installation, burn-in, in service), and the target days the parts cannot meet: a warning naming the
day they can be met, an error with ``bom build --strict-dates``."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from bom import pipeline
from bom.inputs.scenario import parse_scenario
from bom.inputs.yamlio import load_text

B200 = """name: b200
platform: dgx-b200
gpus: 1024
fabrics: {compute: {}}
order_date: 2027-01-04
"""


def _report(text, tmp_path=None, phases=False):
    where = str(tmp_path / "s.yaml") if tmp_path else "s.yaml"
    src = load_text(text, where)
    sc = parse_scenario(src)
    cat = pipeline.catalog_for(sc, src)
    r = pipeline.report_of(pipeline.build_scenario(sc, src, cat), cat)
    return pipeline.with_phases(r, sc, src, cat) if phases else r


def test_the_default_build_is_gated_by_the_nvl72_racks(default_report):
    """The GB300 NVL72 racks have the longest lead time on the path (52 weeks, Blackwell booked out 12
    months): each site's date is the order date + 364 d + its racks' installation + 7 d of burn-in."""
    r = default_report
    for s in r.schedule:
        assert s.gate.catalog_id == "gb300-nvl72" and s.longest_part == "GB300 NVL72"
        assert s.longest_lead_days == 364 == s.gpu_lead_days and s.idle_gpu_days == 0
        # every other part with a lead time arrives no later than the racks
        assert all(a.days <= 364 for a in s.arrivals if a.days is not None)
        assert [c.days for c in s.chain] == [364, s.install_days, 7]
        assert s.in_service == r.order_date + dt.timedelta(days=364 + s.install_days + 7)
        assert s.chain[0].what == "GB300 NVL72 (364 d est. lead time)"
        assert s.unknown == ["DARK-FIBRE-PAIR"]          # a lease no row gives a lead time: said, not 0
    j = r.to_json()["in_service"][0]
    assert j["gating_catalog_id"] == "gb300-nvl72" and j["burn_in_days"] == 7 and j["late"] is False
    assert [a["sku"] for a in j["arrivals"]][0] == "GB300 NVL72" and j["arrivals"][-1]["lead_time_days"] is None
    assert any("DARK-FIBRE-PAIR" in w and "no lead time" in w for w in r.warnings)


def test_the_report_shows_the_gating_chain(default_report, default_outputs):
    """The chain in the report: the racks' 364 days, installation, burn-in, in service; the timeline's
    gating bars (the racks and the parts that arrive with them) red; the summary's table and chain."""
    s = default_report.schedule[0]
    html = default_outputs[".html"].read_text()
    part = html[html.index('<h2 id="schedule">'):]
    assert (f'<b class="flag">GB300 NVL72 (364 d est. lead time)</b> {s.order_date} to {s.parts_in} (364 d)'
            in part)
    assert f"in service {s.in_service}</b>" in part and "installation (41 racks)" in part
    timeline = part[part.index('<svg class="timeline" data-site="1"'):part.index("</svg>")]
    assert timeline.count('data-gating="yes" data-kind="part"') == 1 + len(s.also_last)
    assert 'data-gating="yes" data-kind="step"' in timeline and 'data-kind="unknown"' in timeline
    md = default_outputs[".md"].read_text()
    assert "| 1 | GB300 NVL72 | 364 d est. | 364 d | 4 | 7 |" in md
    assert f"**GB300 NVL72 (364 d est. lead time)** {s.order_date} to {s.parts_in} (364 d)" in md


def test_burn_in_is_an_input(tmp_path):
    r = _report(B200 + "tco: {burn_in_days: 3}\n")
    (s,) = r.schedule
    assert s.burn_in_days == 3 and r.inputs["burn_in_days"].source == "scenario"
    assert s.in_service == dt.date(2027, 1, 4) + dt.timedelta(days=364 + s.install_days + 3)
    assert "aidatacenterguide.com" in _report(B200).inputs["burn_in_days"].source


def test_an_in_service_target_before_the_parts_is_a_warning_with_the_day_it_can_be_met(tmp_path):
    ok = _report(B200 + "in_service: 2028-06-01\n")
    assert ok.late_dates == [] and ok.schedule[0].target == dt.date(2028, 6, 1)
    r = _report(B200 + "in_service: 2027-06-01\n")
    (late,) = r.late_dates
    s = r.schedule[0]
    assert late.key == ("in_service",) and late.feasible == s.in_service == dt.date(2028, 1, 3) + dt.timedelta(
        days=s.install_days + 7)
    assert f"in_service 2027-06-01 cannot be met: the cluster can be in service on {s.in_service}" in late.message
    assert "DGX B200 arrives 364 d after the order of 2027-01-04" in late.message
    assert late.message in r.warnings
    assert r.to_json()["late_dates"] == [late.to_json()] and r.to_json()["in_service"][0]["late"] is True


PHASED = """name: b200-phased
platform: dgx-b200
fabrics: {compute: {}}
order_date: 2027-01-04
phases:
  - {name: first, gpus: 512, date: 2027-05-01}
  - {name: all, gpus: 1024, date: 2028-06-01}
"""


def test_a_phase_dated_too_early_is_flagged_with_its_feasible_date_and_earns_from_it(tmp_path):
    r = _report(PHASED, phases=True)
    first, full = r.phases.chosen.phases
    assert first.schedule.late and not full.schedule.late
    feasible = dt.date(2027, 1, 4) + dt.timedelta(days=364 + first.schedule.install_days[0] + 7)
    assert first.schedule.feasible == feasible == first.schedule.earns_from
    assert first.schedule.gate.sku == "DGX B200"
    (late,) = r.late_dates
    assert late.key == ("phases", 0, "date") and late.feasible == feasible
    assert late.message.startswith(f"phase first dated 2027-05-01 cannot be in service before {feasible}")
    assert late.message in r.warnings and f"its GPUs earn from {feasible}" in late.message
    # the phase's GPUs earn from the day it can be in service, not from its date (the period still runs
    # from the first phase's date)
    from bom.costing.tco import inputs
    v = {k: float(i.value) for k, i in inputs(r.model.scenario.tco).items() if not isinstance(i.value, str)}
    start = dt.date(2027, 5, 1)
    want = sum(g * v["hours"] * v["utilisation"] * (v["years"] - (when - start).days / 365.0)
               for g, when in ((first.gpus, feasible), (full.gpus - first.gpus, dt.date(2028, 6, 1))))
    assert r.phases.chosen.gpu_hours == pytest.approx(want)
    met = _report(PHASED.replace("2027-05-01", str(feasible)), phases=True)
    assert met.late_dates == []
    j = r.to_json()["phases"][0]["schedule"]
    assert j["late"] is True and j["feasible"] == feasible.isoformat() and j["gating_part"] == "DGX B200"


def test_strict_dates_refuses_a_late_phase_naming_its_key_and_the_day(bom, tmp_path):
    (tmp_path / "s.yaml").write_text(PHASED)
    warned = bom("build", str(tmp_path / "s.yaml"), "-o", str(tmp_path / "o"), "-q")
    assert warned.exit_code == 0 and "phase first dated 2027-05-01 cannot be in service before" in warned.stderr
    doc = json.loads((tmp_path / "o" / "b200-phased.json").read_text())
    assert doc["late_dates"][0]["key"] == "phases.0.date"
    r = bom("build", str(tmp_path / "s.yaml"), "-o", str(tmp_path / "o2"), "-q", "--strict-dates")
    assert r.exit_code == 2 and not (tmp_path / "o2").exists()
    assert f"{tmp_path / 's.yaml'}:6" in r.stderr and "phases.0.date" in r.stderr
    assert "Give 2028-01-" in r.stderr and "--prefer-available" in r.stderr


def test_strict_dates_refuses_an_in_service_target(bom, tmp_path):
    (tmp_path / "s.yaml").write_text(B200 + "in_service: 2027-06-01\n")
    r = bom("build", str(tmp_path / "s.yaml"), "-o", str(tmp_path / "o"), "-q", "--strict-dates")
    assert r.exit_code == 2 and f"{tmp_path / 's.yaml'}:6" in r.stderr and "in_service 2027-06-01" in r.stderr


def test_an_unknown_gpu_lead_time_reads_unknown_never_0(tmp_path):
    """An overlay platform with no lead time: the site's date is the earliest its other parts allow, the
    GPU systems' lead time is null and said "unknown", and the build warns."""
    import yaml

    from bom.catalog.load import builtin_dir

    rows = yaml.safe_load((builtin_dir() / "platforms.yaml").read_text())["platforms"]
    row = {k: v for k, v in next(r for r in rows if r["id"] == "dgx-b200").items() if not k.startswith("lead_time")}
    (tmp_path / "over").mkdir()
    (tmp_path / "over" / "platforms.yaml").write_text(yaml.safe_dump({"platforms": [{**row, "id": "b200-x"}]}))
    r = _report(B200.replace("dgx-b200", "b200-x") + "catalogs: [over]\n", tmp_path)
    (s,) = r.schedule
    assert s.gpu_lead_days is None and s.idle_gpu_days == 0 and "DGX B200" in s.unknown
    assert s.gate.category != "compute" and r.to_json()["in_service"][0]["gpu_lead_days"] is None
    assert any("DGX B200" in w and "no lead time" in w for w in r.warnings)
    from bom.outputs.terminal import in_service_line
    assert " 0 d " not in in_service_line(r)
