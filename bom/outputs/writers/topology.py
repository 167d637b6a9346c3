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
from xml.sax.saxutils import quoteattr

from bom.errors import BomError
from bom.model.records import PlanRow
from bom.outputs.writers.common import export_text
from bom.roles import Layer

#: Rows from top to bottom; any other role stands in the last row.
LAYERS = ("dci-router", Layer.CORE, Layer.SPINE, Layer.LEAF)
COPPER = ("passive-copper", "active-copper")


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

    def layers(self) -> list[list[str]]:
        """The devices in rows, top down: each of LAYERS, then the rest; sorted by name in a row."""
        rows: dict[int, list[str]] = {}
        for name, (role, _) in self.devices.items():
            rows.setdefault(LAYERS.index(role) if role in LAYERS else len(LAYERS), []).append(name)
        return [sorted(rows[k]) for k in sorted(rows)]


def topology_graph(rows: Iterable[PlanRow], col: dict[str, int], name: str, site: str, fabric: str,
                   max_links: int) -> Graph:
    """The rows of ``fabric`` with both ends in ``site`` as a graph; past ``max_links`` runs a clear error."""
    g = Graph(name)
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


def write_dot(g: Graph) -> bytes:
    """Graphviz DOT: one node per device (rows by layer), one edge per cable run with the ports at its ends."""
    out = [f"graph {_q(g.name)} {{",
           "  graph [rankdir=TB, nodesep=0.3, ranksep=1.2, fontname=Helvetica];",
           "  node [shape=box, style=rounded, fontname=Helvetica, fontsize=10];",
           "  edge [fontname=Helvetica, fontsize=7, labelfontsize=7];"]
    for i, row in enumerate(g.layers()):
        out.append(f"  subgraph layer{i} {{ rank=same;")
        for name in row:
            role, rack = g.devices[name]
            second = f"{role}, {rack}" if rack else role
            label = _q(name)[:-1] + "\\n" + _q(second)[1:]    # DOT's line break inside the label
            out.append(f"    {_q(name)} [label={label}];")
        out.append("  }")
    row_of = {name: i for i, row in enumerate(g.layers()) for name in row}
    for e in g.edges:
        colour = "#c55a11" if e.medium in COPPER else "#305496"
        # The upper layer's end first: dot ranks an edge's tail above its head.
        a, a_port, b, b_port = ((e.a, e.a_port, e.b, e.b_port) if row_of[e.a] <= row_of[e.b]
                                else (e.b, e.b_port, e.a, e.a_port))
        out.append(f"  {_q(a)} -- {_q(b)} [taillabel={_q(a_port)}, headlabel={_q(b_port)}, "
                   f"tooltip={_q(f'{e.cable_id} {e.label} {e.part}'.strip())}, color={_q(colour)}];")
    out.append("}")
    return ("\n".join(out) + "\n").encode()


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
                "fillColor=#dae8fc;" if role in LAYERS else "fillColor=#f5f5f5;")
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
#: What a larger lab takes instead: management and loopbacks from a /16 (65,534 addresses).
NETLAB_SLASH16 = 65534


def _netlab_limits(nodes: int) -> list[str]:
    """The settings a lab of ``nodes`` needs past netlab's defaults (none for a lab within them: its file
    stays as it was): the highest node id, and /16 pools for the addresses netlab numbers by node id."""
    if nodes + NETLAB_MGMT_START > NETLAB_SLASH16:
        raise BomError(f"{nodes:,} devices are more than netlab's management network can number (a /16 from "
                       f"address {NETLAB_MGMT_START})", key="--max-links",
                       hint="Draw a smaller scenario (bom init --gpus N writes one) or another --fabric.")
    out = [f"defaults.const.MAX_NODE_ID: {nodes}"] if nodes > NETLAB_MAX_ID else []
    if nodes + NETLAB_MGMT_START > NETLAB_SLASH24:
        out.append("addressing.mgmt.ipv4: 192.168.0.0/16")
    if nodes > NETLAB_SLASH24:
        out += ["addressing.loopback.ipv4: 10.0.0.0/16", "addressing.router_id.ipv4: 10.0.0.0/16"]
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
    lines = [f"# {g.name}: written by clusterbom (bom topology); netlab create makes a containerlab lab of it.",
             f"name: {_ident(g.name)}", "provider: clab", "defaults.device: linux", *_netlab_limits(len(short)),
             "nodes:"]
    for name, ident in short.items():
        role = g.devices[name][0]
        switch = role in LAYERS or role.endswith(("-leaf", "-spine", "-core"))
        lines.append(f"  {ident}: {{device: {'frr' if switch else 'linux'}}}   # {name}")
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
