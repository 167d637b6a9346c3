"""The cluster: nodes shared over sites, and its scale-up tier: data types only (built by
:mod:`bom.topology.cluster` and :mod:`bom.topology.scaleup`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NotRequired

from typing_extensions import TypedDict

from bom.catalog.rows import Platform, ScaleUpKind
from bom.model.floorplan import FloorPlan
from bom.model.records import Count, Share


class RoundingJson(TypedDict):
    """GPUs asked for, built, and why they differ."""

    requested: Count
    built: Count
    extra: Count
    why: str


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

    def rounding(self) -> RoundingJson:
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


def sub_cube_slice(platform: Platform, gpus: int) -> list[int] | None:
    """The published torus slice smaller than a cube that ``gpus`` chips take, if the platform has one."""
    t = platform.scale_up.torus
    return t.slice_for(gpus) if t is not None else None


class ScaleUpJson(TypedDict):
    """The links inside every scale-up domain (ScaleUpTotals); the torus keys on a TPU torus only."""

    kind: ScaleUpKind
    links: Count
    copper_links: Count
    optical_links: Count
    modules: Count
    fibre_runs: Count
    fibre_strands: Count
    cables: Count
    domains: Count
    gpus_per_domain: Count
    switch_chips: Count
    switch_trays: Count
    copper_share: Share
    switch: NotRequired[str]
    ocs: NotRequired[Count]
    ocs_ports: NotRequired[Count]
    ocs_ports_used: NotRequired[Count]
    ocs_groups_per_domain: NotRequired[Count]
    cubes: NotRequired[Count]
    inter_rack_links: NotRequired[Count]
    """A domain over two racks (GB200 NVL36x2): switch-chip links between its racks (not in ``links``)."""
    inter_rack_cables: NotRequired[Count]
    """The cables between the racks' switch trays that carry them (bought: the BOM's scale-up line)."""


@dataclass(frozen=True)
class ScaleUp:
    """The links inside every scale-up domain, by medium, and the parts they need."""

    kind: ScaleUpKind
    domains: int
    gpus_per_domain: int
    links: int            # electrical links: GPU to switch chip, or GPU to GPU without one
    cables: int           # rack-scale copper spine cables (0 on a baseboard)
    switch_chips: int
    switch_trays: int
    optical_links: int = 0     # torus: cube port to OCS port, an optic at the cube end
    modules: int = 0
    fibre_runs: int = 0
    fibre_strands: int = 0
    ocs: int = 0               # optical circuit switches
    ocs_ports: int = 0         # their ports in all
    ocs_groups: int = 0        # per domain: one per dimension and face position
    cubes: int = 0
    switch: str | None = None
    inter_rack_links: int = 0  # a domain over two racks: chip to chip between them
    inter_rack_cables: int = 0

    def to_json(self) -> ScaleUpJson:
        total = self.links + self.optical_links
        out: ScaleUpJson = {
            "kind": self.kind, "links": total, "copper_links": self.links, "optical_links": self.optical_links,
            "modules": self.modules, "fibre_runs": self.fibre_runs, "fibre_strands": self.fibre_strands,
            "cables": self.cables, "domains": self.domains, "gpus_per_domain": self.gpus_per_domain,
            "switch_chips": self.switch_chips, "switch_trays": self.switch_trays,
            "copper_share": self.links / total if total else 0.0}
        if self.switch:
            out["switch"] = self.switch
        if self.kind == "torus-ocs":
            out["ocs"], out["ocs_ports"], out["ocs_ports_used"] = self.ocs, self.ocs_ports, self.optical_links
            out["ocs_groups_per_domain"], out["cubes"] = self.ocs_groups, self.cubes
        if self.inter_rack_links:
            out["inter_rack_links"], out["inter_rack_cables"] = self.inter_rack_links, self.inter_rack_cables
        return out
