"""One plane of a switch fabric and a switch seen at one link rate: data types only (the planner,
:mod:`bom.topology.planes`, sizes them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bom.roles import Layer

Topology = Literal["rail-optimized", "rail-only", "tor", "pair"]


@dataclass(frozen=True)
class SwitchPorts:
    """A switch as seen at one link rate (native ports or a breakout)."""

    id: str
    radix: int            # ports at the link rate
    ports_per_cage: int   # ports one cage (and one module) serves at that rate
    form_factor: str
    lane_gbps: float
    rate_gbps: float

    @property
    def cage(self) -> str:
        """The lookup's cage requirement: form factor and ports per cage."""
        return f"{self.form_factor}:{self.ports_per_cage}"

    @property
    def cages(self) -> int:
        return self.radix // self.ports_per_cage


@dataclass(frozen=True)
class NativePorts:
    """The two ends of a switch-to-switch link at their own (native) rate: the leaf's uplink side and
    the spine. The plan spreads links at the downlinks' rate (or a scheduled fabric's finest bundle)
    and joins each pair at the native rate where whole native ports reach it."""

    up: SwitchPorts
    spine: SwitchPorts

    @classmethod
    def same(cls, ports: SwitchPorts) -> NativePorts:
        """Both ends one switch model's ports."""
        return cls(ports, ports)


@dataclass(frozen=True)
class Plane:
    """One plane of a fabric, all counts per plane."""

    topology: Topology
    layers: int               # 1 = a single switch or a switch pair (no spines)
    group_nodes: int          # nodes per SU (rail) or per rack (ToR)
    groups: int               # SUs or racks, the last one possibly partial
    last_group_nodes: int     # nodes in the last group (== group_nodes when full)
    node_ports: int           # per node in this plane
    leaves_per_group: int
    leaf_down: int
    leaf_up: int
    pods: int                 # 1 for two layers
    groups_per_pod: int       # whole groups per pod (two layers: all of them)
    spines_per_pod: int
    cores_per_group: int      # cores in each core group (3 layers), 0 otherwise
    leaf: SwitchPorts
    spine: SwitchPorts
    leaf_uplink: SwitchPorts | None = None   # dedicated uplink ports of another rate
    nodes_per_leaf: int = 0   # rack-scale domains: each leaf takes every port of this many nodes
    spine_uplinks: int = 0    # three layers: each spine's uplinks (as many as its used downlinks)
    rails_per_leaf: int = 1   # rail-optimised: rails one leaf takes (small pods take several)
    pod_leaves: int = 0       # leaves per pod (three layers); 0 = every leaf in one pod
    isl: int = 0              # pair: inter-switch links between the two switches
    scheduled: bool = False   # a scheduled (cell) fabric: the leaves' fabric ports to fabric elements

    @property
    def up(self) -> SwitchPorts:
        """The leaf's uplink side (its own ports unless it has dedicated uplinks)."""
        return self.leaf_uplink or self.leaf

    @property
    def leaves(self) -> int:
        return self.groups * self.leaves_per_group

    @property
    def leaves_per_rail(self) -> int:
        """Leaves per SU that share one set of rails (rail-optimised): each takes the next
        ``rail_leaf_nodes`` nodes of the SU."""
        if self.nodes_per_leaf:
            return self.leaves_per_group
        return self.leaves_per_group * self.rails_per_leaf // self.node_ports

    @property
    def rail_leaf_nodes(self) -> int:
        """Nodes one rail leaf takes (its downlinks over the rails it carries)."""
        return self.leaf_down // self.rails_per_leaf

    @property
    def pod_size(self) -> int:
        """Leaves per pod (all leaves when there is one pod)."""
        return self.pod_leaves or self.leaves

    @property
    def spines(self) -> int:
        return self.pods * self.spines_per_pod

    @property
    def cores(self) -> int:
        return self.spines_per_pod * self.cores_per_group

    @property
    def leaf_spine_per_pair(self) -> int:
        """Links from each leaf to each spine of its pod."""
        return self.leaf_up // self.spines_per_pod if self.spines_per_pod else 0

    @property
    def spine_up(self) -> int:
        return self.spine_uplinks

    @property
    def spine_core_per_pair(self) -> int:
        return self.spine_up // self.cores_per_group if self.cores_per_group else 0

    @property
    def node_leaf_links(self) -> int:
        return ((self.groups - 1) * self.group_nodes + self.last_group_nodes) * self.node_ports

    @property
    def leaf_spine_links(self) -> int:
        return self.leaves * self.leaf_up

    @property
    def spine_core_links(self) -> int:
        return self.spines * self.spine_up

    @property
    def leaf_leaf_links(self) -> int:
        return self.isl

    def port_use(self, layer: Layer) -> list[tuple[int, int]]:
        """(switches, ports each one uses) of the spine or core layer, at the layer's link rate:
        what a modular chassis must fill with line cards. A partial last pod's spines take
        fewer leaves; every spine keeps its uplinks to the cores.

        >>> from bom.topology.planes import size_plane
        >>> s = SwitchPorts("s", 64, 1, "osfp", 100, 400)
        >>> p = size_plane(64, 8, s, s, topology="rail-optimized", group_nodes=32)
        >>> p.spines, p.port_use("spine")      # 16 leaves x 32 uplinks over 8 spines
        (8, [(8, 64)])
        """
        if layer == Layer.SPINE and self.layers >= 2:
            full, last = divmod(self.leaves, self.pod_size)
            per_spine = [(full * self.spines_per_pod, self.pod_size * self.leaf_spine_per_pair + self.spine_up),
                         (self.spines_per_pod if last else 0, last * self.leaf_spine_per_pair + self.spine_up)]
            return [(n, used) for n, used in per_spine if n]
        if layer == Layer.CORE and self.layers == 3:
            return [(self.cores, self.pods * self.spine_core_per_pair)]
        return []
