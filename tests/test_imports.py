"""The package's import graph: no cycle, layers, no module using another module's private names, and imports
inside functions only with a reason.

Every import counts: at the top, inside functions and under TYPE_CHECKING (an import hidden in a
function is still a dependency; it only moves the cycle's failure to run time).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests import sources

PKG = Path(__file__).resolve().parents[1] / "bom"


def _modules() -> dict[str, Path]:
    out = {}
    for p in PKG.rglob("*.py"):
        parts = list(p.relative_to(PKG.parent).with_suffix("").parts)
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out


MODULES = _modules()


def _module_of(name: str) -> str:
    """The module a dotted name lives in (``bom.a.b.func`` -> ``bom.a.b``)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name


def _absolute(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def _scan(module: str) -> tuple[set[str], list[str]]:
    """The bom modules ``module`` imports, and each private name it takes from another module."""
    deps: set[str] = set()
    private: list[str] = []
    aliases: dict[str, str] = {}     # local name -> bom module it is bound to
    tree = sources.tree(MODULES[module])
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = _absolute(module, node)
            if not source.startswith("bom"):
                continue
            for a in node.names:
                target = _module_of(f"{source}.{a.name}")
                deps.add(target)
                if target == f"{source}.{a.name}":
                    aliases[a.asname or a.name] = target
                if a.name.startswith("_") and not a.name.startswith("__"):
                    private.append(f"{module} imports {source}.{a.name}")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("bom"):
                    deps.add(_module_of(a.name))
                    if a.asname:
                        aliases[a.asname] = a.name
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                and node.attr.startswith("_") and not node.attr.startswith("__")):
            private.append(f"{module} uses {aliases[node.value.id]}.{node.attr}")
    deps.discard(module)
    return deps, private


def _with_packages(module: str, deps: set[str]) -> set[str]:
    """Importing ``bom.a.b.c`` runs ``bom/a/__init__.py`` and ``bom/a/b/__init__.py`` first: a cycle through
    a package's ``__init__`` is a cycle too."""
    out = set(deps)
    for d in deps:
        parts = d.split(".")
        out |= {".".join(parts[:i]) for i in range(2, len(parts))}
    out.discard(module)
    return {d for d in out if d in MODULES and not module.startswith(d + ".")}


SCANS = {m: _scan(m) for m in MODULES}
GRAPH = {m: _with_packages(m, deps) for m, (deps, _) in SCANS.items()}


def _cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    for root in GRAPH:
        if root in index:
            continue
        work = [(root, iter(sorted(GRAPH[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        x = stack.pop()
                        on.discard(x)
                        comp.append(x)
                        if x == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
            elif w not in index:
                index[w] = low[w] = len(index)
                stack.append(w)
                on.add(w)
                work.append((w, iter(sorted(GRAPH.get(w, ())))))
            elif w in on:
                low[v] = min(low[v], index[w])
    return out


def test_the_scan_sees_imports_inside_functions() -> None:
    # bom.cli imports its writers inside the commands (so `bom size` loads no openpyxl): they count.
    assert "bom.pipeline" in GRAPH["bom.cli"]
    assert len(MODULES) > 60


def test_the_cycle_finder_finds_a_cycle() -> None:
    GRAPH["bom.errors"].add("bom.cli")
    try:
        assert any("bom.errors" in c and "bom.cli" in c for c in _cycles())
    finally:
        GRAPH["bom.errors"].discard("bom.cli")


def test_no_import_cycle_in_the_package() -> None:
    assert _cycles() == []


def test_no_module_uses_another_modules_private_names() -> None:
    assert [p for _, private in SCANS.values() for p in private] == []


def test_stages_do_not_import_the_orchestrator() -> None:
    stages = [m for m in MODULES if m.split(".")[1:2] in (["topology"], ["placement"], ["costing"], ["cableplan"],
                                                           ["model"], ["catalog"], ["links"], ["inputs"])]
    importers = [m for m in stages if GRAPH[m] & {"bom.pipeline", "bom.cli"}]
    assert importers == []


def _private_members() -> dict[str, set[str]]:
    """Private methods and attributes each module's classes define (``def _x`` in a class body)."""
    out: dict[str, set[str]] = {}
    for m, path in MODULES.items():
        for node in ast.walk(sources.tree(path)):
            if isinstance(node, ast.ClassDef):
                out[m] = out.get(m, set()) | {
                    f.name for f in node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and f.name.startswith("_") and not f.name.startswith("__")}
    return out


def _foreign_private_uses() -> list[str]:
    """``obj._method`` where ``obj`` is not ``self``/``cls`` and only another module's class defines it."""
    members = _private_members()
    out = []
    for m, path in MODULES.items():
        mine = members.get(m, set())
        others = set().union(*(v for k, v in members.items() if k != m)) - mine
        for node in ast.walk(sources.tree(path)):
            if (isinstance(node, ast.Attribute) and node.attr in others
                    and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
                out.append(f"{m}:{node.lineno} uses {node.attr}")
    return out


@pytest.mark.slow   # every module's syntax tree: about 1.5 s, too near the fast loop's 2 s on a loaded machine
def test_no_module_calls_another_modules_private_methods() -> None:
    assert _foreign_private_uses() == []


#: The layers, bottom up: a package imports only packages of its own layer or below (the top-level
#: modules errors, units, names, roles and resources are below them all). Values that cross stages live in
#: bom.model; the stages build them; the outputs format them; the pipeline ties the stages together.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("bom", "errors", "units", "names", "roles", "resources"),
    ("inputs", "catalog"),
    ("model",),
    ("topology", "links"),
    ("placement",),
    ("costing", "cableplan"),
    ("rules", "faults"),
    ("diff",),
    ("outputs",),
    ("netbox", "verify"),
    ("pipeline",),
    ("sweep",),
    ("cli", "starter", "launch"),
)
RANK = {pkg: i for i, layer in enumerate(LAYERS) for pkg in layer}


def _package(module: str) -> str:
    """The layer's name of a module: its sub-package, or the top-level module's name."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "bom"


def test_every_package_has_a_layer() -> None:
    assert {_package(m) for m in MODULES} <= set(RANK)


def test_the_layer_contract() -> None:
    """No package imports one of a layer above it (imports inside functions and under TYPE_CHECKING count)."""
    up = sorted(f"{m} -> {d}" for m, deps in GRAPH.items() for d in deps
                if RANK[_package(d)] > RANK[_package(m)])
    assert up == []


def test_the_layer_check_sees_a_violation() -> None:
    GRAPH["bom.model.model"].add("bom.placement.layout")
    try:
        assert not _contract_holds()
    finally:
        GRAPH["bom.model.model"].discard("bom.placement.layout")


def _contract_holds() -> bool:
    return all(RANK[_package(d)] <= RANK[_package(m)] for m, deps in GRAPH.items() for d in deps)


def _function_imports() -> list[tuple[str, int, str, str]]:
    """(module, line, imported module, the comment on or above it) of every import inside a function."""
    out = []
    for module, path in MODULES.items():
        lines = sources.text(path).splitlines()
        for node in ast.walk(sources.tree(path)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for sub in ast.walk(node):
                    if isinstance(sub, (ast.Import, ast.ImportFrom)):
                        name = sub.module if isinstance(sub, ast.ImportFrom) else sub.names[0].name
                        here, k = lines[sub.lineno - 1], sub.lineno - 2
                        while k >= 0 and lines[k].strip().startswith(("from ", "import ")):
                            k -= 1   # an import block under one comment shares its reason
                        above = lines[k].strip() if k >= 0 else ""
                        why = here.partition("#")[2] or (above[1:] if above.startswith("#") else "")
                        out.append((module, sub.lineno, name or "", why.strip()))
    return out


def test_imports_inside_functions_only_where_start_up_needs_them() -> None:
    """The commands (bom/cli) import their stages when they run, so `bom --help` loads none of them (the
    entry point, bom/launch.py, loads the command line itself only to run a command);
    elsewhere an import inside a function is an optional or heavy library, with its reason beside it."""
    bad = [f"{m}:{line} imports {name}" + ("" if why else " without a reason")
           for m, line, name, why in _function_imports()
           if not m.startswith(("bom.cli", "bom.launch")) and (name.startswith("bom") or not why)]
    assert bad == []


def test_a_package_init_counts_as_imported() -> None:
    # bom.outputs.sets imports bom.outputs.writers.registry: bom/outputs/writers/__init__.py runs first.
    assert "bom.outputs.writers" in GRAPH["bom.outputs.sets"]
