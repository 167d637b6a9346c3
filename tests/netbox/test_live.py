"""Against a real NetBox (4.7.3 from PyPI, started by scripts/netbox-up.sh; CI starts it in
scripts/test.sh): push a small pod and a small two-site design, read back what NetBox holds and
compare it with the plan; push again and see nothing created; delete cables and a device and see
``bom netbox diff`` name exactly those; import the exported files through NetBox's own bulk-import
forms; refuse a wrong token and a device type with other interfaces.

The small pod is 8 DGX H100 nodes on one leaf carrying all eight rails, with its racks, OOB
switches, UFM and management servers (tests/netbox/scenarios/pod8.yaml).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bom import pipeline
from bom.cableplan import rows as plan
from bom.inputs.scenario import load_scenario
from bom.netbox.inventory import slug
from bom.netbox.push import plan_objects
from tests.netbox import live

HERE = Path(__file__).parent / "scenarios"
POD, TWO = HERE / "pod8.yaml", HERE / "two-site.yaml"


# Slow (pushes into a real server take seconds to minutes): out of the fast loop, run by CI. In one
# file, so pytest-xdist's --dist loadfile keeps them in one worker, one at a time against one NetBox.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def st():
    # BOM_NETBOX=off skips before any connection, whatever state file exists (tests/netbox/test_state_dir.py)
    return live.require()


@pytest.fixture(scope="module")
def nb(st):
    api = live.api(st)
    live.clean(api, st)   # an empty NetBox, also on a second run
    return api


@pytest.fixture()
def run(bom, st, monkeypatch):
    monkeypatch.setenv("NETBOX_TOKEN", st["NETBOX_TOKEN"])

    def call(cmd: str, scenario: Path, *args: str):  # type: ignore[no-untyped-def]
        return bom("netbox", cmd, str(scenario), "--url", st["NETBOX_URL"], *args)

    return call


def _plan(path: Path):
    sc, src = load_scenario(path)
    cat = pipeline.catalog_for(sc, src, None, None)
    model = pipeline.build_scenario(sc, src, cat)
    inv, cables = plan_objects(model, cat)
    return model, inv, cables


def _counts(nb, inv) -> dict[str, int]:
    ids = [s.id for s in nb.dcim.sites.filter(name=inv.sites)]
    return {"sites": len(ids), "racks": nb.dcim.racks.count(site_id=ids),
            "devices": nb.dcim.devices.count(site_id=ids),
            "interfaces used": nb.dcim.interfaces.count(site_id=ids, cabled=True),
            "cables": len({c.id for c in nb.dcim.cables.filter(site_id=ids)})}


def _modules(nb, inv) -> dict[tuple[str, str], str]:
    """What NetBox holds in the module bays of the plan's sites: (device, bay) -> module type."""
    ids = [s.id for s in nb.dcim.sites.filter(name=inv.sites)]
    return {(m.device.name, m.module_bay.name): m.module_type.model for m in nb.dcim.modules.filter(site_id=ids)}


def _want(model, inv) -> dict[str, int]:
    rows = plan.row_count(model)
    assert inv.cables == rows
    return {"sites": len(inv.sites), "racks": sum(1 for _ in model.placement.racks()), "devices": len(inv.devices),
            "interfaces used": 2 * rows, "cables": rows}


def test_exported_files_through_netboxs_bulk_import(nb, st, bom, run, tmp_path):
    """The CSV (and device type YAML) import forms of NetBox's web UI, logged in, with CSRF, into a
    NetBox without any of the plan's objects (the first test of the module: every file imports whole)."""
    import time

    scenario = tmp_path / "csv.yaml"
    # DGX B200 nodes (their UFM has a compute port the H100 pods' has not: the pushes below extend the type)
    scenario.write_text(POD.read_text().replace("name: nb-pod8", "name: nb-csv")
                        .replace("platform: dgx-h100", "platform: dgx-b200"))
    model, inv, cables = _plan(scenario)
    live.purge(nb, inv.sites)
    out = tmp_path / "files"
    r = bom("netbox", "export", str(scenario), "-o", str(out))
    assert r.exit_code == 0, r.output
    from bom.netbox.export import FILES

    s = live.web_session(st)
    url = st["NETBOX_URL"]
    seconds = {}
    for name, path in FILES.items():
        text = (out / name).read_text()
        t0 = time.perf_counter()
        live.import_form(s, url, path, text, "yaml" if name.endswith(".yaml") else "csv")
        seconds[name] = round(time.perf_counter() - t0, 2)
    print("csv import seconds", seconds)
    assert _counts(nb, inv) == _want(model, inv)
    dt = nb.dcim.device_types.get(model="dgx-b200")
    want = inv.device_types["dgx-b200"].interfaces
    assert {t.name: t.type.value for t in nb.dcim.interface_templates.filter(device_type_id=dt.id)} == want
    r = run("diff", scenario, "--json")
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize("scenario", [POD, TWO], ids=["small-pod", "two-site"])
def test_push_reads_back_as_planned_and_a_second_push_creates_nothing(nb, run, scenario):
    model, inv, cables = _plan(scenario)
    live.purge(nb, inv.sites)
    r = run("push", scenario, "--json")
    assert r.exit_code == 0, r.output
    first = json.loads(r.stdout)
    assert first["created"]["devices"] == len(inv.devices)
    assert first["created"]["cables"] == len(cables)
    assert not first["differs"]
    assert _counts(nb, inv) == _want(model, inv)
    # every object carries the scenario's tag
    ids = [s.id for s in nb.dcim.sites.filter(name=inv.sites)]
    assert nb.dcim.devices.count(site_id=ids, tag=inv.tag) == len(inv.devices)
    assert nb.dcim.cables.count(site_id=ids, tag=inv.tag) == len(cables)
    # the plan's transceiver in each cage: a module of its part number in the bay named after the cage
    assert inv.modules and first["created"]["modules"] == len(inv.modules)
    assert _modules(nb, inv) == inv.modules
    assert nb.dcim.modules.count(site_id=ids, tag=inv.tag) == len(inv.modules)
    # two-site has parts (DWDM, FR4) no earlier test made: those module types are the push's own
    assert first["created"].get("module types", 0) + first["matched"].get("module types", 0) == len(inv.module_types)
    for part in inv.module_types:
        mt = nb.dcim.module_types.get(model=part)
        assert mt.profile.name == "Transceiver" and dict(mt.attributes) == inv.module_types[part].attributes

    again = run("push", scenario)
    assert again.exit_code == 0, again.output
    assert "nothing created" in again.stdout
    again = json.loads(run("push", scenario, "--json").stdout)
    assert sum(again["created"].values()) == 0
    assert again["matched"]["devices"] == len(inv.devices) and again["matched"]["cables"] == len(cables)
    assert again["matched"]["modules"] == len(inv.modules)
    assert _counts(nb, inv) == _want(model, inv)
    assert run("diff", scenario).exit_code == 0


def test_the_script_path_makes_the_same_objects_with_their_change_records(nb, st, run, tmp_path):
    """The clusterbom_bulk script (uploaded through the API, run by NetBox's RQ worker as the token's
    user) makes the pod's modules and cables: read back as planned, tagged, each with its change record
    by that user; a second push matches everything (bom/netbox/script.py)."""
    scenario = tmp_path / "script.yaml"
    scenario.write_text(POD.read_text().replace("name: nb-pod8", "name: nb-script"))
    model, inv, cables = _plan(scenario)
    live.purge(nb, inv.sites)
    with live.rq_worker(st):
        r = run("push", scenario, "--path", "script", "--install-script", "--json")
        assert r.exit_code == 0, r.output
        first = json.loads(r.stdout)
        assert first["path"] == "script"
        assert first["created"]["cables"] == len(cables) and first["created"]["modules"] == len(inv.modules)
        assert _counts(nb, inv) == _want(model, inv) and _modules(nb, inv) == inv.modules
        ids = [s.id for s in nb.dcim.sites.filter(name=inv.sites)]
        made = [c.id for c in nb.dcim.cables.filter(site_id=ids, tag=inv.tag)]
        assert len(made) == len(cables)
        changes = list(nb.core.object_changes.filter(changed_object_type="dcim.cable", action="create",
                                                     changed_object_id=made))
        assert len(changes) == len(cables)
        assert {c.user_name for c in changes} == {st.get("NETBOX_USER", "bom-admin")}
        again = json.loads(run("push", scenario, "--path", "script", "--json").stdout)
        assert again["path"] is None and sum(again["created"].values()) == 0   # nothing to choose a path for
        assert again["matched"]["cables"] == len(cables)
        _the_script_refuses_what_a_list_post_refuses(nb, ids)
    assert run("diff", scenario).exit_code == 0
    live.purge(nb, inv.sites)


def _the_script_refuses_what_a_list_post_refuses(nb, site_ids) -> None:
    """The script resolves a batch's references once (bom/netbox/script.py prefetch) and keeps NetBox's
    validation: an id that names nothing is the serializer's own error (past the batch's memo), and a refused
    object rolls its whole job back (nothing of it is made)."""
    from bom.errors import BomError
    from bom.netbox import script as nbscript

    runner = nbscript.Runner(nb, lambda _: None)
    dev = next(iter(nb.dcim.devices.filter(site_id=site_ids)))
    good = {"name": "nb-script-extra", "role": dev.role.id, "device_type": dev.device_type.id, "site": dev.site.id}
    with pytest.raises(BomError, match="object 1 of 2: .*device_type.*2147483647"):
        runner.job("devices", [good, {**good, "name": "nb-script-extra2", "device_type": 2147483647}])
    assert not list(nb.dcim.devices.filter(name="nb-script-extra"))


def test_diff_names_exactly_what_was_deleted_and_a_push_restores_it(nb, run):
    model, inv, cables = _plan(POD)
    if run("diff", POD).exit_code != 0:
        assert run("push", POD).exit_code == 0
    assert run("diff", POD).exit_code == 0
    sites = [s.id for s in nb.dcim.sites.filter(name=inv.sites)]
    device = next(d.name for d in inv.devices if d.role == "mgmt")   # a management server (s1-r01-rk04-mgmt-01)
    gone = [c for c in cables if c.a_device == "s1-r01-rk01-node-01"][:3]   # three of a node's cables
    assert len(gone) == 3
    for c in gone:
        iface = nb.dcim.interfaces.get(site_id=sites, device=c.a_device, name=c.a_port)
        nb.dcim.cables.get(iface.cable.id).delete()
    nb.dcim.devices.get(site_id=sites, name=device).delete()
    # a leaf's transceiver taken out, and another leaf cage given another part than the plan's
    leaf_bays = sorted(k for k in inv.modules if k[0] != device and "leaf" in k[0])
    (out_dev, out_bay), (sw_dev, sw_bay) = leaf_bays[0], leaf_bays[1]
    nb.dcim.modules.get(site_id=sites, device=out_dev, module_bay_id=nb.dcim.module_bays.get(
        site_id=sites, device=out_dev, name=out_bay).id).delete()
    other = next(m for m in inv.module_types if m != inv.modules[(sw_dev, sw_bay)])
    swapped = nb.dcim.modules.get(site_id=sites, device=sw_dev, module_bay_id=nb.dcim.module_bays.get(
        site_id=sites, device=sw_dev, name=sw_bay).id)
    swapped.module_type = nb.dcim.module_types.get(model=other).id
    swapped.save()

    r = run("diff", POD, "--json")
    assert r.exit_code == 1, r.output
    d = json.loads(r.stdout)
    assert d["missing_devices"] == [device]
    assert sorted(d["missing_cables"]) == sorted(f"{a[0]}:{a[1]} - {b[0]}:{b[1]}" for a, b in (c.key for c in gone))
    assert d["extra_devices"] == d["extra_cables"] == d["different_devices"] == d["different_cables"] == []
    assert d["missing_modules"] == [f"{out_dev} {out_bay}: {inv.modules[(out_dev, out_bay)]}"]
    planned = inv.modules[(sw_dev, sw_bay)]
    assert d["different_modules"] == [f"{sw_dev} {sw_bay}: NetBox has {other}, the plan {planned}"]
    assert d["extra_modules"] == []
    assert d["modules_of_missing_devices"] == sum(1 for k in inv.modules if k[0] == device)
    text = run("diff", POD).stdout
    assert f"missing device: {device}" in text and text.count("missing cable:") == 3
    assert text.count("missing module:") == 1 and text.count("different module:") == 1

    r = run("push", POD, "--json")
    assert r.exit_code == 0, r.output
    again = json.loads(r.stdout)
    # the device's own cable stayed in NetBox with its leaf end: the push puts the device's end back on it;
    # the empty bay gets its module back and the device's own; the other part is reported, never replaced
    mine = sum(1 for c in cables if device in (c.a_device, c.b_device))
    assert again["created"] == {"devices": 1, "cables": 3, "cable ends": mine,
                                "modules": 1 + d["modules_of_missing_devices"]}
    assert again["differs"] == {"modules": 1}
    assert any(f"{sw_dev} {sw_bay} holds {other}" in n for n in again["notes"])
    swapped.module_type = nb.dcim.module_types.get(model=planned).id
    swapped.save()
    assert run("diff", POD).exit_code == 0


def test_a_wrong_token_is_refused(bom, st, monkeypatch):
    monkeypatch.setenv("NETBOX_TOKEN", "nbt_AAAAAAAAAAAA.notthetoken")
    r = bom("netbox", "push", str(POD), "--url", st["NETBOX_URL"])
    assert r.exit_code == 2 and "refuses the token" in r.output


def test_a_device_type_with_other_interfaces_is_refused_before_anything_is_created(nb, run, tmp_path):
    scenario = tmp_path / "conflict.yaml"
    scenario.write_text(POD.read_text().replace("name: nb-pod8", "name: nb-conflict")
                        .replace("platform: dgx-h100", "platform: hgx-h100"))
    _, inv, _ = _plan(scenario)
    live.purge(nb, inv.sites)
    vendor = inv.device_types["hgx-h100"].manufacturer   # the catalog row's vendor
    maker = nb.dcim.manufacturers.get(name=vendor) or nb.dcim.manufacturers.create(name=vendor, slug=slug(vendor))
    dt = nb.dcim.device_types.get(model="hgx-h100") or nb.dcim.device_types.create(
        manufacturer=maker.id, model="hgx-h100", slug="hgx-h100", u_height=8)
    try:
        for t in nb.dcim.interface_templates.filter(device_type_id=dt.id):
            t.delete()
        nb.dcim.interface_templates.create(device_type=dt.id, name="eth0", type="1000base-t")
        r = run("push", scenario)
        assert r.exit_code == 2, r.output
        assert "hgx-h100 exists in NetBox with other interfaces" in r.output and "Nothing was created" in r.output
        assert not list(nb.dcim.sites.filter(name=inv.sites))
        assert nb.extras.tags.get(slug="nb-conflict") is None
    finally:
        dt.delete()



def test_an_nvl72_rack_reads_back_with_its_trays_own_types_and_4x_ports(nb, st, run, tmp_path):
    """One GB300 NVL72 rack pushed into NetBox 4.7.3: its 9 NVLink switch trays and 8 power shelves are
    devices of their own types (not gb300-nvl72 with a compute tray's ports), the compute trays and
    the Q3400's ports are InfiniBand XDR 4X (the server's release has the 4X types), the diff matches."""
    scenario = tmp_path / "nvl.yaml"
    scenario.write_text("name: nb-nvl72\nplatform: gb300-nvl72\ngpus: 72\nfabrics:\n  compute: {}\n  oob: {}\n")
    _, inv, _ = _plan(scenario)
    live.purge(nb, inv.sites)
    try:
        _nvl72_reads_back(nb, run, scenario, inv)
    finally:
        live.clean(nb, st)   # its XDR UFM and Q3400 types are not the NDR pod's: an empty NetBox after it


def _nvl72_reads_back(nb, run, scenario, inv) -> None:  # type: ignore[no-untyped-def]
    from bom.netbox import choices

    r = run("push", scenario, "--json")
    assert r.exit_code == 0, r.output
    version = choices.release(str(nb.status()["netbox-version"]))
    assert version is not None and version >= choices.FIRST_RELEASE["infiniband-xdr-4x"]
    ids = [s.id for s in nb.dcim.sites.filter(name=inv.sites)]
    held = {}
    for d in nb.dcim.devices.filter(site_id=ids):
        held[d.device_type.model] = held.get(d.device_type.model, 0) + 1
    assert (held["gb300-nvl72"], held["gb300-nvl72-nvlink-switch"], held["gb300-nvl72-power-shelf"]) == (18, 9, 8)
    # (the Q3400's ports to the UFM are 400G halves of its cages: NetBox 4.7.3 has the XDR 2X type too)
    def types(model: str) -> set[str]:
        dt = nb.dcim.device_types.get(model=model)
        return {t.type.value for t in nb.dcim.interface_templates.filter(device_type_id=dt.id)}

    assert types("gb300-nvl72") == {"infiniband-xdr-4x", "1000base-t"}
    assert types("gb300-nvl72-nvlink-switch") == {"1000base-t"}
    assert "infiniband-xdr-4x" in types("q3400") <= {"infiniband-xdr-4x", "infiniband-xdr-2x", "1000base-t"}
    assert not list(nb.dcim.interface_templates.filter(
        device_type_id=nb.dcim.device_types.get(model="gb300-nvl72-power-shelf").id))
    assert run("diff", scenario).exit_code == 0
