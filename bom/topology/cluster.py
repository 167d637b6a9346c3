"""The cluster: GPUs -> nodes -> scale-up domains -> racks -> sites, and the scale-up tier.

Rack-scale systems are bought whole: a GB200 NVL72 is 18 compute trays, so a GPU count is
rounded up to whole systems. Sites are buildings, each its own cluster; nodes are shared
out as evenly as whole nodes allow.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bom.catalog.rows import Platform
from bom.errors import LimitError
from bom.topology.geometry import FloorPlan
from bom.topology.scaleup import ScaleUp
from bom.topology.scaleup import scale_up as _scale_up

__all__ = ["Cluster", "ScaleUp", "Site", "build_cluster", "scale_up", "site_systems"]


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
    site_nodes: tuple[int, ...] = ()   # nodes of each site, site 1 first

    @property
    def nodes_by_site(self) -> tuple[int, ...]:
        return self.site_nodes or tuple(s.nodes for s in self.sites for _ in range(s.count))

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
        shape = sub_cube_slice(p, self.gpus) if self.nodes < p.nodes_per_system else None
        if shape is not None:
            why = (f"a {'x'.join(map(str, shape))} slice of {self.gpus} chips on {self.nodes} host"
                   f"{'s' if self.nodes > 1 else ''}, the smallest published slice that holds them")
        elif self.gpus == self.requested_gpus:
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
                  nodes: int | None = None, sites: int = 1,
                  split: tuple[float, ...] | None = None) -> Cluster:
    """Whole nodes (and whole rack systems) for ``gpus`` or ``nodes``, shared over ``sites``
    (equally, or in the proportions of ``split``)."""
    if nodes is None:
        if gpus is None or gpus < 1:
            raise LimitError("a cluster needs at least one GPU", key="gpus")
        nodes = math.ceil(gpus / platform.gpus_per_node)
    requested = gpus if gpus is not None else nodes * platform.gpus_per_node
    shape = sub_cube_slice(platform, nodes * platform.gpus_per_node)
    if shape is not None and sites == 1:
        # A torus slice smaller than a cube is its own hosts, not the cube's (TPU v5p: 2x2x1 is
        # 4 chips on 1 host): whole hosts of the smallest published slice that holds them.
        nodes = math.prod(shape) // platform.gpus_per_node
        return Cluster(platform, requested, nodes, floor, (Site(1, nodes),), (nodes,))
    per_system = platform.nodes_per_system
    nodes = math.ceil(nodes / per_system) * per_system
    if sites > 1:
        systems = nodes // per_system
        if systems < sites:
            raise LimitError(f"{systems} systems cannot fill {sites} sites", key="sites.count",
                             hint="Use fewer sites or more GPUs.")
        shares = site_systems(systems, split or (1.0,) * sites)
        shapes = tuple(Site(shares.count(n), n * per_system) for n in sorted(set(shares), reverse=True))
        return Cluster(platform, requested, nodes, floor, shapes, tuple(n * per_system for n in shares))
    return Cluster(platform, requested, nodes, floor, (Site(1, nodes),), (nodes,))


def sub_cube_slice(platform: Platform, gpus: int) -> list[int] | None:
    """The published torus slice smaller than a cube that ``gpus`` chips take, if the platform has one."""
    t = platform.scale_up.torus
    return t.slice_for(gpus) if t is not None else None


def site_systems(systems: int, weights: tuple[float, ...]) -> list[int]:
    """Whole systems per site in proportion to ``weights`` (largest remainder, ties to the
    earlier site), at least one each.

    >>> site_systems(64, (1, 1)), site_systems(10, (2, 1, 1)), site_systems(5, (1, 1, 1))
    ([32, 32], [5, 3, 2], [2, 2, 1])
    """
    total = sum(weights)
    exact = [systems * w / total for w in weights]
    shares = [math.floor(x) for x in exact]
    order = sorted(range(len(weights)), key=lambda i: (-(exact[i] - shares[i]), i))
    for i in order[:systems - sum(shares)]:
        shares[i] += 1
    for i in range(len(shares)):  # a site too small for one system still gets one, from the largest
        if shares[i] == 0:
            shares[max(range(len(shares)), key=lambda k: (shares[k], -k))] -= 1
            shares[i] = 1
    return shares


def scale_up(cluster: Cluster) -> ScaleUp:
    """The scale-up tier of the cluster (bom/topology/scaleup.py counts each kind)."""
    return _scale_up(cluster.platform, cluster.gpus)
