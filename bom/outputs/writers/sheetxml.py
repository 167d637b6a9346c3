"""openpyxl's worksheet cells written as XML text, byte for byte as openpyxl's own writer writes them.

openpyxl serialises every cell through an element tree (an ``Element`` per cell, its ``<is>``, ``<t>``,
``<f>`` and ``<v>`` children, each walked by et_xmlfile's namespace-aware serialiser): about 15 us a
cell, most of a large BOM workbook's save (the million-GPU campus's 20,000 cells against the 1k build's
7,000: the cells are what grows with the number of sites and parts). :func:`fast_cells` swaps in one
f-string per cell for the cells a BOM workbook holds (numbers, booleans, text, our formulas, empty
styled cells; dates put as records) and hands every other cell (a date set through openpyxl, rich text,
array formulas, hyperlinks, errors) to openpyxl's writer.
``tests/outputs/writers/test_sheetxml.py`` holds the two byte-identical.

A sheet's cells are also held as records (:class:`Cells`): ``put_cell`` stores a value, its data type and its
style array as a tuple, not an openpyxl ``Cell`` (an object per cell, about 1 us to make and as much to read
back while writing); whoever asks openpyxl for the cell (``ws.cell``, ``ws["A1"]``, a merge) gets a ``Cell``
made from the record then, and :func:`_write_rows` writes the records that are left as text.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import compress, repeat
from operator import is_not, itemgetter
from typing import Any
from xml.etree.ElementTree import _escape_attrib  # type: ignore[attr-defined]  # et_xmlfile's own escaping

import openpyxl.worksheet._writer as sheet_writer  # the module whose per-cell writer is swapped
from openpyxl.cell.cell import Cell
from openpyxl.compat import safe_string
from openpyxl.drawing.spreadsheet_drawing import SpreadsheetDrawing
from openpyxl.styles.numbers import BUILTIN_FORMATS, BUILTIN_FORMATS_MAX_SIZE
from openpyxl.utils import get_column_letter
from openpyxl.utils.datetime import to_excel
from openpyxl.worksheet.worksheet import Worksheet
from openpyxl.writer.excel import ExcelWriter

#: openpyxl's own per-cell writer, for the cells :func:`_write_cell` leaves to it.
_OWN = sheet_writer.write_cell
#: openpyxl's own writer of a sheet's rows (``<sheetData>``), for a sheet with comments.
_OWN_ROWS = sheet_writer.WorksheetWriter.write_rows
#: openpyxl's own writer of a sheet into the package (through a temporary file).
_OWN_SHEET = ExcelWriter.write_worksheet
#: openpyxl's own bounding range of a sheet's cells (a Python loop over every cell's key).
_OWN_DIMENSION = Worksheet.calculate_dimension
_INFINITIES = (math.inf, -math.inf)
#: A record's ``t`` attribute by its data type, as openpyxl writes it (a formula has none).
_TYPE_ATTR = {"s": ' t="inlineStr"', "n": ' t="n"', "f": "", "b": ' t="b"', "d": ' t="n"'}


class Cells(dict):  # openpyxl's ws._cells: (row, column) -> Cell or record
    """A sheet's ``_cells`` holding records beside openpyxl's cells: ``(value, data type, style array or
    None)``, the value as openpyxl's setter stores it, the style array shared (never changed in place).

    A lookup through ``[]`` or ``get`` (openpyxl's ``_get_cell``, a merge's corner) turns the record into
    the ``Cell`` openpyxl would hold (its style array copied) and keeps that; ``in``, ``len`` and the keys
    (a sheet's dimensions) see both alike. Only :func:`_write_rows` reads the values raw."""

    __slots__ = ("heights", "styles", "ws")

    def __init__(self, ws: Any, cells: dict[tuple[int, int], Any], styles: dict[Any, Any]) -> None:
        super().__init__(cells)
        self.ws = ws
        #: the workbook's resolved styles by what resolves them (``xlsx._Styles.arrays``), at hand for each cell
        self.styles = styles
        #: row heights set by ``xlsx._fit_height`` on rows without a dimension: written as text, with no
        #: openpyxl ``RowDimension`` made and read back per row
        self.heights: dict[int, float] = {}

    def __getitem__(self, key: tuple[int, int]) -> Any:
        got = dict.__getitem__(self, key)
        return self._cell(key, got) if type(got) is tuple else got

    def get(self, key: tuple[int, int], default: Any = None) -> Any:
        got = dict.get(self, key, default)
        return self._cell(key, got) if type(got) is tuple else got

    def _cell(self, key: tuple[int, int], record: tuple[Any, str, Any]) -> Cell:
        value, kind, style = record
        cell = Cell(self.ws, key[0], key[1], style_array=style)
        cell._value, cell.data_type = value, kind
        dict.__setitem__(self, key, cell)
        return cell

    def as_cells(self) -> None:
        """Every record made a ``Cell`` and every height a ``RowDimension``'s (for openpyxl's own writer)."""
        for key, got in list(self.items()):
            if type(got) is tuple:
                self._cell(key, got)
        self.heights_on(every=True)

    def heights_on(self, every: bool = False) -> None:
        """The heights of rows that got a dimension after their height (a row hidden later) set on the
        dimension where it has none, as when the height was set on it; ``every``: every height, as openpyxl's
        own writer reads them."""
        dims = self.ws.row_dimensions
        for row in list(self.heights) if every else self.heights.keys() & dims.keys():
            height = self.heights.pop(row)
            if dims[row].ht is None:
                dims[row].height = height


def records(ws: Any, styles: dict[Any, Any]) -> Cells:
    """``ws``'s cells as :class:`Cells` (made so once, with the cells it holds; ``styles``: the workbook's
    resolved styles, see :attr:`Cells.styles`)."""
    cells = ws._cells
    if type(cells) is not Cells:
        cells = ws._cells = Cells(ws, cells, styles)
    return cells


def value_and_format(ws: Any, row: int, col: int) -> tuple[Any, str]:
    """A cell's value and number format as openpyxl's ``ws.cell(row, col)`` reads them, without making a
    record an openpyxl ``Cell``. A missing cell is made, empty, as ``ws.cell`` makes it: its row is
    written (empty) though the cell is not."""
    got = dict.get(ws._cells, (row, col))
    if got is None:
        ws.cell(row, col)   # openpyxl's own checks and bookkeeping; the cell made stays (unstyled, no value)
        return None, "General"
    if type(got) is not tuple:
        return got.value, got.number_format
    value, _, style = got
    number = style.numFmtId if style is not None else 0
    if number < BUILTIN_FORMATS_MAX_SIZE:   # openpyxl's NumberFormatDescriptor
        return value, BUILTIN_FORMATS.get(number, "General")
    return value, ws.parent._number_formats[number - BUILTIN_FORMATS_MAX_SIZE]


def as_cells(wb: Any) -> None:
    """Every sheet's records made openpyxl cells: a workbook openpyxl's own writer can save."""
    for ws in wb.worksheets:
        if type(ws._cells) is Cells:
            ws._cells.as_cells()


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
    # value.strip() != value, without copying the text: white space at either end (str.strip's and
    # str.isspace's white space are one set); and not all white space
    if (value[0].isspace() or value[-1].isspace()) and not value.isspace():
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
    if kind == "f" and value not in (None, "") and not isinstance(value, str):
        return None   # array and data-table formulas
    return head + _body(value, kind, None)


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


def _height(height: float) -> str:
    """A row's attributes after ``r`` for a row with only a height, as openpyxl writes its ``RowDimension``
    (``ht`` a float through ``safe_string``, then ``customHeight``)."""
    return f' ht="{safe_string(float(height))}" customHeight="1"'


def _start_tags(rows: Any, dims: Any, heights: dict[int, float]) -> dict[int, str]:
    """The start tag of each of ``rows`` that has a dimension or a height (any other row's is ``<row r="n">``);
    a height for a row that has a dimension too is on its dimension (:meth:`Cells.heights_on`)."""
    tags = {row: _row_start(row, dims) for row in dims.keys() & rows}
    tags.update((row, f'<row r="{row}"{_height(h)}>') for row, h in heights.items() if row not in tags)
    return tags


def _write_rows(writer: Any) -> None:
    """``WorksheetWriter.write_rows`` as text: the ``<sheetData>`` element openpyxl writes, each row's start
    and end tag and its cells written once as a string, not one element-tree call per row and per cell
    (a cell :func:`cell_xml` leaves to openpyxl is written by openpyxl's writer in its place)."""
    ws = writer.ws
    cells = ws._cells
    values = list(cells.values())
    # the openpyxl cells among the records (a C-level filter: a record is a tuple and has no comment)
    made = compress(values, map(is_not, map(type, values), repeat(tuple)))
    if any(cell._comment is not None for cell in made):
        if type(cells) is Cells:
            cells.as_cells()
        _OWN_ROWS(writer)   # the comments are collected while the rows are written
        return
    if ws.parent.iso_dates and type(cells) is Cells:
        cells.as_cells()   # dates written as text: openpyxl's writer
    heights: dict[int, float] = {}
    if type(cells) is Cells:
        cells.heights_on()
        heights = cells.heights
    xf = writer.xf.send(True)
    out = ["<sheetData>"]
    items = sorted(cells.items(), key=itemgetter(0))   # by row, then column (the keys alone: distinct)
    dims = ws.row_dimensions
    rows = set(map(itemgetter(0), cells))
    # rows with a dimension or a height and no cells are written empty, in their place (openpyxl's ``rows``)
    bare = sorted((dims.keys() | heights.keys()) - rows, reverse=True)
    tags = _start_tags(rows.union(bare), dims, heights)
    letters = _letters(max(map(itemgetter(1), cells), default=0))
    done = _Records(ws)
    # the loop's lookups bound once: it runs once a cell (20,000 at a million GPUs)
    seen, xml_of, append = done.seen, done.xml, out.append
    seen_get = seen.get
    current, at = 0, ""
    for (row, col), cell in items:
        if row != current:
            if current:
                append("</row>")
            while bare and bare[-1] < row:
                append(tags[bare.pop()] + "</row>")
            append(tags.get(row) or f'<row r="{row}">')
            current, at = row, f'{row}"'
        if type(cell) is tuple:
            value = cell[0]
            if value:   # not 0: -0.0 equals 0 as a key and is written "-0"
                key = (id(cell[2]), cell[1], value)
                xml = seen_get(key)
                if xml is None:
                    xml = seen[key] = xml_of(cell)
            else:
                xml = xml_of(cell)
                if xml is None:   # not styled and no value: not written
                    continue
            append(f'<c r="{letters[col]}{at}{xml}')
            continue
        style = cell._style
        styled = style is not None and any(style)
        if cell._value is None and not styled:
            continue
        kind = cell.data_type
        xml = None
        if kind in "snbf" and cell._hyperlink is None:
            xml = _xml(cell, kind, done.ids.add(style) if styled else None)
        if xml is None:
            xf._file("".join(out))
            out.clear()
            _OWN(xf, ws, cell, styled)
        else:
            append(xml)
    if current:
        out.append("</row>")
    while bare:
        out.append(tags[bare.pop()] + "</row>")
    out.append("</sheetData>")
    xf._file("".join(out))
    writer.xf.send(None)   # control back to the sheet's writer


def _letters(last: int) -> list[str]:
    """Column letters by column number, up to ``last`` (``[0]`` unused)."""
    return ["", *map(get_column_letter, range(1, last + 1))]


class _Records:
    """One sheet's records as written: a record's ``<c>`` after its ``r``, once per style array, type and
    value (a BOM row's formulas, a unit, a category, a format come back in every row)."""

    __slots__ = ("attrs", "epoch", "ids", "seen")

    def __init__(self, ws: Any) -> None:
        self.epoch = ws.parent.epoch
        #: each style's id, in the order the cells are written: openpyxl's style_id
        self.ids = ws.parent._cell_styles
        #: a record's attributes after r, per style array and type
        self.attrs: dict[tuple[int, str], str | None] = {}
        self.seen: dict[tuple[int, str, Any], str | None] = {}

    def xml(self, record: tuple[Any, str, Any]) -> str | None:
        """The record's ``<c>`` after its ``r``; None for a record neither styled nor holding a value."""
        value, kind, style = record
        key = (id(style), kind)
        tail = self.attrs.get(key, "")
        if tail == "":
            tail = self.attrs[key] = _attrs(self.ids, style, kind)
        if tail is None:   # not styled: written when it has a value, without s
            if value is None:
                return None
            tail = _TYPE_ATTR[kind]
        return tail + _body(value, kind, self.epoch)


def _attrs(ids: Any, style: Any, kind: str) -> str | None:
    """A styled record's attributes after ``r`` (its style's id, its type), None for a record not styled."""
    if style is None or not any(style):
        return None
    return f' s="{ids.add(style)}"{_TYPE_ATTR[kind]}'


def _body(value: Any, kind: str, epoch: Any) -> str:
    """A record's ``<c>`` element after its attributes, as :func:`_xml` writes a cell's (a date as openpyxl
    writes it without ISO dates: its serial day from the workbook's epoch)."""
    if value is None or value == "":
        return " />"
    if kind == "d":
        return f"><v>{safe_string(to_excel(value, epoch))}</v></c>"
    if kind == "s":
        return f">{_text(value)}</c>"
    if kind == "f":
        formula = value[1:]
        return f"><f>{_escape(formula)}</f><v /></c>" if formula else "><f /><v /></c>"
    text = _number(value)
    return f"><v>{_escape(text)}</v></c>" if text else "><v /></c>"


def _write_worksheet(self: Any, ws: Any) -> None:
    """``ExcelWriter.write_worksheet`` with the sheet's XML held in memory, not written to a temporary file,
    read back into the package and removed (a file's creation and removal cost more than its bytes)."""
    if self.workbook.write_only:
        _OWN_SHEET(self, ws)
        return
    ws._drawing = SpreadsheetDrawing()
    ws._drawing.charts = ws._charts
    ws._drawing.images = ws._images
    out = io.BytesIO()
    writer = sheet_writer.WorksheetWriter(ws, out)
    writer.write()
    ws._rels = writer._rels
    self._archive.writestr(ws.path[1:], out.getvalue())
    self.manifest.append(ws)


def _dimension(ws: Any) -> str:
    """``Worksheet.calculate_dimension``: the bounding range of the sheet's cells (every key, kept or
    written), its rows and columns found by C-level passes over the keys."""
    cells = ws._cells
    if not cells:
        return "A1:A1"
    cols = list(map(itemgetter(1), cells))
    rows = list(map(itemgetter(0), cells))   # ints compare faster than the keys (tuples)
    return f"{get_column_letter(min(cols))}{min(rows)}:{get_column_letter(max(cols))}{max(rows)}"


@contextmanager
def fast_cells() -> Iterator[None]:
    """openpyxl's worksheets saved inside this block write their rows and cells as text (:func:`_write_rows`,
    :func:`cell_xml`), each into memory (:func:`_write_worksheet`), its dimension found by :func:`_dimension`."""
    sheet_writer.write_cell = _write_cell
    sheet_writer.WorksheetWriter.write_rows = _write_rows
    ExcelWriter.write_worksheet = _write_worksheet
    Worksheet.calculate_dimension = _dimension
    try:
        yield
    finally:
        sheet_writer.write_cell = _OWN
        sheet_writer.WorksheetWriter.write_rows = _OWN_ROWS
        ExcelWriter.write_worksheet = _OWN_SHEET
        Worksheet.calculate_dimension = _OWN_DIMENSION
