"""The switch fabrics of a cluster: each fabric's switches and one plane per site shape (the planner
is :mod:`bom.topology.planes`; the link groups are counted once the placement stands the devices)."""

from __future__ import annotations

import math

from bom.catalog.media import Media, cage
from bom.catalog.rows import Catalog, NicPorts, Platform, Switch
from bom.errors import LimitError, keyed
from bom.inputs.scenario import FabricSpec
from bom.links.ufm import room
from bom.model.cluster import Cluster
from bom.model.fabrics import Fabric
from bom.model.floorplan import FloorPlan
from bom.model.model import Model
from bom.model.plane import NativePorts, Plane
from bom.roles import FabricRole, Layer, Tier
from bom.topology.planes import SPEC_KEYS, check_uplink_rate, size_plane, switch_ports, uplink_ports, uplink_rates
from bom.topology.ufm import added_ok, spare_top
from bom.units import magnitude


def _nic(platform: Platform, name: str) -> NicPorts:
    nics: dict[str, NicPorts | None] = {FabricRole.COMPUTE: platform.scale_out, FabricRole.STORAGE: platform.storage,
                                        FabricRole.INBAND: platform.storage, FabricRole.OOB: platform.oob}
    nic = nics[name]
    assert nic is not None   # built for the compute fabric only, and every platform row has its ports
    return nic


def fabric_switch(catalog: Catalog, sid: str, path: tuple[str, ...]) -> Switch:
    with keyed(path, relocate=True):
        row = catalog.get("switches", sid, key=".".join(path))
    assert isinstance(row, Switch)
    return row


def _plane_for(name: str, spec: FabricSpec, platform: Platform, nic: NicPorts, nodes: int,
               leaf: Switch, spine: Switch, floor: FloorPlan, media: Media, native_ok: bool = True,
               ufm_ports: int = 0) -> tuple[Plane, float, int]:
    """One site's plane, the nodes' link rate and the top switches (every plane) added for the fabric
    managers: ``ufm_ports``, the site's fabric managers' ports, for which a plane whose leaves and top
    layer are full gets one top switch more where that frees enough (bom/topology/ufm.py)."""
    rate = magnitude(nic.rate, "rate") / spec.port_split
    node_ports = nic.ports * spec.port_split // spec.planes   # a node's ports (links) in each plane
    leaf_ports = switch_ports(leaf, rate)
    asked = spec.uplink_gbps
    uplinks = uplink_ports(leaf, asked) if leaf.uplinks is not None and asked is not None else uplink_ports(leaf)
    sched = scheduled_native(leaf, spine)
    if sched is not None:   # the fabric ports at their finest bundle: the plan spreads them at it
        uplinks = uplink_ports(leaf, uplink_rates(leaf)[0])
    spine_ports = switch_ports(spine, uplinks.rate_gbps if uplinks else rate)
    rail = spec.topology != "tor"
    group = (spec.su_nodes or platform.su_nodes) if rail else floor.nodes_per_rack
    native = (sched if native_ok else None) or _native(spec, leaf, spine, rate, uplinks is None and native_ok)
    # No part joins two switches at the NICs' rate (200G quarters of 800G cages), or the scenario states the
    # rate between them: they join at that rate, the uplinks spread in whole links of it (never a fallback).
    native_only = native is not None and sched is None and (asked is not None or not media.joins(
        rate, cage(leaf_ports.form_factor, leaf_ports.ports_per_cage, True),
        cage(spine_ports.form_factor, spine_ports.ports_per_cage, True), leaf_ports.lane_gbps))

    def size(spare: int = 0) -> Plane:
        return size_plane(nodes, node_ports, leaf_ports, spine_ports, topology=spec.topology, group_nodes=group,
                          layers=None if spec.layers == "auto" else int(spec.layers),
                          oversubscription=spec.leaf_ratio, gpus_per_node=platform.gpus_per_node,
                          leaf_uplink=uplinks, node_blocks=platform.gpus_per_domain > platform.gpus_per_node,
                          native=native, rails_per_leaf=spec.rails_per_leaf, spine_oversubscription=spec.spine_ratio,
                          min_spines=spec.min_spines, scheduled=sched is not None, native_only=native_only,
                          spare_top=spare)

    p = size()
    added = 0
    spare = spare_top(p, spec.planes, ufm_ports) if ufm_ports else 0
    if spare:
        try:
            larger = size(spare)
        except LimitError:
            larger = p
        if added_ok(p, larger) and room(larger, spec.planes, ufm_ports) is not None:
            added = spec.planes * (larger.spines + larger.cores - p.spines - p.cores)
            p = larger
    if sched is not None:
        _check_system_size(name, leaf, p)
    if native is not None and asked is not None:
        check_uplink_rate(name, p, asked)
    return p, rate, added



def _check_system_size(name: str, leaf: Switch, p: Plane) -> None:
    """A scheduled fabric joins at most the host ports its silicon's maker publishes (one plane of a site)."""
    most = leaf.uplinks.max_host_ports if leaf.uplinks else None
    if most is not None and p.leaves * leaf.ports > most:
        raise LimitError(f"a scheduled fabric of {leaf.id} joins at most {most:,} host ports of "
                         f"{magnitude(leaf.port_rate, 'rate'):g} Gbit/s (its silicon's published system size); this "
                         f"one needs {p.leaves:,} interface nodes, {p.leaves * leaf.ports:,} host ports",
                         key=f"fabrics.{name}.switch",
                         hint="Split the cluster over sites (each site builds its own fabric), or use an "
                              "Ethernet or InfiniBand fabric for a cluster this large.")


def _native(spec: FabricSpec, leaf: Switch, spine: Switch, rate: float, ok: bool) -> NativePorts | None:
    """Switch-to-switch links at the switches' own rate when the NIC's rate is a breakout of it and
    leaf and spine have the same cage at the same native rate (a fixed leaf under a modular chassis
    spine alike; between two kinds of cage the link keeps the NIC's rate, whose parts the media has)."""
    asked = spec.uplink_gbps
    if asked is not None:   # the rate the scenario states (its ports at both ends: the preflight's rule)
        return NativePorts(switch_ports(leaf, asked), switch_ports(spine, asked)) if ok and asked > rate else None
    own = magnitude(spine.port_rate, "rate")
    if not ok or spec.uplink_rate != "native" or own <= rate or leaf.form_factor != spine.form_factor \
            or not math.isclose(own, magnitude(leaf.port_rate, "rate")):
        return None
    return NativePorts(switch_ports(leaf, own), switch_ports(spine, own))


def scheduled_native(leaf: Switch, spine: Switch) -> NativePorts | None:
    """A scheduled fabric's native sides when the leaf is an interface node (its pairing with the spine,
    a fabric element, is the preflight's rule: bom/topology/preflight.py ``check_scheduled``)."""
    up = leaf.uplinks
    if up is None or not up.scheduled:
        return None
    native = uplink_ports(leaf)
    assert native is not None
    return NativePorts(native, switch_ports(spine, native.rate_gbps))


def build_fabric(name: str, spec: FabricSpec, cluster: Cluster, catalog: Catalog, media: Media,
                 ufm_ports: int = 0) -> Fabric:
    """One switch fabric; ``ufm_ports``: each site's fabric managers' ports on it (the compute fabric's)."""
    platform = cluster.platform
    nic = _nic(platform, name)
    leaf = fabric_switch(catalog, spec.switch or (platform.default_switch if name == FabricRole.COMPUTE
                                             else catalog.default(name)), ("fabrics", name, "switch"))
    spine = fabric_switch(catalog, spec.spine or default_spine(catalog, name, leaf),
                    ("fabrics", name, Layer.SPINE if spec.spine else "switch"))
    shapes, rate, added = _site_planes(name, spec, platform, nic, cluster, leaf, spine, media, True, ufm_ports)
    if len({(p.up.rate_gbps, p.spine.rate_gbps) for _, p in shapes}) > 1:
        # One fabric, one switch-to-switch rate: where some sites' pairs fill whole native ports and
        # others' do not, every site runs at the downlinks' rate (the hops count one rate per fabric).
        shapes, rate, added = _site_planes(name, spec, platform, nic, cluster, leaf, spine, media, False, ufm_ports)
    return Fabric(name, Tier.SCALE_OUT, spec, spec.planes, shapes, node_ports=nic, rate_gbps=rate, added_top=added)


def default_spine(catalog: Catalog, name: str, leaf: Switch) -> str:
    """The spine a fabric takes when the scenario names none: a scheduled leaf's own fabric element, the
    catalog's default for a leaf with dedicated uplinks, else the leaf's model."""
    if leaf.uplinks is not None and leaf.uplinks.fabric_element:
        return leaf.uplinks.fabric_element
    return (catalog.default_switch(name, Layer.SPINE) or leaf.id) if leaf.uplinks else leaf.id


def _site_planes(name: str, spec: FabricSpec, platform: Platform, nic: NicPorts, cluster: Cluster, leaf: Switch,
                 spine: Switch, media: Media, native_ok: bool, ufm_ports: int = 0
                 ) -> tuple[list[tuple[int, Plane]], float, int]:
    """Each site shape's plane, the nodes' link rate, and the top switches added over every site for the
    fabric managers' ports."""
    shapes: list[tuple[int, Plane]] = []
    rate = 0.0
    added = 0
    for site in cluster.sites:
        with keyed(("fabrics", name), f"fabrics.{name}", only=LimitError, below=SPEC_KEYS):
            p, rate, more = _plane_for(name, spec, platform, nic, site.nodes, leaf, spine, cluster.floor, media,
                                       native_ok, ufm_ports)
        added += site.count * more
        shapes.append((site.count, p))
    return shapes, rate, added


def support_switch(platform: Platform, name: str, catalog: Catalog) -> str:
    """A non-compute fabric's switch: the platform's RA choice, else the catalog's default."""
    sup = platform.support
    chosen = next((sid for fabric, sid in sup.switches.items() if fabric == name), None) if sup else None
    return chosen or catalog.default(name)


def infiniband(model: Model, catalog: Catalog) -> set[str]:
    """The fabrics whose leaves are InfiniBand switches: the ports ibnetdiscover sees, the fabrics an ibsim net
    file, a CVT file's InfiniBand sheet and ``bom verify --ib`` take (ANTA takes the others)."""
    switches = catalog.rows.get("switches", {})
    return {name for name, fabric in model.fabrics.items()
            if fabric.shapes and isinstance(leaf := switches.get(fabric.first.leaf.id), Switch)
            and leaf.protocol == "infiniband"}
