"""A scheduled fabric's catalog rows: the interface node names a fabric element row of its own cage and
rate (bom.catalog.checks.check_fabric_elements), and the Uplinks block asks for one."""

from __future__ import annotations

from pathlib import Path

import pytest

from bom.catalog.load import load_catalog
from bom.errors import BomError

BUILTIN = Path(__file__).resolve().parents[2] / "catalogs" / "switches-scheduled.yaml"


def _overlay(tmp_path, text: str) -> Path:
    d = tmp_path / "cat"
    d.mkdir(exist_ok=True)
    (d / "switches-scheduled.yaml").write_text(text)   # replaces the built-in rows of the same ids
    return d


def test_builtin_pair_is_consistent(catalog):
    leaf, fe = catalog.get("switches", "arista-7700r4c-38pe"), catalog.get("switches", "arista-7720r4-128pe")
    assert leaf.uplinks.scheduled and leaf.uplinks.fabric_element == fe.id and fe.fabric_element
    assert (leaf.uplinks.ports, leaf.ports, fe.ports) == (20, 18, 128)   # FBOSS meru800bia / meru800bfa


@pytest.mark.parametrize("edit, said", [
    (lambda t: t.replace("fabric_element: arista-7720r4-128pe", "fabric_element: sn5600"),
     "is not a switch row marked fabric_element: true"),
    (lambda t: t.replace('    port_rate: "800 Gbit/s"\n    cages: 128', '    port_rate: "400 Gbit/s"\n    cages: 128'),
     "same cage at the same rate"),
    (lambda t: t.replace("      fabric_element: arista-7720r4-128pe\n", ""), "name the fabric element"),
])
def test_a_broken_pair_is_refused_at_load_with_the_row(tmp_path, edit, said):
    text = edit(BUILTIN.read_text())
    with pytest.raises(BomError) as e:   # a CatalogError or the schema's own
        load_catalog([_overlay(tmp_path, text)])
    assert said in str(e.value) + str(getattr(e.value, "hint", "") or "") and "switches-scheduled.yaml" in str(e.value)
