"""The design's placement: which devices go in which racks (the packing itself is bom/placement/racks.py).

Blocks follow the compute fabric: a rail-optimised fabric's scalable unit (its leaves in the
block's network rack), or a row of racks on a ToR fabric (its leaves in each rack when they
fit). Non-compute leaves of a block stand in the block's network rack; in-rack management
switches (NVL72: two per rack) stand in each compute rack. Spines and cores of every fabric,
the storage appliances' leaves, fabric managers, management servers and storage appliances
go to shared racks.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial

from bom import names
from bom.catalog.rows import Catalog, Endpoint, Platform, Switch
from bom.catalog.rows import RackType as RackRow
from bom.links.ports import OWN_BORDER_ROLE
from bom.links.power import parts_of, pdus_needed
from bom.model.fabrics import Fabric, OobFabric, PooledFabric, PooledShape
from bom.model.model import Design
from bom.model.placement import Item, Layout, Placement, RackType, Section, SiteLayout
from bom.model.plane import Plane
from bom.placement.racks import BlockSpec, block_section, pack, shared_sections
from bom.roles import FabricRole, Layer, RackKind, Tier
from bom.topology.geometry import GROUPED, block_nodes
from bom.units import magnitude


def switch_item(catalog: Catalog, sid: str, role: str, fabric: str, used_native: float | None = None) -> Item:
    """A switch to place. ``used_native``: a modular chassis's native ports in use, so its rack budget
    counts the line cards they fill, as the BOM's lines do (None: a full chassis)."""
    row = catalog.get("switches", sid)
    assert isinstance(row, Switch)
    if row.modular is not None and used_native is not None:
        return Item(role, row.id, row.rack_units, row.modular.power_w(used_native, peak=True), fabric)
    # A rack's power budget is facility sizing: the switch at its maximum less its optics, where the
    # row says what its maximum counts (bom/costing/tco.py POWER_BASIS), else its typical.
    peak = row.power_max_without_optics_w
    return Item(role, row.id, row.rack_units, magnitude(row.power_typical, "power") if peak is None else peak, fabric)


def _chassis_use(catalog: Catalog, plane: Plane, layer: Layer) -> float | None:
    """The native ports the busiest switch of a spine or core layer uses (None: not a modular chassis)."""
    row = catalog.get("switches", plane.spine.id)
    use = plane.port_use(layer)
    if not isinstance(row, Switch) or row.modular is None or not use:
        return None
    return max(used for _, used in use) * row.ports / plane.spine.radix


def endpoint_item(row: Endpoint) -> Item:
    return Item(row.role, row.id, row.rack_units, magnitude(row.power, "power"), None,
                managed=row.ports.oob is not None)


def rack_type(catalog: Catalog, rack_id: str, power_w: float | None, u: int | None) -> RackType:
    row = catalog.get("racks", rack_id)
    assert isinstance(row, RackRow)
    return RackType(row.id, u or row.rack_units, power_w or magnitude(row.power_budget, "power"))


def with_pdus(catalog: Catalog, rack: RackType, pdu_id: str) -> RackType:
    """A rack with its A/B pairs of PDUs, as many as its power budget needs."""
    pdu = catalog.get("endpoints", pdu_id)
    assert isinstance(pdu, Endpoint) and pdu.power_capacity is not None
    capacity = magnitude(pdu.power_capacity, "power")
    per_feed = math.ceil(rack.power_budget_w / capacity)
    return RackType(rack.catalog_id, rack.u_budget, rack.power_budget_w, endpoint_item(pdu), 2 * per_feed, capacity)


def node_item(platform: Platform) -> Item:
    return Item(Layer.NODE, platform.id, platform.node_rack_units, platform.node_power_w, None)


def place(design: Design, catalog: Catalog) -> Placement:
    platform = design.platform
    sup = platform.support
    assert sup is not None   # a platform with no racks and PDUs in the catalog: the preflight's rule
    spec = design.scenario.racks
    compute_rack = with_pdus(catalog, rack_type(catalog, sup.rack, design.rack_power_w, spec.rack_units),
                             sup.pdu)
    net_rack = with_pdus(catalog, rack_type(catalog, sup.network_rack, None, None), sup.pdu)
    compute = design.fabrics.get(FabricRole.COMPUTE)
    own = _own_sections(design, catalog, net_rack)
    per = design.floor.racks_per_row
    sites = []
    first = 0
    fit = _outlets(catalog, sup.pdu)
    own = [fit(sec) if sec is not None else None for sec in own]
    for k, site in enumerate(design.cluster.sites):
        sections, order = _site_sections(design, catalog, k, site.nodes, compute, compute_rack, net_rack)
        sections = [fit(sec) for sec in sections]
        mine = [sec for sec in own[first:first + site.count] if sec is not None]
        reserve = max((sec.rows(per) for sec in mine), default=0)
        sites.append(SiteLayout(site.count, tuple(sections), order, reserve))
        first += site.count
    return Placement(tuple(sites), per, tuple(own))


def _outlets(catalog: Catalog, pdu_id: str) -> Callable[[Section], Section]:
    """A section whose racks stand as many PDUs as their devices' supplies need outlets on
    (:func:`bom.links.power.pdus_needed`), where that is more than their power budget needs."""
    parts = parts_of(catalog, pdu_id)

    # By layout object, over every section of the placement: racks an item fills alone share one, and so
    # do the sites whose own racks hold alike (:func:`_own_sections`).
    done: dict[int, Layout] = {}

    def fit(sec: Section) -> Section:
        layouts = []
        for lay in sec.layouts:
            fitted = done.get(id(lay))
            if fitted is None:
                fitted = done[id(lay)] = _with_outlets(lay)
            layouts.append(fitted)
        return sec if layouts == list(sec.layouts) else Section(sec.copies, tuple(layouts))

    def _with_outlets(lay: Layout) -> Layout:
        pdus = [item for item, _ in lay.slots if item.role == Layer.PDU]
        more = pdus_needed(lay, parts) - len(pdus)
        return Layout(lay.kind, lay.rack, ((pdus[0], 0),) * more + lay.slots) if more > 0 and pdus else lay
    return fit


def _own_sections(design: Design, catalog: Catalog, rack: RackType) -> list[Section | None]:
    """Each site's own racks: its DCI routers (and their own border leaves), mux/demuxes and terminal
    amplifiers (a site of a hub has more than a spoke of the same size), in the rows kept after the shared racks. Their
    management ports are the DCI's own (a carrier-style management network on the routers),
    not this cluster's out-of-band fabric, which counts the cluster's racks only."""
    dci = design.dci
    if dci is None:
        return []
    router = switch_item(catalog, dci.router.id, Layer.ROUTER, FabricRole.DCI)
    router = Item(router.role, router.catalog_id, router.height, router.power_w, FabricRole.DCI, managed=False)
    if rack.pdu is not None:
        rack = RackType(rack.catalog_id, rack.u_budget, rack.power_budget_w,
                        Item(rack.pdu.role, rack.pdu.catalog_id, rack.pdu.height, rack.pdu.power_w, None,
                             managed=False), rack.pdus, rack.pdu_capacity_w)
    border = None
    if dci.border is not None:   # the DCI's own border leaves: its equipment, managed as its routers are
        b = switch_item(catalog, dci.border.switch.id, OWN_BORDER_ROLE, FabricRole.DCI)
        border = Item(b.role, b.catalog_id, b.height, b.power_w, FabricRole.DCI, managed=False)
    out: list[Section | None] = []
    made: dict[tuple[tuple[Item, int], ...], Section] = {}   # sites whose own racks hold alike share one packing
    for site in range(1, dci.sites + 1):
        items = [(router, dci.site_routers(site))]
        if border is not None:
            items.append((border, dci.site_border_leaves(site)))
        # A pluggable amplifier stands in a router's port (its power is the router's), not in a rack.
        amps = 0 if dci.pluggable else dci.site_amplifiers(site)
        for part, role, n in ((dci.mux, Layer.MUX, dci.site_muxes(site)), (dci.amplifier, Layer.AMPLIFIER, amps)):
            if part is not None and n:
                items.append((Item(role, part.id, part.rack_units, magnitude(part.power, "power"), FabricRole.DCI,
                                   managed=False), n))
        key = tuple((i, n) for i, n in items if n)
        if key and key not in made:
            made[key] = Section(1, pack(RackKind.NETWORK, rack, list(key)))
        out.append(made[key] if key else None)
    return out


def _site_sections(design: Design, catalog: Catalog, k: int, nodes: int, compute: Fabric | None,
                   compute_rack: RackType, net_rack: RackType) -> tuple[list[Section], tuple[int, ...]]:
    """The site's sections in numbering order, and the order they stand in."""
    fp = design.floor
    plane = compute.shapes[k][1] if compute else None
    rail = plane is not None and plane.topology in GROUPED
    block = block_nodes(plane, fp)
    node = node_item(design.platform)
    sup = design.platform.support
    assert sup is not None
    in_system: list[tuple[Item, int]] = []
    # A system over two racks (NVL36x2) stands half its switch trays and shelves in each.
    share = design.platform.racks_per_system
    trays = design.platform.scale_up.switch_trays_per_domain // share
    if design.platform.system == "rack" and sup.rack_device_units:
        # The system's non-node trays (NVLink switch trays, power shelves): powered within the system.
        in_system.append((Item(Layer.NVLINK_SWITCH, design.platform.id, 1, 0.0, Tier.SCALE_UP,
                               managed=True), trays))
        if sup.rack_device_units // share > trays:
            in_system.append((Item(Layer.POWER_SHELF, design.platform.id, 1, 0.0, None, managed=False),
                              sup.rack_device_units // share - trays))
    front = tuple((b.role, b.count) for b in sup.front_view) if in_system else ()
    block_net, per_rack, shared = _switches(design, catalog, k, rail)
    oob_leaf, oob_blocks, oob_shared, oob_spines = _oob(design, catalog, k)
    full, rest = divmod(nodes, block)
    # The shared racks (spines, cores, appliances, servers) stand in the middle of the hall, between
    # the two halves of the blocks, so no block is more than half the hall from them.
    shapes = [(full // 2, block), (full - full // 2, block)] + ([(1, rest)] if rest else [])
    sections: list[Section] = []
    for copies, n in [s for s in shapes if s[0]]:
        net = [(item, count(n)) for item, count in block_net]
        rack_items = list(per_rack)
        if oob_leaf is not None and len(sections) < len(oob_blocks):
            in_rack, in_block = oob_blocks[len(sections)]
            rack_items.append((oob_leaf, in_rack))
            net.append((oob_leaf, in_block))
        spec = BlockSpec(copies, n, fp.nodes_per_rack, node, tuple(in_system), tuple(i for i in rack_items if i[1]),
                         tuple(i for i in net if i[1]), fp.racks_per_row, share, front)
        sections.append(block_section(spec, compute_rack, net_rack))
    if oob_leaf is not None:
        shared[RackKind.NETWORK] = spread_among(shared[RackKind.NETWORK] + oob_spines, oob_leaf, oob_shared)
    blocks = len(sections)
    first = 1 if full >= 2 else blocks          # the blocks before the shared racks
    sections += shared_sections(_shared(design, shared, net_rack))
    # The partial last block (where the UFM takes its leaves' spare ports) stands next to the shared racks.
    after = list(range(first, blocks))
    if rest and len(after) > 1:
        after = after[-1:] + after[:-1]
    order = tuple(range(first)) + tuple(range(blocks, len(sections))) + tuple(after)
    return sections, order


def spread_among(items: list[tuple[Item, int]], switch: Item, n: int) -> list[tuple[Item, int]]:
    """``items`` with ``n`` of ``switch`` among them, one before each even share of their managed
    devices: the shared racks' management switches stand along the racks they serve, so a device's
    management run stays a few racks long however many racks the site's spines fill.

    >>> a, m = Item("spine", "x", 1, 1.0), Item("oob-leaf", "y", 1, 1.0, managed=False)
    >>> [(i.role, c) for i, c in spread_among([(a, 5)], m, 2)]
    [('oob-leaf', 1), ('spine', 3), ('oob-leaf', 1), ('spine', 2)]
    """
    managed = sum(c for i, c in items if i.managed and c)
    if not n:
        return items
    share = max(1, -(-managed // n))
    out: list[tuple[Item, int]] = []
    placed, left = 0, share   # switches placed; devices until the next one
    for item, count in items:
        while count and item.managed:
            if left == share and placed < n:
                out.append((switch, 1))
                placed += 1
            take = min(count, left)
            out.append((item, take))
            count -= take
            left -= take
            if not left:
                left = share
        if count:
            out.append((item, count))
    return out + ([(switch, n - placed)] if placed < n else [])


#: Devices by the rack kind of the shared racks they stand in.
_Shared = dict[RackKind, list[tuple[Item, int]]]


def _switches(design: Design, catalog: Catalog, k: int, rail_blocks: bool
              ) -> tuple[list[tuple[Item, Callable[[int], int]]], list[tuple[Item, int]], _Shared]:
    """Leaves per block (functions of the block's nodes), per compute rack, and the shared racks' devices."""
    block_net: list[tuple[Item, Callable[[int], int]]] = []
    per_rack: list[tuple[Item, int]] = []
    shared: _Shared = {RackKind.NETWORK: [], RackKind.MANAGEMENT: [], RackKind.STORAGE: []}
    for name, f in design.fabrics.items():
        if isinstance(f, OobFabric):
            continue
        count, plane = f.shapes[k]
        leaf = switch_item(catalog, plane.leaf.id, names.switch_role(name, Layer.LEAF), name)
        planes = f.planes
        if isinstance(f, PooledFabric):
            ps = f.pooled[k]
            where = RackKind.STORAGE if name == FabricRole.STORAGE else RackKind.MANAGEMENT
            g = ps.group_units // (f.node_ports.ports if f.node_ports else 1)
            if _one_leaf_with_endpoints(ps, plane.leaves_per_group * planes):
                # The site's one leaf stands with the appliances and servers it takes (their 100G
                # ports reach it in the rack), the nodes' runs cross the hall to it on optics.
                shared[where].append((leaf, 1))
            else:
                block_net.append((leaf, partial(_block_leaves, per_group=planes * plane.leaves_per_group, nodes_per=g)))
            # The endpoints' leaves, then the DCI routers' border leaves, stand in the shared racks.
            shared[where].append((leaf, planes * plane.leaves_per_group * (ps.extra_groups + ps.border_groups)))
        elif name == FabricRole.COMPUTE and rail_blocks:
            block_net.append((leaf, partial(_block_leaves, per_group=planes * plane.leaves_per_group, nodes_per=0)))
        else:
            per_rack.append((leaf, planes * plane.leaves_per_group))
        spine = switch_item(catalog, plane.spine.id, names.switch_role(name, Layer.SPINE), name,
                            _chassis_use(catalog, plane, Layer.SPINE))
        core = switch_item(catalog, plane.spine.id, names.switch_role(name, Layer.CORE), name,
                           _chassis_use(catalog, plane, Layer.CORE))
        shared[RackKind.NETWORK] += [(spine, planes * plane.spines), (core, planes * plane.cores)]
    return block_net, per_rack, shared


def _block_leaves(nodes: int, per_group: int, nodes_per: int) -> int:
    """A block's leaves: ``per_group`` for every ``nodes_per`` of its ``nodes`` (0: for the whole block)."""
    return per_group * (math.ceil(nodes / nodes_per) if nodes_per else 1)


def _one_leaf_with_endpoints(ps: PooledShape, leaves_per_group: int) -> bool:
    """A site whose pooled fabric is one leaf for nodes and endpoints alike, with endpoints (other
    than management switches, which stand in the blocks) in the shared racks."""
    one = (leaves_per_group == 1 and not ps.extra_groups and not ps.border_groups
           and ps.node_units <= min(ps.group_units, ps.block_units or ps.node_units))
    return one and any(n for role, _, n in ps.kinds if role != Layer.OOB)


def _oob(design: Design, catalog: Catalog, k: int
         ) -> tuple[Item | None, list[tuple[int, int]], int, list[tuple[Item, int]]]:
    f = design.fabrics.get(FabricRole.OOB)
    if not isinstance(f, OobFabric) or k >= len(f.per_shape):
        return None, [], 0, []
    leaf = switch_item(catalog, f.leaf_id, names.switch_role(FabricRole.OOB, Layer.LEAF), FabricRole.OOB)
    leaf = Item(leaf.role, leaf.catalog_id, leaf.height, leaf.power_w, FabricRole.OOB, managed=False)
    spines = []
    if f.spine_id and k < len(f.site_spines) and f.site_spines[k][1]:
        spine = switch_item(catalog, f.spine_id, names.switch_role(FabricRole.OOB, Layer.SPINE), FabricRole.OOB)
        spines = [(spine, f.site_spines[k][1])]
    blocks, shared = f.per_shape[k]
    return leaf, blocks, shared, spines


def _shared(design: Design, switches: _Shared, rack: RackType
            ) -> list[tuple[RackKind, RackType, list[tuple[Item, int]]]]:
    ends = design.endpoints
    mgmt = [(endpoint_item(row), n) for row, n in ends.management()] if ends else []
    storage = [(endpoint_item(row), n) for row, n in ends.storage_rows()] if ends else []
    return [(RackKind.NETWORK, rack, switches[RackKind.NETWORK]),
            (RackKind.MANAGEMENT, rack, mgmt + switches[RackKind.MANAGEMENT]),
            (RackKind.STORAGE, rack, storage + switches[RackKind.STORAGE])]
