"""The fabric managers' ports on the compute fabric (UFM appliances on an InfiniBand fabric).

A UFM appliance that is not on the fabric cannot be its subnet manager, so its ports go where the
documents put them, in this order:

1. the leaves' spare downlinks: the DGX SuperPOD RAs leave a node slot for them (RA-11333-001 V11
   and RA-11334-001 V08, Table 4: "Compute and UFM" cables = nodes x 8 + 4 at 31 / 63 / 95 / 127
   nodes, "a DGX system must be removed to accommodate for UFM connectivity"), one per leaf, the
   leaves with a half-used twin-port cage first (hop ``ufm-leaf``, :class:`bom.links.ufm.UfmLeaf`);
2. where every leaf downlink carries a node, the top layer's free ports (the spines; the cores of
   three layers; hop ``ufm-top``, :class:`bom.links.ufm.UfmTop`), one appliance of an HA pair per
   switch: NVIDIA's UFM-SDN Appliance User Manual v4.17.0, "Prerequisites for UFM High Availability
   (HA) Installation": "In fabrics consisting of multiple tiers of switches, it is recommended that
   the InfiniBand ports of the primary and secondary UFM-SDN Appliance be connected to different
   fabric switches on the same tier"; and OpenSM's fat-tree routing takes
   service and I/O nodes there ("I/O and service nodes connected to the Top Switches of a Fat Tree,
   that need connectivity but no real bandwidth": its ``io_guid_file`` option, opensm(8), from N.
   Morey-Chaisemartin's patches to the OpenFabrics general list, 2009). The rack-scale RAs read do not
   say where the UFM goes when the leaves are full: the DGX SuperPOD B300 XDR RA (RA-11339-001 Table 3)
   counts no UFM cable at all (1 SU: 72 nodes x 8 = 576 node-leaf cables on 8 leaves of 72
   downlinks, 576 leaf-spine cables on 4 spines of 144 ports, every port taken). (The Q3400-RA also
   has a dedicated in-band FNM port for the UFM, NVIDIA's "InfiniBand Cluster Bring-up Procedure",
   "Setting the InfiniBand Cluster Topology"; the catalog does not model it, so data ports are used.)
3. where the top layer is full too, a top switch more per plane would free ports (the spines' count is
   the smallest spread that leaves them free: :func:`bom.topology.planes.smallest_spread`'s ``spare``),
   but the RAs add none: the DGX SuperPOD B300 XDR RA's spine counts (RA-11339-001 Table 3: 8 spines
   at 2 SU, every one of their ports taken) have no switch for the UFM, so :data:`MOST_ADDED` is 0
   and then
4. there is no port for them: an explicit ``management.ufm_count`` is an error (build one node fewer
   per UFM port, as the RA does); the platform default buys no UFM appliance and says why (the
   warnings, the Checks sheet, the report). ``complete.managers`` refuses any model that still buys
   one off its fabric.

They add links and modules, never switches. Which one the build
took is said in the JSON (``fabrics.compute.ufm``: ``layer``, ``why``) and in the warnings.
"""

from __future__ import annotations

import math

from bom.catalog.media import Media, cage
from bom.errors import LimitError
from bom.links.dci import top_free
from bom.links.ufm import UFM_LEAF, room, spread_top, top_layer
from bom.links.views import FabricLinks, UfmLinks
from bom.model.fabrics import Fabric, UfmPorts
from bom.model.floorplan import FloorPlan
from bom.model.hops import HopKind
from bom.model.placement import Placement
from bom.model.plane import Plane
from bom.roles import Layer
from bom.units import magnitude

#: Top switches a plane may add for the fabric managers' ports (more: the platform default buys none).
#: 0: a switch bought for a handful of management ports is what no RA does (RA-11339-001 Table 3).
MOST_ADDED = 0


def spare_top(p: Plane, planes: int, ports: int) -> int:
    """Top-layer ports a plane must leave free for a site's ``ports`` UFM ports where no layer has room
    (0: the plane as sized will do)."""
    return 0 if room(p, planes, ports) is not None or p.layers < 2 else math.ceil(ports / planes)


def added_ok(sized: Plane, larger: Plane) -> bool:
    """Whether ``larger`` (sized with spare top ports) adds at most :data:`MOST_ADDED` top switches."""
    return larger.spines + larger.cores - sized.spines - sized.cores <= MOST_ADDED


def no_room(f: Fabric, ports: int) -> str:
    """Why no site's layer takes its ``ports`` UFM ports: what is full."""
    p = f.first
    top = {3: "cores", 2: "spines"}.get(p.layers)
    full = f"every one of the {p.leaves * f.planes} leaves' {p.leaf_down} downlinks per site carries a node"
    if top is not None:
        full += f", and the {top}' ports carry the fabric's own links (the RAs add no switch for the UFM)"
    elif p.isl:
        full += ", and their other ports carry the switch pair's links"
    return f"no port of the compute fabric is free for a site's {ports} UFM port(s): {full}"


def unplaceable(f: Fabric, ufm: UfmLinks, media: Media) -> str | None:
    """Why the fabric managers' ports cannot go on the compute fabric ``f``: no port free for them in a
    site shape, or no catalog part joining their port to the switch's cage there; None when they can."""
    for _, p in f.shapes:
        where = room(p, f.planes, ufm.ports)
        if where is None:
            return no_room(f, ufm.ports)
        switch = p.leaf if where == HopKind.UFM_LEAF else p.spine
        nic = ufm.nic
        rate = min(magnitude(nic.rate, "rate"), switch.rate_gbps)
        if not media.joins(rate, cage(nic.form_factor, nic.ports_per_cage, True),
                           cage(switch.form_factor, switch.ports_per_cage, True)):
            layer = top_layer(p) if where == HopKind.UFM_TOP else Layer.LEAF
            return (f"no catalog part joins the UFM appliance's {magnitude(nic.rate, 'rate'):g}G {nic.form_factor} "
                    f"port to the {switch.id}'s {switch.form_factor} cage at {rate:g}G (its {layer}s')")
    return None


def refuse_explicit(why: str) -> LimitError:
    """The error of a scenario that asks for UFM appliances the compute fabric cannot take."""
    return LimitError(f"the UFM appliances cannot be on the compute fabric: {why}", at=("management", "ufm_count"),
                      key="management.ufm_count",
                      hint="Build one node fewer for each UFM slot (the RA removes a DGX for the UFM), "
                           "or set management.ufm_count: 0.", fix={("management", "ufm_count"): 0})


def attach_ufm(f: Fabric, ufm: UfmLinks | None, placement: Placement, floor: FloorPlan, sites: int) -> UfmPorts | None:
    """Where the fabric managers' ports go on the compute fabric ``f`` (None: no UFM on it), each site
    shape's on its leaves where they have room, else on its top layer; their links are the fabric's
    ``ufm-leaf`` and ``ufm-top`` hops (:mod:`bom.links.ufm`), counted with its other hops. The model
    built ``f`` with room for them (:mod:`bom.pipeline.model`); a site shape with none makes a UfmPorts
    of no ports, which ``complete.managers`` refuses."""
    if ufm is None:
        return None
    per_site = ufm.ports
    rooms = [room(p, f.planes, per_site) for _, p in f.shapes]
    if any(r is None for r in rooms):
        return UfmPorts(0, 0, 0, no_room(f, per_site) + "; none is connected")
    each = UFM_LEAF.place(FabricLinks.of(f, placement), floor, ufm)
    leaves = modules = top = 0
    for (count, p), r, one in zip(f.shapes, rooms, each, strict=True):
        if r == HopKind.UFM_LEAF and one is not None:
            leaves += count * one[0]
            modules += count * one[1]
        else:
            top += count * len(set(spread_top(top_free(p, f.planes)[1], p.spine.ports_per_cage, per_site)))
    layer = top_layer(f.first)
    layers = list(dict.fromkeys(x for x in (Layer.LEAF if leaves else None, layer if top else None) if x))
    why = []
    if leaves:
        why.append("on spare leaf downlinks (the DGX SuperPOD RA's node slot left for the UFM)")
    if top and layer == Layer.LEAF:
        why.append("on the switches' free ports past the nodes' downlinks and the switch pair's links")
    elif top:
        why.append(f"on the {layer}s' free ports, as every leaf downlink carries a node (the UFM-SDN Appliance "
                   "manual puts an HA pair on two switches of one tier; OpenSM's fat-tree routing takes service "
                   "nodes on the top switches: its io_guid_file)")
        if f.added_top:
            why.append(f"{f.added_top} {layer}{'s' * (f.added_top != 1)} more than the fabric's own links need, to "
                       "free those ports")
    return UfmPorts(per_site * sites, leaves, modules, "; ".join(why), layer=" and ".join(layers), top=top,
                    added=f.added_top)

