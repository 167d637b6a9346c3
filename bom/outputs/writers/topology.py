"""The plan's topology for other tools: Graphviz DOT and draw.io XML, one fabric of one site.

Built from the cable plan's rows (the same devices, ports and cables as the CSV and NetBox): a
device is a node, a cable run an edge with the port at each end on it (DOT ``taillabel`` /
``headlabel``; draw.io the edge's text). Layers stand in rows by role, top down: core, spine, leaf,
then everything else (nodes, storage, management). Format only: :func:`topology_graph` picks the
rows, the writers print them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from xml.sax.saxutils import escape, quoteattr

from bom.errors import BomError
from bom.model.records import PlanRow
from bom.names import switch_role
from bom.outputs.writers.common import export_text
from bom.roles import FabricRole, Layer

#: Rows from top to bottom; any other role stands in the last row.
LAYERS = ("dci-router", Layer.CORE, Layer.SPINE, Layer.LEAF)
COPPER = ("passive-copper", "active-copper")
_SWITCH_LAYERS = (Layer.CORE, Layer.SPINE, Layer.LEAF)


@dataclass
class Edge:
    a: str
    a_port: str
    b: str
    b_port: str
    cable_id: str
    label: str
    medium: str
    part: str


@dataclass
class Graph:
    name: str
    devices: dict[str, tuple[str, str]] = field(default_factory=dict)   # name -> (role, rack)
    edges: list[Edge] = field(default_factory=list)
    fabric: str = FabricRole.COMPUTE      # whose switches stand in the layers' rows

    def row(self, role: str) -> int:
        """The row of a role: the drawn fabric's own switches by their layer (``storage-leaf`` in the leaves'
        row of the storage fabric), every other device (the nodes, and another fabric's switches seen by
        their management port on the OOB fabric) in the last row."""
        for i, layer in enumerate(LAYERS):
            if role == (layer if layer not in _SWITCH_LAYERS else switch_role(self.fabric, layer)):
                return i
        return len(LAYERS)

    def layers(self) -> list[list[str]]:
        """The devices in rows, top down: each of LAYERS, then the rest; sorted by name in a row."""
        rows: dict[int, list[str]] = {}
        for name, (role, _) in self.devices.items():
            rows.setdefault(self.row(role), []).append(name)
        return [sorted(rows[k]) for k in sorted(rows)]


def topology_graph(rows: Iterable[PlanRow], col: dict[str, int], name: str, site: str, fabric: str,
                   max_links: int) -> Graph:
    """The rows of ``fabric`` with both ends in ``site`` as a graph; past ``max_links`` runs a clear error."""
    g = Graph(name, fabric=fabric)
    c = col
    for r in rows:
        if r[c["fabric"]] != fabric or r[c["a_site"]] != site or r[c["b_site"]] != site:
            continue
        if len(g.edges) >= max_links:
            raise BomError(f"the {fabric} fabric of site {site} has more than {max_links:,} cable runs: a drawing "
                           "that large is not readable", key="--max-links",
                           hint="Draw a smaller scenario (bom init --gpus N writes one), another --fabric, or "
                                "raise --max-links.")
        # Every text as the exports hold it (no control, no line break): a part number from an overlay
        # lands in a DOT tooltip, which Graphviz copies into its SVG as it is.
        t = export_text
        for side in ("a", "b"):
            g.devices.setdefault(t(r[c[f"{side}_device"]]), (t(r[c[f"{side}_role"]]), t(r[c[f"{side}_rack"]])))
        g.edges.append(Edge(t(r[c["a_device"]]), t(r[c["a_port"]]), t(r[c["b_device"]]), t(r[c["b_port"]]),
                            t(r[c["cable_id"]]), t(r[c["label"]]), t(r[c["medium"]]), t(r[c["cable_part"]])))
    if not g.edges:
        raise BomError(f"the plan has no {fabric} cable runs within site {site}", key="--fabric",
                       hint="bom cables lists every fabric and site of the plan.")
    return g


def _q(text: str) -> str:
    """A DOT string: quoted, with its quotes and backslashes escaped."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


#: Port cells in one row of a device's box; more stand in further rows (a 64-port leaf: eight rows).
DOT_PORTS_PER_ROW = 8

def _cells(ports: list[str], side: str) -> list[str]:
    """Rows of port cells (``side`` u: toward the layer above, d: below), each cell the edges' anchor."""
    return ["<TR>" + "".join(f'<TD PORT="{side}{i + k}">{escape(p)}</TD>'
                             for k, p in enumerate(ports[i:i + DOT_PORTS_PER_ROW])) + "</TR>"
            for i in range(0, len(ports), DOT_PORTS_PER_ROW)]


def _box(name: str, role: str, rack: str, up: list[str], down: list[str]) -> str:
    """A device as an HTML-like table: its ports toward the layer above, its name, its ports toward the layer
    below; a cable ends at its port's cell, so no port name stands on an edge (where they pile up)."""
    width = max(1, min(DOT_PORTS_PER_ROW, max(len(up), len(down))))
    second = f"{role}, {rack}" if rack else role
    title = f'<TR><TD COLSPAN="{width}"><B>{escape(name)}</B><BR/>{escape(second)}</TD></TR>'
    rows = "".join([*_cells(up, "u"), title, *_cells(down, "d")])
    return f'<<TABLE BORDER="1" CELLBORDER="0" CELLSPACING="0" CELLPADDING="2" STYLE="ROUNDED" BGCOLOR="white">' \
           f'{rows}</TABLE>>'


def write_dot(g: Graph) -> bytes:
    """Graphviz DOT: each layer a cluster of one rank (core, spine, leaf, then the rest), its devices in a
    cluster per rack; each device a box with its ports in cells (toward the layer above on top, below
    underneath), each cable run an edge from port cell to port cell."""
    layers = g.layers()
    row_of = {name: i for i, row in enumerate(layers) for name in row}
    ends: dict[str, dict[str, list[str]]] = {n: {"u": [], "d": []} for n in row_of}
    lines: list[tuple[str, str, str, str, Edge]] = []
    for e in g.edges:
        # The upper layer's end first: dot ranks an edge's tail above its head; a link within a layer
        # leaves both boxes from underneath.
        a, a_port, b, b_port = ((e.a, e.a_port, e.b, e.b_port) if row_of[e.a] <= row_of[e.b]
                                else (e.b, e.b_port, e.a, e.a_port))
        b_side = "u" if row_of[a] < row_of[b] else "d"
        ends[a]["d"].append(a_port)
        ends[b][b_side].append(b_port)
        lines.append((a, f'd{len(ends[a]["d"]) - 1}', b, f'{b_side}{len(ends[b][b_side]) - 1}', e))
    out = [f"graph {_q(g.name)} {{",
           # edges drawn first, under the boxes: a cable leaving a cell of a box's upper port rows is not drawn
           # across the port names below it
           "  graph [rankdir=TB, newrank=true, nodesep=0.2, ranksep=1.4, fontname=Helvetica, fontsize=12, "
           "labeljust=l, outputorder=edgesfirst];",
           "  node [shape=plaintext, fontname=Helvetica, fontsize=9];",
           "  edge [fontname=Helvetica, fontsize=7];"]
    for i, row in enumerate(layers):
        out += _layer(g, i, row, ends)
    for a, ap, b, bp, e in lines:
        colour = "#c55a11" if e.medium in COPPER else "#305496"
        out.append(f"  {_q(a)}:{ap}:s -- {_q(b)}:{bp}:{'n' if bp[0] == 'u' else 's'} "
                   f"[tooltip={_q(f'{e.cable_id} {e.label} {e.part}'.strip())}, color={_q(colour)}];")
    out.append("}")
    return ("\n".join(out) + "\n").encode()


def _layer(g: Graph, i: int, row: list[str], ends: dict[str, dict[str, list[str]]]) -> list[str]:
    """One layer's cluster, one rank, a cluster per rack inside it."""
    role = ", ".join(sorted({g.devices[n][0] for n in row}))
    out = [f"  subgraph cluster_layer{i} {{",
           f"    label={_q(f'{role}: {len(row):,}')}; style=rounded; color={_q('#a6a6a6')};"]
    racks: dict[str, list[str]] = {}
    for name in row:
        racks.setdefault(g.devices[name][1], []).append(name)
    for k, (rack, names) in enumerate(racks.items()):
        out.append(f"    subgraph cluster_layer{i}_rack{k} {{ label={_q(rack)}; style=dashed; color={_q('#d9d9d9')};")
        for name in names:
            role_, rack_ = g.devices[name]
            out.append(f"      {_q(name)} [label={_box(name, role_, rack_, ends[name]['u'], ends[name]['d'])}];")
        out.append("    }")
    out.append("    { rank=same; " + " ".join(_q(n) for n in row) + "; }")
    out.append("  }")
    return out


#: draw.io geometry: a device box and the gaps between boxes and rows [px].
BOX_W, BOX_H, GAP_X, GAP_Y = 150, 40, 30, 160


def write_drawio(g: Graph) -> bytes:
    """draw.io (diagrams.net) XML: the devices as boxes in rows by layer, each cable run an edge between
    them with its ports as the edge's text (the file draw.io opens as it is)."""
    cells = ['<mxCell id="0"/>', '<mxCell id="1" parent="0"/>']
    ids: dict[str, str] = {}
    layers = g.layers()
    widest = max(len(row) for row in layers)
    for y, row in enumerate(layers):
        offset = (widest - len(row)) * (BOX_W + GAP_X) / 2
        for x, name in enumerate(row):
            ids[name] = f"d{len(ids) + 1}"
            role, rack = g.devices[name]
            style = "rounded=1;whiteSpace=wrap;html=0;fontSize=10;" + (
                "fillColor=#dae8fc;" if g.row(role) < len(LAYERS) else "fillColor=#f5f5f5;")
            value = f"{name}&#10;{role}" + (f", {rack}" if rack else "")
            cells.append(f'<mxCell id="{ids[name]}" value={quoteattr(value).replace("&amp;#10;", "&#10;")} '
                         f'style="{style}" vertex="1" parent="1"><mxGeometry x="{offset + x * (BOX_W + GAP_X):g}" '
                         f'y="{y * (BOX_H + GAP_Y)}" width="{BOX_W}" height="{BOX_H}" as="geometry"/></mxCell>')
    for i, e in enumerate(g.edges, start=1):
        colour = "#c55a11" if e.medium in COPPER else "#305496"
        cells.append(f'<mxCell id="e{i}" value={quoteattr(f"{e.a_port} - {e.b_port}")} '
                     f'style="endArrow=none;strokeColor={colour};fontSize=7;" edge="1" parent="1" '
                     f'source="{ids[e.a]}" target="{ids[e.b]}"><mxGeometry relative="1" as="geometry"/></mxCell>')
    body = "\n        ".join(cells)
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<mxfile host="clusterbom">\n'
            f'  <diagram id="topology" name={quoteattr(g.name)}>\n'
            f'    <mxGraphModel dx="1200" dy="800" grid="1" gridSize="10" page="0">\n      <root>\n        {body}\n'
            f"      </root>\n    </mxGraphModel>\n  </diagram>\n</mxfile>\n").encode()


#: netlab: a node name is an identifier of at most 16 characters (letters, digits, underscores).
NETLAB_NAME = 16


def _ident(text: str, limit: int = NETLAB_NAME) -> str:
    out = "".join(ch if ch.isalnum() else "_" for ch in text)
    return (out if out[:1].isalpha() else f"n{out}")[:limit]


#: netlab's defaults (netsim/defaults/const.yml and addressing.yml, netlab 26.10): node ids up to 150; each
#: node's management address is its id + 100 in 192.168.121.0/24, its loopback and router id the id-th
#: address of 10.0.0.0/24.
NETLAB_MAX_ID, NETLAB_MGMT_START, NETLAB_SLASH24 = 150, 100, 254
#: Links with a host on them are LANs, each a /24 of 172.16.0.0/16: 256 of them; as /29s, 8,192 in the /16
#: and 131,072 in 172.16.0.0/12.
NETLAB_LANS, NETLAB_LANS_16, NETLAB_LANS_12 = 256, 8192, 131072
#: What a larger lab takes instead: management and loopbacks from a /16 (65,534 addresses).
NETLAB_SLASH16 = 65534


def _netlab_limits(nodes: int, host_links: int = 0) -> list[str]:
    """The settings a lab of ``nodes`` needs past netlab's defaults (none for a lab within them: its file
    stays as it was): the highest node id, /16 pools for the addresses netlab numbers by node id, and smaller
    LAN prefixes for more than 256 links with a Linux host on them (netlab makes each such link a LAN, a /24
    of 172.16.0.0/16 by default)."""
    if nodes + NETLAB_MGMT_START > NETLAB_SLASH16 or host_links > NETLAB_LANS_12:
        raise BomError(f"{nodes:,} devices and {host_links:,} host links are more than netlab's address pools "
                       "can number here", key="--max-links",
                       hint="Draw a smaller scenario (bom init --gpus N writes one) or another --fabric.")
    out = [f"defaults.const.MAX_NODE_ID: {nodes}"] if nodes > NETLAB_MAX_ID else []
    if nodes + NETLAB_MGMT_START > NETLAB_SLASH24:
        out.append("addressing.mgmt.ipv4: 192.168.0.0/16")
    if nodes > NETLAB_SLASH24:
        out += ["addressing.loopback.ipv4: 10.0.0.0/16", "addressing.router_id.ipv4: 10.0.0.0/16"]
    if host_links > NETLAB_LANS:
        out.append("addressing.lan.prefix: 29")
    if host_links > NETLAB_LANS_16:
        out.append("addressing.lan.ipv4: 172.16.0.0/12")
    return out


def write_netlab(g: Graph) -> bytes:
    """A netlab topology (``netlab create`` makes a containerlab lab of it): switches as FRR, everything else
    as Linux, each cable run a link between ``ethN`` interfaces numbered per device in plan order. netlab
    names are short identifiers, so each node's plan name and each link's cable id and ports ride along
    (a comment, the link's ``name``). A lab past netlab's defaults (150 nodes) carries the settings it
    needs (:func:`_netlab_limits`)."""
    short: dict[str, str] = {}
    count: dict[str, int] = {}
    for row in g.layers():
        for name in row:
            role = _ident(g.devices[name][0], NETLAB_NAME - 4)
            count[role] = count.get(role, 0) + 1
            short[name] = f"{role}{count[role]}"
    switch = {name for name in short
              if (role := g.devices[name][0]) in LAYERS or role.endswith(("-leaf", "-spine", "-core"))}
    host_links = sum(1 for e in g.edges if e.a not in switch or e.b not in switch)
    lines = [f"# {g.name}: written by clusterbom (bom topology); netlab create makes a containerlab lab of it.",
             f"name: {_ident(g.name)}", "provider: clab", "defaults.device: linux",
             *_netlab_limits(len(short), host_links), "nodes:"]
    for name, ident in short.items():
        lines.append(f"  {ident}: {{device: {'frr' if name in switch else 'linux'}}}   # {name}")
    lines.append("links:")
    used: dict[str, int] = {}
    for e in g.edges:
        ends = []
        for dev in (e.a, e.b):
            used[dev] = used.get(dev, 0) + 1
            ends.append(f"  {short[dev]}: {{ifname: eth{used[dev]}}}")
        # a YAML double-quoted string: its backslash escapes are read, so a backslash is written as one
        text = f"{e.cable_id} {e.a}:{e.a_port} - {e.b}:{e.b_port}".replace("\\", "\\\\").replace('"', "'")
        lines += [f"- {ends[0].strip()}", ends[1], f'  name: "{text}"']
    return ("\n".join(lines) + "\n").encode()
