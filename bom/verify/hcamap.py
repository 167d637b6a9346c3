"""The HCA map: which HCA of a host (its ``mlx5_N`` or its GUID) is which port of the plan.

A real host names its HCAs ``<host> mlx5_<n>`` in the node descriptions ibnetdiscover lists (rdma-ndd's
default, "%h %d"), in the order its PCI bus enumerates them, which is not the plan's port order. The
map says which is which, one row per plan port: ``device``, ``port`` (the plan's names), ``host`` (the
host name the node reports, when it is not the plan's device name), ``hca`` (``mlx5_0``) and ``guid``
(the HCA's node or port GUID, as ``ibstat`` prints it), either of the last two or both.
``bom topology --format ibsim`` writes it from the plan as the template a site fills in.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bom.errors import BomError
from bom.inputs.yamlio import read_input
from bom.outputs.writers.ibsim import MAP_HEADER
from bom.verify.seen import device_key

HINT = "Give --hca-map the CSV bom topology --format ibsim writes (<name>-<fabric>-s<N>-hca-map.csv) with each " \
       "row's hca (mlx5_0, as ibstat lists the host's HCAs) or guid (its node or port GUID, 0x and 16 hex digits) " \
       "filled in: columns device, port, host, hca, guid."
_GUID = re.compile(r"(?:0x)?([0-9a-fA-F]{1,16})")
_HCA = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
#: The largest map read: a row is about 60 bytes, a million HCA ports 60 MB.
MAP_MAX_BYTES = 1 << 27


@dataclass
class HcaMap:
    """Plan ends (device, port) by HCA: by GUID and by (host key, HCA name), and the file it came from."""

    path: str
    by_guid: dict[int, tuple[str, str]] = field(default_factory=dict)
    by_name: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    ends: int = 0       # the plan ports it maps

    def find(self, host: str, hca: str, guids: tuple[int, ...]) -> tuple[str, str] | None:
        """The plan's (device, port) of the HCA ``host``'s ``hca`` with one of ``guids``, or None."""
        for g in guids:
            end = self.by_guid.get(g)
            if end is not None:
                return end
        return self.by_name.get((device_key(host), hca.lower()))


def parse_guid(text: str) -> int | None:
    m = _GUID.fullmatch(text.strip())
    return int(m.group(1), 16) if m else None


def read(path: Path) -> HcaMap:
    """The map at ``path``; a bad row is refused naming the file, its line and the field."""
    text = read_input(path, "HCA map", limit=MAP_MAX_BYTES)
    rows = csv.reader(text.replace("\r\n", "\n").split("\n"))
    try:
        return _rows(path, rows)
    except csv.Error as exc:
        raise BomError(f"is not CSV: {exc}", where=f"{path}:{rows.line_num}", key="--hca-map", hint=HINT) from None


def _bad(path: Path, no: int, why: str) -> BomError:
    return BomError(why, where=f"{path}:{no}", key="--hca-map", hint=HINT)


def _rows(path: Path, rows: Any) -> HcaMap:
    header = [h.strip().lower() for h in next(rows, [])]
    missing = [h for h in MAP_HEADER if h not in header]
    if missing:
        raise _bad(path, 1, f"the header has no column {', '.join(missing)} (it has {', '.join(header) or 'none'})")
    col = {h: header.index(h) for h in MAP_HEADER}
    out = HcaMap(str(path))
    lines: dict[object, int] = {}   # each plan end, GUID and host's HCA name -> the line that gave it
    for row in rows:
        no = rows.line_num
        if not any(x.strip() for x in row):
            continue
        if len(row) != len(header):
            raise _bad(path, no, f"has {len(row)} fields; the header has {len(header)}")
        f = {h: row[i].strip() for h, i in col.items()}
        end, guid, name = _row(path, no, f)
        for k, field_, shown in ((("end", *end), "port", f"{f['device']} {f['port']}"), (guid, "guid", f["guid"]),
                                 (name, "hca", f"{f['host'] or f['device']}'s {f['hca']}")):
            if k is not None and k in lines:
                raise _bad(path, no, f"field {field_}: {shown} is also on line {lines[k]}")
            if k is not None:
                lines[k] = no
        out.ends += 1
        if guid is not None:
            out.by_guid[guid[1]] = end
        if name is not None:
            out.by_name[name[1:]] = end
    if not out.ends:
        raise BomError("holds no row", where=str(path), key="--hca-map", hint=HINT)
    return out


def _row(path: Path, no: int, f: dict[str, str]
         ) -> tuple[tuple[str, str], tuple[str, int] | None, tuple[str, str, str] | None]:
    """A row's plan end, its GUID and its (host, HCA) name, each as a key of its own kind; refused when bad."""
    for name in ("device", "port"):
        if not f[name]:
            raise _bad(path, no, f"field {name}: is empty; give the plan's name")
    if not f["hca"] and not f["guid"]:
        raise _bad(path, no, "field hca: hca and guid are both empty; give either (or both)")
    guid = None
    if f["guid"]:
        g = parse_guid(f["guid"])
        if g is None:
            raise _bad(path, no, f"field guid: {f['guid'][:40]!r} is not a GUID (16 hex digits, 0x optional)")
        guid = ("guid", g)
    hca = None
    if f["hca"]:
        if not _HCA.fullmatch(f["hca"]):
            raise _bad(path, no, f"field hca: {f['hca'][:40]!r} is not an HCA's name (mlx5_0: one word)")
        hca = ("hca", device_key(f["host"] or f["device"]), f["hca"].lower())
    return (f["device"], f["port"]), guid, hca
