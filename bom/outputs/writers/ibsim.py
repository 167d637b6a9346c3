"""One InfiniBand fabric of one site as ibsim's net file, and the HCA map a site fills in.

The net file is ``ibnetdiscover``'s topology format (infiniband-diags, ibnetdiscover(8) "TOPOLOGY
FILE FORMAT"), which ibsim reads as its fabric (ibsim's ``net-examples/examples.README``: "text file
in the format compatible with ibnetdiscover command output"): a block per node, a line per cabled
port, each link listed from both ends. ``ibsim -s FILE`` simulates it and ``ibsim-run ibnetdiscover``
discovers it as a real fabric would be discovered.

- A switch is ``Switch <ports>`` with its catalog row's port count, described as an NVIDIA switch
  describes itself (``MF0;<device>:<model>/U1``); a plan port ``p<c>/<k>`` is port ``per_cage (c-1) + k``
  (:func:`bom.names.ib_port_number`).
- Each host port of the plan is an HCA of one port (a ConnectX card per port, as the DGX and HGX
  systems carry them), described as a host's rdma-ndd describes it: ``<host> mlx5_<n>``, the host's
  ports numbered in the plan's port order. Which ``mlx5_N`` a real host gives which port is the
  site's to say: the HCA map (:func:`hca_map`) is written from the plan as the template.
- GUIDs are derived from the names (:func:`guid`): the same plan gives the same GUIDs. They are
  locally administered EUI-64s (the U/L bit set), never a vendor's. An HCA's port GUID is its node
  GUID + 1, as ibsim numbers them, so the file reads as ibnetdiscover prints the simulated fabric.
- Each port line ends with the link's active width and speed (``lid 0 4xHDR``): the plan's rate over
  the switch's lane rate. ibsim 0.10 (Debian 12) knows speeds up to HDR; a link it cannot parse
  (NDR, XDR) it brings up at its default, 4xSDR.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from bom.errors import BomError
from bom.model.records import PlanRow
from bom.names import IB_LANE_GBPS, ib_port_number
from bom.outputs.writers.common import csv_text, export_text

#: ibsim 0.10's defaults (``ibsim/sim.h``: MAXNETNODES, MAXNETSWITCHS, MAXNETPORTS = switches x 36 +
#: nodes x 2); a larger fabric needs its -N, -S and -P options.
IBSIM_NODES, IBSIM_SWITCHES = 2048, 256
IBSIM_PORTS = IBSIM_SWITCHES * 36 + IBSIM_NODES * 2
#: The HCA map's columns: the plan's device and port, the host name the node reports when it is not
#: the device's, the HCA as the host names it and its GUID (node or port).
MAP_HEADER = ("device", "port", "host", "hca", "guid")


def guid(name: str) -> int:
    """A 64-bit GUID for ``name``: locally administered (EUI-64's U/L bit), even (its port GUID is + 1)."""
    raw = int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big")
    return (raw & 0x00FF_FFFF_FFFF_FFFE) | 0x0200_0000_0000_0000


@dataclass(frozen=True)
class SwitchKind:
    """What the net file says of a switch layer: its catalog row's ports, cages and lane rate."""

    ports: int
    per_cage: int
    lane_gbps: float
    model: str          # the model an NVIDIA switch's node description carries (MQM8700)


@dataclass
class _Node:
    switch: bool
    device: str
    port: str                       # an HCA's plan port ("" for a switch)
    ports: int
    guid: int
    lines: list[tuple[int, _Node, int, str]] = field(default_factory=list)   # (port, far node, far port, speed)
    desc: str = ""


@dataclass
class IbsimNet:
    """The fabric as ibsim sees it: switches and HCAs by name, each link listed from both ends."""

    name: str
    nodes: dict[tuple[str, str], _Node] = field(default_factory=dict)
    links: int = 0

    @property
    def counts(self) -> str:
        s, h, n = self.switches, self.hcas, self.links
        return (f"{s:,} switch{'es' if s != 1 else ''}, {h:,} HCA{'s' if h != 1 else ''}, "
                f"{n:,} link{'s' if n != 1 else ''}")

    @property
    def switches(self) -> int:
        return sum(n.switch for n in self.nodes.values())

    @property
    def hcas(self) -> int:
        return len(self.nodes) - self.switches

    @property
    def ports(self) -> int:
        return sum(n.ports + n.switch for n in self.nodes.values())   # a switch's port 0 too


def _natural(text: str) -> tuple[object, ...]:
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text))


def _speed(rate: float, lane: float, cable: str) -> str:
    names = [k for k, v in IB_LANE_GBPS.items() if v == lane and k != "FDR10"]
    width = rate / lane
    if not names or width != int(width) or width < 1:
        raise BomError(f"cable {cable}: {rate:g} Gbit/s is not a whole number of the switch's {lane:g} Gbit/s "
                       "InfiniBand lanes", key="--format",
                       hint="Export an InfiniBand fabric whose switch row gives its lane_rate (HDR 50G, NDR 100G).")
    return f"{int(width)}x{names[0]}"


def ibsim_net(rows: Iterable[PlanRow], col: dict[str, int], name: str, site: str, fabric: str,
              switches: dict[str, SwitchKind]) -> IbsimNet:
    """The rows of ``fabric`` with both ends in ``site``; ``switches``: the fabric's switch roles."""
    net = IbsimNet(name)
    c = col
    for r in rows:
        if r[c["fabric"]] != fabric or r[c["a_site"]] != site or r[c["b_site"]] != site:
            continue
        ends: list[tuple[_Node, int, SwitchKind | None]] = []
        for side in ("a", "b"):
            dev, role, port = (export_text(str(r[c[f"{side}_{k}"]])) for k in ("device", "role", "port"))
            kind = switches.get(role)
            if kind is None:
                node = net.nodes.setdefault((dev, port), _Node(False, dev, port, 1, guid(f"{dev} {port}")))
                ends.append((node, 1, kind))
                continue
            node = net.nodes.setdefault((dev, ""), _Node(True, dev, "", kind.ports, guid(dev),
                                                         desc=f"MF0;{dev}:{kind.model}/U1"))
            n = ib_port_number(port, kind.per_cage)
            if n is None or not 1 <= n <= kind.ports:
                raise BomError(f"cable {r[c['cable_id']]}: port {port} of {dev} is not one of its {kind.ports} "
                               "InfiniBand ports", key="--format", hint="bom cables lists the plan's ports.")
            ends.append((node, n, kind))
        lane = next((k.lane_gbps for _, _, k in ends if k is not None), None)
        if lane is None:
            continue   # no switch at either end: not a link of this fabric's switches
        speed = _speed(float(r[c["rate_gbps"]]), lane, str(r[c["cable_id"]]))
        (na, pa, _), (nb, pb, _) = ends
        na.lines.append((pa, nb, pb, speed))
        nb.lines.append((pb, na, pa, speed))
        net.links += 1
    if not net.links:
        raise BomError(f"the plan has no {fabric} cable runs within site {site}", key="--fabric",
                       hint="bom cables lists every fabric and site of the plan.")
    _name_hcas(net)
    return net


def _name_hcas(net: IbsimNet) -> None:
    """Each host's HCAs ``<host> mlx5_<n>`` in its plan ports' order."""
    by_host: dict[str, list[_Node]] = {}
    for node in net.nodes.values():
        if not node.switch:
            by_host.setdefault(node.device, []).append(node)
    for nodes in by_host.values():
        for i, node in enumerate(sorted(nodes, key=lambda n: _natural(n.port))):
            node.desc = f"{node.device} mlx5_{i}"


def _id(node: _Node) -> str:
    return f"{'S' if node.switch else 'H'}-{node.guid:016x}"


def write_net(net: IbsimNet) -> bytes:
    """The net file: the switches, then the HCAs, each block's ports in order."""
    def line(near: _Node, port: int, far: _Node, fp: int, speed: str) -> str:
        far_ref = f'"{_id(far)}"[{fp}]' + ("" if far.switch else f"({far.guid + fp:x})")
        if near.switch:
            return f'[{port}]\t{far_ref}\t\t# "{far.desc}" lid 0 {speed}'
        return f'[{port}]({near.guid + port:x})\t{far_ref}\t\t# lid 0 lmc 0 "{far.desc}" lid 0 {speed}'

    flags = [f"-{o} {n}" for o, n, cap in (("N", len(net.nodes), IBSIM_NODES), ("S", net.switches, IBSIM_SWITCHES),
                                             ("P", net.ports, IBSIM_PORTS)) if n > cap]
    out = [f"# {net.name}: {net.counts}; written by clusterbom (bom topology --format ibsim).",
           "# ibnetdiscover's topology format, as ibsim reads it: ibsim -s " + " ".join([*flags, "FILE"]) +
           ", then ibsim-run ibnetdiscover.",
           "# GUIDs are derived from the plan's names; each HCA is '<host> mlx5_<n>' (the -hca-map.csv says "
           "which is which plan port).", ""]
    nodes = sorted(net.nodes.values(), key=lambda n: (not n.switch, _natural(n.device), _natural(n.port)))
    for node in nodes:
        if node.switch:
            out += [f"switchguid=0x{node.guid:x}({node.guid:x})",
                    f'Switch\t{node.ports} "{_id(node)}"\t\t# "{node.desc}" enhanced port 0 lid 0 lmc 0']
        else:
            out += [f"caguid=0x{node.guid:x}", f'Ca\t{node.ports} "{_id(node)}"\t\t# "{node.desc}"']
        out += [line(node, *x) for x in sorted(node.lines, key=lambda x: x[0])]
        out.append("")
    return ("\n".join(out) + "\n").encode()


def hca_map(net: IbsimNet) -> bytes:
    """The HCA map's template: per host port of the plan, the HCA the net file gives it and its GUID;
    the site writes its hosts' own (``ibstat``: each mlx5_N's node GUID)."""
    nodes = sorted((n for n in net.nodes.values() if not n.switch), key=lambda n: (_natural(n.device),
                                                                                  _natural(n.port)))
    return csv_text(MAP_HEADER, ((n.device, n.port, "", n.desc.split()[-1], f"0x{n.guid:016x}")
                                 for n in nodes)).encode()
