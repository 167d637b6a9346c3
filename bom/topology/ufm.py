"""The fabric managers' ports on the compute fabric (UFM appliances on an InfiniBand fabric).

The DGX SuperPOD RAs put the UFM appliances' compute-fabric ports on the leaves, in the ports
of a node slot left empty for them (RA-11333-001 V11 and RA-11334-001, Table 4: "Compute and
UFM" cables = nodes x 8 + 4 at 31 / 63 / 95 / 127 nodes, "a DGX system must be removed to
accommodate for UFM connectivity"). So the UFM ports take the leaves' spare downlinks, one per
leaf, the leaves with a half-used twin-port cage first (the UFM's port shares that cage's
module); they add links and modules but never switches. Their links are their own hop,
``ufm-leaf`` (lower end ``ufm``), so ``node-leaf`` keeps meaning the nodes' links.

When every leaf downlink carries a node there is no room: an explicit ``management.ufm_count``
is an error (build one node fewer per UFM slot, as the RA does); the platform default connects
no UFM port and says why in the JSON (``fabrics.compute.ufm``).
"""

from __future__ import annotations

import math
from dataclasses import replace

from bom.catalog.media import Media, cage
from bom.errors import LimitError
from bom.model.fabrics import UFM_HOP, Fabric, UfmPorts
from bom.model.model import Model
from bom.topology.geometry import EndGroups, FloorPlan, node_leaf, shared_rack
from bom.topology.linkgroups import LinkGroup, count_hop
from bom.units import magnitude

HOP = UFM_HOP



def leaf_loads(f: Fabric, fp: FloorPlan, shape: int) -> list[tuple[int, int]]:
    """(leaves, node ports used on each) over every plane of one site of the given shape."""
    _, leaves = node_leaf(f.shapes[shape][1], fp)
    return [(n * f.planes, sum(runs.values())) for n, runs in leaves]


def place_ports(loads: list[tuple[int, int]], down: int, per_cage: int, ports: int) -> tuple[int, int] | None:
    """Spread ``ports`` one per leaf over the leaves with room: (leaves used, modules added), or None.

    Leaves with a half-used cage come first (the port shares that cage's module).
    """
    left, leaves, modules = ports, 0, 0
    for rnd in range(down):
        cands = sorted(((used + rnd) % per_cage == 0, n) for n, used in loads if used + rnd < down)
        for opens, n in cands:
            take = min(left, n)
            leaves += take if rnd == 0 else 0
            modules += take if opens else 0
            left -= take
            if not left:
                return leaves, modules
        if not cands:
            break
    return None


def attach_ufm(model: Model, media: Media) -> Fabric | None:
    """The compute fabric with its UFM ports and their links (None: no UFM on it)."""
    f = model.fabrics.get("compute")
    ends = model.endpoints
    if f is None or ends is None or ends.ufm is None or not ends.ufm_count:
        return None
    nic = ends.ufm.ports.compute
    if nic is None:
        return None
    # Each site runs its own fabric and its own UFM appliances: place one site of each shape.
    per_site = ends.ufm_count * nic.ports
    p = f.first
    each = [place_ports(leaf_loads(f, model.floor, k), plane.leaf_down, plane.leaf.ports_per_cage, per_site)
            for k, (_, plane) in enumerate(f.shapes)]
    explicit = model.scenario.management is not None and model.scenario.management.ufm_count is not None
    if any(one is None for one in each):
        why = (f"no spare leaf downlink for a site's {per_site} UFM port(s): every one carries a node "
               f"({p.leaves * f.planes} leaves x {p.leaf_down} downlinks per site)")
        if explicit:
            raise LimitError(f"the compute fabric has {why}", at=("management", "ufm_count"),
                             key="management.ufm_count",
                             hint="Build one node fewer for each UFM slot (the RA removes a DGX for the UFM), "
                                  "or set management.ufm_count: 0.")
        return replace(f, ufm=UfmPorts(0, 0, 0, why + "; the platform default connects none"))
    ports = per_site * model.cluster.site_count
    leaves = sum(count * one[0] for (count, _), one in zip(f.shapes, each, strict=True) if one)
    leaf_modules = sum(count * one[1] for (count, _), one in zip(f.shapes, each, strict=True) if one)
    return replace(f, ufm=UfmPorts(ports, leaves, leaf_modules,
                                   "on spare leaf downlinks (the RA's node slot left for the UFM)"),
                   groups=f.groups + _groups(f, model, media, nic, ports, leaves, leaf_modules))


def _groups(f: Fabric, model: Model, media: Media, nic, ports: int, leaves: int,  # type: ignore[no-untyped-def]
            leaf_modules: int) -> list[LinkGroup]:
    fp = model.floor
    p = f.first
    rate = min(magnitude(nic.rate, "rate"), p.leaf.rate_gbps)
    # The UFM stands in a management rack; the leaves in the blocks' network racks.
    run = shared_rack(fp)
    per_leaf = math.ceil(ports / leaves)
    lower: EndGroups = [(ports // nic.ports, {run: nic.ports})]
    upper: EndGroups = [(leaves, {run: per_leaf})]
    if f.spec.media:
        media = media.restricted(tuple(f.spec.media))
    try:
        groups = count_hop(media, fp, fabric=f.name, tier=f.tier, hop=HOP, lower="ufm", upper="leaf",
                           lower_groups=lower, upper_groups=upper, rate_gbps=rate,
                           ff_lower=cage(nic.form_factor, nic.ports_per_cage, True),
                           ff_upper=cage(p.leaf.form_factor, p.leaf.ports_per_cage, True), lane_gbps=None)
    except LimitError as exc:
        exc.key = exc.key or "management.ufm"
        raise
    # A UFM port in a leaf's half-used twin-port cage shares the module already counted there
    # (one run, so one group; a part-less end, copper, has no modules to correct).
    # Only a module of the same part can be shared: else the UFM's ports open cages of their own
    # (count_hop's count stands).
    node_parts = {g.upper_end.part.id for g in f.groups if g.hop == "node-leaf" and g.upper_end.part is not None}
    for g in groups:
        if g.upper_end.part is not None and node_parts == {g.upper_end.part.id}:
            g.modules_upper = leaf_modules
    return groups
