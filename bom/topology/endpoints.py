"""Endpoints beyond the GPU nodes: storage appliances, fabric managers, management servers.

Counts are per site (each building runs its own fabrics): the platform's reference-architecture
defaults (``support`` in platforms.yaml), overridden by the scenario's ``storage:`` and
``management:`` blocks. A storage block gives a count, or capacity and throughput that derive
it (the larger of the two ratios, whole appliances). A storage fabric with no storage block gets
the platform's RA appliance, sized as the RA sizes storage (by aggregate read throughput, see
:data:`RA_READ_PER_SU`) or, for a training job, by the capacity its checkpoints and dataset need
(:func:`job_capacity`), whichever needs more appliances, and a warning that says which. A storage
block with none of count, capacity and throughput is sized by the job alone (its checkpoint and
dataset keys). PDUs are placed per rack (bom/placement/layout.py).
"""

from __future__ import annotations

import math

from bom.catalog.rows import Catalog, Endpoint, NicPorts, Platform
from bom.errors import BomError, keyed
from bom.inputs.scenario import Scenario, Storage
from bom.model.endpoints import Endpoints, StorageBasis
from bom.roles import FabricRole
from bom.units import magnitude, parse_quantity


def _row(catalog: Catalog, rid: str | None, path: tuple[str, ...]) -> Endpoint | None:
    if rid is None:
        return None
    with keyed(path, relocate=True):
        row = catalog.get("endpoints", rid, key=".".join(path))
    assert isinstance(row, Endpoint)
    return row


# The largest DGX BasePOD: RA-11127-001 V5, "DGX BasePOD with NDR200 Compute Fabric", Table 5
# ("Compute nodes (2-16)"; the NDR400 variant, Table 1, takes 2-8). A site this small follows the
# BasePOD RA, a larger one the platform's SuperPOD RA (the catalog row's support counts).
BASEPOD_MAX_NODES = 16
# The DGX SuperPOD RA sizes storage by aggregate read throughput per scalable unit: RA-11333-001 V11
# (DGX H100, 2023-09-22), Storage Architecture, Table 6 "Guidelines for storage performance": a
# single SU (32 DGX H100, 256 GPUs) reads 15 / 40 / 125 GB/s at Good / Better / Best, 4 SU 60 / 160
# / 500 GB/s (linear in SUs). A storage fabric the scenario gives no storage takes the middle row,
# per GPU, so another platform's SU of another size reads in proportion to its GPUs.
RA_READ_PER_SU, RA_SU_GPUS, RA_LEVEL = "40 GB/s", 32 * 8, "Better"
BITS = 8   # the model's rates are Gbit/s; storage reads in GB/s
# UFM below a SuperPOD: one HA pair (a UFM server and its UFM HA server, UFM Enterprise User
# Manual, "UFM Overview"). The BasePOD RA pages read (System Architecture) do not state a UFM
# count, so this is the stated rule, not a published figure (tests/reference/test_basepod.py).
BASEPOD_UFM = 2
# The same pod in GPUs: 16 DGX nodes of 8 GPUs. A site of a platform with other nodes (an NVL72's 4-GPU
# trays: one 72-GPU rack is 18 trays) is at BasePOD size when its GPUs are, and takes the UFM pair too.
BASEPOD_MAX_GPUS = BASEPOD_MAX_NODES * 8
# The training job's storage: checkpoints and the tokenised dataset. A checkpoint holds the model
# states of mixed-precision Adam less the gradients: bf16 weights 2 B + fp32 master weights, momentum
# and variance 12 B per parameter (ZeRO, Rajbhandari et al. 2020, section 3.1: 2 + 2 + 12 = 16 B with
# the gradients). The dataset: token ids as 32-bit integers (vocabularies past 65,536, such as
# Llama 3's 128,256). Checkpoints kept: an estimate (the last few, to roll back a divergence).
CHECKPOINT_BYTES_PER_PARAM = 14.0
DATASET_BYTES_PER_TOKEN = 4.0
CHECKPOINTS_KEPT = 5
#: The storage block's keys that size it directly (any of them: the job does not).
_SIZING_KEYS = ("count", "capacity", "throughput")


def build_endpoints(scenario: Scenario, catalog: Catalog, platform: Platform,
                    compute_protocol: str | None, sites: int, site_nodes: int | None = None,
                    gpus: int = 0) -> Endpoints:
    """``site_nodes``: nodes in the largest site; at BasePOD size (its nodes, or its GPUs) the UFM default is
    one HA pair.
    ``gpus``: the cluster's, which size the storage a storage fabric gets by default."""
    sup = platform.support
    m = scenario.management
    ufm_id = m.ufm if m and m.ufm else (sup.ufm if sup else None)
    ufm = _row(catalog, ufm_id, ("management", "ufm"))
    ufm_default = sup.ufm_count if sup and compute_protocol == "infiniband" else 0
    site_gpus = site_nodes * platform.gpus_per_node if site_nodes is not None else None
    if site_nodes is not None and (site_nodes <= BASEPOD_MAX_NODES or (site_gpus or 0) <= BASEPOD_MAX_GPUS):
        ufm_default = min(ufm_default, BASEPOD_UFM)
    ufm_count = m.ufm_count if m and m.ufm_count is not None else ufm_default
    mgmt = _row(catalog, m.server if m and m.server else (sup.mgmt if sup else None),
                ("management", "server"))
    mgmt_count = m.servers if m and m.servers is not None else (sup.mgmt_count if sup else 0)
    s = scenario.storage
    if s is not None and all(getattr(s, k) is None for k in _SIZING_KEYS):
        storage, count, nic, why = _job_storage(scenario, catalog, platform, sites)
        return Endpoints(ufm, ufm_count, mgmt, mgmt_count, storage, count, nic, why, basis="job")
    if s is None and FabricRole.STORAGE in scenario.fabrics:
        storage, count, nic, why = _ra_storage(catalog, platform, gpus, sites)
        basis: StorageBasis = "ra"
        said = "the platform's reference architecture"
        need = job_capacity(scenario)
        if need is not None and storage.capacity is not None:
            tb, how = need
            per = magnitude(storage.capacity, "information") / 1000.0
            by_job = max(1, math.ceil(tb / per - 1e-9))
            job_why = f"the job's {how} = {tb:,.6g} TB / {per:g} TB per appliance -> {by_job}"
            if math.ceil(by_job / sites) > count:
                count, basis, said = math.ceil(by_job / sites), "job", "the training job's capacity"
            why = f"{job_why}; {why}; the larger: {said}"
        warning = (f"fabrics.storage has no storage block: {count} x {storage.id} per site defaulted from {said} "
                   f"({why}); give storage: {{count: N}} or storage: {{capacity: ..., throughput: ...}} to size it "
                   "for your data")
        return Endpoints(ufm, ufm_count, mgmt, mgmt_count, storage, count, nic, why, (warning,), basis)
    given, count, ports, why = _storage(scenario, catalog, platform, sites)
    return Endpoints(ufm, ufm_count, mgmt, mgmt_count, given, count, ports, why,
                     basis="scenario" if given is not None else "none")


def job_capacity(scenario: Scenario) -> tuple[float, str] | None:
    """Capacity [TB] the training job's checkpoints and dataset need, and how; None without a
    training workload that gives params and tokens.

    checkpoints kept x params x bytes per parameter + tokens x bytes per token.
    """
    w = scenario.workload
    if w is None or w.kind == "serve" or w.params is None or w.tokens is None:
        return None
    s = scenario.storage
    kept = s.checkpoints if s is not None and s.checkpoints is not None else CHECKPOINTS_KEPT
    per_param = (s.checkpoint_bytes_per_param if s is not None and s.checkpoint_bytes_per_param is not None
                 else CHECKPOINT_BYTES_PER_PARAM)
    per_token = (s.dataset_bytes_per_token if s is not None and s.dataset_bytes_per_token is not None
                 else DATASET_BYTES_PER_TOKEN)
    tb = (kept * w.params * per_param + w.tokens * per_token) / 1e12
    return tb, (f"{kept} checkpoints x {w.params:.4g} params x {per_param:g} B + {w.tokens:.4g} tokens x "
                f"{per_token:g} B")


def storage_defaults(scenario: Scenario) -> list[tuple[str, str, float, str, str]]:
    """The storage sizing's figures as the Inputs sheet lists them: (name, label, value, unit, where
    it comes from), the scenario's value where it gives one."""
    s = scenario.storage

    def given(key: str, default: float) -> tuple[float, str]:
        v = getattr(s, key, None) if s is not None else None
        return (default, "") if v is None else (float(v), "scenario storage." + key)

    kept, k_src = given("checkpoints", CHECKPOINTS_KEPT)
    per_param, p_src = given("checkpoint_bytes_per_param", CHECKPOINT_BYTES_PER_PARAM)
    per_token, t_src = given("dataset_bytes_per_token", DATASET_BYTES_PER_TOKEN)
    return [("d_storage_checkpoints", "Storage: checkpoints kept", kept, "checkpoints",
             k_src or "estimate: the last few, to roll back a divergence (bom/topology/endpoints.py)"),
            ("d_storage_bytes_per_param", "Storage: checkpoint bytes per parameter", per_param, "B",
             p_src or "ZeRO (Rajbhandari et al. 2020) section 3.1: bf16 weights 2 B + fp32 master weights, "
                      "momentum and variance 12 B"),
            ("d_storage_bytes_per_token", "Storage: dataset bytes per token", per_token, "B",
             t_src or "token ids as 32-bit integers (vocabularies past 65,536, such as Llama 3's 128,256)"),
            ("d_storage_ra_read", "Storage: RA read per 256-GPU SU",
             magnitude(parse_quantity(RA_READ_PER_SU, "rate"), "rate") / BITS, "GB/s",
             f"NVIDIA DGX SuperPOD RA-11333-001 Table 6, '{RA_LEVEL}' read guideline")]


def _job_storage(scenario: Scenario, catalog: Catalog, platform: Platform,
                 sites: int) -> tuple[Endpoint, int, NicPorts, str]:
    """A storage block with no count, capacity or throughput: the job's capacity sizes it."""
    need = job_capacity(scenario)
    if need is None:
        # The scenario's validator refuses this in a file (Scenario._storage_sized); a site built alone, with no
        # workload, meets it here, and its caller keeps no model of that site.
        raise BomError("the storage block gives no count, capacity or throughput, and there is no training job "
                       "(a workload with params and tokens) to size it from", at=("storage",), key="storage.count",
                       hint="Add count: 8, or capacity: \"2 PB\" and/or throughput: \"400 GB/s\".",
                       fix={("storage", "count"): 8})
    tb, how = need
    capacity = parse_quantity(f"{tb} TB", "information")
    assert scenario.storage is not None   # the caller's: a storage block that gives no size of its own
    sized = scenario.model_copy(update={"storage": scenario.storage.model_copy(update={"capacity": capacity})})
    storage, count, nic, _ = _storage(sized, catalog, platform, sites)
    assert storage is not None and nic is not None and storage.capacity is not None
    per = magnitude(storage.capacity, "information") / 1000.0
    return storage, count, nic, (f"the training job's {how} = {tb:,.6g} TB / {per:g} TB per appliance -> "
                                 f"{max(1, math.ceil(tb / per - 1e-9))}")


def _ra_storage(catalog: Catalog, platform: Platform, gpus: int, sites: int) -> tuple[Endpoint, int, NicPorts, str]:
    """The platform RA's appliance for a storage fabric the scenario gives no storage, as many per
    site as the RA's read guideline for the cluster's GPUs needs (whole appliances, shared over
    the sites); a platform that names none is the preflight's refusal (bom/topology/preflight.py)."""
    sup = platform.support
    row = _row(catalog, sup.storage if sup else None, ("fabrics", FabricRole.STORAGE))
    # An appliance, with a throughput and storage ports to size it by: the preflight's rule.
    assert row is not None and row.throughput is not None and row.ports.storage is not None
    need = gpus * magnitude(parse_quantity(RA_READ_PER_SU, "rate"), "rate") / RA_SU_GPUS
    per = magnitude(row.throughput, "rate")
    count = max(1, math.ceil(need / per - 1e-9))
    why = (f"the RA's {RA_LEVEL} read guideline, {RA_READ_PER_SU} per {RA_SU_GPUS}-GPU SU (RA-11333-001 Table 6): "
           f"{gpus:,} GPUs read {need / BITS:,.6g} GB/s / {per / BITS:g} GB/s per appliance -> {count}")
    return row, math.ceil(count / sites), row.ports.storage, why


def _storage(scenario: Scenario, catalog: Catalog, platform: Platform,
             sites: int) -> tuple[Endpoint | None, int, NicPorts | None, str]:
    s = scenario.storage
    if s is None:
        return None, 0, None, "no storage block"
    sup = platform.support
    row = _row(catalog, s.appliance or (sup.storage if sup else None), ("storage", "appliance"))
    # An appliance with storage ports (its own, or the block's ports and rate), and the figures the block
    # sizes it by: the preflight's rules (bom/topology/preflight.py).
    assert row is not None
    base = row.ports.storage
    if s.ports is not None or s.rate is not None:
        update: dict[str, object] = {}
        if s.ports is not None:
            update["ports"] = s.ports
        if s.rate is not None:
            update["rate"] = s.rate
        nic: NicPorts | None = base.model_copy(update=update) if base else NicPorts(
            ports=s.ports, rate=s.rate, form_factor="qsfp112", ports_per_cage=1)
    else:
        nic = base
    assert nic is not None and nic.ports >= 1
    count, why = _storage_count(s, row)
    return row, math.ceil(count / sites), nic, why


def _storage_count(s: Storage, row: Endpoint) -> tuple[int, str]:
    count = s.count
    if count is not None:
        return count, f"{count} appliances given"
    need: list[tuple[int, str]] = []
    for key, have, dim, unit in (("capacity", row.capacity, "information", "TB"),
                                ("throughput", row.throughput, "rate", "GB/s")):
        want = getattr(s, key, None)
        if want is None:
            continue
        assert have is not None
        per = magnitude(have, dim)
        n = math.ceil(magnitude(want, dim) / per - 1e-9)
        # Said in the unit a buyer reads (TB, GB/s), as the warnings print it.
        need.append((n, f"{key} {want.to(unit).m:,.6g} {unit} / {have.to(unit).m:,.6g} {unit} per appliance -> {n}"))
    if not need:
        raise BomError("the storage block needs count, or capacity and/or throughput",
                       at=("storage",), key="storage.count", hint="Add count: 8.", fix={("storage", "count"): 8})
    n, why = max(need)
    return max(n, 1), "; ".join(w for _, w in need)
