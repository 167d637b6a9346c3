"""Catalog truth, round three (issue 44): the facts found wrong, with their sources; the two holes of
`bom catalog validate --strict` (a notes sentence read clause by clause, a class figure stored as a
model's fact), each shown by a row that passed before and is refused now; and the marks set to what
the cited sources say."""

from __future__ import annotations

import pytest

from bom.catalog.checks import unverified_phrases
from tests.catalog.test_rows import MODULE, overlay


def _strict(bom, d):
    return bom("catalog", "validate", "--strict", str(d))


# --- the wrong facts, corrected with their sources --------------------------------------

def test_dgx_h100_range_starts_at_the_dgx_h100_prices_found(catalog):
    """The 199 kUSD low quoted DGX A100 launch terms; the DGX H100 prices Epoch AI's dataset records
    run from SemiAnalysis' ~270 kUSD to a 375 kUSD listing."""
    row = catalog.platform("dgx-h100")
    assert row.price_low_usd == 270_000 and row.price_high_usd == 375_000
    src = row.price_range_source
    assert "Nvidia sells DGX H100's at around $270,000" in src and "SemiAnalysis" in src
    assert "USD 375,000" in src and "viperatech.com/shop/nvidia-dgx-h100-p4387-system-640gb" in src
    assert "epoch-research/training-cost-trends" in src and "199,000" not in src


def test_dgx_a100_is_priced_as_the_640_gb_model(catalog):
    """199 kUSD was the 320 GB launch price; Graphcore's published DGX A100 640GB figure is 300 kUSD
    (USD 37,500 per GPU in Epoch AI's dataset)."""
    row = catalog.platform("dgx-a100")
    assert row.price_usd == 300_000 and "640" in row.part_number
    assert "Graphcore" in row.notes and "37,500 per GPU x 8" in row.notes
    assert "320 GB model's" in row.notes and "epoch-research/training-cost-trends" in row.notes


@pytest.mark.parametrize("row_id,sku,platform", [
    ("arista-7700r4c-38pe", "DCS-DL-7700R4C-38PE-AC-F", "PLATFORM_MERU800BIA"),
    ("arista-7720r4-128pe", "DCS-DS-7720R4-128PE-AC-F", "PLATFORM_MERU800BFA"),
])
def test_arista_dsf_skus_are_the_ones_fboss_names(catalog, row_id, sku, platform):
    """Meta's FBOSS maps the orderable product names to the DSF platforms
    (fboss/lib/platforms/PlatformProductInfo.cpp, PlatformProductInfo::initMode); the old
    DCS-7700R4C-38PE-F and DCS-7720R4-128PE appear in no source."""
    row = catalog.get("switches", row_id)
    assert row.part_number == sku and row.orderable
    assert f"maps the product name{'s' if 'DL' in sku else ''} {sku}" in row.source
    assert platform in row.source and "0d6f34f3fc549fa6707c4e7c00d4ba887a777ca7" in row.source


def test_hgx_h100_carries_a_published_range(catalog):
    row = catalog.platform("hgx-h100")
    assert (row.price_low_usd, row.price_usd, row.price_high_usd) == (248_956, 250_000, 296_644)
    assert "archive.ph/D6Dub" in row.price_range_source and "8125gs-tnhr" in row.price_range_source


# --- hole 1: a price clause excuses only itself ------------------------------------------

@pytest.mark.parametrize("notes", [
    "NOT verified: 1U, 800 W, two 100G ports, price.",
    "Power (8 W) and price are estimates.",
    "Reach, power and prices are placeholders.",
])
def test_a_price_in_a_sentence_no_longer_hides_its_other_facts(bom, tmp_path, notes):
    """Each sentence passed `validate --strict` before (it mentions price, so it was skipped whole)."""
    d = overlay(tmp_path, MODULE + f"    notes: \"{notes}\"\n")
    r = _strict(bom, d)
    assert r.exit_code == 2, r.output
    assert "'my-sr4'" in r.stderr and "says a fact is unverified" in r.stderr and notes[:12] in r.stderr


@pytest.mark.parametrize("text", [
    "Price estimate from reseller listings, 64 ports verified.",
    "Price: the 199 kUSD launch price reported at announcement, an estimate for today.",
    "Price is a placeholder.",
    "Price: widely reported ~515 kUSD list (estimate).",
    "Street price about 5 kUSD.",
])
def test_sentences_about_the_price_alone_still_pass(text):
    assert unverified_phrases(text) == []


def test_clauses_name_the_facts_they_doubt(bom, tmp_path):
    """A marked row still fails when the list before the price names a fact it does not mark."""
    marked = MODULE.replace("  - id: my-sr4\n", "  - id: my-sr4\n    confirmed: false\n    unconfirmed: [power]\n")
    d = overlay(tmp_path, marked + "    notes: \"power, loss_budget and price are estimates.\"\n")
    r = _strict(bom, d)
    assert r.exit_code == 2 and "loss_budget is unverified but unconfirmed does not name it" in r.stderr, r.output
    d = overlay(tmp_path, marked.replace("[power]", "[power, loss_budget]")
                + "    notes: \"power, loss_budget and price are estimates.\"\n")
    assert _strict(bom, d).exit_code == 0


# --- hole 2: a class figure stored as the model's fact ------------------------------------

SWITCHY = MODULE.replace('power: "8 W"', 'power: "9 W"')


@pytest.mark.parametrize("notes", [
    "AMD's table for a 51.2T switch, estimates only: 9 W at load.",
    "Power 9 W, the QSFP-DD class figure.",
    "9 W is AMD's figure for the 400G SR4-class module.",
])
def test_a_class_figure_is_refused_unless_marked(bom, tmp_path, notes):
    """The figure is quoted by value, not by the field's name, so nothing named a fact before: the
    row passed. A class figure names the facts whose values it quotes (power: 9 W)."""
    d = overlay(tmp_path, SWITCHY + f"    notes: \"{notes}\"\n")
    r = _strict(bom, d)
    assert r.exit_code == 2, r.output
    mark = "  - id: my-sr4\n    confirmed: false\n    unconfirmed: [loss_budget]\n"
    marked = SWITCHY.replace("  - id: my-sr4\n", mark)
    r = _strict(bom, overlay(tmp_path, marked + f"    notes: \"{notes}\"\n"))
    assert r.exit_code == 2 and "power is unverified but unconfirmed does not name it" in r.stderr, r.output
    fixed = marked.replace("[loss_budget]", "[loss_budget, power]")
    assert _strict(bom, overlay(tmp_path, fixed + f"    notes: \"{notes}\"\n")).exit_code == 0


@pytest.mark.parametrize("notes", [
    "Cages take Class 8 (17 W) modules, as the Interfaces page gives them.",
    "A deep-buffer 8200 class router.",
    "Max power is measured at 9 W.",
])
def test_what_is_not_a_class_figure_passes(bom, tmp_path, notes):
    assert _strict(bom, overlay(tmp_path, SWITCHY + f"    notes: \"{notes}\"\n")).exit_code == 0


@pytest.mark.parametrize("row_id", ["arista-7060x6-64pe", "dell-z9864f-on", "arista-7700r4c-38pe",
                                    "arista-7720r4-128pe"])
def test_amds_switch_power_is_marked_on_the_named_models(catalog, row_id):
    """AMD's MI3XX guide gives 'estimated' power for a 51.2T switch class and for Arista's DSF boxes:
    a third party's figure, not the model's data sheet, so it is no longer stored as confirmed."""
    row = catalog.get("switches", row_id)
    assert {"power_typical", "power_max"} <= set(row.unconfirmed)
    assert "AMD" in row.source


@pytest.mark.parametrize("row_id,facts", [
    ("ufm-appliance-3.1", {"rack_units", "power", "ports.inband"}),
    ("mgmt-x86-2s", {"rack_units", "power", "ports.inband"}),
    ("sn6810", {"power_typical", "power_max", "rack_units", "engine", "laser_source.part_number"}),
    ("sn6800", {"power_typical", "power_max", "rack_units", "engine", "laser_source.part_number"}),
    ("th6-davisson-cpo", {"ports", "power_typical", "rack_units", "laser_source.power"}),
    ("th5-bailly-cpo", {"power_typical", "rack_units", "laser_source.part_number"}),
    ("mma1l30-cm", {"power"}),
    ("pdu-3ph-60a", {"part_number", "power"}),
])
def test_rows_the_stricter_check_flagged_are_marked(catalog, row_id, facts):
    row = catalog.get(catalog.kind_of(row_id), row_id)
    assert not row.confirmed and facts <= set(row.unconfirmed), row.unconfirmed


# --- marks that said less than their sources ---------------------------------------------

def test_dgx_a100_height_and_nvlink_count_are_confirmed(catalog):
    """geektopia.es (cited): 26.4 cm high, a 6U chassis; AnandTech's SC20 table: A100 80GB 'NVLink 3,
    12 Links (600GB/sec)'."""
    row = catalog.platform("dgx-a100")
    assert row.node_rack_units == 6 and row.scale_up.links_per_gpu == 12
    assert "node_rack_units" not in row.unconfirmed and "scale_up.links_per_gpu" not in row.unconfirmed
    assert "26.4 cm" in row.source and "12 Links (600GB/sec)" in row.source


def test_tpu_v6e_hosts_per_pod_are_confirmed(catalog):
    """Cloud TPU v6e page: 'Chips per host | 8' and 'TPU Pod size | 256 chips': 32 hosts a pod."""
    row = catalog.platform("tpu-v6e-pod")
    assert row.su_nodes == 32 and "su_nodes" not in row.unconfirmed
    assert "32 hosts per pod (256 chips / 8 chips per host" in row.notes
