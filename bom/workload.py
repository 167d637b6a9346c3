"""A job to size: given as totals (memory, FLOP) or derived from a model's shape.

The formulas are the seed's (seven-levels-of-scale): KV bytes per token =
2 x layers x KV heads x head dim x bytes per value; training FLOP = 6 x active params x
tokens; training memory = params x 16 bytes x 1.3 (fine-tune) or x 1.5 (pretraining).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from bom.units import magnitude, parse_quantity
from bom.validation import Duration, Memory, Model, suggest

BYTES_PER_VALUE = {"bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "fp4": 0.5}
#: Weights + gradients + Adam moments + master copy, bytes per parameter (mixed precision).
TRAINING_BYTES_PER_PARAM = 16.0
#: Activations and buffers on top of that, as the seed sets them.
TRAINING_OVERHEAD = {"finetune": 1.3, "pretrain": 1.5}
TRAINING_FLOP_PER_PARAM_TOKEN = 6.0
DEFAULT_MFU = 0.4
#: Count suffixes as model cards write them ("70B parameters", "15T tokens"): short scale.
COUNT_SUFFIX = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}
#: How people spell the kinds; the model keeps one spelling each.
KIND_SPELLINGS = {"fine-tune": "finetune", "fine_tune": "finetune", "fine tune": "finetune",
                  "pre-train": "pretrain", "pre_train": "pretrain", "pre train": "pretrain",
                  "serving": "serve", "inference": "serve"}


def parse_count(value: object, key: str = "params") -> float:
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


class Workload(Model):
    """One job. Serving jobs are sized by memory; training jobs also by a deadline."""

    kind: Literal["serve", "finetune", "pretrain"]
    name: str | None = None
    memory: Memory | None = None
    flop: float | None = Field(default=None, gt=0)
    deadline: Duration | None = None
    mfu: float = Field(default=DEFAULT_MFU, gt=0, le=1)
    params: float | None = Field(default=None, gt=0)
    active_params: float | None = Field(default=None, gt=0)
    dtype: str = "bf16"
    layers: int | None = Field(default=None, ge=1)
    kv_heads: int | None = Field(default=None, ge=1)
    head_dim: int | None = Field(default=None, ge=1)
    users: int | None = Field(default=None, ge=0)
    context: int | None = Field(default=None, ge=0)
    tokens: float | None = Field(default=None, gt=0)
    source: str | None = None

    @field_validator("kind", mode="before")
    @classmethod
    def _kind(cls, value: object) -> object:
        if isinstance(value, str):
            text = value.strip().lower()
            return KIND_SPELLINGS.get(text, text)
        return value

    @field_validator("params", "active_params", "tokens", mode="before")
    @classmethod
    def _count(cls, value: object, info: ValidationInfo) -> object:
        return None if value is None else parse_count(value, info.field_name or "count")

    @field_validator("flop", mode="before")
    @classmethod
    def _flop(cls, value: object) -> object:
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
        serving_shape = (self.layers, self.kv_heads, self.head_dim, self.users, self.context)
        if any(v is not None for v in serving_shape) and None in serving_shape:
            raise ValueError("a KV cache needs all of layers, kv_heads, head_dim, users and "
                             "context")
        if self.kind != "serve":
            if self.deadline is None or not self.deadline.magnitude > 0:
                raise ValueError(f"a {self.kind} job needs a deadline greater than zero, "
                                 "such as \"60 d\"")
            if self.flop is None and (self.params is None or self.tokens is None):
                raise ValueError(f"a {self.kind} job needs flop, or params and tokens")
        return self

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
    from bom.errors import ScenarioError
    from bom.validation import validate
    from bom.yamlio import load_file

    src = load_file(path)
    if not isinstance(src.data, dict) or not isinstance(src.data.get("jobs"), list):
        raise ScenarioError("expected a 'jobs:' list of workloads", where=src.where(()))
    return [validate(Workload, job, src, ("jobs", i)) for i, job in enumerate(src.data["jobs"])]
