"""openpyxl's worksheet cells written as XML text, byte for byte as openpyxl's own writer writes them.

openpyxl serialises every cell through an element tree (an ``Element`` per cell, its ``<is>``, ``<t>``,
``<f>`` and ``<v>`` children, each walked by et_xmlfile's namespace-aware serialiser): about 15 us a
cell, most of a large BOM workbook's save (the million-GPU campus's 20,000 cells against the 1k build's
7,000: the cells are what grows with the number of sites and parts). :func:`fast_cells` swaps in one
f-string per cell for the cells a BOM workbook holds (numbers, booleans, text, our formulas, empty
styled cells) and hands every other cell (dates, rich text, array formulas, hyperlinks, errors) to
openpyxl's writer. ``tests/outputs/writers/test_sheetxml.py`` holds the two byte-identical.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from xml.etree.ElementTree import _escape_attrib  # type: ignore[attr-defined]  # et_xmlfile's own escaping

import openpyxl.worksheet._writer as sheet_writer  # the module whose per-cell writer is swapped
from openpyxl.compat import safe_string
from openpyxl.utils import get_column_letter

#: openpyxl's own per-cell writer, for the cells :func:`_write_cell` leaves to it.
_OWN = sheet_writer.write_cell
#: openpyxl's own writer of a sheet's rows (``<sheetData>``), for a sheet with comments.
_OWN_ROWS = sheet_writer.WorksheetWriter.write_rows
_INFINITIES = (math.inf, -math.inf)


def _escape(text: str) -> str:
    """ElementTree's escaping of element text (``_escape_cdata``): ``&``, ``<`` and ``>``."""
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    return text


def _text(value: str) -> str:
    """An inline string's ``<t>``: ``xml:space="preserve"`` where openpyxl's ``whitespace`` sets it (text
    with leading or trailing white space that is not all white space)."""
    stripped = value.strip()
    if stripped and stripped != value:
        return f'<is><t xml:space="preserve">{_escape(value)}</t></is>'
    return f"<is><t>{_escape(value)}</t></is>"


def cell_xml(cell: Any, styled: bool) -> str | None:
    """The ``<c>`` element openpyxl writes for ``cell``, or None for a cell left to openpyxl."""
    kind = cell.data_type
    if kind not in "snbf" or cell._hyperlink is not None:
        return None
    return _xml(cell, kind, cell.style_id if styled else None)


def _xml(cell: Any, kind: str, style_id: int | None) -> str | None:
    """:func:`cell_xml` for a cell of kind ``s``, ``n``, ``b`` or ``f`` without a hyperlink, its style's id
    given (None: not styled)."""
    value = cell._value
    head = (f'<c r="{get_column_letter(cell.column)}{cell.row}"' if style_id is None
            else f'<c r="{get_column_letter(cell.column)}{cell.row}" s="{style_id}"')
    if kind == "s":
        if not isinstance(value, str):
            return None   # rich text
        head += ' t="inlineStr"'
    elif kind != "f":
        head += f' t="{kind}"'
    if value is None or value == "":
        return head + " />"
    if kind == "f":
        if not isinstance(value, str):
            return None   # array and data-table formulas
        formula = value[1:]
        return f"{head}><f>{_escape(formula)}</f><v /></c>" if formula else f"{head}><f /><v /></c>"
    if kind == "s":
        return f"{head}>{_text(value)}</c>"
    text = _number(value)
    return f"{head}><v>{_escape(text)}</v></c>" if text else f"{head}><v /></c>"


def _number(value: Any) -> str:
    """openpyxl's ``safe_string`` of a cell's value: a float or int (bool too) as ``%.16g``, NaN and the
    infinities empty; any other value through ``safe_string`` itself."""
    kind = type(value)
    if kind is float:
        return "" if value != value or value in _INFINITIES else f"{value:.16g}"
    if kind is int or kind is bool:
        return f"{value:.16g}"
    return str(safe_string(value))


def _write_cell(xf: Any, worksheet: Any, cell: Any, styled: bool | None = None) -> None:
    xml = cell_xml(cell, bool(styled))
    if xml is None:
        _OWN(xf, worksheet, cell, styled)
    else:
        xf._file(xml)   # et_xmlfile's raw write: the text is the serialised element


def _row_start(row_idx: int, dims: Any) -> str:
    """A ``<row>``'s start tag: its number, then its dimension's attributes as openpyxl adds them."""
    attrs = {"r": f"{row_idx}"}
    attrs.update(dims.get(row_idx, {}))
    return "<row" + "".join(f' {k}="{_escape_attrib(v)}"' for k, v in attrs.items()) + ">"


def _write_rows(writer: Any) -> None:
    """``WorksheetWriter.write_rows`` as text: the ``<sheetData>`` element openpyxl writes, each row's start
    and end tag and its cells written once as a string, not one element-tree call per row and per cell
    (a cell :func:`cell_xml` leaves to openpyxl is written by openpyxl's writer in its place)."""
    ws = writer.ws
    if any(cell._comment is not None for cell in ws._cells.values()):
        _OWN_ROWS(writer)   # the comments are collected while the rows are written
        return
    xf = writer.xf.send(True)
    dims, out = ws.row_dimensions, ["<sheetData>"]
    ids = ws.parent._cell_styles   # each style's id, in the order the cells are written: openpyxl's style_id
    for row_idx, row in writer.rows():
        out.append(_row_start(row_idx, dims))
        for cell in row:
            style = cell._style
            styled = style is not None and any(style)
            if cell._value is None and not styled:
                continue
            kind = cell.data_type
            xml = None
            if kind in "snbf" and cell._hyperlink is None:
                xml = _xml(cell, kind, ids.add(style) if styled else None)
            if xml is None:
                xf._file("".join(out))
                out.clear()
                _OWN(xf, ws, cell, styled)
            else:
                out.append(xml)
        out.append("</row>")
    out.append("</sheetData>")
    xf._file("".join(out))
    writer.xf.send(None)   # control back to the sheet's writer


@contextmanager
def fast_cells() -> Iterator[None]:
    """openpyxl's worksheets saved inside this block write their rows and cells as text (:func:`_write_rows`,
    :func:`cell_xml`)."""
    sheet_writer.write_cell = _write_cell
    sheet_writer.WorksheetWriter.write_rows = _write_rows
    try:
        yield
    finally:
        sheet_writer.write_cell = _OWN
        sheet_writer.WorksheetWriter.write_rows = _OWN_ROWS
