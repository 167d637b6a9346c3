"""A sized job: the GPUs its memory and its deadline need, the level of scale it lands at and its
power: data types only (:mod:`bom.topology.sizing` sizes it)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from typing_extensions import TypedDict

from bom.model.parallelism import Parallelism
from bom.model.records import Count


class SizingJson(TypedDict):
    """The workload sizing (Sizing); null without a workload."""

    job: str
    accelerator: str
    memory_gb: float
    flop: float
    gpus_by_memory: Count
    gpus_by_time: Count
    gpus: Count
    decided_by: str
    level: str
    level_label: str
    domain_gpus: Count
    fits_in_domain: bool
    it_power_kw: float | None
    facility_power_kw: float | None
    pue: float
    flops_per_gpu: float
    mfu: float
    deadline_days: float | None
    gpus_by_replicas: Count


@dataclass(frozen=True)
class Level:
    name: str       # package, node, rack, pod, cluster, campus, beyond
    label: str      # as printed, e.g. "rack (72)"
    gpus: float     # the most GPUs this level holds


@dataclass(frozen=True)
class Accelerator:
    """What sizing needs to know of a GPU and the system around it (plain numbers)."""

    name: str
    memory_gb: float            # per GPU [GB]
    flops: dict[str, float]     # dense FLOP/s per GPU by dtype
    power_w: float | None       # system power per GPU [W]
    domain_gpus: int            # scale-up domain size
    levels: tuple[Level, ...]
    hbm_bps: float | None = None    # memory bandwidth per GPU [B/s]; None: not recorded

    def flops_for(self, dtype: str) -> float:
        if dtype in self.flops:
            return self.flops[dtype]
        return self.flops["bf16"]


@dataclass(frozen=True)
class Sizing:
    job: str
    accelerator: str
    memory_gb: float
    flop: float
    gpus_by_memory: int
    gpus_by_time: int
    gpus: int
    decided_by: str          # memory | time | tie
    level: str
    level_label: str
    domain_gpus: int
    fits_in_domain: bool     # the GPUs the job needs fit one scale-up domain
    it_power_kw: float | None
    facility_power_kw: float | None
    pue: float
    flops_per_gpu: float = 0.0       # dense FLOP/s per GPU in the job's dtype, behind the time column
    mfu: float = 0.0                 # model FLOP utilisation behind the time column
    deadline_days: float | None = None   # None: no deadline (serving is sized by memory and its replicas)
    #: A serving job's replicas x GPUs a replica (each replica holds its own weights); 0: not split.
    gpus_by_replicas: int = 0
    #: The job's split and traffic, training or serving (a workload with its shape on a platform); its own JSON key.
    parallelism: Parallelism | None = field(default=None, compare=False)

    def to_json(self) -> SizingJson:
        # Every field but the split, which is the JSON's own key (parallelism).
        return SizingJson(
            job=self.job, accelerator=self.accelerator, memory_gb=self.memory_gb, flop=self.flop,
            gpus_by_memory=self.gpus_by_memory, gpus_by_time=self.gpus_by_time, gpus=self.gpus,
            decided_by=self.decided_by, level=self.level, level_label=self.level_label, domain_gpus=self.domain_gpus,
            fits_in_domain=self.fits_in_domain, it_power_kw=self.it_power_kw,
            facility_power_kw=self.facility_power_kw, pue=self.pue, flops_per_gpu=self.flops_per_gpu, mfu=self.mfu,
            deadline_days=self.deadline_days, gpus_by_replicas=self.gpus_by_replicas)


@dataclass(frozen=True)
class LevelPower:
    """One level of scale's power, and the buildings of a given power it takes (None: no building given)."""

    label: str
    gpus: float
    it_kw: float
    facility_kw: float
    buildings: int | None

    def to_json(self) -> dict[str, object]:
        return asdict(self)
