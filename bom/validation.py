"""Pydantic building blocks shared by the catalog and scenario models.

Quantities are validated by :func:`bom.units.parse_quantity`; pydantic errors are turned
into one :class:`BomError` that names the file, the line and the key.
"""

from __future__ import annotations

import difflib
import typing
from typing import Annotated, Any

import pint
from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError, WithJsonSchema

from bom.errors import BomError
from bom.units import parse_quantity
from bom.yamlio import Located


class Model(BaseModel):
    """Strict, immutable model: unknown keys are refused."""

    # Attribute docstrings become field descriptions: docs/scenarios.md and `bom schema` read them.
    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True,
                              use_attribute_docstrings=True)


def _quantity(dimension: str, minimum: str) -> Any:
    def check(value: Any) -> pint.Quantity:
        q = parse_quantity(value, dimension)
        if minimum == "positive" and not q.magnitude > 0:
            raise ValueError(f"{value!r} must be greater than zero")
        if minimum == "nonnegative" and q.magnitude < 0:
            raise ValueError(f"{value!r} must not be negative")
        return q

    from bom.units import DIMENSIONS, EXAMPLES

    schema = {"type": "string", "pattern": r"^\s*[-+]?[0-9][0-9.,eE+-]*\s*\S+",
              "x-dimension": dimension, "x-unit": DIMENSIONS[dimension][1],
              "examples": [EXAMPLES[dimension].split(" or ")[0].strip('"')],
              "description": f"A {dimension} with its unit, such as {EXAMPLES[dimension]}."}
    return Annotated[pint.Quantity, BeforeValidator(check), WithJsonSchema(schema)]


def Qty(dimension: str, minimum: str = "positive") -> Any:  # noqa: N802 - reads as a type
    """An annotated pint quantity type of ``dimension``; ``minimum`` is positive|nonnegative|any."""
    return _quantity(dimension, minimum)


Rate = Qty("rate")
Length = Qty("length")
Length0 = Qty("length", "nonnegative")
Power = Qty("power", "nonnegative")
Memory = Qty("information")
Compute = Qty("compute")
Loss = Qty("loss", "nonnegative")
Attenuation = Qty("attenuation", "nonnegative")
Duration = Qty("time")
Frequency = Qty("frequency")
EnergyPrice = Qty("energy_price", "nonnegative")


def _field_model(annotation: Any) -> type[BaseModel] | None:
    """The model class inside an annotation like ``list[Foo] | None``."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _field_model(arg)
        if found is not None:
            return found
    return None


def _allowed_keys(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    current: type[BaseModel] | None = model
    for part in loc[:-1]:
        if current is None:
            return []
        if isinstance(part, str) and part in current.model_fields:
            current = _field_model(current.model_fields[part].annotation)
    return list(current.model_fields) if current else []


def _describe(err: dict[str, Any], model: type[BaseModel], src: Located,
              base: tuple[Any, ...]) -> str:
    loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and "[" in p))
    key = ".".join(str(p) for p in base + loc)
    where = src.where(base + loc)
    if err["type"] == "extra_forbidden":
        allowed = _allowed_keys(model, loc)
        close = difflib.get_close_matches(str(loc[-1]), allowed, n=1)
        tip = f" Did you mean {close[0]!r}?" if close else ""
        return f"{where}: {key}: unknown key.{tip} Allowed keys: {', '.join(allowed)}."
    if err["type"] == "missing":
        return f"{where}: {key}: this key is required but missing."
    msg = str(err["msg"]).removeprefix("Value error, ")
    if err["type"] != "value_error" and not isinstance(err.get("input"), (dict, list)):
        msg += f" (got {err.get('input')!r})"
    return f"{where}: {key}: {msg}" + ("" if msg.endswith(".") else ".")


def validate(model: type[Model], data: Any, src: Located, base: tuple[Any, ...] = ()) -> Any:
    """Validate ``data`` (found at path ``base`` of ``src``) as ``model``, or raise BomError."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        lines = [_describe(e, model, src, base) for e in errors[:3]]
        more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
        raise BomError(" ".join(lines) + more) from None


def suggest(name: str, known: typing.Iterable[str], what: str) -> str:
    """"unknown X 'foo'; did you mean 'bar'? Known: ..." for an id not in ``known``."""
    known = sorted(known)
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    tip = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    return f"unknown {what} {name!r}.{tip} Known: {', '.join(known)}."
