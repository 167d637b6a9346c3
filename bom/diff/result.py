"""A diff of two designs: the figures read off their builds' JSON, the devices of their placements and
the moves of their cable plans, and whether anything differs (``bom diff``'s exit code)."""

from __future__ import annotations

from dataclasses import dataclass, field

from bom.diff import summary
from bom.diff.cables import CableChanges
from bom.diff.devices import DeviceChanges
from bom.diff.records import CategoryDeltaJson, DiffJson, FigureJson, OrderDeltaJson, RuleJson
from bom.diff.summary import Doc


@dataclass
class Diff:
    old: str
    new: str
    size: list[FigureJson]
    order: list[OrderDeltaJson]
    categories: list[CategoryDeltaJson]
    tco: list[FigureJson]
    power: list[FigureJson]
    optics: list[FigureJson]
    rules: list[RuleJson]
    devices: DeviceChanges = field(default_factory=DeviceChanges)
    cables: CableChanges = field(default_factory=CableChanges)

    @property
    def same(self) -> bool:
        return not (self.size or self.order or self.categories or self.tco or self.power or self.optics
                    or self.rules) and self.devices.same and self.cables.same

    def to_json(self) -> DiffJson:
        return {"old": self.old, "new": self.new, "same": self.same, "size": self.size, "order": self.order,
                "categories": self.categories, "tco": self.tco, "power": self.power, "optics": self.optics,
                "rules": self.rules, "devices": self.devices.to_json(), "cables": self.cables.to_json()}


def diff_docs(old_name: str, new_name: str, old: Doc, new: Doc) -> Diff:
    """Every figure of the two builds' JSON that moves (devices and cables: set by the caller)."""
    return Diff(old_name, new_name, summary.size(old, new), summary.order(old, new),
                summary.categories(old, new), summary.tco(old, new), summary.power(old, new),
                summary.optics(old, new), summary.rules(old, new))
