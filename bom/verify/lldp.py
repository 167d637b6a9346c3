"""``lldpcli -f json0 show neighbors`` (and the plain ``-f json`` form), one file per device.

A file ``<device>.json`` holds what that device's lldpd sees: per local interface, the neighbour's
system name (``chassis.name``) and its port, known by its id and its description. A host's lldpd
sends its MAC as the port id and its interface name as the description (a switch's is usually the
interface name as the id): both are kept as names of the far port. The two forms, as lldpd 1.0.16
writes them (tests/verify/fixtures):

- ``json0``: ``lldp[0].interface[*]`` with ``name``, ``chassis[0].name[0].value``,
  ``port[0].id[0].value``, ``port[0].descr[0].value``;
- ``json``: ``lldp.interface`` a mapping ``{ifname: {...}}`` or a list of them (one per
  neighbour), ``chassis`` a mapping ``{sysname: {...}}``, ``port.id.value``, ``port.descr``.

A local port listed twice with one neighbour is a file put together wrongly (exit 2); with two
different neighbours it is what the port sees (a hub or a loop), and the check says so.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bom.errors import BomError
from bom.inputs.jsonio import parse_json
from bom.inputs.yamlio import read_input
from bom.verify.seen import Seen, port_key

#: The speed in a MAU type lldpd reports (``100GbaseCR4``, ``10GigBaseLR``, ``1000BaseTFD``).
_MAU = re.compile(r"(\d+(?:\.\d+)?)\s*(G|Gig|M)?\s*base", re.IGNORECASE)
HINT = "Collect it again with: lldpcli -f json0 show neighbors > <device>.json"
#: The largest LLDP file read.
LLDP_MAX_BYTES = 64 << 20


def _first(v: Any) -> Any:
    return v[0] if isinstance(v, list) and v else v


def _value(v: Any) -> str:
    """A json0 ``[{"value": x}]``, a json ``{"value": x}`` or a plain string, as text."""
    v = _first(v)
    if isinstance(v, dict):
        v = v.get("value")
    return "" if v is None else str(v)


def _rate(port: dict[str, Any]) -> float | None:
    an = _first(port.get("auto-negotiation"))
    if not isinstance(an, dict):
        return None
    m = _MAU.search(_value(an.get("current")))
    if m is None:
        return None
    n = float(m.group(1))
    return n if (m.group(2) or "").lower().startswith("g") else n / 1000


def _neighbours(doc: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """(local interface, its entry) in either form; raises ValueError naming the JSON path of another shape."""
    lldp = doc.get("lldp") if isinstance(doc, dict) else None
    if lldp is None:
        raise ValueError('no "lldp" object at the top')
    if isinstance(lldp, list):   # json0
        for i, block in enumerate(lldp):
            if not isinstance(block, dict):
                raise ValueError(f"lldp[{i}] is {_kind(block)}, not an object with an \"interface\" list")
            entries = block.get("interface", [])
            if not isinstance(entries, list):
                raise ValueError(f"lldp[{i}].interface is {_kind(entries)}, not a list of interfaces")
            for j, entry in enumerate(entries):
                if not isinstance(entry, dict):
                    raise ValueError(f"lldp[{i}].interface[{j}] is {_kind(entry)}, not an interface object")
                if "name" not in entry:
                    raise ValueError(f'lldp[{i}].interface[{j}] is an "interface" entry without a "name"')
                yield str(entry["name"]), entry
        return
    if not isinstance(lldp, dict):
        raise ValueError('"lldp" is neither a list (json0) nor an object (json)')
    interfaces = lldp.get("interface", [])
    for item in interfaces if isinstance(interfaces, list) else [interfaces]:
        if not isinstance(item, dict):
            raise ValueError('an "interface" entry that is not an object')
        for name, entry in item.items():
            if not isinstance(entry, dict):
                raise ValueError(f'interface "{name}" is not an object')
            yield str(name), entry


def _kind(v: Any) -> str:
    """What a JSON value is, for a message: "the number 5", "the text 'x'", "null"."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return f"the value {str(v).lower()}"
    if isinstance(v, (int, float)):
        return f"the number {str(v)[:20]}"
    if isinstance(v, str):
        return f"the text {v[:20]!r}"
    return "a list" if isinstance(v, list) else "an object"


def _far(entry: dict[str, Any]) -> tuple[str, list[str], dict[str, Any]]:
    """The neighbour's system name, its port's names (id, then description) and the port entry,
    in any shape either form writes (what :func:`read_file` does not take on its fast path)."""
    chassis = _first(entry.get("chassis"))
    port = _first(entry.get("port"))
    if not isinstance(chassis, dict) or not isinstance(port, dict):
        raise ValueError("a neighbour without its chassis or port")
    # json0: the system name is a field; json: it is the key
    name = _value(chassis.get("name")) if "name" in chassis or "id" in chassis else next(iter(chassis), "")
    names = [n for n in (_value(port.get("id")), _value(port.get("descr"))) if n]
    return name, names, port


def read_file(path: Path, device: str, seen: Seen, own: bool = False) -> None:
    """Add what ``device``'s lldpd saw (the file ``path``) to ``seen``; ``own``: ``path`` is the file
    :attr:`Seen.files` names for the device (:func:`read_dir`)."""
    # As every input file: a regular file (a FIFO would block, /dev/zero never end), at most
    # LLDP_MAX_BYTES (a 512-port switch's neighbours are about 1 MB of json0).
    text = read_input(path, "LLDP file", limit=LLDP_MAX_BYTES)
    found = _pairs(parse_json(text, str(path), HINT), path, seen)
    del text
    device = seen.text(device)
    near_dev = seen.device_key(device)
    # the device's own file: its path is made when shown (Seen.file), not held a file
    source: str | None = None
    if not own:
        source = str(path)
        if near_dev in seen.files and seen.file(near_dev) == source:
            source = None
    append, keys, once, device_key = seen.append, seen.ports_of, seen.texts.setdefault, seen.device_key
    near_cell, far_cell, port_cell, rate_cell = seen.near.cell, seen.far.cell, seen.far_port.cell, seen.rates.cell
    reporter = seen.reporter.cell((near_dev, device, source))
    for near, ifname, pid, shown, name, rate in found:
        # the far port's shared keys are its shown name's; its id, where another name (a host's MAC),
        # is its own (never a cell: a site has one for each host port)
        shared = keys(shown, shown)
        alias = None if pid == shown else port_key(pid)
        name = once(name, name)   # before its key, which is the name itself where it is its own key
        key = device_key(name)
        append(reporter, near_cell((near, ifname)), far_cell(name if key == name else (key, name)),   # far_cell
               port_cell((shared, shown)), 0 if rate is None else rate_cell((type(rate), rate)),
               None if alias == shared[0] else alias)
    seen.done(near_dev)


def _pairs(doc: Any, path: Path, seen: Seen) -> list[tuple[tuple[str, ...], str, str, str, str, float | None]]:
    """(near port keys, local interface, neighbour's port id, its port as shown, neighbour, speed) of
    each neighbour in the file, each checked."""
    out = []
    pairs: set[tuple[tuple[str, ...], str, str]] = set()   # (near ports, neighbour, its port)
    # A site reports over a million pairs: one flat walk over the file. The names each pair keeps
    # are shared (a device's name is on every pair that reaches it, a port name on every device):
    # interned text, and one tuple of port keys for each pair of names a port is known by.
    ends = seen.port_names
    try:
        for ifname, entry in _neighbours(doc):
            try:   # json0 as lldpd writes it (most files); anything else takes the general path
                port = entry["port"][0]
                pid = str(port["id"][0]["value"])
                descr = port.get("descr")
                shown = str(descr[0]["value"]) if descr else pid
                name = str(entry["chassis"][0]["name"][0]["value"])
            except (KeyError, IndexError, TypeError):
                try:
                    name, ports, port = _far(entry)
                except ValueError as exc:
                    raise ValueError(f"interface {ifname!r}: {exc}") from None
                if not ports:
                    continue
                pid, shown = ports[0], ports[-1]
            if not name:
                continue   # a neighbour that sends no system name cannot be matched to a device
            # shown: the description (a host's interface name) when there is one, else the id
            near = ends.get((ifname, ifname)) or seen.ports_of(ifname, ifname)
            pair = (near, name, shown)
            if pair in pairs:
                raise BomError(f"lists port {ifname} twice with the same neighbour {name} port {shown}",
                               where=str(path), hint=HINT)
            pairs.add(pair)
            out.append((near, ifname, pid, shown, name, _rate(port) if "auto-negotiation" in port else None))
    except ValueError as exc:
        raise BomError(f"is not lldpcli's neighbour JSON: {exc}", where=str(path), hint=HINT) from None
    return out


def read_dir(folder: Path, seen: Seen) -> int:
    """Every ``<device>.json`` in ``folder``; returns how many files were read."""
    if not folder.is_dir():
        raise BomError("is not a folder", where=str(folder), key="--lldp",
                       hint="Give --lldp the folder of <device>.json files (lldpcli -f json0 show neighbors).")
    files = _names(folder)
    if not files:
        raise BomError("holds no <device>.json file", where=str(folder), key="--lldp", hint=HINT)
    if seen.folder is None:
        seen.folder = folder
    same = seen.folder == folder
    for name in files:   # every device's file known first: a pair is indexed by the end that reports it
        stem = seen.text(_stem(name))
        dev = seen.device_key(stem)
        if dev in seen.files:
            raise BomError(f"is a second file for device {stem} (the first: {seen.file(dev)})",
                           where=str(folder / name), hint="Keep one file per device.")
        seen.files[dev] = stem
        if not same or name != f"{stem}.json":
            seen.odd_files[dev] = str(folder / name)
        seen.covered.add(dev)
    for name in files:
        read_file(folder / name, _stem(name), seen, own=True)
    return len(files)


def _names(folder: Path) -> list[str]:
    """The names ``folder.glob("*.json")`` finds, in the order of their paths, without a ``Path`` each
    held at once (a site has 60,000 files: pathlib interns each name, and Python's table of interned
    text keeps the size it grew to)."""
    try:
        with os.scandir(folder) as entries:
            return sorted(e.name for e in entries if fnmatch.fnmatchcase(e.name, "*.json"))
    except PermissionError:   # as glob: a folder it may not list holds no file
        return []


def _stem(name: str) -> str:
    """``Path(name).stem``: the name less its last suffix (a name's leading dot starts none)."""
    i = name.rfind(".")
    return name[:i] if 0 < i < len(name) - 1 else name
