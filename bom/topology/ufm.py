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

from bom.errors import LimitError
from bom.links.ufm import UFM_LEAF
from bom.links.views import FabricLinks, UfmLinks
from bom.model.fabrics import Fabric, UfmPorts
from bom.model.floorplan import FloorPlan
from bom.model.placement import Placement


def attach_ufm(f: Fabric, ufm: UfmLinks | None, placement: Placement, floor: FloorPlan, explicit: bool,
               sites: int) -> UfmPorts | None:
    """Where the fabric managers' ports go on the compute fabric ``f`` (None: no UFM on it); their
    links are the fabric's ``ufm-leaf`` hop (:mod:`bom.links.ufm`), counted with its other hops.
    ``explicit``: the scenario asked for the appliances (then no room is an error)."""
    if ufm is None:
        return None
    # Each site runs its own fabric and its own UFM appliances: place one site of each shape.
    per_site = ufm.ports
    p = f.first
    each = UFM_LEAF.place(FabricLinks.of(f, placement), floor, ufm)
    if any(one is None for one in each):
        why = (f"no spare leaf downlink for a site's {per_site} UFM port(s): every one carries a node "
               f"({p.leaves * f.planes} leaves x {p.leaf_down} downlinks per site)")
        if explicit:
            raise LimitError(f"the compute fabric has {why}", at=("management", "ufm_count"),
                             key="management.ufm_count",
                             hint="Build one node fewer for each UFM slot (the RA removes a DGX for the UFM), "
                                  "or set management.ufm_count: 0.")
        return UfmPorts(0, 0, 0, why + "; the platform default connects none")
    leaves = sum(count * one[0] for (count, _), one in zip(f.shapes, each, strict=True) if one)
    leaf_modules = sum(count * one[1] for (count, _), one in zip(f.shapes, each, strict=True) if one)
    return UfmPorts(per_site * sites, leaves, leaf_modules,
                    "on spare leaf downlinks (the RA's node slot left for the UFM)")
