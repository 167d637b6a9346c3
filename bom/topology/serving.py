"""Serving split: a serving job's TP (and EP) per replica inside one scale-up domain, replicas across.

The rules (issue 28, "for serving: TP (and EP) per replica inside the domain, replicas across"): a
replica is one copy of the weights, split over a group of GPUs that exchange activations every layer
of every token, so the group stays inside one scale-up domain; tensor parallelism (TP) divides the
attention heads, expert parallelism (EP) of a mixture of experts divides the experts (TP x EP the
replica's group within the domain). Only when no in-domain group holds the weights does a replica
take pipeline stages (PP) across domains, as Llama 3 405B in BF16 does on H100 (The Llama 3 Herd of
Models, Meta 2024, arXiv:2407.21783 section 6.1: tensor parallelism inside the machine, pipeline
parallelism across two). Replicas serve their own requests and exchange nothing but the requests and
the tokens they stream back.

Memory per GPU (bytes), for a replica of ``R = TP x EP x PP`` GPUs holding ``n`` sequences:

* weights: ``params x bytes per value / R`` (a mixture of experts' parameters taken as expert weights
  split over EP, the rest over TP; its experts hold most of them);
* KV cache: ``n x context x KV bytes per token / (min(TP, KV heads) x EP x PP)``: TP splits the KV
  heads (past the KV heads it replicates them, as vLLM does), PP the layers, and EP ranks attend to
  their own sequences (DeepSeek-V3's data-parallel attention);
* the sum within the usable share of the GPU's memory.

The proposal takes the smallest group whose GPUs hold the weights and one sequence's KV cache, and as
many replicas as the ``users`` need at the sequences each holds.

Bytes each GPU sends per decode step (one new token for each of the replica's sequences), ring
collectives as in the training stage:

* TP: 2 all-reduces per layer (after attention and after the MLP; Shoeybi et al. 2019, Megatron-LM,
  figure 3: one ``g`` each in the forward pass) of the tokens' ``h`` BF16 activations;
* EP: 2 all-to-alls per MoE layer (dispatch and combine) of each token's ``h`` values to its
  ``top_k`` experts, ``(EP-1)/EP`` of them leaving the GPU;
* PP: each stage's activations, ``tokens x h / TP`` BF16 values, to the next stage.

Each at the per-GPU bandwidth of the tier its group spans (bom/topology/parallelism.py). All of it
sits on the token's critical path: decode waits on every all-reduce.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bom.errors import BomError, LimitError
from bom.topology.parallelism import ACT_BYTES, Parallelism, Split, Tiers, Traffic, divisors, tier_of

#: All-reduces per layer and token in a tensor-parallel forward pass (attention and MLP).
TP_ALL_REDUCES = 2
#: All-to-alls per MoE layer and token in a forward pass: dispatch and combine.
EP_ALL_TO_ALLS = 2


@dataclass(frozen=True)
class ServeShape:
    """A serving job's model and load, plain numbers (from ``workload``)."""

    params: float
    weight_bytes: float         # bytes per parameter (the dtype's)
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    kv_bytes_per_token: float   # all layers, K and V
    context: int                # tokens a sequence holds
    users: int                  # concurrent sequences
    experts: int = 0
    top_k: int = 1

    @property
    def weights(self) -> float:
        return self.params * self.weight_bytes

    @property
    def sequence_bytes(self) -> float:
        """One sequence's KV cache at full context [B]."""
        return self.context * self.kv_bytes_per_token


def replica_gpus(s: Split) -> int:
    return s.tp * s.ep * s.pp


def _kv_split(shape: ServeShape, s: Split) -> int:
    return min(s.tp, shape.kv_heads) * s.ep * s.pp


def memory_bytes(shape: ServeShape, s: Split, sequences: int) -> float:
    """Bytes one GPU of a replica holding ``sequences`` holds (see the module docstring).

    Llama 3 70B in BF16 at TP 4, 12 sequences of 32,768 tokens: 140 GB / 4 = 35 GB of weights, and
    12 x 32,768 x 327,680 B / 4 = 32.2 GB of KV cache:

    >>> seventy = ServeShape(70e9, 2.0, 80, 8192, 64, 8, 327680, 32768, 64)
    >>> round(memory_bytes(seventy, Split(tp=4), 12) / 1e9, 1)
    67.2
    """
    return shape.weights / replica_gpus(s) + sequences * shape.sequence_bytes / _kv_split(shape, s)


def sequences_per_replica(shape: ServeShape, s: Split, memory_limit: float) -> int:
    """Whole sequences a replica's KV cache holds beside its weights (0: not even one)."""
    free = memory_limit - shape.weights / replica_gpus(s)
    if free <= 0:
        return 0
    if shape.sequence_bytes <= 0:
        return max(1, shape.users)
    return int(free * _kv_split(shape, s) // shape.sequence_bytes)


def _groups(shape: ServeShape, tiers: Tiers) -> list[Split]:
    """In-domain replica groups, smallest first; of one size, the most EP (a mixture of experts'
    all-to-all moves only the routed tokens, TP's all-reduces every activation)."""
    out = []
    for g in divisors(tiers.domain_gpus):
        options = [Split(tp=tp, ep=g // tp) for tp in divisors(g)
                   if shape.heads % tp == 0 and (g // tp == 1 or (shape.experts and shape.experts % (g // tp) == 0))]
        if options:
            out.append(max(options, key=lambda s: s.ep))
    return out


def propose(shape: ServeShape, tiers: Tiers, memory_limit: float) -> Split:
    """The tool's serving split: the smallest in-domain group that holds the weights and one
    sequence's KV cache; failing that, the widest with the fewest pipeline stages that do; then as
    many replicas (``dp``) as the users need.

    Llama 3 70B in BF16 on H100 (68 GB usable, 8 to a domain), 64 users of 32,768 tokens: TP 1 and
    TP 2 leave 140 and 70 GB of weights a GPU, past 68; TP 4 holds 35 GB and leaves 33 GB a GPU, 132 GB
    a replica, 12 sequences of 10.7 GB; 64 users need 6 replicas (24 GPUs):

    >>> seventy = ServeShape(70e9, 2.0, 80, 8192, 64, 8, 327680, 32768, 64)
    >>> propose(seventy, Tiers(8, 450e9, 50e9), 68e9)
    Split(tp=4, cp=1, ep=1, pp=1, dp=6)
    """
    groups = _groups(shape, tiers)
    if not groups:
        raise BomError(f"no tensor-parallel group divides both the {shape.heads} heads and the scale-up domain of "
                       f"{tiers.domain_gpus}", key="workload.heads")
    chosen = next((g for g in groups if sequences_per_replica(shape, g, memory_limit) >= 1), None)
    if chosen is None:
        widest = groups[-1]
        for pp in range(2, shape.layers + 1):
            staged = Split(tp=widest.tp, ep=widest.ep, pp=pp)
            if sequences_per_replica(shape, staged, memory_limit) >= 1:
                chosen = staged
                break
    if chosen is None:
        raise LimitError(f"no serving split of {shape.params:.3g} parameters holds one sequence of {shape.context:,} "
                         f"tokens in {memory_limit / 1e9:.0f} GB a GPU, even at one layer a stage",
                         key="workload.parallelism", hint="Check params, dtype and context.")
    per = sequences_per_replica(shape, chosen, memory_limit)
    replicas = max(1, math.ceil(shape.users / per)) if shape.users else 1
    return Split(tp=chosen.tp, ep=chosen.ep, pp=chosen.pp, dp=replicas)


def check(shape: ServeShape, given: Split, tiers: Tiers, memory_limit: float) -> None:
    """The user's serving split against the platform and the model; a clear error when it cannot run."""
    where = "workload.parallelism"
    if given.cp > 1:
        raise BomError(f"CP {given.cp} splits a training sequence; a serving replica splits TP, EP and PP",
                       key=where, hint="Drop cp (or give cp: 1).")
    if given.tp * given.ep > tiers.domain_gpus or tiers.domain_gpus % (given.tp * given.ep):
        what = f"TP {given.tp}" + (f" x EP {given.ep}" if given.ep > 1 else "")
        raise BomError(f"{what} = {given.tp * given.ep} GPUs crosses the scale-up boundary: a domain holds "
                       f"{tiers.domain_gpus}, and a replica's tensor and expert parallelism exchange activations "
                       "every layer of every token", key=where,
                       hint=f"Give tp x ep dividing {tiers.domain_gpus} (pp takes the rest of a replica).")
    if shape.heads % given.tp:
        raise BomError(f"TP {given.tp} does not divide the {shape.heads} attention heads", key=where,
                       hint="Give a tp that divides heads.")
    if given.ep > 1 and not shape.experts:
        raise BomError(f"EP {given.ep} needs a mixture-of-experts model", key=where,
                       hint="Give workload.experts, or ep: 1.")
    if shape.experts and shape.experts % given.ep:
        raise BomError(f"EP {given.ep} does not divide the {shape.experts} experts", key=where)
    if given.pp > shape.layers:
        raise BomError(f"PP {given.pp} is more stages than the {shape.layers} layers", key=where)
    held = math.ceil(shape.users / given.dp) if shape.users else 0
    need = memory_bytes(shape, given, held)
    if need > memory_limit:
        per = sequences_per_replica(shape, given, memory_limit)
        raise LimitError(f"TP {given.tp}, EP {given.ep}, PP {given.pp} with {given.dp:,} replicas leaves {held:,} "
                         f"sequences a replica and {need / 1e9:.1f} GB a GPU, past the {memory_limit / 1e9:.1f} GB "
                         f"usable (a replica holds {per:,})", key=where,
                         hint="Raise dp (more replicas), or tp within the domain, or pp."
                         if per else "Raise tp within the domain, or pp: the weights alone do not fit.")


def plan(job: str, shape: ServeShape, tiers: Tiers, memory_limit: float, given: Split | None = None) -> Parallelism:
    """The serving split (the user's, checked, or the tool's), its tiers, and its traffic per decode step.

    The hand-worked example (Llama 3 70B in BF16, 64 users of 32,768 tokens, H100 with 8 to a domain
    at 450 GB/s one way): TP 4 x 6 replicas; a replica serves 11 sequences, so each decode step
    all-reduces 11 x 8,192 x 2 B = 180 kB twice per layer: 80 x 2 x 2 x 3/4 x 180,224 B = 43.3 MB a
    GPU, 96 us at NVLink's rate, inside the domain; nothing crosses the scale-out fabric between
    replicas:

    >>> seventy = ServeShape(70e9, 2.0, 80, 8192, 64, 8, 327680, 32768, 64)
    >>> p = plan("serve 70B", seventy, Tiers(8, 450e9, 50e9), 68e9)
    >>> p.tiers, p.gpus, p.microbatches
    ({'tp': 'scale-up', 'dp': 'scale-out'}, 24, 11)
    >>> [(t.dim, t.tier, round(t.bytes_per_gpu / 1e6, 1), round(t.seconds * 1e6)) for t in p.traffic]
    [('tp', 'scale-up', 43.3, 96)]
    """
    if given is not None:
        check(shape, given, tiers, memory_limit)
        split = given
    else:
        split = propose(shape, tiers, memory_limit)
    r = replica_gpus(split)
    n = r * split.dp
    held = math.ceil(shape.users / split.dp) if shape.users else 0
    spans = {"tp": split.tp, "ep": split.tp * split.ep, "pp": r, "dp": n}
    placed = {dim: tier_of(span, tiers, n) for dim, span in spans.items() if getattr(split, dim) > 1 or dim == "tp"}
    traffic = tuple(_traffic(shape, split, tiers, placed, held))
    exposed = sum(t.exposed_s for t in traffic)
    return Parallelism(job, given is None, split, n, placed, memory_bytes(shape, split, held) / 1e9,
                       memory_limit / 1e9, held, 0.0, traffic, exposed, 0.0, None, None, tiers.sites,
                       kind="serve", replica_gpus=r, sequences_capacity=sequences_per_replica(shape, split,
                                                                                              memory_limit))


def _traffic(shape: ServeShape, s: Split, tiers: Tiers, placed: dict[str, str], held: int):  # type: ignore[no-untyped-def]
    """Each dimension's bytes per GPU per decode step and their time on its tier (all exposed)."""
    stage_layers = math.ceil(shape.layers / s.pp)
    h = shape.hidden
    group_tokens = held / s.ep          # EP ranks attend to their own sequences
    out: list[tuple[str, str, float]] = []
    if s.tp > 1:
        out.append(("tp", "all-reduce", stage_layers * TP_ALL_REDUCES * 2 * (s.tp - 1) / s.tp * group_tokens * h
                    * ACT_BYTES))
    if s.ep > 1:
        out.append(("ep", "all-to-all", stage_layers * EP_ALL_TO_ALLS * (s.ep - 1) / s.ep * shape.top_k
                    * group_tokens / s.tp * h * ACT_BYTES))
    if s.pp > 1:
        out.append(("pp", "send", group_tokens * h / s.tp * ACT_BYTES))
    for dim, collective, nbytes in out:
        tier = placed[dim]
        bps = tiers.scale_up_bps if tier == "scale-up" else tiers.scale_out_bps
        yield Traffic(dim, collective, tier, nbytes, nbytes / bps, nbytes / bps)
