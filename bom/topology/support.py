"""The fabrics around the compute fabric, sized by the ports they carry, as the SuperPOD RAs size them.

Storage and in-band: the nodes' storage (in-band) ports go to leaves in their block's network
rack, one leaf group per ``group`` nodes: the scenario's ``su_nodes`` for that fabric, else the
largest whole share of the block whose ports fill a leaf's downlinks (so a leaf uses at least half
its ports unless the whole fabric is smaller). Storage appliances (storage) and fabric managers and
management servers (in-band) get leaf groups of their own after the nodes'. All leaves share the
fabric's spines; the planner is bom/topology/planes.py's, counting one port as one endpoint. A site whose
lower ports (nodes, endpoints, management switches' uplinks) all fit one leaf, in one compute
block, is that one leaf: no spine and no endpoint leaves (the BasePOD's single management and
storage switch layer; the SuperPOD RA's per-SU endpoint leaves exist to hang off its spines).

Out-of-band: one port on every managed device the placement holds (nodes' BMCs, NVLink switch
trays, every other switch, PDUs, appliances, servers). Management switches stand where the
platform's RA puts them (two in each NVL72 rack) or in the block's network rack, one more for the
shared racks (none when one switch holds every managed device of a one-block site); their
uplinks run into the in-band fabric unless the scenario asks for a separate OOB spine layer
(``fabrics.oob.uplinks: spine``). The management switches themselves are managed
in-band over those uplinks, so they take no OOB port of their own.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction

from bom.catalog.media import Media, cage
from bom.catalog.rows import NicPorts, Switch
from bom.errors import BomError, LimitError, keyed
from bom.inputs.scenario import FabricSpec
from bom.model.fabrics import Fabric, OobFabric, OobSection, PooledFabric, PooledShape
from bom.model.model import Design
from bom.model.placement import Placement
from bom.model.plane import NativePorts, Plane, SwitchPorts
from bom.roles import FabricRole, Layer, RackKind, Tier
from bom.topology.geometry import block_nodes
from bom.topology.planes import SPEC_KEYS, check_uplink_rate, size_plane, smallest_spread, switch_ports, uplink_ports
from bom.units import magnitude


def leaf_down(leaf: Switch, rate_gbps: float, oversubscription: float | Fraction) -> int:
    ports = switch_ports(leaf, rate_gbps)
    if leaf.uplinks is not None:
        return ports.radix
    up = math.ceil(ports.radix / (oversubscription + 1) / ports.ports_per_cage) * ports.ports_per_cage
    return ports.radix - up


def group_size(block: int, per_rack: int, node_ports: int, down: int) -> int:
    """The largest divisor of the block whose ports fit a leaf's downlinks (the fewest, fullest leaves)."""
    fits = [g for g in range(1, block + 1) if block % g == 0 and g * node_ports <= down]
    g = max(fits, default=1)
    if 2 * g * node_ports < down:
        # No divisor fills half a leaf (a block of 41 nodes): the block's ports split evenly over
        # the fewest groups that hold them (PooledShape.node_fills), 41 + 41 ports, not 41 x 2.
        g = math.ceil(block / math.ceil(block * node_ports / down))
    return g


def endpoint_groups(kinds: Sequence[tuple[str, NicPorts | None, int]], group_ports: int, per_cage: int) -> int:
    """Leaf groups for the endpoints: each kind is spread evenly over them, and a twin-port cage
    holds one kind's module, so each kind's share is rounded up to whole cages.

    A 72-port leaf (36 twin-port cages) cannot hold 70 + 1 + 1 ports of three kinds (37 cages), and
    the leaves that take one more port of every kind take it of each kind at once:

    >>> k = [("oob", None, 3062), ("mgmt", None, 10), ("ufm", None, 8)]
    >>> endpoint_groups(k, 72, 2), endpoint_groups(k, 72, 1), endpoint_groups([], 72, 2)
    (46, 44, 0)
    >>> endpoint_groups([("a", None, 1), ("b", None, 1), ("c", None, 1)], 4, 2)   # 3 cages never fit 4 ports
    1
    """
    total = sum(n for _, _, n in kinds)
    by_ports = math.ceil(total / group_ports)
    # Past one group per port no kind's share shrinks further: a group too small for a cage of
    # every kind keeps the count by ports (the plan says so if the cages do not suffice).
    for groups in range(by_ports, total + 1):
        if sum(math.ceil(math.ceil(n / groups) / per_cage) * per_cage for _, _, n in kinds) <= group_ports:
            return groups
    return by_ports


def with_ra_ratio(name: str, spec: FabricSpec, design: Design) -> FabricSpec:
    """The spec with the platform RA's leaf ratio for this fabric unless the scenario states one.

    The RAs oversubscribe storage (and, where one Ethernet fabric carries both, in-band): the ratio
    and its source are the platform row's ``support.oversubscription``; a scenario's
    ``oversubscription`` (even 1) wins.
    """
    sup = design.platform.support
    if "oversubscription" in spec.model_fields_set or sup is None or name not in sup.oversubscription:
        return spec
    down, _, up = sup.oversubscription[name].partition(":")
    return spec.model_copy(update={"oversubscription": Fraction(int(down), int(up))})


def _ports_of(name: str, design: Design) -> NicPorts | None:
    p = design.platform
    ports: dict[str, NicPorts | None] = {FabricRole.STORAGE: p.storage, FabricRole.INBAND: p.inband}
    return ports[name]


def one_leaf(spec: FabricSpec, nodes: int, block: int, ports: int, radix: int) -> bool:
    """Whether a site's storage / in-band fabric is one leaf: all its lower ports (nodes,
    endpoints, management switches' uplinks) fit one leaf's ports, the site is one compute block,
    and the scenario fixes neither the leaf groups (``su_nodes``) nor the layers.

    >>> from bom.inputs.scenario import FabricSpec
    >>> one_leaf(FabricSpec(), 8, 32, 36, 64), one_leaf(FabricSpec(), 8, 32, 65, 64)
    (True, False)
    """
    fixed = spec.su_nodes is not None or spec.layers not in ("auto", 1)
    return not fixed and nodes <= block and ports <= radix


def border_ports(leaf: Switch, per_cage: int, rate_gbps: float, links: int) -> int:
    """Leaf ports at the fabric's rate (whole cages, ``per_cage`` to a cage) that ``links`` client
    links at ``rate_gbps`` take: 64 links of 400G on SN5600 are 32 cages, 32 ports at 800G.

    >>> from bom.catalog.load import load_catalog
    >>> sn5600 = load_catalog().get("switches", "sn5600")
    >>> border_ports(sn5600, 1, 400.0, 64), border_ports(sn5600, 2, 400.0, 63)
    (32, 64)
    """
    return math.ceil(links / switch_ports(leaf, rate_gbps).ports_per_cage) * per_cage


def border_units(shape: PooledShape, border: int, g_units: int, per_cage: int) -> tuple[int, int, int]:
    """(endpoint units, border groups, border units) the planner takes after the nodes' groups: the
    DCI routers' ``border`` client ports on leaf groups of their own in whole cages, after the
    endpoints' groups made whole (the planner's last group alone may be partial)."""
    extra, extra_groups = shape.extra_units, shape.extra_groups
    e_units = extra if extra_groups == math.ceil(extra / g_units) else extra_groups * g_units
    if not border:
        return e_units, 0, 0
    groups = endpoint_groups([(Layer.ROUTER, None, border)], g_units, per_cage)
    b_units = border if groups == math.ceil(border / g_units) else groups * g_units
    return extra_groups * g_units, groups, b_units


def switch_rates(spec: FabricSpec, media: Media, leaf: Switch, spine: Switch, rate: float,
                 leaf_p: SwitchPorts, spine_p: SwitchPorts) -> list[NativePorts | None]:
    """The rates a pooled fabric's leaves and spines may join at, to try in turn: the nodes' rate
    where a part joins two such cages at it (None); where none does (200G, a quarter of an 800G
    OSFP cage: no twin-port part runs switch to switch split 1:4) the switches' own rates above the
    nodes' that a part joins, fastest first (800G, then 400G), as ``uplink_rate: native`` joins a
    switch fabric's. The plan takes one only where every pair has whole ports at it. A rate the
    scenario states is the only one (its ports at both ends: the preflight's rule)."""
    asked = spec.uplink_gbps
    if asked is not None:
        return [NativePorts(switch_ports(leaf, asked), switch_ports(spine, asked)) if asked > rate else None]
    lane = leaf_p.lane_gbps
    if spec.uplink_rate != "native" or media.joins(
            rate, cage(leaf_p.form_factor, leaf_p.ports_per_cage, True),
            cage(spine_p.form_factor, spine_p.ports_per_cage, True), lane):
        return [None]
    if leaf.form_factor != spine.form_factor:
        return [None]
    own = {magnitude(s.port_rate, "rate") for s in (leaf, spine)} | {
        magnitude(b.rate, "rate") for s in (leaf, spine) for b in s.breakouts}
    out: list[NativePorts | None] = []
    for r in sorted((r for r in own if r > rate), reverse=True):
        try:
            pair = NativePorts(switch_ports(leaf, r), switch_ports(spine, r))
        except LimitError:
            continue   # one of the two has no ports at this rate
        if media.joins(r, cage(pair.up.form_factor, pair.up.ports_per_cage, True),
                       cage(pair.spine.form_factor, pair.spine.ports_per_cage, True), lane):
            out.append(pair)
    return out or [None]


def build_pooled(name: str, spec: FabricSpec, design: Design, media: Media, leaf: Switch, spine: Switch,
                 oob_uplinks: tuple[NicPorts, list[int]] | None = None,
                 border: tuple[float, list[int]] | None = None) -> Fabric:
    """``oob_uplinks``: the management switches' uplinks into this (in-band) fabric, per site shape;
    ``border``: the rate of the DCI routers' client links and how many a site of each shape brings to
    this fabric's border leaves."""

    nic = _ports_of(name, design)
    assert nic is not None   # a platform with no ports on this fabric: the preflight's rule
    spec = with_ra_ratio(name, spec, design)
    fp = design.floor
    compute = design.fabrics.get(FabricRole.COMPUTE)
    rate = magnitude(nic.rate, "rate") / spec.planes
    leaf_p = switch_ports(leaf, rate)
    asked = spec.uplink_gbps
    uplinks = uplink_ports(leaf, asked) if leaf.uplinks is not None and asked is not None else uplink_ports(leaf)
    spine_p = switch_ports(spine, uplinks.rate_gbps if uplinks else rate)
    natives = switch_rates(spec, media, leaf, spine, rate, leaf_p, spine_p) if uplinks is None else [None]
    # MLAG pairs: each switch keeps its peer links' cages, and a group's ports fill a pair of them.
    reserve = math.ceil((spec.mlag or 0) / leaf_p.ports_per_cage) * leaf_p.ports_per_cage
    down = (leaf_down(leaf, rate, spec.leaf_ratio) - reserve) * (2 if spec.mlag else 1)
    ends = design.endpoints
    kinds = ends.kinds(name) if ends else []
    # Per site shape: its count, (leaf units, units per leaf group) for the planner, its leaf groups.
    sites: list[tuple[int, tuple[int, int], PooledShape]] = []
    for k, site in enumerate(design.cluster.sites):
        site_kinds = list(kinds)
        if oob_uplinks is not None and oob_uplinks[1][k]:
            site_kinds.append((Layer.OOB, oob_uplinks[0], oob_uplinks[1][k]))
        extra = sum(n for _, _, n in site_kinds)
        block = block_nodes(compute.shapes[k][1] if compute else None, fp)
        if spec.su_nodes is not None:
            if block % spec.su_nodes:
                raise BomError(f"su_nodes {spec.su_nodes} must divide the compute block of {block} nodes "
                               f"(its leaves stand in the block's network rack)",
                               at=("fabrics", name, "su_nodes"), key=f"fabrics.{name}.su_nodes",
                               hint=f"Leave su_nodes out (one leaf group a block), or use a divisor of {block}.",
                               fix={("fabrics", name, "su_nodes"): None})
            g = spec.su_nodes
        else:
            g = group_size(block, fp.nodes_per_rack, nic.ports, down)
        g_units = g * nic.ports
        node_units = site.nodes * nic.ports
        shape = PooledShape(node_units, extra, g_units, 0, site_kinds, block_units=block * nic.ports)
        padded = shape.node_groups * g_units
        extra_groups = endpoint_groups(site_kinds, g_units, leaf_p.ports_per_cage)
        b_ports = border_ports(leaf, leaf_p.ports_per_cage, border[0], border[1][k]) if border else 0
        single = one_leaf(spec, site.nodes, block, node_units + extra + b_ports,
                          (leaf_p.radix - reserve) * (2 if spec.mlag else 1))
        if single:
            # Every port of the site fits one leaf: that leaf is the fabric (no spine, no
            # endpoint leaves of their own); the RA's per-SU endpoint leaves need a spine to join.
            g_units, padded, extra_groups = node_units, node_units, 0
        # As many leaf groups as the endpoints need in whole cages (never fewer than by ports), then
        # the DCI routers' border leaves.
        e_units, b_groups, b_units = border_units(replace(shape, extra_groups=extra_groups), 0 if single else b_ports,
                                                  g_units, leaf_p.ports_per_cage)
        sizing = (padded + e_units + b_units, padded + extra + b_ports if single else g_units)
        sites.append((site.count, sizing, PooledShape(node_units, extra, g_units, extra_groups, site_kinds,
                                                      block_units=g_units if single else block * nic.ports,
                                                      border_units=b_ports, border_groups=b_groups)))

    def plane(sizing: tuple[int, int], native: NativePorts | None) -> Plane:
        units, group_nodes = sizing
        return size_plane(units, 1, leaf_p, spine_p, topology="tor", group_nodes=group_nodes,
                          layers=None if spec.layers == "auto" else int(spec.layers),
                          oversubscription=spec.leaf_ratio, leaf_uplink=uplinks, native=native,
                          spine_oversubscription=spec.spine_ratio, peer_links=spec.mlag or 0,
                          # The slowest native rate is the last one a part joins at: no fallback past it.
                          native_only=native is not None and native is natives[-1])

    with keyed(("fabrics", name), f"fabrics.{name}", only=LimitError, below=SPEC_KEYS):
        for native in natives:
            # One fabric, one switch-to-switch rate (the hops and the rules count the first site
            # shape's): the fastest at which every site's leaf-spine pairs have whole ports.
            shapes = [(count, plane(sizing, native)) for count, sizing, _ in sites]
            two = {(p.up.rate_gbps, p.spine.rate_gbps) for _, p in shapes if p.layers > 1}
            if len(two) < 2 and not any(math.isclose(p.spine.rate_gbps, rate) for _, p in shapes if p.layers > 1):
                break
        if asked is not None and natives[0] is not None:
            for _, p in shapes:
                check_uplink_rate(name, p, asked)
    pooled = [ps for _, _, ps in sites]
    return PooledFabric(name, Tier.SCALE_OUT, spec, spec.planes, shapes, node_ports=nic, pooled=pooled,
                        leaf_switch=leaf)


def oob_sections(design: Design, placement: Placement, leaf: Switch,
                 ) -> tuple[list[OobSection], list[tuple[list[tuple[int, int]], int]], list[int]]:
    """Management switches per section of the placement, from its managed devices; and per site of each shape."""
    sup = design.platform.support
    per_rack = sup.oob_switches_per_rack if sup else 0
    down = leaf.ports
    out = []
    per_shape = []
    per_site = []
    for shape in placement.sites:
        site = 0
        blocks: list[tuple[int, int]] = []
        shared_devices = 0
        for sec in shape.sections:
            if not sec.block:
                shared_devices += sum(1 for lay in sec.layouts for item, _ in lay.slots if item.managed)
                continue
            racks = [lay for lay in sec.layouts]
            devices = sum(1 for lay in racks for item, _ in lay.slots if item.managed)
            compute = [lay for lay in racks if lay.kind == RackKind.COMPUTE]
            if per_rack and compute:
                racked = [sum(1 for item, _ in lay.slots if item.managed) for lay in compute]
                need = max(math.ceil(n / down) for n in racked)
                rest = devices - sum(racked)
                sec_oob = OobSection(shape.count * sec.copies, devices, max(per_rack, need), len(compute),
                                     math.ceil(rest / down))
            else:
                sec_oob = OobSection(shape.count * sec.copies, devices, 0, 0, math.ceil(devices / down))
            out.append(sec_oob)
            blocks.append((sec_oob.per_rack, sec_oob.block))
            site += sec.copies * (sec_oob.per_rack * sec_oob.racks + sec_oob.block)
        shared = math.ceil(shared_devices / down)
        mine = out[len(out) - len(blocks):]
        if (len(mine) == 1 and mine[0].copies == shape.count and not mine[0].per_rack
                and mine[0].devices + shared_devices <= down):
            # One switch holds every managed device of the site (a BasePOD-size pod): no separate
            # switch for the shared racks, which would sit mostly empty.
            total = mine[0].devices + shared_devices
            out[-1] = OobSection(shape.count, total, 0, 0, 1)
            blocks, site, shared, shared_devices = [(0, 1)], 1, 0, 0
        if shared_devices:
            out.append(OobSection(shape.count, shared_devices, 0, 0, shared))
        per_shape.append((blocks, shared))
        per_site.append(site + shared)
    return out, per_shape, per_site



def build_oob(spec: FabricSpec, design: Design, placement: Placement, media: Media, leaf: Switch,
              spine: Switch | None) -> OobFabric:
    if leaf.uplinks is None:
        raise BomError(f"switch {leaf.id!r} has no uplink ports for a management switch",
                       at=("fabrics", "oob", "switch"), key="fabrics.oob.switch",
                       hint="Use a management switch with uplinks, such as switch: sn2201.",
                       fix={("fabrics", "oob", "switch"): "sn2201"})
    sections, per_shape, per_site = oob_sections(design, placement, leaf)
    up_rate = magnitude(leaf.uplinks.rate, "rate")
    # A management switch's 48 x 1G fit one 100G uplink without blocking: one per switch.
    per_leaf = max(1, math.ceil(leaf.ports * magnitude(leaf.port_rate, "rate") / up_rate))
    fabric = OobFabric(FabricRole.OOB, Tier.SCALE_OUT, spec, 1, [], node_ports=design.platform.oob, sections=sections,
                       per_shape=per_shape, leaf_id=leaf.id, site_leaves=per_site, uplinks_per_leaf=per_leaf,
                       into_inband=spec.uplinks != Layer.SPINE and FabricRole.INBAND in design.fabrics)
    if spec.uplinks == Layer.SPINE:
        assert spine is not None
        sp = switch_ports(spine, up_rate)
        # Each site's management switches uplink to spines in that site (never across buildings).
        spines = [(shape.count, smallest_spread(per_leaf, leaves, sp.radix) or math.ceil(leaves * per_leaf / sp.radix))
                  for shape, leaves in zip(placement.sites, per_site, strict=True)]
        fabric = replace(fabric, spine_id=spine.id, site_spines=spines)
    return fabric
