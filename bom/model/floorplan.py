"""The floor plan and the runs on it: data types only (:mod:`bom.topology.geometry` builds the plan and
says how long a run between two racks is)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Protocol


@dataclass(frozen=True)
class FloorPlan:
    nodes_per_rack: int
    racks_per_row: int
    rack_width_m: float
    row_pitch_m: float
    rise_m: float
    slack_m: float
    in_rack_m: float
    patch_panels: int = 0     # on runs that leave their row (structured cabling)

    @property
    def row_m(self) -> float:
        return self.racks_per_row * self.rack_width_m

    def run(self, rows: int, along_m: float) -> float:
        """A run through the overhead tray: ``rows`` row pitches and ``along_m`` along rows."""
        return rows * self.row_pitch_m + along_m + 2 * self.rise_m + self.slack_m


class Run(NamedTuple):
    """``ports`` ports per device of a group lie on runs of ``length_m`` in bucket ``bucket`` (a
    tuple: a run is a key of many dicts, and a tuple hashes fast)."""

    length_m: float
    bucket: str   # in-rack | in-row | cross-row


#: One end of a hop: (number of devices, {run: ports of each device on that run}).
EndGroups = list[tuple[int, dict[Run, int]]]


class Repeat(Protocol):
    """A role's devices in one section: ``per_copy`` in each of ``copies`` copies, from index ``first``."""

    @property
    def first(self) -> int: ...
    @property
    def copies(self) -> int: ...
    @property
    def per_copy(self) -> int: ...


class Floorish(Protocol):
    """What the ends read of the placement: where a device stands, and the parts a role's devices
    repeat in (:class:`bom.model.floor.Floor`)."""

    def spot(self, role: str, index: int) -> tuple[int, int]: ...
    def spots(self, role: str) -> list[tuple[int, int]]: ...
    def parts(self, role: str) -> tuple[Repeat, ...]: ...
