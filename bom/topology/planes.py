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


def port_rates(switch: Switch) -> tuple[float, ...]:
    """Every rate a switch's own ports run at (native, then its breakouts) [Gbit/s]."""
    return (magnitude(switch.port_rate, "rate"), *(magnitude(b.rate, "rate") for b in switch.breakouts))


def switch_ports(switch: Switch, rate_gbps: float) -> SwitchPorts:
    """``switch`` at ``rate_gbps``: its native ports, or a breakout listed in the catalog."""
    native = magnitude(switch.port_rate, "rate")
    radix = switch.ports if math.isclose(native, rate_gbps) else next(
        (b.ports for b in switch.breakouts if math.isclose(magnitude(b.rate, "rate"), rate_gbps)), None)
    if radix is None:
        raise LimitError(f"switch {switch.id!r} has no {rate_gbps:g} Gbit/s ports "
                         f"(it has {', '.join(f'{r:g}' for r in port_rates(switch))} Gbit/s)",
                         hint="Pick a switch whose ports or breakouts run at the NIC's rate.")
    return SwitchPorts(switch.id, radix, max(1, radix // switch.cages), switch.form_factor,
                       magnitude(switch.lane_rate, "rate"), rate_gbps)


def smallest_spread(uplinks: int, sources: int, ports: int, least: int = 1, unit: int = 1, spare: int = 0
                    ) -> int | None:
    """Smallest d >= ``least`` dividing ``uplinks`` with sources x uplinks / d <= ports (None if none),
    each source's links to each of the d in whole ``unit``s (the switches' own rate: 4 x 200G links are
    one 800G link), and ``spare`` ports left free over the d (the fabric managers' ports where no leaf
    has one free: bom/topology/ufm.py).

    >>> smallest_spread(32, 32, 64)   # DGX H100 SuperPOD 4 SU: 32 leaves x 32 up -> 16 spines
    16
    >>> smallest_spread(4, 16, 128), smallest_spread(4, 16, 128, least=4)   # Juniper JVD: 4 spines
    (1, 4)
    >>> smallest_spread(24, 40, 256), smallest_spread(24, 40, 256, unit=4)   # 6 x 200G a pair, or 1 x 800G
    (4, 6)
    >>> smallest_spread(72, 4, 144), smallest_spread(72, 4, 144, spare=4)   # 4 full Q3400 leaves; 4 UFM ports
    (2, 3)
    """
    need = math.ceil((sources * uplinks + spare) / ports)
    for d in range(max(1, need, least), uplinks + 1):
        if uplinks % d == 0 and (uplinks // d) % unit == 0 and sources * (uplinks // d) <= ports \
                and d * ports - sources * uplinks >= spare:
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
               scheduled: bool = False, peer_links: int = 0, native_only: bool = False, spare_top: int = 0) -> Plane:
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
    ``native_only``: no part joins two switches at the nodes' rate, so ``native`` is not a preference but
    the only rate between them: where the fewest spines leave a pair without whole native links, the
    uplinks spread in whole native links instead (the spine count chosen for it), never a fallback to the
    nodes' rate.
    ``spare_top``: ports the top layer (spines, or cores in three layers) leaves free over and above
    the fabric's own links (the fabric managers' ports where no leaf has a downlink free for them:
    bom/topology/ufm.py); more top switches where the fewest leave too few.
    ``peer_links``: the leaves stand in MLAG pairs (an even number of them per group, each node's ports
    dual-homed over its pair) with this many peer links between a pair's two switches, in whole cages
    kept from each leaf's downlinks.
    """
    over = ratio(oversubscription)
    pair = NativePorts.same(native) if isinstance(native, SwitchPorts) else native
    # What the scenario's keys ask of each other, and of the platform and switch rows, is refused before
    # any plan (bom/inputs/scenario.py's validators, bom/topology/preflight.py): here it only holds.
    assert not scheduled or (topology not in ("pair", "rail-only") and over == 1 and layers != 1)
    assert min_spines is None or (topology not in ("pair", "rail-only") and layers != 1)
    if topology == "pair":
        return _pair(nodes, node_ports, leaf, over, layers, pair)
    assert rails_per_leaf is None or (topology in ("rail-optimized", "rail-only") and not node_blocks
                                      and node_ports % rails_per_leaf == 0)
    if topology == "rail-only":
        return _rail_only(nodes, node_ports, leaf, topology, rails_per_leaf, layers, node_blocks)
    reserve = _cages(peer_links, leaf.ports_per_cage) if peer_links else 0
    single = (None if rails_per_leaf not in (None, node_ports) or min_spines is not None
              else _single(nodes, node_ports, leaf, topology, group_nodes, layers, leaf_uplink, reserve,
                           bool(peer_links)))
    if single is not None:
        return single
    if layers == 1 and topology == "rail-optimized":   # one layer of rail leaves: the rail-only shape
        return _rail_only(nodes, node_ports, leaf, topology, rails_per_leaf, layers, node_blocks)
    if layers == 1:
        # A ToR leaf joins only its own rack's nodes: one layer of them is one switch for every node.
        raise LimitError(f"one layer of {topology} leaves is one {leaf.id} for every node, and this fabric's "
                         f"{nodes * node_ports} ports to its leaves do not fit its {leaf.radix}", key="layers",
                         hint="Use layers: auto (leaves and spines), or on the compute fabric topology: rail-only "
                              "for rail leaves with no spine.", fix={("layers",): "auto"})
    spine_over = None if spine_oversubscription is None else ratio(spine_oversubscription)
    assert spine_over in (None, 1) or layers != 2   # a spine ratio needs a core layer (the scenario's rule)
    if leaf_uplink is not None:
        down, up = leaf.radix - reserve, leaf_uplink.radix
    else:
        down, up = _leaf_split(leaf.radix, leaf.ports_per_cage, over)
        down -= reserve
    if nodes <= group_nodes:
        group_nodes = nodes   # one partial group: the pod itself, not a whole SU, sets the leaves
    per_group, used, blocks, rails = _group_leaves(topology, node_blocks, group_nodes, node_ports, down,
                                                   rails_per_leaf)
    if peer_links and per_group % 2:
        per_group += 1   # MLAG pairs: a group's ports dual-homed over whole pairs
    # Uplinks match the downlinks a full group uses at this oversubscription (a scheduled fabric's
    # interface node cables every fabric port: cells are sprayed over all of them).
    if not scheduled:
        up = min(up, _cages(Fraction(used) / over, (leaf_uplink or leaf).ports_per_cage))
    least = min_spines or 1
    if least > up:
        raise LimitError(f"min_spines {least} spreads each leaf's uplinks over {least} spines, and a leaf here has "
                         f"{up} (one link to each spine at most)", key="min_spines", fix={("min_spines",): up},
                         hint=f"Use min_spines of at most {up}, or more uplinks per leaf (a lower "
                              "oversubscription, or uplink_rate: downlink).")
    groups = math.ceil(nodes / group_nodes)
    last = nodes - (groups - 1) * group_nodes
    base = _PlaneBase(topology=topology, group_nodes=group_nodes, groups=groups, last_group_nodes=last,
                      node_ports=node_ports, leaves_per_group=per_group, leaf_down=down, leaf_up=up,
                      leaf=leaf, spine=spine, leaf_uplink=leaf_uplink, nodes_per_leaf=blocks,
                      rails_per_leaf=rails, scheduled=scheduled)
    unit = 1
    two = _two_layers(groups * per_group, up, spine.radix, least, unit, spare_top)
    if layers == 2 and two is None:
        raise LimitError(f"two layers of {spine.id} join at most {spine.radix} leaves; this fabric "
                         f"has {groups * per_group}", key="layers", fix={("layers",): 3},
                         hint="Set layers: 3 (or auto), or use a larger switch.")
    if layers in (None, 2) and two is not None and (spine_over in (None, 1) or layers == 2):
        p = Plane(layers=2, pods=1, groups_per_pod=groups, spines_per_pod=two, cores_per_group=0, **base)
    else:
        # A spine ratio other than 1:1 asks for the taper above the pods, so three layers.
        p = _three_layers(base, groups, per_group, up, spine, gpus_per_node, spine_over or Fraction(1), least,
                          unit, spare_top)
    native_p = _at_native_rate(p, pair)
    unit = _native_unit(leaf_uplink or leaf, spine, pair) if native_only else 1
    if native_p is p and unit > 1 and p.layers > 1:
        # The fewest spines leave a pair with part of a native link: spread in whole native links instead.
        two = _two_layers(groups * per_group, up, spine.radix, least, unit, spare_top) if p.layers == 2 else None
        if two is not None:
            p = replace(p, spines_per_pod=two)
        elif p.layers == 2 and layers == 2:
            assert pair is not None
            raise LimitError(f"two layers of {spine.id} cannot join these {groups * per_group} leaves in whole "
                             f"{pair.up.rate_gbps:g}G links (no part joins two of them at {leaf.rate_gbps:g}G)",
                             key="layers", hint="Set layers: 3 (or auto), or use a larger switch.",
                             fix={("layers",): 3})
        else:
            p = _three_layers(base, groups, per_group, up, spine, gpus_per_node, spine_over or Fraction(1), least,
                              unit, spare_top)
        native_p = _at_native_rate(p, pair)
    return native_p


def check_uplink_rate(name: str, p: Plane, asked: float) -> None:
    """Every switch-to-switch link at the rate the scenario states: a plane whose pairs cannot take whole links
    of it is refused (the planner spread the uplinks in units of it and found no such spread)."""
    if (p.layers > 1 or p.isl) and not math.isclose(p.up.rate_gbps, asked):
        raise LimitError(f"uplink_rate {asked:g}G: the {name} fabric's {p.leaves} leaves cannot spread their uplinks "
                         f"in whole {asked:g}G links over its switches (each pair would need part of one)",
                         key="uplink_rate", hint="Use uplink_rate: downlink (links at the nodes' rate), or another "
                                                 "oversubscription or switch.", fix={("uplink_rate",): "downlink"})


#: Keys of a fabric's spec that :func:`size_plane` names in its errors, relative to ``fabrics.<name>`` (its
#: callers size under ``keyed(..., below=SPEC_KEYS)``).
SPEC_KEYS = ("rails_per_leaf", "layers", "topology", "min_spines", "uplink_rate")


def _rail_only(nodes: int, node_ports: int, leaf: SwitchPorts, topology: Topology, rails_per_leaf: int | None,
               layers: int | None, node_blocks: bool) -> Plane:
    """Rail leaves and no spine (rail-only, Wang et al. 2023; rail-optimized with layers: 1): every node's
    port of a rail on one leaf, which takes ``rails_per_leaf`` rails (default: as many as its ports
    hold). GPUs of different rails meet only through the scale-up domain."""
    assert layers in (None, 1)   # rail-only with more layers: the scenario's rule
    if node_blocks:
        # Here, not before the plan: with layers: 1 on a rail-optimized fabric it depends on the count (a
        # fabric one switch holds is that switch, and takes whole trays).
        raise LimitError("rail leaves with no spine need a rail per node port; a rack-scale platform's leaves "
                         "take whole trays", key="topology" if topology == "rail-only" else "layers",
                         hint="Use topology: rail-optimized with layers: auto.",
                         fix={("topology",): "rail-optimized", ("layers",): "auto"})
    fit = leaf.radix // nodes
    if fit < 1:
        raise LimitError(f"a rail-only fabric puts one rail of every node on one leaf; {nodes} nodes are more "
                         f"than the {leaf.radix} ports of {leaf.id} at {leaf.rate_gbps:g} Gbit/s",
                         key="topology", fix={("topology",): "rail-optimized"},
                         hint="Use topology: rail-optimized (leaves and spines), a larger switch, or fewer nodes.")
    rails = rails_per_leaf or _largest_divisor(node_ports, fit)
    if rails > fit:
        raise LimitError(f"rails_per_leaf {rails} puts {rails * nodes} node ports on one {leaf.id}, which has "
                         f"{leaf.radix}", key="rails_per_leaf",
                         hint=f"Use rails_per_leaf of at most {fit}, or a larger switch.",
                         fix={("rails_per_leaf",): fit})
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
            # It must also divide the node's rails (the preflight's rule): the largest such within the downlinks.
            most = _largest_divisor(node_ports, down)
            raise LimitError(f"rails_per_leaf {rails} is more than a leaf's {down} downlinks", key="rails_per_leaf",
                             hint=f"Use rails_per_leaf of at most {down} that divides the node's {node_ports} rails "
                                  f"(rails_per_leaf: {most}).", fix={("rails_per_leaf",): most})
        # Each leaf of a rail set takes whole nodes (all ``rails`` of their ports), down // rails of them.
        per_rail = math.ceil(group_nodes / (down // rails))
        return node_ports // rails * per_rail, math.ceil(group_nodes / per_rail) * rails, 0, rails
    per_group = math.ceil(group_nodes * node_ports / down)
    return per_group, math.ceil(group_nodes * node_ports / per_group), 0, 1


def _single(nodes: int, node_ports: int, leaf: SwitchPorts, topology: Topology, group_nodes: int,
            layers: int | None, leaf_uplink: SwitchPorts | None, reserve: int = 0, pair: bool = False
            ) -> Plane | None:
    """The whole fabric on one switch when every node port fits it (no spines to build), or on one MLAG
    pair when ``pair`` (each switch keeping ``reserve`` ports for the peer links)."""
    leaves = 2 if pair else 1
    if layers not in (None, 1) or leaf_uplink is not None or nodes * node_ports > leaves * (leaf.radix - reserve):
        return None
    if topology == "tor" and nodes > group_nodes:
        return None   # a ToR fabric of several racks keeps a ToR per rack
    rails = node_ports if topology == "rail-optimized" else 1
    return Plane(topology=topology, layers=1, group_nodes=nodes, groups=1, last_group_nodes=nodes,
                 node_ports=node_ports, leaves_per_group=leaves, leaf_down=leaf.radix - reserve, leaf_up=0, pods=1,
                 groups_per_pod=1, spines_per_pod=0, cores_per_group=0, leaf=leaf, spine=leaf,
                 rails_per_leaf=rails)


def _pair(nodes: int, node_ports: int, leaf: SwitchPorts, over: Fraction, layers: int | None,
          native: NativePorts | None) -> Plane:
    """Two switches joined by ISLs, each with half of every node's ports (half the rails);
    the ISLs carry what one switch's nodes send to the other's at the oversubscription."""
    # One layer, and half of every node's ports on each switch: the scenario's and the preflight's rules.
    assert layers in (None, 1) and (node_ports % 2 == 0 or node_ports == 1)
    rails = max(1, node_ports // 2)
    down = nodes * rails if node_ports > 1 else math.ceil(nodes / 2)
    isl = _cages(Fraction(down) / over, leaf.ports_per_cage)
    if down + isl > leaf.radix:
        most = leaf.radix * over / (over + 1) * 2 // max(1, node_ports)
        raise LimitError(f"a pair of {leaf.id} holds at most {int(most)} nodes of {node_ports} ports at "
                         f"{over.numerator}:{over.denominator}; this fabric has {nodes}",
                         key="topology", fix={("topology",): "rail-optimized"},
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


def _native_unit(up: SwitchPorts, spine: SwitchPorts, native: NativePorts | None) -> int:
    """Links at the NICs' rate that one native link carries where the switches join at their own rate
    (the same factor at both ends), else 1."""
    if native is None:
        return 1
    k = _native_factor(up, native.up)
    return k if k > 1 and k == _native_factor(spine, native.spine) and up.radix % k == 0 else 1


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


def _two_layers(leaves: int, up: int, spine_radix: int, least: int = 1, unit: int = 1, spare: int = 0) -> int | None:
    return smallest_spread(up, leaves, spine_radix, least, unit, spare)


def _pod_shape(leaves: int, per_group: int, up: int, spine: SwitchPorts, spine_over: Fraction = Fraction(1),
               least: int = 1, unit: int = 1, spare: int = 0) -> tuple[int, int, int, int] | None:
    """(leaves per pod, spines per pod, spine uplinks, cores per group) with the fewest spines
    and cores; on a tie whole SUs per pod, then fewer pods, then fuller pods. A spine keeps its
    ports down:up at ``spine_over`` (1:1: half each), and uplinks what its used downlinks carry at
    that ratio (a 7:1 taper: a seventh); each leaf's uplinks spread over ``least`` spines at least."""
    if spine_over == 1:
        down_most = up_most = spine.radix // 2
    else:
        down_most, up_most = _leaf_split(spine.radix, spine.ports_per_cage, spine_over)
    best: tuple[tuple[int, int, int, int], tuple[int, int, int, int]] | None = None
    for d in (d for d in range(least, up + 1) if up % d == 0 and (up // d) % unit == 0):
        for size in range(1, min(leaves, down_most // (up // d)) + 1):
            pods = math.ceil(leaves / size)
            down = size * (up // d)
            spine_up = min(up_most, _cages(down if spine_over == 1 else Fraction(down) / spine_over,
                                           math.lcm(spine.ports_per_cage, unit)))
            cores = smallest_spread(spine_up, pods, spine.radix, unit=unit, spare=spare)
            if cores is None:
                continue
            key = (pods * d + d * cores, 0 if size % per_group == 0 else 1, pods, -size)
            if best is None or key < best[0]:
                best = (key, (size, d, spine_up, cores))
    return best[1] if best else None


def _three_layers(base: _PlaneBase, groups: int, per_group: int, up: int, spine: SwitchPorts,
                  gpus_per_node: int, spine_over: Fraction = Fraction(1), least: int = 1, unit: int = 1,
                  spare: int = 0) -> Plane:
    leaves = groups * per_group
    shape = _pod_shape(leaves, per_group, up, spine, spine_over, least, unit, spare)
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
