"""A job to size: given as totals (memory, FLOP) or derived from a model's shape.

The formulas are the seed's (seven-levels-of-scale): KV bytes per token =
2 x layers x KV heads x head dim x bytes per value; training FLOP = 6 x active params x
tokens; training memory = params x 16 bytes x 1.3 (fine-tune) or x 1.5 (pretraining).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator

from bom.units import magnitude, parse_quantity
from bom.validation import Duration, Memory, Model, suggest

BYTES_PER_VALUE = {"bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "fp4": 0.5}
#: Weights + gradients + Adam moments + master copy, bytes per parameter (mixed precision).
TRAINING_BYTES_PER_PARAM = 16.0
#: Activations and buffers on top of that, as the seed sets them.
TRAINING_OVERHEAD = {"finetune": 1.3, "pretrain": 1.5}
TRAINING_FLOP_PER_PARAM_TOKEN = 6.0
DEFAULT_MFU = 0.4


class Workload(Model):
    """One job. Serving jobs are sized by memory; training jobs also by a deadline."""

    kind: Literal["serve", "finetune", "pretrain"]
    name: str | None = None
    memory: Memory | None = None
    flop: float | None = Field(default=None, gt=0, le=1e40)
    deadline: Duration | None = None
    mfu: float = Field(default=DEFAULT_MFU, gt=0, le=1)
    params: float | None = Field(default=None, gt=0, le=1e18)
    active_params: float | None = Field(default=None, gt=0, le=1e18)
    dtype: str = "bf16"
    layers: int | None = Field(default=None, ge=1)
    kv_heads: int | None = Field(default=None, ge=1)
    head_dim: int | None = Field(default=None, ge=1)
    users: int | None = Field(default=None, ge=0)
    context: int | None = Field(default=None, ge=0)
    tokens: float | None = Field(default=None, gt=0, le=1e18)
    source: str | None = None

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

    src = load_file(path, "jobs file")
    if not isinstance(src.data, dict) or not isinstance(src.data.get("jobs"), list):
        raise ScenarioError("expected a 'jobs:' list of workloads", where=src.where(()))
    return [validate(Workload, job, src, ("jobs", i)) for i, job in enumerate(src.data["jobs"])]
