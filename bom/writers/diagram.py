"""The cluster diagram as a view model: boxes, links and tier boundaries with their counts.

Geometry only; ``templates/report.html.j2`` draws it as inline SVG. Every number on it comes
from the model's JSON, so the picture and the summary cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bom.report import Report

WIDTH = 1100
SITE_W = 440
LAYER_H = 70


@dataclass
class Box:
    x: float
    y: float
    w: float
    h: float
    title: str
    detail: str
    kind: str            # domain | leaf | spine | core | router | site


@dataclass
class Boundary:
    y: float
    x1: float
    x2: float
    tier: str            # the tier above the line
    label: str
    links: int
    modules: int
    fibre_runs: int


@dataclass
class Diagram:
    width: int
    height: int
    boxes: list[Box] = field(default_factory=list)
    wires: list[tuple[float, float, float, float, str]] = field(default_factory=list)
    boundaries: list[Boundary] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def diagram(r: Report) -> Diagram:
    j = r.model.to_json()
    tiers = j["tiers"]
    compute = j["fabrics"]["compute"]
    sites = j["sites"]
    drawn = min(sites, 2)
    layers = [("core", compute["switches"]["core"]), ("spine", compute["switches"]["spine"]),
              ("leaf", compute["switches"]["leaf"])]
    layers = [(k, n) for k, n in layers if n]
    top = 150 if sites > 1 else 40
    d = Diagram(WIDTH, top + (len(layers) + 1) * LAYER_H * 1.6 + 90)
    gap = (WIDTH - drawn * SITE_W) / (drawn + 1)
    per_site = max(1, sites)
    for s in range(drawn):
        x0 = gap + s * (SITE_W + gap)
        label = f"site {s + 1}" if sites <= 2 else (f"site 1 of {sites}" if s == 0 else f"sites 2-{sites}")
        d.boxes.append(Box(x0 - 10, top - 10, SITE_W + 20, d.height - top - 20, label, "", "site"))
        y = top + 10
        prev = None
        if r.model.dci is not None:
            dci = r.model.dci
            router = Box(x0 + 110, 20, SITE_W - 220, 50, "DCI routers",
                         f"{dci.routers // dci.sites:,} x {dci.router.id}", "router")
            d.boxes.append(router)
            d.wires.append((router.x + router.w / 2, router.y + router.h, router.x + router.w / 2, top + 10,
                            "scale-across"))
        for kind, n in layers:
            share = n // per_site
            box = Box(x0 + 60, y, SITE_W - 120, LAYER_H * 0.7, f"{kind} switches",
                      f"{share:,} x {compute['switch'] if kind == 'leaf' else compute['spine_switch']}", kind)
            d.boxes.append(box)
            if prev is not None:
                d.wires.append((box.x + box.w / 2, prev.y + prev.h, box.x + box.w / 2, box.y, "scale-out"))
            prev, y = box, y + LAYER_H * 1.6
        domains = j["domains"] // per_site
        dom = Box(x0, y + LAYER_H * 0.6, SITE_W, LAYER_H * 0.8, "scale-up domains",
                  f"{domains:,} x {r.model.platform.gpus_per_domain} GPUs ({r.model.platform.id})", "domain")
        d.boxes.append(dom)
        if prev is not None:
            d.wires.append((dom.x + dom.w / 2, prev.y + prev.h, dom.x + dom.w / 2, dom.y, "scale-out"))
        boundary_y = dom.y - LAYER_H * 0.3
    so, su, sa = tiers["scale-out"], tiers["scale-up"], tiers["scale-across"]
    d.boundaries.append(Boundary(boundary_y, 10, WIDTH - 10, "scale-out",
                                 "scale-up | scale-out (all scale-out fabrics)", so["links"], so["modules"],
                                 so["fibre_runs"]))
    d.notes.append(f"inside the domains (scale-up): {su['links']:,} NVLink links, all copper, 0 modules")
    if sites > 1:
        d.boundaries.append(Boundary(top - 35, 10, WIDTH - 10, "scale-across",
                                     f"scale-out | scale-across: {sa['wavelengths']:,} wavelengths of "
                                     f"{sa['standard']} over {sa['distance_km']:g} km, "
                                     f"{sa['fibre_pairs']:,} fibre pairs",
                                     sa["links"], sa["modules"], sa["fibre_runs"]))
        if drawn == 2:
            d.wires.append((gap + SITE_W - 110, 45, gap * 2 + SITE_W + 110, 45, "scale-across"))
    others = [f"{k}: {f['switches']['leaf']:,} leaf / {f['switches']['spine']:,} spine, "
              f"{sum(f['links'].values()):,} links" for k, f in j["fabrics"].items() if k not in ("compute", "dci")]
    d.notes += others
    return d
