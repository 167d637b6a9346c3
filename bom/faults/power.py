"""A rack's power as the failure domains read it: its feeds and PDUs, and whether a device outlives one side.

The one place the faults stage learns a rack's power distribution: the power distribution plan (issue 48,
item 1, ``Model.power``) where the model has one (``feed_loss``: the nodes one feed's loss leaves short of
supplies, the plan's cords and PDUs), else what the placement builds (bom/placement/layout.py ``with_pdus``,
``rack_power``): two feeds, A and B, each with half of the rack's PDUs, and every device on both sides.
"""

from __future__ import annotations

from dataclasses import dataclass

from bom.model.model import Model
from bom.model.placement import RackType
from bom.roles import FEEDS as FEEDS_OF
from bom.roles import Layer

#: A rack's feeds as with_pdus builds them: A and B.
FEEDS = 2


@dataclass(frozen=True)
class RackPower:
    feeds: int              # feeds into the rack
    pdus: int               # PDUs in the rack, over its feeds
    dual_fed: bool          # every device has a supply on each feed: one feed lost cuts nothing

    @property
    def pdus_per_feed(self) -> int:
        return self.pdus // self.feeds if self.feeds else 0


def rack_power(rack: RackType) -> RackPower:
    """The rack's feeds and PDUs (``with_pdus``: an A/B pair per PDU's capacity, each carrying the whole rack)."""
    if not rack.pdus:
        return RackPower(0, 0, False)
    return RackPower(FEEDS, rack.pdus, True)


@dataclass(frozen=True)
class FeedLoss:
    """What the power plan (bom/links/power.py, ``Model.power``) says of one feed lost: the most GPU nodes one
    rack of a layout is left with too few supplies for, and the plan's cords and PDUs over the cluster."""

    nodes_down: int          # the worst rack layout's nodes short of supplies with one feed lost
    supplies: int            # device supplies on the plan (its cords)
    pdus: int


def feed_loss(model: Model) -> FeedLoss | None:
    """The power plan's answer (None: the model has no plan: the placement's A/B pairs, ``rack_power``, stand)."""
    plan = model.power
    if plan is None:
        return None
    worst = 0
    for g in plan.groups:
        for feed in FEEDS_OF:
            down = {slot for f, slot in g.plan.down if f == feed}
            worst = max(worst, sum(1 for slot in down if g.slots[slot][0] == Layer.NODE))
    return FeedLoss(worst, plan.cord_count, sum(len(g.plan.pdus) * g.racks for g in plan.groups))
