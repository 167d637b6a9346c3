"""bom netbox export: NetBox's files for the plan, checked against the plan itself (no NetBox needed)."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest
import yaml

from bom import pipeline
from bom.cableplan import rows as plan
from bom.inputs.scenario import load_scenario
from bom.netbox import choices
from bom.netbox.export import CABLE_HEADER, FILES, POWER_FILES, export
from bom.placement.elevation import elevation_rows

HERE = Path(__file__).parent / "scenarios"


def _model(name: str):
    sc, src = load_scenario(HERE / name)
    cat = pipeline.catalog_for(sc, src, None, None)
    return pipeline.build_scenario(sc, src, cat), cat


def _read(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module", params=["pod8.yaml", "two-site.yaml"])
def exported(request, tmp_path_factory):
    model, cat = _model(request.param)
    out = tmp_path_factory.mktemp("nb")
    result = export(model, cat, out)
    return model, result, out


def test_files_in_import_order(exported):
    _, result, out = exported
    assert [p.name for p in result.paths] == [*FILES, *POWER_FILES]
    assert sorted(p.name for p in out.iterdir()) == [*FILES, *POWER_FILES]   # no temporary file left behind


def test_cables_are_the_plan_rows(exported):
    model, result, out = exported
    rows = _read(out / "08-cables.csv")
    assert list(rows[0]) == list(CABLE_HEADER)
    assert len(rows) == plan.row_count(model) == result.inventory.cables
    want = [(r[plan.COL["a_device"]], r[plan.COL["a_port"]], r[plan.COL["b_device"]], r[plan.COL["b_port"]],
             r[plan.COL["cable_id"]]) for r in plan.rows(model)]
    got = [(r["side_a_device"], r["side_a_name"], r["side_b_device"], r["side_b_name"], r["description"]) for r in rows]
    assert got == want
    assert {r["status"] for r in rows} == {"planned"}
    assert {r["length_unit"] for r in rows} == {"m"}
    assert all(float(r["length"]) > 0 for r in rows)
    # NetBox cabled interfaces: one cable each
    ends = Counter((r[f"side_{s}_device"], r[f"side_{s}_name"]) for r in rows for s in "ab")
    assert max(ends.values()) == 1


def test_every_cable_end_is_an_interface_of_its_device(exported):
    _, _, out = exported
    types = {d["model"]: {i["name"]: i["type"] for i in d.get("interfaces", [])}
             for d in yaml.safe_load_all((out / "06-device-types.yaml").read_text())}
    devices = {d["name"]: d for d in _read(out / "07-devices.csv")}
    for r in _read(out / "08-cables.csv"):
        for s in "ab":
            dev = devices[r[f"side_{s}_device"]]
            assert dev["site"] == r[f"side_{s}_site"]
            assert r[f"side_{s}_name"] in types[dev["device_type"]], (dev["name"], r[f"side_{s}_name"])


def test_choice_values_are_netboxs(exported):
    _, _, out = exported
    for d in yaml.safe_load_all((out / "06-device-types.yaml").read_text()):
        for i in d.get("interfaces", []):
            assert i["type"] in choices.INTERFACE_TYPES
    kinds = {r["type"] for r in _read(out / "08-cables.csv")}
    assert kinds <= choices.CABLE_TYPES and "" not in kinds


def test_racks_and_devices_are_the_placement(exported):
    model, result, out = exported
    racks = _read(out / "03-racks.csv")
    assert [r["name"] for r in racks] == [r.id for r in model.placement.racks()]
    devices = _read(out / "07-devices.csv")
    placed = [d for d in devices if d["rack"]]
    assert len(placed) == sum(1 for _ in elevation_rows(model))
    assert {(d["rack"], d["location"]) for d in placed} <= {(r["name"], r["location"]) for r in racks}
    # racked devices have a U and a face; 0U PDUs and unplaced devices have neither
    for d in devices:
        assert bool(d["position"]) == bool(d["face"])
        if d["role"] == "pdu":
            assert d["position"] == ""
    assert len({(d["site"], d["name"]) for d in devices}) == len(devices)


def test_two_sites_and_the_fibre_between_them(tmp_path):
    model, cat = _model("two-site.yaml")
    export(model, cat, tmp_path)
    assert [s["name"] for s in _read(tmp_path / "01-sites.csv")] == ["nb-two-site-s1", "nb-two-site-s2"]
    dark = [r for r in _read(tmp_path / "08-cables.csv") if r["side_a_site"] != r["side_b_site"]]
    assert len(dark) == 1 and dark[0]["type"] == "smf-os2" and float(dark[0]["length"]) == 40000


def test_interface_types_of_the_catalogs_ports():
    assert choices.interface_type(800, "osfp") == "800gbase-x-osfp"
    assert choices.interface_type(400, "qsfp112") == "400gbase-x-qsfp112"
    assert choices.interface_type(400, "osfp-flat") == "400gbase-x-osfp"
    assert choices.interface_type(1, "rj45") == "1000base-t"
    assert choices.interface_type(3, "osfp") == "other"


def test_output_is_a_file(bom, tmp_path):
    f = tmp_path / "x"
    f.write_text("keep")
    r = bom("netbox", "export", str(HERE / "pod8.yaml"), "-o", str(f))
    assert r.exit_code == 2 and "not a folder" in r.output
    assert f.read_text() == "keep"


@pytest.mark.parametrize("args, env, expect", [
    (["--url", "ftp://netbox"], {"NETBOX_TOKEN": "x"}, "is not an http(s) URL"),
    (["--url", "http://127.0.0.1:9", "--token", "secret"], {}, "not taken from the command line"),
    (["--url", "http://127.0.0.1:9"], {"NETBOX_TOKEN": ""}, "no NetBox API token"),
    (["--url", "http://127.0.0.1:9"], {"NETBOX_TOKEN": "x"}, "does not answer"),
])
def test_bad_connection_input_exits_2(bom, monkeypatch, args, env, expect):
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    for cmd in ("push", "diff"):
        r = bom("netbox", cmd, str(HERE / "pod8.yaml"), *args)
        assert r.exit_code == 2, r.output
        assert expect in r.output and "Traceback" not in r.output


def test_token_file(bom, tmp_path, monkeypatch):
    monkeypatch.delenv("NETBOX_TOKEN", raising=False)
    empty = tmp_path / "t"
    empty.write_text("\n")
    r = bom("netbox", "diff", str(HERE / "pod8.yaml"), "--url", "http://127.0.0.1:9", "--token-file", str(empty))
    assert r.exit_code == 2 and "is empty" in r.output
    r = bom("netbox", "diff", str(HERE / "pod8.yaml"), "--url", "http://127.0.0.1:9", "--token-file",
            str(tmp_path / "none"))
    assert r.exit_code == 2 and "no such token file" in r.output   # read as every input file (issue 24)


def test_infiniband_ports_are_infiniband_interfaces(exported):
    """An InfiniBand fabric's ports (switches' and nodes') take NetBox's InfiniBand types, by lane rate and
    width; Ethernet fabrics keep the Ethernet types (issue 30: InfiniBand ports went out as 400gbase-x-osfp)."""
    model, _, out = exported
    docs = [d for d in yaml.safe_load_all((out / "06-device-types.yaml").read_text()) if d]
    types = {d["model"]: {i["name"]: i["type"] for i in d.get("interfaces", [])} for d in docs}
    by_device = {r["name"]: r["device_type"] for r in _read(out / "07-devices.csv")}
    assert model.fabrics["compute"].first.leaf.id == "qm9700"        # NDR: 400G ports of 4 x 100G lanes
    ib_ends = ethernet_ends = 0
    for r in plan.rows(model):
        fabric = r[plan.COL["fabric"]]
        for side in ("a", "b"):
            dtype = by_device.get(r[plan.COL[f"{side}_device"]])
            if dtype is None:
                continue
            kind = types[dtype][r[plan.COL[f"{side}_port"]]]
            if fabric == "compute":
                assert kind == "infiniband-ndr-4x", (dtype, r[plan.COL[f"{side}_port"]], kind)
                ib_ends += 1
            elif fabric in ("storage", "oob"):
                assert not kind.startswith("infiniband"), (fabric, dtype, kind)
                ethernet_ends += 1
    assert ib_ends and ethernet_ends
    assert {"infiniband-ndr-4x"} <= choices.INTERFACE_TYPES


def test_infiniband_type_by_lane_and_width():
    assert choices.interface_type(800, "osfp", "infiniband", 200) == "infiniband-xdr-4x"
    assert choices.interface_type(400, "osfp", "infiniband", 200) == "infiniband-xdr-2x"
    assert choices.interface_type(400, "osfp", "infiniband", 100) == "infiniband-ndr-4x"
    assert choices.interface_type(800, "osfp", "ethernet", 100) == "800gbase-x-osfp"


def test_transceivers_are_modules_in_module_bays(exported):
    """Every module the plan puts in a cage is a NetBox module of its part number's module type, in the
    device's module bay named after the cage (a twin-port module fills one cage: one module for its two ports)."""
    model, result, out = exported
    docs = [d for d in yaml.safe_load_all((out / "06-device-types.yaml").read_text()) if d]
    bays = {d["model"]: {b["name"] for b in d.get("module-bays", [])} for d in docs}
    mtypes = {d["model"]: d for d in yaml.safe_load_all((out / "09-module-types.yaml").read_text()) if d}
    assert all(t["profile"] == "Transceiver" and t["attribute_data"]["data_rate"].endswith("G")
               for t in mtypes.values())
    makers = {r["name"] for r in _read(out / "04-manufacturers.csv")}
    assert {t["manufacturer"] for t in mtypes.values()} <= makers
    dtype = {r["name"]: r["device_type"] for r in _read(out / "07-devices.csv")}
    modules = {(r["device"], r["module_bay"]): r["module_type"] for r in _read(out / "10-modules.csv")}
    want = {}
    for r in plan.rows(model):
        for side in ("a", "b"):
            part = r[plan.COL[f"{side}_module"]]
            if part and part in mtypes:
                want[(r[plan.COL[f"{side}_device"]], r[plan.COL[f"{side}_port"]].split("/")[0])] = part
    assert want and modules == want
    for (device, bay), part in modules.items():
        assert bay in bays[dtype[device]] and part in mtypes


def _types(out: Path) -> dict[str, dict[str, str]]:
    return {d["model"]: {i["name"]: i["type"] for i in d.get("interfaces", [])}
            for d in yaml.safe_load_all((out / "06-device-types.yaml").read_text(encoding="utf-8"))}


def test_nvl72_switch_trays_and_power_shelves_are_their_own_device_types(tmp_path, catalog):
    """A 504-GPU GB300 build (7 racks): 126 compute trays of type gb300-nvl72 with a compute tray's ports,
    63 NVLink switch trays and 56 power shelves of their own types (they were 119 more gb300-nvl72
    devices, each with the compute tray's ports and module bays)."""
    path = tmp_path / "s.yaml"
    path.write_text("name: nvl504\nplatform: gb300-nvl72\ngpus: 504\nfabrics:\n  compute: {}\n  oob: {}\n")
    model = pipeline.build_scenario(*load_scenario(path), catalog)
    export(model, catalog, tmp_path / "nb")
    devices = Counter(r["device_type"] for r in _read(tmp_path / "nb" / "07-devices.csv"))
    assert (devices["gb300-nvl72"], devices["gb300-nvl72-nvlink-switch"], devices["gb300-nvl72-power-shelf"]) == \
        (126, 63, 56)
    types = _types(tmp_path / "nb")
    assert Counter(types["gb300-nvl72"].values()) == {"infiniband-xdr-4x": 4, "1000base-t": 1}
    assert types["gb300-nvl72-nvlink-switch"] == {"mgmt": "1000base-t"}   # its BMC on the OOB network
    assert types["gb300-nvl72-power-shelf"] == {}
    docs = {d["model"]: d for d in yaml.safe_load_all((tmp_path / "nb" / "06-device-types.yaml").read_text())}
    assert "module-bays" not in docs["gb300-nvl72-nvlink-switch"] and "part_number" not in docs[
        "gb300-nvl72-power-shelf"]


def test_switch_ports_are_typed_by_their_cage(tmp_path):
    """The SN5600's OSFP cages are OSFP interfaces whatever the plan puts in them: its ports to the
    DGX H100's BlueField-3 (QSFP112 at the far end) were 400gbase-x-qsfp112."""
    model, cat = _model("two-site.yaml")
    export(model, cat, tmp_path)
    sn5600 = _types(tmp_path)["sn5600"]
    assert {t for n, t in sn5600.items() if n != "mgmt"} == {"400gbase-x-osfp"}
    assert _types(tmp_path)["dgx-h100"]["storage-p1"] == "400gbase-x-qsfp112"   # the node's own cage


@pytest.mark.parametrize("version, want", [(None, "infiniband-ndr-4x"), ("4.7.3", "infiniband-ndr-4x"),
                                           ("4.6.9", "infiniband-ndr-4x"), ("4.6.8", "infiniband-ndr"),
                                           ("4.5.0", "infiniband-ndr")])
def test_infiniband_types_follow_the_netbox_release(bom, tmp_path, version, want):
    """NetBox has InfiniBand 4X types from 4.6.9 on: files for an older release (still accepted, 4.5 and
    later) give the port its generation's type, which that release has."""
    args = ("--netbox-version", version) if version else ()
    r = bom("netbox", "export", str(HERE / "pod8.yaml"), "-o", str(tmp_path), *args)
    assert r.exit_code == 0, r.output
    qm = _types(tmp_path)["qm9700"]
    assert {t for n, t in qm.items() if n != "mgmt"} == {want}


def test_an_unsupported_release_is_refused(bom, tmp_path):
    r = bom("netbox", "export", str(HERE / "pod8.yaml"), "-o", str(tmp_path), "--netbox-version", "4.4.9")
    assert r.exit_code == 2 and "--netbox-version" in r.stderr and "4.7.3" in r.stderr


def test_push_names_the_types_as_the_servers_release_does():
    """The push takes the release the status probe read (client.connect keeps it on the API object)."""
    from bom.netbox.client import release_of
    from bom.netbox.push import plan_objects

    model, cat = _model("pod8.yaml")

    class Old:
        clusterbom_release = (4, 6, 8)

    assert release_of(object()) == (4, 7, 3) and release_of(Old()) == (4, 6, 8)
    inv, _ = plan_objects(model, cat)
    inv.for_release(release_of(Old()))
    assert set(inv.device_types["qm9700"].interfaces.values()) == {"infiniband-ndr", "1000base-t"}
    assert all(choices.release(v) for v in ("4.5.0", choices.TESTED_VERSION))


# --- the power plan as NetBox models it (issue 48) ----------------------------------------------

#: NetBox 4.x's choice values the power files use (dcim.choices: PowerPortTypeChoices,
#: PowerOutletTypeChoices, PowerFeedTypeChoices, PowerFeedSupplyChoices, PowerFeedPhaseChoices,
#: PowerOutletFeedLegChoices, CableTypeChoices.TYPE_POWER).
NETBOX_POWER = {"port": {"iec-60320-c14", "iec-60320-c20", "iec-60309-3p-n-e-6h"},
                "outlet": {"iec-60320-c13", "iec-60320-c19", "iec-60309-3p-n-e-6h"},
                "feed_type": {"primary", "redundant"}, "supply": {"ac"}, "phase": {"three-phase"},
                "leg": {"A", "B", "C"}}


def _power_types(out: Path) -> tuple[dict[str, dict[str, str]], dict[str, dict[str, dict]]]:
    docs = list(yaml.safe_load_all((out / "06-device-types.yaml").read_text()))
    ports = {d["model"]: {p["name"]: p["type"] for p in d.get("power-ports", [])} for d in docs}
    outlets = {d["model"]: {o["name"]: o for o in d.get("power-outlets", [])} for d in docs}
    return ports, outlets


def test_power_cords_are_power_cables_between_outlets_and_ports(exported, catalog):
    """Every cord of the plan is a power cable from a PDU's power outlet to a device's power port, both
    on their device types; every PDU has a feed on its row side's panel (A primary, B redundant), cabled
    to its input port."""
    model, _, out = exported
    rows = _read(out / "13-power-cables.csv")
    cords = [r for r in rows if r["side_a_type"] == "dcim.poweroutlet"]
    want = [(r[plan.COL["a_device"]], r[plan.COL["a_port"]], r[plan.COL["b_device"]], r[plan.COL["b_port"]])
            for r in plan.power_rows(model, catalog)]
    assert [(r["side_a_device"], r["side_a_name"], r["side_b_device"], r["side_b_name"]) for r in cords] == want
    assert len(cords) == model.power.cord_count > 0 and {r["type"] for r in rows} == {"power"}
    ports, outlets = _power_types(out)
    devices = {d["name"]: d["device_type"] for d in _read(out / "07-devices.csv")}
    for r in cords:
        assert r["side_b_type"] == "dcim.powerport" and r["side_b_name"] in ports[devices[r["side_b_device"]]]
        assert r["side_a_name"] in outlets[devices[r["side_a_device"]]]
    feeds = _read(out / "12-power-feeds.csv")
    pdus = [d for d in _read(out / "07-devices.csv") if d["role"] == "pdu"]
    assert len(feeds) == len(pdus) and {f["type"] for f in feeds} == NETBOX_POWER["feed_type"]
    assert {(f["supply"], f["phase"], f["voltage"], f["amperage"], f["max_utilization"]) for f in feeds} == {
        ("ac", "three-phase", "415", "60", "80")}
    panels = {r["name"] for r in _read(out / "11-power-panels.csv")}
    to_pdus = [r for r in rows if r["side_a_type"] == "dcim.powerfeed"]
    assert {r["side_a_power_panel"] for r in to_pdus} == panels == {f["power_panel"] for f in feeds}
    assert sorted(r["side_b_device"] for r in to_pdus) == sorted(d["name"] for d in pdus)
    assert {r["side_b_name"] for r in to_pdus} == {"input"}


def test_power_templates_are_netboxs(exported):
    """The PDU's type: its 415 V 60 A input (IEC 60309 3P+N+E 6h), 24 C13 and 24 C19 outlets on it, each on
    its bank's phase (feed legs A, B, C, 16 each), and its whole circuit; a DGX H100's six C20 inlets at
    3.3 kW (its user guide, catalogs/platforms.yaml)."""
    _, _, out = exported
    ports, outlets = _power_types(out)
    pdu = outlets["pdu-3ph-60a"]
    assert ports["pdu-3ph-60a"] == {"input": "iec-60309-3p-n-e-6h"}
    assert Counter(o["type"] for o in pdu.values()) == {"iec-60320-c13": 24, "iec-60320-c19": 24,
                                                         "iec-60309-3p-n-e-6h": 1}
    assert Counter(o.get("feed_leg") for o in pdu.values()) == {"A": 16, "B": 16, "C": 16, None: 1}
    assert {o["power_port"] for o in pdu.values()} == {"input"}
    for t in ports.values():
        assert set(t.values()) <= NETBOX_POWER["port"]
    docs = {d["model"]: d for d in yaml.safe_load_all((out / "06-device-types.yaml").read_text())}
    assert [(p["name"], p["type"], p["maximum_draw"]) for p in docs["dgx-h100"]["power-ports"]] == [
        (f"psu{k}", "iec-60320-c20", 3300) for k in range(1, 7)]
