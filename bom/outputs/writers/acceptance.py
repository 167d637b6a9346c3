"""Acceptance-test exports of the cable plan: an ANTA test catalog per Ethernet fabric, the plan as the
point-to-point (P2P) workbook NVIDIA's UFM Cable Validation Tool (CVT) reads, and the expected topology
of every tier with each fibre run's receive-power window.

Format only: every row comes from the cable plan generator (:mod:`bom.cableplan.rows`), every window
from the loss rule (:mod:`bom.rules.lengths`: ``run_windows``, ``line_window``); nothing here re-derives
a wiring or a loss.

Port names. The plan names a switch port by its cage and lane (``p17``, ``p17/2``, ``mgmt``); each tool
reads another convention, so a switch's port is renamed for it, one function per tool:
ANTA checks Arista EOS, ``Ethernet17/2`` (``Management1``); CVT reads an InfiniBand switch's port as
``17/2`` and an Ethernet (Cumulus / NVOS) switch's as ``swp17s1`` (its split lanes counted from 0).
A server's port keeps the plan's name (``p1``, ``storage-p1``): the site maps it to its NIC or HCA
(CVT's HCA mapping file, ``bom verify``'s mapping).
"""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

import yaml

from bom.model.records import PlanRow
from bom.names import MGMT_PORT
from bom.outputs.writers.cabling_xlsx import StreamingWorkbook
from bom.roles import SWITCH_LAYERS, Layer
from bom.rules.lengths import RunKey, Window

_CAGE = re.compile(r"p(\d+)(?:/(\d+))?")
#: Roles whose ports are switch ports (every fabric's leaf, spine and core, and the DCI routers).
_SWITCH_SUFFIXES = tuple(f"-{layer}" for layer in SWITCH_LAYERS)
#: ANTA's interface speed field takes 1 to 1,000 Gbit/s (anta.input_models.interfaces.InterfaceState).
ANTA_MAX_GBPS = 1000


def is_switch(role: str) -> bool:
    """Whether a device of this plan role has switch ports (a fabric's leaf, spine or core; a DCI router).

    >>> is_switch("storage-leaf"), is_switch("spine"), is_switch("router"), is_switch("node")
    (True, True, True, False)
    """
    return role in SWITCH_LAYERS or role == Layer.ROUTER or role.endswith(_SWITCH_SUFFIXES)


def eos_port(port: str) -> str | None:
    """A switch port as Arista EOS names it (what ANTA's interface fields take); None for a port that
    is not a cage.

    >>> eos_port("p17"), eos_port("p17/2"), eos_port("mgmt"), eos_port("line")
    ('Ethernet17', 'Ethernet17/2', 'Management1', None)
    """
    if port == MGMT_PORT:
        return "Management1"
    m = _CAGE.fullmatch(port)
    if m is None:
        return None
    return f"Ethernet{m[1]}" + (f"/{m[2]}" if m[2] else "")


def cvt_port(port: str, infiniband: bool) -> str:
    """A switch port as CVT's P2P file names it: InfiniBand ``17`` or ``17/2``; Ethernet (Cumulus / NVOS)
    ``swp17`` or ``swp17s1`` (split lanes from 0). Any other port as the plan names it.

    >>> cvt_port("p17/2", True), cvt_port("p17/2", False), cvt_port("p3", False), cvt_port("mgmt", False)
    ('17/2', 'swp17s1', 'swp3', 'mgmt')
    """
    m = _CAGE.fullmatch(port)
    if m is None:
        return port
    if infiniband:
        return m[1] + (f"/{m[2]}" if m[2] else "")
    return f"swp{m[1]}" + (f"s{int(m[2]) - 1}" if m[2] else "")


# --- ANTA --------------------------------------------------------------------------------------


@dataclass
class _Switch:
    neighbors: dict[str, dict[str, str]] = field(default_factory=dict)    # port -> LLDPNeighbor
    speeds: dict[str, dict[str, Any]] = field(default_factory=dict)       # port -> InterfaceState
    optics: dict[str, str] = field(default_factory=dict)                  # port -> module part


def _anta_end(sw: _Switch, port: str, module: str, rate: float, medium: str, far: str, far_role: str,
              far_port: str) -> None:
    eos = eos_port(port)
    if eos is None or eos in sw.neighbors:   # a link of several fibre runs has one row per run
        return
    far_name = (eos_port(far_port) or far_port) if is_switch(far_role) else far_port
    sw.neighbors[eos] = {"port": eos, "neighbor_device": far, "neighbor_port": far_name}
    if 1 <= rate <= ANTA_MAX_GBPS:
        what = f"expected transceiver {module}" if module else f"expected {medium} cable head"
        sw.speeds[eos] = {"name": eos, "speed": rate, "description": f"{what}; to {far} {far_name}"}
    if module and eos != "Management1":
        sw.optics[eos] = module


def anta_catalogs(rows: Iterable[PlanRow], col: dict[str, int], fabrics: set[str]) -> dict[str, bytes]:
    """One ANTA catalog per fabric of ``fabrics`` (its switches' rows): per switch, its LLDP neighbours per
    interface (``VerifyLLDPNeighbors``), each interface's speed with the transceiver the plan puts in it
    (``VerifyInterfacesSpeed``, the part in the interface's description: no ANTA 1.10 test takes an
    expected transceiver type) and its optical interfaces' receive power (``VerifyInterfacesOpticsReceivePower``,
    which fails an interface with no optic). Each test is filtered to its switch by the device's name, the
    tag ANTA gives every device of an inventory."""
    c = col
    per: dict[str, dict[str, _Switch]] = {}
    for r in rows:
        fabric = r[c["fabric"]]
        if fabric not in fabrics:
            continue
        switches = per.setdefault(fabric, {})
        rate, medium = float(r[c["rate_gbps"]] or 0), str(r[c["medium"]])
        for near, far in (("a", "b"), ("b", "a")):
            if is_switch(str(r[c[f"{near}_role"]])):
                sw = switches.setdefault(str(r[c[f"{near}_device"]]), _Switch())
                _anta_end(sw, str(r[c[f"{near}_port"]]), str(r[c[f"{near}_module"]]), rate, medium,
                          str(r[c[f"{far}_device"]]), str(r[c[f"{far}_role"]]), str(r[c[f"{far}_port"]]))
    return {fabric: _anta_yaml(fabric, switches) for fabric, switches in per.items()}


def _anta_yaml(fabric: str, switches: dict[str, _Switch]) -> bytes:
    lldp, speed, optics = [], [], []
    for name in sorted(switches):
        sw, tags = switches[name], {"tags": [name]}
        lldp.append({"VerifyLLDPNeighbors": {"require_fqdn": False, "neighbors": list(sw.neighbors.values()),
                                             "filters": tags}})
        if sw.speeds:
            speed.append({"VerifyInterfacesSpeed": {"interfaces": list(sw.speeds.values()), "filters": tags}})
        if sw.optics:
            optics.append({"VerifyInterfacesOpticsReceivePower": {"interfaces": sorted(sw.optics),
                                                                  "filters": tags}})
    doc = {"anta.tests.connectivity": lldp, "anta.tests.interfaces": speed + optics}
    head = (f"# ANTA test catalog of the {fabric} fabric: {len(switches):,} switches, written by clusterbom "
            f"(bom export anta) from the cable plan.\n# Read by anta nrfu, with an inventory that names each "
            f"device as the plan does.\n")
    return (head + yaml.safe_dump(doc, sort_keys=False, width=120)).encode()


# --- CVT point-to-point workbook ---------------------------------------------------------------

#: CVT's P2P columns (v1.5 to 1.8, "P2P File": the Ethernet example's header, which the InfiniBand
#: sheets' columns are a subset of), then the plan's own: read by people, ignored by CVT's column match.
CVT_HEADER = ("A-Rack", "A-U", "A-Node Name", "A-Type", "A-Port", "Z-Rack", "Z-RU", "Z-Node Name", "Z-Type",
              "Z-Port", "Cable-ID", "Protocol", "A-Module-PN", "Z-Module-PN", "A-Plan-Port", "Z-Plan-Port")


def cvt_rows(rows: Iterable[PlanRow], col: dict[str, int],
             infiniband: set[str]) -> Iterator[tuple[str, tuple[Any, ...]]]:
    """(sheet, row) per plan row: the fabric's sheet, both ends with CVT's port names."""
    c = col
    for r in rows:
        fabric = str(r[c["fabric"]])
        ib = fabric in infiniband
        ends = []
        for s in ("a", "b"):
            role, port = str(r[c[f"{s}_role"]]), str(r[c[f"{s}_port"]])
            switch = is_switch(role)
            ends.append((r[c[f"{s}_rack"]], r[c[f"{s}_u"]], r[c[f"{s}_device"]], "Switch" if switch else "Host",
                         cvt_port(port, ib) if switch else port))
        yield fabric, (*ends[0], *ends[1], r[c["cable_id"]], "ib" if ib else "ethernet", r[c["a_module"]],
                       r[c["b_module"]], r[c["a_port"]], r[c["b_port"]])


def write_cvt(rows: Iterable[PlanRow], col: dict[str, int], infiniband: set[str], fh: IO[bytes]) -> Counter[str]:
    """The P2P workbook, a sheet per fabric, streamed (the plan's own streaming workbook: the rows come
    fabric after fabric); the rows per sheet."""
    book = StreamingWorkbook(fh)
    counts: Counter[str] = Counter()
    sheet, current = None, None
    try:
        for fabric, row in cvt_rows(rows, col, infiniband):
            if fabric != current:
                current = fabric
                name = fabric if fabric not in counts else f"{fabric} {len(book.names) + 1}"
                sheet = book.sheet(name[:31], CVT_HEADER, [14, 6, 26, 8, 12, 14, 6, 26, 8, 12, 12, 9, 16, 16, 12, 12])
            assert sheet is not None
            sheet.append((row,))
            counts[fabric] += 1
        if sheet is None:
            book.sheet("empty", CVT_HEADER, [12] * len(CVT_HEADER))
        book.close()
    except BaseException:
        book.abort()
        raise
    return counts


# --- expected topology -------------------------------------------------------------------------

_END = ("site", "row", "rack", "u", "device", "role", "port", "module")


def _key(r: PlanRow, c: dict[str, int]) -> RunKey:
    return (str(r[c["fabric"]]), str(r[c["hop"]]), str(r[c["a_module"]]), str(r[c["b_module"]]),
            str(r[c["cable_part"]]), r[c["sold_length_m"]], int(r[c["panels"]] or 0))


def _window(w: Window | None) -> dict[str, Any] | None:
    if w is None:
        return None
    return {"expected_loss_db": round(w[0], 3), "max_loss_db": round(w[1], 3),
            "rx_db_relative_to_launch": [round(-w[1], 3), round(-w[0], 3)], "from": w[2]}


def expected_links(rows: Iterable[PlanRow], col: dict[str, int], windows: dict[RunKey, Window],
                   line: Window | None, line_hop: str) -> Iterator[dict[str, Any]]:
    """One record per plan row: its ids, tier, fabric and hop, both ends, its medium and rate, and the
    receive-power window of its fibre (None for copper, an active cable and a scale-up link)."""
    c = col
    for r in rows:
        hop = str(r[c["hop"]])
        w = line if hop == line_hop else windows.get(_key(r, c))
        yield {"cable_id": r[c["cable_id"]], "link_id": r[c["link_id"]], "tier": r[c["tier"]],
               "fabric": r[c["fabric"]], "hop": hop, "plane": r[c["plane"]], "rail": r[c["rail"]],
               "a": {k: r[c[f"a_{k}"]] for k in _END}, "b": {k: r[c[f"b_{k}"]] for k in _END},
               "medium": r[c["medium"]], "rate_gbps": r[c["rate_gbps"]], "cable_part": r[c["cable_part"]],
               "length_m": r[c["length_m"]], "sold_length_m": r[c["sold_length_m"]],
               "rx_window": _window(w)}


def write_expected(name: str, links: Iterable[dict[str, Any]], fh: IO[bytes]) -> Counter[str]:
    """The expected topology as one JSON document, written a link at a time; the links per tier/fabric/hop."""
    out = io.TextIOWrapper(fh, encoding="utf-8", newline="\n", write_through=True)
    counts: Counter[str] = Counter()
    out.write(json.dumps({"name": name, "generator": "clusterbom (bom export expected-topology)",
                          "rx_window": "per fibre run: the loss expected and the most its budget allows, "
                                       "so the receive power lies within rx_db_relative_to_launch of the far "
                                       "transmitter's launch power"})[:-1])
    out.write(', "links": [')
    for n, link in enumerate(links):
        out.write(("\n" if n == 0 else ",\n") + json.dumps(link, separators=(",", ":")))
        counts[f"{link['tier']}/{link['fabric']}/{link['hop']}"] += 1
    out.write('\n], "counts": ' + json.dumps(dict(sorted(counts.items()))) + "}\n")
    out.detach()
    return counts
