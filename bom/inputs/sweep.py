"""A sweep file (``bom sweep``): a base scenario, the axes that vary it, the limits a design must keep and
the figures designs are ranked by.

An axis is a scenario key path (``fabrics.compute.oversubscription``, ``sites.power``,
``workload.deadline``) with its values, so a new axis needs no code: the key path is checked against
the scenario's own model here, each value by the scenario's validators when the points are made
(:mod:`bom.sweep.grid`). ``platform`` takes ``platform@switch`` as ``bom compare`` reads it.
"""

from __future__ import annotations

import math
import typing
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, field_validator

from bom.errors import BomError
from bom.inputs.scenario import Day, Scenario
from bom.inputs.validation import Model, Money, PositivePower, RuleError, suggest, validate
from bom.inputs.yamlio import Located, load_file

#: The figures a design can be ranked by: name -> (the better direction, what it is). Every one is a
#: field of a point's figures (bom/model/sweep.py: FiguresJson).
OBJECTIVES: dict[str, tuple[Literal["min", "max"], str]] = {
    "usd_per_gpu_hour": ("min", "cost per GPU-hour (USD, the TCO levelised)"),
    "usd_per_useful_gpu_hour": ("min", "cost per useful GPU-hour (USD: per GPU-hour over bom faults' goodput)"),
    "job_days": ("min", "the job's wall-clock days (a workload with a training job)"),
    "capex_usd": ("min", "capital cost (USD)"),
    "tco_usd": ("min", "total cost of ownership (USD)"),
    "facility_mw": ("min", "facility power at maximum (MW)"),
    "copper_share": ("max", "copper share of every link of the cluster"),
    "gpus": ("max", "GPUs built (the most a budget or a power limit buys)"),
}

#: Values one sweep may make (the product of its axes).
MAX_POINTS = 100_000


class Range(Model):
    """Evenly spaced values, ``start`` to ``stop`` inclusive, ``step`` apart; with ``unit`` each is written
    as a quantity (``{start: 60, stop: 120, step: 20, unit: MW}`` gives "60 MW" ... "120 MW")."""

    start: float
    """The first value."""
    stop: float
    """The last value (kept when the steps land on it)."""
    step: float = Field(gt=0)
    """The distance between two values."""
    unit: str | None = Field(default=None, max_length=20, examples=["MW"])
    """A unit written after each value, for a key that takes a quantity."""

    def values(self) -> list[Any]:
        n = math.floor((self.stop - self.start) / self.step + 1e-9) + 1
        if n < 1:
            raise BomError(f"the range {self.start:g} to {self.stop:g} is empty", hint="Give stop >= start.")
        out: list[Any] = [_number(self.start + i * self.step) for i in range(n)]
        return [f"{v:g} {self.unit}" for v in out] if self.unit else out


def _number(x: float) -> int | float:
    """A whole number as an int (a count key refuses 2.0), else rounded off the float noise of the steps."""
    r = round(x, 9)
    return int(r) if r.is_integer() else r


class Constraints(Model):
    """What a design must keep to be feasible; a point that breaks one is kept with the limit it broke."""

    capex: Money | None = Field(default=None, examples=["400e6 USD"])
    """The most the design may cost to build (the TCO's capex)."""
    facility_power: PositivePower | None = Field(default=None, examples=["20 MW"])
    """The most facility power the design may draw at its maximum (IT x PUE, plus the CDUs)."""
    in_service: Day | None = Field(default=None, examples=["2027-12-01"])
    """The latest day every site must be in service (order date + the gating part's lead time +
    installation + burn-in)."""
    deadline_met: bool = False
    """The job finishes within its ``workload.deadline`` (a training workload; its wall days from the
    split's step, which may be longer than the sizing's compute alone)."""
    check: Literal["closed", "plan", "off"] = "closed"
    """The design rules a design must pass (no error-severity violation): ``closed``, the closed form
    ``bom build`` runs; ``plan``, also the rules over the streamed cable plan (``bom check``'s, slower);
    ``off``, none (budget drafts)."""


class Objective(Model):
    """A figure to rank by and its better direction."""

    figure: str = Field(examples=["usd_per_gpu_hour"])
    """One of the figures OBJECTIVES lists."""
    goal: Literal["min", "max"] | None = None
    """``min`` or ``max``; default the figure's own (copper share: max, the rest: min)."""

    @field_validator("figure")
    @classmethod
    def _known(cls, value: str) -> str:
        if value not in OBJECTIVES:
            raise ValueError(f"{suggest(value, OBJECTIVES, 'objective')} Allowed: {', '.join(OBJECTIVES)}")
        return value

    @property
    def direction(self) -> Literal["min", "max"]:
        return self.goal or OBJECTIVES[self.figure][0]


AxisValues = Annotated[list[Any], Field(min_length=1, max_length=10_000)] | Range


class Sweep(Model):
    """A design-space sweep: every combination of the axes' values built from the base scenario."""

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$", examples=["gb300-frontier"])
    """Names the outputs (``<name>-sweep.csv``, ...)."""
    base: str | dict[str, Any] = Field(default="", examples=["scenario.yaml"])
    """The base scenario: a path (relative to the sweep file), or the scenario's keys inline; default
    the built-in default scenario."""
    axes: dict[str, AxisValues] = Field(min_length=1, max_length=12)
    """Scenario key path -> its values (a list, or a range). ``platform`` takes ``platform@switch``
    (the platform with that compute switch, as ``bom compare`` reads it) and, as there, gives each
    platform its own switches and floor plan unless another axis sets them."""
    constraints: Constraints = Constraints()
    """The limits a design must keep."""
    objectives: list[str | Objective] = Field(default=["usd_per_gpu_hour", "facility_mw"], min_length=1,
                                              max_length=4)
    """The figures the Pareto frontier is over: names (each in its own direction) or
    ``{figure, goal}``."""

    @field_validator("axes")
    @classmethod
    def _axis_keys(cls, axes: dict[str, Any]) -> dict[str, Any]:
        for key in axes:
            try:
                check_key(key)
            except ValueError as exc:   # named at the axis' own line
                raise RuleError(str(exc), (key,)) from None
        return axes

    @field_validator("objectives")
    @classmethod
    def _objectives(cls, items: list[Any]) -> list[Any]:
        out = [Objective(figure=o) if isinstance(o, str) else o for o in items]
        names = [o.figure for o in out]
        if len(set(names)) != len(names):
            raise ValueError("an objective is named twice")
        return out

    def ranked(self) -> list[Objective]:
        return [o if isinstance(o, Objective) else Objective(figure=o) for o in self.objectives]

    def axis_values(self) -> dict[str, list[Any]]:
        out = {}
        for key, values in self.axes.items():
            try:
                out[key] = values.values() if isinstance(values, Range) else list(values)
            except BomError as exc:
                raise BomError(exc.message, key=f"axes.{key}", hint=exc.hint) from None
        total = math.prod(len(v) for v in out.values())
        if total > MAX_POINTS:
            raise BomError(f"the axes make {total:,} designs; the limit is {MAX_POINTS:,}", key="axes",
                           hint="Sweep fewer values, or split the sweep in several files.")
        return out


def check_key(key: str) -> None:
    """``key`` must name a scenario key (a field of the scenario's model at every step); else a ValueError
    naming the step and what is allowed there."""
    model: type[BaseModel] | None = Scenario
    parts = key.split(".")
    i = 0
    while i < len(parts):
        part = parts[i]
        if model is None:
            raise ValueError(f"{'.'.join(parts[:i])} takes a value, not keys under it")
        fields = model.model_fields
        if part not in fields:
            raise ValueError(suggest(part, fields, "scenario key"))
        annotation = fields[part].annotation
        names = _mapping_keys(annotation)
        if names is not None and i + 1 < len(parts):   # a mapping of named entries (fabrics: compute, ...)
            i += 1
            if names and parts[i] not in names:
                raise ValueError(suggest(parts[i], names, part))
        model = _model_in(annotation)
        i += 1


def _mapping_keys(annotation: Any) -> list[str] | None:
    """The allowed keys of a ``dict[Literal[...], X]`` field ([] for any key), None when it is no mapping."""
    for arg in (annotation, *typing.get_args(annotation)):
        if typing.get_origin(arg) is dict:
            k = typing.get_args(arg)[0]
            return [str(x) for x in typing.get_args(k)] if typing.get_origin(k) is Literal else []
    return None


def _model_in(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def load_sweep(path: Any) -> tuple[Sweep, Located]:
    """The sweep file at ``path`` and where each of its keys stands."""
    src = load_file(path, "sweep file")
    if not isinstance(src.data, dict):
        raise BomError("a sweep file is a YAML mapping of name, base, axes, constraints and objectives",
                       where=src.file)
    sweep = validate(Sweep, src.data, src)
    assert isinstance(sweep, Sweep)
    return sweep, src
