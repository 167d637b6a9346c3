"""A report table's rows written in Python, byte for byte what a template's loop writes.

A table that grows with the cluster (BOM lines, order lines, racks, sites) paid jinja's per-value work on
each cell: an attribute lookup, ``finalize``, ``escape`` and a ``Markup`` each. Here a table's cells are
gathered into one list and cleaned and escaped together, then joined into rows by a format string holding the
template's own literal text. A value is written as ``{{ v }}`` writes it: the HTML report's ``escape(finalize(v))``
(finalize cleans text with :func:`~bom.outputs.writers.common.visible_text`), the Markdown summary's
``str(finalize(v))`` (finalize is :func:`~bom.outputs.writers.common.markdown_text`).
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from bom.outputs.writers.common import markdown_text, visible_text

if TYPE_CHECKING:
    from markupsafe import Markup

#: What joins a table's cells for one escape: escape leaves it as it is, visible_text keeps it; a table whose
#: text holds it already is escaped cell by cell.
_SEP = "\ue000"
#: What stands for a ``Markup`` cell in the joined text (as the separator, kept by both).
_MARK = "\ue001"
#: What visible_text changes (its controls; an escape sequence starts with one of them).
_INVISIBLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def html_value(v: Any) -> str:
    """``{{ v }}`` in the HTML report: text cleaned of controls, then HTML-escaped (``Markup`` as it is)."""
    from markupsafe import escape  # lazy: jinja2's, loaded only for a report

    return str(escape(visible_text(v) if isinstance(v, str) else v))


def html_values(values: Sequence[Any]) -> list[str]:
    """:func:`html_value` of each value, with one escape over them all.

    escape replaces characters one by one, so escaping cells joined by a separator it keeps is escaping
    each; visible_text changes nothing in text without controls, so one search over the joined text
    tells. ``Markup`` (a literal the caller adds) is held by a mark and written as escape writes it."""
    from markupsafe import escape  # lazy: jinja2's, loaded only for a report

    texts = [v if type(v) is str else _text_of(v) for v in values]
    joined = _SEP.join(texts)
    if joined.count(_SEP) != len(texts) - 1 or _INVISIBLE.search(joined) is not None:
        return [html_value(v) for v in values]
    out = str(escape(joined)).split(_SEP) if texts else []
    if _MARK in joined:   # a Markup, or text that is the mark itself: each as html_value writes it
        for i, t in enumerate(out):
            if t == _MARK:
                out[i] = html_value(values[i])
    return out


def _text_of(v: Any) -> str:
    """The text escape reads from ``v`` after finalize, or the mark for ``Markup``."""
    if hasattr(v, "__html__"):
        return _MARK
    t = str(v)
    if isinstance(v, str) and t != v:   # a str subclass whose str() is not its text: finalize cleans the text
        t = visible_text(v)
        return t if type(t) is str else str(t)
    return t


def html_rows(row: str, cells: Sequence[Any]) -> Markup:
    """The rows a loop writes: ``row`` (the loop body's text with a ``{}`` where it writes a value; a brace
    of its own doubled) filled from ``cells`` (every row's values, one row after the other)."""
    from markupsafe import Markup  # lazy: jinja2's, loaded only for a report

    return Markup(_rows(row, html_values(cells)))


class Rows(str):
    """Rows written here: the Markdown summary's finalize keeps them as they are (as escape keeps Markup)."""


def markdown_rows(row: str, cells: Sequence[Any]) -> Rows:
    """As :func:`html_rows` for the Markdown summary: text through markdown_text, anything else its str()."""
    return Rows(_rows(row, [markdown_text(v) if isinstance(v, str) else str(v) for v in cells]))


def _rows(row: str, texts: list[str]) -> str:
    n = sum(1 for _, field, _, _ in string.Formatter().parse(row) if field is not None)
    if not n:
        raise ValueError("a row without a value")
    if len(texts) % n:
        raise ValueError(f"{len(texts)} cells do not fill rows of {n}")
    fill = row.format
    return "".join([fill(*texts[i:i + n]) for i in range(0, len(texts), n)])
