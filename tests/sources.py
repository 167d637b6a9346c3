"""The package's sources and their syntax trees, each parsed once per test process: the contract tests
(tests/test_imports.py, tests/test_roles.py) walk every module, and parsing them is most of their time."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "bom"


@functools.cache
def text(path: Path) -> str:
    return path.read_text()


@functools.cache
def tree(path: Path) -> ast.Module:
    return ast.parse(text(path))
