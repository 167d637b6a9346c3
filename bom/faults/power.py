"""A rack's power as the failure domains read it: its feeds and PDUs, and whether a device outlives one side.

The one place the faults stage learns a rack's power distribution. Until the power distribution plan lands
(issue 48, item 1), it is what the placement already builds (bom/placement/layout.py ``with_pdus``): two
feeds, A and B, each with half of the rack's PDUs, and every device on both sides (the A/B pairs are
sized for the whole rack on either feed). The power plan replaces this function, nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass

from bom.model.placement import RackType

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
