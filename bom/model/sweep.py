"""A sweep's results: each design's figures or why it was refused, and the Pareto frontier over the
chosen objectives. Built by :mod:`bom.sweep`, written by :mod:`bom.outputs.writers.sweep`.

A point's record is what the results file holds, one JSON line each, so a resumed sweep and a sweep run on
other workers read back the same values: the outputs are made from these records only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from typing_extensions import TypedDict


class FiguresJson(TypedDict):
    """A built design's figures (each from its build's report)."""

    platform: str
    """The platform built."""
    compute_switch: str
    """The compute fabric's leaf switch."""
    gpus: int
    """GPUs built."""
    sites: int
    """Sites (buildings)."""
    capex_usd: float
    """Capital cost (the TCO's capex) [USD]."""
    tco_usd: float
    """Total cost of ownership over the TCO's years [USD]."""
    usd_per_gpu_hour: float
    """Cost per GPU-hour, the TCO levelised [USD]."""
    usd_per_useful_gpu_hour: float | None
    """Cost per useful GPU-hour: the cost per GPU-hour over bom faults' goodput (expected interruptions,
    checkpoints and restarts of the cluster's failure rates)."""
    facility_mw: float
    """Facility power at maximum (IT x PUE, plus the CDUs) [MW]."""
    it_mw: float
    """IT power at maximum [MW]."""
    copper_share: float
    """Copper share of every link of the cluster (scale-up included)."""
    network_capex_share: float
    """The network's share of the capex."""
    job_days: float | None
    """The job's wall-clock days (a training workload), else none."""
    deadline_days: float | None
    """The job's deadline [days], else none."""
    deadline_met: bool | None
    """Whether the job ends within its deadline (none without one)."""
    in_service: str | None
    """The day the last site is in service (ISO date), none without a schedule."""
    check_errors: int
    """Error-severity design-rule violations (closed form; with constraints.check plan, the plan's too)."""
    check_warnings: int
    """Warning-severity violations."""


class PointJson(TypedDict):
    """One design of the sweep: the overrides that make it from the base, and its figures or why it was
    refused."""

    id: str
    """The point's id (``p`` and its index), the name of its written scenario."""
    index: int
    """Its place in the grid (the axes' product, the first axis slowest)."""
    overrides: dict[str, Any]
    """Scenario key path -> value: the base with these is the design."""
    feasible: bool
    """Built, and within every constraint."""
    refused_by: str | None
    """What refused it: a constraint (``constraints.capex``), the design rules (``rules: ...``), or the
    build's error (its class and key)."""
    reason: str | None
    """Why, in words (the build's error message, or the figure against its limit)."""
    figures: FiguresJson | None
    """Its figures, when it was built (a point refused by a constraint has them too)."""
    frontier: bool
    """On the Pareto frontier over the objectives (feasible points only)."""


class ObjectiveJson(TypedDict):
    figure: str
    """The figure ranked by."""
    goal: Literal["min", "max"]
    """Its better direction."""


class SweepCountsJson(TypedDict):
    points: int
    """Designs in the grid."""
    feasible: int
    """Designs built and within every constraint."""
    infeasible: int
    """Designs refused (kept, with the reason)."""
    frontier: int
    """Designs on the Pareto frontier."""


class SweepJson(TypedDict):
    """A sweep: ``bom sweep --json``, the written ``<name>-sweep.json``."""

    sweep: str
    """The sweep's name."""
    file: str
    """The sweep file, as the command was given it (each point's rebuild command names it)."""
    base: str
    """The base scenario (its path, or ``inline``)."""
    date: str
    """The day every design was priced and scheduled on (the sweep's first run: a resumed sweep keeps it)."""
    axes: dict[str, list[Any]]
    """Scenario key path -> the values swept."""
    objectives: list[ObjectiveJson]
    """The figures the frontier is over."""
    constraints: dict[str, Any]
    """The limits as given."""
    counts: SweepCountsJson
    """How many designs, feasible, refused and on the frontier."""
    frontier: list[str]
    """The frontier's point ids, best first by the first objective."""
    points: list[PointJson]
    """Every design, by index."""


@dataclass(frozen=True)
class Point:
    """A design to build: its index, id and overrides, and the scenario's keys they make."""

    index: int
    overrides: Mapping[str, Any]
    scenario: Mapping[str, Any]

    @property
    def id(self) -> str:
        return f"p{self.index:04d}"


def goal_key(figures: FiguresJson, objectives: Sequence[ObjectiveJson]) -> tuple[float, ...] | None:
    """The point's objective values, each turned to be minimised; None when one is missing."""
    out = []
    for o in objectives:
        v = figures.get(o["figure"])
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            return None
        out.append(-float(v) if o["goal"] == "max" else float(v))
    return tuple(out)


def pareto(keys: Sequence[tuple[float, ...]]) -> list[int]:
    """The indices of ``keys`` no other key dominates (at most as large in every place and smaller in one),
    in order of the keys. Equal keys are all kept: neither dominates the other."""
    order = sorted(range(len(keys)), key=lambda i: keys[i])
    kept: list[int] = []
    for i in order:
        # Sorted, a dominating key comes first; only the kept ones can dominate (dominance is transitive).
        if not any(_dominates(keys[j], keys[i]) for j in kept):
            kept.append(i)
    return sorted(kept)


def _dominates(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return a != b and all(x <= y for x, y in zip(a, b, strict=True))


def frontier(points: Sequence[PointJson], objectives: Sequence[ObjectiveJson]) -> list[str]:
    """The ids of the feasible points on the Pareto frontier, best first by the first objective."""
    ranked = [(p, goal_key(p["figures"], objectives)) for p in points if p["feasible"] and p["figures"]]
    usable = [(p, k) for p, k in ranked if k is not None]
    kept = [usable[i] for i in pareto([k for _, k in usable])]
    return [p["id"] for p, _ in sorted(kept, key=lambda pk: (pk[1], pk[0]["index"]))]


def sweep_json(name: str, file: str, base: str, date: str, axes: Mapping[str, list[Any]],
               objectives: list[ObjectiveJson], constraints: dict[str, Any], points: Sequence[PointJson]) -> SweepJson:
    """The sweep's document from its points' records (any order: by index here), the frontier marked."""
    ordered = sorted(points, key=lambda p: p["index"])
    front = frontier(ordered, objectives)
    on = set(front)
    marked: list[PointJson] = [{**p, "frontier": p["id"] in on} for p in ordered]
    feasible = sum(p["feasible"] for p in ordered)
    return {"sweep": name, "file": file, "base": base, "date": date, "axes": {k: list(v) for k, v in axes.items()},
            "objectives": objectives, "constraints": constraints,
            "counts": {"points": len(ordered), "feasible": feasible, "infeasible": len(ordered) - feasible,
                       "frontier": len(front)},
            "frontier": front, "points": marked}
