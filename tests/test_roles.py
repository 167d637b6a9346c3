"""The names' tables (bom/roles.py) are the only place a fabric role, tier or layer is spelt: code says
FabricRole.COMPUTE, Tier.SCALE_OUT or Layer.LEAF, never "compute", "scale-out" or "leaf" (docstrings and
comments may name them)."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from bom.model.hops import HOPS
from bom.roles import LAYERS, ROLES, SWITCH_LAYERS, TIERS, FabricKind, FabricRole, Layer, Tier
from tests import sources

ROOT = Path(__file__).resolve().parents[1]
VALUES = frozenset(str(m) for enum in (FabricRole, Tier, Layer) for m in enum)
#: The table module.
TABLES = {"bom/roles.py"}
#: Keyword arguments whose strings are the scenario's own spelling, not ours: an error's scenario path
#: (``at=("storage",)``, ``key="storage.count"``: the scenario's keys) and a field's documented example
#: (``examples=``); and openpyxl's ``Alignment(vertical="top")``.
KEYWORDS = {"at", "key", "fix", "examples", "vertical"}   # fix: a key path, as at
_DIMENSION = "a unit's dimension (FLOP/s), bom.units.DIMENSIONS"
_CATALOG_FIELDS = "a catalog row's field name (checks.NOT_PROSE, _UNNAMED)"
_TIER_KEYS = "the tiers' JSON keys (TiersJson): a TypedDict's keys, which the type checker reads only as literals"
#: Words spelt like a role, tier or layer that are something else: (file, word) -> (how often, why).
EXCEPTIONS: dict[tuple[str, str], tuple[int, str]] = {
    ("bom/costing/categories.py", "compute"): (3, "the BOM categories' own table: the GPU systems' category, "
                                                  "its totals group and the lines' compute tier (LineTier)"),
    ("bom/costing/categories.py", "storage"): (1, "the storage appliances' BOM category"),
    ("bom/units.py", "compute"): (2, _DIMENSION),
    ("bom/inputs/validation.py", "compute"): (1, _DIMENSION),
    ("bom/catalog/rows.py", "compute"): (1, _DIMENSION),
    ("bom/cli/__init__.py", "compute"): (1, _DIMENSION),
    ("bom/topology/serving.py", "compute"): (1, "what bounds a decode step: memory, compute or communication"),
    ("bom/model/cluster.py", "ocs"): (1, "the scale-up JSON's field ocs (how many optical circuit switches): a "
                                        "TypedDict key"),
    ("bom/model/totals.py", "scale-up"): (2, _TIER_KEYS),
    ("bom/model/totals.py", "scale-out"): (2, _TIER_KEYS),
    ("bom/model/totals.py", "scale-across"): (2, _TIER_KEYS),
    ("bom/topology/sizing.py", "node"): (2, "a sizing level (package, node, rack, domain)"),
    ("bom/netbox/power.py", "supply"): (1, "NetBox's power feed field supply (AC or DC): a CSV column"),
    ("bom/topology/preflight.py", "node"): (1, "a word of a message (a system or a node)"),
    ("bom/inputs/scenario.py", "storage"): (1, "the storage block's key (storage.count), not the fabric"),
    ("bom/outputs/terminal.py", "amplifier"): (1, "a word the summary counts (\"4 amplifiers\")"),
    ("bom/names.py", "mgmt"): (1, "the management port's name (names.MGMT_PORT)"),
    ("bom/catalog/checks.py", "pdu"): (2, _CATALOG_FIELDS),
    ("bom/catalog/checks.py", "ufm"): (2, _CATALOG_FIELDS),
    ("bom/catalog/checks.py", "mgmt"): (2, _CATALOG_FIELDS),
    ("bom/catalog/checks.py", "storage"): (2, _CATALOG_FIELDS),
    ("bom/topology/endpoints.py", "storage"): (2, "the scenario's storage block, a field of Scenario (a path "
                                                  "to it and model_copy's update)"),
    ("bom/topology/endpoints.py", "ufm"): (1, "the scenario's management.ufm key (a path to it)"),
    ("bom/pipeline/model.py", "dci"): (1, "the Model's field dci, in the dict of a model's parts"),
}


def literals(src: str | ast.Module) -> list[tuple[int, str]]:
    """(line, value) of every string constant that is a role, tier or layer, outside docstrings and
    other bare strings (documentation), ``Literal[...]`` types (a pydantic field's allowed values:
    with enum members its error message would print ``<FabricRole.COMPUTE: 'compute'>``) and the
    keywords above."""
    tree = ast.parse(src) if isinstance(src, str) else src
    skip: set[int] = set()
    found: list[ast.Constant] = []
    for node in ast.walk(tree):   # one walk: this runs over every module's every node
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str) and node.value in VALUES:
                found.append(node)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            skip.add(id(node.value))
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal":
            skip |= {id(n) for n in ast.walk(node.slice)}
        elif isinstance(node, ast.keyword) and node.arg in KEYWORDS:
            skip |= {id(n) for n in ast.walk(node.value)}
    return sorted((n.lineno, n.value) for n in found if id(n) not in skip)


def test_the_scan_sees_a_role_string() -> None:
    src = ('"""A docstring may say compute."""\n'
           'x: Literal["compute"] = f(at=("storage",))\n'
           'y = "leaf" if t == "scale-up" else f"{d[\'oob\']}"\n')
    assert literals(src) == [(3, "leaf"), (3, "oob"), (3, "scale-up")]


def test_no_role_tier_or_layer_string_outside_the_table() -> None:
    found: Counter[tuple[str, str]] = Counter()
    where: dict[tuple[str, str], list[int]] = {}
    for p in sorted((ROOT / "bom").rglob("*.py")):
        rel = p.relative_to(ROOT).as_posix()
        if rel in TABLES:
            continue
        for line, value in literals(sources.tree(p)):
            found[rel, value] += 1
            where.setdefault((rel, value), []).append(line)
    unexpected = {f"{k[0]}:{where[k]} {k[1]!r}": n for k, n in found.items() if n != EXCEPTIONS.get(k, (0, ""))[0]}
    stale = [k for k in EXCEPTIONS if k not in found]
    assert unexpected == {}
    assert stale == []


def test_every_name_has_one_meaning() -> None:
    assert list(TIERS) == list(Tier)
    assert list(LAYERS) == list(Layer)
    assert list(ROLES) == list(FabricRole)
    assert SWITCH_LAYERS == (Layer.LEAF, Layer.SPINE, Layer.CORE)
    # Every hop's ends are layers and its tier a tier (the outputs print their values).
    # Every link tier has a hop; the power cords' hop is the power family's own (no link tier).
    assert {m.tier for m in HOPS.values()} == set(Tier) | {FabricKind.POWER}
    assert {m.lower for m in HOPS.values()} | {m.upper for m in HOPS.values()} <= set(Layer)
