"""Sizing: the smallest level of scale whose memory holds a job and that finishes it in time.

GPUs by memory = ceil(memory / (memory per GPU x usable fraction));
GPUs by time = ceil(FLOP / (FLOP/s per GPU x MFU x deadline)); the job needs the larger,
and lands at the smallest level whose GPU count holds it (seven-levels-of-scale seed).
"""

from __future__ import annotations

import math
from dataclasses import replace

from bom.catalog.rows import Platform
from bom.errors import LimitError
from bom.inputs.workload import Workload
from bom.model.sizing import Accelerator, Level, LevelPower, Sizing
from bom.units import magnitude

USABLE_MEMORY_FRACTION = 0.85
DEFAULT_PUE = 1.25  # bom.costing.tco.DEFAULTS["pue"]; the callers pass the scenario's tco.pue


BEYOND = Level("beyond", "beyond one campus", math.inf)

# Cluster sizes of one building and the campus ceiling hold for every platform.
_BUILDINGS = (Level("cluster", "cluster (16k)", 16384), Level("cluster", "cluster (100k)", 100000),
              Level("campus", "campus (1M)", 1_000_000))

#: The seed's ladder (levels.go) plus the campus it describes in prose.
SEED_LEVELS = (Level("package", "package (1 GPU)", 1), Level("node", "node (8)", 8),
               Level("rack", "rack (72)", 72), Level("pod", "pod (576)", 576)) + _BUILDINGS


#: The seed's constants: 288 GB (B300-class), 2.25e15 FLOP/s dense BF16 (B200-class).
SEED_MEMORY_GB = 288.0
SEED_FLOPS = 2.25e15


def seed_accelerator(power_from: Platform | None = None) -> Accelerator:
    """The seed's accelerator; power per GPU borrowed from ``power_from`` when given."""
    power = power_from.power_per_gpu_w if power_from else None
    return Accelerator(seed_name(SEED_MEMORY_GB, SEED_FLOPS), SEED_MEMORY_GB, {"bf16": SEED_FLOPS}, power, 72,
                       SEED_LEVELS)


def seed_name(memory_gb: float, flops: float) -> str:
    """The seed's accelerator named by the memory and FLOP/s it is sized at (the command line may change them).

    >>> seed_name(288.0, 2.25e15), seed_name(80.0, 1e15)
    ('the reference accelerator (288 GB, 2.25 PFLOP/s)', 'the reference accelerator (80 GB, 1 PFLOP/s)')
    """
    return f"the reference accelerator ({memory_gb:,g} GB, {flops / 1e15:,g} PFLOP/s)"


def platform_levels(p: Platform) -> tuple[Level, ...]:
    """Package, node, rack and pod (one scalable unit) from the platform, then buildings."""
    node, rack, pod = p.gpus_per_node, p.gpus_per_rack, p.su_nodes * p.gpus_per_node
    return (Level("package", "package (1 GPU)", 1), Level("node", f"node ({node})", node),
            Level("rack", f"rack ({rack})", rack), Level("pod", f"pod ({pod:,})", pod)) + _BUILDINGS


def platform_accelerator(p: Platform) -> Accelerator:
    flops = {"bf16": p.flops_per_gpu("bf16")}
    if p.fp8_dense is not None:
        flops["fp8"] = p.flops_per_gpu("fp8")
    if p.fp4_dense is not None:
        flops["fp4"] = p.flops_per_gpu("fp4")

    hbm = None if p.memory_bandwidth is None else magnitude(p.memory_bandwidth, "rate") * 1e9 / 8
    return Accelerator(p.id, magnitude(p.memory_per_gpu, "information"), flops,
                       p.power_per_gpu_w, p.gpus_per_domain, platform_levels(p), hbm)


def buildings_for(facility_kw: float, building_kw: float) -> int:
    """Buildings of ``building_kw`` that hold ``facility_kw``: ceil(facility / building).

    >>> buildings_for(283_000, 100_000), buildings_for(0.5, 100_000)
    (3, 1)
    """
    return max(1, math.ceil(facility_kw / building_kw - 1e-9))


def level_powers(acc: Accelerator, pue: float, building_kw: float | None) -> list[LevelPower]:
    """Each level's IT power (its GPUs x the platform's power per GPU) and facility power (x PUE); with
    ``building_kw``, the buildings each takes. Empty when the accelerator has no power figure."""
    if acc.power_w is None:
        return []
    out = []
    for level in acc.levels:
        it = level.gpus * acc.power_w / 1000.0
        out.append(LevelPower(level.label, level.gpus, it, it * pue,
                              None if building_kw is None else buildings_for(it * pue, building_kw)))
    return out


def level_for(gpus: float, levels: tuple[Level, ...]) -> Level:
    """The smallest level that holds ``gpus``."""
    for level in levels:
        if gpus <= level.gpus:
            return level
    return BEYOND


def size(job: Workload, acc: Accelerator, pue: float = DEFAULT_PUE) -> Sizing:
    """Size ``job`` on ``acc``; see the module docstring for the formulas."""
    memory = job.memory_gb
    by_mem = _count(memory / (acc.memory_gb * USABLE_MEMORY_FRACTION), "memory")
    by_time = 0
    flop = job.total_flop
    if flop > 0 and job.kind != "serve":
        by_time = _count(flop / (acc.flops_for(job.dtype) * job.mfu * job.deadline_s), "time")
    need = max(by_mem, by_time, 1)
    level = level_for(need, acc.levels)
    it_kw = None if acc.power_w is None else need * acc.power_w / 1000.0
    timed = job.kind != "serve" and job.deadline is not None
    return Sizing(job.label, acc.name, memory, flop, by_mem, by_time, need,
                  _decider(by_mem, by_time), level.name, level.label,
                  acc.domain_gpus, need <= acc.domain_gpus, it_kw,
                  None if it_kw is None else it_kw * pue, pue, acc.flops_for(job.dtype), job.mfu,
                  job.deadline_s / 86400.0 if timed else None)


def with_replicas(s: Sizing, gpus: int, acc: Accelerator) -> Sizing:
    """A serving job takes its replicas' GPUs: ``replicas x (TP x EP x PP)``, each replica holding its own
    copy of the weights beside its users' KV cache, so never fewer than the memory total asks for (that
    total counts the weights once). Llama 3 70B in BF16 for 64 users of 32,768 tokens on H100: 827 GB is
    13 GPUs by memory, but 6 replicas of TP 4 run on 24 (bom/topology/serving.py: propose)."""
    need = max(gpus, s.gpus_by_memory, 1)
    level = level_for(need, acc.levels)
    it_kw = None if acc.power_w is None else need * acc.power_w / 1000.0
    return replace(s, gpus_by_replicas=gpus, gpus=need, decided_by="replicas" if gpus > s.gpus_by_memory else
                   s.decided_by, level=level.name, level_label=level.label, fits_in_domain=need <= acc.domain_gpus,
                   it_power_kw=it_kw, facility_power_kw=None if it_kw is None else it_kw * s.pue)


#: More GPUs than any campus holds by nine orders of magnitude: past it, a count is an input error.
MAX_GPUS = 10**15


def _count(gpus: float, by: str) -> int:
    """Whole GPUs, refusing a count no building could hold (it comes from a wrong unit or a typo)."""
    if not (math.isfinite(gpus) and gpus >= 0) or gpus > MAX_GPUS:
        raise LimitError(f"the job needs {gpus:.3g} GPUs by {by}, past the {MAX_GPUS:.0e} this tool sizes; "
                         "check the workload's units and the memory per GPU and FLOP/s per GPU", key="workload")
    return math.ceil(gpus)


def _decider(by_mem: int, by_time: int) -> str:
    """Which column set the GPU count: memory, time, or both (a tie)."""
    if by_time > by_mem:
        return "time"
    return "tie" if by_time == by_mem else "memory"
