"""The suite reads the built-in catalog once per process (tests/conftest.py ``_builtin_catalog_read_once``):
what every load_catalog gives is what a fresh read gives, and what one load changes (an overlay, a price
file) never reaches the next."""

from __future__ import annotations

import os

import pytest

from bom.catalog import load
from bom.catalog.checks import check_catalog
from bom.catalog.rows import Catalog

pytestmark = pytest.mark.skipif(os.environ.get("BOM_TEST_CATALOG_CACHE") == "off", reason="the cache is off")


def _fresh() -> Catalog:
    """The built-in catalog read from its files now, past the suite's cache."""
    cat = Catalog()
    load._load_dir.__wrapped__(cat, load.builtin_dir(), False)   # type: ignore[attr-defined]
    check_catalog(cat)
    return cat


def test_a_load_is_a_fresh_read():
    assert hasattr(load._load_dir, "__wrapped__"), "the suite's cache is not in place"
    cached, fresh = load.load_catalog(), _fresh()
    assert cached is not load.load_catalog()
    assert cached.rows == fresh.rows
    assert [list(r) for r in cached.rows.values()] == [list(r) for r in fresh.rows.values()]   # in file order
    assert cached.origin == fresh.origin and cached.defaults == fresh.defaults
    assert {k: (src.where(()), path) for k, (src, path) in cached._keys.items()} == \
           {k: (src.where(()), path) for k, (src, path) in fresh._keys.items()}


def test_a_price_file_or_an_overlay_does_not_reach_the_next_load(tmp_path):
    prices = tmp_path / "p.csv"
    prices.write_text("sku,price_usd,price_source,as_of\nqm9700,1234,quote,2026-11-01\n")
    overlay = tmp_path / "cat"
    overlay.mkdir()
    (overlay / "defaults.yaml").write_text("defaults:\n  - id: my-oob\n    fabric: oob\n    layer: leaf\n"
                                           "    switch: sn4600c\n    source: our design\n")
    changed = load.load_catalog([overlay], prices=[prices])
    assert changed.get("switches", "qm9700").price_usd == 1234 and changed.default_switch("oob") == "sn4600c"
    again, fresh = load.load_catalog(), _fresh()
    assert again.get("switches", "qm9700") == fresh.get("switches", "qm9700")
    assert again.get("switches", "qm9700").price_usd != 1234
    assert again.default_switch("oob") == fresh.default_switch("oob") != "sn4600c"
    assert again.quotes == {} and again.notes == fresh.notes
