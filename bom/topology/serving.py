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

The decode step (one token for each of a replica's ``n`` sequences) is a roofline: it takes at least
the longest of

* reading what a GPU holds from its HBM: its share of the weights and its ``n`` sequences' KV cache at
  the full context (every step reads every weight and every cached token), stage after stage:
  ``PP x memory per GPU / HBM bandwidth``;
  (a mixture of experts' GPU reads all its experts, as it does once a batch routes a token to each);
* the arithmetic: ``2 x active params x n`` FLOP (Kaplan et al. 2020, "Scaling Laws for Neural Language
  Models", section 2.1: 2N FLOP a token forward) over the ``TP x EP`` GPUs of a stage, stage after
  stage, at the dense peak of the job's dtype;
* the traffic above, stage after stage: ``PP x`` (TP and EP collectives + PP send) at the tier rates.

No pipelining of decode across stages, no overlap of reading with communication and no kernel or
launch overhead: a lower bound on the step, so an upper bound on tokens/s (a user gets ``1 / step``,
a replica ``n / step``). A target of tokens/s a user (``workload.tokens_per_s_per_user``) caps the
sequences a replica takes; the replicas follow from the users.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, replace

from bom.errors import BomError, LimitError
from bom.model.parallelism import Bound, Decode, Dim, Parallelism, Split, Tiers, Traffic
from bom.roles import Tier
from bom.topology.parallelism import ACT_BYTES, PARALLELISM, divisors, heads_tp, tier_of

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
    active_params: float = 0.0  # per token (a mixture of experts); 0: params

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


@dataclass(frozen=True)
class Chip:
    """One GPU's rates for the decode step, plain numbers (from the platform row)."""

    hbm_bps: float              # memory bandwidth [B/s]
    flops: float                # dense FLOP/s in the job's dtype


def decode(shape: ServeShape, s: Split, tiers: Tiers, chip: Chip, sequences: int) -> Decode:
    """The decode step of a replica holding ``sequences`` (the module docstring's roofline).

    Llama 3 70B in BF16 at TP 4 on H100 (3.35 TB/s, 989 TFLOP/s), 11 sequences of 32,768 tokens: a GPU
    holds 35 GB of weights and 11 x 10.7 GB / 4 = 29.5 GB of KV cache, 64.5 GB read in 19.3 ms; the
    arithmetic, 2 x 70e9 x 11 / 4 = 385 GFLOP, takes 0.39 ms and the all-reduces 96 us: memory-bound,
    52 tokens/s a user and 571 a replica:

    >>> seventy = ServeShape(70e9, 2.0, 80, 8192, 64, 8, 327680, 32768, 64)
    >>> d = decode(seventy, Split(tp=4, dp=6), Tiers(8, 450e9, 50e9), Chip(3.35e12, 989e12), 11)
    >>> round(d.read_s * 1e3, 1), round(d.compute_s * 1e3, 2), round(d.comm_s * 1e6), d.bound
    (19.3, 0.39, 96, 'memory')
    >>> round(d.tokens_per_s_user), round(d.tokens_per_s_replica)
    (52, 571)
    """
    read = s.pp * memory_bytes(shape, s, sequences) / chip.hbm_bps
    compute = 2.0 * (shape.active_params or shape.params) * sequences / (s.tp * s.ep) / chip.flops
    comm = s.pp * sum(t.seconds for t in _traffic(shape, s, tiers, _placed(s, tiers), sequences))
    step = max(read, compute, comm)
    bound: Bound = "memory" if step == read else "compute" if step == compute else "communication"
    return Decode(read, compute, comm, step, bound, 1.0 / step, sequences / step, chip.hbm_bps / 1e9)


def sequences_at(shape: ServeShape, s: Split, tiers: Tiers, chip: Chip, target: float, most: int) -> int:
    """The most sequences (up to ``most``) a replica holds while each gets ``target`` tokens/s (0: not
    even one); the step grows with the sequences, so a bisection finds it."""
    def fast(n: int) -> bool:
        return decode(shape, s, tiers, chip, n).tokens_per_s_user >= target

    if most < 1 or not fast(1):
        return 0
    low, high = 1, most
    while low < high:
        mid = (low + high + 1) // 2
        low, high = (mid, high) if fast(mid) else (low, mid - 1)
    return low


def per_replica(shape: ServeShape, s: Split, tiers: Tiers, memory_limit: float, chip: Chip | None = None,
                target: float | None = None) -> int:
    """Sequences a replica of this group takes: what its KV cache holds, and no more than keep each at
    the target's tokens/s (when one is given)."""
    held = sequences_per_replica(shape, s, memory_limit)
    if target is None or chip is None:
        return held
    return sequences_at(shape, s, tiers, chip, target, held)


def replicas_for(shape: ServeShape, s: Split, tiers: Tiers, memory_limit: float, chip: Chip | None = None,
                 target: float | None = None) -> int:
    """Replicas the users need: ``ceil(users / sequences a replica takes)`` (1 when none fits: the check
    then says why)."""
    per = per_replica(shape, s, tiers, memory_limit, chip, target)
    return max(1, math.ceil(shape.users / per)) if per and shape.users else 1


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


def propose(shape: ServeShape, tiers: Tiers, memory_limit: float, chip: Chip | None = None,
            target: float | None = None) -> Split:
    """The tool's serving split: of the in-domain groups that hold the weights and one sequence's KV
    cache (and, with a target, give one sequence its tokens/s), the one whose replicas for the users
    take the fewest GPUs in all, the smaller group on a tie; failing every in-domain group, the widest
    with the fewest pipeline stages that holds them; then as many replicas (``dp``) as the users need.

    Every replica holds its own copy of the weights, so a wider group that holds more sequences can
    take fewer GPUs in all. Llama 3 70B in BF16 on H100 (68 GB usable, 8 to a domain), 64 users of
    32,768 tokens (10.7 GB of KV cache each): TP 1 and TP 2 leave 140 and 70 GB of weights a GPU, past
    68; TP 4 holds 35 GB a GPU and 12 sequences a replica, 6 replicas on 24 GPUs; TP 8 holds 17.5 GB a
    GPU and 8 x 50.5 GB / 10.7 GB = 37 sequences a replica, 2 replicas on 16 GPUs:

    >>> seventy = ServeShape(70e9, 2.0, 80, 8192, 64, 8, 327680, 32768, 64)
    >>> propose(seventy, Tiers(8, 450e9, 50e9), 68e9)
    Split(tp=8, cp=1, ep=1, pp=1, dp=2)

    Eight users fit one TP 4 replica (4 GPUs), fewer than TP 8's 8:

    >>> propose(replace(seventy, users=8), Tiers(8, 450e9, 50e9), 68e9)
    Split(tp=4, cp=1, ep=1, pp=1, dp=1)
    """
    groups = _groups(shape, tiers)
    if not groups:
        raise BomError(f"no tensor-parallel group divides both the {shape.heads} heads and the scale-up domain of "
                       f"{tiers.domain_gpus}", key="workload.heads")

    def takes(g: Split) -> bool:
        return per_replica(shape, g, tiers, memory_limit, chip, target) >= 1

    def total(g: Split) -> tuple[int, int]:
        return replica_gpus(g) * replicas_for(shape, g, tiers, memory_limit, chip, target), replica_gpus(g)

    chosen = min((g for g in groups if takes(g)), key=total, default=None)
    fits = [g for g in groups if sequences_per_replica(shape, g, memory_limit)]
    if chosen is None and not fits:
        widest = groups[-1]
        for pp in range(2, shape.layers + 1):
            staged = Split(tp=widest.tp, ep=widest.ep, pp=pp)
            if sequences_per_replica(shape, staged, memory_limit) >= 1:
                fits = [staged]
                chosen = staged if takes(staged) else None
                break
    if chosen is None and fits and target is not None and chip is not None:
        best = max((decode(shape, g, tiers, chip, 1) for g in fits), key=lambda d: d.tokens_per_s_user)
        raise LimitError(f"no serving replica with TP and EP inside a scale-up domain of {tiers.domain_gpus} "
                         f"gives a user {target:,g} tokens/s: the fastest gives {best.tokens_per_s_user:,.1f} at one "
                         f"sequence ({best.bound}-bound: {best.read_s * 1e3:,.2f} ms to read its share of the weights "
                         f"at {best.hbm_gbps:,.0f} GB/s)", key="workload.tokens_per_s_per_user",
                         hint="Lower the target, use a smaller dtype (fp8), or a platform with more memory "
                              "bandwidth or a larger scale-up domain.")
    if chosen is None:
        raise LimitError(f"no serving split of {shape.params:.3g} parameters holds one sequence of {shape.context:,} "
                         f"tokens in {memory_limit / 1e9:.0f} GB a GPU, even at one layer a stage",
                         key="workload.parallelism", hint="Check params, dtype and context.")
    return replace(chosen, dp=replicas_for(shape, chosen, tiers, memory_limit, chip, target))


def check(shape: ServeShape, given: Split, tiers: Tiers, memory_limit: float, chip: Chip | None = None,
          target: float | None = None) -> None:
    """The user's serving split against the platform and the model; a clear error when it cannot run."""
    where = "workload.parallelism"
    if given.cp > 1:
        raise BomError(f"CP {given.cp} splits a training sequence; a serving replica splits TP, EP and PP",
                       key=where, hint="Drop cp (or give cp: 1).", fix={(*PARALLELISM, "cp"): None})
    if given.tp * given.ep > tiers.domain_gpus or tiers.domain_gpus % (given.tp * given.ep):
        what = f"TP {given.tp}" + (f" x EP {given.ep}" if given.ep > 1 else "")
        raise BomError(f"{what} = {given.tp * given.ep} GPUs crosses the scale-up boundary: a domain holds "
                       f"{tiers.domain_gpus}, and a replica's tensor and expert parallelism exchange activations "
                       "every layer of every token", key=where,
                       hint=f"Give tp x ep dividing {tiers.domain_gpus}" + (
                           f" (tp: {math.gcd(given.tp, tiers.domain_gpus)})" if given.ep == 1 else "")
                       + "; pp takes the rest of a replica.",
                       fix={(*PARALLELISM, "tp"): math.gcd(given.tp, tiers.domain_gpus)} if given.ep == 1 else None)
    if shape.heads % given.tp:
        tp = heads_tp(shape.heads, given.tp)
        raise BomError(f"TP {given.tp} does not divide the {shape.heads} attention heads", key=where,
                       hint=f"Give a tp that divides heads (tp: {tp}).", fix={(*PARALLELISM, "tp"): tp})
    if given.ep > 1 and not shape.experts:
        raise BomError(f"EP {given.ep} needs a mixture-of-experts model", key=where,
                       hint="Give workload.experts, or ep: 1.", fix={(*PARALLELISM, "ep"): 1})
    if shape.experts and shape.experts % given.ep:
        raise BomError(f"EP {given.ep} does not divide the {shape.experts} experts", key=where)
    if given.pp > shape.layers:
        raise BomError(f"PP {given.pp} is more stages than the {shape.layers} layers", key=where)
    held = math.ceil(shape.users / given.dp) if shape.users else 0
    need = memory_bytes(shape, given, held)
    if need > memory_limit:
        per = sequences_per_replica(shape, given, memory_limit)
        more = -(-(shape.users or 1) // per) if per else None   # the replicas that hold every user
        raise LimitError(f"TP {given.tp}, EP {given.ep}, PP {given.pp} with {given.dp:,} replicas leaves {held:,} "
                         f"sequences a replica and {need / 1e9:.1f} GB a GPU, past the {memory_limit / 1e9:.1f} GB "
                         f"usable (a replica holds {per:,})", key=where,
                         hint=f"Raise dp (more replicas: dp: {more}), or tp within the domain, or pp."
                         if more else "Raise tp within the domain, or pp: the weights alone do not fit.",
                         fix={(*PARALLELISM, "dp"): more} if more else None)
    if target is not None and chip is not None and held:
        d = decode(shape, given, tiers, chip, held)
        if d.tokens_per_s_user < target:
            fast = sequences_at(shape, given, tiers, chip, target, held)
            raise LimitError(f"TP {given.tp}, EP {given.ep}, PP {given.pp} with {given.dp:,} replicas gives each of a "
                             f"replica's {held:,} sequences {d.tokens_per_s_user:,.1f} tokens/s ({d.bound}-bound, a "
                             f"{d.step_s * 1e3:,.2f} ms decode step), short of workload.tokens_per_s_per_user "
                             f"{target:,g}", key="workload.parallelism",
                             hint=(f"Raise dp: a replica keeps {target:,g} tokens/s a user up to {fast:,} sequences "
                                   f"(dp: {-(-shape.users // fast)})."
                                   if fast else "Raise tp within the domain: one sequence a replica is too slow."),
                             fix={(*PARALLELISM, "dp"): -(-shape.users // fast)} if fast else None)


def split_serving(job: str, shape: ServeShape, tiers: Tiers, memory_limit: float, given: Split | None = None,
                  chip: Chip | None = None, target: float | None = None) -> Parallelism:
    """The serving split (the user's, checked, or the tool's), its tiers, and its traffic per decode step.

    The hand-worked example (Llama 3 70B in BF16, 64 users of 32,768 tokens, H100 with 8 to a domain
    at 450 GB/s one way): TP 8 x 2 replicas (``propose``); a replica serves 32 sequences, so each decode
    step all-reduces 32 x 8,192 x 2 B = 524 kB twice per layer: 80 x 2 x 2 x 7/8 x 524,288 B = 146.8 MB
    a GPU, 326 us at NVLink's rate, inside the domain; nothing crosses the scale-out fabric between
    replicas. The user's TP 4 x 6 replicas serve 11 sequences each: 80 x 2 x 2 x 3/4 x 180,224 B =
    43.3 MB, 96 us:

    >>> seventy = ServeShape(70e9, 2.0, 80, 8192, 64, 8, 327680, 32768, 64)
    >>> p = split_serving("serve 70B", seventy, Tiers(8, 450e9, 50e9), 68e9)
    >>> p.tiers, p.gpus, p.microbatches
    ({'tp': <Tier.SCALE_UP: 'scale-up'>, 'dp': <Tier.SCALE_OUT: 'scale-out'>}, 16, 32)
    >>> [(t.dim, t.tier, round(t.bytes_per_gpu / 1e6, 1), round(t.seconds * 1e6)) for t in p.traffic]
    [('tp', <Tier.SCALE_UP: 'scale-up'>, 146.8, 326)]
    >>> p = split_serving("serve 70B", seventy, Tiers(8, 450e9, 50e9), 68e9, Split(tp=4, dp=6))
    >>> p.gpus, p.microbatches, [(t.dim, round(t.bytes_per_gpu / 1e6, 1), round(t.seconds * 1e6)) for t in p.traffic]
    (24, 11, [('tp', 43.3, 96)])
    """
    if target is not None and chip is None:
        raise LimitError("workload.tokens_per_s_per_user needs the platform's memory bandwidth per GPU, and its "
                         "catalog row gives none", key="workload.tokens_per_s_per_user",
                         hint="Add memory_bandwidth to the platform row (an overlay), or drop the target.",
                         fix={("workload", "tokens_per_s_per_user"): None})
    if given is not None:
        check(shape, given, tiers, memory_limit, chip, target)
        split = given
    else:
        split = propose(shape, tiers, memory_limit, chip, target)
    r = replica_gpus(split)
    n = r * split.dp
    held = math.ceil(shape.users / split.dp) if shape.users else 0
    placed = _placed(split, tiers)
    traffic = tuple(_traffic(shape, split, tiers, placed, held))
    exposed = sum(t.exposed_s for t in traffic)
    step = decode(shape, split, tiers, chip, held) if chip is not None and held else None
    return Parallelism(job, given is None, split, n, placed, memory_bytes(shape, split, held) / 1e9,
                       memory_limit / 1e9, held, step.step_s if step else 0.0, traffic, exposed, 0.0, None, None,
                       tiers.sites, kind="serve", replica_gpus=r,
                       sequences_capacity=sequences_per_replica(shape, split, memory_limit), decode=step,
                       tokens_per_s_target=target)


def _placed(s: Split, tiers: Tiers) -> dict[str, Tier]:
    """The tier each of a replica's dimensions spans (its replicas: the tier between them)."""
    n = replica_gpus(s) * s.dp
    spans = {"tp": s.tp, "ep": s.tp * s.ep, "pp": replica_gpus(s), "dp": n}
    return {dim: tier_of(span, tiers, n) for dim, span in spans.items() if getattr(s, dim) > 1 or dim == "tp"}


def _traffic(shape: ServeShape, s: Split, tiers: Tiers, placed: dict[str, Tier], held: int
             ) -> Iterator[Traffic]:
    """Each dimension's bytes per GPU per decode step and their time on its tier (all exposed)."""
    stage_layers = math.ceil(shape.layers / s.pp)
    h = shape.hidden
    group_tokens = held / s.ep          # EP ranks attend to their own sequences
    out: list[tuple[Dim, str, float]] = []
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
        bps = tiers.scale_up_bps if tier == Tier.SCALE_UP else tiers.scale_out_bps
        yield Traffic(dim, collective, tier, nbytes, nbytes / bps, nbytes / bps)
