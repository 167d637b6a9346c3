"""What the job costs: the scenario's training job run on the cluster that was built for it.

GPU-hours = FLOP / (dense FLOP/s per GPU in the job's dtype x MFU) / 3600 s x the step factor;
wall time = GPU-hours / GPUs built; energy = facility power (IT x PUE) x wall time. The step factor
(issue 42) is the split's step over its compute alone on every GPU built: ``step_s x GPUs built /
(compute_s x the split's GPUs)``, so the wall time is the steps times the step (compute, pipeline
bubble and the communication the split cannot hide, bom/topology/parallelism.py) and the GPUs the
split leaves idle are paid for; 1 without a split (a workload without its shape). The run is
priced at the TCO's cost per GPU-hour (each year's capital charge and opex spread over the GPU-hours
worked) and at the marginal rate (energy
and support only: what the run costs on a cluster that is already paid for). The workbook's TCO
sheet computes the same figures with live formulas (``job_*`` names).

A serving job (sized by memory, no FLOP) and a scenario sized by ``gpus`` or ``nodes`` have no job.
"""

from __future__ import annotations

from dataclasses import dataclass

from typing_extensions import TypedDict

from bom.costing.tco import Tco
from bom.model.records import Count
from bom.model.sizing import Sizing

SECONDS_PER_HOUR = 3600.0


class JobJson(TypedDict):
    """The training job priced: GPU-hours, wall time, energy, cost at the TCO and marginal rates."""

    name: str
    """The job's name (or its kind)."""
    flop: float
    """Total work [FLOP]."""
    flops_per_gpu: float
    """Dense FLOP/s per GPU in the job's dtype (catalog)."""
    mfu: float
    """Model FLOP utilisation."""
    gpus: Count
    """GPUs built (the job runs on all of them)."""
    gpu_hours: float
    """GPU-hours = flop / (flops_per_gpu x mfu) / 3600 x step_factor."""
    wall_days: float
    """Wall time = gpu_hours / gpus / 24 [days]."""
    energy_mwh: float
    """Facility energy over the wall time (IT power x PUE) [MWh]."""
    usd_per_gpu_hour: float
    """The TCO's cost per GPU-hour."""
    marginal_usd_per_gpu_hour: float
    """Energy and support per GPU-hour worked."""
    cost_usd: float
    """gpu_hours x usd_per_gpu_hour."""
    marginal_cost_usd: float
    """gpu_hours x marginal_usd_per_gpu_hour."""
    deadline_days: float | None
    """The deadline the job was sized for [days]."""
    step_factor: float
    """The split's step (compute, pipeline bubble, exposed communication) over its compute alone on every
    GPU built (1 without a split)."""


@dataclass(frozen=True)
class Job:
    name: str
    flop: float                  # total work [FLOP]
    flops_per_gpu: float         # dense FLOP/s per GPU in the job's dtype
    mfu: float                   # model FLOP utilisation
    gpus: int                    # GPUs built (whole systems; at least what sizing asked for)
    gpu_hours: float
    wall_days: float
    energy_mwh: float            # facility energy over the wall time [MWh]
    usd_per_gpu_hour: float      # the TCO's rate
    marginal_usd_per_gpu_hour: float
    cost_usd: float
    marginal_cost_usd: float
    deadline_days: float | None  # what the job was sized for
    step_factor: float = 1.0     # the split's step over its compute alone on every GPU built (module docstring)

    def to_json(self) -> JobJson:
        return {"name": self.name, "flop": self.flop, "flops_per_gpu": self.flops_per_gpu, "mfu": self.mfu,
                "gpus": self.gpus, "gpu_hours": round(self.gpu_hours, 4), "wall_days": round(self.wall_days, 6),
                "energy_mwh": round(self.energy_mwh, 6), "usd_per_gpu_hour": round(self.usd_per_gpu_hour, 6),
                "marginal_usd_per_gpu_hour": round(self.marginal_usd_per_gpu_hour, 6),
                "cost_usd": round(self.cost_usd, 2), "marginal_cost_usd": round(self.marginal_cost_usd, 2),
                "deadline_days": self.deadline_days, "step_factor": round(self.step_factor, 6)}


def gpu_hours(flop: float, flops_per_gpu: float, mfu: float) -> float:
    """GPU-hours = FLOP / (FLOP/s per GPU x MFU) / 3600.

    >>> gpu_hours(3600 * 1e15, 1e15, 0.5)
    2.0
    """
    return flop / (flops_per_gpu * mfu) / SECONDS_PER_HOUR


def step_factor(step_s: float, compute_s: float, split_gpus: int, gpus: int) -> float:
    """The step over its compute alone on every GPU built: the issue-42 MoE job's 3.910 s step against
    2.097 s of compute on the split's 480 GPUs, on 504 built, is 1.958 x the work at the MFU alone:
    82.7 days become 161.8.

    >>> f = step_factor(3.910003, 2.097152, 480, 504)
    >>> round(f, 4), round(gpu_hours(7.2e24, 5e15, 0.4) * f / 504 / 24, 1)
    (1.9577, 161.8)
    """
    return step_s * gpus / (compute_s * split_gpus)


def job_cost(sizing: Sizing | None, gpus: int, tco: Tco) -> Job | None:
    """The job of ``sizing`` run on ``gpus`` GPUs, priced at ``tco``'s rates; None without training work."""
    if sizing is None or sizing.flop <= 0 or sizing.flops_per_gpu <= 0 or sizing.mfu <= 0 or gpus <= 0:
        return None
    p = sizing.parallelism
    factor = 1.0
    if p is not None and p.kind == "train" and p.compute_s > 0 and p.gpus > 0:
        factor = step_factor(p.step_s, p.compute_s, p.gpus, gpus)
    hours = gpu_hours(sizing.flop, sizing.flops_per_gpu, sizing.mfu) * factor
    wall_h = hours / gpus
    return Job(sizing.job, sizing.flop, sizing.flops_per_gpu, sizing.mfu, gpus, hours, wall_h / 24.0,
               tco.facility_power_kw * wall_h / 1000.0, tco.usd_per_gpu_hour, tco.marginal_usd_per_gpu_hour,
               hours * tco.usd_per_gpu_hour, hours * tco.marginal_usd_per_gpu_hour, sizing.deadline_days, factor)
