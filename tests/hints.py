"""What the hint tests share (tests/test_hints.py): every place the tool raises an error with a hint,
found in its source, and which of them a run raised.

A *site* is a call that makes an error with a ``hint=`` (or a call to a local helper that takes a
``hint``, as the preflight's ``refuse``), named ``path:function:hint`` (the hint's first words, and
``#2``, ``#3`` where a function says the same hint twice): line numbers move with every edit, the
function and the hint do not. A *pass-through* site hands on a hint another site wrote
(``hint=rule.hint``): the run is traced back to that site.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bom import errors
from bom.inputs import validation

ROOT = Path(__file__).resolve().parent.parent
BOM = ROOT / "bom"


@dataclass(frozen=True)
class Site:
    id: str          # path:function:hint words
    path: str        # relative to the repository
    line: int        # of the call (where the frame stands while it runs)
    hint: str        # the hint's source text (an f-string's literal parts)
    passthrough: bool


def _hint_words(node: ast.expr, constants: dict[str, str] | None = None) -> str | None:
    """The hint's literal text (an f-string's literal parts, the placeholders as {}; a module constant's
    text), None when the hint is another object's (a name or attribute: a pass-through)."""
    if isinstance(node, ast.Name) and constants and node.id in constants:
        return constants[node.id]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    if isinstance(node, ast.BinOp):   # "..." + "..."
        left, right = _hint_words(node.left), _hint_words(node.right)
        return None if left is None else left + (right or "{}")
    if isinstance(node, ast.BoolOp):   # why.hint or "..." : the literal is this site's own
        words = [w for v in node.values if (w := _hint_words(v)) is not None]
        return words[0] if words else None
    if isinstance(node, ast.IfExp):
        return _hint_words(node.body) or _hint_words(node.orelse)
    return None


def _helpers(tree: ast.AST) -> dict[str, int]:
    """Local functions taking a ``hint`` parameter: name -> its position."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            names = [a.arg for a in node.args.args]
            if "hint" in names:
                out[node.name] = names.index("hint")
    return out


def sites(paths: list[Path]) -> list[Site]:
    """Every site with a hint in ``paths``, in file order."""
    out: list[Site] = []
    for path in paths:
        tree = ast.parse(path.read_text())
        helpers = _helpers(tree)
        constants = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)   # type: ignore[attr-defined]
                     and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)
                     for t in n.targets if isinstance(t, ast.Name)}
        rel = str(path.relative_to(ROOT))
        seen: dict[str, int] = {}
        for fn in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
            for node in ast.walk(fn):
                if not isinstance(node, ast.Call):
                    continue
                name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
                hint = next((k.value for k in node.keywords if k.arg == "hint"), None)
                if hint is None and name in helpers and len(node.args) > helpers[name]:
                    hint = node.args[helpers[name]]
                if hint is None or _inner(fn, node, tree):
                    continue
                words = _hint_words(hint, constants)
                head = " ".join((words or ast.unparse(hint)).split())
                key = f"{rel}:{fn.name}:{head}"
                seen[key] = seen.get(key, 0) + 1
                out.append(Site(key if seen[key] == 1 else f"{key}#{seen[key]}", rel, node.lineno,
                                words or ast.unparse(hint), words is None))
    return sorted(out, key=lambda s: (s.path, s.line))


def _inner(fn: ast.FunctionDef, node: ast.Call, tree: ast.AST) -> bool:
    """Whether ``node`` belongs to a function nested in ``fn`` (it is found there, not here)."""
    for sub in ast.walk(fn):
        if sub is not fn and isinstance(sub, ast.FunctionDef) and any(n is node for n in ast.walk(sub)):
            return True
    return False


class Recorder:
    """Where each error of a run was made: the file and line of the call that made it."""

    def __init__(self) -> None:
        self.by_line: dict[tuple[str, int], Site] = {}

    def site_of(self, exc: BaseException) -> list[Site]:
        """The sites an error comes from: its own, a MultiError's problems', a pass-through's source."""
        if isinstance(exc, errors.MultiError):
            return [s for p in exc.problems for s in self.site_of(p)]
        chain = getattr(exc, "_origin", ())
        found = [s for at in chain if (s := self.by_line.get(at)) is not None]
        if found and not found[0].passthrough:
            return found[:1]
        # A pass-through: the rule or error it was made from (the validator's RuleError behind pydantic's
        # ValidationError, or the one being handled when it was raised), else the helper's caller.
        inner = getattr(exc, "_from", None) or exc.__context__
        if inner is None or not isinstance(inner, Exception):
            return [s for s in found if not s.passthrough][:1] or found[:1]
        if isinstance(inner, validation.MultiRuleError):
            return [s for p in inner.problems for s in self.site_of(p)]
        if hasattr(inner, "errors") and callable(inner.errors):   # pydantic's ValidationError
            found = [e.get("ctx", {}).get("error") for e in inner.errors()]
            return [s for f in found if isinstance(f, BaseException) for s in self.site_of(f)]
        return self.site_of(inner)


def _caller(depth: int = 3) -> tuple[tuple[str, int], ...]:
    """The call that makes the error (the first frame outside the error classes' own constructors) and the
    frames above it (a helper that takes a hint is called with it there)."""
    frame = sys._getframe(2)
    while frame.f_code.co_name == "__init__" and isinstance(frame.f_locals.get("self"), BaseException):
        frame = frame.f_back  # type: ignore[assignment]
    out = []
    while frame is not None and len(out) < depth:
        name = frame.f_code.co_filename
        out.append((str(Path(name).relative_to(ROOT)) if name.startswith(str(ROOT)) else name, frame.f_lineno))
        frame = frame.f_back  # type: ignore[assignment]
    return tuple(out)


@contextmanager
def recording(all_sites: list[Site]) -> Iterator[Recorder]:
    """Every BomError and RuleError made inside carries ``_origin``, the (path, line) of the call that made it;
    an error :func:`bom.inputs.validation._told_rule` makes from a rule carries the rule (``_from``)."""
    rec = Recorder()
    rec.by_line = {(s.path, s.line): s for s in all_sites}
    saved = errors.BomError.__init__, validation.RuleError.__init__, validation._told_rule

    def bom_init(self: Any, *args: Any, **kw: Any) -> None:
        saved[0](self, *args, **kw)
        self._origin = _caller()

    def rule_init(self: Any, *args: Any, **kw: Any) -> None:
        saved[1](self, *args, **kw)
        self._origin = _caller()

    def told(rule: Any, model_at: Any, src: Any) -> Any:
        e = saved[2](rule, model_at, src)
        e._from = rule
        return e

    errors.BomError.__init__, validation.RuleError.__init__ = bom_init, rule_init  # type: ignore[method-assign]
    validation._told_rule = told
    try:
        yield rec
    finally:
        errors.BomError.__init__, validation.RuleError.__init__, validation._told_rule = saved  # type: ignore[method-assign]


def apply_fix(data: Any, fix: dict[tuple[str | int, ...], Any]) -> Any:
    """``data`` (a scenario's YAML) with each key path set to its value, None removing the key."""
    for keys, value in fix.items():
        path = tuple(getattr(k, "value", k) for k in keys)   # an enum key (FabricRole, Layer) as its YAML word
        node = data
        for part in path[:-1]:
            if isinstance(node, dict):
                node = node.setdefault(part, {})
                if node is None:
                    raise AssertionError(f"{path}: {part} is null in the scenario")
            else:
                node = node[int(part)]
        last = path[-1]
        if value is None:
            if isinstance(node, dict):
                node.pop(last, None)
            else:
                del node[int(last)]
        elif isinstance(node, dict):
            node[last] = value
        else:
            node[int(last)] = value
    return data
