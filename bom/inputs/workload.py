"""A job to size: given as totals (memory, FLOP) or derived from a model's shape.

The formulas are the seed's (seven-levels-of-scale): KV bytes per token =
2 x layers x KV heads x head dim x bytes per value; training FLOP = 6 x active params x
tokens; training memory = params x 16 bytes x 1.3 (fine-tune) or x 1.5 (pretraining).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, WithJsonSchema, field_validator, model_validator

from bom.errors import ScenarioError
from bom.inputs.validation import Duration, Memory, Model, suggest, validate
from bom.inputs.yamlio import load_file
from bom.units import magnitude, parse_quantity

BYTES_PER_VALUE = {"bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "fp4": 0.5}
#: Weights + gradients + Adam moments + master copy, bytes per parameter (mixed precision).
TRAINING_BYTES_PER_PARAM = 16.0
#: Activations and buffers on top of that, as the seed sets them.
TRAINING_OVERHEAD = {"finetune": 1.3, "pretrain": 1.5}
TRAINING_FLOP_PER_PARAM_TOKEN = 6.0
DEFAULT_MFU = 0.4
#: The keys a training job's parallelism is worked out from.
SHAPE_KEYS = ("params", "layers", "hidden", "heads", "sequence", "batch_tokens")
#: The keys a serving job's split per replica is worked out from (weights and KV cache).
SERVE_SHAPE_KEYS = ("params", "layers", "hidden", "heads", "kv_heads", "head_dim", "users", "context")
#: Count suffixes as model cards write them ("70B parameters", "15T tokens"): short scale.
COUNT_SUFFIX = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}
#: How people spell the kinds; the model keeps one spelling each.
KIND_SPELLINGS = {"fine-tune": "finetune", "fine_tune": "finetune", "pre-train": "pretrain",
                  "pre_train": "pretrain"}


def parse_count(value: Any, key: str = "a count") -> float:
    """A count as people type it: 70e9, "70B", "1.8T", "405e9", "15T" (tokens).

    >>> parse_count("70B"), parse_count("1.8T"), parse_count("405e9"), parse_count("8k")
    (70000000000.0, 1800000000000.0, 405000000000.0, 8000.0)
    """
    if isinstance(value, bool):
        raise ValueError(f"{key} is a count such as 70e9 or \"70B\", not {value!r}")
    if isinstance(value, (int, float)):
        return float(value)
    if not isinstance(value, str):
        raise ValueError(f"{key} is a count such as 70e9 or \"70B\", got {value!r}")
    text = value.strip().replace(",", "").replace("_", "")
    scale = COUNT_SUFFIX.get(text[-1:].lower(), 1.0) if text[-1:].isalpha() else 1.0
    number = text[:-1].strip() if scale != 1.0 else text
    try:
        return float(number) * scale
    except ValueError:
        raise ValueError(f"cannot read {value!r} as a count: write a number such as 70e9, or one with "
                         "K, M, B or T (thousand, million, billion, trillion) such as \"70B\" or \"15T\"") \
            from None


Count = Annotated[float, BeforeValidator(parse_count), WithJsonSchema(
    {"anyOf": [{"type": "number"}, {"type": "string", "pattern": r"^\s*[0-9.eE+-]+\s*[kKmMbBgGtT]?\s*$"}],
     "examples": ["70B"]})]
Kind = Annotated[Literal["serve", "finetune", "pretrain"], WithJsonSchema(
    {"enum": ["serve", "finetune", "pretrain", *KIND_SPELLINGS]})]


class Parallelism(Model):
    """The job's own split (issue 28); checked against the platform and the model. For a serving job:
    tp, ep and pp per replica, dp the replicas (cp is refused)."""

    tp: int = Field(default=1, ge=1, le=1024, examples=[8])
    """Tensor parallelism: GPUs one layer's matrices are split over; inside one scale-up domain."""
    cp: int = Field(default=1, ge=1, le=4096, examples=[1])
    """Context parallelism: GPUs one sequence is split over (long context)."""
    ep: int = Field(default=1, ge=1, le=4096, examples=[1])
    """Expert parallelism (mixture of experts): GPUs the experts are split over, carved out of DP;
    TP x EP inside one scale-up domain."""
    pp: int = Field(default=1, ge=1, le=4096, examples=[16])
    """Pipeline parallelism: stages the layers are split into."""
    dp: int | None = Field(default=None, ge=1, le=10**9, examples=[64])
    """Data parallelism: replicas of the model; default: the job's GPUs over TP x CP x PP, over several
    sites the whole TP x CP x EP x PP groups each site holds (serving: the replicas the users need at
    the sequences each holds)."""


class Workload(Model):
    """One job. Serving jobs are sized by memory; training jobs also by a deadline."""

    kind: Kind = Field(examples=["pretrain"])
    """``serve`` (sized by memory), ``finetune`` or ``pretrain`` (also by the deadline);
    ``fine-tune`` and ``pre-train`` are read as well."""
    name: str | None = Field(default=None, examples=["pretrain 70B on 15T tokens"])
    """A label for the sizing table."""
    memory: Memory | None = Field(default=None, examples=["3000 GB"])
    """Total memory the job needs (weights, KV cache, optimiser state); or give ``params``."""
    flop: Annotated[float, WithJsonSchema({"anyOf": [{"type": "number"}, {"type": "string"}]})] | None = Field(
        default=None, gt=0, le=1e40, examples=[6.3e24])
    """Total training work [FLOP], a number or a quantity such as "6.3e24 FLOP"; default:
    6 x active params x tokens."""
    deadline: Duration | None = Field(default=None, examples=["60 d"])
    """Wall-clock time a training job must finish in."""
    mfu: float = Field(default=DEFAULT_MFU, gt=0, le=1, examples=[0.4])
    """Model FLOP utilisation: the share of the dense peak the job achieves."""
    params: Count | None = Field(default=None, gt=0, le=1e18)
    """Parameters: 70e9, "70B", "1.8T" or "405e9"; sets the memory (weights, or 16 B per
    parameter for training x 1.3 fine-tune / x 1.5 pretrain)."""
    active_params: Count | None = Field(default=None, gt=0, le=1e18, examples=["40B"])
    """Active parameters per token of a mixture-of-experts model; default: ``params``."""
    dtype: str = Field(default="bf16", examples=["fp8"])
    """Number format of weights and KV cache: bf16, fp16, fp8 or fp4; picks the platform's dense
    FLOP/s figure."""
    layers: int | None = Field(default=None, ge=1, examples=[80])
    """Transformer layers (for the KV cache of a serving job)."""
    kv_heads: int | None = Field(default=None, ge=1, examples=[8])
    """Key/value heads per layer (for the KV cache)."""
    head_dim: int | None = Field(default=None, ge=1, examples=[128])
    """Dimension of one attention head (for the KV cache)."""
    users: int | None = Field(default=None, ge=0, examples=[64])
    """Concurrent sequences served (for the KV cache)."""
    context: int | None = Field(default=None, ge=0, examples=[32768])
    """Tokens of context per sequence (for the KV cache)."""
    tokens: Count | None = Field(default=None, gt=0, le=1e18, examples=["15T"])
    """Training tokens: 15e12 or "15T"."""
    hidden: int | None = Field(default=None, ge=1, le=10**7, examples=[8192])
    """Hidden size (model dimension), for the parallelism and its traffic (training or serving)."""
    heads: int | None = Field(default=None, ge=1, le=10**6, examples=[64])
    """Attention heads per layer (TP divides them), for the parallelism."""
    experts: int | None = Field(default=None, ge=2, le=10**6, examples=[64])
    """Experts per layer of a mixture-of-experts model (EP divides them)."""
    experts_per_token: int = Field(default=1, ge=1, le=1024, examples=[2])
    """Experts each token is routed to (top-k), for the EP all-to-all."""
    sequence: int | None = Field(default=None, ge=1, le=10**9, examples=[8192])
    """Training sequence length [tokens], for the parallelism."""
    batch_tokens: Count | None = Field(default=None, gt=0, le=1e15, examples=["16M"])
    """Global batch per optimiser step [tokens], for the traffic per step: 16e6 or "16M"."""
    tokens_per_s_per_user: float | None = Field(default=None, gt=0, le=1e6, examples=[30])
    """Serving: tokens a second each user's sequence must get while decoding. It caps the sequences a
    replica takes (its decode step, from the platform's memory bandwidth), and so sets the replicas;
    needs the serving shape (hidden and heads beside the KV-cache keys)."""
    parallelism: Parallelism | None = None
    """The job's own split, ``{tp, cp, ep, pp, dp}``; default: the tool proposes one from memory and
    the scale-up domain (training needs layers, hidden, heads, sequence and batch_tokens; serving needs
    hidden and heads beside the KV-cache keys, and splits TP and EP per replica, replicas as dp)."""
    source: str | None = Field(default=None, examples=["Llama 3 paper, table 1"])
    """Where the job's figures come from."""

    @field_validator("kind", mode="before")
    @classmethod
    def _kind(cls, value: Any) -> Any:
        if isinstance(value, str):
            text = value.strip().lower()
            return KIND_SPELLINGS.get(text, text)
        return value

    @field_validator("flop", mode="before")
    @classmethod
    def _flop(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                return parse_quantity(value, "work").to("FLOP").magnitude
        return value

    @field_validator("dtype")
    @classmethod
    def _dtype(cls, value: str) -> str:
        if value not in BYTES_PER_VALUE:
            raise ValueError(suggest(value, BYTES_PER_VALUE, "dtype"))
        return value

    @model_validator(mode="after")
    def _complete(self) -> Workload:
        if self.memory is None and self.params is None:
            raise ValueError("give either memory (a total such as \"3000 GB\") or params")
        if self.tokens_per_s_per_user is not None and self.kind != "serve":
            raise ValueError("tokens_per_s_per_user is a serving target (kind: serve); a training job is sized by "
                             "its deadline")
        serving_shape = (self.layers, self.kv_heads, self.head_dim, self.users, self.context)
        kv_cache = self.kind == "serve" or self.users is not None or self.context is not None
        if kv_cache and any(v is not None for v in serving_shape) and None in serving_shape:
            raise ValueError("a KV cache needs all of layers, kv_heads, head_dim, users and "
                             "context")
        if self.kind != "serve":
            if self.deadline is None or not self.deadline.magnitude > 0:
                raise ValueError(f"a {self.kind} job needs a deadline greater than zero, "
                                 "such as \"60 d\"")
            if self.flop is None and (self.params is None or self.tokens is None):
                raise ValueError(f"a {self.kind} job needs flop, or params and tokens")
        keys = SERVE_SHAPE_KEYS if self.kind == "serve" else SHAPE_KEYS
        missing = [k for k in keys if getattr(self, k) is None]
        if self.parallelism is not None:
            if missing:
                raise ValueError(f"parallelism needs the model's shape: add {', '.join(missing)}")
            if self.kind == "serve" and self.parallelism.cp > 1:
                raise ValueError("parallelism.cp splits a training sequence; a serving replica splits tp, ep "
                                 "and pp, and dp counts the replicas")
        if self.tokens_per_s_per_user is not None and missing:
            raise ValueError(f"tokens_per_s_per_user needs the model's shape: add {', '.join(missing)}")
        if self.experts is None and self.parallelism is not None and self.parallelism.ep > 1:
            raise ValueError("parallelism.ep needs experts (a mixture-of-experts model)")
        return self

    @property
    def has_shape(self) -> bool:
        """A job with the shape its parallelism needs (training or serving)."""
        keys = SERVE_SHAPE_KEYS if self.kind == "serve" else SHAPE_KEYS
        return all(getattr(self, k) is not None for k in keys)

    @property
    def kv_bytes_per_token(self) -> float:
        """2 (K and V) x layers x KV heads x head dim x bytes per value [B]."""
        if self.layers is None or self.kv_heads is None or self.head_dim is None:
            return 0.0
        return 2.0 * self.layers * self.kv_heads * self.head_dim * BYTES_PER_VALUE[self.dtype]

    @property
    def memory_gb(self) -> float:
        """Memory the job needs [GB, 1e9 bytes]."""
        if self.memory is not None:
            return magnitude(self.memory, "information")
        assert self.params is not None
        if self.kind == "serve":
            weights = self.params * BYTES_PER_VALUE[self.dtype]
            kv = (self.users or 0) * (self.context or 0) * self.kv_bytes_per_token
            return (weights + kv) / 1e9
        return self.params * TRAINING_BYTES_PER_PARAM / 1e9 * TRAINING_OVERHEAD[self.kind]

    @property
    def total_flop(self) -> float:
        """Total work [FLOP]; 0 for serving, which is sized by memory."""
        if self.flop is not None:
            return self.flop
        if self.kind == "serve":
            return 0.0
        assert self.params is not None and self.tokens is not None
        active = self.active_params or self.params
        return TRAINING_FLOP_PER_PARAM_TOKEN * active * self.tokens

    @property
    def deadline_s(self) -> float:
        return 0.0 if self.deadline is None else float(self.deadline.to("s").magnitude)

    @property
    def label(self) -> str:
        return self.name or self.kind


def load_jobs(path: Path) -> list[Workload]:
    """A YAML file with a ``jobs:`` list of workloads."""
    src = load_file(path, "jobs file")
    if not isinstance(src.data, dict) or not isinstance(src.data.get("jobs"), list):
        raise ScenarioError("expected a 'jobs:' list of workloads", where=src.where(()))
    return [validate(Workload, job, src, ("jobs", i)) for i, job in enumerate(src.data["jobs"])]
