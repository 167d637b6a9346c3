"""Switch fabrics sized in closed form: how many switches and links each layer needs.

A fabric (one plane of it) joins ``nodes`` endpoints with ``node_ports`` ports each at one
rate. Endpoints are taken in groups: a scalable unit (SU) for rail-optimised fabrics (one
leaf per rail per SU) or a rack for ToR fabrics (the rack's ports on its own leaves). A
partial group still gets its whole group's leaves and uplinks, built for growth.

Spreading rule (DESIGN.md section 3): every leaf has the same number of links to every
spine it reaches, so the spine count is the smallest divisor d of the leaf's uplinks with
leaves x uplinks / d <= spine ports. Three layers split the leaves into pods whose spines
keep half their ports for uplinks (as many as their used downlinks); spine i of every pod
joins core group i, spread the same way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from bom.catalog import Switch
from bom.errors import LimitError
from bom.units import magnitude

Topology = Literal["rail-optimized", "tor"]


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


def uplink_ports(switch: Switch) -> SwitchPorts | None:
    """A switch's dedicated uplinks (ports of another rate), if it has any."""
    u = switch.uplinks
    if u is None:
        return None
    rate = magnitude(u.rate, "rate")
    return SwitchPorts(switch.id, u.ports, u.ports_per_cage, u.form_factor, rate, rate)


def switch_ports(switch: Switch, rate_gbps: float) -> SwitchPorts:
    """``switch`` at ``rate_gbps``: its native ports, or a breakout listed in the catalog."""
    native = magnitude(switch.port_rate, "rate")
    radix = switch.ports if math.isclose(native, rate_gbps) else next(
        (b.ports for b in switch.breakouts if math.isclose(magnitude(b.rate, "rate"), rate_gbps)), None)
    if radix is None:
        rates = [native] + [magnitude(b.rate, "rate") for b in switch.breakouts]
        raise LimitError(f"switch {switch.id!r} has no {rate_gbps:g} Gbit/s ports "
                         f"(it has {', '.join(f'{r:g}' for r in rates)} Gbit/s)",
                         hint="Pick a switch whose ports or breakouts run at the NIC's rate.")
    return SwitchPorts(switch.id, radix, max(1, radix // switch.cages), switch.form_factor,
                       magnitude(switch.lane_rate, "rate"), rate_gbps)


def smallest_spread(uplinks: int, sources: int, ports: int) -> int | None:
    """Smallest d dividing ``uplinks`` with sources x uplinks / d <= ports (None if none).

    >>> smallest_spread(32, 32, 64)   # DGX H100 SuperPOD 4 SU: 32 leaves x 32 up -> 16 spines
    16
    """
    need = math.ceil(sources * uplinks / ports)
    for d in range(max(1, need), uplinks + 1):
        if uplinks % d == 0 and sources * (uplinks // d) <= ports:
            return d
    return None


@dataclass(frozen=True)
class Plane:
    """One plane of a fabric, all counts per plane."""

    topology: Topology
    layers: int
    group_nodes: int          # nodes per SU (rail) or per rack (ToR)
    groups: int               # SUs or racks, the last one possibly partial
    last_group_nodes: int     # nodes in the last group (== group_nodes when full)
    node_ports: int           # per node in this plane
    leaves_per_group: int
    leaf_down: int
    leaf_up: int
    pods: int                 # 1 for two layers
    groups_per_pod: int
    spines_per_pod: int
    cores_per_group: int      # cores in each core group (3 layers), 0 otherwise
    leaf: SwitchPorts
    spine: SwitchPorts
    leaf_uplink: SwitchPorts | None = None   # dedicated uplink ports of another rate
    nodes_per_leaf: int = 0   # rack-scale domains: each leaf takes every port of this many nodes
    spine_uplinks: int = 0    # three layers: each spine's uplinks (as many as its used downlinks)

    @property
    def up(self) -> SwitchPorts:
        """The leaf's uplink side (its own ports unless it has dedicated uplinks)."""
        return self.leaf_uplink or self.leaf

    @property
    def leaves(self) -> int:
        return self.groups * self.leaves_per_group

    @property
    def leaves_per_rail(self) -> int:
        """Rail leaves per SU (rail-optimised): each takes the next ``leaf_down`` nodes."""
        if self.nodes_per_leaf:
            return self.leaves_per_group
        return self.leaves_per_group // self.node_ports

    @property
    def spines(self) -> int:
        return self.pods * self.spines_per_pod

    @property
    def cores(self) -> int:
        return self.spines_per_pod * self.cores_per_group

    @property
    def leaf_spine_per_pair(self) -> int:
        """Links from each leaf to each spine of its pod."""
        return self.leaf_up // self.spines_per_pod

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


def _leaf_split(radix: int, per_cage: int, oversubscription: float) -> tuple[int, int]:
    """Down and up ports of a leaf at down:up = oversubscription:1, in whole cages."""
    up = math.ceil(radix / (oversubscription + 1) / per_cage) * per_cage
    return radix - up, up


def plan(nodes: int, node_ports: int, leaf: SwitchPorts, spine: SwitchPorts, *,
         topology: Topology, group_nodes: int, layers: int | None = None,
         oversubscription: float = 1.0, gpus_per_node: int = 1,
         leaf_uplink: SwitchPorts | None = None, node_blocks: bool = False) -> Plane:
    """Size one plane; ``layers`` None chooses 2 when it fits, else 3.

    ``node_blocks``: the node is a slice of a rack-scale domain (an NVL72 tray), so a rail is a
    tray position: each leaf takes all ports of whole nodes, the same trays of every rack.
    """
    if leaf_uplink is not None:
        down, up = leaf.radix, leaf_uplink.radix
    else:
        down, up = _leaf_split(leaf.radix, leaf.ports_per_cage, oversubscription)
    blocks = 0
    if topology == "rail-optimized" and node_blocks and down >= node_ports:
        blocks = down // node_ports
        per_group = math.ceil(group_nodes / blocks)
        used = min(group_nodes, blocks) * node_ports
        up = min(up, math.ceil(used / oversubscription / leaf.ports_per_cage) * leaf.ports_per_cage)
    elif topology == "rail-optimized":
        # One leaf per rail per SU, or several when the SU has more nodes than a leaf has downlinks;
        # its uplinks match the downlinks a full SU uses at this oversubscription.
        per_rail = math.ceil(group_nodes / down)
        per_group = node_ports * per_rail
        used = math.ceil(group_nodes / per_rail)
        up = min(up, math.ceil(used / oversubscription / leaf.ports_per_cage) * leaf.ports_per_cage)
    else:
        per_group = math.ceil(group_nodes * node_ports / down)
        # A ToR needs only the uplinks its rack's ports call for at this oversubscription.
        used = math.ceil(group_nodes * node_ports / per_group)
        up = min(up, math.ceil(used / oversubscription / leaf.ports_per_cage) * leaf.ports_per_cage)
    groups = math.ceil(nodes / group_nodes)
    last = nodes - (groups - 1) * group_nodes
    base = dict(topology=topology, group_nodes=group_nodes, groups=groups, last_group_nodes=last,
                node_ports=node_ports, leaves_per_group=per_group, leaf_down=down, leaf_up=up,
                leaf=leaf, spine=spine, leaf_uplink=leaf_uplink, nodes_per_leaf=blocks)
    two = _two_layers(groups * per_group, up, spine.radix)
    if layers == 2 and two is None:
        raise LimitError(f"two layers of {spine.id} join at most {spine.radix} leaves; this fabric "
                         f"has {groups * per_group}", hint="Set layers: 3 (or auto), or use a larger switch.")
    if layers in (None, 2) and two is not None:
        return Plane(layers=2, pods=1, groups_per_pod=groups, spines_per_pod=two, cores_per_group=0,
                     **base)  # type: ignore[arg-type]
    return _three_layers(base, groups, per_group, up, spine, gpus_per_node)


def _two_layers(leaves: int, up: int, spine_radix: int) -> int | None:
    return smallest_spread(up, leaves, spine_radix)


def _three_layers(base: dict, groups: int, per_group: int, up: int, spine: SwitchPorts,
                  gpus_per_node: int) -> Plane:
    half = spine.radix // 2
    per_pod = half // per_group
    if per_pod == 0:
        raise LimitError(f"a group has {per_group} leaves but a {spine.id} spine has {half} "
                         "downlinks in three layers", hint="Use a larger spine switch or smaller groups.")
    pods = math.ceil(groups / per_pod)
    spines = smallest_spread(up, per_pod * per_group, half)
    # A spine is non-blocking: as many uplinks as the downlinks a full pod uses, in whole cages.
    spine_up = 0 if spines is None else min(
        half, math.ceil(per_pod * per_group * (up // spines) / spine.ports_per_cage) * spine.ports_per_cage)
    cores = smallest_spread(spine_up, pods, spine.radix) if spine_up else None
    if spines is None or cores is None:
        most = spine.radix * per_pod * base["group_nodes"] * gpus_per_node
        raise LimitError(f"three layers of {spine.id} hold at most {spine.radix} pods (about {most:,} GPUs); "
                         f"this fabric needs {pods}",
                         hint="Use a larger switch, more planes, or split the job over sites.")
    return Plane(layers=3, pods=pods, groups_per_pod=per_pod, spines_per_pod=spines,
                 cores_per_group=cores, spine_uplinks=spine_up, **base)  # type: ignore[arg-type]
