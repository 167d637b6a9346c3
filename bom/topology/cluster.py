"""The cluster: GPUs -> nodes -> scale-up domains -> racks -> sites, and the scale-up tier.

Rack-scale systems are bought whole: a GB200 NVL72 is 18 compute trays, so a GPU count is
rounded up to whole systems. Sites are buildings, each its own cluster; nodes are shared
out as evenly as whole nodes allow.
"""

from __future__ import annotations

import math

from bom.catalog.rows import Platform
from bom.errors import LimitError
from bom.model.cluster import Cluster, ScaleUp, Site, sub_cube_slice
from bom.model.floorplan import FloorPlan
from bom.topology.scaleup import scale_up as _scale_up

__all__ = ["build_cluster", "scale_up", "site_systems"]


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
                             hint=f"Use fewer sites (count: {systems}, a system each) or more GPUs.",
                             fix={("sites", "count"): systems})
        shares = site_systems(systems, split or (1.0,) * sites)
        shapes = tuple(Site(shares.count(n), n * per_system) for n in sorted(set(shares), reverse=True))
        return Cluster(platform, requested, nodes, floor, shapes, tuple(n * per_system for n in shares))
    return Cluster(platform, requested, nodes, floor, (Site(1, nodes),), (nodes,))


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
