"""Catalog truth (issue 29): `bom catalog validate --strict` reads every text of a row at every depth,
and the rows the audit found wrong or wrongly marked carry their sources."""

from __future__ import annotations

import pytest

from bom.catalog.checks import confirmation_problems, unverified_phrases
from bom.catalog.load import load_catalog
from bom.units import magnitude
from tests.catalog.test_rows import MODULE, overlay


def _strict(bom, d):
    return bom("catalog", "validate", "--strict", str(d))


def test_not_re_verified_is_caught():
    assert unverified_phrases("Part number not re-verified (taken from the brief).") != []
    assert unverified_phrases("Reach not re-confirmed at the vendor.") != []


def test_a_nested_source_is_read(catalog):
    """support.source calls the DGX H100 rack power budget an estimate: unmarked, the row is refused."""
    row = catalog.platform("dgx-h100")
    cat = load_catalog()
    cat.rows["platforms"]["dgx-h100"] = row.model_copy(update={"confirmed": True, "unconfirmed": []})
    said = [w for _, r, _, w in confirmation_problems(cat) if r.id == "dgx-h100"]
    assert any(w.startswith("support.source") and "(estimate)" in w for w in said), said
    assert any(w.startswith("notes says a fact is unverified") for w in said), said


def test_a_nested_doubt_needs_a_mark_in_its_block(catalog):
    """A row marked for other facts still fails when a nested text doubts a fact of its block that
    unconfirmed leaves out (the DGX B200 rack power budget, issue 29)."""
    cat = load_catalog()
    row = cat.platform("dgx-b200")
    cat.rows["platforms"]["dgx-b200"] = row.model_copy(update={"unconfirmed": ["memory_per_gpu"]})
    said = [w for _, r, _, w in confirmation_problems(cat) if r.id == "dgx-b200"]
    assert any("support" in w and "names none of them" in w for w in said), said


def test_strict_refuses_a_named_fact_left_unmarked(bom, tmp_path):
    """The row is marked, but for power; its notes call the loss budget an estimate."""
    marked = MODULE.replace("  - id: my-sr4\n", "  - id: my-sr4\n    confirmed: false\n    unconfirmed: [power]\n")
    d = overlay(tmp_path, marked + "    notes: Power is an estimate. loss_budget is an estimate (IEEE class value).\n")
    r = _strict(bom, d)
    assert r.exit_code == 2, r.output
    assert "loss_budget is unverified but unconfirmed does not name it" in r.stderr, r.stderr
    fixed = marked.replace("unconfirmed: [power]", "unconfirmed: [power, loss_budget]")
    d = overlay(tmp_path, fixed + "    notes: Power is an estimate. loss_budget is an estimate (IEEE class value).\n")
    assert _strict(bom, d).exit_code == 0


def test_strict_refuses_a_value_copied_from_a_siblings_estimate(bom, tmp_path):
    """A flat-top variant whose loss budget equals the finned part's unconfirmed one, unmarked."""
    mark = "  - id: my-sr4\n    confirmed: false\n    unconfirmed: [loss_budget]\n"
    finned = MODULE.replace("  - id: my-sr4\n", mark)
    finned += "    notes: loss_budget is an estimate.\n"
    flat = (MODULE.replace("modules:\n", "").replace("my-sr4", "my-sr4-flt").replace("ACME-SR4", "ACME-SR4-FLT")
            + "    notes: Same optics as my-sr4 in a flat-top shell.\n")
    d = overlay(tmp_path, finned + flat)
    r = _strict(bom, d)
    assert r.exit_code == 2, r.output
    assert "'my-sr4-flt'" in r.stderr and "sibling row 'my-sr4'" in r.stderr and "loss_budget" in r.stderr
    # a value of its own (read at its own source) is not a copy
    d = overlay(tmp_path, finned + flat.replace('loss_budget: "1.8 dB"', 'loss_budget: "1.9 dB"'))
    assert _strict(bom, d).exit_code == 0, _strict(bom, d).output


def test_strict_refuses_session_talk(bom, tmp_path):
    d = overlay(tmp_path, MODULE + "    notes: Reach from the data sheet read in this session.\n")
    r = _strict(bom, d)
    assert r.exit_code == 2 and "lookup session" in r.stderr, r.output


# --- the rows the audit found (issue 29) ---------------------------------------------------

@pytest.mark.parametrize("row_id", ["mma4z00-ns", "mma4z00-ns-flt", "mma4z00-ns-800g"])
def test_twin_port_multimode_is_15_w(catalog, row_id):
    """NVIDIA MMA4Z00-NS-T product spec, Overview: 'Twin-port multimode OSFP transceivers remain at
    15 Watts for all configurations' (17 W is the twin-port single-mode figure, MMS4X00-NS Overview)."""
    row = catalog.get("modules", row_id)
    assert magnitude(row.power, "power") == 15.0
    assert "15 Watts" in row.notes or "15 W" in row.notes


def test_copied_estimates_are_marked(catalog):
    for row_id in ("mma4z00-ns-flt", "mma4z00-ns-800g"):
        assert "loss_budget" in catalog.get("modules", row_id).unconfirmed
    assert {"power", "loss_budget"} <= set(catalog.get("modules", "mms4a00-xm-rhs").unconfirmed)
    assert "support.rack_power_budget" in catalog.platform("dgx-h100").unconfirmed
    assert "support.rack_power_budget" in catalog.platform("dgx-b200").unconfirmed
    assert "part_number" in catalog.platform("dgx-h100").unconfirmed
    assert "reach_max" in catalog.get("coherent", "qdd-400g-zrp-s").unconfirmed


def test_over_marked_fact_is_confirmed(catalog):
    """DGX B200 User Guide, Introduction, Component Descriptions: 'NVSwitch: 2 x 5th generation NVLink
    switches that provide 14.4 TB/s aggregate bandwidth'."""
    b200 = catalog.platform("dgx-b200")
    assert b200.scale_up.switch_chips_per_domain == 2
    assert "scale_up.switch_chips_per_domain" not in b200.unconfirmed


def test_no_row_speaks_of_a_session(catalog):
    from bom.catalog.checks import SESSION, texts

    assert [r.id for r in catalog for _, t, _ in texts(r) if SESSION.search(t)] == []


# --- price ranges with their sources ------------------------------------------------------

def test_price_ranges_carry_their_sources(catalog):
    """Each end of a published range is named where it is published (the rows' price_range_source)."""
    h100 = catalog.platform("dgx-h100")
    # SemiAnalysis 'around $270,000' (2023-05) .. Viperatech's USD 375,000 listing (2025-03), both as
    # Epoch AI's hardware price dataset records them (issue 44: the 199 kUSD low was the DGX A100's)
    assert (h100.price_low_usd, h100.price_usd, h100.price_high_usd) == (270_000, 270_000, 375_000)
    assert "$270,000" in h100.price_range_source and "375,000" in h100.price_range_source
    qm = catalog.get("switches", "qm9700")     # the public cluster-cost sheet: $36k (FS.com) .. approx 50k
    assert (qm.price_low_usd, qm.price_high_usd) == (36_000, 50_000) and not qm.placeholder_price
    assert catalog.get("switches", "sn2201").placeholder_price       # an estimate with no range


@pytest.mark.parametrize("extra,words", [
    ("    price_low_usd: 400\n", ["go together"]),
    ("    price_low_usd: 400\n    price_high_usd: 600\n", ["go together"]),
    ("    price_low_usd: 600\n    price_high_usd: 900\n    price_range_source: x\n", ["outside its range"]),
])
def test_bad_price_ranges(bom, tmp_path, extra, words):
    d = overlay(tmp_path, MODULE + extra)
    r = bom("catalog", "validate", str(d))
    assert r.exit_code == 2, r.output
    for w in words:
        assert w in r.stderr, r.stderr


def test_catalog_list_shows_the_range(bom, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    r = bom("catalog", "list", "--kind", "switches")
    row = next(line for line in r.stdout.splitlines() if line.split()[1:2] == ["qm9700"])
    assert "36k-50k" in row and "estimate" in row
    row = next(line for line in r.stdout.splitlines() if line.split()[1:2] == ["sn2201"])
    assert "placeholder" in row


def test_a_quote_replaces_the_range(tmp_path):
    prices = tmp_path / "p.csv"
    prices.write_text("sku,price_usd,price_source,as_of\nqm9700,31000,quote,2026-11-01\n")
    row = load_catalog(prices=[prices]).get("switches", "qm9700")
    assert row.price_usd == 31000 and row.price_low_usd is None and not row.placeholder_price


def test_budget_range_and_placeholders_in_the_build(bom, tmp_path):
    """A DGX H100 build: the budget's low and high take the DGX and QM9700 ranges; the rest of the
    hardware sits at its price in both, and the placeholders are the estimates with no range."""
    import json

    sc = tmp_path / "h100.yaml"
    sc.write_text("name: h100\nplatform: dgx-h100\ngpus: 256\nfabrics:\n  compute: {switch: qm9700}\n")
    r = bom("build", str(sc), "-o", str(tmp_path / "out"))
    assert r.exit_code == 0, r.output
    j = json.loads((tmp_path / "out" / "h100.json").read_text())
    t, lines = j["totals"], j["lines"]
    dgx = sum(x["quantity"] for x in lines if x["catalog_id"] == "dgx-h100")
    qm = sum(x["quantity"] for x in lines if x["catalog_id"] == "qm9700")
    assert dgx >= 32 and qm > 0
    assert t["hardware_usd"] - t["budget_low_usd"] == pytest.approx(dgx * (270_000 - 270_000) + qm * (40_000 - 36_000))
    assert t["budget_high_usd"] - t["hardware_usd"] == pytest.approx(dgx * (375_000 - 270_000) + qm * (50_000 - 40_000))
    placeholder = sum(x["quantity"] * x["unit_price_usd"] for x in lines
                      if x["price_source"] == "estimate" and x["unit_price_low_usd"] is None)
    assert t["placeholder_usd"] == pytest.approx(placeholder) and 0 < placeholder < t["hardware_usd"]
    # the workbook's Inputs sheet names them
    import openpyxl

    ws = openpyxl.load_workbook(tmp_path / "out" / "h100.xlsx")["Inputs"]
    cells = {str(c.value) for row in ws.iter_rows() for c in row if c.value is not None}
    assert "Placeholder prices" in cells and "Hardware budget, low" in cells
    assert any(c.startswith("placeholder: estimate") for c in cells)
    assert not any(c.startswith("placeholder") and "(qm9700)" in c for c in cells)


def test_catalog_list_shows_each_rows_lead_time(bom):
    # The DGX H100 row's sourced 12 weeks (84 days), the GB300 NVL72's estimate by class (52 weeks,
    # marked est.), a TPU pod's "unknown" (Google sells none): never blank, never 0.
    r = bom("catalog", "list", "--kind", "platform")
    assert r.exit_code == 0
    header, _, *rows = r.stdout.splitlines()
    assert "lead time" in header
    h100 = next(line for line in rows if " dgx-h100 " in line)
    gb300 = next(line for line in rows if " gb300-nvl72 " in line)
    tpu = next(line for line in rows if " tpu-v4-pod " in line)
    assert " 84 d " in h100 and " 364 d est. " in gb300 and " unknown " in tpu
