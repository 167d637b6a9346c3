"""Spares from annual failure rates (Poisson), and the fill rate of the fraction rule beside them.

Hand-computed case: 1,000 installed x AFR 7.3 % x 10 days / 365 = 2.0 failures expected during one
resupply. Poisson(2): P(0..5) = 0.1353, 0.2707, 0.2707, 0.1804, 0.0902, 0.0361 (e^-2 2^k / k!), so
P(X <= 4) = 0.9473 < 0.95 <= P(X <= 5) = 0.9834: 5 spares for a 95 % service level.
"""

from __future__ import annotations

import json
import math

import openpyxl
import pytest

from bom import pipeline
from bom.costing.order import DEFAULT_SPARES, expected_failures, poisson_cdf, site_spares, spare_count, spares_basis
from bom.inputs.scenario import SparesRule, load_scenario
from bom.pipeline import report_of

RULE = SparesRule(afr=0.073, resupply="10 d", service_level=0.95)


def test_the_hand_computed_poisson_case():
    assert expected_failures(1000, RULE) == pytest.approx(2.0)
    assert poisson_cdf(4, 2.0) == pytest.approx(0.1353 + 0.2707 + 0.2707 + 0.1804 + 0.0902, abs=2e-4)
    assert poisson_cdf(5, 2.0) == pytest.approx(0.9834, abs=1e-4)
    assert spare_count(1000, RULE, 1) == 5


def test_each_site_holds_its_own_pool():
    """Two sites of 500: 1.0 expected each; Poisson(1): P(X <= 2) = 0.9197, P(X <= 3) = 0.9810 -> 3 each."""
    assert spare_count(1000, RULE, 2) == 6


def test_the_largest_rule_given_counts():
    assert spare_count(1000, SparesRule(afr=0.073, resupply="10 d", service_level=0.95, min=9), 1) == 9


def test_the_fill_rate_of_the_spares_and_of_the_fraction_rule():
    """The default transceiver rule (2 %, at least 2) holds 20 of 1,000: P(Poisson(2) <= 20) ~ 1."""
    b = spares_basis(1000, 5, "transceiver", RULE, 1)
    assert b.method == "failure rate" and b.expected_failures == pytest.approx(2.0)
    assert b.fill_rate == pytest.approx(0.9834, abs=1e-4)
    assert b.fraction_rule_spares == spare_count(1000, DEFAULT_SPARES["transceiver"], 1) == 20
    assert b.fraction_rule_fill_rate == pytest.approx(1.0, abs=1e-9)
    assert "fill rate 98.34%" in b.text() and "20 spares would fill 100.00%" in b.text()
    assert spares_basis(1000, 20, "transceiver", DEFAULT_SPARES["transceiver"], 1).method == "rule"


SCENARIO = """name: sp
platform: dgx-h100
gpus: 576
fabrics: {compute: {}}
spares:
  transceiver: {afr: 0.02, resupply: "30 d", service_level: 0.99}
"""


def test_a_build_spares_its_optics_by_failure_rate_and_shows_the_fill_rate(bom, tmp_path):
    """1,060 MMA4Z00-NS: 1,060 x 2 % x 30 / 365 = 1.742 expected; Poisson(1.742) reaches 99 % at 5."""
    (tmp_path / "s.yaml").write_text(SCENARIO)
    r = bom("build", str(tmp_path / "s.yaml"), "-o", str(tmp_path / "o"), "-q")
    assert r.exit_code == 0, r.stderr
    order = {o["sku"]: o for o in json.loads((tmp_path / "o" / "sp.json").read_text())["order"]}
    o = order["MMA4Z00-NS"]
    mean = o["installed"] * 0.02 * 30 / 365
    assert o["spares_basis"]["expected_failures_per_site"] == pytest.approx(mean)
    assert poisson_cdf(o["spares"] - 1, mean) < 0.99 <= poisson_cdf(o["spares"], mean)
    assert o["spares_basis"]["fill_rate"] == pytest.approx(poisson_cdf(o["spares"], mean))
    assert o["spares_basis"]["fraction_rule_spares"] == max(2, -(-o["installed"] * 2 // 100))
    assert order["MQM9700-NS2F"]["spares_basis"]["method"] == "rule"   # switches keep their rule
    ws = openpyxl.load_workbook(tmp_path / "o" / "sp.xlsx")["Order"]
    head = [c.value for c in ws[1]]
    texts = [ws.cell(n, head.index("Spares basis") + 1).value for n in range(2, ws.max_row + 1)]
    assert any(t and "fill rate" in t and "default fraction rule" in t for t in texts)


@pytest.mark.parametrize("rule", ['{afr: 0.02}', '{afr: 0.02, resupply: "30 d"}', '{afr: 0.02, resupply: "0 d", '
                                  "service_level: 0.99}", '{afr: 0.02, resupply: "30 d", service_level: 1.5}'])
def test_an_incomplete_or_bad_failure_rate_rule_exits_2(bom, tmp_path, rule):
    (tmp_path / "s.yaml").write_text(SCENARIO.replace('{afr: 0.02, resupply: "30 d", service_level: 0.99}', rule))
    r = bom("build", str(tmp_path / "s.yaml"), "-o", str(tmp_path / "o"))
    assert r.exit_code == 2
    assert "spares" in r.output
    assert not (tmp_path / "o").exists()


def test_spares_draw_no_power_at_the_typical_or_the_maximum(catalog):
    # A spare sits on a shelf: its line holds no typical and no maximum power (the GB300 NVL72 row
    # carries both, 120 kW typical and 142 kW maximum).
    from bom.inputs.scenario import parse_scenario
    from bom.inputs.yamlio import load_text
    from bom.pipeline import report_of
    from bom.pipeline.model import build_model

    text = ("name: s\nplatform: gb300-nvl72\ngpus: 1152\nfabrics: {compute: {switch: q3400}}\n"
            "spares: {compute: {fraction: 0.1, min: 1}}\n")
    src = load_text(text, "s.yaml")
    sc = parse_scenario(src)
    r = report_of(build_model(sc, src, catalog, None), catalog)
    spare = [x for x in r.lines if x.fabric == "spares" and x.catalog_id == "gb300-nvl72"]
    assert spare and all(x.power_w == 0 and x.power_max_w == 0 for x in spare)


UNEQUAL = """name: sp-unequal
platform: gb300-nvl72
gpus: 1152
fabrics: {compute: {switch: q3400}, inband: {switch: sn5600}}
sites: {split: [3, 1], distance: "20 km", dci_bandwidth: "3.2 Tbit/s"}
spares:
  transceiver: {afr: 0.02, resupply: "30 d", service_level: 0.99}
"""


def _cdf(k: int, mean: float) -> float:
    """P(Poisson(mean) <= k), term by term (the test's own, not the module's)."""
    return sum(math.exp(-mean) * mean ** i / math.factorial(i) for i in range(k + 1))


def test_two_unequal_sites_each_meet_the_service_level(tmp_path, catalog):
    """Issue 47: spares were sites x the Poisson spares of the mean site, so on the larger of two sites
    three to one (1,584 of 2,016 MMS4A00-XM, 2.60 failures expected per 30-day resupply) the 5 spares
    an even split held filled 95.1 % for 99 % asked. Each site now holds its own: 7 and 3."""
    f = tmp_path / "s.yaml"
    f.write_text(UNEQUAL)
    sc, src = load_scenario(f)
    r = report_of(pipeline.build_scenario(sc, src, catalog), catalog)
    checked = 0
    for o in r.order:
        if o.category != "transceiver" or o.per_site is None:
            continue
        assert o.spares_per_site is not None and sum(o.spares_per_site) == o.spares, o.sku
        for held, n in zip(o.spares_per_site, o.per_site, strict=True):
            assert _cdf(held, n * 0.02 * 30 / 365) >= 0.99, (o.sku, held, n)
        assert o.spares_basis is not None and o.spares_basis.fill_rate >= 0.99
        checked += o.per_site[0] != o.per_site[1]
    assert checked >= 2
    xm = next(o for o in r.order if o.sku == "MMS4A00-XM")
    assert xm.per_site == (1584, 432) and xm.spares_per_site == (7, 3)
    assert _cdf(5, 1584 * 0.02 * 30 / 365) < 0.99   # what the mean site's count held there


def test_the_spares_follow_each_sites_own_count():
    """2,000 installed as 1,900 and 100 (AFR 7.3 %, 10 days: 3.8 and 0.2 expected): Poisson 95 % gives
    7 (P(X <= 7) = 0.960) and 1; the mean site's (2.0 each) 5 and 5 would leave the larger site at 81.6 %."""
    assert site_spares(2000, RULE, 2, (1900, 100)) == [7, 1]
    assert spare_count(2000, RULE, 2, (1900, 100)) == 8
    assert _cdf(5, 3.8) < _cdf(6, 3.8) < 0.95 <= _cdf(7, 3.8)
