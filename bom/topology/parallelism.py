"""Parallelism: a training job's TP, CP, EP, PP and DP split placed on the tiers, and each tier's traffic.

The rules (issue 28; the seeds' "one pattern per tier"): tensor (TP) and expert (EP) parallelism stay
inside one scale-up domain; pipeline (PP) tolerates the scale-out fabric; data parallelism (DP) is the
only pattern that crosses sites. Ranks are laid out TP innermost, then CP, EP, PP, and DP outermost,
the order of Llama 3's 4D parallelism ([TP, CP, PP, DP]; The Llama 3 Herd of Models, Meta 2024,
arXiv:2407.21783 section 3.3.2), with EP carved out of DP as Megatron-Core does.

Memory per GPU (bytes), with the model's ``P`` parameters over ``L`` layers:

* states: ``P x ceil(L/PP)/L / (TP [x EP])`` parameters per GPU, each with 2 B of BF16 weights and 4 B
  of FP32 gradients (Llama 3 reduce-scatters gradients in FP32, section 3.3.2), plus 12 B of FP32
  master weights and Adam moments sharded over the data-parallel group (ZeRO-1 / distributed
  optimiser; Llama 3 shards with FSDP). A mixture-of-experts model's parameters are taken as expert
  weights, split over EP too (its experts hold most of them);
* activations: full recomputation (one BF16 layer input of ``s x h`` per layer, split over TP by
  sequence parallelism and over CP), for the ``PP`` micro-batches the first stage holds under 1F1B
  (``min(PP, m) x ceil(L/PP)`` layer inputs), plus one layer's working set while it is recomputed,
  ``34 s h / (TP x CP)`` bytes (Korthikanti et al. 2022, "Reducing Activation Recomputation in
  Large Transformer Models", table 2, with flash attention's ``s^2`` term gone);
* the sum must stay within the usable share of the GPU's memory (``USABLE_MEMORY_FRACTION``).

Bytes each GPU sends per step (ring collectives: an all-reduce of ``S`` sends ``2(d-1)/d S``, a
reduce-scatter or all-gather ``(d-1)/d S``), with ``T = batch tokens / DP`` the tokens of one pipeline:

* TP: 6 all-reduces of the ``T/CP x h`` BF16 activations per layer (2 forward, 2 in the recompute, 2
  backward: Narayanan et al. 2021, section 2.3, two all-reduces each way, and the recompute repeats
  the forward's);
* CP: the other ranks' K and V, ``(CP-1)/CP x T x 2 x kv_dim / TP x 2 B`` per layer, 4 times (forward,
  recompute, and K, V and their gradients backward);
* EP: 6 all-to-alls per layer (dispatch and combine; forward, recompute, backward) of each token's
  ``h`` BF16 values to its ``top_k`` experts, ``(EP-1)/EP`` of them leaving the GPU;
* PP: a stage's ``T/CP x h / TP`` BF16 activations forward and their gradients backward;
* DP: reduce-scatter of FP32 gradients and all-gather of BF16 parameters over the DP x CP group,
  hierarchical across sites (inside each site, then each site's reduced shard to the others).

Time per tier: bytes over the per-GPU bandwidth of the tier the group spans (scale-up: the platform's
scale-up bandwidth per direction; scale-out: the node's NIC ports x rate / GPUs per node; across
sites: a site's bytes over the DCI bandwidth per site pair). The compute takes ``6 x active params x
batch tokens / (GPUs x FLOP/s x MFU)``, the sizing's own time figure. TP, CP, EP and PP
communication sits on the critical path and counts as exposed; DP hides under the backward pass
(4 of the 6 FLOP per parameter and token, so 2/3 of the compute) and only its excess is exposed.
The step is the compute plus the exposed communication and the pipeline's fill and drain (the 1F1B
bubble, (PP-1)/m of the compute for m sequences a pipeline: Narayanan et al. 2021, section 2.2.1) (issue
42): the job's days and cost follow from it (bom/costing/job.py), and the proposer takes the split whose
step is shortest. ``mfu`` is then the compute's own efficiency, not a whole step's measured figure.
``sites.dci_bandwidth: auto`` asks for the bandwidth that moves a site's DP bytes within
``sites.dci_overlap`` of the compute.

Sites of unequal size (whole systems in proportion to ``sites.split``, or an odd count of systems
over two sites) hold DP replicas in proportion to their GPUs, each site whole TP x CP x EP x PP
groups: the proposer fills each site with as many groups as its GPUs hold (``site_replicas``, summed by
``sites_dp``, also a given split's dp when it is left out), a given split's DP is shared out in
proportion to the groups each site holds (``dp_shares``), so the proposer's DP goes back as it was filled.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from bom.errors import BomError, LimitError
from bom.model.parallelism import Dim, Parallelism, Split, Tiers, Traffic
from bom.roles import Tier

#: BF16 weights and FP32 gradient buffer per parameter (never sharded) [B].
WEIGHT_BYTES = 2.0
GRAD_BYTES = 4.0
#: FP32 master weights and Adam's two moments per parameter, sharded over the DP group [B].
OPTIMIZER_BYTES = 12.0
#: BF16 activations [B per value].
ACT_BYTES = 2.0
#: A transformer layer's working set per token per hidden value with sequence parallelism
#: (Korthikanti et al. 2022, table 2: sbh x 34 / t).
LAYER_WORKING_SET = 34.0
#: TP all-reduces per layer and micro-batch: 2 forward, 2 in the recompute, 2 backward.
TP_ALL_REDUCES = 6
#: K/V passes per layer for context parallelism: forward, recompute, and K, V and dK, dV backward.
CP_PASSES = 4
#: All-to-alls per MoE layer: dispatch and combine, forward, recompute and backward.
EP_ALL_TO_ALLS = 6
#: Share of a step's FLOP in the backward pass (4 of 6 per parameter and token): DP's hiding window.
BACKWARD_SHARE = 4.0 / 6.0
#: Largest TP degree proposed: Narayanan et al. 2021 (takeaway 1) keep TP within an 8-GPU server;
#: past 8 its per-layer all-reduces outgrow the GEMMs they split even inside a larger domain.
MAX_TP = 8

#: Most pipeline stages proposed: sixteen times Megatron-LM's deepest (64 for 1T parameters,
#: Narayanan et al. 2021 table 1); it bounds the search, a given split may have more.
MAX_STAGES = 1024


@dataclass(frozen=True)
class Shape:
    """The model and batch, plain numbers (from ``workload``)."""

    params: float
    layers: int
    hidden: int
    heads: int
    sequence: int               # tokens per sequence
    batch_tokens: float         # global batch [tokens]
    active_params: float = 0.0  # 0: params
    kv_dim: int = 0             # kv heads x head dim; 0: hidden (multi-head attention)
    experts: int = 0            # 0: a dense model
    top_k: int = 1              # experts each token goes to

    @property
    def sequences(self) -> int:
        return max(1, int(self.batch_tokens // self.sequence))

    @property
    def step_flop(self) -> float:
        return 6.0 * (self.active_params or self.params) * self.batch_tokens


# --- memory ------------------------------------------------------------------------------------

def layers_per_stage(shape: Shape, pp: int) -> int:
    return math.ceil(shape.layers / pp)


def params_per_gpu(shape: Shape, s: Split) -> float:
    """Parameters one GPU holds: its stage's share of the layers over TP (and EP for experts)."""
    share = layers_per_stage(shape, s.pp) / shape.layers
    return shape.params * share / (s.tp * (s.ep if shape.experts else 1))


def memory_bytes(shape: Shape, s: Split) -> float:
    """Bytes one GPU holds in training (see the module docstring).

    Llama 3 405B (126 layers, hidden 16,384) at TP 8, CP 1, PP 16, DP 64 on 8,192 GPUs: 8 layers a
    stage, 405e9 x 8/126 / 8 = 3.21e9 parameters a GPU x (6 + 12/64) B = 19.9 GB of states; 16
    micro-batches x 8 layer inputs of 8,192 x 16,384 x 2 B / 8 = 4.3 GB, and 34 x 8,192 x 16,384 / 8
    = 0.57 GB to recompute one layer:

    >>> llama = Shape(405e9, 126, 16384, 128, 8192, 16 * 2**20)
    >>> round(memory_bytes(llama, Split(tp=8, pp=16, dp=64)) / 1e9, 1)
    24.8
    """
    p = params_per_gpu(shape, s)
    shard = s.dp // (s.ep if shape.experts else 1) * s.cp
    states = p * (WEIGHT_BYTES + GRAD_BYTES + OPTIMIZER_BYTES / max(1, shard))
    tokens = shape.sequence / s.cp
    micro = min(s.pp, microbatches(shape, s))
    inputs = micro * layers_per_stage(shape, s.pp) * tokens * shape.hidden * ACT_BYTES / s.tp
    working = LAYER_WORKING_SET * tokens * shape.hidden / s.tp
    return states + inputs + working


def microbatches(shape: Shape, s: Split) -> int:
    """Sequences one pipeline runs per step (one sequence a micro-batch)."""
    return max(1, shape.sequences // s.dp)


# --- the split ---------------------------------------------------------------------------------

def divisors(n: int) -> list[int]:
    """The divisors of ``n`` in order (by the square root: ``n`` may be a million GPUs)."""
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return small + [n // d for d in reversed(small) if d * d != n]


def dp_shares(dp: int, ep: int, weights: tuple[float, ...]) -> tuple[int, ...]:
    """DP replicas in each site: whole EP groups (``dp / ep`` of them) in proportion to ``weights`` (the
    sites' GPUs), largest remainder, ties to the earlier site, at least one group each; () when they
    cannot go round (fewer groups than sites).

    >>> dp_shares(120, 8, (288, 216)), dp_shares(64, 1, (1, 1)), dp_shares(33, 1, (1, 1)), dp_shares(8, 8, (1, 1))
    ((72, 48), (32, 32), (17, 16), ())
    """
    groups, k = dp // ep, len(weights)
    if k < 2:
        return (dp,)
    if groups < k:
        return ()
    total = sum(weights)
    exact = [groups * w / total for w in weights]
    shares = [math.floor(x) for x in exact]
    order = sorted(range(k), key=lambda i: (-(exact[i] - shares[i]), i))
    for i in order[:groups - sum(shares)]:
        shares[i] += 1
    for i in range(k):      # a site too small for its share's rounding still holds one group
        if shares[i] == 0:
            shares[shares.index(max(shares))] -= 1
            shares[i] = 1
    return tuple(n * ep for n in shares)


def site_replicas(unit: int, ep: int, site_gpus: tuple[int, ...]) -> tuple[int, ...]:
    """DP replicas each site holds when it takes as many whole groups of ``unit`` GPUs (TP x CP x EP x
    PP: the span of one EP group of replicas) as its GPUs allow: 288 and 216 GPUs in groups of 32 hold
    9 and 6 groups, 72 and 48 replicas of EP 8.

    >>> site_replicas(32, 8, (288, 216)), site_replicas(64, 1, (32,))
    ((72, 48), (0,))
    """
    return tuple(g // unit * ep for g in site_gpus)


def sites_dp(tp: int, cp: int, ep: int, pp: int, tiers: Tiers) -> int | None:
    """The DP that fills each site with as many whole TP x CP x EP x PP groups as it holds (at least 1);
    None where the sites' GPUs are not known (one site, or a platform the cluster stage rounds otherwise).
    The proposer's DP, and a given split's when it leaves dp out."""
    if not tiers.site_gpus:
        return None
    return max(1, sum(site_replicas(tp * cp * ep * pp, ep, tiers.site_gpus)))


def left_out_dp(tp: int, cp: int, ep: int, pp: int, tiers: Tiers, gpus: int) -> int:
    """A given split's DP when it leaves dp out: each site filled (:func:`sites_dp`), else the sized
    ``gpus`` over whole TP x CP x PP groups."""
    return sites_dp(tp, cp, ep, pp, tiers) or max(1, -(-gpus // (tp * cp * pp)))


def _more_pp(shape: Shape, given: Split, tiers: Tiers, memory_limit: float, gpus: int | None) -> int | None:
    """The fewest stages past ``given.pp`` (at most one layer a stage) with which a GPU's memory holds its
    share and DP stays within the batch's sequences; ``gpus`` set when the split left dp out (DP then
    shrinks as the stages grow). None when no PP does."""
    for pp in range(given.pp + 1, shape.layers + 1):
        dp = given.dp if gpus is None else left_out_dp(given.tp, given.cp, given.ep, pp, tiers, gpus)
        s = replace(given, pp=pp, dp=dp)
        if s.dp <= shape.sequences and memory_bytes(shape, s) <= memory_limit:
            return pp
    return None


def propose(shape: Shape, gpus: int, tiers: Tiers, memory_limit: float, flops: float = 1e15,
            mfu: float = 0.4) -> Split:
    """The tool's split for at least ``gpus`` GPUs (Narayanan et al. 2021, takeaways 1 and 2: tensor
    parallelism inside the server, pipeline parallelism across servers, data parallelism the rest):

    * TP: a divisor of the heads within the scale-up domain and ``MAX_TP``; EP, for a mixture of
      experts, the largest divisor of the experts whose TP x EP group divides the domain;
    * the TPs that hold the whole model on one stage; failing those, the TPs whose TP x EP group is
      the widest within the domain, each with the first CP (from 1, doubling) and PP (from 1, at most
      one layer a stage) that let a GPU's memory hold its share with each pipeline running at least PP
      sequences a step, first among the PP that divide the GPUs evenly, then any;
    * DP the rest, rounded up to whole TP x CP x PP groups (and to whole EP groups, at least one a
      site); where the sites' GPUs are known (``tiers.site_gpus``), each site as many whole groups as
      it holds;
    * of those candidates (one per TP), the one whose step (compute, pipeline bubble and exposed
      communication) is shortest (``flops`` a GPU at ``mfu``); a tie goes to the widest TP x EP group (a mixture of
      experts' all-to-all moves only the routed tokens, where TP's all-reduces move every activation),
      then to the most EP.

    Llama 3 405B on 8,192 H100 (80 GB, 8 a domain): only TP 8 fits in few enough stages, and PP 8
    is the first that fits:

    >>> llama = Shape(405e9, 126, 16384, 128, 8192, 16 * 2**20)
    >>> propose(llama, 8192, Tiers(8, 450e9, 50e9), 68e9)
    Split(tp=8, cp=1, ep=1, pp=8, dp=128)
    """
    cap = min(tiers.domain_gpus, MAX_TP)
    fits_domain = [d for d in divisors(shape.heads) if d <= cap and tiers.domain_gpus % d == 0]

    def ep_for(tp: int) -> int:
        """The most experts' split whose TP x EP group still divides the domain."""
        if not shape.experts:
            return 1
        return max(d for d in divisors(shape.experts) if tiers.domain_gpus % (tp * d) == 0)

    def split(tp: int, cp: int, pp: int) -> Split:
        ep = ep_for(tp)
        if (filled := sites_dp(tp, cp, ep, pp, tiers)) is not None:
            return Split(tp, cp, ep, pp, filled)
        dp = max(1, math.ceil(gpus / (tp * cp * pp)))
        step = ep * tiers.sites    # whole EP groups, and the rest of DP shared out over the sites
        return Split(tp, cp, ep, pp, math.ceil(dp / step) * step)

    def fits(s: Split) -> bool:
        # At least PP sequences a pipeline, or the 1F1B bubble ((PP-1)/m, Narayanan et al. 2021 section
        # 2.2.1) outgrows the step: long sequences then split over CP before more stages.
        enough = s.pp == 1 or microbatches(shape, s) >= s.pp
        if tiers.site_gpus and min(site_replicas(s.tp * s.cp * s.ep * s.pp, s.ep, tiers.site_gpus)) < 1:
            return False   # a site too small for one whole group
        return s.dp <= shape.sequences and enough and memory_bytes(shape, s) <= memory_limit

    def first_fit(tp: int) -> Split | None:
        if fits(one := split(tp, 1, 1)):
            return one
        for exact in (True, False):
            cp = 1
            while cp <= shape.sequence:
                stages: Sequence[int] = range(1, min(shape.layers, MAX_STAGES) + 1)
                if exact:
                    stages = [d for d in divisors(gpus // (tp * cp)) if d in stages] if gpus % (tp * cp) == 0 \
                        else []
                for pp in stages:
                    if fits(candidate := split(tp, cp, pp)):
                        return candidate
                cp *= 2
        return None

    # One stage when some TP holds the model (no pipeline at all); else the widest in-domain TP x EP
    # groups only (Narayanan et al. 2021, takeaway 1: model parallelism fills the server before the
    # pipeline deepens), each with its first CP and PP that fit.
    found = [one for tp in fits_domain if fits(one := split(tp, 1, 1))]
    if not found:
        widest = max(t * ep_for(t) for t in fits_domain)
        found = [c for tp in fits_domain if tp * ep_for(tp) == widest and (c := first_fit(tp)) is not None]
    if found:
        def key(c: Split) -> tuple[float, int, int]:
            return (round(step_time(shape, c, tiers, flops, mfu), 9), -c.tp * c.ep, -c.ep)
        return min(found, key=key)
    tp = max(fits_domain, key=lambda t: (t * ep_for(t), ep_for(t)))
    raise LimitError(f"no split of {shape.params:.3g} parameters fits {memory_limit / 1e9:.0f} GB a GPU with TP "
                     f"{tp} and up to {min(shape.layers, MAX_STAGES)} pipeline stages", key="workload.parallelism",
                     hint="Check params, layers, hidden and sequence, or give workload.parallelism.")


#: Where a scenario gives its split (a fix's path).
PARALLELISM = ("workload", "parallelism")


def heads_tp(heads: int, tp: int) -> int:
    """The largest TP that divides both the heads and the ``tp`` given (which divides the domain, so this
    one does too)."""
    return math.gcd(heads, tp)


def check(shape: Shape, given: Split, tiers: Tiers, memory_limit: float, gpus: int | None = None) -> None:
    """The user's split against the platform and the model; a clear error when it cannot run. ``gpus``:
    the sized GPUs, set when the split left dp out (its DP is then theirs over the groups, not the user's)."""
    where = "workload.parallelism"
    if given.tp * given.ep > tiers.domain_gpus or tiers.domain_gpus % (given.tp * given.ep):
        what = f"TP {given.tp}" + (f" x EP {given.ep}" if given.ep > 1 else "")
        raise BomError(f"{what} = {given.tp * given.ep} GPUs crosses the scale-up boundary: a domain holds "
                       f"{tiers.domain_gpus}, and tensor and expert parallelism exchange activations every layer",
                       key=where, hint=f"Give tp x ep dividing {tiers.domain_gpus}" + (
                           f" (tp: {math.gcd(given.tp, tiers.domain_gpus)})" if given.ep == 1 else "")
                       + ", and more pp or dp.",
                       fix={(*PARALLELISM, "tp"): math.gcd(given.tp, tiers.domain_gpus)} if given.ep == 1 else None)
    if shape.heads % given.tp:
        tp = heads_tp(shape.heads, given.tp)
        raise BomError(f"TP {given.tp} does not divide the {shape.heads} attention heads", key=where,
                       hint=f"Give a tp that divides heads (tp: {tp}).", fix={(*PARALLELISM, "tp"): tp})
    if shape.experts and shape.experts % given.ep:
        raise BomError(f"EP {given.ep} does not divide the {shape.experts} experts", key=where)
    if given.ep > 1 and not shape.experts:
        raise BomError(f"EP {given.ep} needs a mixture-of-experts model", key=where,
                       hint="Give workload.experts, or ep: 1.", fix={(*PARALLELISM, "ep"): 1})
    if given.dp % given.ep:
        raise BomError(f"EP {given.ep} is carved out of DP and must divide dp {given.dp}", key=where)
    if given.pp > shape.layers:
        raise BomError(f"PP {given.pp} is more stages than the {shape.layers} layers", key=where)
    if given.cp > 1 and shape.sequence % given.cp:
        raise BomError(f"CP {given.cp} does not divide the sequence of {shape.sequence} tokens", key=where)
    if given.dp > shape.sequences:
        if gpus is None:
            raise BomError(f"DP {given.dp} is more replicas than the batch's {shape.sequences:,} sequences",
                           key=where, hint="Leave dp out (the split fits it to the batch), lower it, or raise "
                                           "batch_tokens.", fix={(*PARALLELISM, "dp"): None})
        pp = _more_pp(shape, given, tiers, memory_limit, gpus)
        raise BomError(f"the {gpus:,} GPUs the job needs make DP {given.dp} at TP {given.tp} x CP {given.cp} x PP "
                       f"{given.pp} (dp left out), more replicas than the batch's {shape.sequences:,} sequences",
                       key=where, hint=(f"Raise pp (pp: {pp}), or raise batch_tokens." if pp else
                                        "Raise batch_tokens, or give a smaller job more time."),
                       fix={(*PARALLELISM, "pp"): pp} if pp else None)
    if tiers.sites > 1:
        shares = dp_shares(given.dp, given.ep, _weights(tiers, given))
        if not shares:
            raise BomError(f"DP {given.dp} does not share out over {tiers.sites} sites"
                           + (f" after EP {given.ep}" if given.ep > 1 else "") + ": only data parallelism may "
                           "cross sites, so each site must hold whole TP x CP x EP x PP groups", key=where,
                           hint=f"Give dp{' / ep' if given.ep > 1 else ''} of at least {tiers.sites} (dp: "
                                f"{tiers.sites * given.ep}).", fix={(*PARALLELISM, "dp"): tiers.sites * given.ep})
        unit = given.tp * given.cp * given.pp
        over = [(i, n, g) for i, (n, g) in enumerate(zip(shares, tiers.site_gpus, strict=False), 1) if n * unit > g]
        if over:
            i, n, g = over[0]
            raise BomError(f"DP {given.dp} shares out over the sites in proportion to the groups they hold "
                           f"({' + '.join(str(x) for x in shares)}), and site {i}'s {n} replicas of {unit} GPUs "
                           f"take {n * unit:,}, past the {g:,} it builds", key=where,
                           hint="Lower dp (or leave it out to fill each site), or give more GPUs.",
                           fix={(*PARALLELISM, "dp"): None})
    need = memory_bytes(shape, given)
    if need > memory_limit:
        raise LimitError(f"TP {given.tp}, CP {given.cp}, PP {given.pp}, DP {given.dp} leaves {need / 1e9:.1f} GB "
                         f"a GPU, past the {memory_limit / 1e9:.1f} GB usable", key=where,
                         hint=(f"Raise pp (pp: {pp}), or tp within the domain, or cp for long sequences." if
                               (pp := _more_pp(shape, given, tiers, memory_limit, gpus)) else
                               "Raise tp within the domain, or cp for long sequences, or use a GPU with more "
                               "memory."), fix={(*PARALLELISM, "pp"): pp} if pp else None)


# --- tiers and traffic -------------------------------------------------------------------------

def tier_of(span: int, tiers: Tiers, gpus: int) -> Tier:
    """The tier a group of consecutive ranks ``span`` wide crosses."""
    if span <= tiers.domain_gpus and tiers.domain_gpus % span == 0:
        return Tier.SCALE_UP
    if tiers.sites > 1 and span > gpus // tiers.sites:
        return Tier.SCALE_ACROSS
    return Tier.SCALE_OUT


def place(s: Split, tiers: Tiers) -> dict[str, Tier]:
    """Each dimension's tier from its group's span in the rank order TP, CP, EP, PP, DP."""
    g = s.gpus
    spans = {"tp": s.tp, "cp": s.tp * s.cp, "ep": s.tp * s.cp * s.ep, "pp": s.tp * s.cp * s.ep * s.pp, "dp": g}
    return {dim: tier_of(span, tiers, g) for dim, span in spans.items()
            if getattr(s, dim) > 1 or dim == "tp"}


def split_training(job: str, shape: Shape, tiers: Tiers, gpus: int, flops: float, mfu: float, memory_limit: float,
                   given: Split | None = None, dci_overlap: float | None = None,
                   dp_left_out: bool = False) -> Parallelism:
    """The split (the user's, checked, or the tool's), its tiers, its traffic per step, and the step.

    The hand-worked example: the seeds' 70B pretraining job (80 layers, hidden 8,192, 64 heads, 8 KV
    heads of 128) on 2,048 GPUs of 2.25 PFLOP/s at 40 % MFU, 8 to a domain, a batch of 16M tokens of
    8,192, over two sites. One step's compute is 6 x 70e9 x 16,777,216 = 7.05e18 FLOP; over 2,048 x
    2.25e15 x 0.4 FLOP/s that is 3.82 s. The DP group reduce-scatters FP32 gradients and all-gathers BF16
    weights, 6 B a parameter; across two sites a site sends half of it, 70e9 x 6 / 2 = 210 GB
    (1.68 Tbit) a step. To move it within half the compute (``sites.dci_overlap: 0.5``) the pair needs
    1.68e12 / 1.91 s = 879 Gbit/s, three 400G wavelengths:

    >>> seventy = Shape(70e9, 80, 8192, 64, 8192, 16 * 2**20, kv_dim=8 * 128)
    >>> p = split_training("70B", seventy, Tiers(8, 900e9, 100e9, sites=2), 2048, 2.25e15, 0.4, 240e9,
    ...          dci_overlap=0.5)
    >>> p.split, round(p.compute_s, 2), round(p.dci_bytes_per_site / 1e9), round(p.dci_gbps_needed)
    (Split(tp=2, cp=1, ep=1, pp=1, dp=1024), 3.82, 210, 879)
    >>> p.tiers
    {'tp': <Tier.SCALE_UP: 'scale-up'>, 'dp': <Tier.SCALE_ACROSS: 'scale-across'>}

    TP 2 is the smallest that holds the model on one stage (217 of 240 GB a GPU).

    The MoE job of issue 42, hand-checked: 1T parameters (40B active, 64 experts, top 2; 64 layers,
    hidden 8,192, 64 heads), a batch of 8M tokens of 4,096, in FP8 on GB300 NVL72 (5 PFLOP/s a GPU at
    40 % MFU; 72 GPUs a domain, 1.8 TB/s of NVLink 5 a GPU = 900 GB/s each way, 4 x 800G for 4 GPUs = 100 GB/s a GPU
    on the scale-out fabric, 25.6 Tbit/s = 3.2 TB/s between the two sites). 463 GPUs by the 90-day
    deadline are 7 racks, 4 in one building and 3 in the other: 288 + 216 GPUs.

    >>> moe = Shape(1e12, 64, 8192, 64, 4096, 8 * 2**20, active_params=40e9, experts=64, top_k=2)
    >>> gb300 = Tiers(72, 900e9, 100e9, sites=2, dci_bps=3.2e12, site_gpus=(288, 216))
    >>> p = split_training("moe", moe, gb300, 463, 5e15, 0.4, 244.8e9)
    >>> p.split, p.dp_sites, p.gpus
    (Split(tp=1, cp=1, ep=8, pp=4, dp=120), (72, 48), 480)

    EP 8 with TP 1 fills the domain's group (8 GPUs); PP 4 is the first depth whose stage fits 244.8 GB
    a GPU; each site holds as many whole groups of 1 x 8 x 4 = 32 GPUs as its GPUs allow, 9 and 6
    (72 + 48 replicas: DP follows the sites' sizes; an even share would need 60 groups of 32 in the
    smaller site's 216 GPUs). The compute: 6 x 40e9 x 8,388,608 = 2.01e18 FLOP over 480 x 5e15 x 0.4
    = 2.10 s. Each pipeline's 8,388,608 / 120 = 69,905 tokens a step:

    * EP: 16 layers a stage x 6 all-to-alls x 7/8 leaving x 2 experts x 69,905 tokens x 8,192 x 2 B =
      192.4 GB over 900 GB/s = 0.214 s, exposed;
    * PP: 2 x 69,905 x 8,192 x 2 B = 2.29 GB over 100 GB/s = 0.023 s, exposed;
    * DP in the larger site, 72 / 8 = 9 ranks: 8/9 x (1e12 x 16/64 / 8 = 31.25e9 parameters a GPU)
      x 6 B = 166.7 GB over 100 GB/s = 1.667 s; across the sites (2-1)/2 x 1e12 x 6 B = 3,000 GB over
      3.2 TB/s = 0.938 s; 2.604 s of DP, of which the backward pass (2/3 of 2.10 s = 1.398 s) hides
      the rest: 1.206 s exposed.

    Exposed: 0.214 + 0.023 + 1.206 = 1.443 s. The pipeline's fill and drain idle (PP-1)/m of the compute,
    m = 2,048 sequences / 120 = 17 a pipeline: 3/17 x 2.097 = 0.370 s. The step is 2.097 + 0.370 +
    1.443 = 3.910 s, 37 % of it exposed communication:

    >>> round(p.compute_s, 3), round(p.bubble_s, 3), round(p.exposed_s, 3), round(p.step_s, 3)
    (2.097, 0.37, 1.443, 3.91)
    >>> round(p.exposed_share, 2)
    0.37

    30T tokens are 30e12 / 8,388,608 = 3,576,279 steps: 3.910 s each is 161.8 days on the 504 GPUs
    built (the 82.7 days before issue 42 were the work at the MFU alone, 7.2e24 FLOP / (504 x 5e15 x
    0.4) / 86,400; bom/costing/job.py takes the step):

    >>> round(30e12 / moe.batch_tokens * p.step_s / 86400, 1)
    161.8
    """
    if given is not None:
        check(shape, given, tiers, memory_limit, gpus if dp_left_out else None)
        split = given
    else:
        split = propose(shape, gpus, tiers, memory_limit, flops, mfu)
    n = split.gpus
    placed = place(split, tiers)
    timing = _timing(shape, split, tiers, flops, mfu)
    needed = None
    if timing.dci_bytes and dci_overlap:
        needed = timing.dci_bytes * 8 / (dci_overlap * timing.compute_s) / 1e9
    return Parallelism(job, given is None, split, n, placed, memory_bytes(shape, split) / 1e9, memory_limit / 1e9,
                       microbatches(shape, split), timing.step_s, timing.traffic,
                       timing.exposed_s, timing.dci_bytes, needed, dci_overlap, tiers.sites,
                       compute_s=timing.compute_s, bubble_s=timing.bubble_s,
                       dp_sites=timing.shares if tiers.sites > 1 else ())


@dataclass(frozen=True)
class _Timing:
    compute_s: float
    bubble_s: float
    traffic: tuple[Traffic, ...]
    exposed_s: float
    dci_bytes: float
    shares: tuple[int, ...]

    @property
    def step_s(self) -> float:
        return self.compute_s + self.bubble_s + self.exposed_s


def _weights(tiers: Tiers, s: Split) -> tuple[float, ...]:
    """The sites' sizes as DP shares them: the replicas of ``s``'s groups each holds (so a DP that fills
    every site, the proposer's, goes back as it was filled, and no site's share passes what it holds
    while DP is at most their sum), else their GPUs (no site holds a group), else equal."""
    if len(tiers.site_gpus) != tiers.sites:
        return (1.0,) * tiers.sites
    held = site_replicas(s.tp * s.cp * s.ep * s.pp, s.ep, tiers.site_gpus)
    return tuple(float(n) for n in (held if sum(held) else tiers.site_gpus))


def _timing(shape: Shape, split: Split, tiers: Tiers, flops: float, mfu: float) -> _Timing:
    """The split's compute, traffic and exposed communication per step."""
    compute = shape.step_flop / (split.gpus * flops * mfu)
    # The 1F1B pipeline's fill and drain: (PP-1)/m of the compute idle (Narayanan et al. 2021, 2.2.1).
    bubble = compute * (split.pp - 1) / microbatches(shape, split)
    shares = dp_shares(split.dp, split.ep, _weights(tiers, split)) or (split.dp,)
    traffic = list(_traffic(shape, split, tiers, place(split, tiers), max(shares)))
    dci_bytes = _dci_bytes(shape, tiers)
    if dci_bytes:
        dci_s = dci_bytes / tiers.dci_bps if tiers.dci_bps else 0.0
        traffic.append(Traffic("dp-across", "reduce-scatter + all-gather, a site's bytes", Tier.SCALE_ACROSS,
                               dci_bytes, dci_s, 0.0))
    exposed = tuple(replace(t, exposed_s=0.0 if t.dim.startswith("dp") else t.seconds) for t in traffic)
    dp_time = sum(t.seconds for t in traffic if t.dim.startswith("dp"))
    dp_exposed = max(0.0, dp_time - BACKWARD_SHARE * compute)
    return _Timing(compute, bubble, exposed, sum(t.exposed_s for t in exposed) + dp_exposed, dci_bytes, shares)


def step_time(shape: Shape, split: Split, tiers: Tiers, flops: float, mfu: float) -> float:
    """A step of ``split``: its compute, its pipeline bubble and the communication it cannot hide [s]."""
    return _timing(shape, split, tiers, flops, mfu).step_s


def _bandwidth(tier: Tier, tiers: Tiers) -> float:
    return tiers.scale_up_bps if tier == Tier.SCALE_UP else tiers.scale_out_bps


def dp_group(s: Split, experts: bool, local_dp: int) -> int:
    """The ranks of one site's data-parallel gradient exchange: its DP replicas (over EP's when the model
    has experts, whose weights EP already splits) times CP.

    >>> dp_group(Split(tp=8, ep=4, dp=16, cp=2), True, 8)
    4
    """
    return max(1, local_dp // (s.ep if experts else 1) * s.cp)


def _traffic(shape: Shape, s: Split, tiers: Tiers, placed: dict[str, Tier],
             site_dp: int | None = None) -> Iterator[Traffic]:
    """Each dimension's bytes per GPU per step and their time on its tier; DP inside a site over the
    largest site's replicas (``site_dp``; default an even share), whose ring is the slowest."""
    stage_layers = layers_per_stage(shape, s.pp)
    tokens = shape.batch_tokens / s.dp                # one pipeline's tokens per step
    h = shape.hidden
    out: list[tuple[Dim, str, float]] = []
    if s.tp > 1:
        size = tokens / s.cp * h * ACT_BYTES
        out.append(("tp", "all-reduce", stage_layers * TP_ALL_REDUCES * 2 * (s.tp - 1) / s.tp * size))
    if s.cp > 1:
        kv = shape.kv_dim or h
        out.append(("cp", "K/V ring", stage_layers * CP_PASSES * (s.cp - 1) / s.cp * tokens * 2 * kv / s.tp
                    * ACT_BYTES))
    if s.ep > 1:
        local = tokens / (s.cp * s.tp)
        out.append(("ep", "all-to-all", stage_layers * EP_ALL_TO_ALLS * (s.ep - 1) / s.ep * shape.top_k * local
                    * h * ACT_BYTES))
    if s.pp > 1:
        out.append(("pp", "send/receive", 2 * tokens / s.cp * h / s.tp * ACT_BYTES))
    local_group = dp_group(s, bool(shape.experts), site_dp if site_dp is not None else s.dp // tiers.sites)
    if local_group > 1:
        out.append(("dp", "reduce-scatter + all-gather",
                    (local_group - 1) / local_group * params_per_gpu(shape, s) * (GRAD_BYTES + WEIGHT_BYTES)))
    for dim, collective, nbytes in out:
        tier = placed.get(dim if dim != "dp" else "dp", Tier.SCALE_OUT)
        if dim == "dp" and tier == Tier.SCALE_ACROSS:
            tier = Tier.SCALE_OUT       # inside a site; the sites' part is its own line
        yield Traffic(dim, collective, tier, nbytes, nbytes / _bandwidth(tier, tiers), 0.0)


def _dci_bytes(shape: Shape, tiers: Tiers) -> float:
    """DP bytes one site sends the others per step: after the in-site reduce-scatter, each site's
    reduced gradients (FP32) and updated weights (BF16) go round the sites' ring, ``(k-1)/k`` of the
    whole model each way (a ring is what a mesh must carry at least; a hub carries more)."""
    k = tiers.sites
    if k < 2:
        return 0.0
    return shape.params * (GRAD_BYTES + WEIGHT_BYTES) * (k - 1) / k
