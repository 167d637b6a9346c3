"""Pydantic building blocks shared by the catalog and scenario models.

Quantities are validated by :func:`bom.units.parse_quantity`; pydantic errors are turned
into one :class:`BomError` that names the file, the line and the key.
"""

from __future__ import annotations

import difflib
import functools
import types
import typing
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    ValidationError,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
)
from pydantic_core import ErrorDetails

from bom.errors import BomError, Fix, MultiError
from bom.inputs.yamlio import Located
from bom.units import DIMENSIONS, EXAMPLES, Quantity, parse_quantity


class Model(BaseModel):
    """Strict, immutable model: unknown keys, inf and nan, and a bool or a fraction where a
    count is expected are refused (pydantic's lax mode would read ``gpus: true`` as 1)."""

    # Attribute docstrings become field descriptions: docs/scenarios.md and `bom schema` read them.
    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True, allow_inf_nan=False,
                              use_attribute_docstrings=True)

    @field_validator("*", mode="before")
    @classmethod
    def _no_bool_as_number(cls, value: Any, info: ValidationInfo) -> Any:
        kinds = _kinds(cls, info.field_name)
        if isinstance(value, bool) and bool not in kinds and (int in kinds or float in kinds):
            raise ValueError(f"expected a number, got {value!r}")
        if int in kinds and float not in kinds and isinstance(value, float) and not value.is_integer():
            raise ValueError(f"expected a whole number, got {value!r}")
        if int in kinds and str not in kinds and float not in kinds and isinstance(value, str):
            raise ValueError(f"expected a whole number, got the text {value!r}")
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
            raise ValueError(f"{value} is out of range (at most {MAX_INT:.0e})")
        return value


#: The largest whole number any input may give (far past any cluster; keeps arithmetic finite).
MAX_INT = 10**15


@functools.cache
def _kinds(model: type[BaseModel], name: str | None) -> frozenset[type]:
    """The plain types (int, float, str, bool) a field's annotation admits, Literals included."""
    if name is None or name not in model.model_fields:
        return frozenset()
    found: set[type] = set()

    def walk(annotation: Any) -> None:
        if annotation in (int, float, str, bool):
            found.add(annotation)
        elif typing.get_origin(annotation) is typing.Literal:
            found.update(type(a) for a in typing.get_args(annotation))
        elif typing.get_origin(annotation) in (typing.Union, types.UnionType, typing.Annotated):
            for arg in typing.get_args(annotation):
                walk(arg)

    walk(model.model_fields[name].annotation)
    return frozenset(found)


def _quantity(dimension: str, minimum: str) -> Any:
    def check(value: Any) -> Quantity:
        q = parse_quantity(value, dimension)
        if minimum == "positive" and not q.magnitude > 0:
            raise ValueError(f"{value!r} must be greater than zero")
        if minimum == "nonnegative" and q.magnitude < 0:
            raise ValueError(f"{value!r} must not be negative")
        return q

    schema = {"type": "string", "pattern": r"^\s*[-+]?[0-9][0-9.,eE+-]*\s*\S+",
              "x-dimension": dimension, "x-unit": DIMENSIONS[dimension][1],
              "examples": [EXAMPLES[dimension].split('"')[1]],
              "description": f"A {dimension} with its unit, such as {EXAMPLES[dimension]}."}
    return Annotated[Quantity, BeforeValidator(check), WithJsonSchema(schema)]


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
PositivePower = Qty("power")
Money = Qty("money", "nonnegative")
Voltage = Qty("voltage")
Current = Qty("current")
MoneyPerYear = Qty("money_per_year", "nonnegative")
MoneyPerKmYear = Qty("money_per_km_year", "nonnegative")
MoneyPerKwMonth = Qty("money_per_kw_month", "nonnegative")
MoneyPerPower = Qty("money_per_power", "nonnegative")


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


def _is_tag(part: Any) -> bool:
    return isinstance(part, str) and "[" in part


class RuleError(ValueError):
    """A scenario rule a model validator found broken: ``at`` is the path of the offending key
    below the model being validated, ``hint`` what to do and ``fix`` the same as data (key paths below
    the model, as ``at``: :class:`bom.errors.BomError`'s ``fix``). The error then names that key's line."""

    def __init__(self, message: str, at: tuple[str | int, ...] = (), hint: str | None = None,
                 fix: Fix | None = None) -> None:
        super().__init__(message)
        self.at = at
        self.hint = hint
        self.fix = fix


class MultiRuleError(RuleError):
    """Several rules one validator found broken, each its own :class:`RuleError` (its key, hint and fix):
    :func:`validate` raises them as one :class:`~bom.errors.MultiError`, so one run names every fix."""

    def __init__(self, problems: list[RuleError]) -> None:
        super().__init__("; ".join(str(p) for p in problems), problems[0].at)
        self.problems = problems


def _rule(err: ErrorDetails) -> RuleError | None:
    found = (err.get("ctx") or {}).get("error")
    return found if isinstance(found, RuleError) else None


def _path(err: ErrorDetails) -> tuple[Any, ...]:
    # Drop pydantic's union tags ("function-after[...]") from the path, never the user's own key:
    # the last part of an unknown-key error is what the file says, "[" or not.
    raw = tuple(err["loc"])
    last = raw[-1:] if err["type"] == "extra_forbidden" else tuple(p for p in raw[-1:] if not _is_tag(p))
    rule = _rule(err)
    return tuple(p for p in raw[:-1] if not _is_tag(p)) + last + (rule.at if rule else ())


def _describe(err: ErrorDetails, model: type[BaseModel], src: Located,
              base: tuple[Any, ...], also: list[str] | None = None) -> str:
    loc = _path(err)
    key = ".".join(str(p) for p in base + loc)
    where = src.where(base + loc)
    if err["type"] == "extra_forbidden":
        allowed = _allowed_keys(model, loc)
        close = difflib.get_close_matches(str(loc[-1]), allowed, n=1)
        tip = f" Did you mean {close[0]!r}?" if close else ""
        return f"{where}: {key}: unknown key.{tip} Allowed keys: {', '.join(allowed)}."
    if err["type"] == "missing":
        return f"{where}: {key}: this key is required but missing."
    msg = _also(str(err["msg"]).removeprefix("Value error, "), also)
    if err["type"] != "value_error" and not isinstance(err.get("input"), (dict, list)):
        shown = repr(err.get("input"))
        msg += f" (got {shown if len(shown) <= 80 else shown[:80] + '...'})"
    rule = _rule(err)
    if rule and rule.hint:
        msg = msg.rstrip(".") + ". " + rule.hint
    head = f"{where}: {key}" if key else where   # a rule over the whole file has no key to name
    return f"{head}: {msg}" + ("" if msg.endswith(".") else ".")


def validate(model: type[Model], data: Any, src: Located, base: tuple[Any, ...] = ()) -> Any:
    """Validate ``data`` (found at path ``base`` of ``src``) as ``model``, or raise BomError."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        rule = _rule(errors[0]) if len(errors) == 1 else None
        if rule is not None:   # broken rules: each its key and hint as a stage's error would give them
            path = base + _path(errors[0])
            model_at = path[:len(path) - len(rule.at)]   # the validated model's own path
            rules = rule.problems if isinstance(rule, MultiRuleError) else [rule]
            told = [_told_rule(r, model_at, src) for r in rules]
            raise (told[0] if len(told) == 1 else MultiError(told)) from None
        errors, words = _one_branch(errors)
        if len(errors) == 1 and (one := _told_quantity(errors[0], words, src, base)) is not None:
            raise one from None
        lines = [_describe(e, model, src, base, words.get(_path(e))) for e in errors[:3]]
        more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
        raise BomError(" ".join(lines) + more) from None


def _error_of(err: ErrorDetails) -> BomError | None:
    found = (err.get("ctx") or {}).get("error")
    return found if isinstance(found, BomError) else None


def _one_branch(errors: list[ErrorDetails]) -> tuple[list[ErrorDetails], dict[tuple[Any, ...], list[str]]]:
    """A key that takes a quantity or a word ("auto") fails on both branches of its union; the quantity's
    error (what is wrong with the text) is the one error of that key, and the words the other branch takes
    (key path -> words) are said with it ("... or 'auto'")."""
    said = {_path(e) for e in errors if e["type"] != "literal_error"}
    words: dict[tuple[Any, ...], list[str]] = {}
    for e in errors:
        if _path(e) in said and e["type"] == "literal_error":
            words.setdefault(_path(e), []).append(str((e.get("ctx") or {}).get("expected", "")))
    return [e for e in errors if _path(e) not in said or e["type"] != "literal_error"], words


def _also(msg: str, words: list[str] | None) -> str:
    return f"{msg.rstrip('.')}; or {' or '.join(words)}." if words else msg


def _told_quantity(err: ErrorDetails, words: dict[tuple[Any, ...], list[str]], src: Located,
                   base: tuple[Any, ...]) -> BomError | None:
    """A quantity's own error (its hint and fix, the fix's path below this key) at the key's place."""
    found = _error_of(err)
    if found is None or not found.fix:
        return None
    path = base + _path(err)
    return BomError(_also(found.message, words.get(_path(err))), where=src.where(path),
                    key=".".join(str(p) for p in path), hint=found.hint,
                    fix={path + k: v for k, v in found.fix.items()})


def _told_rule(rule: RuleError, model_at: tuple[Any, ...], src: Located) -> BomError:
    """A broken rule of the model at ``model_at`` as the error a stage would give: its path, line, hint, fix."""
    path = model_at + rule.at
    fix = {model_at + k: v for k, v in rule.fix.items()} if rule.fix else None
    return BomError(str(rule), where=src.where(path), key=".".join(str(p) for p in path), hint=rule.hint, fix=fix)


def locate(exc: BomError, src: Located) -> BomError:
    """Give ``exc`` the file and line in ``src`` of its path (``at``), else of its key, when it has no place
    (each of several problems its own)."""
    for e in exc.problems if isinstance(exc, MultiError) else ():
        locate(e, src)
    if exc.where is None and exc.at is not None:
        exc.where = src.where(exc.at)
    elif exc.where is None and exc.key and not exc.key.startswith("-"):
        path = tuple(int(p) if p.isdigit() else p for p in exc.key.split("."))
        exc.where = src.where(path)
    return exc


@contextmanager
def located(src: Located) -> Iterator[None]:
    """The one place an error found past loading gets its file and line: every error raised inside
    without a place gets those of its path or key in ``src`` (:func:`locate`)."""
    try:
        yield
    except BomError as exc:
        locate(exc, src)
        raise


def cage_option(text: str | None, option: str, form_factors: typing.Iterable[str]) -> str | None:
    """A cage given on the command line, ``osfp``, ``osfp:2`` or ``osfp:2:spread``, checked."""
    if text is None:
        return None
    known = list(form_factors)
    ff, _, rest = text.partition(":")
    ports, _, spread = rest.partition(":")
    if ff not in known:
        raise BomError(suggest(ff, known, "form factor"), key=option)
    if (rest and not (ports.isdigit() and 1 <= int(ports) <= 8)) or spread not in ("", "spread"):
        raise BomError(f"{text!r} is not a cage: write a form factor, then optionally the ports one cage "
                       "serves (1 to 8) and ':spread'", key=option, hint="For example osfp or osfp:2.")
    return text


def suggest(name: str, known: typing.Iterable[str], what: str) -> str:
    """"unknown X 'foo'; did you mean 'bar'? Known: ..." for an id not in ``known``."""
    known = sorted(known)
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    tip = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    return f"unknown {what} {name!r}.{tip} Known: {', '.join(known)}."


#: Ratios written as decimals snap to the nearest small fraction within this distance:
#: 1.333 and 1.3333 are 4:3 (the RAs' storage ratio), 1.5 is 3:2.
RATIO_TOLERANCE = 0.001
RATIO_MAX_DENOMINATOR = 16


def ratio(value: float | Fraction | str) -> Fraction:
    """An oversubscription as an exact down:up fraction ("4:3", "4/3", 1.333, 3; "1:1.16" is
    AMD's undersubscribed leaf, 25:29).

    >>> ratio("4:3"), ratio(1.333), ratio(1.3333), ratio(1.3), ratio(3), ratio("1:1.16")
    (Fraction(4, 3), Fraction(4, 3), Fraction(4, 3), Fraction(13, 10), Fraction(3, 1), Fraction(25, 29))
    """
    if isinstance(value, Fraction):
        return value
    if isinstance(value, str):
        text = value.strip().replace(" ", "")
        for sep in (":", "/"):
            if sep in text:
                down, up = text.split(sep, 1)
                return Fraction(down) / Fraction(up)
        value = float(text)
    exact = Fraction(value).limit_denominator(10**6)
    near = exact.limit_denominator(RATIO_MAX_DENOMINATOR)
    return near if abs(float(near) - float(value)) <= RATIO_TOLERANCE else exact
