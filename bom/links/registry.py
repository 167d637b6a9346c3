"""One ordered registry of hop patterns per fabric kind, walked by the build (the closed form), the
cable plan and the design rules.

A family lists its patterns in the plan's order (a device's cages fill hop by hop in it) and says how
the plan walks them: site by site, every hop of a site before the next site (the switch fabrics),
or hop by hop, every site of a hop before the next hop (the management network, the DCI, the
scale-up domains). The closed form lists a fabric's own hops first, then its endpoints' hops
(:func:`bom.links.pattern.ordered`). :func:`view_of` makes each fabric's view from the model's
values; :func:`count` walks a family's patterns for the closed form.

Adding a hop: one pattern class in its family's module and its place in the family's tuple here
(and, for a new kind of link, its row in :data:`bom.model.hops.HOPS`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bom.catalog.rows import Switch
from bom.links.dci import DCI_BORDER, DCI_CLIENT, DCI_OWN_BORDER
from bom.links.fabric import LeafLeaf, LeafSpine, NodeLeafRail, NodeLeafTor, SpineCore
from bom.links.line import AMPLIFIER_PATCH, DCI_LINE
from bom.links.oob import OOB_NODE_LEAF, OOB_TO_INBAND, OOB_TO_SPINES
from bom.links.pattern import HopContext, Pattern, ordered
from bom.links.pooled import MlagPeer, PooledLeafSpine, PooledNodeLeaf, PooledSpineCore, endpoint_patterns
from bom.links.power import PDU_SUPPLY
from bom.links.scaleup import INTER_RACK, SWITCHED, TORUS
from bom.links.ufm import UFM_LEAF, UFM_TOP
from bom.links.views import DciView, FabricLinks, OobLinks, PooledLinks, UfmLinks, View
from bom.roles import FabricKind, FabricRole, Tier

if TYPE_CHECKING:
    from bom.catalog.media import Media
    from bom.catalog.rows import Catalog
    from bom.model.dci import Dci
    from bom.model.endpoints import Endpoints
    from bom.model.fabrics import Fabric, OobFabric, PooledFabric
    from bom.model.floorplan import FloorPlan
    from bom.model.linkgroups import LinkGroup
    from bom.model.placement import Placement


@dataclass(frozen=True)
class Family:
    """A fabric kind's patterns in the plan's order (``patterns(view)``: an endpoint kind is a pattern of
    its own), and whether the plan walks them site by site."""

    patterns: Callable[[Any], Sequence[Pattern[Any]]]
    site_major: bool


_SWITCHED = (NodeLeafRail(), NodeLeafTor(), UFM_LEAF, LeafLeaf(), LeafSpine(), SpineCore(), UFM_TOP)
# An MLAG pair's peer links take the cages past the uplinks' (the BasePOD guide's swp63-64).
_POOLED_NODES, _POOLED_SWITCHES = PooledNodeLeaf(), (PooledLeafSpine(), PooledSpineCore(), MlagPeer())

FAMILIES: dict[FabricKind, Family] = {
    # The UFM's ports take the leaves' downlinks right after the nodes' (before the uplinks' cages), or
    # the top layer's cages past the fabric's own links.
    FabricKind.SWITCHED: Family(lambda view: _SWITCHED, site_major=True),
    FabricKind.POOLED: Family(lambda view: (_POOLED_NODES, *endpoint_patterns(view), *_POOLED_SWITCHES),
                              site_major=True),
    FabricKind.OOB: Family(lambda view: (OOB_NODE_LEAF, OOB_TO_SPINES, OOB_TO_INBAND), site_major=False),
    FabricKind.DCI: Family(lambda view: (DCI_CLIENT, DCI_BORDER, DCI_OWN_BORDER, DCI_LINE, AMPLIFIER_PATCH),
                           site_major=False),
    FabricKind.SCALE_UP: Family(lambda view: (SWITCHED, INTER_RACK, TORUS), site_major=False),
    # Every rack's supplies on its PDUs (its closed form: bom.links.power.power_plan).
    FabricKind.POWER: Family(lambda view: (PDU_SUPPLY,), site_major=False),
}


@dataclass(frozen=True)
class Where:
    """What a fabric's view is made of besides the fabric: where the placement stands every device,
    the floor plan, the compute fabric (a pooled fabric's blocks), the endpoints (the fabric managers'
    ports), the catalog the model was built with (the management switch and spine rows, the DCI's
    top switch) and the fabrics by name (the DCI's client fabric, the OOB's switch)."""

    placement: Placement
    fp: FloorPlan
    fabrics: dict[str, Fabric]
    endpoints: Endpoints | None
    catalog: Catalog


def _switch(catalog: Catalog, sid: str) -> Switch:
    row = catalog.get("switches", sid)
    assert isinstance(row, Switch)
    return row


def oob_switches(catalog: Catalog, f: OobFabric) -> tuple[Switch, Switch | None]:
    """The management network's switch and spine rows (from the catalog it was built with)."""
    return _switch(catalog, f.leaf_id), _switch(catalog, f.spine_id) if f.spine_id else None


def view_of(f: Fabric, where: Where) -> View:
    """The fabric as its hops see it."""
    # A fabric's kind is its type's (PooledFabric.kind, OobFabric.kind): the ignores below are the
    # type checker not narrowing a type by a class attribute.
    if f.kind == FabricKind.POOLED:
        return pooled_view(f, where)   # type: ignore[arg-type]
    if f.kind == FabricKind.OOB:
        leaf, spine = oob_switches(where.catalog, f)   # type: ignore[arg-type]
        return OobLinks.of(f, where.placement, leaf, spine)   # type: ignore[arg-type]
    ufm = UfmLinks.of(where.endpoints) if f.ufm is not None and f.ufm.ports else None
    return FabricLinks.of(f, where.placement, ufm)


def pooled_view(f: PooledFabric, where: Where) -> PooledLinks:
    oob = where.fabrics.get(FabricRole.OOB)
    # The kind is the type's (OobFabric.kind), which the type checker does not narrow by.
    leaf = oob_switches(where.catalog, oob)[0] if oob is not None and oob.kind == FabricKind.OOB else None  # type: ignore[arg-type]
    return PooledLinks.of_pooled(f, where.fabrics.get(FabricRole.COMPUTE), where.fp, where.placement, leaf)


def dci_view(dci: Dci, where: Where) -> DciView:
    """The DCI with the fabric its routers' client links land on (none: its own border leaves, the
    sites' shapes then the compute fabric's)."""
    own = dci.attach == FabricRole.DCI
    attach = view_of(where.fabrics[FabricRole.COMPUTE if own else dci.attach], where)
    assert isinstance(attach, FabricLinks)
    top = DCI_CLIENT.top(where.catalog, dci, attach.first) if dci.attach == FabricRole.COMPUTE else None
    return DciView(FabricRole.DCI, Tier.SCALE_ACROSS, attach.shapes, attach.floors, where.placement, dci,
                   None if own else attach, top)


def count(view: View, kind: FabricKind, fp: FloorPlan, media: Media) -> tuple[list[LinkGroup], dict[str, str]]:
    """The closed form of a fabric: every pattern of its family that a site has, own hops first; and
    the endpoint kinds counted as the nodes' ports (with why)."""
    ctx: HopContext[View] = HopContext(view, fp, media)
    for pattern in ordered(FAMILIES[kind].patterns(view)):
        ctx.groups += pattern.count(ctx)
    return ctx.groups, ctx.substitutions
