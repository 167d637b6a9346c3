"""The cluster diagram as a view model: sites, fabrics, links and tier boundaries with their counts.

Geometry only; ``documents.diagram_svg`` draws its shapes as inline SVG in ``templates/report.html.j2``.
Every number on it is read from the typed model and its totals and carries the path of the same number in
the output JSON (``data-json``), so a test can check the picture against the JSON. Fabrics are drawn in a
loop over ``fabrics``: one column each, whatever fabrics the model holds.

Layout, top to bottom: the sites and every cabled site pair (more than one site), the DCI
routers in the compute column, the scale-across boundary, one column per fabric (its switch
layers, each hop an edge labelled with its links by medium), the scale-out boundary, the nodes
and scale-up domains, the legend. Tier labels stand in a left gutter that no line enters.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from bom.costing.report import Report
from bom.model.fabrics import DciFabric, Fabric
from bom.model.hops import HopKind
from bom.model.model import Model
from bom.model.totals import ScaleAcrossTotals, TierTotals, Totals
from bom.roles import FabricRole, Layer, Tier

WIDTH = 1240
GUTTER = 190           # tier labels live left of this; lines start right of it
CHAR_W = 6.6           # width of one character at 11-12 px (Helvetica-like), for layout only
LINE_H = 15
LAYERS = (Layer.CORE, Layer.SPINE, Layer.LEAF)
COPPER = ("passive-copper", "active-copper")


@dataclass
class Text:
    x: float
    y: float
    text: str
    size: int = 12
    anchor: str = "start"          # start | middle | end
    weight: str = "normal"
    fill: str = "#1d2433"
    path: str = ""                 # JSON path of the number shown, e.g. fabrics.compute.links.node-leaf
    value: int | float | None = None
    halo: bool = False             # a white plate behind it (labels on edges)


@dataclass
class Box:
    x: float
    y: float
    w: float
    h: float
    kind: str                      # site | layer | nodes | router | legend
    fill: str = "#dbe4f3"


@dataclass
class Wire:
    """A straight line or, with ``cy``, a quadratic arc (site pairs)."""

    x1: float
    y1: float
    x2: float
    y2: float
    medium: str                    # copper | optical | mixed | coherent
    cy: float | None = None
    dashed: bool = False
    path: str = ""                 # JSON path of the links it stands for, e.g. fabrics.oob.links.node-leaf


@dataclass
class Boundary:
    y: float
    x1: float
    x2: float
    tier: str                      # the tier above the line
    links: int
    modules: int
    fibre_runs: int


@dataclass
class Diagram:
    width: int
    height: float
    boxes: list[Box] = field(default_factory=list)
    wires: list[Wire] = field(default_factory=list)
    texts: list[Text] = field(default_factory=list)
    boundaries: list[Boundary] = field(default_factory=list)
    across: tuple[float, float] | None = None   # y of the sites' row bottom and of its boundary


COLOURS = {"copper": "#c26a00", "optical": "#2f6fb5", "mixed": "#6b4fa0", "coherent": "#8e2c7e"}


def n(v: float) -> str:
    """Thousands separators, no ".0": 4608 -> "4,608", 2.5 -> "2.5"."""
    return f"{v:,.0f}" if float(v).is_integer() else f"{v:,.2f}".rstrip("0").rstrip(".")


def plural(count: float, word: str) -> str:
    return f"{n(count)} {word}" if count == 1 else f"{n(count)} {word}s"


def _media(f: Fabric | DciFabric, name: str, hop: str) -> tuple[str, list[tuple[str, str, Any]]]:
    """The hop's line class and its label rows, links by medium. A fabric that counts its media
    for the whole fabric only (the OOB's patch cords) gives its copper and optical totals, which
    are the hop's when it is the fabric's only hop with links or when the fabric is all one kind."""
    media = {m: v for m, v in f.media_by_hop().get(hop, {}).items() if v}
    if media:
        return _klass(media), [(f"{n(v)} {m}", f"fabrics.{name}.media.{hop}.{m}", v) for m, v in media.items()]
    copper, optical = f.copper_links, f.optical_links
    if [h for h, links in f.links_by_hop().items() if links] == [hop] or not (copper and optical):
        if copper and not optical:
            return "copper", [(f"{n(copper)} copper", f"fabrics.{name}.copper_links", copper)]
        if optical and not copper:
            return "optical", [(f"{n(optical)} optical", f"fabrics.{name}.optical_links", optical)]
    return "mixed", []


def _klass(media: dict[str, int]) -> str:
    kinds = {"copper" if m in COPPER else "coherent" if m == "coherent" else "optical" for m in media}
    return kinds.pop() if len(kinds) == 1 else "mixed"


def diagram(r: Report) -> Diagram:
    m = r.model
    d = Diagram(WIDTH, 0)
    y = 16.0
    if m.cluster.site_count > 1 and m.dci is not None:
        y = _sites(d, m, r.totals.scale_across, y)
    y = _fabrics(d, m, y)
    y = _nodes(d, m, r.totals, y)
    d.height = _legend(d, y + 24)
    return d


def _lines(d: Diagram, x: float, y: float, rows: list[tuple[str, str, Any]], **kw: Any) -> float:
    """Stacked text lines from ``y`` (baselines); each row is (text, json path, value)."""
    for text, path, value in rows:
        d.texts.append(Text(x, y, text, path=path, value=value, **kw))
        y += LINE_H
    return y


def _site_gpus(m: Model) -> list[int]:
    c = m.cluster
    return [s.gpus for s in m.site_sizes] or [c.gpus // c.site_count] * c.site_count


def _runs(sizes: list[int]) -> list[tuple[int, int, int]]:
    """(first site, last site, GPUs of each) for runs of equal sites: the sizes told in words."""
    runs: list[tuple[int, int, int]] = []
    for i, g in enumerate(sizes):
        if runs and runs[-1][2] == g:
            runs[-1] = (runs[-1][0], i + 1, g)
        else:
            runs.append((i + 1, i + 1, g))
    return runs


def _sites(d: Diagram, m: Model, across: ScaleAcrossTotals, y: float) -> float:
    dci, fabric = across.dci, m.dci_fabric
    assert dci is not None and fabric is not None
    waves = fabric.links_by_hop()[HopKind.SITE_SITE]
    _lines(d, GUTTER + 10, y + 12, [
        (f"each cabled pair of sites: {n(dci.wavelengths_per_pair)} wavelengths of "
         f"{dci.coherent.standard.upper().replace('OPENZR+', 'OpenZR+')} over {n(across.distance_km)} km, "
         f"{plural(dci.fibre_pairs_per_pair, 'fibre pair')}", "tiers.scale-across.wavelengths_per_pair",
         dci.wavelengths_per_pair),
        (f"{plural(dci.pairs, 'cabled site pair')} ({_topology(dci.topology)})",
         "tiers.scale-across.site_pairs", dci.pairs),
        (f"{plural(waves, 'wavelength')} in all, "
         f"{plural(across.coherent_modules, 'coherent module')}", "fabrics.dci.links.site-site", waves)], size=12)
    sizes = _site_gpus(m)
    top = y + LINE_H * 3 + 16
    row_bottom = (_site_row if len(sizes) <= ROW_SITES else _site_ring)(d, sizes, list(dci.site_pairs), top)
    # The DCI routers stand above the fabric their client links go into (the compute fabric, or the
    # in-band or storage fabric's border leaves), above the boundary those links cross.
    columns = list(m.fabrics)
    attach = m.dci.attach if m.dci is not None else FabricRole.COMPUTE
    bx, box_w = _column(len(columns), columns.index(attach) if attach in columns else 0)
    ry = row_bottom + 16
    rows = [("DCI routers (all sites)", "", None),
            (f"{n(fabric.routers)} x {fabric.switch_id}", "fabrics.dci.routers", fabric.routers)]
    border = dci.border
    if border is not None:   # no fabric takes the client links: the DCI's own border leaves stand with the routers
        links = fabric.links_by_hop()[HopKind.FABRIC_DCI]
        rows += [(f"and {n(dci.border_leaves)} border leaves x {border.switch.id}", "fabrics.dci.border_leaves",
                  dci.border_leaves),
                 (f"{n(links)} router links fabric-dci to them", "fabrics.dci.links.fabric-dci", links)]
    box_h = 40 + (2 * LINE_H if border is not None else 0)
    d.boxes.append(Box(bx, ry, box_w, box_h, Layer.ROUTER, "#eadcef"))
    _lines(d, bx + 8, ry + 16, rows, size=11)
    bottom = ry + box_h + 40
    d.across = (ry + box_h, bottom)
    d.boundaries.append(Boundary(bottom, GUTTER, WIDTH - 10, Tier.SCALE_ACROSS, across.links, across.modules,
                                 across.fibre_runs))
    _tier_label(d, bottom, Tier.SCALE_ACROSS, Tier.SCALE_OUT, across, "tiers.scale-across")
    return bottom + 30


def _topology(name: str) -> str:
    """The topology in words: a hub names its hub (every site is cabled to site 1)."""
    return "hub: site 1" if name == "hub" else name


#: Up to this many sites stand in a row of boxes; more stand round a ring as numbered dots.
ROW_SITES = 6


def _site_row(d: Diagram, sizes: list[int], pairs: list[tuple[int, int]], top: float) -> float:
    """Boxes in a row; neighbours joined by a line, other pairs by arcs above, each arc ending
    at its own point on the box so that they can be told apart."""
    k = len(sizes)
    arc_room = 30 + 16 * max(0, k - 2)
    box_y, span = top + arc_room, WIDTH - GUTTER - 20
    w = min(200.0, span / k - 24)
    centre = {i + 1: GUTTER + 10 + (span / k) * i + span / k / 2 for i in range(k)}
    for i, gpus in enumerate(sizes):
        x = centre[i + 1] - w / 2
        d.boxes.append(Box(x, box_y, w, 44, "site", "#f6f8fb"))
        _lines(d, x + w / 2, box_y + 18, [(f"site {i + 1}", "", None),
                                          (f"{n(gpus)} GPUs", f"site_sizes.{i}.gpus", gpus)], size=12, anchor="middle")
    for i, (a, b) in enumerate(pairs):
        a, b, path = min(a, b), max(a, b), f"tiers.scale-across.pairs.{i}"
        if b - a == 1:
            d.wires.append(Wire(centre[a] + w / 2, box_y + 22, centre[b] - w / 2, box_y + 22, "coherent", path=path))
            continue
        # Longer arcs rise higher and end nearer the boxes' centres, so arcs from one site nest.
        reach = (b - a - 1) / max(1, k - 2)              # 0 for the shortest arc, 1 for the longest
        off = 10 + (w / 2 - 16) * (1 - reach)
        d.wires.append(Wire(centre[a] + off, box_y, centre[b] - off, box_y, "coherent",
                            cy=box_y - 24 - 32 * (b - a - 1), path=path))
    return box_y + 44


def _site_ring(d: Diagram, sizes: list[int], pairs: list[tuple[int, int]], top: float) -> float:
    """Numbered dots round an ellipse, every cabled pair a chord; the sizes told in a line."""
    k = len(sizes)
    rx, ry = 300.0, 120.0
    cx, cy = GUTTER + 10 + rx + 60, top + ry + 24
    at = {i + 1: (cx + rx * math.cos(2 * math.pi * i / k - math.pi / 2),
                  cy + ry * math.sin(2 * math.pi * i / k - math.pi / 2)) for i in range(k)}
    for i, (a, b) in enumerate(pairs):
        (xa, ya), (xb, yb) = at[a], at[b]
        d.wires.append(Wire(xa, ya, xb, yb, "coherent", path=f"tiers.scale-across.pairs.{i}"))
    for s, (x, y) in at.items():
        d.boxes.append(Box(x - 5, y - 5, 10, 10, "site-dot", "#8e2c7e"))
        dx, dy = (x - cx) / rx, (y - cy) / ry
        anchor = "start" if dx > 0.3 else "end" if dx < -0.3 else "middle"
        d.texts.append(Text(x + 12 * dx, y + 14 * dy + 4, str(s), size=11, anchor=anchor))
    words = [(f"site {a}: " if a == b else f"sites {a}-{b}: each ") + f"{n(g)} GPUs" for a, b, g in _runs(sizes)]
    x = cx + rx + 90
    _lines(d, x, top + 30, [(f"{k} sites, numbered clockwise from the top", "sites", k)]
           + [(w_, f"site_sizes.{a - 1}.gpus", g) for w_, (a, _b, g) in zip(words, _runs(sizes), strict=True)][:14],
           size=12)
    return cy + ry + 24


def _tier_label(d: Diagram, y: float, above: str, below: str, t: TierTotals, path: str) -> None:
    x = GUTTER - 10
    _lines(d, x, y - 2 * LINE_H + 4, [(f"{above} ↑", "", None)], size=12, anchor="end", weight="bold",
           fill="#c0392b")
    _lines(d, x, y + 4, [(f"{n(t.links)} links", f"{path}.links", t.links),
                         (f"{n(t.modules)} modules", f"{path}.modules", t.modules),
                         (f"{n(t.fibre_runs)} fibre runs", f"{path}.fibre_runs", t.fibre_runs),
                         (f"{below} ↓", "", None)], size=11, anchor="end", fill="#c0392b")


def _span(columns: int) -> float:
    """Width of the fabric columns and the nodes under them."""
    return max(760.0, min(330.0, (WIDTH - GUTTER - 10) / max(1, columns)) * columns)


def _column(columns: int, k: int) -> tuple[float, float]:
    """Left edge and width of the boxes in fabric column ``k`` of ``columns``."""
    col = min((WIDTH - GUTTER - 10) / max(1, columns), 330.0)
    return GUTTER + col * k + col / 2 - col * 0.35, min(190.0, col * 0.62)


def _fabrics(d: Diagram, m: Model, y: float) -> float:
    fabrics, sites = m.fabrics, m.cluster.site_count
    rows = [layer for layer in LAYERS if any(f.switches(layer) for f in fabrics.values())]
    box_h, gap = (54.0 if sites > 1 else 40.0), 110.0
    where = "all sites" if sites > 1 else "one site"
    heading = y + 12
    extra = LINE_H * max((len(_unknown_hops(f, rows)) for f in fabrics.values()), default=0)
    layer_y: dict[str, float] = {layer: heading + 24 + extra + i * (box_h + gap) for i, layer in enumerate(rows)}
    bottom = heading + 24 + extra + len(rows) * (box_h + gap)
    for k, (name, f) in enumerate(fabrics.items()):
        bx, box_w = _column(len(fabrics), k)
        ex = bx + 24
        d.texts.append(Text(ex + 8, heading, f"{name} fabric ({where})", size=13, weight="bold"))
        present = [layer for layer in rows if f.switches(layer)]
        if d.across is not None and m.dci is not None and name == m.dci.attach and present:
            # Into the fabric's column: its top layer's free cages, or its border leaves (said so).
            _client_links(d, m, ex, layer_y[present[0]], "" if name == FabricRole.COMPUTE else " to border leaves")
        for layer in present:
            count = f.switches(layer)
            part = f.switch_id if layer == Layer.LEAF else f.spine_switch_id or f.switch_id
            by = layer_y[layer]
            d.boxes.append(Box(bx, by, box_w, box_h, "layer"))
            rows_ = [(f"{layer} switches", "", None),
                     (f"{n(count)} x {part}", f"fabrics.{name}.switches.{layer}", count)]
            if sites > 1 and f.site_switches():
                rows_.append(_per_site(f, layer, name))
            _lines(d, bx + 8, by + 16, rows_, size=11)
        others = []
        for hop, links in f.links_by_hop().items():
            lower, _, upper = hop.partition("-")
            if not links:
                continue
            if upper not in present or not (lower in present or lower == Layer.NODE):
                words = ", ".join(t.split(" ", 1)[1] for t, _, _ in _media(f, name, hop)[1])
                others.append((f"{plural(links, 'link')} {hop}" + (f" ({words})" if words else ""),
                               f"fabrics.{name}.links.{hop}", links))
                continue
            y1 = layer_y[upper] + box_h
            y2 = layer_y[lower] if lower in present else bottom
            # The hop to the nodes crosses the scale-out boundary (40 px above them): label above it.
            room = y2 - y1 - (48 if lower == Layer.NODE else 0)
            klass, media = _media(f, name, hop)
            d.wires.append(Wire(ex, y1, ex, y2, klass, path=f"fabrics.{name}.links.{hop}"))
            label = [(f"{plural(links, 'link')} {hop}", f"fabrics.{name}.links.{hop}", links), *media]
            _lines(d, ex + 8, y1 + (room - LINE_H * len(label)) / 2 + 11, label, size=11, halo=True)
        if others:  # hops between layers this drawing does not know: told under the heading
            _lines(d, ex + 8, heading + LINE_H, others, size=11)
    return bottom


def _unknown_hops(f: Fabric, rows: list[Layer]) -> list[HopKind]:
    """Hops with links whose ends are not layers drawn (told in words under the heading)."""
    present = [layer for layer in rows if f.switches(layer)]
    out = []
    for hop, links in f.links_by_hop().items():
        lower, _, upper = hop.partition("-")
        if links and (upper not in present or not (lower in present or lower == Layer.NODE)):
            out.append(hop)
    return out


def _per_site(f: Fabric, layer: Layer, name: str) -> tuple[str, str, Any]:
    """ "each site: 32" when the sites are alike, else the range "per site: 28 to 62"."""
    counts = sorted({s.layer(layer) for s in f.site_switches()})
    if len(counts) == 1:
        return f"each site: {n(counts[0])}", f"fabrics.{name}.site_switches.0.{layer}", counts[0]
    return f"per site: {n(counts[0])} to {n(counts[-1])}", "", None


def _client_links(d: Diagram, m: Model, x: float, y2: float, where: str = "") -> None:
    """The DCI routers' client links down into the top layer of the compute fabric, or to the border
    leaves of the in-band or storage fabric (``where`` says so)."""
    dci = m.dci_fabric
    assert d.across is not None and dci is not None
    links = dci.links_by_hop().get(HopKind.FABRIC_DCI, 0)
    if not links:
        return
    klass, media = _media(dci, FabricRole.DCI, HopKind.FABRIC_DCI)
    y1, boundary = d.across
    d.wires.append(Wire(x, y1, x, y2, klass, path="fabrics.dci.links.fabric-dci"))
    label = [(f"{n(links)} router links fabric-dci{where}", "fabrics.dci.links.fabric-dci", links), *media]
    # Between the sites' row and the boundary: there is room for two lines.
    _lines(d, x + 8, y1 + 14, label[:2], size=11, halo=True)


def _nodes(d: Diagram, m: Model, t: Totals, y: float) -> float:
    out, up, c = t.scale_out, t.scale_up, m.cluster
    right = GUTTER + _span(len(m.fabrics))
    d.boundaries.append(Boundary(y - 40, GUTTER, right, Tier.SCALE_OUT, out.links, out.modules, out.fibre_runs))
    _tier_label(d, y - 40, Tier.SCALE_OUT, Tier.SCALE_UP, out, "tiers.scale-out")
    d.boxes.append(Box(GUTTER, y, right - GUTTER, 62, "nodes", "#dce8d5"))
    sites = "" if c.site_count == 1 else f" over {n(c.site_count)} sites"
    _lines(d, GUTTER + 12, y + 20, [
        (f"{n(c.nodes)} nodes, {n(c.gpus)} GPUs ({m.platform.id}){sites}", "nodes", c.nodes),
        (f"{n(m.scale_up.domains)} scale-up domains of {n(m.platform.gpus_per_domain)} GPUs: "
         f"{n(up.links)} links inside them, {'all' if up.copper_links == up.links else n(up.copper_links)} copper, "
         f"{plural(up.modules, 'module')}", "tiers.scale-up.links", up.links)], size=12)
    return y + 62


def _legend(d: Diagram, y: float) -> float:
    x: float = GUTTER
    d.texts.append(Text(x, y + 4, "legend:", size=11, weight="bold"))
    x += 60
    drawn = {w.medium for w in d.wires}
    for kind, label in (("copper", "copper"), ("optical", "optical (fibre)"), ("mixed", "copper and optical"),
                        ("coherent", "coherent wavelengths")):
        if kind not in drawn:
            continue
        d.wires.append(Wire(x, y, x + 30, y, kind))
        d.texts.append(Text(x + 36, y + 4, label, size=11))
        x += 36 + len(label) * CHAR_W + 26
    d.wires.append(Wire(x, y, x + 30, y, "boundary", dashed=True))
    d.texts.append(Text(x + 36, y + 4, "tier boundary (the counts at the left cross it)", size=11))
    return y + 24
