"""One error hierarchy: the CLI turns every BomError into a message and exit code 2."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote, unquote

#: A fix: scenario key path (as ``BomError.at``) -> the value to set there; None removes the key.
Fix = Mapping[tuple[str | int, ...], Any]


class BomError(Exception):
    """Bad input or an impossible request, told in terms the user can act on.

    ``where`` is "file:line" (or just "file"), ``key`` the dotted key path. A stage that finds the
    error in a scenario's value names its path in ``at`` (or only its ``key``) and leaves ``where``
    to :func:`bom.inputs.validation.located`, which knows the file and its lines: the stages take no
    source locations.

    ``fix`` is the ``hint``'s change to the scenario in a form a tool can apply (key path -> value, None
    removing the key), given where the hint is one such change: the hint says it in words, the fix the
    same change as data (``tests/test_hints.py`` applies every one and builds the result).
    """

    def __init__(self, message: str, *, where: str | None = None, key: str | None = None,
                 hint: str | None = None, at: tuple[str | int, ...] | None = None, fix: Fix | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.where = where
        self.key = key
        self.hint = hint
        self.at = at
        self.fix = fix

    def __str__(self) -> str:
        return redact(_told(self, self.where))


#: Secrets of this run (the NetBox token, a password in --url): never printed, logged or written.
_SECRETS: set[str] = set()
#: What stands in for a secret.
REDACTED = "***"


def secret(text: str) -> None:
    """Remember ``text`` as a secret: :func:`redact` removes it (and its URL-encoded form) from now on."""
    for form in (text, quote(text, safe=""), unquote(text)):
        if len(form) >= 4:   # a shorter "secret" would blank out ordinary words
            _SECRETS.add(form)


def redact(text: str) -> str:
    """``text`` without any secret of this run (longest first, so a part never leaves the rest)."""
    if not _SECRETS:
        return text
    for s in sorted(_SECRETS, key=len, reverse=True):
        if s in text:
            text = text.replace(s, REDACTED)
    return text


def _sentence(text: str) -> str:
    """Every message ends as a sentence does (the CLI prints it as one paragraph)."""
    text = text.rstrip()
    return text if text.endswith((".", "?", "!")) else text + "."


class QuantityError(BomError, ValueError):
    """A quantity string that is not a number with a unit of the expected dimension."""


class CatalogError(BomError):
    """A catalog file or row that does not validate, or an unknown id."""


class ScenarioError(BomError):
    """A scenario file that does not validate."""


class LimitError(BomError):
    """A request past what the parts or the topology can build."""


class RuleError(BomError):
    """A design that breaks an error-severity design rule (bom/rules): built, but not buildable."""


class MultiError(BomError):
    """Several problems found in one look (:mod:`bom.topology.preflight`), each with its own key, place and
    hint, so one run names every fix. It takes the first one's key and path; ``problems`` holds them all."""

    def __init__(self, problems: list[BomError]) -> None:
        self.problems = problems
        first = problems[0]
        # The message leaves out the places, as a comparison's note quotes it; str() gives each its own.
        super().__init__(_numbered([_told(e, None) for e in problems]), key=first.key, at=first.at)
        # Every problem's fix at once, where each has one: one run, every change.
        if all(e.fix for e in problems):
            self.fix = {k: v for e in problems for k, v in (e.fix or {}).items()}

    def __str__(self) -> str:
        return redact(_numbered([_told(e, e.where) for e in self.problems]))


def _told(e: BomError, where: str | None) -> str:
    """``e`` as a sentence, its hint after it: "where: key: message. Hint." (where only if given)."""
    head = ": ".join(p for p in (where, e.key) if p)
    text = _sentence(f"{head}: {e.message}" if head else e.message)
    return _sentence(f"{text} {e.hint}") if e.hint else text


def _numbered(told: list[str]) -> str:
    return f"{len(told)} problems: " + " ".join(f"({i}) {t}" for i, t in enumerate(told, 1))


class MultiLimitError(MultiError, LimitError):
    """Several problems, every one a limit of the parts or the topology (a comparison leaves a generation out)."""


def one_error(problems: list[BomError]) -> BomError:
    """The error to raise for ``problems`` (at least one): a lone problem as it is, several as one."""
    if len(problems) == 1:
        return problems[0]
    return MultiLimitError(problems) if all(isinstance(e, LimitError) for e in problems) else MultiError(problems)


@contextmanager
def keyed(at: tuple[str | int, ...] | None, key: str | None = None, *, only: type[BomError] = BomError,
          relocate: bool = False, below: tuple[str, ...] = ()) -> Iterator[None]:
    """Errors of type ``only`` raised inside name where in the scenario they come from: the path ``at``
    and, where given, the dotted ``key``, unless the error names its own. ``relocate``: the path is
    ``at`` whatever the error said (a catalog lookup's file and line are not the scenario's; the
    scenario's line is found from ``at``). ``below``: keys an error may name relative to ``at`` (the
    planner knows a fabric's ``layers``, not which fabric it plans: ``fabrics.compute.layers``). ``at``
    None: a key only (a command-line option's). The one place a stage's error gets its scenario key."""
    try:
        yield
    except only as exc:
        if relocate:
            exc.where, exc.at = None, at
        elif exc.key is not None and exc.key in below and at is not None:
            exc.at, exc.key = (*at, exc.key), f"{key}.{exc.key}" if key is not None else exc.key
            if exc.fix:   # relative as its key: the planner's layers is this fabric's
                exc.fix = {(*at, *path): value for path, value in exc.fix.items()}
        else:
            exc.at = exc.at or at
        if key is not None:
            exc.key = exc.key or key
        raise


def stdout_closed() -> None:
    """Point stdout at /dev/null so that the interpreter's last flush cannot fail again (the reader of
    a pipe went away: ``bom ... | head``)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
