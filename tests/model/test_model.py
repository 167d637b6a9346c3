"""bom/model/model.py: ``Model.warnings``, the one list of what the build chose and why (issue 42)."""

from __future__ import annotations

from pathlib import Path

from bom.inputs.scenario import load_scenario
from bom.pipeline import build_scenario
from tests.rules.cases import TWO_SITES, build

SIZED = ("name: r\nplatform: gb300-nvl72\ngpus: 100\nfabrics: {compute: {}, storage: {switch: sn5600}}\n"
         "storage: {capacity: 2 PB, throughput: 700 GB/s}\n")


def test_each_why_of_the_json_is_a_warning(catalog):
    # The UFM not bought, the GPUs rounded up, the storage sized from the block: each why, said.
    m = build(SIZED, catalog)
    assert m.warnings == (
        "fabrics.compute: the platform's 4 UFM appliances per site (management.ufm_count) are not bought: no port "
        "of the compute fabric is free for a site's 4 UFM port(s): every one of the 1 leaves' 144 downlinks per "
        "site carries a node, and an appliance off the fabric cannot be its subnet manager. Run the subnet manager "
        "on a managed switch, or free a port for each (one node fewer per UFM port, as the DGX SuperPOD RA does) "
        "and set management.ufm_count.",
        "gpus: 100 GPUs asked, 144 built: rounded up to whole gb300-nvl72 systems of 72 GPUs (18 nodes of 4)",
        "storage: 8 x storage-appliance-2u per site, sized by the storage block: capacity 2,000 TB / 500 TB per "
        "appliance -> 4; throughput 700 GB/s / 90 GB/s per appliance -> 8")


def test_a_given_count_says_nothing_and_an_amplified_line_says_why(catalog):
    m = build(TWO_SITES + "storage: {count: 2}\n", catalog)
    assert not [w for w in m.warnings if w.startswith(("storage:", "gpus:"))], m.warnings
    # 40 km of fibre and the mux/demux lose more than the 400ZR module's unamplified budget.
    assert [w for w in m.warnings if w.startswith("sites:")] == [
        "sites: the coherent line is amplified (a booster and a pre-amplifier each way): fibre 10.00 + mux/demux "
        "12.00 + 6 mated pairs 1.50 = 23.50 dB > the module's unamplified budget 11 dB"]


#: 144 GB300 GPUs (two NVL72 racks) with the keys that join sites: 100 MW holds them in one building.
ONE = """\
name: one-building
platform: gb300-nvl72
gpus: 144
fabrics:
  compute: {{switch: q3400, topology: rail-optimized}}
sites:
  power: "100 MW"
{more}"""


def _model(tmp_path: Path, catalog, more: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "s.yaml"
    path.write_text(ONE.format(more=more))
    return build_scenario(*load_scenario(path), catalog)


def test_site_keys_one_building_leaves_unused_are_a_warning(tmp_path, catalog):
    m = _model(tmp_path, catalog, '  distance: "40 km"\n  dci_fraction: 0.125\n')
    assert m.cluster.site_count == 1
    said = [w for w in m.warnings if w.startswith("sites.power")]
    assert said == ["sites.power puts the cluster in one building, so sites.distance and sites.dci_fraction are "
                    "not used (no second site to join); give sites.count to build on more sites"]


def test_no_warning_without_them_or_with_a_count(tmp_path, catalog):
    assert not any(w.startswith("sites.power") for w in _model(tmp_path, catalog, "").warnings)
    m = _model(tmp_path, catalog, '  count: 1\n  distance: "40 km"\n')
    assert not any(w.startswith("sites.power") for w in m.warnings)   # the scenario asked for one site
