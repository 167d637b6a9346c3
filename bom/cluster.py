"""The cluster: GPUs -> nodes -> scale-up domains -> racks -> sites, and the scale-up tier.

Rack-scale systems are bought whole: a GB200 NVL72 is 18 compute trays, so a GPU count is
rounded up to whole systems. Sites are buildings, each its own cluster; nodes are shared
out as evenly as whole nodes allow.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bom.catalog import Platform
from bom.errors import LimitError
from bom.floorplan import FloorPlan


@dataclass(frozen=True)
class Site:
    """One building's share of the cluster (sites of equal shape are counted once)."""

    count: int      # buildings of this shape
    nodes: int      # nodes in each


@dataclass(frozen=True)
class Cluster:
    platform: Platform
    requested_gpus: int
    nodes: int
    floor: FloorPlan
    sites: tuple[Site, ...]

    @property
    def gpus(self) -> int:
        return self.nodes * self.platform.gpus_per_node

    @property
    def domains(self) -> int:
        return math.ceil(self.gpus / self.platform.gpus_per_domain)

    @property
    def systems(self) -> int:
        return math.ceil(self.nodes / self.platform.nodes_per_system)

    @property
    def racks(self) -> int:
        return sum(s.count * math.ceil(s.nodes / self.floor.nodes_per_rack) for s in self.sites)

    def rounding(self) -> dict[str, object]:
        """GPUs asked for, GPUs built, and why they differ (whole nodes, whole rack systems)."""
        p = self.platform
        if self.gpus == self.requested_gpus:
            why = "as requested"
        elif p.nodes_per_system > 1:
            why = (f"rounded up to whole {p.id} systems of {p.gpus_per_system} GPUs "
                   f"({p.nodes_per_system} nodes of {p.gpus_per_node})")
        else:
            why = f"rounded up to whole {p.id} nodes of {p.gpus_per_node} GPUs"
        return {"requested": self.requested_gpus, "built": self.gpus, "extra": self.gpus - self.requested_gpus,
                "why": why}

    @property
    def site_count(self) -> int:
        return sum(s.count for s in self.sites)


def build_cluster(platform: Platform, floor: FloorPlan, *, gpus: int | None = None,
                  nodes: int | None = None, sites: int = 1) -> Cluster:
    """Whole nodes (and whole rack systems) for ``gpus`` or ``nodes``, shared over ``sites``."""
    if nodes is None:
        if gpus is None or gpus < 1:
            raise LimitError("a cluster needs at least one GPU", key="gpus")
        nodes = math.ceil(gpus / platform.gpus_per_node)
    requested = gpus if gpus is not None else nodes * platform.gpus_per_node
    per_system = platform.nodes_per_system
    nodes = math.ceil(nodes / per_system) * per_system
    if sites > 1:
        systems = nodes // per_system
        if systems < sites:
            raise LimitError(f"{systems} systems cannot fill {sites} sites", key="sites.count",
                             hint="Use fewer sites or more GPUs.")
        q, r = divmod(systems, sites)
        shapes = tuple(Site(n, s * per_system) for s, n in ((q + 1, r), (q, sites - r)) if n)
    else:
        shapes = (Site(1, nodes),)
    return Cluster(platform, requested, nodes, floor, shapes)


@dataclass(frozen=True)
class ScaleUp:
    """The links inside every scale-up domain: electrical, never optics."""

    domains: int
    gpus_per_domain: int
    links: int            # GPU-to-NVSwitch links
    cables: int           # rack-scale copper spine cables (0 on a baseboard)
    switch_chips: int
    switch_trays: int

    def to_json(self) -> dict[str, object]:
        return {"links": self.links, "copper_links": self.links, "modules": 0, "fibre_runs": 0,
                "fibre_strands": 0,
                "cables": self.cables, "domains": self.domains, "gpus_per_domain": self.gpus_per_domain,
                "switch_chips": self.switch_chips, "switch_trays": self.switch_trays,
                "copper_share": 1.0 if self.links else 0.0}


def scale_up(cluster: Cluster) -> ScaleUp:
    p = cluster.platform
    su = p.scale_up
    full, rest = divmod(cluster.gpus, p.gpus_per_domain)
    domains = full + (1 if rest else 0)
    return ScaleUp(domains, p.gpus_per_domain, cluster.gpus * su.links_per_gpu,
                   domains * su.copper_cables_per_domain, domains * su.switch_chips_per_domain,
                   domains * su.switch_trays_per_domain)
