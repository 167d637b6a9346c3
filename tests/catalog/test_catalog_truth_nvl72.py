"""Catalog truth for the NVL72 compute trays' front-end ports (issue 42, item 5): NVIDIA NCP Software
Reference Guide ('latest'; no version number or date printed), Data Center Architecture, GPU Compute
Node, table 'GB200/GB300 Components', row 'TAN Network Connectivity (aka N/S)': GB200 '2 x 400GbE BF3,
each configured as 2x200GbE', GB300 '1 x 400GbE BF3 configured as 2x200GbE'. The rows gave 2 + 2 x
400G for both. The storage and in-band fabrics of an NVL72 build are sized from them."""

from __future__ import annotations

import pytest

from bom.units import magnitude

NCP = "table 'GB200/GB300 Components', row 'TAN Network Connectivity (aka N/S)'"
URL = "docs.nvidia.com/ncx/ncp-software-reference-guide/latest/data-center-architecture.html"


@pytest.mark.parametrize("row_id,ports,quote", [
    ("gb200-nvl72", 2, "'2 x 400GbE BF3, each configured as 2x200GbE'"),   # 4 x 200G a tray, 2 a fabric
    ("gb300-nvl72", 1, "'1 x 400GbE BF3 configured as 2x200GbE'"),         # 2 x 200G a tray, 1 a fabric
])
def test_nvl72_front_end_ports_are_the_ncp_table_s(catalog, row_id, ports, quote):
    row = catalog.platform(row_id)
    for nic in (row.storage, row.inband):
        assert (nic.ports, magnitude(nic.rate, "rate"), nic.form_factor) == (ports, 200.0, "qsfp112")
        assert "BlueField-3" in nic.nic and "2 x 200GbE" in nic.nic
    assert NCP in row.source and URL in row.source and "'latest' version" in row.source
    assert quote in row.notes and "read 2026-12-06" in row.notes
    # The split of the tray's ports between the two fabrics is the tool's, and marked as such.
    assert {"storage.ports", "inband.ports"} <= set(row.unconfirmed)


def test_the_sources_that_disagree_are_named(catalog):
    gb200, gb300 = catalog.platform("gb200-nvl72"), catalog.platform("gb300-nvl72")
    assert "Left Bay BF3 P1 and P2, Right Bay BF3 P1 and P2" in gb200.notes          # Mission Control N-S guide
    assert "'on the 400G ports'" in gb200.notes                                       # the tuning guide's words
    assert "'using two 400 Gb/s ports to two separate switches'" in gb300.notes       # the Enterprise RA's
    assert {"storage.form_factor", "inband.form_factor"} <= set(gb300.unconfirmed)


@pytest.mark.parametrize("platform,racks,per_tray", [("gb200-nvl72", 8, 2), ("gb300-nvl72", 8, 1)])
def test_an_nvl72_build_sizes_storage_and_inband_from_the_trays_ports(catalog, platform, racks, per_tray):
    """node-leaf links = trays x the published ports a fabric, at 200G (before: x 2 at 400G)."""
    from bom.inputs.scenario import scenario_from_text
    from bom.inputs.yamlio import load_text
    from bom.pipeline import build_scenario

    text = (f"name: t\nplatform: {platform}\ngpus: {racks * 72}\n"
            "fabrics: {storage: {switch: sn5600}, inband: {switch: sn5600}}\n")
    model = build_scenario(scenario_from_text(text), load_text(text, "t.yaml"), catalog)
    trays = racks * 18
    for name in ("storage", "inband"):
        f = model.fabrics[name]
        assert f.hop_links("node-leaf") == trays * per_tray
        assert {g.rate_gbps for g in f.groups if g.hop == "node-leaf"} == {200.0}
