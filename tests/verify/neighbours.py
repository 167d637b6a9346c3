"""Neighbour files as lldpd would write them for a plan as built (the tests' and benchmark's input).

Each device's ``<device>.json`` is ``lldpcli -f json0 show neighbors`` in the shape lldpd 1.0.16
writes (tests/verify/fixtures/lldpd-1.0.16-json0.json): per local interface the neighbour's
system name, its port id and description. Nodes send a MAC as the port id and the interface name
as the description (as a host's lldpd does); switches send the interface name as the id. Interface
names are the plan's ports with ``/`` as ``_`` (a Linux name cannot hold ``/``).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from bom.cableplan.rows import COL

HOSTS = ("node", "ufm", "mgmt")


def ifname(port: str) -> str:
    return port.replace("/", "_")


def _mac(device: str, port: str) -> str:
    h = hash((device, port)) & 0xFFFFFFFFFFFF
    return ":".join(f"{(h >> s) & 0xFF:02x}" for s in range(40, -8, -8))


def entry(local: str, far_device: str, far_port: str, far_role: str) -> dict[str, object]:
    host = far_role in HOSTS
    pid = {"type": "mac", "value": _mac(far_device, far_port)} if host else \
        {"type": "ifname", "value": ifname(far_port)}
    return {"name": ifname(local), "via": "LLDP", "rid": "1",
            "chassis": [{"id": [{"type": "mac", "value": _mac(far_device, "")}], "name": [{"value": far_device}]}],
            "port": [{"id": [pid], "descr": [{"value": ifname(far_port)}]}]}


def built(rows: Iterable[tuple[object, ...]], swap: Iterable[str] = (), omit: Iterable[str] = ()
          ) -> dict[str, list[dict[str, object]]]:
    """Each device's neighbour entries for the plan ``rows`` as built, with the b ends of each pair of
    cable ids in ``swap`` exchanged and the cables in ``omit`` left out."""
    swaps = list(swap)
    gone = set(omit)
    ends = {}
    plan = [r for r in rows if r[COL["cable_id"]] not in gone]
    for r in plan:
        ends[r[COL["cable_id"]]] = (r[COL["b_device"]], r[COL["b_port"]], r[COL["b_role"]])
    for x, y in zip(swaps[::2], swaps[1::2], strict=True):
        ends[x], ends[y] = ends[y], ends[x]
    out: dict[str, list[dict[str, object]]] = defaultdict(list)
    for r in plan:
        a = (r[COL["a_device"]], r[COL["a_port"]], r[COL["a_role"]])
        b = ends[r[COL["cable_id"]]]
        out[a[0]].append(entry(a[1], *b))   # type: ignore[arg-type]
        out[b[0]].append(entry(b[1], *a))   # type: ignore[arg-type]
    return out


def write(folder: Path, devices: dict[str, list[dict[str, object]]]) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    for dev, items in devices.items():
        (folder / f"{dev}.json").write_text(json.dumps({"lldp": [{"interface": items}]}), encoding="utf-8")
    return len(devices)
