"""What every rule reads: the model, the catalog it was built with, and each link group's two
devices (resolved once per run), with the words a violation uses for a link group and its ends."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bom.catalog.media import End as LinkEnd
from bom.model.checks import End
from bom.rules.devices import Device, Resolver

if TYPE_CHECKING:
    from bom.catalog.rows import Catalog
    from bom.model.linkgroups import LinkGroup
    from bom.model.model import Model


@dataclass
class Context:
    model: Model
    catalog: Catalog
    _ends: dict[int, tuple[Device | None, Device | None]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.resolver = Resolver(self.model, self.catalog)

    @property
    def groups(self) -> list[LinkGroup]:
        """Every link group the BOM counts: each fabric's, then the DCI routers' client links."""
        return self.model.groups

    def devices(self, g: LinkGroup) -> tuple[Device | None, Device | None]:
        key = id(g)
        hit = self._ends.get(key)
        if hit is None:
            hit = self._ends[key] = self.resolver.ends(g)
        return hit


def where(g: LinkGroup) -> str:
    """A link group for people: "compute leaf-spine, cross-row runs (3,456 links at 800G)"."""
    return f"{g.fabric} {g.hop}, {g.bucket} runs ({g.links:,} links at {g.rate_gbps:g}G)"


def end(g: LinkGroup, lower: bool, device: Device | None) -> End:
    """One end of a link group as a violation shows it: the layer, the device's part, the module."""
    e: LinkEnd = g.lower_end if lower else g.upper_end
    layer = g.lower if lower else g.upper
    module = e.part.part_number if e.part is not None else ("" if e.engine is None else e.label)
    return End(device.role if device else layer, device.part if device else layer, "", module,
               device.describe() if device else "")
