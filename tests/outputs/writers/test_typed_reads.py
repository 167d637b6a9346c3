"""The report, the summary, the diagram and the comparison HTML read the typed objects, never
their JSON: a figure the JSON and a document both show has one computation (a property or method
that ``to_json`` calls too). Only the JSON writers serialise."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bom.resources import data_dir

WRITERS = Path(__file__).resolve().parents[3] / "bom" / "outputs" / "writers"
#: The writers of documents, and the JSON writers among their functions (the only callers of to_json).
MODULES = {"documents.py": {"write_json"}, "diagram.py": set(), "compare_text.py": {"write_compare_json"}}
TEMPLATES = ("report.html.j2", "summary.md.j2", "compare.html.j2")


def to_json_callers(source: str) -> list[str]:
    """The function (or ``<module>``) around each ``.to_json(...)`` call, outermost function named.

    >>> to_json_callers("def f(r):\\n    def g():\\n        return r.to_json()\\n    return g\\nx = y.to_json()")
    ['f', '<module>']
    """
    tree = ast.parse(source)
    out = []
    for node in tree.body:
        name = node.name if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else "<module>"
        out += [name for call in ast.walk(node) if isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute) and call.func.attr == "to_json"]
    return out


@pytest.mark.parametrize("module", sorted(MODULES))
def test_document_writers_do_not_read_the_json(module):
    callers = to_json_callers((WRITERS / module).read_text())
    assert [c for c in callers if c not in MODULES[module]] == []


@pytest.mark.parametrize("template", TEMPLATES)
def test_document_templates_do_not_read_the_json(template):
    assert "to_json" not in (data_dir("templates") / template).read_text()
