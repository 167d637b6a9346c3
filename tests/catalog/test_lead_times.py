"""Issue 43, item 1: a lead time on every catalog row, read at a dated source or estimated by part
class (its range and basis, marked unconfirmed as SCHEMA.md marks what no source confirms), or
"unknown" with why; ``bom catalog validate --strict`` refuses a row without one."""

from __future__ import annotations

import re

from bom.catalog.checks import lead_time_problems
from bom.catalog.rows import UNKNOWN
from tests.catalog.test_rows import MODULE, overlay

NO_LEAD = re.sub(r'    lead_time(_source)?: .*\n', "", MODULE)


def test_every_builtin_row_has_a_lead_time(catalog):
    rows = list(catalog)
    assert rows and all(r.lead_time is not None and r.lead_time_source for r in rows)
    assert list(lead_time_problems(catalog)) == []
    for r in rows:
        if r.lead_time == UNKNOWN:
            assert r.lead_time_days is None and r.lead_time_label == "unknown"
        elif r.lead_time_estimate:   # an estimate: its basis, its range, its mark
            assert r.lead_time_source.startswith("estimate: ") and r.lead_time_range_days is not None
            assert "lead_time" in r.unconfirmed and not r.confirmed
        else:                        # read at a source: the source names its date
            assert re.search(r"\b20\d\d\b", r.lead_time_source), r.id


def test_the_nvl72_racks_and_the_sourced_rows(catalog):
    gb200, gb300 = catalog.get("platforms", "gb200-nvl72"), catalog.get("platforms", "gb300-nvl72")
    assert gb200.lead_time_days == 364 and not gb200.lead_time_estimate
    assert "booked out 12 months" in gb200.lead_time_source and "October 2024" in gb200.lead_time_source
    assert gb300.lead_time_days == 364 and gb300.lead_time_estimate and gb300.lead_time_range_days == (252, 364)
    h100 = catalog.get("platforms", "dgx-h100")
    assert (h100.lead_time_days, h100.lead_time_range_days) == (84, (56, 140)) and "2024-04-12" in h100.lead_time_source
    optic = catalog.get("modules", "mms4a00-xm")
    assert optic.lead_time_days == 112 and optic.lead_time_estimate and optic.lead_time_range_days == (42, 182)
    assert "backordered for another six months" in optic.lead_time_source


def _strict(bom, d):
    return bom("catalog", "validate", "--strict", str(d))


def test_strict_refuses_a_row_without_a_lead_time(bom, tmp_path):
    d = overlay(tmp_path, NO_LEAD)
    assert bom("catalog", "validate", str(d)).exit_code == 0          # an overlay loads: its lead time is unknown
    r = _strict(bom, d)
    assert r.exit_code == 2, r.output
    assert f"{d / 'extra.yaml'}:2" in r.stderr and "my-sr4.lead_time" in r.stderr and "has no lead_time" in r.stderr
    assert "lead_time_source" in r.stderr   # what to do


def test_strict_refuses_an_estimate_unmarked_or_without_its_range(bom, tmp_path):
    estimate = NO_LEAD.replace("    source: Acme", '    lead_time: "16 weeks"\n'
                               '    lead_time_source: "estimate: by part class, 800G optics 6 to 16+ weeks"\n'
                               "    source: Acme", 1)
    r = _strict(bom, overlay(tmp_path, estimate))
    assert r.exit_code == 2 and "my-sr4.unconfirmed" in r.stderr and "unconfirmed does not name" in r.stderr, r.output
    mark = "  - id: my-sr4\n    confirmed: false\n    unconfirmed: [lead_time]\n"
    marked = estimate.replace("  - id: my-sr4\n", mark)
    r = _strict(bom, overlay(tmp_path, marked))
    assert r.exit_code == 2 and "without its range" in r.stderr, r.output
    ranged = marked.replace('    lead_time: "16 weeks"\n',
                            '    lead_time: "16 weeks"\n    lead_time_low: "6 weeks"\n    lead_time_high: "26 weeks"\n')
    r = _strict(bom, overlay(tmp_path, ranged))
    assert r.exit_code == 0, r.output
    assert "lead times:" in r.stdout


def test_strict_refuses_a_sourced_lead_time_without_a_date(bom, tmp_path):
    undated = MODULE.replace("lead_time_source: Acme quote 2026-11", "lead_time_source: Acme's sales desk")
    r = _strict(bom, overlay(tmp_path, undated))
    assert r.exit_code == 2 and "names no date" in r.stderr and "my-sr4.lead_time_source" in r.stderr, r.output


def test_unknown_is_said_and_a_figure_outside_its_range_refused(bom, tmp_path):
    unknown = MODULE.replace('lead_time: "6 weeks"', "lead_time: unknown").replace(
        "lead_time_source: Acme quote 2026-11", "lead_time_source: \"unknown: the maker publishes none\"")
    assert _strict(bom, overlay(tmp_path, unknown)).exit_code == 0
    outside = MODULE.replace('    lead_time: "6 weeks"\n',
                             '    lead_time: "6 weeks"\n    lead_time_low: "8 weeks"\n    lead_time_high: "9 weeks"\n')
    r = bom("catalog", "validate", str(overlay(tmp_path, outside)))
    assert r.exit_code == 2 and "outside its range" in r.stderr and f"{tmp_path / 'cat' / 'extra.yaml'}" in r.stderr


def test_a_quote_replaces_the_estimate_and_its_mark(tmp_path):
    from bom.catalog.load import load_catalog
    csv = tmp_path / "q.csv"
    csv.write_text("sku,price,quote_ref,lead_time\nMMS4A00-XM,2400,Q-7,6 weeks\n")
    row = load_catalog(prices=[csv]).get("modules", "mms4a00-xm")
    assert row.lead_time_days == 42 and row.lead_time_range_days is None and not row.lead_time_estimate
    assert row.lead_time_source.startswith("quote Q-7")
