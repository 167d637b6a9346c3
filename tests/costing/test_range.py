"""The P10 / P50 / P90 range: the Monte Carlo runs the TCO's own formulas (zero spreads give the
point TCO), is reproducible by seed, is fast enough for a 100,000-GPU build, and the workbook's
Range sheet computes the same percentiles over the same draws after LibreOffice recalculation."""

from __future__ import annotations

import datetime as dt
import json
import math
import time

import numpy as np
import pytest

import bom.costing.uncertainty as u
from bom.costing.report import site_draws
from bom.costing.uncertainty import Spread, draw, percentile
from tests.spreadsheet import errors, named_values, recalc


def _draw(report, draws=500, seed=7):
    return draw(report.order, report.basis, report.tco, report.inputs, {}, draws, seed)


def test_with_no_spread_every_draw_is_the_point_tco(default_report, monkeypatch):
    one = Spread(1.0, 1.0, "none")
    monkeypatch.setattr(u, "SPREADS", {k: one for k in u.SPREADS})
    monkeypatch.setattr(u, "FX", one)
    monkeypatch.setattr(u, "UTILISATION", one)
    monkeypatch.setattr(u, "LEAD_TIME_SLIP", Spread(0.0, 0.0, "none"))
    r = _draw(default_report, 20)
    t = default_report.tco
    assert all(x == pytest.approx(t.capex_usd) for x in r.capex)
    assert all(x == pytest.approx(t.tco_usd) for x in r.tco)
    assert all(x == pytest.approx(t.usd_per_gpu_hour) for x in r.usd_per_gpu_hour)


def test_the_same_seed_gives_the_same_figures_and_another_seed_others(default_report):
    a, b, c = _draw(default_report, seed=3), _draw(default_report, seed=3), _draw(default_report, seed=4)
    assert a.to_json() == b.to_json() and np.array_equal(a.capex, b.capex)
    assert a.to_json()["capex_usd"] != c.to_json()["capex_usd"]


def test_the_range_brackets_the_point_and_leans_as_the_estimates_do(default_report):
    """Estimates run -30 % / +50 % (AACE 18R-97 Class 4), so with the price_source spreads alone the
    P50 sits above the point price; the default's GB300 NVL72 row has a published range (3-4 MUSD
    around 3.7 MUSD) that leans the other way and dominates its capex."""
    j = default_report.to_json()["range"]
    t = default_report.to_json()["totals"]
    for key in ("capex_usd", "tco_usd", "usd_per_gpu_hour"):
        p = j[key]
        assert p["p10"] < t[key] < p["p90"] and p["p10"] < p["p50"] < p["p90"], key
    by_source = _draw(default_report, 2000, 1)
    assert percentile(sorted(by_source.capex), 0.5) > t["capex_usd"]


def test_percentile_interpolates_like_the_spreadsheet():
    assert percentile([10.0, 20.0, 30.0], 0.5) == 20.0
    assert percentile([10.0, 20.0, 30.0, 40.0, 50.0], 0.9) == pytest.approx(46.0)


def test_the_histogram_counts_every_draw(default_report):
    bins = default_report.range.histogram()
    assert sum(n for *_, n in bins) == default_report.range.draws
    assert bins[0][0] == min(default_report.range.usd_per_gpu_hour)


@pytest.mark.slow
def test_ten_thousand_draws_of_a_100k_gpu_build_within_5_s(catalog):
    from bom.inputs.scenario import parse_scenario
    from bom.inputs.yamlio import load_text
    from bom.pipeline import build_scenario, report_of

    text = ("name: big\nplatform: gb300-nvl72\ngpus: 100000\n"
            "fabrics: {compute: {}, storage: {}, inband: {}, oob: {switch: sn2201, uplinks: spine}}\n")
    src = load_text(text, "big.yaml")
    report = report_of(build_scenario(parse_scenario(src), src, catalog), catalog)
    start = time.perf_counter()
    r = draw(report.order, report.basis, report.tco, report.inputs, {}, 10_000, 1)
    assert time.perf_counter() - start < 5
    assert r.draws == 10_000 and len(r.usd_per_gpu_hour) == 10_000


@pytest.mark.slow
def test_the_range_sheet_recalculates_to_the_json(default_outputs, tmp_path):
    j = json.loads(default_outputs[".json"].read_text())["range"]
    done = recalc(default_outputs[".xlsx"], tmp_path)
    assert errors(done) == []
    v = named_values(done)
    for key in ("capex_usd", "tco_usd", "usd_per_gpu_hour"):
        for p in ("p10", "p50", "p90"):
            assert v[f"range_{key}_{p}"] == pytest.approx(j[key][p], rel=1e-6), (key, p)
    # The in-service dates: the Inputs sheet's order date + the drawn days rounded up, as the JSON's.
    assert j["in_service"]
    for s in j["in_service"]:
        for p in ("p10", "p50", "p90"):
            got = v[f"range_in_service_s{s['site']}_{p}"]
            assert got.date().isoformat() == s[p], (s["site"], p, got)


@pytest.mark.slow
def test_the_range_sheets_histogram_counts_as_the_report_does(default_outputs, default_report, tmp_path):
    import openpyxl

    ws = openpyxl.load_workbook(recalc(default_outputs[".xlsx"], tmp_path), data_only=True)["Range"]
    head = next(r for r in range(1, 60) if ws.cell(r, 3).value == "Draws")
    counts = [ws.cell(r, 3).value for r in range(head + 1, head + 21)]
    assert counts == [n for *_, n in default_report.range.histogram()]


def test_a_published_price_range_replaces_the_spread_of_its_price_source(default_report):
    """The GB300 NVL72 row's published 3-4 MUSD range (issue 29), not the estimate's -30 % / +50 %: with
    every other spread at none, the draws stay inside the row's own range."""
    o = next(x for x in default_report.order if x.catalog_id == "gb300-nvl72")
    assert o.price_source == "estimate"
    low, high = default_report.range.capex[0], default_report.range.capex[-1]
    point = default_report.tco.capex_usd
    row_low, row_high = 3_000_000 / o.unit_price_usd, 4_000_000 / o.unit_price_usd
    one = Spread(1.0, 1.0, "none")
    r = draw(default_report.order, default_report.basis, default_report.tco, default_report.inputs, {}, 300, 7,
             {o.sku: Spread(row_low, row_high, "row")} | {x.sku: one for x in default_report.order if x is not o})
    assert point - o.extended_usd * (1 - row_low) - 1 <= min(r.capex) and max(r.capex) <= \
        point + o.extended_usd * (row_high - 1) + 1
    assert (min(r.capex), max(r.capex)) != (low, high)


def test_the_report_draws_a_row_with_a_published_range_from_it(default_report, monkeypatch, catalog):
    import bom.costing.report as rep

    seen = {}
    monkeypatch.setattr(rep, "draw", lambda *a, **kw: seen.setdefault("published", a[7] if len(a) > 7 else kw))
    rep._range(default_report.order, default_report.basis, default_report.tco, default_report.inputs, catalog,
               default_report.model.scenario)
    o = next(x for x in default_report.order if x.catalog_id == "gb300-nvl72")
    spread = seen["published"][o.sku]
    assert (spread.low, spread.high) == pytest.approx((3_000_000 / o.unit_price_usd, 4_000_000 / o.unit_price_usd))
    assert "published range" in spread.source
    # Rows with no published range keep their price_source's spread.
    assert all(x.sku not in seen["published"] for x in default_report.order if x.catalog_id == "sn5600")


def _no_other_spread(monkeypatch):
    one = Spread(1.0, 1.0, "none")
    monkeypatch.setattr(u, "SPREADS", {k: one for k in u.SPREADS})
    monkeypatch.setattr(u, "FX", one)
    monkeypatch.setattr(u, "UTILISATION", one)


def test_a_late_site_takes_gpu_hours_off_and_raises_the_rate(default_report, monkeypatch):
    """With every other spread at none: the default's lead times are ranges whose planning figure is the
    long end (GB300 NVL72 36-52 weeks, 52 planned), so no draw is later than the point date and the rate
    never moves; the same lead times as single values slip up to half late (LEAD_TIME_SLIP), so sites go
    late and the rate only rises, never the capex; with no lead time known nothing moves."""
    import dataclasses

    _no_other_spread(monkeypatch)
    r, t = default_report, default_report.tco
    order = list(r.order)
    ranged = draw(order, r.basis, t, r.inputs, {}, 200, 3, None, site_draws(order, r.schedule))
    assert all(x == pytest.approx(t.usd_per_gpu_hour) for x in ranged.usd_per_gpu_hour)
    single = [dataclasses.replace(o, lead_time_low_days=None, lead_time_high_days=None) for o in order]
    late = draw(single, r.basis, t, r.inputs, {}, 200, 3, None, site_draws(single, r.schedule))
    assert all(x == pytest.approx(t.capex_usd) for x in late.capex)
    assert min(late.usd_per_gpu_hour) >= t.usd_per_gpu_hour * (1 - 1e-9)
    assert max(late.usd_per_gpu_hour) > t.usd_per_gpu_hour * 1.001
    # The latest a site can be: its longest lead time half late, then installation and burn-in.
    s = r.schedule[0]
    assert max(late.in_service[0].days) <= math.ceil(1.5 * s.longest_lead_days) + s.install_days + s.burn_in_days
    assert max(late.in_service[0].days) > s.longest_lead_days + s.install_days + s.burn_in_days
    none = [dataclasses.replace(o, lead_time_days=None) for o in order]
    r2 = draw(none, r.basis, t, r.inputs, {}, 50, 3, None, site_draws(none, r.schedule))
    assert all(x == pytest.approx(t.usd_per_gpu_hour) for x in r2.usd_per_gpu_hour)


def test_lead_times_without_spread_give_the_point_in_service_date(default_report, monkeypatch):
    """Every range at its lead time and no slip for a single value: each site's P10 = P50 = P90 = the
    schedule's in-service date (order date + the longest lead time + installation + burn-in)."""
    import dataclasses

    monkeypatch.setattr(u, "LEAD_TIME_SLIP", Spread(0.0, 0.0, "none"))
    r = default_report
    order = [dataclasses.replace(o, lead_time_low_days=None, lead_time_high_days=None) for o in r.order]
    got = draw(order, r.basis, r.tco, r.inputs, {}, 100, 5, None, site_draws(order, r.schedule))
    for s, drawn in zip(r.schedule, got.in_service, strict=True):
        assert [drawn.date(q) for q in ("p10", "p50", "p90")] == [s.in_service] * 3


def _triangular_cdf(x: float, low: float, high: float, mode: float) -> float:
    if x < low:
        return 0.0
    if x >= high:
        return 1.0
    if x <= mode:
        return (x - low) ** 2 / ((high - low) * (mode - low))
    return 1.0 - (high - x) ** 2 / ((high - low) * (high - mode))


def test_a_sites_in_service_days_are_its_latest_drawn_arrival_as_the_rows_ranges_give(default_report):
    """Each line's lead time is drawn independently from its row's range (triangular, the lead time the
    mode) and a site waits for its last: P(days <= d) = the product over its lines of each one's triangular
    CDF at d - installation - burn-in (whole days: a part due within day d is due on d). The drawn P10 /
    P50 / P90 of 20,000 draws sit within two days of that product's quantiles."""
    r = default_report
    sites = site_draws(r.order, r.schedule)
    got = draw(r.order, r.basis, r.tco, r.inputs, {}, 20_000, 11, None, sites)
    for site, drawn in zip(sites, got.in_service, strict=True):
        spreads = [u.lead_spread(r.order[i]) for i in site.lines]

        def cdf(d: int, spreads=spreads, site=site) -> float:
            return math.prod(_triangular_cdf(d - site.fixed_days, *sp) for sp in spreads)

        for q, value in (("p10", drawn.percentiles.p10), ("p50", drawn.percentiles.p50),
                         ("p90", drawn.percentiles.p90)):
            want = next(d for d in range(0, 2000) if cdf(d) >= float(q[1:]) / 100)
            assert abs(value - want) <= 2, (site.site, q, value, want)


def test_the_default_in_service_range_in_the_json(default_report):
    """The default's sites wait for their GB300 NVL72 racks (36-52 weeks, 52 planned: 252-364 d) and the
    other long parts (CDUs 10-52 weeks); drawn, each site is in service between the racks' shortest
    lead time + 11 d (4 d installing, 7 d burn-in) and the point date, never after it."""
    j = default_report.to_json()
    for s, rg in zip(j["in_service"], j["range"]["in_service"], strict=True):
        assert rg["site"] == s["site"] and rg["point"] == s["date"]
        p10, p50, p90 = (dt.date.fromisoformat(rg[q]) for q in ("p10", "p50", "p90"))
        point = dt.date.fromisoformat(s["date"])
        order_date = dt.date.fromisoformat(j["order_date"])
        assert order_date + dt.timedelta(days=252 + 11) <= p10 <= p50 <= p90 <= point
        assert p10 < p90 and rg["days"]["p10"] < rg["days"]["p90"]
        assert rg["lines_drawn"] == sum(1 for a in s["arrivals"] if a["lead_time_days"] is not None)


def test_the_same_seed_gives_the_same_dates(default_report):
    r = default_report
    sites = site_draws(r.order, r.schedule)
    a, b, c = (draw(r.order, r.basis, r.tco, r.inputs, {}, 300, seed, None, sites) for seed in (3, 3, 4))
    assert a.to_json()["in_service"] == b.to_json()["in_service"]
    assert np.array_equal(a.in_service[0].days, b.in_service[0].days)
    assert not np.array_equal(a.in_service[0].days, c.in_service[0].days)


def test_the_report_and_summary_give_the_dates_beside_the_money(default_outputs, default_report):
    html, md = default_outputs[".html"].read_text(), default_outputs[".md"].read_text()
    for s in default_report.range.in_service:
        dates = [str(s.date(q)) for q in ("p10", "p50", "p90")]
        point = s.site.order_date + dt.timedelta(days=s.site.point_days)
        label = f"In service, site {s.site.site} (lead times as they stand: {point})"
        assert f"<tr><td>{label}</td>" + "".join(f'<td class="n">{d}</td>' for d in dates) + "</tr>" in html
        assert f"| {label} | " + " | ".join(dates) + " |" in md


def _loop(order, basis, tco, ins, currency, draws, seed, published, sites=None):
    """The Monte Carlo one draw at a time through random.Random (main dbe2868's loop, with each line's lead
    time drawn after the utilisation, issue 43). The vectorised draw must give the same draws bit for bit."""
    import math
    import random

    from bom.costing.categories import asset_class
    from bom.costing.tco import CLASSES, capital_recovery_factor, service_share

    f = {k: float(i.value) for k, i in ins.items() if not isinstance(i.value, str)}
    rng = random.Random(seed)
    lines = [(asset_class(o.category), o.extended_usd,
              published.get(o.sku) or u.SPREADS.get(o.price_source, u.SPREADS["estimate"]), currency.get(o.sku))
             for o in order]
    install = {"gpu": 0.0, "network": basis.links * f["install_link"], "facility": basis.racks * f["install_rack"]}
    crf = {c: capital_recovery_factor(f["discount_rate"], f[f"life_{c}"]) for c in CLASSES}
    support = {c: f[f"support_{c}"] for c in CLASSES}
    fixed = tco.energy_per_year + tco.dark_fibre_per_year + tco.space_per_year + tco.staff_per_year \
        + tco.licences_per_year
    held = f["insurance"] + f["property_tax"]
    owned = tco.building_capex_usd + tco.grid_connection_usd if tco.facility_built else 0.0
    owned_charge = tco.build_per_year if tco.facility_built else 0.0
    hours = basis.gpus * f["hours"] * service_share(f["ramp_months"], f["years"])
    leads = {i: u.lead_spread(o) for i, o in enumerate(order) if o.lead_time_days is not None}
    sites = sites or u.one_site(order)
    codes = sorted({c for *_, c in lines if c})
    tri = rng.triangular
    out = ([], [], [], {})
    for _ in range(draws):
        fx = {c: tri(u.FX.low, u.FX.high, 1.0) for c in codes}
        cap = dict(install)
        for cls, usd, spread, code in lines:
            factor = tri(spread.low, spread.high, 1.0)
            cap[cls] = cap.get(cls, 0.0) + usd * factor * (fx[code] if code else 1.0)
        capex = sum(cap.values()) + owned
        opex = fixed + sum(cap.get(c, 0.0) * support[c] for c in CLASSES) + capex * held
        annual = sum(cap.get(c, 0.0) * crf[c] for c in CLASSES) + owned_charge + opex
        util = min(1.0, f["utilisation"] * tri(u.UTILISATION.low, u.UTILISATION.high, 1.0))
        lead = {i: math.ceil(tri(*spread) - 1e-9) for i, spread in leads.items()}
        left = 0.0
        for site in sites:
            days = max((lead[i] for i in site.lines), default=0.0) + site.fixed_days
            out[3].setdefault(site.site, []).append(days)
            late = max(0.0, days - site.point_days)
            left += site.gpu_share * max(0.0, 1.0 - late / 365.25 / f["years"])
        worked = hours * util * left
        out[0].append(capex)
        out[1].append(capex + f["years"] * opex)
        out[2].append(annual / worked if worked else 0.0)
    return out


@pytest.mark.parametrize("draws, seed, fx, slip", [(700, 1, False, True), (1500, 2027, True, True),
                                                    (300, 5, True, False)])
def test_the_vectorised_draws_are_the_per_draw_loops_bit_for_bit(default_report, draws, seed, fx, slip):
    """Issue 45/46: the draws are numpy arrays a block at a time, from the same MT19937 stream as
    random.Random(seed), each uniform used where the per-draw loop used it: the same figures to the last
    bit, with exchange rates, a published range, a spread of zero width and with no lead time known."""
    import dataclasses

    r = default_report
    order = list(r.order) if slip else [dataclasses.replace(o, lead_time_days=None) for o in r.order]
    currency = {o.sku: ("EUR" if i % 3 == 0 else "GBP") for i, o in enumerate(order) if i % 2 == 0} if fx else {}
    published = {order[1].sku: Spread(0.8, 1.3, "row"), order[2].sku: Spread(1.0, 1.0, "fixed")}
    sites = site_draws(order, r.schedule)
    got = draw(order, r.basis, r.tco, r.inputs, currency, draws, seed, published, sites)
    want = _loop(order, r.basis, r.tco, r.inputs, currency, draws, seed, published, sites)
    for name, values in zip(("capex", "tco", "usd_per_gpu_hour"), want[:3], strict=True):
        assert np.array_equal(getattr(got, name), np.array(values)), name
    for s in got.in_service:
        assert np.array_equal(s.days, np.array(want[3][s.site.site])), s.site


def test_blocks_and_sites_alike_or_not_are_the_per_draw_loop_bit_for_bit(default_report, monkeypatch):
    """Blocks of a few draws (the stream carries on across them) and three sites, two alike (drawn once) and
    one that takes no line with a lead time: still the per-draw loop's figures to the last bit."""
    r = default_report
    order = list(r.order)
    known = tuple(i for i, o in enumerate(order) if o.lead_time_days is not None)
    day = dt.date(2027, 1, 4)
    sites = [u.SiteDraw(1, 0.5, known, 30, day, 200), u.SiteDraw(2, 0.3, known, 30, day, 200),
             u.SiteDraw(3, 0.2, (), 10, day, 5)]
    width = len(order) + 1 + len(known)
    monkeypatch.setattr(u, "BLOCK_VALUES", width * 7)   # blocks of 7 draws
    got = draw(order, r.basis, r.tco, r.inputs, {}, 50, 11, {}, sites)
    want = _loop(order, r.basis, r.tco, r.inputs, {}, 50, 11, {}, sites)
    for name, values in zip(("capex", "tco", "usd_per_gpu_hour"), want[:3], strict=True):
        assert np.array_equal(getattr(got, name), np.array(values)), name
    for s in got.in_service:
        assert np.array_equal(s.days, np.array(want[3][s.site.site])), s.site
