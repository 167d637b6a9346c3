"""Part numbers that are not part numbers (issue 23): a part_number with a space is a name, and its row
must say orderable: false, so the order flags it and the build warns."""

from __future__ import annotations

import pytest

from bom.catalog.load import load_catalog
from bom.errors import CatalogError

# The rows issue 23 names (and the storage appliance, found by the same rule).
NAMED = {"mgmt-x86-2s": "x86 2-socket management server",
         "pdu-3ph-60a": "0U metered/switched rack PDU, 3-phase 415 V 60 A",
         "ufm-appliance-3.1": "UFM Enterprise Appliance 3.1",
         "mgx-nvl72-rack": "MGX rack (part of the NVL72 system)",
         "storage-appliance-2u": "SuperPOD-certified storage appliance (2U NVMe, e.g. DDN AI400X2)"}


def test_no_built_in_row_sells_a_name_as_a_sku(catalog):
    named = {r.id: r for r in catalog if " " in (r.part_number or "").strip()}
    assert set(NAMED) <= set(named)
    assert all(not r.orderable for r in named.values()), [r.id for r in named.values() if r.orderable]


def test_the_default_build_flags_and_names_them(default_report):
    order = {o.catalog_id: o for o in default_report.order}
    for row_id, name in NAMED.items():
        assert order[row_id].sku == name
        assert any(f.startswith("generic") for f in order[row_id].flags), row_id
    warning = next(w for w in default_report.warnings if "generic names" in w)
    assert all(name in warning.split(": ", 1)[1].split("; ") for name in NAMED.values())


def test_an_overlay_row_with_a_name_for_a_part_number_is_flagged_and_refused_by_strict(tmp_path):
    # It loads (a user's overlay still builds, its line flagged generic); validate --strict, which
    # CI runs on the built-in rows, refuses it with the row and what to do.
    from bom.catalog.checks import check_confirmations

    block = _overlay(tmp_path)
    cat = load_catalog([tmp_path])
    mine = cat.rows["endpoints"]["my-server"]
    assert mine.orderable
    with pytest.raises(CatalogError) as err:
        check_confirmations(cat)
    said = str(err.value)
    assert f"{tmp_path / 'e.yaml'}:4" in said and "my-server" in said and "is a name, not a SKU" in said
    assert "orderable: false" in said
    (tmp_path / "e.yaml").write_text("endpoints:\n" + block)
    assert not load_catalog([tmp_path]).rows["endpoints"]["my-server"].orderable   # marked: accepted


def test_an_orderable_name_from_an_overlay_is_flagged_generic_in_the_order(tmp_path):
    import datetime as dt

    from bom.costing.lines import Line
    from bom.costing.order import line_flags

    _overlay(tmp_path)
    cat = load_catalog([tmp_path])
    mine = cat.rows["endpoints"]["my-server"]
    line = next(x for x in _lines(cat) if x.catalog_id == "mgmt-x86-2s")
    line = Line(**{**line.__dict__, "catalog_id": "my-server", "sku": mine.part_number})
    assert any(f.startswith("generic") for f in line_flags(line, cat, dt.date(2026, 12, 1)))


def _lines(cat):   # type: ignore[no-untyped-def]
    from bom.inputs.scenario import load_scenario
    from bom.pipeline import report_of
    from bom.pipeline.model import build_model

    sc, src = load_scenario(None)
    return report_of(build_model(sc, src, cat, None), cat).lines


def _overlay(tmp_path):   # type: ignore[no-untyped-def]
    """The management server's row as an overlay row ``my-server`` that says it is orderable
    (written to ``tmp_path``/e.yaml); returns the row with its ``orderable: false`` kept."""
    from tests.paths import ROOT

    text = (ROOT / "catalogs" / "endpoints.yaml").read_text()
    block = text[text.index("  - id: mgmt-x86-2s"):text.index("  - id: storage-appliance-2u")]
    block = block.replace("id: mgmt-x86-2s", "id: my-server")
    (tmp_path / "e.yaml").write_text("endpoints:\n" + block.replace(
        "    orderable: false   # a generic name, not a SKU: get the SKU from the vendor\n", ""))
    return block
