"""Switch fabrics sized in closed form: how many switches and links each layer needs.

A fabric (one plane of it) joins ``nodes`` endpoints with ``node_ports`` ports each at one
rate. Endpoints are taken in groups: a scalable unit (SU) for rail-optimised fabrics (one
leaf per rail per SU) or a rack for ToR fabrics (the rack's ports on its own leaves). A
partial group still gets its whole group's leaves and uplinks, built for growth.

Spreading rule (docs/counting.md, rule 6): every leaf has the same number of links to every
spine it reaches, so the spine count is the smallest divisor d of the leaf's uplinks with
leaves x uplinks / d <= spine ports. Three layers split the leaves into pods whose spines
keep half their ports for uplinks (as many as their used downlinks); spine i of every pod
joins core group i, spread the same way. The pod size is the one that needs the fewest
spines and cores (whole SUs preferred on a tie), so a pod is not held to whole SUs when
an SU's leaves would leave most of a spine's ports idle.

Small fabrics: a rail leaf takes several rails when its downlinks hold them (the leaf's
ports decide); a fabric whose ports fit one switch is that switch; ``pair`` is two switches
joined by inter-switch links (ISLs), each taking half of every node's ports. Native-rate
uplinks: when a leaf's downlinks are a breakout of its ports (2 x 400G planes on 800G
cages), links between switches run at the switch's own rate wherever every pair of switches
has whole native ports between them.
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from typing import TypedDict

from bom.catalog.rows import Switch
from bom.errors import LimitError
from bom.inputs.validation import ratio
from bom.model.plane import NativePorts, Plane, SwitchPorts, Topology
from bom.units import magnitude


def uplink_ports(switch: Switch, rate_gbps: float | None = None) -> SwitchPorts | None:
    """A switch's dedicated uplinks (ports of another rate), if it has any: at their own rate, or at
    ``rate_gbps`` where they break out to it (None when they do not)."""
    u = switch.uplinks
    if u is None:
        return None
    native = magnitude(u.rate, "rate")
    if rate_gbps is None or math.isclose(rate_gbps, native):
        return SwitchPorts(switch.id, u.ports, u.ports_per_cage, u.form_factor, native, native)
    radix = next((b.ports for b in u.breakouts if math.isclose(magnitude(b.rate, "rate"), rate_gbps)), None)
    if radix is None:
        return None
    return SwitchPorts(switch.id, radix, max(1, radix // (u.ports // u.ports_per_cage)), u.form_factor,
                       rate_gbps, rate_gbps)


def uplink_rates(switch: Switch) -> tuple[float, ...]:
    """Every rate a switch's dedicated uplinks run at (their own and their breakouts'), slowest first."""
    u = switch.uplinks
    if u is None:
        return ()
    return tuple(sorted({magnitude(u.rate, "rate"), *(magnitude(b.rate, "rate") for b in u.breakouts)}))


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


def smallest_spread(uplinks: int, sources: int, ports: int, least: int = 1) -> int | None:
    """Smallest d >= ``least`` dividing ``uplinks`` with sources x uplinks / d <= ports (None if none).

    >>> smallest_spread(32, 32, 64)   # DGX H100 SuperPOD 4 SU: 32 leaves x 32 up -> 16 spines
    16
    >>> smallest_spread(4, 16, 128), smallest_spread(4, 16, 128, least=4)   # Juniper JVD: 4 spines
    (1, 4)
    """
    need = math.ceil(sources * uplinks / ports)
    for d in range(max(1, need, least), uplinks + 1):
        if uplinks % d == 0 and sources * (uplinks // d) <= ports:
            return d
    return None


def _cages(ports: Fraction | float, per_cage: int) -> int:
    """``ports`` rounded up to whole cages of ``per_cage`` ports."""
    return math.ceil(ports / per_cage) * per_cage


def _leaf_split(radix: int, per_cage: int, oversubscription: Fraction) -> tuple[int, int]:
    """Down and up ports of a leaf at down:up = oversubscription, in whole cages."""
    up = _cages(Fraction(radix) / (oversubscription + 1), per_cage)
    return radix - up, up


def _largest_divisor(n: int, most: int) -> int:
    """The largest divisor of ``n`` that is at most ``most`` (at least 1)."""
    return max(d for d in range(1, max(1, min(n, most)) + 1) if n % d == 0)


class _PlaneBase(TypedDict):
    """A plane's fields that its layers (two or three) do not change."""

    topology: Topology
    group_nodes: int
    groups: int
    last_group_nodes: int
    node_ports: int
    leaves_per_group: int
    leaf_down: int
    leaf_up: int
    leaf: SwitchPorts
    spine: SwitchPorts
    leaf_uplink: SwitchPorts | None
    nodes_per_leaf: int
    rails_per_leaf: int
    scheduled: bool


def size_plane(nodes: int, node_ports: int, leaf: SwitchPorts, spine: SwitchPorts, *,
              topology: Topology, group_nodes: int, layers: int | None = None,
              oversubscription: float | Fraction | str = 1, gpus_per_node: int = 1,
              leaf_uplink: SwitchPorts | None = None, node_blocks: bool = False,
              native: NativePorts | SwitchPorts | None = None, rails_per_leaf: int | None = None,
              spine_oversubscription: float | Fraction | str | None = None, min_spines: int | None = None,
              scheduled: bool = False) -> Plane:
    """Size one plane; ``layers`` None chooses the fewest layers that hold it.

    ``node_blocks``: the node is a slice of a rack-scale domain (an NVL72 tray), so a rail is a
    tray position: each leaf takes all ports of whole nodes, the same trays of every rack.
    ``native``: the leaf's uplink side and the spine at their own rate when ``leaf``/``spine`` are a
    breakout of them (one SwitchPorts: the same model at both ends); switch-to-switch links then run
    at that rate where whole native ports join each pair.
    ``rails_per_leaf``: rails one rail leaf takes (1: a leaf per rail per SU, the Juniper JVDs);
    None: as many as its downlinks hold (a pod whose ports fit one switch is that switch).
    ``spine_oversubscription``: down:up at the spines of three layers (None: 1:1).
    ``min_spines``: the fewest spines each leaf's uplinks spread over (the Juniper JVDs' "minimum of
    4 spines" for path diversity); a fabric that states it has a spine layer even where its ports
    would fit one switch. None: the fewest whose ports take every uplink.
    ``scheduled``: the leaf is a scheduled fabric's interface node and ``leaf_uplink`` its fabric ports
    at their finest bundle: every one is cabled whatever the host ports carry (the fabric's speedup),
    spread evenly over the fabric elements, a pair joined at ``native``'s rate where whole ports reach.
    """
    over = ratio(oversubscription)
    pair = NativePorts.same(native) if isinstance(native, SwitchPorts) else native
    if scheduled:
        _check_scheduled(over, layers, topology)
    _check_min_spines(min_spines, topology, layers)
    if topology == "pair":
        return _pair(nodes, node_ports, leaf, over, layers, pair)
    _check_rails(rails_per_leaf, node_ports, topology, node_blocks)
    if topology == "rail-only":
        return _rail_only(nodes, node_ports, leaf, topology, rails_per_leaf, layers, node_blocks)
    single = (None if rails_per_leaf not in (None, node_ports) or min_spines is not None
              else _single(nodes, node_ports, leaf, topology, group_nodes, layers, leaf_uplink))
    if single is not None:
        return single
    if layers == 1 and topology == "rail-optimized":   # one layer of rail leaves: the rail-only shape
        return _rail_only(nodes, node_ports, leaf, topology, rails_per_leaf, layers, node_blocks)
    if layers == 1:
        # A ToR leaf joins only its own rack's nodes: one layer of them is one switch for every node.
        raise LimitError(f"one layer of {topology} leaves is one {leaf.id} for every node, and this fabric's "
                         f"{nodes * node_ports} ports to its leaves do not fit its {leaf.radix}", key="layers",
                         hint="Use layers: auto (leaves and spines), or on the compute fabric topology: rail-only "
                              "for rail leaves with no spine.")
    spine_over = None if spine_oversubscription is None else ratio(spine_oversubscription)
    if spine_over is not None and spine_over != 1 and layers == 2:
        raise LimitError("a spine ratio sets the spines' uplinks to a core layer; two layers have none",
                         hint="Set layers: 3 (or auto), or drop oversubscription.spine.")
    if leaf_uplink is not None:
        down, up = leaf.radix, leaf_uplink.radix
    else:
        down, up = _leaf_split(leaf.radix, leaf.ports_per_cage, over)
    if nodes <= group_nodes:
        group_nodes = nodes   # one partial group: the pod itself, not a whole SU, sets the leaves
    per_group, used, blocks, rails = _group_leaves(topology, node_blocks, group_nodes, node_ports, down,
                                                   rails_per_leaf)
    # Uplinks match the downlinks a full group uses at this oversubscription (a scheduled fabric's
    # interface node cables every fabric port: cells are sprayed over all of them).
    if not scheduled:
        up = min(up, _cages(Fraction(used) / over, (leaf_uplink or leaf).ports_per_cage))
    least = min_spines or 1
    if least > up:
        raise LimitError(f"min_spines {least} spreads each leaf's uplinks over {least} spines, and a leaf here has "
                         f"{up} (one link to each spine at most)", key="min_spines",
                         hint=f"Use min_spines of at most {up}, or more uplinks per leaf (a lower "
                              "oversubscription, or uplink_rate: downlink).")
    groups = math.ceil(nodes / group_nodes)
    last = nodes - (groups - 1) * group_nodes
    base = _PlaneBase(topology=topology, group_nodes=group_nodes, groups=groups, last_group_nodes=last,
                      node_ports=node_ports, leaves_per_group=per_group, leaf_down=down, leaf_up=up,
                      leaf=leaf, spine=spine, leaf_uplink=leaf_uplink, nodes_per_leaf=blocks,
                      rails_per_leaf=rails, scheduled=scheduled)
    two = _two_layers(groups * per_group, up, spine.radix, least)
    if layers == 2 and two is None:
        raise LimitError(f"two layers of {spine.id} join at most {spine.radix} leaves; this fabric "
                         f"has {groups * per_group}", hint="Set layers: 3 (or auto), or use a larger switch.")
    if layers in (None, 2) and two is not None and (spine_over in (None, 1) or layers == 2):
        p = Plane(layers=2, pods=1, groups_per_pod=groups, spines_per_pod=two, cores_per_group=0, **base)
    else:
        # A spine ratio other than 1:1 asks for the taper above the pods, so three layers.
        p = _three_layers(base, groups, per_group, up, spine, gpus_per_node, spine_over or Fraction(1), least)
    return _at_native_rate(p, pair)


#: Keys of a fabric's spec that :func:`size_plane` names in its errors (relative to ``fabrics.<name>``).
SPEC_KEYS = ("rails_per_leaf", "layers", "topology", "min_spines", "oversubscription")


def name_fabric(exc: LimitError, name: str) -> LimitError:
    """``exc`` located at fabric ``name``: at the spec key :func:`size_plane` names, else the fabric."""
    if exc.key in SPEC_KEYS:
        exc.at, exc.key = ("fabrics", name, exc.key), f"fabrics.{name}.{exc.key}"
    exc.at = exc.at or ("fabrics", name)
    exc.key = exc.key or f"fabrics.{name}"
    return exc


def _check_min_spines(least: int | None, topology: Topology, layers: int | None) -> None:
    """A stated minimum of spines needs a spine layer to put them in."""
    if least is None:
        return
    if topology in ("pair", "rail-only") or layers == 1:
        shape = f"topology {topology}" if topology in ("pair", "rail-only") else "layers: 1"
        raise LimitError(f"min_spines asks for a spine layer, and {shape} has none", key="min_spines",
                         hint="Drop min_spines, or use topology: rail-optimized (or tor) with layers: auto or 2.")


def _check_scheduled(over: Fraction, layers: int | None, topology: Topology) -> None:
    """A scheduled fabric's interface nodes cable every fabric port and switch through fabric elements."""
    if topology in ("pair", "rail-only"):
        raise LimitError(f"topology {topology} has no spine layer, and a scheduled fabric's interface nodes reach "
                         "each other only through its fabric elements", key="topology",
                         hint="Use topology: rail-optimized or tor.")
    if over != 1:
        raise LimitError("a scheduled fabric's interface node cables all its fabric ports (cells are sprayed over "
                         "every one; their surplus over the host ports is the fabric's speedup), so a leaf ratio "
                         "has no meaning", key="oversubscription",
                         hint="Drop oversubscription on this fabric.")
    if layers == 1:
        raise LimitError("a scheduled fabric's interface nodes reach each other only through fabric elements: "
                         "it has two layers (one stage of fabric elements) or three (two stages)", key="layers",
                         hint="Use layers: auto, 2 or 3.")


def _check_rails(rails: int | None, node_ports: int, topology: Topology, node_blocks: bool) -> None:
    """A stated rails_per_leaf must be a whole share of a node's rails on a rail fabric."""
    if rails is None:
        return
    if topology not in ("rail-optimized", "rail-only"):
        raise LimitError(f"rails_per_leaf has no meaning for topology {topology} (its leaves take whole nodes "
                         "or racks, not rails)", key="rails_per_leaf",
                         hint="Drop rails_per_leaf, or use topology: rail-optimized or rail-only.")
    if node_blocks:
        raise LimitError("rails_per_leaf has no meaning on a rack-scale platform: each leaf takes every port "
                         "of whole trays", key="rails_per_leaf", hint="Drop rails_per_leaf.")
    if rails > node_ports or node_ports % rails:
        raise LimitError(f"rails_per_leaf {rails} must divide the {node_ports} rails of a node (each leaf takes "
                         "the same number of rails)", key="rails_per_leaf",
                         hint=f"Use a divisor of {node_ports}: 1 is a leaf per rail.")


def _rail_only(nodes: int, node_ports: int, leaf: SwitchPorts, topology: Topology, rails_per_leaf: int | None,
               layers: int | None, node_blocks: bool) -> Plane:
    """Rail leaves and no spine (rail-only, Wang et al. 2023; rail-optimized with layers: 1): every node's
    port of a rail on one leaf, which takes ``rails_per_leaf`` rails (default: as many as its ports
    hold). GPUs of different rails meet only through the scale-up domain."""
    if layers not in (None, 1):
        raise LimitError(f"a rail-only fabric has one layer (rail leaves, no spine); layers is {layers}",
                         key="layers", hint="Drop layers, or use topology: rail-optimized for leaves and spines.")
    if node_blocks:
        raise LimitError("rail leaves with no spine need a rail per node port; a rack-scale platform's leaves "
                         "take whole trays", key="topology" if topology == "rail-only" else "layers",
                         hint="Use topology: rail-optimized with layers: auto.")
    fit = leaf.radix // nodes
    if fit < 1:
        raise LimitError(f"a rail-only fabric puts one rail of every node on one leaf; {nodes} nodes are more "
                         f"than the {leaf.radix} ports of {leaf.id} at {leaf.rate_gbps:g} Gbit/s",
                         hint="Use topology: rail-optimized (leaves and spines), a larger switch, or fewer nodes.")
    rails = rails_per_leaf or _largest_divisor(node_ports, fit)
    if rails > fit:
        raise LimitError(f"rails_per_leaf {rails} puts {rails * nodes} node ports on one {leaf.id}, which has "
                         f"{leaf.radix}", key="rails_per_leaf",
                         hint=f"Use rails_per_leaf of at most {fit}, or a larger switch.")
    return Plane(topology=topology, layers=1, group_nodes=nodes, groups=1, last_group_nodes=nodes,
                 node_ports=node_ports, leaves_per_group=node_ports // rails, leaf_down=leaf.radix, leaf_up=0,
                 pods=1, groups_per_pod=1, spines_per_pod=0, cores_per_group=0, leaf=leaf, spine=leaf,
                 rails_per_leaf=rails)


def _group_leaves(topology: Topology, node_blocks: bool, group_nodes: int, node_ports: int,
                  down: int, rails_per_leaf: int | None = None) -> tuple[int, int, int, int]:
    """(leaves per group, downlinks a leaf of a full group uses, whole nodes per leaf, rails per leaf)."""
    if topology == "rail-optimized" and node_blocks and down >= node_ports:
        blocks = down // node_ports
        return math.ceil(group_nodes / blocks), min(group_nodes, blocks) * node_ports, blocks, 1
    if topology == "rail-optimized":
        # One leaf per rail per SU (or several when the SU has more nodes than a leaf has
        # downlinks); a small SU puts several rails on one leaf, as many as its downlinks hold,
        # unless the scenario states the rails a leaf takes (rails_per_leaf: 1, the JVDs' stripes).
        rails = rails_per_leaf or _largest_divisor(node_ports, down // group_nodes)
        if down < rails:
            raise LimitError(f"rails_per_leaf {rails} is more than a leaf's {down} downlinks", key="rails_per_leaf",
                             hint=f"Use rails_per_leaf of at most {down}.")
        # Each leaf of a rail set takes whole nodes (all ``rails`` of their ports), down // rails of them.
        per_rail = math.ceil(group_nodes / (down // rails))
        return node_ports // rails * per_rail, math.ceil(group_nodes / per_rail) * rails, 0, rails
    per_group = math.ceil(group_nodes * node_ports / down)
    return per_group, math.ceil(group_nodes * node_ports / per_group), 0, 1


def _single(nodes: int, node_ports: int, leaf: SwitchPorts, topology: Topology, group_nodes: int,
            layers: int | None, leaf_uplink: SwitchPorts | None) -> Plane | None:
    """The whole fabric on one switch when every node port fits it (no spines to build)."""
    if layers not in (None, 1) or leaf_uplink is not None or nodes * node_ports > leaf.radix:
        return None
    if topology == "tor" and nodes > group_nodes:
        return None   # a ToR fabric of several racks keeps a ToR per rack
    rails = node_ports if topology == "rail-optimized" else 1
    return Plane(topology=topology, layers=1, group_nodes=nodes, groups=1, last_group_nodes=nodes,
                 node_ports=node_ports, leaves_per_group=1, leaf_down=leaf.radix, leaf_up=0, pods=1,
                 groups_per_pod=1, spines_per_pod=0, cores_per_group=0, leaf=leaf, spine=leaf,
                 rails_per_leaf=rails)


def _pair(nodes: int, node_ports: int, leaf: SwitchPorts, over: Fraction, layers: int | None,
          native: NativePorts | None) -> Plane:
    """Two switches joined by ISLs, each with half of every node's ports (half the rails);
    the ISLs carry what one switch's nodes send to the other's at the oversubscription."""
    if layers not in (None, 1):
        raise LimitError("a switch pair has one layer (two switches joined by ISLs)",
                         hint="Drop layers, or use topology: rail-optimized for leaves and spines.")
    if node_ports % 2 and node_ports != 1:
        raise LimitError(f"a switch pair takes half of every node's ports; this node has {node_ports}",
                         hint="Use topology: rail-optimized or tor for an odd number of ports.")
    rails = max(1, node_ports // 2)
    down = nodes * rails if node_ports > 1 else math.ceil(nodes / 2)
    isl = _cages(Fraction(down) / over, leaf.ports_per_cage)
    if down + isl > leaf.radix:
        most = leaf.radix * over / (over + 1) * 2 // max(1, node_ports)
        raise LimitError(f"a pair of {leaf.id} holds at most {int(most)} nodes of {node_ports} ports at "
                         f"{over.numerator}:{over.denominator}; this fabric has {nodes}",
                         hint="Use topology: rail-optimized (leaves and spines) for a larger pod.")
    p = Plane(topology="pair", layers=1, group_nodes=nodes, groups=1, last_group_nodes=nodes,
              node_ports=node_ports, leaves_per_group=2, leaf_down=down, leaf_up=0, pods=1, groups_per_pod=1,
              spines_per_pod=0, cores_per_group=0, leaf=leaf, spine=leaf, rails_per_leaf=rails, isl=isl)
    k = _native_factor(leaf, native.up if native else None)
    if k > 1 and isl % k == 0 and native is not None:
        p = replace(p, isl=isl // k, leaf_uplink=native.up, spine=native.up)
    return p


def _native_factor(ports: SwitchPorts, native: SwitchPorts | None) -> int:
    """Ports at ``ports``' rate that one native port carries (2 for 400G on an 800G cage)."""
    if native is None or native.rate_gbps <= ports.rate_gbps:
        return 1
    k = native.rate_gbps / ports.rate_gbps
    return int(k) if k == int(k) else 1


def _at_native_rate(p: Plane, native: NativePorts | None) -> Plane:
    """Switch-to-switch links at the native rate when every pair has whole native ports (a scheduled
    fabric's two halves of an 800G cage to one element are one 800G link; else they go to two).
    Dedicated uplinks of their own rate (a management switch's) stay as they are."""
    if native is None or p.layers < 2 or (p.leaf_uplink is not None and not p.scheduled):
        return p
    k = _native_factor(p.up, native.up)
    if k == 1 or k != _native_factor(p.spine, native.spine):
        return p
    if p.leaf_spine_per_pair % k or (p.layers == 3 and p.spine_core_per_pair % k):
        return p
    return replace(p, leaf_up=p.leaf_up // k, spine_uplinks=p.spine_uplinks // k, leaf_uplink=native.up,
                   spine=native.spine)


def _two_layers(leaves: int, up: int, spine_radix: int, least: int = 1) -> int | None:
    return smallest_spread(up, leaves, spine_radix, least)


def _pod_shape(leaves: int, per_group: int, up: int, spine: SwitchPorts,
               spine_over: Fraction = Fraction(1), least: int = 1) -> tuple[int, int, int, int] | None:
    """(leaves per pod, spines per pod, spine uplinks, cores per group) with the fewest spines
    and cores; on a tie whole SUs per pod, then fewer pods, then fuller pods. A spine keeps its
    ports down:up at ``spine_over`` (1:1: half each), and uplinks what its used downlinks carry at
    that ratio (a 7:1 taper: a seventh); each leaf's uplinks spread over ``least`` spines at least."""
    if spine_over == 1:
        down_most = up_most = spine.radix // 2
    else:
        down_most, up_most = _leaf_split(spine.radix, spine.ports_per_cage, spine_over)
    best: tuple[tuple[int, int, int, int], tuple[int, int, int, int]] | None = None
    for d in (d for d in range(least, up + 1) if up % d == 0):
        for size in range(1, min(leaves, down_most // (up // d)) + 1):
            pods = math.ceil(leaves / size)
            down = size * (up // d)
            spine_up = min(up_most, _cages(down if spine_over == 1 else Fraction(down) / spine_over,
                                           spine.ports_per_cage))
            cores = smallest_spread(spine_up, pods, spine.radix)
            if cores is None:
                continue
            key = (pods * d + d * cores, 0 if size % per_group == 0 else 1, pods, -size)
            if best is None or key < best[0]:
                best = (key, (size, d, spine_up, cores))
    return best[1] if best else None


def _three_layers(base: _PlaneBase, groups: int, per_group: int, up: int, spine: SwitchPorts,
                  gpus_per_node: int, spine_over: Fraction = Fraction(1), least: int = 1) -> Plane:
    leaves = groups * per_group
    shape = _pod_shape(leaves, per_group, up, spine, spine_over, least)
    if shape is None:
        # At most ``radix`` pods of ``radix / 2`` leaves (one link from each leaf to each spine).
        most = spine.radix * (spine.radix // 2) * base["group_nodes"] // per_group * gpus_per_node
        raise LimitError(f"three layers of {spine.id} hold at most {spine.radix} pods (about {most:,} GPUs); "
                         f"this fabric has {leaves:,} leaves",
                         hint="Use a larger switch, more planes, or split the job over sites.")
    size, spines, spine_up, cores = shape
    pods = math.ceil(leaves / size)
    whole = size // per_group if size % per_group == 0 else 0
    return Plane(layers=3, pods=pods, groups_per_pod=whole, spines_per_pod=spines, cores_per_group=cores,
                 spine_uplinks=spine_up, pod_leaves=size, **base)
