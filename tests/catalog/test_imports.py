"""The catalog modules import one another in one direction: rows <- prices, checks <- load."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "bom" / "catalog"


def _imports(path: Path) -> set[str]:
    """Every bom.catalog module a file imports, at the top, inside functions or under TYPE_CHECKING."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("bom.catalog."):
            out.add(node.module.removeprefix("bom.catalog."))
        elif isinstance(node, ast.Import):
            out |= {a.name.removeprefix("bom.catalog.") for a in node.names if a.name.startswith("bom.catalog.")}
    return out


def test_no_import_cycle_in_the_catalog_package() -> None:
    graph = {p.stem: _imports(p) for p in PKG.glob("*.py")}

    def reach(start: str) -> set[str]:
        seen: set[str] = set()
        todo = list(graph.get(start, ()))
        while todo:
            m = todo.pop()
            if m not in seen:
                seen.add(m)
                todo += graph.get(m, ())
        return seen

    assert [m for m in graph if m in reach(m)] == []
    assert graph["rows"] == set()
