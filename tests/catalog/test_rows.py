"""Catalog loading, overlays, price files, and bad catalogs (exit 2 with file, line, key)."""

from __future__ import annotations

import textwrap

import pytest

from bom.catalog.load import load_catalog
from bom.catalog.rows import KINDS
from bom.errors import CatalogError
from bom.units import magnitude

MODULE = """\
modules:
  - id: my-sr4
    vendor: Acme
    part_number: ACME-SR4
    description: 400G SR4 OSFP flat top
    form_factor: osfp-flat
    ports: 1
    port_rate: "400 Gbit/s"
    port_type: 400g-sr4
    lanes: 4
    lane_rate: "100 Gbit/s"
    medium: multimode
    connector: mpo12-apc
    lit_strands: 8
    reach_max: "50 m"
    loss_budget: "1.8 dB"
    power: "8 W"
    price_usd: 500
    price_source: quote
    lead_time: "6 weeks"
    lead_time_source: Acme quote 2026-11
    source: Acme quote 2026-11
    as_of: 2026-11-30
"""


def overlay(tmp_path, text, name="extra.yaml"):
    d = tmp_path / "cat"
    d.mkdir(exist_ok=True)
    (d / name).write_text(textwrap.dedent(text))
    return d


def test_builtin_catalog_rows_have_sources(catalog):
    rows = list(catalog)
    assert len(rows) > 50
    for row in rows:
        assert row.source and row.as_of and row.price_source in ("estimate", "list", "quote")
    for pid in ("dgx-h100", "hgx-h100", "dgx-b200", "dgx-b300", "gb200-nvl72", "gb300-nvl72",
                "vr-nvl144"):
        assert catalog.platform(pid).gpus_per_domain >= 8
    for sid in ("qm9700", "q3400", "sn5600"):
        assert catalog.get("switches", sid)
    assert set(KINDS) == {k for k, v in catalog.rows.items() if v}


def test_overlay_adds_and_overrides(tmp_path):
    d = overlay(tmp_path, MODULE + MODULE.replace("modules:\n", "").replace("my-sr4", "mma4z00-ns400")
                .replace("ACME-SR4", "MMA4Z00-NS400"))
    cat = load_catalog([d])
    assert cat.get("modules", "my-sr4").price_source == "quote"
    assert cat.get("modules", "mma4z00-ns400").price_usd == 500
    assert cat.origin["my-sr4"].startswith(str(d))


def test_price_file_replaces_prices(tmp_path):
    prices = tmp_path / "p.csv"
    prices.write_text("sku,price_usd,price_source,as_of\nqm9700,31000,quote,2026-11-01\n"
                      "MMA4Z00-NS,\"900 USD\",quote,2026-11-01\n")
    cat = load_catalog(prices=[prices])
    assert cat.get("switches", "qm9700").price_usd == 31000
    assert cat.get("switches", "qm9700").price_source == "quote"
    assert cat.get("modules", "mma4z00-ns").price_usd == 900


@pytest.mark.parametrize("change,line,words", [
    (("    lanes: 4\n", "    lanes: 4\n    lanez: 4\n"), 11, ["modules.0.lanez", "unknown key",
                                                          "Did you mean 'lanes'"]),
    (('reach_max: "50 m"', "reach_max: 50"), 15, ["modules.0.reach_max", "no unit"]),
    (('reach_max: "50 m"', 'reach_max: "50 Gbit/s"'), 15, ["modules.0.reach_max", "not a length"]),
    (("form_factor: osfp-flat", "form_factor: sfp28"), 6, ["form_factor", "no switch or NIC"]),
    (("price_usd: 500", "price_usd: -5"), 18, ["modules.0.price_usd"]),
])
def test_bad_catalog_rows(bom, tmp_path, change, line, words):
    d = overlay(tmp_path, MODULE.replace(*change))
    r = bom("catalog", "validate", str(d))
    assert r.exit_code == 2, r.output
    assert f"{d / 'extra.yaml'}:{line}" in r.stderr, r.stderr
    for w in words:
        assert w in r.stderr, r.stderr


def test_duplicate_id(bom, tmp_path):
    d = overlay(tmp_path, MODULE + MODULE.replace("modules:\n", ""))
    r = bom("catalog", "validate", str(d))
    assert r.exit_code == 2 and f"{d / 'extra.yaml'}:24" in r.stderr and "duplicate id 'my-sr4'" in r.stderr


def test_price_file_with_unknown_sku(bom, tmp_path):
    prices = tmp_path / "p.csv"
    prices.write_text("sku,price_usd,price_source,as_of\nqm9700,31000,quote,2026-11-01\n"
                      "qm9701,31000,quote,2026-11-01\n")
    r = bom("catalog", "list", "--prices", str(prices))   # named in a warning, the other quote applied
    assert r.exit_code == 0 and f"{prices}:3: sku 'qm9701' is in no catalog row" in r.stderr
    assert "did you mean 'qm9700'" in r.stderr
    r = bom("catalog", "list", "--prices", str(prices), "--strict-prices")
    assert r.exit_code == 2 and f"{prices}:3" in r.stderr and "sku" in r.stderr
    assert "Did you mean 'qm9700'" in r.stderr


@pytest.mark.parametrize("row", ["qm9700,lots,quote,2026-11-01", "qm9700,12 W,quote,2026-11-01",
                                 "qm9700,100,guess,2026-11-01", "qm9700,100,quote,yesterday"])
def test_price_file_bad_values(tmp_path, row):
    prices = tmp_path / "p.csv"
    prices.write_text(f"sku,price_usd,price_source,as_of\n{row}\n")
    with pytest.raises(CatalogError) as err:
        load_catalog(prices=[prices])
    assert f"{prices}:2" in str(err.value)


def test_unknown_kind(bom, tmp_path):
    d = overlay(tmp_path, "modulez:\n  - id: x\n")
    r = bom("catalog", "validate", str(d))
    assert r.exit_code == 2 and "Did you mean 'modules'" in r.stderr


def test_catalog_commands(bom):
    r = bom("catalog", "list", "--kind", "switches")
    assert r.exit_code == 0 and "qm9700" in r.stdout and "estimate" in r.stdout
    r = bom("catalog", "show", "qm9700")
    assert r.exit_code == 0 and "MQM9700" in r.stdout and "source:" in r.stdout
    r = bom("catalog", "show", "qm9701")
    assert r.exit_code == 2 and "Did you mean 'qm9700'" in r.stderr
    assert bom("catalog", "list", "--kind", "switchs").exit_code == 2


# --- every fact confirmed or marked (`bom catalog validate --strict`) ----------------------

def test_strict_refuses_an_unmarked_unverified_fact(bom, tmp_path):
    d = overlay(tmp_path, MODULE + "    notes: Verified reach. Power is an estimate (datasheet not read).\n")
    assert bom("catalog", "validate", str(d)).exit_code == 0      # not strict: loads
    r = bom("catalog", "validate", "--strict", str(d))
    assert r.exit_code == 2, r.output
    # names the file and row, and quotes the sentence that shows the unverified fact
    assert f"{d / 'extra.yaml'}:2" in r.stderr and "'my-sr4'" in r.stderr, r.stderr
    assert "Power is an estimate" in r.stderr and "confirmed: false" in r.stderr, r.stderr


def test_strict_accepts_the_marked_fact_and_counts_it(bom, tmp_path):
    marked = MODULE.replace("  - id: my-sr4\n", "  - id: my-sr4\n    confirmed: false\n    unconfirmed: [power]\n")
    d = overlay(tmp_path, marked + "    notes: Verified reach. Power is an estimate (datasheet not read).\n")
    r = bom("catalog", "validate", "--strict", str(d))
    assert r.exit_code == 0, r.output
    cat = load_catalog([d])
    assert cat.get("modules", "my-sr4").unconfirmed == ["power"]


def test_price_estimates_are_not_facts(tmp_path):
    from bom.catalog.checks import unverified_phrases

    assert unverified_phrases("Price estimate from reseller listings. 64 ports verified.") == []
    assert unverified_phrases("Max power is an estimate. Street price about 5 kUSD.") == ["Max power is an estimate."]


@pytest.mark.parametrize("mark,words", [
    ("    confirmed: false\n", ["confirmed: false goes with unconfirmed"]),
    ("    unconfirmed: [power]\n", ["confirmed: false goes with unconfirmed"]),
    ("    confirmed: false\n    unconfirmed: [powr]\n", ["'powr'", "not a fact of this row"]),
    ("    confirmed: false\n    unconfirmed: [price_usd]\n", ["'price_usd'", "not a fact"]),
])
def test_bad_confirmation_marks(bom, tmp_path, mark, words):
    d = overlay(tmp_path, MODULE.replace("  - id: my-sr4\n", "  - id: my-sr4\n" + mark) + "    notes: x\n")
    r = bom("catalog", "validate", str(d))
    assert r.exit_code == 2, r.output
    for w in words:
        assert w in r.stderr, r.stderr


def test_builtin_catalog_is_strictly_marked(catalog):
    """Every built-in row whose notes show an unverified fact is marked (the CI gate), and the
    marks name real facts: the count is reported by `bom catalog validate`."""
    from bom.catalog.checks import check_confirmations, confirmation_counts

    check_confirmations(catalog)
    confirmed, unconfirmed = confirmation_counts(catalog)
    assert confirmed + unconfirmed == len(list(catalog)) and unconfirmed > 0
    assert "power_typical" in catalog.get("switches", "q3400").unconfirmed
    assert "scale_up.copper_cables_per_domain" in catalog.platform("gb200-nvl72").unconfirmed


def test_default_switches_come_from_the_catalog(catalog, tmp_path):
    """The built-in defaults (catalogs/defaults.yaml), and an overlay replacing one of them."""
    assert [catalog.default(f, layer) for f, layer in (("storage", "leaf"), ("inband", "leaf"), ("oob", "leaf"),
                                                     ("oob", "spine"), ("dci", "router"))] == \
        ["sn5600", "sn5600", "sn2201", "sn4600c", "cisco-8201-32fh"]
    assert catalog.default_switch("storage", "spine") is None
    d = tmp_path / "ov"
    d.mkdir()
    (d / "defaults.yaml").write_text("defaults:\n  - id: my-oob\n    fabric: oob\n    layer: leaf\n"
                                     "    switch: sn4600c\n    source: our design\n")
    assert load_catalog([d]).default("oob") == "sn4600c"
    (d / "defaults.yaml").write_text("defaults:\n  - id: my-oob\n    fabric: oob\n    layer: leaf\n"
                                     "    switch: sn9999\n    source: our design\n")
    with pytest.raises(CatalogError, match="sn9999"):
        load_catalog([d])


# --- power: supplies, a PDU's outlets, power cords (issue 48) ---------------------------------

def test_supplies_read_as_published(catalog):
    """The DGX H100's six 3.3 kW supplies, 4+2 (its user guide, the row's notes): N+M, not N+N; the
    Q3400's eight C20 inlets (devicetype-library Q3400-RA.yaml)."""
    dgx = catalog.platform("dgx-h100").supplies
    assert dgx is not None
    assert (dgx.count, dgx.rating_w, dgx.inlet, dgx.needed, dgx.spare, dgx.n_plus_n) == (6, 3300.0, "c20", 4, 2, False)
    q3400 = catalog.get("switches", "q3400").supplies
    assert (q3400.count, q3400.inlet, q3400.n_plus_n) == (8, "c20", True)
    nvl = catalog.platform("gb300-nvl72")
    assert nvl.supplies.inlet == "busbar" and nvl.shelf_supplies.inlet == "whip"


def test_pdu_outlets_and_cords(catalog):
    """The rack PDU's build: 415 V 3-phase 60 A, 240 V at an outlet, 12 banks of 20 A; 415 x 60 x
    sqrt(3) x 0.8 = 34.5 kW, the row's power_capacity; the cords' ratings are IEC 60320-1's."""
    pdu = catalog.get("endpoints", "pdu-3ph-60a")
    o = pdu.outlets
    assert (o.phases, o.volts("voltage"), o.amps("current"), o.volts("outlet_voltage")) == (3, 415.0, 60.0, 240.0)
    assert (o.outlets, o.banks, o.amps("bank_breaker"), o.continuous) == ({"c13": 24, "c19": 24}, 12, 20.0, 0.8)
    assert 415 * 60 * 3 ** 0.5 * o.continuous == pytest.approx(34_500, rel=1e-3)
    cords = {r.id: r for r in catalog.rows["power"].values()}
    assert {c.kind: c.inlet for c in cords.values()} == {"c13-c14": "c14", "c19-c20": "c20", "whip": "whip"}
    assert [magnitude(c.rating, "current") for c in cords.values()] == [10.0, 16.0, 60.0]


@pytest.mark.parametrize(("supplies", "words"), [
    ('{count: 2, rating: "1 kW", inlet: c14, redundancy: "2+1", source: s}', "must add up to count"),
    ('{count: 2, rating: "1 kW", inlet: c15, redundancy: "1+1", source: s}', "inlet"),
    ('{count: 2, rating: "1 kW", inlet: c14, redundancy: "one", source: s}', "redundancy"),
])
def test_bad_supplies(bom, tmp_path, supplies, words):
    text = SWITCH_ROW.replace("SUPPLIES", supplies)
    r = bom("catalog", "validate", str(overlay(tmp_path, text)))
    assert r.exit_code == 2 and words in r.stderr, r.stderr


def test_strict_refuses_a_row_without_supplies(bom, tmp_path):
    """A built-in row that stands in a rack and draws power says how it takes it."""
    text = SWITCH_ROW.replace("    supplies: SUPPLIES\n", "")
    d = overlay(tmp_path, text)
    assert bom("catalog", "validate", str(d)).exit_code == 0      # an overlay's row still loads
    r = bom("catalog", "validate", "--strict", str(d))
    assert r.exit_code == 2 and "'my-switch' has no supplies" in r.stderr and "Add supplies:" in r.stderr, r.stderr


SWITCH_ROW = """\
switches:
  - id: my-switch
    vendor: Acme
    part_number: ACME-1
    description: a switch
    protocol: ethernet
    ports: 32
    port_rate: "400 Gbit/s"
    cages: 32
    form_factor: osfp
    ports_per_cage: 1
    lane_rate: "100 Gbit/s"
    power_typical: "500 W"
    power_max: "900 W"
    rack_units: 1
    supplies: SUPPLIES
    price_usd: 1000
    price_source: quote
    lead_time: "6 weeks"
    lead_time_source: Acme quote 2026-11
    source: Acme quote 2026-11
    as_of: 2026-11-30
"""
