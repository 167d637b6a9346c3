"""``ibnetdiscover`` output: the topology file its man page documents (infiniband-diags, section
"TOPOLOGY FILE FORMAT").

A node block opens with ``Switch|Ca|Rt <ports> "<type>-<node GUID>"  # "<NodeDescription>" ...``
and lists its connected ports, one a line: ``[<port>](<port GUID>)? "<peer type>-<GUID>"[<peer
port>](<GUID>)?  # ... "<peer NodeDescription>" lid <n> <width>x<speed>`` (the active width and
speed end the line). Each link is listed from both ends.

The plan's device names come from the node descriptions: the first word (``s1-r01-rk01-leaf-01``),
or the host name of an NVIDIA switch's ``MF0;<host>:<model>/U1``. An HCA's port is the second
word of its description when there is one (``s1-r01-rk02-node-01 p1/1``, as an
``--node-name-map`` names each HCA after its plan port), else its port number (``p1`` for port 1).
A switch port number ``n`` is known as ``p<n>`` and as cage and port ``p<c>/<k>`` of twin-port
cages (``n = 2(c-1) + k``: NDR and XDR switches carry two ports a cage).
"""

from __future__ import annotations

import re
from pathlib import Path

from bom.errors import BomError, keyed
from bom.inputs.yamlio import read_input
from bom.names import IB_LANE_GBPS, ib_port_names
from bom.verify.hcamap import HcaMap
from bom.verify.seen import Seen, device_key, port_key

_NODE = re.compile(r'^(Switch|Ca|Rt)\s+(\d+)\s+"([SHR]-[0-9a-fA-F]+)"\s*#\s*"([^"]*)"')
_PORT = re.compile(r'^\[(\d{1,9})\](?:\(([0-9a-fA-F]{1,16})\))?\s+"([SHR]-[0-9a-fA-F]+)"'
                   r'\[(\d{1,9})\](?:\([0-9a-fA-F]+\))?\s*(?:#\s*(.*))?$')
#: Lines with nothing to check: the node's ids (``vendid=``, ``switchguid=``) and -g's chassis headings.
_SKIP = re.compile(r"^(\w+=|Non-Chassis Nodes|Chassis\b)")
_LINK = re.compile(r'(\d{1,3})x(' + "|".join(sorted(IB_LANE_GBPS, key=len, reverse=True)) + r')\s*$')
LANE_GBPS = IB_LANE_GBPS
HINT = "Give --ib the text ibnetdiscover prints (ibnetdiscover > fabric.txt), with node descriptions " \
       "that name the plan's devices (--node-name-map), and --hca-map MAP for hosts' HCAs named mlx5_N."


def device_of(description: str) -> tuple[str, str]:
    """(device, port word or "") of a node description."""
    words = description.split()
    if not words:
        return "", ""
    first = words[0]
    if ";" in first and ":" in first:   # MF0;<host>:<model>/U1
        first = first.split(";", 1)[1].split(":", 1)[0]
    return first, words[1] if len(words) > 1 else ""


#: The largest ibnetdiscover file read.
IB_MAX_BYTES = 1 << 30
#: The most ports a node may say it has (a Quantum-3 switch has 144; a director chassis is listed as its
#: switch chips).
MAX_PORTS = 4096


def read(path: Path, seen: Seen, hcas: HcaMap | None = None) -> int:
    """Add every link of the topology file ``path`` to ``seen``; returns how many lines were links.
    ``hcas``: the HCA map, which names a host's HCAs (``host mlx5_0``) after the plan's ports."""
    # As every input file: a regular file (never a FIFO or a device, which would block or never end),
    # at most IB_MAX_BYTES (ibnetdiscover writes about 100 bytes a link: a million links is 100 MB).
    with keyed(None, "--ib"):
        text = read_input(path, "ibnetdiscover file", limit=IB_MAX_BYTES)
    nodes: dict[str, tuple[str, str, str]] = {}     # GUID id -> (kind, device, port word)
    blocks: list[tuple[str, int, list[tuple[int, int, str, int, str]]]] = []
    counts: dict[str, int] = {}     # GUID id -> the ports its heading says it has
    port_guids: dict[tuple[str, int], int] = {}   # (GUID id, port) -> the port's GUID, as its block lists it
    listed: set[int] = set()    # the current block's ports, each once
    count = 0                   # and how many its heading says it has
    # Lines end at LF only (CRLF too): str.splitlines would also end one at U+2028, NEL or a file
    # separator inside a node description, and the rest of the description would read as a port line.
    for no, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip(" \t\r")
        if not line or line.startswith("#") or _SKIP.match(line):
            continue
        m = _NODE.match(line)
        if m:
            kind, n, guid, desc = m.groups()
            dev, word = device_of(desc)
            if guid in nodes:
                raise BomError(f"line {no}: node {guid} is listed twice", where=str(path), key="--ib", hint=HINT)
            count = int(n) if len(n) <= 6 else MAX_PORTS + 1
            if not 1 <= count <= MAX_PORTS:
                raise BomError(f"line {no}: node {guid} says it has {n[:12]} ports; a node has 1 to "
                               f"{MAX_PORTS:,}", where=str(path), key="--ib", hint=HINT)
            nodes[guid] = (kind, dev, word)
            counts[guid] = count
            blocks.append((guid, no, []))
            listed = set()
            continue
        p = _PORT.match(line)
        if p and blocks:
            port, peer, peer_port, comment = int(p.group(1)), p.group(3), int(p.group(4)), p.group(5) or ""
            if p.group(2):
                port_guids[blocks[-1][0], port] = int(p.group(2), 16)
            if port in listed:
                raise BomError(f"line {no}: port {port} of {blocks[-1][0]} is listed twice", where=str(path),
                               key="--ib", hint=HINT)
            if not 1 <= port <= count:
                raise BomError(f"line {no}: port {port} of {blocks[-1][0]}, a node of {count} ports (its heading "
                               f"on line {blocks[-1][1]}): expected a port from 1 to {count}", where=str(path),
                               key="--ib", hint=HINT)
            listed.add(port)
            blocks[-1][2].append((port, no, peer, peer_port, comment))
            continue
        if line.startswith(("Switch", "Ca", "Rt", "[")) or not blocks:
            raise BomError(f"line {no} is not ibnetdiscover's topology format: {line[:80]!r}", where=str(path),
                           key="--ib", hint=HINT)
    if not blocks:
        raise BomError("holds no Switch or Ca block (is it ibnetdiscover's output, complete?)", where=str(path),
                       key="--ib", hint=HINT)
    mapped = _mapped(nodes, blocks, port_guids, hcas) if hcas is not None else {}
    for guid, no, _ in blocks:    # every node is covered: each link is listed from both its ends
        dev = nodes[guid][1]
        if not dev:
            raise BomError(f"line {no}: node {guid} has no description to name its device", where=str(path),
                           key="--ib", hint=HINT)
        seen.covered.add(device_key(dev))
        seen.infiniband.add(device_key(dev))
    links = 0
    source = str(path)
    for guid, _, ports in blocks:
        kind, node_dev, node_word = nodes[guid]
        for port, pno, peer, peer_port, comment in ports:
            if peer not in nodes:
                raise BomError(f"line {pno}: the peer {peer} has no block of its own (a truncated file?)",
                               where=str(path), key="--ib", hint=HINT)
            pkind, pdev, pword = nodes[peer]
            dev, word = node_dev, node_word
            if mapped:   # a mapped HCA port is named by the map, each port its own
                dev, word = mapped.get((guid, port), (dev, word))
                pdev, pword = mapped.get((peer, peer_port), (pdev, pword))
            if not 1 <= peer_port <= counts[peer]:
                raise BomError(f"line {pno}: port {peer_port} of {peer}, a node of {counts[peer]} ports: expected a "
                               f"port from 1 to {counts[peer]}", where=str(path), key="--ib", hint=HINT)
            speed = _LINK.search(comment)
            rate = int(speed.group(1)) * LANE_GBPS[speed.group(2)] if speed else None
            near = port_key(word) if kind != "Switch" and word else f"p{port}"
            near_names = (near,) if kind != "Switch" else ib_port_names(port)
            far_names = (port_key(pword),) if pkind != "Switch" and pword else \
                (f"p{peer_port}",) if pkind != "Switch" else ib_port_names(peer_port)
            seen.add((device_key(dev), near_names), (device_key(pdev), far_names),
                     (dev, word if kind != "Switch" and word else f"[{port}]",
                      pdev, pword if pkind != "Switch" and pword else f"[{peer_port}]"), source, rate)
            links += 1
    return links


def _mapped(nodes: dict[str, tuple[str, str, str]], blocks: list[tuple[str, int, list[tuple[int, int, str, int, str]]]],
            port_guids: dict[tuple[str, int], int], hcas: HcaMap) -> dict[tuple[str, int], tuple[str, str]]:
    """(CA, port) -> the plan's (device, port) the map gives it: by the port's GUID (each port of a dual-port
    HCA its own), else the node's GUID, else its host and HCA name. A mapped CA is its plan device's."""
    out: dict[tuple[str, int], tuple[str, str]] = {}
    for gid, _, ports in blocks:
        kind, dev, word = nodes[gid]
        if kind != "Ca":
            continue
        node_guid = int(gid[2:], 16)
        for port, *_ in ports:
            own = port_guids.get((gid, port))
            end = hcas.find(dev, word, (node_guid,) if own is None else (own, node_guid))
            if end is not None:
                out[gid, port] = end
        found = [out[gid, port] for port, *_ in ports if (gid, port) in out]
        if found:
            nodes[gid] = (kind, found[0][0], word)
    return out
