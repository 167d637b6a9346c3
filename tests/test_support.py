"""Bad input around racks and endpoints: exit 2, the limit named, nothing written."""

from __future__ import annotations

import pytest

CASES = {
    "power": ("name: x\nplatform: dgx-b200\nnodes: 4\nracks: {power_budget: \"10 kW\"}\n",
              ["rack power budget", "below one dgx-b200 node", "racks.power_budget"]),
    "zero-ports": ("name: x\nplatform: dgx-h100\nnodes: 4\nstorage: {count: 2, ports: 0}\n"
                   "fabrics: {storage: {switch: sn5600}}\n", ["storage.ports", "no storage-fabric ports"]),
    "no-room": ("name: x\nplatform: dgx-b200\nnodes: 4\nracks: {rack_units: 6}\n",
                ["fits no rack", "6U"]),
    "oob-key": ("name: x\nplatform: dgx-h100\nnodes: 4\nfabrics: {oob: {su_nodes: 8}}\n",
                ["fabrics.oob.su_nodes", "does not apply"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_exit_2_naming_the_limit_and_nothing_written(bom, tmp_path, case):
    text, words = CASES[case]
    f = tmp_path / "s.yaml"
    f.write_text(text)
    out = tmp_path / "out"
    r = bom("build", str(f), "-o", str(out))
    assert r.exit_code == 2, r.output
    for w in words:
        assert w in r.output, (w, r.output)
    assert not out.exists() or not any(out.iterdir())
