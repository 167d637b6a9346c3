"""The JSON Schema of the outputs (`bom schema --output`) and its reference (docs/output.md).

Two documents are described: a build's JSON (``bom build --json``, the written ``<name>.json``)
and a comparison's (``bom compare --json``, ``<name>-compare.json``). A build's is read off its
records (:class:`bom.costing.report.BuildJson` and the TypedDicts it holds, each declared beside the
``to_json`` that writes it: :mod:`bom.model.records`), so a key is declared once; the parts whose
records are not declared yet (the order, the quotes, the phases and the
comparison) are still written here. tests/outputs/test_output_schema.py validates the JSON of several
scenarios against it and fails when docs/output.md is stale; regenerate it with
``python -m bom.outputs.schema > docs/output.md``.
"""

from __future__ import annotations

import ast
import functools
import inspect
import json
import textwrap
from collections.abc import Callable
from typing import Any

from pydantic import TypeAdapter
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema
from typing_extensions import is_typeddict

from bom.costing.compare import JOB_METRICS, PFLOP_METRICS, SCOPES
from bom.costing.report import BuildJson
from bom.costing.schedule import PhaseScheduleJson
from bom.diff.records import DiffJson
from bom.faults.result import FaultsJson
from bom.model.cluster import ScaleUpJson
from bom.model.fabrics import DciFabricJson, OobFabricJson, PooledFabricJson, SwitchedFabricJson
from bom.model.sweep import SweepJson
from bom.model.totals import OneSiteJson, ScaleAcrossJson, ScaleOutJson
from bom.roles import Tier

DRAFT = "https://json-schema.org/draft/2020-12/schema"

Schema = dict[str, Any]

INT: Schema = {"type": "integer", "minimum": 0}
NUM: Schema = {"type": "number"}
STR: Schema = {"type": "string"}
BOOL: Schema = {"type": "boolean"}
COUNT: Schema = {"type": "number", "minimum": 0}          # whole "each" quantities, metres of cable
SHARE: Schema = {"type": "number", "minimum": 0, "maximum": 1}
DATE: Schema = {"type": "string", "format": "date"}


def null(s: Schema) -> Schema:
    return {"anyOf": [s, {"type": "null"}]}


def obj(props: dict[str, Schema], required: tuple[str, ...] | None = None, description: str = "") -> Schema:
    """A closed object: these keys (all required unless ``required`` names some)."""
    out: Schema = {"type": "object", "properties": props,
                   "required": list(props if required is None else required), "additionalProperties": False}
    return {"description": description, **out} if description else out


def mapping(values: Schema, description: str = "") -> Schema:
    out: Schema = {"type": "object", "additionalProperties": values}
    return {"description": description, **out} if description else out


def array(items: Schema) -> Schema:
    return {"type": "array", "items": items}


# --- the records -----------------------------------------------------------------------------

#: The records that keep a section of their own in the reference (and a $def in the schema), by the
#: name the schema gives them; every other record is written out where it is used.
SECTIONS: dict[type, str] = {
    BuildJson: "build", SwitchedFabricJson: "fabric", PooledFabricJson: "pooled-fabric",
    OobFabricJson: "oob-fabric", DciFabricJson: "dci-fabric", ScaleUpJson: Tier.SCALE_UP, ScaleOutJson: Tier.SCALE_OUT,
    OneSiteJson: "one-site", ScaleAcrossJson: Tier.SCALE_ACROSS,
}


@functools.cache   # inspect.getsource parses the class's whole module: once per record, not per schema
def field_docs(cls: type) -> dict[str, str]:
    """The docstrings under a record's fields (the string after each annotation), its bases' first (read
    only: the dict is shared)."""
    out: dict[str, str] = {}
    for base in getattr(cls, "__orig_bases__", ()):
        if is_typeddict(base):
            out |= field_docs(base)
    try:
        body = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0]
    except OSError:   # a TypedDict made by a call (its keys are no identifiers) has no source and no docstrings
        return out
    assert isinstance(body, ast.ClassDef)
    for a, b in zip(body.body, body.body[1:], strict=False):
        if (isinstance(a, ast.AnnAssign) and isinstance(a.target, ast.Name) and isinstance(b, ast.Expr)
                and isinstance(b.value, ast.Constant) and isinstance(b.value.value, str)):
            out[a.target.id] = inspect.cleandoc(b.value.value)
    return out


class _Records(GenerateJsonSchema):
    """Pydantic's JSON Schema of the records: each closed, its fields described by their docstrings."""

    def typed_dict_schema(self, schema: core_schema.TypedDictSchema) -> JsonSchemaValue:
        out = super().typed_dict_schema(schema)
        cls: type = schema["cls"]
        docs = field_docs(cls)
        for name, prop in out.get("properties", {}).items():
            if name in docs:
                prop["description"] = docs[name]
        out["additionalProperties"] = False
        return out


def _clean(s: Any, defs: dict[str, Schema], names: dict[str, str], hand: dict[str, Callable[[], Schema]]) -> Any:
    """``s`` with pydantic's titles dropped, the hand-written parts put in, and every record that keeps
    no section written out where it is used (its docstring kept as the field's description, unless the
    field has one)."""
    if isinstance(s, list):
        return [_clean(x, defs, names, hand) for x in s]
    if not isinstance(s, dict):
        return s
    if "$handwritten" in s:
        return {**hand[s["$handwritten"]](), **{k: v for k, v in s.items() if k != "$handwritten"}}
    if "$ref" in s:
        name = s["$ref"].rsplit("/", 1)[-1]
        if name in names:
            return {**{k: v for k, v in s.items() if k != "$ref"}, "$ref": f"#/$defs/{names[name]}"}
        return {**_clean(defs[name], defs, names, hand), **{k: v for k, v in s.items() if k != "$ref"}}
    return {k: _clean(v, defs, names, hand) for k, v in s.items()
            if not (k == "title" and isinstance(v, str))}


def record_schemas() -> dict[str, Schema]:
    """The build's sections, read off the records."""
    hand: dict[str, Callable[[], Schema]] = {
        "order": lambda: array(_order()), "quote": lambda: array(_quote()),
        "phase": lambda: array(_phase()), "growth": _growth}
    names = {cls.__name__: name for cls, name in SECTIONS.items()}
    full = TypeAdapter(BuildJson).json_schema(schema_generator=_Records, mode="serialization")
    defs = {**full.pop("$defs", {}), BuildJson.__name__: full}
    return {name: _clean(defs[cls.__name__], defs, names, hand) for cls, name in SECTIONS.items()}


# --- the parts still written here ------------------------------------------------------------

def _order() -> Schema:
    return obj({"sku": STR, "catalog_id": STR, "category": STR, "description": STR, "maker": STR, "unit": STR,
                "installed": COUNT, "per_site": null(array(COUNT)), "spares": COUNT,
                "spares_per_site": _said(null(array(COUNT)), "Where the spares are held, site by site: each "
                                         "site's own Poisson spares under a failure-rate rule (its installed "
                                         "units' failures), else its share of the installed units; the rest "
                                         "in even shares. null: no per-site split."),
                "rounded_up": _said(COUNT, "Units past installed + spares that the quote's minimum order (moq) "
                                           "and pack size add; in total and priced into capex."),
                "total": COUNT, "avl": _said(array(STR), "The catalog row's approved vendors (empty: not stated)."),
                "unit_price_usd": NUM, "extended_usd": NUM, "price_source": STR, "price_date": STR,
                "currency": _said(STR, "The quote's currency (USD without a quote in another)."),
                "unit_price": _said(NUM, "The price per unit in currency, as quoted (unit_price_usd converted "
                                         "at the scenario's exchange_rates)."),
                "quote_ref": STR, "vendor": STR, "flags": array(STR), "valid_until": null(DATE),
                "lead_time_days": _said(null(NUM), "Days from order to delivery: the quote's, else the catalog "
                                                   "row's lead_time; null when neither gives one."),
                "lead_time_source": _said(STR, "Where the lead time comes from (a document and its date, "
                                               "\"estimate: ...\" saying what it rests on, or the quote); "
                                               "\"unknown: ...\" without one."),
                "lead_time_low_days": _said(null(NUM), "The shortest lead time the catalog row's sources give "
                                                       "(null: no range; a quote has none)."),
                "lead_time_high_days": _said(null(NUM), "The longest lead time the catalog row's sources give."),
                "lead_time_estimate": _said(BOOL, "Whether the lead time is an estimate by part class (the row "
                                                  "marks lead_time unconfirmed) rather than read at a source."),
                "spares_basis": null(obj({
                    "method": _said({"enum": ["rule", "failure rate"]},
                                    "rule: fraction, minimum or per site; failure rate: Poisson over the "
                                    "category's afr, resupply and service_level (the largest of those given)."),
                    "expected_failures_per_site": _said(null(NUM), "installed per site x afr x resupply / 365."),
                    "fill_rate": _said(null(NUM), "P(a site's failures during one resupply <= its spares)."),
                    "fraction_rule_spares": _said(null(INT), "What the category's default rule would hold."),
                    "fraction_rule_fill_rate": _said(null(NUM), "That rule's fill rate at the same failure rate.")},
                    description="How the spares were counted (null for a line in metres)."))},
               description="One order line per part number.")


def _quote() -> Schema:
    return obj({"sku": STR, "amount": NUM, "currency": STR, "usd_per_unit": NUM, "price_usd": NUM,
                "price_source": STR, "quoted_on": null(DATE), "valid_until": null(DATE), "quote_ref": STR,
                "vendor": STR, "where": STR, "lead_time_days": null(NUM),
                "moq": _said(null(INT), "The quote's minimum order quantity (null: none)."),
                "pack": _said(null(INT), "Units per pack: the order is whole packs (null: none).")})


def _said(s: Schema, text: str) -> Schema:
    return {"description": text, **s}


def _record(cls: type) -> Schema:
    """A record's schema written out whole, for a hand-written part that holds one."""
    full = TypeAdapter(cls).json_schema(schema_generator=_Records, mode="serialization")
    defs = {**full.pop("$defs", {}), cls.__name__: full}
    return _clean(defs[cls.__name__], defs, {}, {})


def _phase_schedule() -> Schema:
    return _record(PhaseScheduleJson)


def _phase() -> Schema:
    item = obj({"sku": STR, "catalog_id": STR, "description": STR, "category": STR, "fabric": STR, "quantity": COUNT,
                "unit": STR, "unit_price_usd": NUM, "extended_usd": NUM})
    said = {"name": "The phase's name.", "date": "The day its GPUs are to be in service (its target).",
            "gpus": "GPUs in service once the phase is.", "sites": "Sites in service once the phase is.",
            "policy": "The growth it follows: reserve, rebuild, or mixed (each fabric its own).",
            "capex_usd": "What the phase buys (spares apart), its installation and its re-cabling labour [USD].",
            "order": "What the phase buys, per fabric and part number (the phases add up to the final build).",
            "made_spare": "Parts held after the phase and not installed (rebuild: an earlier design's).",
            "recabled_links": "Links of the phase before that this phase takes out or moves.",
            "recabling_usd": "recabled_links x the TCO's install_link labour.",
            "installation_usd": "The phase's share of the final build's installation: the share of the final "
                                "plan's links it puts in service [USD].",
            "schedule": "Its critical path and the day it can be in service (bom/costing/schedule.py)."}
    props = {"name": STR, "date": DATE, "gpus": INT, "sites": INT, "policy": STR, "capex_usd": NUM,
             "order": array(item), "made_spare": array(item), "recabled_links": INT, "recabling_usd": NUM,
             "installation_usd": NUM, "schedule": null(_phase_schedule())}
    return obj({k: _said(v, said[k]) for k, v in props.items()}, description="One phase of the build-out.")


def _growth() -> Schema:
    one = obj({"policy": STR, "capex_usd": NUM, "recabling_usd": NUM, "installation_usd": NUM, "recabled_links": INT,
               "tco_usd": NUM, "gpu_hours": NUM, "usd_per_gpu_hour": NUM, "undiscounted_usd_per_gpu_hour": NUM,
               "capex_pv_usd": NUM},
              description="One growth policy over every phase: its capex (the phases' capex: orders, "
                          "installation shares, re-cabling), the TCO over the period (capex + the final opex scaled "
                          "by the "
                          "GPU-hours in service), the GPU-hours worked, each phase's GPUs from its date, and "
                          "capex_pv_usd: each phase's capex discounted to the first phase's date at the TCO's "
                          "discount_rate (what buying early costs). usd_per_gpu_hour is levelised, as the "
                          "totals' (every phase's capital charge, opex and GPU-hours from its date, discounted to "
                          "the first phase); undiscounted_usd_per_gpu_hour is tco_usd over gpu_hours.")
    basis = _said({"type": "string", "enum": ["levelised"]}, "The basis of every usd_per_gpu_hour.")
    return obj({"chosen": one, "reserve": one, "rebuild": one, "usd_per_gpu_hour_basis": basis})


# --- the comparison ------------------------------------------------------------------------

def compare_schema() -> Schema:
    sometimes = (*JOB_METRICS, *(k for k in PFLOP_METRICS if not k.endswith("bf16")))
    metrics = obj({k: NUM for k in SCOPES}, tuple(k for k in SCOPES if k not in sometimes),
                  description="The compared figures (see scopes); the job's (job_*) when each generation is sized "
                              "from the scenario's training job; usd_per_pflop_hour_<dtype>, the cost per "
                              "GPU-hour over the GPU's dense PFLOP/s at that dtype, for each dtype every "
                              "generation's GPU has (bf16 always).")
    opt = {"type": "object", "propertyNames": {"enum": list(SCOPES)}, "additionalProperties": null(NUM)}
    gen = obj({"platform": STR, "label": STR, "switch": STR, "generation": STR, "year": INT, "system": STR,
               "note": null(STR), "kind_note": null(STR),
               "left_out": {**array(STR), "description": "Fabrics the scenario names that this platform could "
                            "not build (the note says why)."},
               "not_comparable": {**array({"enum": list(SCOPES)}), "description": "Metrics that leave out a "
                                  "fabric another column built: not comparable with that column."},
               "metrics": metrics,
               "delta": null({**opt, "description": "Change from the previous generation."}),
               "change": null({**opt, "description": "Relative change (shares: the difference)."})})
    return obj({"name": STR,
                "scopes": {"type": "object", "propertyNames": {"enum": list(SCOPES)}, "additionalProperties": STR},
                "generations": array(gen), "skipped": mapping(STR, "Entries that cannot build the job, and why.")},
               description="A comparison: `bom compare --json`, the written <name>-compare.json.")


def diff_schema() -> Schema:
    """``bom diff --json``, read off its records (bom/diff/records.py)."""
    full = TypeAdapter(DiffJson).json_schema(schema_generator=_Records, mode="serialization")
    defs = {**full.pop("$defs", {}), DiffJson.__name__: full}
    out: Schema = _clean(defs[DiffJson.__name__], defs, {}, {})
    return out


def sweep_schema() -> Schema:
    """``bom sweep --json``, read off its records (bom/model/sweep.py)."""
    full = TypeAdapter(SweepJson).json_schema(schema_generator=_Records, mode="serialization")
    defs = {**full.pop("$defs", {}), SweepJson.__name__: full}
    out: Schema = _clean(defs[SweepJson.__name__], defs, {}, {})
    return out


def faults_schema() -> Schema:
    """``bom faults --json``, read off its records (bom/faults/result.py)."""
    full = TypeAdapter(FaultsJson).json_schema(schema_generator=_Records, mode="serialization")
    defs = {**full.pop("$defs", {}), FaultsJson.__name__: full}
    out: Schema = _clean(defs[FaultsJson.__name__], defs, {}, {})
    return out


def output_schema() -> Schema:
    """The five documents: a build, a comparison, a diff, a sweep or a faults report (``$defs/build``,
    ``$defs/compare``, ``$defs/diff``, ``$defs/sweep``, ``$defs/faults``)."""
    sections = record_schemas()
    return {"$schema": DRAFT, "title": "clusterbom output",
            "anyOf": [{"$ref": "#/$defs/build"}, {"$ref": "#/$defs/compare"}, {"$ref": "#/$defs/diff"},
                      {"$ref": "#/$defs/sweep"}, {"$ref": "#/$defs/faults"}],
            "$defs": {"build": sections.pop("build"), "compare": compare_schema(), "diff": diff_schema(),
                      "sweep": sweep_schema(), "faults": faults_schema(), **sections}}


def schema_text() -> str:
    return json.dumps(output_schema(), indent=2, ensure_ascii=False) + "\n"


# --- the reference -------------------------------------------------------------------------

def _kind(s: Schema) -> str:
    if "$ref" in s:
        name = s["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{name})"
    if "anyOf" in s:
        return " or ".join(_kind(x) for x in s["anyOf"])
    if "enum" in s:
        return "one of " + ", ".join(f"`{v}`" for v in s["enum"])
    t = s.get("type")
    if t == "array":
        return f"list of {_kind(s.get('items', {}))}"
    if t == "object" and "properties" not in s:
        values = s.get("additionalProperties")
        return f"mapping to {_kind(values)}" if isinstance(values, dict) else "mapping"
    if t == "object":
        return "object"
    if isinstance(t, list):
        return " or ".join(t)
    return {"integer": "integer", "number": "number", "string": "text", "null": "null"}.get(str(t), str(t))


def _rows(s: Schema, prefix: str = "") -> list[str]:
    out = []
    required = set(s.get("required", []))
    for key, p in s.get("properties", {}).items():
        desc = " ".join(p.get("description", "").split())
        out.append(f"| `{prefix}{key}` | {_kind(p)} | {'yes' if key in required else 'no'} | {desc} |")
        if p.get("type") == "object" and "properties" in p:
            out += _rows(p, f"{prefix}{key}.")
        elif p.get("type") == "array" and "properties" in p.get("items", {}):
            out += _rows(p["items"], f"{prefix}{key}[].")
        elif "anyOf" in p:
            inner = [x for x in p["anyOf"] if x.get("type") == "object" and "properties" in x]
            if inner:
                out += _rows(inner[0], f"{prefix}{key}.")
    return out


def output_reference() -> str:
    """docs/output.md: every key of the build and comparison JSON."""
    s = output_schema()
    parts = ["# Output JSON", "",
             "<!-- Generated by `python -m bom.outputs.schema > docs/output.md`; do not edit. -->", "",
             "`bom build --json` prints (and `bom build` writes as `<name>.json`) a build; `bom compare --json` "
             "prints (and `bom compare` writes as `<name>-compare.json`) a comparison; `bom diff --json` prints "
             "(and `bom diff -o DIR` writes as `<old>-vs-<new>-diff.json`) a diff; `bom sweep --json` prints (and "
             "`bom sweep` writes as `<name>-sweep.json`) a sweep; `bom faults --json` prints (and `bom faults -o DIR` "
             "writes as `<name>-faults.json`) a faults report. `bom schema --output` "
             "prints the JSON Schema (draft 2020-12) of the five; this page is generated from it. Objects are "
             "closed: a key not listed here is not written.", ""]
    for name, d in s["$defs"].items():
        parts += [f"## {name}", "", " ".join(d.get("description", "").split()), "",
                  "| key | type | always | description |", "|---|---|---|---|", *_rows(d), ""]
    return "\n".join(parts)


if __name__ == "__main__":  # python -m bom.outputs.schema > docs/output.md
    import sys

    sys.stdout.write(output_reference())
