"""The HCA map bom verify --hca-map reads: which HCA (mlx5_N, GUID) of a host is which plan port; a bad map is
refused naming its file, line and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bom.errors import BomError
from bom.verify.hcamap import read

HEAD = "device,port,host,hca,guid\n"
ROW = "s1-r01-rk02-node-01,p1/1,,mlx5_0,0x0213c0775964eff6\n"


def _map(tmp_path: Path, text: str) -> Path:
    f = tmp_path / "map.csv"
    f.write_text(text)
    return f


def test_found_by_guid_by_port_guid_or_by_host_and_name(tmp_path):
    m = read(_map(tmp_path, HEAD + ROW + "s1-r01-rk02-node-01,p1/2,dgx-017,mlx5_3,\n"
                  "s1-r01-rk02-node-02,p1/1,,,1070FD0300AB12CD\n"))
    end = ("s1-r01-rk02-node-01", "p1/1")
    assert m.find("anything", "mlx5_9", (0x0213c0775964eff6,)) == end     # the GUID first, whatever the name
    assert m.find("s1-r01-rk02-node-01", "MLX5_0", ()) == end             # the host's name for its HCA
    assert m.find("dgx-017", "mlx5_3", ()) == ("s1-r01-rk02-node-01", "p1/2")   # a host named otherwise
    assert m.find("x", "y", (1, 0x1070fd0300ab12cd)) == ("s1-r01-rk02-node-02", "p1/1")   # a port GUID
    assert m.find("s1-r01-rk02-node-01", "mlx5_3", ()) is None and m.ends == 3


@pytest.mark.parametrize("text,line,says", [
    ("device,port,hca\n" + ROW, 1, "the header has no column host, guid"),
    ("", 1, "the header has no column device"),
    (HEAD + ROW + "s1-r01-rk02-node-01,p1/2,,,\n", 3, "field hca: hca and guid are both empty"),
    (HEAD + ROW + "s1-r01-rk02-node-01,p1/2,,,0xZZ\n", 3, "field guid: '0xZZ' is not a GUID"),
    (HEAD + ROW + "s1-r01-rk02-node-01,p1/2,,,0x11112222333344445\n", 3, "is not a GUID"),
    (HEAD + ROW + "s1-r01-rk02-node-01,p1/2,,mlx5_0,\n", 3, "field hca: s1-r01-rk02-node-01's mlx5_0 is also on "
                                                              "line 2"),
    (HEAD + ROW + "s1-r01-rk02-node-02,p1/1,,,0x0213c0775964eff6\n", 3, "field guid: 0x0213c0775964eff6 is also on"),
    (HEAD + ROW + "s1-r01-rk02-node-01,p1/1,,mlx5_1,\n", 3, "field port: s1-r01-rk02-node-01 p1/1 is also on line 2"),
    (HEAD + ROW + ",p1/2,,mlx5_1,\n", 3, "field device: is empty"),
    (HEAD + ROW + "s1-r01-rk02-node-01,p1/2,,mlx5 1,\n", 3, "field hca: 'mlx5 1' is not an HCA's name"),
    (HEAD + ROW + "s1-r01-rk02-node-01,p1/2,mlx5_1\n", 3, "has 3 fields; the header has 5"),
    (HEAD + "\n\n", 0, "holds no row"),
    (HEAD + ROW + "s" * 200_000 + ",p1,,mlx5_1,\n", 3, "is not CSV: field larger than field limit"),
])
def test_a_bad_map_names_its_file_line_and_field(tmp_path, text, line, says):
    f = _map(tmp_path, text)
    with pytest.raises(BomError) as e:
        read(f)
    assert says in e.value.message and e.value.key == "--hca-map" and e.value.hint
    assert e.value.where == (f"{f}:{line}" if line else str(f))


def test_the_cli_refuses_a_map_without_ib_or_a_bad_map(bom, tmp_path):
    scenario = Path(__file__).parent / "scenarios" / "ib-pod.yaml"
    f = _map(tmp_path, HEAD + ROW + ROW)
    r = bom("verify", str(scenario), "--hca-map", str(f), "--lldp", str(tmp_path))
    assert r.exit_code == 2 and "--hca-map" in r.output and "--ib FILE" in r.output
    ib = Path(__file__).parent / "fixtures" / "ib-pod.ibnetdiscover"
    r = bom("verify", str(scenario), "--ib", str(ib), "--hca-map", str(f), "-o", str(tmp_path / "o"))
    assert r.exit_code == 2 and f"{f}:3" in r.output and "is also on line 2" in r.output


DUAL = """\
switchguid=0x20efe18df069b02(20efe18df069b02)
Switch\t64 "S-020efe18df069b02"\t\t# "MF0;s1-r01-rk01-leaf-01:MQM9700/U1" enhanced port 0 lid 1 lmc 0
[1]\t"H-1070fd0300ab1200"[1](1070fd0300ab1200)\t\t# "dgx-017 mlx5_0" lid 2 4xNDR
[2]\t"H-1070fd0300ab1200"[2](1070fd0300ab1201)\t\t# "dgx-017 mlx5_0" lid 3 4xNDR

caguid=0x1070fd0300ab1200
Ca\t2 "H-1070fd0300ab1200"\t\t# "dgx-017 mlx5_0"
[1](1070fd0300ab1200)\t"S-020efe18df069b02"[1]\t\t# lid 2 lmc 0 "MF0;s1-r01-rk01-leaf-01:MQM9700/U1" lid 1 4xNDR
[2](1070fd0300ab1201)\t"S-020efe18df069b02"[2]\t\t# lid 3 lmc 0 "MF0;s1-r01-rk01-leaf-01:MQM9700/U1" lid 1 4xNDR
"""


def test_each_port_of_a_dual_port_hca_by_its_own_guid(bom, tmp_path):
    """One HCA of two ports on a host not named after the plan: each port's GUID names its plan port."""
    scenario = Path(__file__).parent / "scenarios" / "ib-pod.yaml"
    (tmp_path / "found.txt").write_text(DUAL)
    f = _map(tmp_path, HEAD + "s1-r01-rk02-node-01,p1/1,,,0x1070fd0300ab1200\n"
                              "s1-r01-rk02-node-01,p1/2,,,0x1070fd0300ab1201\n")
    r = bom("verify", str(scenario), "--ib", str(tmp_path / "found.txt"), "--hca-map", str(f), "-o",
            str(tmp_path / "o"), "--json")
    got = json.loads(r.stdout)
    assert got["ok"] == 2 and got["miswired"] == [] and got["unexpected"] == []
    assert "C00000001" not in got["missing"] and "C00000002" not in got["missing"] and len(got["missing"]) == 16
