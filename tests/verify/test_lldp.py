"""Reading a folder of LLDP files: each pair's source is its file's path, made when shown."""

from __future__ import annotations

import json
from pathlib import Path

from bom.verify.lldp import _names, _stem, read_dir
from bom.verify.seen import Seen


def _file(path: Path, far: str) -> None:
    entry = {"name": "eth0", "chassis": [{"name": [{"value": far}]}],
             "port": [{"id": [{"value": "p1"}], "descr": [{"value": "p1"}]}]}
    path.write_text(json.dumps({"lldp": [{"interface": [entry]}]}))


def test_a_pair_s_source_is_its_file_s_path(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("Node-1.json", "node-2.json", ".json", "a.b.json"):
        _file(tmp_path / name, "leaf-1")
    for folder in (tmp_path, Path(".")):
        seen = Seen()
        read_dir(folder, seen)
        seen.read()
        got = {x.near_name: x.source for x in seen.links}
        assert got == {"Node-1": str(folder / "Node-1.json"), "node-2": str(folder / "node-2.json"),
                       ".json": str(folder / ".json"), "a.b": str(folder / "a.b.json")}
        assert {d: seen.file(d) for d in seen.files} == {"node-1": got["Node-1"], "node-2": got["node-2"],
                                                       ".json": got[".json"], "a.b": got["a.b"]}


def test_the_files_listed_are_glob_s_in_its_order(tmp_path: Path):
    for name in (".json", "a.JSON", "b.json.bak", "c.json", "ä.json", "x y.json", "..json", "B.json", "a-b.json"):
        (tmp_path / name).write_text("{}")
    (tmp_path / "d.json").mkdir()
    assert _names(tmp_path) == [p.name for p in sorted(tmp_path.glob("*.json"), key=str)]
    assert [_stem(n) for n in _names(tmp_path)] == [p.stem for p in sorted(tmp_path.glob("*.json"), key=str)]
