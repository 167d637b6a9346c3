"""Reading a JSON input file as strictly as a YAML one (:mod:`bom.inputs.yamlio`).

``json.loads`` takes what the standard leaves open in the way least safe for a checker: a key given
twice keeps the last value (a neighbour silently dropped), an integer of 5,000 digits raises a bare
ValueError, ``\\udc80`` makes a string no encoding can write, NaN and Infinity are read, and a deep
file ends in RecursionError. :func:`parse_json` refuses each with the file, the line where it can
tell, and what was expected (exit 2).
"""

from __future__ import annotations

import contextlib
import json
import json.decoder
import json.scanner
import re
from collections import Counter
from typing import Any

from bom.errors import BomError

#: Digits an integer may have (as in YAML inputs: a count of 10^30 is already past any cluster).
MAX_DIGITS = 30
#: A lone surrogate's escape: a high one not followed by a low one, or a low one not after a high one.
_LONE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
                   r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}")


class _DuplicateKeyError(ValueError):
    pass


class _RefusedError(ValueError):
    """What the parser's hooks refuse, with the text to find it by in the file."""

    def __init__(self, message: str, needle: str) -> None:
        super().__init__(message)
        self.needle = needle


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    d = dict(pairs)
    if len(d) != len(pairs):
        raise _DuplicateKeyError
    return d


def _int(text: str) -> int:
    if len(text) > MAX_DIGITS + 1 and len(text.lstrip("-")) > MAX_DIGITS:
        raise _RefusedError(f"an integer of {len(text.lstrip('-')):,} digits (at most {MAX_DIGITS} are read)", text)
    return int(text)


def _constant(name: str) -> Any:
    raise _RefusedError(f"{name}, which JSON does not have (a number is finite)", name)


def _line(text: str, at: int) -> int:
    return text.count("\n", 0, at) + 1


def parse_json(text: str, where: str, hint: str) -> Any:
    """The JSON document ``text`` of the file ``where``; exit 2 naming the file and line on what it refuses."""
    try:
        doc = json.loads(text, object_pairs_hook=_pairs, parse_int=_int, parse_constant=_constant)
    except json.JSONDecodeError as exc:
        raise BomError(f"line {exc.lineno}: is not complete JSON (column {exc.colno}: {exc.msg})", where=where,
                       hint=hint) from None
    except _DuplicateKeyError:
        line, key = _duplicate(text)
        raise BomError(f"line {line}: an object gives the key {key!r} twice (JSON keeps one of them and drops "
                       "the other without a word)", where=where, hint=hint) from None
    except _RefusedError as exc:
        at = text.find(exc.needle)
        raise BomError(f"line {_line(text, max(0, at))}: holds {exc}", where=where, hint=hint) from None
    except RecursionError:
        raise BomError("nests lists and objects too deeply to read (is it the file it should be?)", where=where,
                       hint=hint) from None
    if "\\u" in text:
        lone = _LONE.search(text)
        if lone is not None:
            raise BomError(f"line {_line(text, lone.start())}: holds {lone.group()}, half of a character (a "
                           "lone UTF-16 surrogate) that no text can hold", where=where, hint=hint)
    return doc


def _duplicate(text: str) -> tuple[int, str]:
    """The line of the first object that gives a key twice, and the key: the file parsed again by the
    pure-Python scanner, which tells where each object starts (only once the fast parse found one)."""
    found: list[tuple[int, str]] = []

    def parse_object(s_and_end: tuple[str, int], strict: bool, scan_once: Any, object_hook: Any,
                     object_pairs_hook: Any, memo: Any = None) -> tuple[Any, int]:
        # JSONObject and py_make_scanner are the json package's own, untyped in typeshed
        pairs, end = json.decoder.JSONObject(  # type: ignore[attr-defined]
            s_and_end, strict, scan_once, None, list, memo)
        twice = [k for k, n in Counter(k for k, _ in pairs).items() if n > 1]
        if twice and not found:
            found.append((_line(s_and_end[0], s_and_end[1]), twice[0]))
        return dict(pairs), end

    decoder = json.JSONDecoder()
    decoder.parse_object = parse_object   # type: ignore[attr-defined]  # the scanner calls it
    decoder.scan_once = json.scanner.py_make_scanner(decoder)   # type: ignore[attr-defined]  # pure Python
    with contextlib.suppress(ValueError, RecursionError):
        decoder.decode(text)
    return found[0] if found else (0, "?")
