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

from dataclasses import replace

from bom.catalog.media import Media
from bom.errors import LimitError
from bom.links.pattern import HopContext
from bom.links.ufm import UFM_LEAF
from bom.links.views import FabricLinks, UfmLinks
from bom.model.fabrics import Fabric, UfmPorts
from bom.model.model import Model


def attach_ufm(model: Model, media: Media) -> Fabric | None:
    """The compute fabric with its UFM ports and their links (None: no UFM on it). The hop's
    pattern (where the ports go, their link groups) is :mod:`bom.links.ufm`."""
    f = model.fabrics.get("compute")
    if f is None:
        return None
    ufm = UfmLinks.of(model.endpoints)
    if ufm is None:
        return None
    # Each site runs its own fabric and its own UFM appliances: place one site of each shape.
    per_site = ufm.ports
    p = f.first
    assert model.placement is not None
    fab = FabricLinks.of(f, model.placement)
    each = UFM_LEAF.place(fab, model.floor, ufm)
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
    if f.spec.media:
        media = media.restricted(tuple(f.spec.media))
    try:
        groups = UFM_LEAF.count(HopContext(FabricLinks.of(f, model.placement, ufm), model.floor, media,
                                           groups=list(f.groups)))
    except LimitError as exc:
        exc.key = exc.key or "management.ufm"
        raise
    return replace(f, ufm=UfmPorts(ports, leaves, leaf_modules,
                                   "on spare leaf downlinks (the RA's node slot left for the UFM)"),
                   groups=f.groups + groups)
