"""bom verify: a test per status, the JSON's shape, exit codes, bad input and the work order.

The LLDP files are made from the plan as built (tests/verify/neighbours.py, in the shape lldpd
1.0.16 writes: tests/verify/fixtures), then changed the way a site goes wrong.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import openpyxl
import pytest

from bom import pipeline
from bom.cableplan.rows import COL, rows
from bom.inputs.scenario import load_scenario
from tests.verify import neighbours as nb

HERE = Path(__file__).parent
ETH = HERE / "scenarios" / "eth-pod.yaml"
FIX = HERE / "fixtures"


@pytest.fixture(scope="module")
def plan(catalog):
    sc, src = load_scenario(ETH)
    return list(rows(pipeline.build_scenario(sc, src, catalog), catalog=catalog))


def lldp(tmp_path: Path, plan, **kw) -> Path:
    d = tmp_path / "lldp"
    nb.write(d, nb.built(plan, **kw))
    return d


def run(bom, tmp_path: Path, *args: str):
    r = bom("verify", str(ETH), "-o", str(tmp_path / "out"), "--json", *args)
    return r, (json.loads(r.stdout) if r.exit_code in (0, 1) else None)


def test_as_built_is_ok_and_exits_0(bom, tmp_path, plan):
    r, out = run(bom, tmp_path, "--lldp", str(lldp(tmp_path, plan)))
    assert r.exit_code == 0, r.output
    assert out == {"ok": len(plan), "missing": [], "miswired": [], "unexpected": [], "wrong_speed": [],
                   "not_checked": 0}


def test_missing_cable(bom, tmp_path, plan):
    r, out = run(bom, tmp_path, "--lldp", str(lldp(tmp_path, plan, omit=["C00000030"])))
    assert r.exit_code == 1
    assert out["missing"] == ["C00000030"] and out["ok"] == len(plan) - 1
    assert not out["miswired"] and not out["unexpected"]


def test_swapped_pair_is_two_miswired_cables(bom, tmp_path, plan):
    r, out = run(bom, tmp_path, "--lldp", str(lldp(tmp_path, plan, swap=["C00000001", "C00000009"])))
    assert r.exit_code == 1
    assert [m["cable_id"] for m in out["miswired"]] == ["C00000001", "C00000009"]
    first = out["miswired"][0]
    assert set(first) == {"cable_id", "expected", "found"}
    assert first["expected"] == "s1-r01-rk02-node-01:p1 - s1-r01-rk01-leaf-01:p1/1"
    # node-01's p1 reaches leaf-01's p3/1 (node-02's planned port): the swap
    assert "s1-r01-rk02-node-01:p1 - s1-r01-rk01-leaf-01:p3_1" in first["found"]
    assert out["ok"] == len(plan) - 2 and not out["missing"] and not out["unexpected"]


def test_unexpected_pair_and_device_not_in_plan(bom, tmp_path, plan):
    d = lldp(tmp_path, plan)
    # a laptop on a leaf port the plan leaves free, and a file for a device the plan does not have
    leaf = json.loads((d / "s1-r01-rk01-leaf-01.json").read_text())
    leaf["lldp"][0]["interface"].append(nb.entry("p20/1", "laptop-7", "eth0", "node"))
    (d / "s1-r01-rk01-leaf-01.json").write_text(json.dumps(leaf))
    (d / "spare-switch.json").write_text(json.dumps({"lldp": [{}]}))
    r, out = run(bom, tmp_path, "--lldp", str(d))
    assert r.exit_code == 1
    found = {u["found"]: u for u in out["unexpected"]}
    assert set(found) == {"s1-r01-rk01-leaf-01:p20_1 - laptop-7:eth0", "spare-switch: no neighbour"}
    assert found["s1-r01-rk01-leaf-01:p20_1 - laptop-7:eth0"]["why"] == "laptop-7 is not in the plan"
    assert found["spare-switch: no neighbour"]["source"].endswith("spare-switch.json")
    assert out["ok"] == len(plan)


def test_second_neighbour_on_a_planned_port_is_unexpected(bom, tmp_path, plan):
    d = lldp(tmp_path, plan)
    leaf = json.loads((d / "s1-r01-rk01-leaf-01.json").read_text())
    leaf["lldp"][0]["interface"].append(nb.entry("p1/1", "s1-r01-rk02-node-03", "p8", "node"))
    (d / "s1-r01-rk01-leaf-01.json").write_text(json.dumps(leaf))
    r, out = run(bom, tmp_path, "--lldp", str(d))
    assert r.exit_code == 1
    assert [u["found"] for u in out["unexpected"]] == ["s1-r01-rk01-leaf-01:p1_1 - s1-r01-rk02-node-03:p8"]
    assert out["unexpected"][0]["why"] == "the plan has no cable on these ports"


def test_wrong_speed_from_the_mau_type(bom, tmp_path, plan):
    d = lldp(tmp_path, plan)
    node = json.loads((d / "s1-r01-rk02-node-01.json").read_text())
    port = next(e for e in node["lldp"][0]["interface"] if e["name"] == "p1")["port"][0]
    port["auto-negotiation"] = [{"supported": False, "enabled": False, "current": [{"value": "200GbaseCR4"}]}]
    (d / "s1-r01-rk02-node-01.json").write_text(json.dumps(node))
    r, out = run(bom, tmp_path, "--lldp", str(d))
    assert r.exit_code == 1
    assert out["wrong_speed"] == [{"cable_id": "C00000001", "expected": "400 Gbit/s", "found": "200 Gbit/s"}]


def test_text_and_work_order(bom, tmp_path, plan):
    d = lldp(tmp_path, plan, swap=["C00000001", "C00000009"], omit=["C00000030"])
    r = bom("verify", str(ETH), "--lldp", str(d), "-o", str(tmp_path / "out"))
    assert r.exit_code == 1
    assert "27 ok, 1 missing, 2 miswired" in r.stdout
    order = list(csv.DictReader((tmp_path / "out" / "eth-pod-workorder.csv").open()))
    by_id = {o["cable_id"]: o for o in order}
    add = by_id["C00000030"]
    want = next(p for p in plan if p[0] == "C00000030")
    assert (add["action"], add["device"], add["port"], add["part"]) == ("add", want[13], want[15], want[28])
    assert add["part"]   # the plan's cable part, to order
    move = by_id["C00000001"]
    assert (move["action"], move["rack"], move["u"], move["from"], move["to"]) == \
        ("move", "s1-r01-rk02", "1", "s1-r01-rk01-leaf-01:p3_1", "s1-r01-rk01-leaf-01:p1/1")
    parts = list(csv.DictReader((tmp_path / "out" / "eth-pod-workorder-parts.csv").open()))
    assert parts == [{"action": "order", "part": want[28], "quantity": "1", "why": "cables to add or replace"}]
    wb = openpyxl.load_workbook(tmp_path / "out" / "eth-pod-workorder.xlsx", read_only=True)
    assert wb.sheetnames == ["Work order", "Parts"]
    assert len(list(wb["Work order"].iter_rows(values_only=True))) == 1 + len(order)


def test_json0_and_json_forms_from_lldpd(tmp_path):
    """The two files lldpd 1.0.16 wrote for one leaf with two links to a host (fixtures)."""
    from bom.verify.lldp import read_file
    from bom.verify.seen import Seen

    for name in ("lldpd-1.0.16-json0.json", "lldpd-1.0.16-json.json"):
        seen = Seen()
        read_file(FIX / name, "leaf-a", seen)
        got = sorted((x.near_ports, x.far_device, x.far_ports, x.shown) for x in seen.links)
        assert got == [(("p1_1",), "node-b", ("e6:3a:05:71:ad:f8", "eth0"), "node-b:eth0"),
                       (("p2_1",), "node-b", ("ea:b7:0f:90:92:cb", "eth1"), "node-b:eth1")], name


def test_the_cycle_collector_is_as_it_was_after_reading_and_checking(tmp_path, plan):
    """Reading and checking pause it (benchmarks/bench_verify.py: half the reading time at 100k GPUs);
    it is back on afterwards, after a bad file too, and stays off for a caller that had it off."""
    import gc

    from bom.errors import BomError
    from bom.verify import run as verify_run
    from bom.verify.check import verify

    first = plan[0][COL["cable_id"]]
    d = lldp(tmp_path, plan, omit=[first])
    assert gc.isenabled()
    seen = verify_run.read_sources(d, None)
    assert gc.isenabled()
    with verify_run.no_cycle_collection():
        assert not gc.isenabled()
        assert [p.field("cable_id") for p in verify(plan, seen).missing] == [first]
    assert gc.isenabled()
    (d / "s1-r01-rk01-leaf-02.json").write_text('{"lldp": [')
    with pytest.raises(BomError, match="is not complete JSON"):
        verify_run.read_sources(d, None)
    assert gc.isenabled()
    gc.disable()
    try:
        with pytest.raises(BomError):
            verify_run.read_sources(d, None)
        assert not gc.isenabled()
    finally:
        gc.enable()


# --- bad input: exit 2 naming the file ------------------------------------------------------

@pytest.mark.parametrize("text,says", [
    ('{"lldp": [{"interface": [{"name": "p1_1", "chassis": [', "is not complete JSON"),
    ("lldp neighbours:\n  p1_1 -> node-b", "is not complete JSON"),
    ('{"neighbours": []}', 'no "lldp" object'),
    ('{"lldp": [{"interface": [{"chassis": []}]}]}', 'without a "name"'),
])
def test_bad_lldp_file_exits_2_naming_it(bom, tmp_path, plan, text, says):
    d = lldp(tmp_path, plan)
    bad = d / "s1-r01-rk01-leaf-02.json"
    bad.write_text(text)
    r = bom("verify", str(ETH), "--lldp", str(d), "-o", str(tmp_path / "out"))
    assert r.exit_code == 2
    assert str(bad) in r.stderr and says in r.stderr
    assert "Traceback" not in r.output and not (tmp_path / "out").exists()


def test_duplicate_port_exits_2(bom, tmp_path, plan):
    d = lldp(tmp_path, plan)
    path = d / "s1-r01-rk01-leaf-01.json"
    leaf = json.loads(path.read_text())
    leaf["lldp"][0]["interface"].append(leaf["lldp"][0]["interface"][0])
    path.write_text(json.dumps(leaf))
    r = bom("verify", str(ETH), "--lldp", str(d), "-o", str(tmp_path / "out"))
    assert r.exit_code == 2
    assert str(path) in r.stderr and "lists port p1_1 twice" in r.stderr


def test_two_files_for_one_device_exit_2(bom, tmp_path, plan):
    d = lldp(tmp_path, plan)
    (d / "S1-R01-RK01-LEAF-01.json").write_text((d / "s1-r01-rk01-leaf-01.json").read_text())
    r = bom("verify", str(ETH), "--lldp", str(d), "-o", str(tmp_path / "out"))
    assert r.exit_code == 2 and "a second file for device" in r.stderr


@pytest.mark.parametrize("args,says", [
    ((), "nothing to check against"),
    (("--lldp", "/nonexistent/lldp"), "is not a folder"),
    (("--ib", "/nonexistent/fabric.txt"), "is not a file"),
])
def test_bad_sources_exit_2(bom, tmp_path, args, says):
    r = bom("verify", str(ETH), "-o", str(tmp_path / "out"), *args)
    assert r.exit_code == 2 and says in r.stderr


def test_empty_folder_and_unknown_fabric_exit_2(bom, tmp_path, plan):
    (tmp_path / "empty").mkdir()
    r = bom("verify", str(ETH), "--lldp", str(tmp_path / "empty"), "-o", str(tmp_path / "out"))
    assert r.exit_code == 2 and "holds no <device>.json file" in r.stderr
    r = bom("verify", str(ETH), "--lldp", str(lldp(tmp_path, plan)), "--fabric", "storage",
            "-o", str(tmp_path / "out"))
    assert r.exit_code == 2 and "has no fabric 'storage'" in r.stderr


def test_not_covered_cables_are_not_checked_unless_their_fabric_is_named(bom, tmp_path, plan):
    d = lldp(tmp_path, plan)
    for f in d.glob("*.json"):
        if "leaf-02" not in f.name:
            f.unlink()
    r, out = run(bom, tmp_path, "--lldp", str(d))
    # leaf-02's file covers its 12 node links and the 6 ISLs; leaf-01's 12 node links are not covered
    # (the nodes are only seen as leaf-02's neighbours: what their other ports see, no one says)
    assert (out["ok"], out["not_checked"]) == (18, 12)
    r, out = run(bom, tmp_path, "--lldp", str(d), "--fabric", "compute")
    assert (out["ok"], len(out["missing"]), out["not_checked"]) == (18, 12, 0)


def test_netbox_in_the_same_report(bom, tmp_path, plan, monkeypatch):
    """--netbox runs bom netbox diff's comparison (tested against a real NetBox in tests/netbox) and
    puts it in the same report and exit code; here NetBox is a stand-in lacking one cable."""
    from bom.cli import netbox as commands
    from bom.netbox import diff

    seen = {}

    def fake_diff(nb, model, catalog):  # type: ignore[no-untyped-def]
        seen["model"] = model.scenario.name
        return diff.Diff(missing_cables=["s1-r01-rk01-leaf-01:p12 - s1-r01-rk01-leaf-02:p12"], plan_devices=5,
                         plan_cables=30)

    monkeypatch.setattr(commands, "connect", lambda url, token, token_file, timeout=None, say=None: object())
    monkeypatch.setattr(diff, "diff", fake_diff)
    r, out = run(bom, tmp_path, "--lldp", str(lldp(tmp_path, plan)), "--netbox", "http://netbox.invalid")
    assert r.exit_code == 1 and seen["model"] == "eth-pod"
    assert out["ok"] == len(plan) and out["netbox"]["missing_cables"] == [
        "s1-r01-rk01-leaf-01:p12 - s1-r01-rk01-leaf-02:p12"]
    r = bom("verify", str(ETH), "--netbox", "http://netbox.invalid", "-o", str(tmp_path / "out"))
    assert r.exit_code == 1 and "netbox: missing cable: s1-r01-rk01-leaf-01:p12" in r.stdout


def test_a_fifo_or_a_device_among_the_files_is_refused_not_read(bom, tmp_path, plan):
    # Read as every input file: a FIFO would block the command for ever, /dev/zero never end.
    import os

    d = lldp(tmp_path, plan)
    fifo = d / "s1-r01-rk01-leaf-02.json"
    fifo.unlink()
    os.mkfifo(fifo)
    r = bom("verify", str(ETH), "--lldp", str(d), "-o", str(tmp_path / "out"))
    assert r.exit_code == 2 and str(fifo) in r.stderr and "not a regular file" in r.stderr
    fifo.unlink()
    fifo.symlink_to("/dev/zero")
    r = bom("verify", str(ETH), "--lldp", str(d), "-o", str(tmp_path / "out"))
    assert r.exit_code == 2 and "not a regular file" in r.stderr
    r = bom("verify", str(ETH), "--ib", "/dev/zero", "-o", str(tmp_path / "out"))
    assert r.exit_code == 2 and "is not a file" in r.stderr and "Traceback" not in r.output


ETH_OOB = HERE / "scenarios" / "eth-pod-oob.yaml"
IB_OOB = HERE / "scenarios" / "ib-pod-oob.yaml"


def _plan_of(path: Path, catalog) -> list:
    sc, src = load_scenario(path)
    return list(rows(pipeline.build_scenario(sc, src, catalog), catalog=catalog))


def test_host_only_lldp_leaves_the_bmc_cables_not_checked_not_missing(bom, tmp_path, catalog):
    """Only the hosts' lldpd files, as a host's lldpd writes them: it lists the host's NICs and never
    its BMC port (a controller of its own). Each node's BMC cable to the management switch is seen by
    no source: not checked, where it was reported missing; the compute links the hosts see are ok."""
    plan = _plan_of(ETH_OOB, catalog)
    bmc = [r[COL["cable_id"]] for r in plan if r[COL["a_role"]] == "node" and r[COL["a_port"]] == "mgmt"]
    assert len(bmc) == 3
    built = nb.built(plan)
    hosts = {dev: [e for e in items if e["name"] != "mgmt"] for dev, items in built.items() if "-node-" in dev}
    nb.write(tmp_path / "lldp", hosts)
    r = bom("verify", str(ETH_OOB), "--lldp", str(tmp_path / "lldp"), "-o", str(tmp_path / "out"), "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    compute = sum(r[COL["fabric"]] == "compute" and "node" in (r[COL["a_role"]], r[COL["b_role"]]) for r in plan)
    assert out["missing"] == [] and out["miswired"] == [] and out["unexpected"] == []
    assert (out["ok"], out["not_checked"]) == (compute, len(plan) - compute)
    # a cable a host does see stays checked: one node's compute link left out is missing
    gone = next(r[COL["cable_id"]] for r in plan if r[COL["a_role"]] == "node" and r[COL["fabric"]] == "compute")
    hosts = {dev: [e for e in items if e["name"] != "mgmt"]
             for dev, items in nb.built(plan, omit=[gone]).items() if "-node-" in dev}
    nb.write(tmp_path / "lldp2", hosts)
    r = bom("verify", str(ETH_OOB), "--lldp", str(tmp_path / "lldp2"), "-o", str(tmp_path / "out"), "--json")
    assert r.exit_code == 1 and json.loads(r.stdout)["missing"] == [gone]
    # --fabric oob checks them all the same: no source saw the BMC cables, so they are missing
    r = bom("verify", str(ETH_OOB), "--lldp", str(tmp_path / "lldp"), "--fabric", "oob", "-o",
            str(tmp_path / "out"), "--json")
    out = json.loads(r.stdout)
    assert r.exit_code == 1 and set(bmc) <= set(out["missing"])


def test_a_bmc_seen_by_the_host_is_checked(bom, tmp_path, catalog):
    """A host whose lldpd does report a neighbour on its management port (a BMC sharing a NIC, NC-SI):
    what it reports is checked, a wrong neighbour there is miswired."""
    plan = _plan_of(ETH_OOB, catalog)
    built = nb.built(plan, swap=[r[COL["cable_id"]] for r in plan if r[COL["a_port"]] == "mgmt"
                                 and r[COL["a_role"]] == "node"][:2])
    nb.write(tmp_path / "lldp", {dev: items for dev, items in built.items() if "-node-" in dev})
    r = bom("verify", str(ETH_OOB), "--lldp", str(tmp_path / "lldp"), "-o", str(tmp_path / "out"), "--json")
    out = json.loads(r.stdout)
    assert r.exit_code == 1 and len(out["miswired"]) == 2 and out["missing"] == []


def test_ibnetdiscover_sees_only_infiniband_ports(bom, tmp_path):
    """ibnetdiscover lists the HCAs and switches: the nodes' BMC cables and the leaf's Ethernet
    management port are seen by no source (not checked, where they were missing)."""
    text = (FIX / "ib-pod.ibnetdiscover").read_text()
    # ib-pod-oob's placement puts the UFM servers in the second rack of row 2
    ib = tmp_path / "pod.ibnetdiscover"
    ib.write_text(text.replace("s1-r02-rk01-ufm", "s1-r02-rk02-ufm"))
    r = bom("verify", str(IB_OOB), "--ib", str(ib), "-o", str(tmp_path / "out"), "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert (out["ok"], out["missing"], out["not_checked"]) == (18, [], 28)
