"""A workload as the parallelism stages take it: its shape in plain numbers, the platform's tiers, and its
split (training: :mod:`bom.topology.parallelism`; serving: :mod:`bom.topology.serving`)."""

from __future__ import annotations

from dataclasses import replace

from bom.catalog.rows import Platform
from bom.inputs.scenario import Scenario
from bom.inputs.workload import BYTES_PER_VALUE, Workload
from bom.model.parallelism import Parallelism, Split, Tiers
from bom.model.sizing import Accelerator, Sizing
from bom.topology import serving
from bom.topology.cluster import site_systems
from bom.topology.parallelism import Shape, left_out_dp, split_training
from bom.topology.serving import ServeShape
from bom.topology.sizing import USABLE_MEMORY_FRACTION
from bom.units import magnitude


def split_job(scenario: Scenario, platform: Platform, acc: Accelerator, sized: Sizing) -> Parallelism:
    """The workload's parallelism on ``platform``: the scenario's tiers as plain numbers for the stage."""
    job = scenario.workload
    assert job is not None and job.params is not None
    if job.kind == "serve":
        return serve_job(job, platform, acc)
    shape = workload_shape(job)
    out = platform.scale_out
    sites = scenario.sites
    count = sites.count if sites is not None else 1
    dci_bps = None
    if sites is not None and count > 1:
        if sites.dci_bandwidth is not None and sites.dci_bandwidth != "auto":
            dci_bps = magnitude(sites.dci_bandwidth, "rate") * 1e9 / 8
        elif sites.dci_fraction is not None:
            site_nodes = sized.gpus / count / platform.gpus_per_node
            dci_bps = sites.dci_fraction * site_nodes * out.ports * magnitude(out.rate, "rate") * 1e9 / 8
    tiers = replace(platform_tiers(platform, count, dci_bps, acc.domain_gpus),
                    site_gpus=site_gpus(platform, sized.gpus, count, sites.split if sites is not None else None))
    given = None
    left_out = job.parallelism is not None and job.parallelism.dp is None
    if job.parallelism is not None:
        p = job.parallelism
        dp = p.dp or left_out_dp(p.tp, p.cp, p.ep, p.pp, tiers, sized.gpus)
        given = Split(p.tp, p.cp, p.ep, p.pp, dp)
    overlap = sites.dci_overlap if sites is not None else None
    result = split_training(job.label, shape, tiers, sized.gpus, acc.flops_for(job.dtype), job.mfu,
                            acc.memory_gb * 1e9 * USABLE_MEMORY_FRACTION, given, overlap, left_out)
    if dci_bps is None and result.dci_gbps_needed is not None:
        # auto: the DCI runs at the bandwidth asked for, so its time is the overlap's share of the step
        result = split_training(job.label, shape, replace(tiers, dci_bps=result.dci_gbps_needed * 1e9 / 8),
                                sized.gpus, acc.flops_for(job.dtype), job.mfu,
                                acc.memory_gb * 1e9 * USABLE_MEMORY_FRACTION, given, overlap, left_out)
    return result


def site_gpus(platform: Platform, gpus: int, sites: int, split: list[float] | None) -> tuple[int, ...]:
    """The GPUs each site builds for ``gpus``, as the cluster stage builds them: whole nodes, whole
    systems, shared in proportion to ``sites.split`` (bom/topology/cluster.py); () for one site, or a
    platform whose GPUs the cluster stage rounds otherwise (a torus slice). 463 GPUs of GB300 NVL72 on
    two sites are 7 racks, 4 and 3: 288 + 216."""
    if sites < 2:
        return ()
    nodes = -(-gpus // platform.gpus_per_node)
    systems = -(-nodes // platform.nodes_per_system)
    if systems < sites:
        return ()     # the cluster stage refuses it, with its own message
    per_system = platform.nodes_per_system * platform.gpus_per_node
    return tuple(n * per_system for n in site_systems(systems, tuple(split) if split else (1.0,) * sites))


def serve_job(job: Workload, platform: Platform, acc: Accelerator) -> Parallelism:
    """A serving workload's replicas on ``platform`` (bom/topology/serving.py)."""
    shape = serve_shape(job)
    tiers = platform_tiers(platform, 1, None, acc.domain_gpus)
    limit = acc.memory_gb * 1e9 * USABLE_MEMORY_FRACTION
    chip = None if acc.hbm_bps is None else serving.Chip(acc.hbm_bps, acc.flops_for(job.dtype))
    target = job.tokens_per_s_per_user
    given = None
    if job.parallelism is not None:
        p = job.parallelism
        given = Split(p.tp, p.cp, p.ep, p.pp, p.dp or 1)
        if p.dp is None:
            # dp defaults to the replicas the users need at what the given group takes
            given = replace(given, dp=serving.replicas_for(shape, given, tiers, limit, chip, target))
    return serving.split_serving(job.label, shape, tiers, limit, given, chip, target)


def serve_shape(job: Workload) -> ServeShape:
    """The model and load of a serving workload as plain numbers (``has_shape`` holds)."""
    assert job.params is not None and job.layers and job.hidden and job.heads and job.kv_heads
    assert job.users is not None and job.context is not None
    return ServeShape(job.params, BYTES_PER_VALUE[job.dtype], job.layers, job.hidden, job.heads, job.kv_heads,
                      job.kv_bytes_per_token, job.context, job.users, job.experts or 0, job.experts_per_token,
                      job.active_params or 0.0)


def platform_tiers(platform: Platform, sites: int = 1, dci_bps: float | None = None,
                   domain_gpus: int | None = None) -> Tiers:
    """The platform's tiers for the parallelism stage: per-GPU bandwidths in bytes/s, one direction."""
    out = platform.scale_out
    # Vendors quote scale-up bandwidth per GPU both ways (NVLink 4: 18 links x 50 GB/s = 900 GB/s);
    # a collective's time is set by one direction. Scale-out and DCI rates are per direction.
    up_bps = magnitude(platform.scale_up.bandwidth_per_gpu, "rate") * 1e9 / 8 / 2
    out_bps = out.ports * magnitude(out.rate, "rate") * 1e9 / 8 / platform.gpus_per_node
    return Tiers(domain_gpus or platform.gpus_per_domain, up_bps, out_bps, sites, dci_bps)


def workload_shape(job: Workload) -> Shape:
    """The model and batch of a training workload as plain numbers (``has_shape`` holds)."""
    assert job.params is not None and job.layers and job.hidden and job.heads and job.sequence
    assert job.batch_tokens is not None
    kv = (job.kv_heads or 0) * (job.head_dim or 0)
    return Shape(job.params, job.layers, job.hidden, job.heads, job.sequence, job.batch_tokens,
                 job.active_params or 0.0, kv, job.experts or 0, job.experts_per_token)
