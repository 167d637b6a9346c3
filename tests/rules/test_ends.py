"""Ends match: protocol, rate, lanes, cage, optical standard, connector and fibre, each tripped by a
scenario or by one link group changed in an otherwise clean design."""

from __future__ import annotations

import dataclasses

from bom.catalog.media import End
from bom.model.hops import HopKind
from tests.rules.cases import build, group, messages, run, with_group

LS, NL = HopKind.LEAF_SPINE, HopKind.NODE_LEAF


def module_end(catalog, part_id: str) -> End:   # type: ignore[no-untyped-def]
    m = catalog.get("modules", part_id)
    return End(m.form_factor, m, m.ports)


def test_a_clean_design_passes_every_ends_rule(clean, catalog):
    for rule in ("ends.protocol", "ends.rate", "ends.lanes", "ends.cage", "ends.standard", "ends.connector"):
        assert run(clean, catalog, rule).violations == 0, rule


def test_protocol_infiniband_leaves_under_ethernet_spines(catalog):
    model = build("name: mixed\nplatform: dgx-h100\nnodes: 64\nfabrics:\n  compute: {switch: qm9700, spine: sn5600}\n",
                  catalog)
    r = run(model, catalog, "ends.protocol")
    assert r.severity == "error"
    assert set(messages(r)) == {"an InfiniBand switch port joined to an Ethernet switch port"}
    assert r.affected == model.fabrics["compute"].hop_links(LS)   # every leaf-spine link, whatever its run
    v = r.kept[0]
    assert v.where.startswith("compute leaf-spine")
    assert (v.a.role, v.a.device, v.b.role, v.b.device) == ("leaf", "qm9700", "spine", "sn5600")
    assert "of one protocol" in v.fix


def test_protocol_dci_routers_on_infiniband_spines(two_sites, catalog):
    # As built, the routers' client links land on the Ethernet storage fabric's border leaves ...
    d = two_sites.dci
    assert d.attach == "storage" and run(two_sites, catalog, "ends.protocol").violations == 0
    # ... attached to the InfiniBand compute fabric instead, they land on its spines again.
    on_spines = dataclasses.replace(two_sites, dci=dataclasses.replace(d, attach="compute"))
    r = run(on_spines, catalog, "ends.protocol")
    assert r.severity == "error" and r.violations == 1
    v = r.kept[0]
    assert v.message == "an Ethernet router port joined to an InfiniBand switch port"
    assert v.where == "dci fabric-dci, cross-row runs (4 links at 400G)" and v.count == 4
    assert (v.a.role, v.a.device, v.b.role, v.b.device) == ("router", "cisco-8201-32fh", "spine", "qm9700")
    assert "border leaves or gateways" in v.fix and "MetroX" in v.fix


def test_rate_a_module_of_another_rate(clean, catalog):
    model = with_group(clean, "compute", LS, upper_end=module_end(catalog, "mms4a00-xm"))   # 800G in a 400G link
    r = run(model, catalog, "ends.rate")
    assert r.violations == 1 and r.severity == "warning"
    assert messages(r) == ["the link runs at 400G but the upper module MMS4A00-XM runs at 800G"]


def test_rate_an_uplink_counted_as_the_nodes_when_asked_into_inband(catalog):
    # The management switches' 100G QSFP28 uplinks run across rows to the SN5600 in-band leaves: no
    # catalog part joins them there (the MCP7Y60 DAC reaches 2 m), so with uplinks: inband they are
    # counted as a node's 400G QSFP112 port, and the rule says so.
    text = ("name: st\nplatform: gb300-nvl72\ngpus: 576\n"
            "fabrics:\n  compute: {switch: q3400}\n  inband: {switch: sn5600}\n  oob: {uplinks: inband}\n")
    r = run(build(text, catalog), catalog, "ends.rate")
    assert r.severity == "warning"
    assert any("the lower switch sn2201 has no 200G port (qsfp28 at 100G" in m for m in messages(r))


def test_rate_appliances_and_uplinks_have_parts_by_default(catalog):
    # In the rack, the UFM's and the servers' 100G QSFP28 ports take the MCP7Y60 splitter's 100GbE
    # ends; the management switches get OOB spines of their own (and a warning says why).
    # (2,304 GPUs: the UFM appliances are on the compute spines' free ports, so the build buys them.)
    text = ("name: st\nplatform: gb300-nvl72\ngpus: 2304\n"
            "fabrics:\n  compute: {switch: q3400}\n  inband: {switch: sn5600}\n  oob: {}\n")
    model = build(text, catalog)
    assert run(model, catalog, "ends.rate").violations == 0
    assert run(model, catalog, "ends.cage").violations == 0
    ufm = [g for g in model.fabrics["inband"].groups if g.lower == "ufm"]
    assert ufm and {g.choice.part_number for g in ufm} <= {"MCP7Y60-H001", "MCP7Y60-H01A", "MCP7Y60-H002"}
    assert model.fabrics["oob"].spine_id == "sn4600c" and not model.fabrics["oob"].into_inband
    assert any("OOB spines of their own (sn4600c)" in w for w in model.warnings)


def test_lanes_modules_of_other_lanes(catalog):
    model = build("name: x\nplatform: gb300-nvl72\ngpus: 576\nfabrics:\n  compute: {switch: q3400}\n", catalog)
    g = group(model, "compute", LS)
    assert g.rate_gbps == 800 and g.lower_end.part.id == "mms4a00-xm"
    changed = with_group(model, "compute", LS, lower_end=module_end(catalog, "mma4z00-ns-800g"))
    r = run(changed, catalog, "ends.lanes")
    assert r.violations == 1 and r.severity == "error"
    assert messages(r) == ["the modules run 8 x 100G and 4 x 200G lanes; the lower switch q3400 has 200G lanes, "
                           "its module 100G"]


def test_cage_a_flat_top_module_in_a_finned_cage(clean, catalog):
    model = with_group(clean, "compute", LS, lower_end=module_end(catalog, "mma4z00-ns-flt"))
    r = run(model, catalog, "ends.cage")
    assert messages(r) == ["the lower module MMA4Z00-NS-FLT is osfp-flat, the switch qm9700's cage osfp"]


def test_cage_a_twin_module_in_a_single_port_cage(clean, catalog):
    # The DGX H100's cages are flat-top twin ports: a flat-top module of the right kind fits, one
    # serving more ports than a node cage holds at the link rate would not.
    g = group(clean, "compute", NL)
    twin = dataclasses.replace(g.lower_end, ports=4)
    r = run(with_group(clean, "compute", NL, lower_end=twin), catalog, "ends.cage")
    assert r.violations == 1 and "serves 4 ports, the NIC dgx-h100's cage holds 2" in messages(r)[0]


def test_standard_fr4_to_dr4(clean, catalog):
    model = with_group(clean, "compute", LS, lower_end=module_end(catalog, "mms4x50-nm"),
                       upper_end=module_end(catalog, "mms4x00-nm"))
    r = run(model, catalog, "ends.standard")
    assert r.severity == "error"
    assert messages(r) == ["the ends speak 400G FR4 and 400G DR4 (a port of one standard only talks to a port of "
                           "the same standard)"]


def test_standard_a_2xdr4_twin_to_single_dr4_ports_is_fine(clean, catalog):
    model = with_group(clean, "compute", LS, lower_end=module_end(catalog, "mms4x00-nm"),
                       upper_end=module_end(catalog, "mms4x00-ns400"))
    assert run(model, catalog, "ends.standard").violations == 0


def test_connector_single_mode_modules_on_multimode_fibre(clean, catalog):
    g = group(clean, "compute", LS)
    om4 = catalog.get("fibres", "mfp7e10-n")
    dr4 = module_end(catalog, "mms4x00-nm")
    choice = dataclasses.replace(g.choice, option=dataclasses.replace(g.choice.option, fibre=om4))
    model = with_group(clean, "compute", LS, lower_end=dr4, upper_end=dr4, choice=choice)
    r = run(model, catalog, "ends.connector")
    assert r.severity == "error" and r.violations == 1
    assert messages(r) == ["the lower module MMS4X00-NM is smf-parallel, the fibre MFP7E10-N0xx is OM4; the upper "
                           "module MMS4X00-NM is smf-parallel, the fibre MFP7E10-N0xx is OM4"]
    lc = dataclasses.replace(g.choice.option, fibre=catalog.get("fibres", "lc-lc-os2-patch"))
    model = with_group(clean, "compute", LS, lower_end=dr4, upper_end=dr4,
                       choice=dataclasses.replace(g.choice, option=lc))
    assert "takes mpo12-apc, the fibre LC-LC-OS2-DUPLEX-xM has lc-duplex" in messages(run(model, catalog,
                                                                                            "ends.connector"))[0]
