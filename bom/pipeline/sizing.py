"""The sizing commands: a workload sized on a platform (or the seed's accelerator), with the command line's
overrides."""

from __future__ import annotations

from dataclasses import dataclass, replace

from bom.catalog.rows import Catalog, Platform
from bom.costing.tco import DEFAULTS, inputs
from bom.errors import BomError, keyed
from bom.inputs.scenario import Scenario
from bom.inputs.validation import located
from bom.inputs.workload import Workload, load_jobs
from bom.inputs.yamlio import Located
from bom.model.sizing import Accelerator, LevelPower, Sizing
from bom.resources import data_dir
from bom.topology.jobs import split_job
from bom.topology.sizing import (
    level_powers,
    platform_accelerator,
    seed_accelerator,
    seed_name,
    size,
    with_replicas,
)

#: The seed gives no power; its 288 GB accelerator is B300-class, so power comes from here.
SEED_POWER_PLATFORM = "dgx-b300"


@dataclass(frozen=True)
class SizeOverrides:
    memory_per_gpu_gb: float | None = None
    flops_per_gpu: float | None = None
    mfu: float | None = None
    pue: float | None = None


def accelerator(catalog: Catalog, platform_id: str | None, ov: SizeOverrides) -> Accelerator:
    """The platform's accelerator (or the seed's), with the command-line overrides applied."""
    if platform_id is None:
        seed = catalog.rows["platforms"].get(SEED_POWER_PLATFORM)
        acc = seed_accelerator(seed if isinstance(seed, Platform) else None)
    else:
        acc = platform_accelerator(catalog.platform(platform_id))
    said = []   # the name says what the job is sized at, the command line's figures included
    if ov.memory_per_gpu_gb is not None:
        acc = replace(acc, memory_gb=ov.memory_per_gpu_gb)
        said.append(f"{ov.memory_per_gpu_gb:,g} GB")
    if ov.flops_per_gpu is not None:
        acc = replace(acc, flops={k: ov.flops_per_gpu for k in acc.flops})
        said.append(f"{ov.flops_per_gpu / 1e15:,g} PFLOP/s")
    if platform_id is None:
        return replace(acc, name=seed_name(acc.memory_gb, acc.flops["bf16"]))
    return replace(acc, name=f"{acc.name} at {' and '.join(said)} a GPU") if said else acc


def _with_mfu(job: Workload, ov: SizeOverrides) -> Workload:
    return job if ov.mfu is None else job.model_copy(update={"mfu": ov.mfu})


def size_seed_jobs(catalog: Catalog, platform_id: str | None,
                   ov: SizeOverrides) -> list[Sizing]:
    """The seed's six example jobs sized on the seed accelerator or a platform."""
    acc = accelerator(catalog, platform_id, ov)
    jobs = load_jobs(data_dir("scenarios") / "seed-jobs.yaml")
    pue = ov.pue or float(DEFAULTS["pue"].value)
    return [size(_with_mfu(j, ov), acc, pue) for j in jobs]


def size_levels(catalog: Catalog, platform_id: str | None, ov: SizeOverrides, pue: float,
                building_kw: float | None) -> list[LevelPower]:
    """Each level of scale's power on the platform (or the seed's accelerator), and the buildings it takes."""
    return level_powers(accelerator(catalog, platform_id, ov), pue, building_kw)


def size_scenario(scenario: Scenario, src: Located, catalog: Catalog, platform_id: str | None,
                  ov: SizeOverrides) -> Sizing:
    """The scenario's workload sized on its platform (or ``platform_id``)."""
    if scenario.workload is None:
        raise BomError("this scenario gives nodes or gpus, not a workload, so there is "
                       "nothing to size", where=src.where(()), key="workload",
                       hint="Add a workload: {kind: pretrain, params: 70e9, tokens: 15e12, "
                            "deadline: \"60 d\"}.")
    pid = platform_id or scenario.platform
    with located(src):
        with keyed(("platform",)):   # the scenario's platform, or --platform in its place
            acc = accelerator(catalog, pid, ov)
        dtype = scenario.workload.dtype
        if pid and dtype in ("fp8", "fp4") and dtype not in acc.flops and ov.flops_per_gpu is None:
            # the weights are sized at the dtype's bytes, so a GPU without the format would hold them as bf16
            raise BomError(f"platform {pid} has no dense {dtype} figure ({catalog.platform(pid).gpu} does not run "
                           f"{dtype}), so a job in {dtype} cannot be sized on it", at=("workload", "dtype"),
                           key="workload.dtype",
                           hint="Use dtype: bf16 (or a format the GPU runs), or another platform.",
                           fix={("workload", "dtype"): "bf16"})
        pue = ov.pue or float(inputs(scenario.tco, scenario.layout.cooling)["pue"].value)
        sized = size(_with_mfu(scenario.workload, ov), acc, pue)
        if pid is not None and scenario.workload.has_shape:
            split = split_job(scenario, catalog.platform(pid), acc, sized)
            sized = replace(sized, parallelism=split)
            if split.kind == "serve":
                sized = with_replicas(sized, split.gpus, acc)   # the build takes the replicas' GPUs
        elif scenario.workload.tokens_per_s_per_user is not None:
            raise BomError("workload.tokens_per_s_per_user needs a platform: the decode step reads the weights at "
                           "its GPUs' memory bandwidth", key="workload.tokens_per_s_per_user",
                           hint="Give the scenario platform: ID (`bom size --platform ID` in its place).")
        return sized
