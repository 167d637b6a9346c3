"""bom verify --ib: ibnetdiscover's topology file (fixtures/ib-pod.ibnetdiscover, written in the
format of the ibnetdiscover(8) man page, not captured: no InfiniBand hardware here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bom.verify.ib import LANE_GBPS, device_of

HERE = Path(__file__).parent
IB = HERE / "scenarios" / "ib-pod.yaml"
FIX = HERE / "fixtures" / "ib-pod.ibnetdiscover"


def run(bom, tmp_path: Path, text: str):
    f = tmp_path / "fabric.txt"
    f.write_text(text)
    r = bom("verify", str(IB), "--ib", str(f), "-o", str(tmp_path / "out"), "--json")
    return r, (json.loads(r.stdout) if r.exit_code in (0, 1) else None), f


def test_as_built(bom, tmp_path):
    r, out, _ = run(bom, tmp_path, FIX.read_text())
    assert r.exit_code == 0, r.output
    assert (out["ok"], out["missing"], out["miswired"], out["unexpected"]) == (18, [], [], [])


def test_a_link_at_half_width_is_wrong_speed(bom, tmp_path):
    # switch port 16 (p8/2) to node-02's p4/2 trained at 2x NDR: 200 Gbit/s on a 400G plan
    text = FIX.read_text().replace('p4/2" lid 17 4xNDR', 'p4/2" lid 17 2xNDR').replace(
        '"S-b83fd20300a1b2c0"[16]\t\t# lid 17 lmc 0 "MF0;s1-r01-rk01-leaf-01:MQM9700/U1" lid 1 4xNDR',
        '"S-b83fd20300a1b2c0"[16]\t\t# lid 17 lmc 0 "MF0;s1-r01-rk01-leaf-01:MQM9700/U1" lid 1 2xNDR')
    assert text.count("2xNDR") == 2   # both ends list the link at its active width
    r, out, _ = run(bom, tmp_path, text)
    assert r.exit_code == 1
    assert out["wrong_speed"] == [{"cable_id": "C00000016", "expected": "400 Gbit/s", "found": "200 Gbit/s"}]


def test_missing_ufm_and_crossed_hcas(bom, tmp_path):
    lines = FIX.read_text().splitlines()
    # UFM 2's HCA unplugged: its line on the switch and its block's port line go
    lines = [x for x in lines if not ('"s1-r02-rk01-ufm-02 p1" lid' in x or '"S-b83fd20300a1b2c0"[18]' in x)]
    text = "\n".join(lines)
    # node-01's p1/1 and p1/2 HCAs in each other's switch ports (1 and 2)
    text = text.replace('[1]\t"H-946dae0300c00001"[1]', '[1]\t"H-946dae0300c00002"[1]', 1)
    text = text.replace('[2]\t"H-946dae0300c00002"[1]', '[2]\t"H-946dae0300c00001"[1]', 1)
    text = text.replace('"S-b83fd20300a1b2c0"[1]\t', '"S-b83fd20300a1b2c0"[X]\t').replace(
        '"S-b83fd20300a1b2c0"[2]\t', '"S-b83fd20300a1b2c0"[1]\t').replace(
        '"S-b83fd20300a1b2c0"[X]\t', '"S-b83fd20300a1b2c0"[2]\t')
    r, out, _ = run(bom, tmp_path, text)
    assert r.exit_code == 1
    assert out["missing"] == ["C00000018"]
    assert [m["cable_id"] for m in out["miswired"]] == ["C00000001", "C00000002"]
    assert "s1-r01-rk02-node-01:p1/1 - s1-r01-rk01-leaf-01:[2]" in out["miswired"][0]["found"]
    assert out["ok"] == 15 and out["unexpected"] == []


def test_another_host_on_a_planned_port_is_miswired(bom, tmp_path):
    text = FIX.read_text().replace('"s1-r02-rk01-ufm-02 p1"', '"spare-host mlx5_0"')
    r, out, _ = run(bom, tmp_path, text)
    assert r.exit_code == 1
    assert out["miswired"] == [{"cable_id": "C00000018",
                                "expected": "s1-r02-rk01-ufm-02:p1 - s1-r01-rk01-leaf-01:p9/2",
                                "found": "s1-r02-rk01-ufm-02:p1 - nothing; "
                                         "s1-r01-rk01-leaf-01:p9/2 - spare-host:mlx5_0"}]
    assert out["unexpected"] == [] and out["missing"] == []


def test_an_unknown_host_on_a_free_port_is_unexpected(bom, tmp_path):
    text = FIX.read_text().replace('"s1-r02-rk01-ufm-02 p1"', '"spare-host mlx5_0"').replace(
        '[18]\t"H-', '[40]\t"H-').replace('"S-b83fd20300a1b2c0"[18]', '"S-b83fd20300a1b2c0"[40]')
    r, out, _ = run(bom, tmp_path, text)
    assert r.exit_code == 1
    assert out["missing"] == ["C00000018"]
    assert [(u["found"], u["why"]) for u in out["unexpected"]] == [
        ("s1-r01-rk01-leaf-01:[40] - spare-host:mlx5_0", "spare-host is not in the plan")]


@pytest.mark.parametrize("cut,says", [
    (lambda t: t[: t.index("Ca\t1")], "has no block of its own"),     # stops before the HCAs' blocks
    (lambda t: t[: t.index("[5]\t") + 12], "line 20 is not ibnetdiscover's topology format"),
    (lambda t: "", "holds no Switch or Ca block"),
    (lambda t: t + t[t.index("vendid"):], "is listed twice"),
])
def test_bad_file_exits_2_naming_it(bom, tmp_path, cut, says):
    r, _, f = run(bom, tmp_path, cut(FIX.read_text()))
    assert r.exit_code == 2, r.output
    assert str(f) in r.stderr and says in r.stderr


def test_names_and_rates():
    assert device_of("MF0;s1-leaf-01:MQM9700/U1") == ("s1-leaf-01", "")
    assert device_of("s1-node-01 p1/1") == ("s1-node-01", "p1/1")
    assert 4 * LANE_GBPS["NDR"] == 400 and 4 * LANE_GBPS["XDR"] == 800 and 4 * LANE_GBPS["HDR"] == 200
