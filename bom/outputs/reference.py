"""The scenario reference (docs/scenarios.md): every key of a scenario, the catalog overlay and the price
file formats, read from the pydantic models (their types, constraints, defaults, examples and the
docstring under each field), so the reference cannot drift from what the loader accepts
(tests/outputs/test_reference.py fails when docs/scenarios.md is stale). Regenerate it with
``python -m bom.outputs.reference > docs/scenarios.md``.
"""

from __future__ import annotations

import fractions
import typing
from dataclasses import dataclass
from typing import Any

import yaml
from pydantic import BaseModel

from bom.catalog.prices import COLUMNS as PRICE_COLUMNS
from bom.catalog.rows import KINDS
from bom.costing import tco
from bom.inputs.scenario import Layout, Scenario, Tco
from bom.outputs.writers.documents import environment
from bom.topology import geometry as floorplan


@dataclass(frozen=True)
class Key:
    """One row of the reference: a key and what it takes."""

    key: str
    type: str
    unit: str
    default: str
    allowed: str
    example: str
    description: str


@dataclass(frozen=True)
class Section:
    title: str
    anchor: str
    prefix: str
    description: str
    keys: list[Key]
    children: tuple[Section, ...] = ()   # a catalog kind's nested mappings


def _submodels(model: type[BaseModel]) -> list[tuple[str, type[BaseModel], str]]:
    """The mappings a model's keys hold, in key order: (key, model, "" | "list" | "dict")."""
    out: list[tuple[str, type[BaseModel], str]] = []
    for name, field in model.model_fields.items():
        def walk(annotation: Any, container: str, name: str = name) -> None:
            if isinstance(annotation, type) and issubclass(annotation, BaseModel):
                out.append((name, annotation, container))
                return
            origin, args = typing.get_origin(annotation), typing.get_args(annotation)
            if origin in (list, tuple, set, frozenset):
                container = "list"
            elif origin is dict:
                container, args = "dict", args[1:]
            for arg in args:
                walk(arg, container)
        walk(field.annotation, "")
    return out


def _nested_sections(root: type[BaseModel], prefix: str, seen: set[str], make: Any) -> list[Section]:
    """A section for ``root`` and for every mapping under it not listed yet (breadth first), so
    every ``[Name](#name)`` a table holds has its section."""
    out, queue = [], [(root, prefix)]
    while queue:
        model, at = queue.pop(0)
        if model.__name__ in seen:
            continue
        seen.add(model.__name__)
        out.append(make(model, at))
        for key, sub, container in _submodels(model):
            queue.append((sub, at + key + {"list": "[]", "dict": ".<name>"}.get(container, "") + "."))
    return out


def _non_null(prop: dict[str, Any]) -> dict[str, Any]:
    options = [p for p in prop.get("anyOf", []) if p.get("type") != "null"]
    rest = {k: v for k, v in prop.items() if k != "anyOf"}
    if len(options) == 1:
        return {**rest, **options[0]}
    return {**rest, "anyOf": options} if options else prop


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _kind(prop: dict[str, Any]) -> tuple[str, str, str]:
    """(type, unit, allowed values) of one JSON Schema property."""
    p = _non_null(prop)
    if "$ref" in p:
        name = _ref_name(p["$ref"])
        return f"mapping ([{name}](#{name.lower()}))", "", ""
    if "x-dimension" in p:
        return f"quantity ({p['x-dimension']})", p["x-unit"], ""
    if "enum" in p:
        return "one of", "", ", ".join(f"`{v}`" for v in p["enum"])
    kinds = [o.get("type") for o in p.get("anyOf", [])]
    if kinds == ["number", "string"]:
        return "number or text", "", ""
    if kinds == ["number", "string", "object"]:   # a ratio, or one per layer (fabrics.<name>.oversubscription)
        keys = ", ".join(f"`{k}`" for k in p["anyOf"][2].get("properties", {}))
        return "number, text, or a mapping of layer to either", "", keys
    quantity = [o for o in p.get("anyOf", []) if "x-dimension" in o]
    words = [v for o in p.get("anyOf", []) for v in o.get("enum", [o["const"]] if "const" in o else [])]
    if quantity and words:
        return f"quantity ({quantity[0]['x-dimension']}) or one of", quantity[0]["x-unit"], \
            ", ".join(f"`{v}`" for v in words)
    if p.get("type") == "array":
        inner, unit, allowed = _kind(p.get("items", {}))
        return f"list of {inner}", unit, allowed
    if p.get("type") == "object":
        values = p.get("additionalProperties", {})
        inner, _, _ = _kind(values) if isinstance(values, dict) else ("any", "", "")
        keys = p.get("propertyNames", {}).get("enum", [])
        return f"mapping of name to {inner}", "", ", ".join(f"`{k}`" for k in keys)
    mapping = {"integer": "integer", "number": "number", "string": "text", "boolean": "true or false"}
    return mapping.get(str(p.get("type")), str(p.get("type", "any"))), "", ""


def _limits(prop: dict[str, Any]) -> str:
    p = _non_null(prop)
    parts = []
    for key, sign in (("minimum", ">="), ("exclusiveMinimum", ">"), ("maximum", "<="), ("exclusiveMaximum", "<"),
                      ("minItems", "items >="), ("maxItems", "items <=")):
        if key in p:
            parts.append(f"{sign} {p[key]:g}" if isinstance(p[key], float) else f"{sign} {p[key]}")
    if "pattern" in p and "x-dimension" not in p:
        parts.append(f"matches `{p['pattern']}`")
    return ", ".join(parts)


def _yaml(value: Any) -> str:
    if isinstance(value, fractions.Fraction):   # an oversubscription: "4:3", or 1 when whole
        return str(value.numerator) if value.denominator == 1 else f'"{value.numerator}:{value.denominator}"'

    text = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=1000)
    return text.removesuffix("\n").removesuffix("\n...").strip()


def _effective_defaults(model: type[BaseModel]) -> dict[str, str]:
    """Defaults the code applies when a key is left out (bom/costing/tco.py, bom/topology/geometry.py)."""
    if model is Tco:
        return {k: f"{i.value:g} {i.unit}" if isinstance(i.value, (int, float)) else f"`{i.value}`"
            for k, i in tco.DEFAULTS.items()}
    if model is Layout:
        return {k: f"{v:g}" if k == "racks_per_row" else f"{v:g} m" for k, v in floorplan.DEFAULTS.items()}
    return {}


def _keys(model: type[BaseModel], prefix: str) -> list[Key]:
    schema = model.model_json_schema()
    props = schema.get("properties", {})
    required = set(schema.get("required", []))
    effective = _effective_defaults(model)
    keys = []
    for name, field in model.model_fields.items():
        prop = props[name]
        kind, unit, allowed = _kind(prop)
        limits = _limits(prop)
        allowed = "; ".join(x for x in (allowed, limits) if x)
        if name in required:
            default = "required"
        elif field.default not in (None, {}, []) and not isinstance(field.default, BaseModel):
            default = f"`{_yaml(field.default)}`"
        else:
            default = effective.get(name, "-")
        examples = field.examples or _non_null(prop).get("examples")
        nested = "$ref" in _non_null(prop)
        if not examples and not nested:
            raise ValueError(f"{model.__name__}.{name} has no example: give Field(examples=[...])")
        # Every example of a key that takes more than one shape (a ratio, or one per layer).
        shown = (examples or []) if kind.startswith("number, text, or a mapping") else (examples or [])[:1]
        example = "see below" if nested else " or ".join(f"`{name}: {_yaml(e)}`" for e in shown)
        description = " ".join((field.description or "").split())
        if not description:
            raise ValueError(f"{model.__name__}.{name} has no description: add a docstring under it")
        keys.append(Key(prefix + name, kind, unit, default, allowed, example, description))
    return keys


def scenario_sections() -> list[Section]:
    """The Scenario's keys, then a section for every mapping a key holds (workload, fabrics, storage,
    management, racks, spares, ...), each under its full key prefix."""
    def make(model: type[BaseModel], prefix: str) -> Section:
        return Section(model.__name__, model.__name__.lower(), prefix, " ".join((model.__doc__ or "").split()),
                       _keys(model, prefix))

    return _nested_sections(Scenario, "", set(), make)


def _catalog_keys(model: type[BaseModel]) -> list[Key]:
    schema = model.model_json_schema()
    props, required = schema.get("properties", {}), set(schema.get("required", []))
    keys = []
    for name, field in model.model_fields.items():
        kind_, unit, allowed = _kind(props[name])
        keys.append(Key(name, kind_, unit, "required" if name in required else "optional",
                        "; ".join(x for x in (allowed, _limits(props[name])) if x), "",
                        " ".join((field.description or "").split())))
    return keys


def catalog_sections() -> list[Section]:
    """One section per kind of catalog row (what an overlay file may hold)."""
    out = []
    # Scenario sections come first in the document: a mapping named the same there is linked there.
    seen = {s.title for s in scenario_sections()}

    def make(model: type[BaseModel], prefix: str) -> Section:
        return Section(model.__name__, model.__name__.lower(), prefix, " ".join((model.__doc__ or "").split()),
                       _catalog_keys(model))

    for kind, model in KINDS.items():
        seen.add(model.__name__)
        children = tuple(section for key, sub, container in _submodels(model)
                         for section in _nested_sections(
                             sub, key + {"list": "[]", "dict": ".<name>"}.get(container, "") + ".", seen, make))
        out.append(Section(kind, f"catalog-{kind}", "", " ".join((model.__doc__ or "").split()),
                           _catalog_keys(model), children))
    return out


def scenario_reference() -> str:
    """docs/scenarios.md: every key of a scenario, and the catalog overlay and price file formats."""
    template = environment(False, trusted=True).get_template("scenarios.md.j2")
    return template.render(sections=scenario_sections(), catalog=catalog_sections(), kinds=list(KINDS),
                           price_columns=PRICE_COLUMNS)




if __name__ == "__main__":  # python -m bom.outputs.reference > docs/scenarios.md
    import sys

    sys.stdout.write(scenario_reference())
