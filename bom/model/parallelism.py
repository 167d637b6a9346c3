"""A job's parallel split and its traffic per tier, training or serving: data types only
(:mod:`bom.topology.parallelism` and :mod:`bom.topology.serving` work them out)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from typing_extensions import TypedDict

from bom.model.records import Count, Share
from bom.roles import TIERS, Tier

#: A parallel dimension; dp-across: the data-parallel exchange between sites.
Dim = Literal["tp", "cp", "ep", "pp", "dp", "dp-across"]
#: What sets a decode step: the longest of reading HBM, the arithmetic and the collectives.
Bound = Literal["memory", "compute", "communication"]


@dataclass(frozen=True)
class Tiers:
    """Where a group lands and how fast each tier is per GPU (bytes/s, one direction)."""

    domain_gpus: int
    scale_up_bps: float         # per GPU per direction [B/s]
    scale_out_bps: float        # per GPU [B/s]
    sites: int = 1
    dci_bps: float | None = None   # per site pair [B/s]; None: not given (auto)
    #: GPUs each site builds (bom/topology/cluster.py: whole systems in proportion to sites.split):
    #: a split's DP replicas are shared out in these proportions, each site holding whole groups.
    #: Empty: ``sites`` sites of equal size, the split's GPUs as asked.
    site_gpus: tuple[int, ...] = ()


class TrafficJson(TypedDict):
    """One dimension's traffic per GPU per step."""

    dim: Dim
    """The parallel dimension; dp-across: the data-parallel exchange between sites."""
    collective: str
    tier: Tier
    bytes_per_gpu: float
    """Bytes one GPU sends per step (dp-across: one site; serving: per decode step)."""
    seconds: float
    """Their time at the tier's bandwidth per GPU (dp-across: per site pair)."""
    exposed_s: float
    """The part on the step's critical path (0 for DP, which hides under the backward pass; its excess is
    in exposed_s of the whole)."""


class DecodeJson(TypedDict):
    """Serving: a replica's decode step (bom/topology/serving.py: decode); null in training or without the
    platform's memory_bandwidth."""

    read_s: float
    """Reading a GPU's weights and KV cache from HBM, stage after stage [s]."""
    compute_s: float
    """2 FLOP per active parameter and token at the dense peak [s]."""
    comm_s: float
    """The replica's TP and EP collectives and PP sends, stage after stage [s]."""
    step_s: float
    """The decode step: the longest of the three (a lower bound) [s]."""
    bound: Bound
    """Which of them sets it."""
    tokens_per_s_user: float
    """Tokens a second each sequence gets (1 / step_s)."""
    tokens_per_s_replica: float
    """Tokens a second a replica gives (its sequences / step_s)."""
    hbm_gbps: float
    """The platform's memory bandwidth per GPU it was worked at [GB/s]."""


class ParallelismJson(TypedDict):
    """A job's TP, CP, EP, PP and DP split, the tier each spans, and its traffic per step (a serving job:
    TP, EP and PP per replica, dp the replicas, traffic per decode step); null without a workload with
    its shape."""

    job: str
    proposed: bool
    """The tool's split (true) or the workload's own (false)."""
    tp: Count
    """Tensor parallelism."""
    cp: Count
    """Context parallelism."""
    ep: Count
    """Expert parallelism (training: carved out of dp; serving: part of a replica)."""
    pp: Count
    """Pipeline stages."""
    dp: Count
    """Data-parallel replicas (serving: the replicas)."""
    gpus: Count
    """tp x cp x pp x dp (serving: tp x ep x pp x dp)."""
    tiers: dict[str, Tier]
    """The tier each dimension's group spans."""
    memory_gb: float
    """Memory a GPU holds (serving: weights and its replica's KV cache)."""
    memory_limit_gb: float
    microbatches: Count
    """Sequences one pipeline runs per step (serving: sequences a replica serves)."""
    step_s: float
    """A step's time: compute_s + bubble_s + exposed_s (serving: the decode step, decode.step_s; 0 without
    the platform's memory bandwidth)."""
    compute_s: float
    """Training: the step's compute alone, at the job's MFU (0 serving)."""
    bubble_s: float
    """Training: the 1F1B pipeline's fill and drain, (pp-1)/microbatches of compute_s (0 serving)."""
    exposed_s: float
    """Communication on the critical path per step."""
    dp_sites: list[Count] | None
    """Training across sites: the DP replicas in each site, in proportion to its GPUs; null on one site or
    serving."""
    exposed_share: Share
    traffic: list[TrafficJson]
    dci_bytes_per_site: float
    """Data-parallel bytes a site sends the others per step."""
    dci_gbps_needed: float | None
    """Gbit/s per site pair to move them within dci_overlap of the compute; null without sites.dci_overlap."""
    dci_overlap: Share | None
    sites: Count
    """Sites the DP group is shared out over."""
    kind: Literal["train", "serve"]
    """A training split or a serving one."""
    replica_gpus: Count | None
    """Serving: a replica's tp x ep x pp GPUs; null in training."""
    sequences_capacity: Count | None
    """Serving: sequences a replica's KV cache holds beside its weights; null in training."""
    decode: DecodeJson | None
    tokens_per_s_target: float | None
    """Serving: workload.tokens_per_s_per_user, the target the replicas were sized for; null: none."""


@dataclass(frozen=True)
class Split:
    tp: int = 1
    cp: int = 1
    ep: int = 1
    pp: int = 1
    dp: int = 1

    @property
    def gpus(self) -> int:
        return self.tp * self.cp * self.pp * self.dp

    def as_dict(self) -> dict[str, int]:
        return {"tp": self.tp, "cp": self.cp, "ep": self.ep, "pp": self.pp, "dp": self.dp}


@dataclass(frozen=True)
class Traffic:
    """One parallel dimension's traffic per GPU per step, on the tier its group spans."""

    dim: Dim
    collective: str
    tier: Tier
    bytes_per_gpu: float
    seconds: float
    exposed_s: float


@dataclass(frozen=True)
class Decode:
    """A serving replica's decode step (bom/topology/serving.py: ``decode``): the time each bound sets,
    the step (the longest of them) and the tokens it gives."""

    read_s: float               # weights and KV cache read from HBM, stage after stage
    compute_s: float            # 2 FLOP per active parameter and token at the dense peak
    comm_s: float               # TP and EP collectives and PP sends, stage after stage
    step_s: float               # the longest of the three: one token for each of the replica's sequences
    bound: Bound
    tokens_per_s_user: float    # one token a sequence a step
    tokens_per_s_replica: float
    hbm_gbps: float             # the platform's memory bandwidth per GPU [GB/s] it was worked out at

    def to_json(self) -> DecodeJson:
        return {"read_s": self.read_s, "compute_s": self.compute_s, "comm_s": self.comm_s,
                "step_s": self.step_s, "bound": self.bound, "tokens_per_s_user": self.tokens_per_s_user,
                "tokens_per_s_replica": self.tokens_per_s_replica, "hbm_gbps": self.hbm_gbps}


@dataclass(frozen=True)
class Parallelism:
    job: str
    proposed: bool              # the tool's split (True) or the user's (False)
    split: Split
    gpus: int
    tiers: dict[str, Tier]      # dimension -> tier its group spans
    memory_gb: float            # per GPU
    memory_limit_gb: float      # usable memory per GPU
    microbatches: int           # per pipeline per step
    step_s: float
    traffic: tuple[Traffic, ...]
    exposed_s: float
    dci_bytes_per_site: float   # DP bytes a site sends to the others per step
    dci_gbps_needed: float | None   # for sites.dci_overlap (Gbit/s per site pair)
    dci_overlap: float | None
    sites: int = 1
    # "serve": a serving split (bom/topology/serving.py); dp counts replicas,
    kind: Literal["train", "serve"] = "train"
    replica_gpus: int = 0       # a replica's TP x EP x PP GPUs (serving)
    sequences_capacity: int = 0  # sequences a replica's KV cache holds (serving)
    decode: Decode | None = None  # serving: the decode step (None: the platform row gives no memory bandwidth)
    tokens_per_s_target: float | None = None   # serving: workload.tokens_per_s_per_user
    #: Training: the step's compute alone (6 x active params x batch tokens over the split's GPUs at the
    #: job's MFU); ``step_s`` is it plus ``exposed_s``, the communication the split cannot hide.
    compute_s: float = 0.0
    bubble_s: float = 0.0            # training: the 1F1B pipeline's fill and drain, (PP-1)/m of the compute
    dp_sites: tuple[int, ...] = ()   # training: DP replicas in each site, in the sites' proportions

    @property
    def exposed_share(self) -> float:
        return self.exposed_s / self.step_s if self.step_s else 0.0

    @property
    def dci_s(self) -> float:
        """Time a step's exchange between sites takes at the DCI's bandwidth (0 on one site)."""
        return sum(t.seconds for t in self.traffic if t.dim == "dp-across")

    def per_tier(self) -> list[tuple[Tier, list[str], float, float]]:
        """(tier, the dimensions on it as "TP 8", bytes a GPU sends a step, seconds) per tier with
        traffic, in order (scale-across: a site's bytes over the DCI; a serving split's step is a decode
        step, and its replicas are listed on their tier though they exchange nothing)."""
        degree = self.split.as_dict()
        across = any(t.dim == "dp-across" for t in self.traffic)

        def label(dim: str) -> str:
            if dim == "dp-across":
                return f"DP across {self.sites} sites"
            if dim == "dp" and across:
                shares = self.dp_sites or (degree["dp"] // self.sites,) * self.sites
                if len(set(shares)) == 1:
                    return f"DP {shares[0]} inside each site"
                return f"DP {' + '.join(str(n) for n in shares)} inside the sites"
            return f"{dim.upper()} {degree[dim]}"

        out = []
        for tier in TIERS:
            lines = [t for t in self.traffic if t.tier == tier]
            dims = [label(t.dim) for t in lines]
            if self.kind == "serve" and self.tiers.get("dp") == tier:
                dims.append(f"{degree['dp']:,} replicas, no traffic between them")   # a serving split's replicas
            if dims:
                out.append((tier, dims, sum(t.bytes_per_gpu for t in lines), sum(t.seconds for t in lines)))
        return out

    def to_json(self) -> ParallelismJson:
        s = self.split
        return {"job": self.job, "proposed": self.proposed, "tp": s.tp, "cp": s.cp, "ep": s.ep, "pp": s.pp,
                "dp": s.dp, "gpus": self.gpus,
                "tiers": dict(self.tiers), "memory_gb": self.memory_gb, "memory_limit_gb": self.memory_limit_gb,
                "microbatches": self.microbatches, "step_s": self.step_s, "compute_s": self.compute_s,
                "bubble_s": self.bubble_s,
                "exposed_s": self.exposed_s, "dp_sites": list(self.dp_sites) or None,
                "exposed_share": self.exposed_share,
                "traffic": [{"dim": t.dim, "collective": t.collective, "tier": t.tier,
                             "bytes_per_gpu": t.bytes_per_gpu, "seconds": t.seconds, "exposed_s": t.exposed_s}
                            for t in self.traffic],
                "dci_bytes_per_site": self.dci_bytes_per_site, "dci_gbps_needed": self.dci_gbps_needed,
                "dci_overlap": self.dci_overlap, "sites": self.sites, "kind": self.kind,
                "replica_gpus": self.replica_gpus or None, "sequences_capacity": self.sequences_capacity or None,
                "decode": self.decode.to_json() if self.decode is not None else None,
                "tokens_per_s_target": self.tokens_per_s_target}
