"""Failure rates per part class (catalogs/reliability/failure-rates.yaml), each with its source."""

from __future__ import annotations

from functools import cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bom.inputs.yamlio import load_file
from bom.resources import data_dir

#: What a rate is counted per: a GPU, a GPU node, a node NIC port, a scale-out link, a rack feed, a PDU,
#: a CDU, a DCI route.
Part = Literal["gpu", "node", "nic", "link", "feed", "pdu", "cdu", "route"]


class Rate(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    category: str
    group: str
    part: Part
    interruptions: int | None = Field(default=None, ge=0)
    units: int | None = Field(default=None, ge=1)
    days: float | None = Field(default=None, gt=0)
    rate_per_day: float | None = None
    source: str = Field(min_length=1)

    @property
    def per_unit_day(self) -> float | None:
        """Interruptions per unit and day: the row's own rate, else its count over its units and days."""
        if self.rate_per_day is not None:
            return self.rate_per_day
        if self.interruptions is None or self.units is None or self.days is None:
            return None
        return self.interruptions / (self.units * self.days)


class RateFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    rates: list[Rate]


@cache
def failure_rates() -> tuple[Rate, ...]:
    """The rows of the built-in rate file, in its order."""
    src = load_file(data_dir("catalogs") / "reliability" / "failure-rates.yaml", "failure rate file")
    return tuple(RateFile.model_validate(src.data).rates)
