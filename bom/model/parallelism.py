"""A job's parallel split and its traffic per tier, training or serving: data types only
(:mod:`bom.topology.parallelism` and :mod:`bom.topology.serving` work them out)."""

from __future__ import annotations

from dataclasses import dataclass

from bom.roles import TIERS, Tier


@dataclass(frozen=True)
class Tiers:
    """Where a group lands and how fast each tier is per GPU (bytes/s, one direction)."""

    domain_gpus: int
    scale_up_bps: float         # per GPU per direction [B/s]
    scale_out_bps: float        # per GPU [B/s]
    sites: int = 1
    dci_bps: float | None = None   # per site pair [B/s]; None: not given (auto)


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

    dim: str            # tp, cp, ep, pp, dp, dp-across
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
    bound: str                  # memory | compute | communication
    tokens_per_s_user: float    # one token a sequence a step
    tokens_per_s_replica: float
    hbm_gbps: float             # the platform's memory bandwidth per GPU [GB/s] it was worked out at

    def to_json(self) -> dict[str, object]:
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
    kind: str = "train"         # "serve": a serving split (bom/topology/serving.py); dp counts replicas,
    replica_gpus: int = 0       # a replica's TP x EP x PP GPUs (serving)
    sequences_capacity: int = 0  # sequences a replica's KV cache holds (serving)
    decode: Decode | None = None  # serving: the decode step (None: the platform row gives no memory bandwidth)
    tokens_per_s_target: float | None = None   # serving: workload.tokens_per_s_per_user

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
            return f"DP {degree['dp'] // self.sites} inside each site" if dim == "dp" and across else \
                f"{dim.upper()} {degree[dim]}"

        out = []
        for tier in TIERS:
            lines = [t for t in self.traffic if t.tier == tier]
            dims = [label(t.dim) for t in lines]
            if self.kind == "serve" and self.tiers.get("dp") == tier:
                dims.append(f"{degree['dp']:,} replicas, no traffic between them")   # a serving split's replicas
            if dims:
                out.append((tier, dims, sum(t.bytes_per_gpu for t in lines), sum(t.seconds for t in lines)))
        return out

    def to_json(self) -> dict[str, object]:
        return {"job": self.job, "proposed": self.proposed, **self.split.as_dict(), "gpus": self.gpus,
                "tiers": dict(self.tiers), "memory_gb": self.memory_gb, "memory_limit_gb": self.memory_limit_gb,
                "microbatches": self.microbatches, "step_s": self.step_s, "exposed_s": self.exposed_s,
                "exposed_share": self.exposed_share,
                "traffic": [{"dim": t.dim, "collective": t.collective, "tier": t.tier,
                             "bytes_per_gpu": t.bytes_per_gpu, "seconds": t.seconds, "exposed_s": t.exposed_s}
                            for t in self.traffic],
                "dci_bytes_per_site": self.dci_bytes_per_site, "dci_gbps_needed": self.dci_gbps_needed,
                "dci_overlap": self.dci_overlap, "sites": self.sites, "kind": self.kind,
                "replica_gpus": self.replica_gpus or None, "sequences_capacity": self.sequences_capacity or None,
                "decode": self.decode.to_json() if self.decode is not None else None,
                "tokens_per_s_target": self.tokens_per_s_target}
