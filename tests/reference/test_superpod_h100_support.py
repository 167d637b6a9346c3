"""NVIDIA DGX SuperPOD with DGX H100, 4 SU (RA-11333-001 V11), everything around the compute fabric.

Published figures reproduced (RA-11333-001 V11, Table 7 "Major components of the 4 SU, 127-node
DGX SuperPOD"): 38 racks (Legrand NVIDPD13), 127 DGX H100, 4 UFM appliances 3.1, 5 management
servers. The RA's out-of-band section: the OOB fabric "connects the management ports of all
devices including DGX and management servers, storage, networking gear, rack PDUs".

Not reproduced from a published table: the storage, in-band and OOB switch and cable counts.
Searched again on 2026-12-03 (the `search` tool, corpora pages, docs, code; find_string and
find_repos over the GitHub index) for: "DGX SuperPOD H100 storage fabric switches component
count", "RA-11333-001 storage fabric leaf switches per SU oversubscribed 4:3 management rack",
"Table 8 storage in-band cables SN4600C SN2201 count", "Figure 9 SN4600C in-band ... Figure 10
OOB SN2201", "InfiniBand Storage Fabric DGX B200 ... QM9700", "Storage and In-band Ethernet
Fabric GB200 SN5600 leaf switches per SU", "SuperPOD B300 storage and in-band Ethernet fabric
SN5600 switch count", "DGX SuperPOD storage fabric blocking factor oversubscription", the
string "Storage fabric component", "In-Band Management Network component" and repositories
named *superpod*. What is stored: the docs.nvidia.com network-fabrics pages of the H100, B200,
B300 and GB200 RAs, each ending at or just after Table 4 (compute) or the "InfiniBand Storage
Fabric" heading; a scribd copy of RA-11333-001 V11 (27 pages) whose stored text ends after the
abstract; a summary page quoting Table 7. No storage, in-band or OOB component table was
readable, so none is cited. The tests below hold the rule's counts (stated with each), the
storage fabric at the platform's 4:3 (catalogs/platforms.yaml dgx-h100 support.oversubscription,
itself from issue 11's quote, not read at the source).
"""

from __future__ import annotations

from pathlib import Path

from bom.inputs.scenario import load_scenario
from bom.pipeline.model import build_model

CASE = Path(__file__).with_name("superpod_h100_4su_full.yaml")


def _model(catalog):
    scenario, src = load_scenario(CASE)
    return build_model(scenario, src, catalog, None)


def test_table7_racks_ufm_and_management_servers(catalog):
    m = _model(catalog)
    j = m.to_json()
    # Table 7: 38 racks, with no storage in them (the RA leaves the storage to the partner: "Count
    # and cable type required depend on specific storage selected", Table 8). The storage fabric's
    # default appliances (2, test_storage_fabric_at_the_ra_ratio) stand in a storage rack of their own.
    assert j["racks"] == 38 + 1 and j["rack_counts"]["storage"] == 1
    assert j["rack_counts"]["compute"] == 32                       # 127 DGX, 4 per rack
    assert j["endpoints"]["ufm"]["count"] == 4                     # Table 7: 4 UFM appliances
    assert j["endpoints"]["management_servers"]["count"] == 5      # Table 7: 5 management servers
    assert m.placement.devices("ufm") == 4 and m.placement.devices("mgmt") == 5
    # The compute fabric is unchanged by the other fabrics (Tables 4, 7, 8).
    assert j["fabrics"]["compute"]["switches"] == {"leaf": 32, "spine": 16, "core": 0}
    assert j["fabrics"]["compute"]["links"]["node-leaf"] == 1016


def test_oob_cables_every_managed_device(catalog):
    m = _model(catalog)
    oob = m.fabrics["oob"]
    managed = sum(n for item, n in m.placement.by_item().items() if item.managed)
    # Nodes' BMCs, every compute/storage/in-band switch, PDUs, UFM and management servers, and the
    # storage fabric's 2 default appliances (the RA's OOB fabric manages "storage" too).
    switches = sum(m.fabrics[f].switches(k) for f in ("compute", "storage", "inband")
                   for k in ("leaf", "spine", "core"))
    pdus = m.placement.devices("pdu")
    assert managed == 127 + switches + pdus + 4 + 5 + 2
    assert oob.to_json()["links"]["node-leaf"] == managed
    # Uplinks into the in-band fabric (no separate OOB spine layer): in-band leaf ports, counted in
    # the in-band fabric's links (its oob-leaf hop), not twice.
    j = oob.to_json()
    assert j["switches"]["spine"] == 0 and j["links"]["leaf-inband"] == 0
    assert j["uplinks_counted_in"] == "inband" and j["uplink_ports"] == oob.leaves
    assert m.fabrics["inband"].to_json()["links"]["oob-leaf"] == oob.leaves


def test_in_band_runs_on_the_in_band_ports_at_100g(catalog):
    m = _model(catalog)
    f = m.fabrics["inband"]
    assert f.to_json()["rate_gbps"] == 100.0
    # 127 nodes x 2 in-band ports; 4 UFM x 2, 5 management servers x 2 and one uplink per management
    # switch on leaves of their own, each kind its own hop at its own row's rate and cage.
    j = f.to_json()
    oob = m.fabrics["oob"].leaves
    assert j["links"]["node-leaf"] == 127 * 2
    assert (j["links"]["ufm-leaf"], j["links"]["mgmt-leaf"], j["links"]["oob-leaf"]) == (4 * 2, 5 * 2, oob)
    assert j["endpoint_ports"] == 18 + oob
    # The in-band leaves have room for every port they carry (SN4600C: 32 of 64 x 100G down at 1:1).
    assert j["switches"]["leaf"] * 32 >= 127 * 2 + 18 + oob


def test_storage_fabric_at_the_ra_ratio(catalog):
    # The rule's counts, not a published table (see the module docstring): 127 DGX x 2 storage
    # ports on QM9700 at 4:3 (36 of 64 ports down, 28 up); leaf groups of 16 nodes (32 ports, the
    # largest divisor of the 32-node SU that fits 36 downlinks) -> 8 leaves, each 32 x 3/4 = 24
    # uplinks. The scenario gives no storage block, so the fabric carries the platform RA's appliance
    # sized by the RA's read guideline (RA-11333-001 V11 Table 6, Better: 40 GB/s per 256-GPU SU):
    # 1,016 GPUs read 158.75 GB/s / 90 GB/s = 2 appliances x 8 ports = 16 ports, on a leaf of their
    # own: 9 leaves x 24 = 216 uplinks over 4 spines of 64 ports (the smallest divisor of 24 that
    # holds them; before the storage default the fabric carried no storage: 8 leaves, 192 over 3).
    m = _model(catalog)
    j = m.fabrics["storage"].to_json()
    assert j["oversubscription"] == "4:3"
    assert m.endpoints.storage_count == 2 and "RA-11333-001 Table 6" in m.endpoints.why
    assert j["switches"] == {"leaf": 9, "spine": 4, "core": 0}
    assert j["links"]["node-leaf"] == 254 and j["links"]["leaf-spine"] == 216 and j["links"]["storage-leaf"] == 16
