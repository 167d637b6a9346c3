"""The BOM categories' table is the only place a category is named."""

from __future__ import annotations

import re
from pathlib import Path

from bom.costing.categories import CATEGORIES, NETWORK, NOT_NETWORK, TABLE, Category, asset_class

ROOT = Path(__file__).resolve().parents[2]
#: Category names that are nothing else in the code (compute, storage, server, rack and switch are
#: also fabric, role or layer names).
_ONLY_CATEGORIES = [c.value for c in Category if c.value not in ("compute", "storage", "server", "rack", "switch")]


def test_every_category_has_one_meaning() -> None:
    assert set(TABLE) == set(Category)
    assert set(NETWORK) | set(NOT_NETWORK) == set(CATEGORIES) and not set(NETWORK) & set(NOT_NETWORK)
    assert {m.asset_class for m in TABLE.values()} == {"gpu", "network", "facility"}


def test_storage_and_servers_are_it_equipment() -> None:
    """Storage appliances and management servers depreciate with the GPU systems, and are not network."""
    assert asset_class("storage") == asset_class("server") == "gpu"
    assert Category.STORAGE in NOT_NETWORK and asset_class(Category.PDU) == "facility"


def test_no_category_string_outside_the_table() -> None:
    pattern = re.compile("|".join(rf'"{re.escape(c)}"' for c in _ONLY_CATEGORIES))
    hits = [f"{p.relative_to(ROOT)}:{i}" for p in sorted((ROOT / "bom").rglob("*.py"))
            if p.name != "categories.py" and p.name != "scenario.py"   # scenario.py: a schema example
            for i, line in enumerate(p.read_text().splitlines(), 1) if pattern.search(line)]
    assert hits == []


def test_every_line_category_is_in_the_table(default_report) -> None:  # type: ignore[no-untyped-def]
    assert {x.category for x in default_report.lines} <= set(CATEGORIES)
