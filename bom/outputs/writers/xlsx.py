"""The Excel BOM and TCO workbook: every total a live formula over named inputs and the BOM table.

Sheets: Summary, Inputs (every assumption a named cell in the input style, validated), BOM (an
Excel table with a totals row; every formula that sums it uses structured references such as
``BOM[Extended price]``, so a row a person adds inside the table is counted everywhere), Order
(one line per part number: installed, per site, spares, total, price and its quote, lead time, flags),
Links, Tiers, TCO (capex by asset class, opex, capital charge, NPV, cost per GPU-hour and per
PFLOP-hour, the job's cost, what the TCO leaves out), Schedule (each site's earliest in-service date
from the order date and the Order sheet's lead times), Sensitivity (the model rebuilt with each
input moved, and a tornado chart) and Checks
(the design rules run on the model: each rule's violations, the first ones with both ends and what
to change).
LibreOffice and Excel both evaluate every construct used here (checked by the tests).
"""

from __future__ import annotations

import datetime as dt
import functools
import gc
import io
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from itertools import repeat
from operator import itemgetter
from typing import Any

from openpyxl import Workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.chart import BarChart, Reference
from openpyxl.formatting.rule import FormulaRule
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.styles.cell_style import StyleArray
from openpyxl.styles.numbers import BUILTIN_FORMATS_MAX_SIZE, BUILTIN_FORMATS_REVERSE, FORMAT_DATE_YYYYMMDD2
from openpyxl.utils import get_column_letter
from openpyxl.workbook.defined_name import RESERVED, DefinedName
from openpyxl.workbook.properties import CalcProperties
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.table import Table, TableStyleInfo
from openpyxl.worksheet.worksheet import Worksheet
from openpyxl.writer.excel import ExcelWriter
from openpyxl.xml.functions import Element  # openpyxl's own element (lxml's when it uses lxml)

from bom.catalog.media import End
from bom.costing.categories import CATEGORIES, NOT_NETWORK, OPTICS, Category, LineTier, asset_class
from bom.costing.lines import Line
from bom.costing.order import ROUNDING, SPARES
from bom.costing.report import Report
from bom.costing.tco import CLASSES, NOT_INCLUDED, SENSITIVITY
from bom.costing.uncertainty import FX, LEAD_TIME_SLIP, SPREADS, UTILISATION, Range
from bom.outputs.writers.common import (
    CELL_MAX,
    Formula,
    ReproducibleZip,
    cell_text,
    is_formula_like,
    price_ranges,
    range_source,
)
from bom.outputs.writers.sheetxml import Cells, fast_cells, records, value_and_format
from bom.roles import TIERS as LINK_TIERS
from bom.roles import FabricRole, Tier
from bom.topology.endpoints import storage_defaults
from bom.units import magnitude

USD = '#,##0.00 "USD"'
USD0 = '#,##0 "USD"'
USD4 = '0.0000 "USD"'
WATT = '#,##0.0 "W"'
WATT0 = '#,##0 "W"'
KW = '#,##0.0 "kW"'
COUNT = "#,##0"
SHARE = "0.0%"
DATE = "yyyy-mm-dd"
HEAD = Font(bold=True, color="FFFFFF")
FILL = PatternFill("solid", fgColor="305496")
WARN = Font(bold=True, color="C00000")
WRAP = Alignment(wrap_text=True, vertical="top")
TOP = Alignment(vertical="top")
#: A header cell's alignment (header_row) and a timeline's week (turned, in a narrow column).
HEAD_ALIGN = Alignment(wrap_text=True, vertical="center")
ROTATED = Alignment(text_rotation=90)
#: The tiers BOM lines stand in, the GPU systems first (the workbook's Tiers sheet and power chart).
TIERS = (LineTier.COMPUTE, *LINK_TIERS)
BOM_TABLE = "BOM"
ORDER_TABLE = "Orders"
#: The Order sheet's unit price says what it is: its extended price (every BOM row of the part) over the units.
UNIT_PRICE = "Unit price (extended / total)"


class _Styles:
    """One workbook's cell styles, each distinct combination (number format, quote prefix, alignment, font,
    fill) resolved once to openpyxl's style array, then copied into each cell that takes it.

    openpyxl's per-cell descriptors look every font, fill and alignment up in the workbook's lists by
    value: a hash of every field of the object, its colours' too, per cell (a third of the workbook's
    time at 1M GPUs). The objects are keyed here by identity and kept alive beside their array, so an
    id is never reused while the workbook is built; equal objects made apart resolve to the same entries
    of the workbook's lists, added in the same order as the descriptors add them (the first cell that
    takes them), so the file's bytes are the descriptors'."""

    def __init__(self) -> None:
        self.arrays: dict[tuple[str | None, bool, int, int, int], tuple[StyleArray, tuple[Any, ...]]] = {}
        #: the arrays of a number format and an alignment alone (no quote, font or fill: most of a sheet's
        #: rows), by the format and the alignment's identity (the alignment kept alive beside it)
        self.plain: dict[tuple[str | None, int], tuple[StyleArray, Alignment | None]] = {}

    def array(self, wb: Workbook, fmt: str | None, quote: bool, align: Alignment | None, font: Font | None,
              fill: PatternFill | None) -> StyleArray:
        key = (fmt, quote, id(align), id(font), id(fill))
        got = self.arrays.get(key)
        if got is None:
            got = self.arrays[key] = (_resolve(wb, fmt, quote, align, font, fill), (align, font, fill))
        return got[0]


def _resolve(wb: Workbook, fmt: str | None, quote: bool, align: Alignment | None, font: Font | None,
             fill: PatternFill | None) -> StyleArray:
    """The array openpyxl's descriptors make (``styleable.py``: StyleDescriptor, NumberFormatDescriptor)."""
    style = StyleArray()
    if quote:
        style.quotePrefix = 1
    if fmt:
        builtin = BUILTIN_FORMATS_REVERSE.get(fmt)
        style.numFmtId = builtin if builtin is not None else (
            wb._number_formats.add(fmt) + BUILTIN_FORMATS_MAX_SIZE)
    if align is not None:
        style.alignmentId = wb._alignments.add(align)
    if font is not None:
        style.fontId = wb._fonts.add(font)
    if fill is not None:
        style.fillId = wb._fills.add(fill)
    return style


#: The workbook attribute that holds its styles: they live and go with it (a weak map's callbacks ran in
#: the collector, where a Ctrl-C's KeyboardInterrupt was "ignored", and so lost).
_STYLES = "_clusterbom_styles"


def _styles(wb: Workbook) -> _Styles:
    got: _Styles | None = getattr(wb, _STYLES, None)
    if got is None:
        got = _Styles()
        setattr(wb, _STYLES, got)
    return got


def put_cell(ws: Worksheet, row: int, col: int, value: Any, fmt: str | None = None, *,
             align: Alignment | None = None, font: Font | None = None, fill: PatternFill | None = None) -> None:
    """Write ``value``: a :class:`Formula` as a formula, every other text as text, never a formula; with the
    number format, alignment, font and fill given (the cell's style, once per distinct combination).

    A new cell of text, a number, a formula or nothing is stored as a record (``sheetxml.Cells``: its value,
    type and shared style array), not an openpyxl ``Cell``; any other value, or a cell already there, goes
    through :func:`_put_on_cell`."""
    cells = ws._cells
    if type(cells) is not Cells:
        cells = records(ws, _styles(ws.parent).arrays)
    key = (row, col)
    quote = False
    kind = ""
    t = type(value)
    if t is float or t is int or value is None:   # not bool, not a subclass: the setter's number cell
        text, kind = value, "n"
    elif t is str or (t is not Formula and isinstance(value, str)):
        # What openpyxl's value setter stores, without its check of the text: cell_text made it legal and
        # capped it (the setter's own check was a regular expression over every text cell); a string cell even
        # when it starts with "=", quoted so that it stays text when someone edits it in Excel.
        text, quote = _text_of(value)
        kind = "s"
    elif isinstance(value, Formula):
        text = "=" + value
        if 1 < len(text) <= CELL_MAX and _legal(text):
            kind = "f"
    elif t is dt.date and not ws._parent.iso_dates:
        # the setter's date cell: its format set to the date's own first (added to the workbook's formats
        # then, as the setter adds it), then the format given over it
        text, kind = value, "d"
        ws._parent._number_formats.add(DATE_OF_SETTER)
        fmt = fmt or DATE_OF_SETTER
    if not kind or key in cells or not 0 < row < 1048577 or col < 1:
        _put_on_cell(ws, row, col, value, fmt, align, font, fill)
        return
    style = None
    if quote or fmt or align is not None or font is not None or fill is not None:
        got = cells.styles.get((fmt, quote, id(align), id(font), id(fill)))
        style = got[0] if got is not None else _styles(ws._parent).array(ws._parent, fmt, quote, align, font, fill)
    cells[key] = (text, kind, style)
    if row > ws._current_row:   # what openpyxl's _add_cell keeps
        ws._current_row = row


def _legal(formula: str) -> bool:
    """No character openpyxl's setter refuses (``ILLEGAL_CHARACTERS_RE``: control characters): a printable
    text has none, found without the regular expression (most formulas)."""
    return formula.isprintable() or not ILLEGAL_CHARACTERS_RE.search(formula)


@functools.lru_cache(maxsize=8192)
def _text_of(value: str) -> tuple[str, bool]:
    """A text cell's text and whether it takes the quote prefix, once per distinct text (a category, a unit,
    a source come back in every line)."""
    text = cell_text(value)
    return text, is_formula_like(text)


def _put_on_cell(ws: Worksheet, row: int, col: int, value: Any, fmt: str | None, align: Alignment | None,
                 font: Font | None, fill: PatternFill | None) -> None:
    """:func:`put_cell` on an openpyxl ``Cell``: a date, a bool, a formula openpyxl refuses, a cell written
    or styled before."""
    if not 0 < row < 1048577 or col < 1:
        ws.cell(row=row, column=col)   # raises openpyxl's own error
    cell = ws.cell(row=row, column=col)
    quote = False
    if isinstance(value, Formula):
        text = "=" + value
        if len(text) > 1 and len(text) <= CELL_MAX and not ILLEGAL_CHARACTERS_RE.search(text):
            cell._value, cell.data_type = text, "f"   # what the setter stores for a formula it accepts
        else:
            cell.value = text
    elif isinstance(value, str):
        text, quote = _text_of(value)
        cell._value = text
        cell.data_type = "s"
    elif type(value) in (int, float):
        cell._value, cell.data_type = value, "n"
    else:
        cell.value = value
    if quote or fmt or align is not None or font is not None or fill is not None:
        wb = ws.parent
        given = _styles(wb).array(wb, fmt, quote, align, font, fill)
        style = cell._style
        if style is None or not any(style):
            cell._style = StyleArray(given)
        else:   # styled before (a date's format): the fields given change in place, as the descriptors do
            for field, wanted in ((_QUOTE, quote), (_NUMBER_FORMAT, bool(fmt)), (_ALIGNMENT, align is not None),
                                  (_FONT, font is not None), (_FILL, fill is not None)):
                if wanted:
                    style[field] = given[field]


#: The number format openpyxl's value setter gives a date (``cell.py``: TIME_FORMATS).
DATE_OF_SETTER = FORMAT_DATE_YYYYMMDD2
#: Fields of openpyxl's style array (``StyleArray``: fontId, fillId, borderId, numFmtId, protectionId,
#: alignmentId, pivotButton, quotePrefix, xfId).
_FONT, _FILL, _NUMBER_FORMAT, _ALIGNMENT, _QUOTE = 0, 1, 3, 5, 7


def fx(formula: str) -> Formula:
    """One of our own formulas (with or without its leading "="): the only way to make one."""
    return Formula(formula.removeprefix("="))


def _date(iso: str | None) -> dt.date | None:
    try:
        return dt.date.fromisoformat(iso) if iso else None
    except ValueError:
        return None


def header_row(ws: Worksheet, names: Sequence[str], widths: Sequence[int], top: int = 1) -> None:
    for i, (name, width) in enumerate(zip(names, widths, strict=True), start=1):
        put_cell(ws, top, i, name, align=HEAD_ALIGN, font=HEAD, fill=FILL)
        ws.column_dimensions[_letter(i)].width = width
    ws.row_dimensions[top].height = 30   # two lines: wrapped headers are not cut on paper
    ws.freeze_panes = f"A{top + 1}"
    ws.print_title_rows = f"{top}:{top}"
    paper_setup(ws)


def head_cells(ws: Worksheet, row: int, names: Sequence[str]) -> None:
    """A table's header cells from column A in ``row``, for a table below a sheet's first (no widths, no
    frozen pane: :func:`header_row` is the sheet's own header)."""
    for i, name in enumerate(names, start=1):
        put_cell(ws, row, i, name, font=HEAD, fill=FILL)


def put_row(ws: Worksheet, row: int, values: Sequence[Any], formats: Mapping[int, str]) -> None:
    """``values`` from column A in ``row``, each with its column's number format (columns from 1)."""
    put_values(ws, row, values, [formats.get(c) for c in range(1, len(values) + 1)])


def put_values(ws: Worksheet, row: int, values: Sequence[Any], formats: Sequence[str | None],
               aligns: Sequence[Alignment | None] | None = None, columns: Sequence[int] | None = None) -> None:
    """:func:`put_cell` of each of ``values`` in ``row``, in the order given (the order a new style is first
    met decides its place in the workbook's lists), at the column at its place in ``columns`` (default from
    A on), with the number format and the alignment at its place in ``formats`` and ``aligns``: the records
    stored in one loop (a sheet's rows are most of a large workbook's cells). A value :func:`put_cell` does
    not store as a record, or a cell already there, goes through it."""
    cells = ws._cells
    if type(cells) is not Cells:
        cells = records(ws, _styles(ws.parent).arrays)
    places = zip(columns or range(1, len(values) + 1), values, formats, aligns or repeat(None), strict=False)
    if not 0 < row < 1048577 or (columns is not None and min(columns, default=1) < 1):
        for col_no, v, fmt, align in places:
            put_cell(ws, row, col_no, v, fmt, align=align)   # openpyxl's own error
        return
    wb = ws._parent
    known = _styles(wb)
    plain = known.plain
    # the loop's lookups bound once: it runs once a cell
    plain_get, store, text_of = plain.get, cells.setdefault, _text_of
    iso_dates = wb.iso_dates
    for col_no, v, fmt, align in places:
        t = type(v)
        shown = fmt   # the format the record takes (a date's, when none is given)
        if t is float or t is int or v is None:
            text, kind, quote = v, "n", False
        elif t is str:
            text, quote = text_of(v)
            kind = "s"
        elif t is Formula:
            if not (0 < len(v) < CELL_MAX and _legal(v)):
                put_cell(ws, row, col_no, v, fmt, align=align)
                continue
            text, kind, quote = "=" + v, "f", False   # "=" + v: 1 < len <= CELL_MAX, as put_cell checks it
        elif isinstance(v, str):
            # an enum (a str subclass): cell_text keeps only its text, so its plain text's entry is its own (an
            # enum's hash is a Python call, its text's is kept)
            text, quote = text_of(str.__str__(v))
            kind = "s"
        elif t is dt.date and not iso_dates:
            # put_cell's date record: the setter's date format added to the workbook's first, as it adds it
            text, kind, quote = v, "d", False
            wb._number_formats.add(DATE_OF_SETTER)
            shown = fmt or DATE_OF_SETTER
        else:
            put_cell(ws, row, col_no, v, fmt, align=align)
            continue
        if quote:
            style = known.array(wb, shown, quote, align, None, None)
        elif shown or align is not None:
            got = plain_get((shown, id(align)))
            if got is None:
                got = plain[shown, id(align)] = (known.array(wb, shown, quote, align, None, None), align)
            style = got[0]
        else:
            style = None
        record = (text, kind, style)
        if store((row, col_no), record) is not record:   # a cell there before: through put_cell
            put_cell(ws, row, col_no, v, fmt, align=align)
    if values and row > ws._current_row:   # what openpyxl's _add_cell keeps
        ws._current_row = row


def paper_setup(ws: Worksheet, title: str | None = None) -> None:
    """Landscape, fit to one page wide, header with the scenario's name, footer with the page."""
    ws.page_setup.orientation = "landscape"
    ws.page_setup.paperSize = ws.PAPERSIZE_A4
    ws.page_setup.fitToWidth = 1
    ws.page_setup.fitToHeight = 0
    ws.sheet_properties.pageSetUpPr.fitToPage = True
    ws.print_options.gridLines = False
    ws.page_margins.left = ws.page_margins.right = 0.4
    ws.page_margins.top = ws.page_margins.bottom = 0.75
    ws.page_margins.header = ws.page_margins.footer = 0.3
    if title is not None:
        ws.oddHeader.left.text = f"clusterbom: {title}"
        ws.oddHeader.right.text = "&A"
        ws.oddFooter.left.text = "Estimates are marked; see Inputs for sources"
        ws.oddFooter.right.text = "Page &P of &N"


def _fit_height(ws: Worksheet, row: int, texts: dict[int, str]) -> None:
    """Row height for wrapped text (LibreOffice does not grow rows an openpyxl file leaves unsized)."""
    _fit_lines(ws, row, [(text, _chars(ws, c)) for c, text in texts.items()])


def _chars(ws: Worksheet, col: int) -> int:
    """The characters a line of column ``col`` holds: ~1.1 per unit of its width, broken at words as the
    spreadsheet breaks them (a narrow column loses the end of most lines: a count by characters alone came
    out a line short). A table's rows take it once per column (:func:`_fit_lines`)."""
    letter = _letter(col)
    # the dimension as it is (a lookup by [] binds it again, through openpyxl's descriptors)
    dim = ws.column_dimensions.get(letter) or ws.column_dimensions[letter]
    return max(1, int((dim.width or 10) * 1.1))


def _fit_lines(ws: Worksheet, row: int, texts: Iterable[tuple[str, int]]) -> None:
    """:func:`_fit_height` of texts with their columns' :func:`_chars` found before."""
    lines = 1
    for text, chars in texts:
        got = _lines(text, chars)
        if got > lines:
            lines = got
    _set_height(ws, row, 14 * min(lines, 6))


def _set_height(ws: Worksheet, row: int, height: float) -> None:
    """``ws.row_dimensions[row].height = height``, kept as a number beside the sheet's records where the row
    has no dimension yet (``sheetxml.Cells.heights``: an openpyxl ``RowDimension`` per row costs more to
    make and to read back than its text)."""
    cells = ws._cells
    if type(cells) is Cells and row not in ws.row_dimensions:
        cells.heights[row] = height
    else:
        ws.row_dimensions[row].height = height


def _lines(text: str, width: int) -> int:
    """``len(textwrap.wrap(text, width, break_long_words=True))``: a text that fits (no tab, which expands,
    and something besides white space) is one line without wrapping it (most part numbers, categories,
    flags and ids)."""
    if len(text) <= width and "\t" not in text and not text.isspace() and text:
        return 1
    return _wrapped_lines(text, width)


@functools.lru_cache(maxsize=4096)
def _wrapped_lines(text: str, width: int) -> int:
    """Lines of ``text`` wrapped at ``width`` characters (``len(textwrap.wrap(text, width,
    break_long_words=True))``, ``width`` >= 1); once per text and width (a part's description comes back in
    every site's BOM and order lines).

    textwrap's own greedy fill (``TextWrapper._wrap_chunks`` and ``_handle_long_word``, their defaults:
    whitespace dropped at the ends of lines, long words broken, at a hyphen where one fits) counting the
    lines instead of making them: no wrapper object, no line strings (textwrap took 7-13 ms of a
    million-GPU workbook's 296 texts)."""
    if width < 1:
        return len(textwrap.wrap(text, width, break_long_words=True))   # textwrap's own error
    chunks = [c for c in _WRAP.wordsep_re.split(text.expandtabs(8).translate(_WRAP.unicode_whitespace_trans)) if c]
    chunks.reverse()
    lines = 0
    while chunks:
        if lines and chunks[-1].strip() == "":
            del chunks[-1]
        used = taken = 0
        last = ""
        while chunks and used + len(chunks[-1]) <= width:
            last = chunks.pop()
            used += len(last)
            taken += 1
        if chunks and len(chunks[-1]) > width:   # a word longer than a line: broken where the line ends
            chunk = chunks[-1]
            end = width - used
            hyphen = chunk.rfind("-", 0, end)
            if hyphen > 0 and chunk[:hyphen].strip("-"):
                end = hyphen + 1
            last = chunk[:end]
            chunks[-1] = chunk[end:]
            taken += 1
        if taken and last.strip() == "":
            taken -= 1   # the line's last chunk is white space: dropped
        lines += taken > 0
    return lines


#: textwrap's own word splitting and white space table (the wrapper's defaults).
_WRAP = textwrap.TextWrapper(break_long_words=True)


def _money(value: float) -> str:
    """Cents where they matter; whole dollars from 1,000 up (keeps big prices inside the column)."""
    return USD if abs(value) < 1000 else USD0


def define_name(wb: Workbook, name: str, ref: str) -> None:
    if type(name) is not str or type(ref) is not str or name in RESERVED:
        wb.defined_names[name] = DefinedName(name, attr_text=ref)   # openpyxl's checks and its _xlnm. prefix
        return
    got = _Name.__new__(_Name)
    got.__dict__.update(_UNSET, name=name, attr_text=ref)
    wb.defined_names[name] = got


class _Name(DefinedName):
    """A workbook-wide name of a cell or a range: the ``DefinedName`` openpyxl makes (its fields as its
    descriptors store them) and the element it writes, without a descriptor per field to make it and
    a read of each to write it (a site's schedule, a range's percentiles: names grow with the sites)."""

    # the fields openpyxl's metaclass lists for DefinedName (a subclass would get none of its own)
    __attrs__ = DefinedName.__attrs__
    __nested__ = DefinedName.__nested__
    __elements__ = DefinedName.__elements__

    def to_tree(self, tagname: str | None = None, idx: int | None = None, namespace: str | None = None) -> Element:
        el = Element("definedName", {"name": self.name})   # every other field None: not written
        el.text = self.attr_text
        return el


#: A ``DefinedName``'s fields as its descriptors store them, every one unset.
_UNSET = dict(DefinedName("unset").__dict__)


def _table(ws: Worksheet, name: str, top: int, last: int, columns: int,
           totals: dict[int, str] | None = None) -> Table:
    """An Excel table from header row ``top`` to ``last`` (its totals row when ``totals`` is given:
    column index -> "sum" or a label)."""
    t = Table(displayName=name, ref=f"A{top}:{_letter(columns)}{last}",
              totalsRowCount=1 if totals is not None else None)
    t._initialise_columns()
    for i, col in enumerate(t.tableColumns, start=1):
        col.name = str(ws.cell(row=top, column=i).value)
        what = (totals or {}).get(i)
        if what == "sum":
            col.totalsRowFunction = "sum"
        elif what:
            col.totalsRowLabel = what
    t.tableStyleInfo = TableStyleInfo(name="TableStyleLight9", showRowStripes=True)
    ws.add_table(t)
    return t


# --- Inputs ------------------------------------------------------------------------------

_FRACTIONS = {"pue": (1, 3), "utilisation": (0.01, 1), "discount_rate": (0, 1), "support_gpu": (0, 1),
              "support_network": (0, 1), "support_facility": (0, 1), "support": (0, 1), "insurance": (0, 1),
              "property_tax": (0, 1)}


def _validations(ws: Worksheet) -> dict[str, DataValidation]:
    dvs = {"fraction": DataValidation(type="decimal", operator="between", formula1="0", formula2="1",
                                      error="A fraction between 0 and 1", errorTitle="Out of range"),
           "pue": DataValidation(type="decimal", operator="between", formula1="1", formula2="3",
                                 error="PUE is between 1 and 3", errorTitle="Out of range"),
           "positive": DataValidation(type="decimal", operator="greaterThanOrEqual", formula1="0",
                                      error="A number of zero or more", errorTitle="Out of range"),
           "basis": DataValidation(type="list", formula1='"kW,rack"', allow_blank=False,
                                   error="kW (colocation per kW-month) or rack (per rack-year)",
                                   errorTitle="Space basis")}
    for dv in dvs.values():
        dv.showErrorMessage = True
        ws.add_data_validation(dv)
    return dvs


def _input_cell(ws: Worksheet, dvs: dict[str, DataValidation], ref: str, name: str) -> None:
    ws[ref].style = "Input"
    key = "basis" if name == "space_basis" else "pue" if name == "pue" else (
        "fraction" if name in _FRACTIONS else "positive")
    dvs[key].add(ref)


def inputs_sheet(wb: Workbook, inputs: Sequence[Any], model_rows: Sequence[tuple[str, str, Any, str, str]] = ()
                 ) -> None:
    """Every assumption in a named cell (``in_<name>``), then figures from the model (``m_...``)."""
    ws = wb.create_sheet("Inputs")
    header_row(ws, ["Input", "Value", "Unit", "Source", "Name"], [34, 14, 22, 90, 20])
    dvs = _validations(ws)
    rows = [(f"in_{i.name}", i.label, i.value, i.unit, i.source) for i in inputs] + list(model_rows)
    for n, (name, label, value, unit, source) in enumerate(rows, start=2):
        for col, v in enumerate((label, value, unit, source, name), start=1):
            put_cell(ws, n, col, v, align=WRAP if col == 4 else None)
        _fit_height(ws, n, {4: str(source)})
        if name.startswith("in_"):
            _input_cell(ws, dvs, f"B{n}", name[3:])
        define_name(wb, name, f"Inputs!$B${n}")
    ws.auto_filter.ref = f"A1:E{len(rows) + 1}"


def _live_counts(r: Report) -> tuple[Formula | int, Formula | int]:
    """The GPUs and nodes as formulas over the BOM's GPU systems (an edit to their quantity moves the TCO),
    where the BOM's compute lines count whole systems; else the model's numbers."""
    p, c = r.model.platform, r.model.cluster
    systems = sum(x.quantity for x in r.lines if x.category == Category.COMPUTE and x.fabric != SPARES)
    if systems * p.gpus_per_system != c.gpus or c.gpus != c.nodes * p.gpus_per_node:
        return c.gpus, c.nodes
    gpus = fx(f'SUMIFS({ref("Qty")},{ref("Category")},"{Category.COMPUTE}",{ref("Fabric")},"<>{SPARES}")'
              f"*{p.gpus_per_system}")
    return gpus, fx(f"m_gpus/{p.gpus_per_node}")


def _inputs(wb: Workbook, r: Report) -> None:
    m = r.model
    gpus, nodes = _live_counts(r)
    model_rows = [("m_gpus", "GPUs", gpus, "GPUs", "model: the BOM's GPU systems (spares apart) x GPUs per system"
                   if isinstance(gpus, Formula) else "model"),
                  ("m_racks", "Racks", m.racks, "racks", "model: placement (compute, network, management, storage)"),
                  ("m_links", "Links (scale-out and scale-across)", r.links, "links", "model: link groups"),
                  ("m_dark_fibre_km", "Dark fibre (route km of fibre pairs)", r.dark_fibre_km, "km",
                   "model: scale-across"),
                  ("m_pflops_per_gpu", "Dense FP8 per GPU", r.pflops_per_gpu, "PFLOP/s",
                   f"catalog: {m.platform.id} fp8_dense ({m.platform.source})"),
                  ("m_nodes", "GPU nodes", nodes, "nodes", "model: GPUs / GPUs per node"
                   if isinstance(nodes, Formula) else "model")]
    if r.job is not None:
        j = r.job
        model_rows += [("m_job_flop", f"Job: training work ({j.name})", j.flop, "FLOP",
                        "scenario workload: flop, or 6 x active params x tokens"),
                       ("m_job_flops_per_gpu", "Job: dense FLOP/s per GPU in its dtype", j.flops_per_gpu, "FLOP/s",
                        f"catalog: {m.platform.id} ({m.platform.source})"),
                       ("m_job_mfu", "Job: model FLOP utilisation", j.mfu, "fraction", "scenario workload: mfu"),
                       ("m_job_step_factor", "Job: step over its compute alone on every GPU built", j.step_factor,
                        "factor", "model: the split's step (compute, pipeline bubble, exposed communication) x GPUs "
                        "built / (compute x the split's GPUs); 1 without a split")]
    if FabricRole.STORAGE in m.fabrics:   # the storage sizing's figures, each with where it comes from
        model_rows += storage_defaults(m.scenario)
    inputs_sheet(wb, list(r.inputs.values()), model_rows)
    ws = wb["Inputs"]
    n = ws.max_row + 2
    put_cell(ws, n, 1, "Priced on")
    put_cell(ws, n, 2, r.priced_on, DATE)
    ws.cell(n, 2).style = "Input"
    ws.cell(n, 2).number_format = DATE
    dv = DataValidation(type="date", operator="greaterThan", formula1="1", error="A date", errorTitle="Priced on")
    ws.add_data_validation(dv)
    dv.add(f"B{n}")
    put_cell(ws, n, 4, "quotes past their valid_until on this day are flagged (scenario date, else the build day); "
                   "the Order sheet's Quote state follows this cell")
    put_cell(ws, n, 5, "in_priced_on")
    define_name(wb, "in_priced_on", f"Inputs!$B${n}")
    n += 1
    put_cell(ws, n, 1, "Order date")
    put_cell(ws, n, 2, r.order_date, DATE)
    ws.cell(n, 2).style = "Input"
    ws.cell(n, 2).number_format = DATE
    dv.add(f"B{n}")
    put_cell(ws, n, 4, "the day the order is placed (scenario order_date, else the priced-on day): each site's "
                   "in-service date counts from it (Schedule sheet)")
    put_cell(ws, n, 5, "in_order_date")
    define_name(wb, "in_order_date", f"Inputs!$B${n}")
    for code, rate in sorted(r.model.scenario.exchange_rates.items()):
        n += 1
        put_cell(ws, n, 1, f"Exchange rate {code}")
        put_cell(ws, n, 2, rate, "0.0000")
        put_cell(ws, n, 3, f"USD per {code}")
        put_cell(ws, n, 4, "scenario exchange_rates: prices quoted in this currency are converted at this rate")
    _price_quality(ws, r, n + 2)


def _price_quality(ws: Worksheet, r: Report, n: int) -> None:
    """How good the prices are: the budget range the published price ranges give, and every part
    whose price is a placeholder (an estimate with no published range) to replace with a quote."""
    low, high = r.budget_usd
    put_cell(ws, n, 1, "Hardware budget, low")
    put_cell(ws, n, 2, low, USD0)
    put_cell(ws, n, 4, "each line at the low end of its catalog row's published price range (price_low_usd, "
                       "price_range_source); a line with no range at its price")
    put_cell(ws, n + 1, 1, "Hardware budget, high")
    put_cell(ws, n + 1, 2, high, USD0)
    put_cell(ws, n + 1, 4, "each line at the high end of its published price range (price_high_usd)")
    held = r.placeholder_lines
    put_cell(ws, n + 2, 1, "Placeholder prices")
    put_cell(ws, n + 2, 2, sum(x.price_usd for x in held), USD0)
    put_cell(ws, n + 2, 4, "lines priced by an estimate with no published range (listed below): round figures "
                           "to replace with quotes (--prices)")
    ws.cell(n + 2, 1).font = Font(bold=True)
    seen: dict[str, Line] = {}
    for x in held:
        seen.setdefault(x.sku, x)
    for i, (sku, x) in enumerate(sorted(seen.items()), start=n + 3):
        put_cell(ws, i, 1, f"  {sku}")
        put_cell(ws, i, 2, x.unit_price_usd, _money(x.unit_price_usd))
        put_cell(ws, i, 3, "USD per unit")
        put_cell(ws, i, 4, f"placeholder: estimate, no published range ({x.catalog_id})")


# --- BOM ---------------------------------------------------------------------------------

BOM_COLS = ["No", "Part number", "Description", "Category", "Tier", "Fabric", "Hop", "Qty", "Unit",
            "Unit price", "Price low", "Price high", "Extended price", "Unit power", "Extended power",
            "Unit power max", "Extended power max", "Asset class", "Price source", "Price range source", "As of",
            "Flags", "Vendor", "Catalog id", "Source"]
_BOM_WIDTHS = [4, 19, 34, 13, 10, 8, 9, 8, 5, 14, 12, 12, 16, 11, 14, 11, 14, 8, 8, 40, 10, 24, 8, 15, 40]
# Long part numbers, category names and ids wrap inside their column on paper.
_WRAPPED = {"Part number", "Description", "Category", "Flags", "Catalog id"}
#: The published range beside the point price (blank where none is published: a placeholder when the
#: price source is estimate), and where each end is published.
_RANGE = ("Price low", "Price high", "Price range source")
# Text right after a right-aligned number starts one indent in, not touching it ("9,088,000 Wgpu").
_AFTER_NUMBER = {"Asset class"}
_INDENT = Alignment(horizontal="left", vertical="top", indent=1)
_PRINTED = BOM_COLS.index("Catalog id") + 1   # the Source column stays on screen, not on paper
_WRAPPED_AT = {name: BOM_COLS.index(name) + 1 for name in BOM_COLS if name in _WRAPPED}
#: A BOM row's values in column order, from the row's values by column name.
_BOM_VALUES = itemgetter(*BOM_COLS)
_BOM_ALIGN = {name: WRAP if name in _WRAPPED else _INDENT if name in _AFTER_NUMBER else TOP for name in BOM_COLS}


def col(name: str) -> int:
    return BOM_COLS.index(name) + 1


def ref(name: str, table: str = BOM_TABLE) -> str:
    """A structured reference to a column of the BOM table."""
    return f"{table}[{name}]"


def this_row(name: str, table: str = BOM_TABLE) -> str:
    return f"{table}[[#This Row],[{name}]]"


def bom_table(ws: Worksheet, lines: Sequence[Line], top: int = 1, table: str = BOM_TABLE,
              flags: dict[str, Sequence[str]] | None = None) -> int:
    """The BOM lines as an Excel table with a totals row; returns the totals row."""
    header_row(ws, BOM_COLS, _BOM_WIDTHS, top)
    # the row's own formulas: the same text in every row (structured references to "this row")
    extended = {name: fx(f"{this_row('Qty', table)}*{this_row(unit, table)}") for name, unit in (
        ("Extended price", "Unit price"), ("Extended power", "Unit power"), ("Extended power max", "Unit power max"))}
    aligns = [_BOM_ALIGN[name] for name in BOM_COLS]
    wraps = [(k, _chars(ws, c)) for k, c in _WRAPPED_AT.items()]
    for n, line in enumerate(lines, start=top + 1):
        values = {"No": n - top, "Part number": line.sku, "Description": line.description,
                  "Category": line.category, "Tier": line.tier, "Fabric": line.fabric, "Hop": line.hop,
                  "Qty": line.quantity, "Unit": line.unit, "Unit price": line.unit_price_usd,
                  "Extended price": extended["Extended price"],
                  "Unit power": line.unit_power_w,
                  "Extended power": extended["Extended power"],
                  "Unit power max": line.unit_power_w if line.unit_power_max_w is None else line.unit_power_max_w,
                  "Extended power max": extended["Extended power max"],
                  "Asset class": asset_class(line.category), "Price source": line.price_source,
                  "Price low": line.unit_price_low_usd, "Price high": line.unit_price_high_usd,
                  "Price range source": range_source(line.unit_price_range_source, line.price_source),
                  "As of": _date(line.as_of) or line.as_of, "Flags": "; ".join((flags or {}).get(line.sku, ())),
                  "Vendor": line.vendor, "Catalog id": line.catalog_id, "Source": line.source}
        fmts = {"Qty": COUNT if line.unit == "each" else "#,##0.0", "Unit price": _money(line.unit_price_usd),
                "Price low": _money(line.unit_price_low_usd or 0), "Price high": _money(line.unit_price_high_usd or 0),
                "Extended price": _money(line.price_usd), "Unit power": WATT if line.unit_power_w < 1e4 else WATT0,
                "Extended power": WATT if line.power_w < 1e6 else WATT0,
                "Unit power max": WATT if (line.unit_power_max_w or line.unit_power_w) < 1e4 else WATT0,
                "Extended power max": WATT if line.power_max_w < 1e6 else WATT0, "As of": DATE}
        put_values(ws, n, _BOM_VALUES(values), list(map(fmts.get, BOM_COLS)), aligns)
        _fit_lines(ws, n, [(str(values[k]), chars) for k, chars in wraps])
        if values["Flags"] and any(f.startswith(("end-of", "quote expired")) for f in (flags or {})[line.sku]):
            ws.cell(n, col("Flags")).font = WARN
    total = top + len(lines) + 1
    put_cell(ws, total, col("Part number"), "Total")
    for name, fmt in (("Extended price", USD0), ("Extended power", WATT), ("Extended power max", WATT)):
        put_cell(ws, total, col(name), fx(f"SUBTOTAL(109,{ref(name, table)})"), fmt)
        ws.cell(total, col(name)).font = Font(bold=True)
    _table(ws, table, top, total, len(BOM_COLS),
           {col("Part number"): "Total", col("Extended price"): "sum", col("Extended power"): "sum"})
    ws.print_area = f"A{top}:{_letter(_PRINTED)}{total}"
    _bom_validation(ws, top + 1, total - 1)
    return total


def _bom_validation(ws: Worksheet, first: int, last: int) -> None:
    """What a person may type into the BOM: amounts of zero or more, one of the asset classes."""
    if last < first:
        return
    amounts = DataValidation(type="decimal", operator="greaterThanOrEqual", formula1="0",
                             error="A number of zero or more", errorTitle="BOM")
    classes = DataValidation(type="list", formula1=f'"{",".join(CLASSES)}"', error="gpu, network or facility",
                             errorTitle="Asset class")
    for dv in (amounts, classes):
        dv.showErrorMessage = True
        ws.add_data_validation(dv)
    for name in ("Qty", "Unit price", "Price low", "Price high", "Unit power", "Unit power max"):
        amounts.add(f"{_letter(col(name))}{first}:{_letter(col(name))}{last}")
    classes.add(f"{_letter(col('Asset class'))}{first}:{_letter(col('Asset class'))}{last}")


def _letter(n: int) -> str:
    return get_column_letter(n)


def _bom(wb: Workbook, r: Report) -> None:
    ws = wb.create_sheet("BOM")
    bom_table(ws, r.lines, flags={o.sku: o.flags for o in r.order})
    ws.print_options.horizontalCentered = True


# --- Order -------------------------------------------------------------------------------

_ORDER_WRAPPED = ("Part number", "Description", "Category", "Flags")   # as the BOM: printed whole
_ORDER_ALIGN = {**dict.fromkeys(_ORDER_WRAPPED, WRAP), "Price source": _INDENT}


def _order(wb: Workbook, r: Report) -> None:
    """One line per part number; quantities and money are formulas over the BOM table."""
    ws = wb.create_sheet("Order")
    sites = r.model.cluster.site_count
    site_cols = [f"Site {i} qty" for i in range(1, sites + 1)] if sites <= 8 else []
    names = (["Part number", "Description", "Category", "Maker"] + site_cols
             + ["Installed", "Spares", "Rounded up", "Total to order", "Unit", UNIT_PRICE, "Price low",
                "Price high", "Extended price", "Price source", "Price range source", "Price date", "Quote ref",
                "Valid until", "Quote state", "Lead time (days)", "Vendor", "AVL", "Flags", "Lead time source",
                "Spares basis"])
    widths = ([19, 34, 13, 9] + [9] * len(site_cols)
              + [10, 8, 9, 10, 6, 14, 12, 12, 16, 8, 40, 10, 14, 10, 8, 9, 10, 20, 30, 40, 50])
    ranges = price_ranges(r.lines)
    header_row(ws, names, widths)
    c = {name: i for i, name in enumerate(names, start=1)}
    part = f"{ORDER_TABLE}[[#This Row],[Part number]]"
    wraps = [(k, _chars(ws, c[k])) for k in _ORDER_WRAPPED]
    counts = dict.fromkeys([*site_cols, "Installed", "Spares", "Rounded up", "Total to order", "Lead time (days)"],
                           COUNT)
    # the row's own formulas: the same text in every row (structured references to "this row")
    same = {
        "Installed": fx(f'SUMIFS({ref("Qty")},{ref("Part number")},{part},{ref("Fabric")},"<>{SPARES}")'),
        "Spares": fx(f'SUMIFS({ref("Qty")},{ref("Part number")},{part},{ref("Fabric")},"{SPARES}",'
                     f'{ref("Hop")},"<>{ROUNDING}")'),
        # a quote's minimum order and whole packs: the units past installed + spares
        "Rounded up": fx(f'SUMIFS({ref("Qty")},{ref("Part number")},{part},{ref("Fabric")},"{SPARES}",'
                         f'{ref("Hop")},"{ROUNDING}")'),
        "Total to order": fx(f"{ORDER_TABLE}[[#This Row],[Installed]]+{ORDER_TABLE}[[#This Row],[Spares]]"
                             f"+{ORDER_TABLE}[[#This Row],[Rounded up]]"),
        # One price per line: the extended price is every BOM row's of the part, the unit price that over
        # the units to order (the BOM rows' price when they agree, their average when an edit splits them).
        # An unpriced part (0 USD: leased, or no price known) shows blank, never a 0 that reads as free.
        UNIT_PRICE: fx(f'IFERROR(1/(1/({ORDER_TABLE}[[#This Row],[Extended price]]/'
                       f'{ORDER_TABLE}[[#This Row],[Total to order]])),"")'),
        "Extended price": fx(f'IFERROR(1/(1/SUMIFS({ref("Extended price")},{ref("Part number")},{part})),"")'),
        "Quote state": fx(f'IF(ISNUMBER({ORDER_TABLE}[[#This Row],[Valid until]]),'
                          f'IF({ORDER_TABLE}[[#This Row],[Valid until]]<in_priced_on,"expired","valid"),"")')}
    for n, o in enumerate(r.order, start=2):
        values: dict[str, Any] = {
            "Part number": o.sku, "Description": o.description, "Category": o.category, "Maker": o.maker,
            "Installed": same["Installed"], "Spares": same["Spares"], "Rounded up": same["Rounded up"],
            "Total to order": same["Total to order"],
            "Unit": o.unit,   # each, or km (a leased dark-fibre route)
            UNIT_PRICE: same[UNIT_PRICE], "Extended price": same["Extended price"],
            "Price source": o.price_source, "Price date": _date(o.price_date) or o.price_date,
            # the range of the catalog row the BOM lines take (a quote replaces it: none then)
            "Price low": ranges.get(o.sku, (None,))[0], "Price high": ranges.get(o.sku, (None, None))[1],
            "Price range source": ranges[o.sku][2] if o.sku in ranges else range_source(None, o.price_source),
            "Quote ref": o.quote_ref, "Valid until": o.valid_until, "Quote state": same["Quote state"],
            "Lead time (days)": o.lead_time_days, "Lead time source": o.lead_time_source,
            "Spares basis": o.spares_basis.text() if o.spares_basis is not None else "",
            "Vendor": o.vendor, "AVL": "; ".join(o.avl),   # the approved vendors the row names
            "Flags": "; ".join(o.flags)}
        for i, name in enumerate(site_cols):
            # the site's build-time share of the installed units: an edit to the BOM's quantities moves it
            values[name] = (fx(f"{ORDER_TABLE}[[#This Row],[Installed]]*{o.per_site[i]:g}/{o.installed:g}")
                            if o.per_site is not None and o.installed else None)
        fmts = {UNIT_PRICE: _money(o.unit_price_usd), "Extended price": _money(o.extended_usd), "Price date": DATE,
                "Valid until": DATE, "Price low": _money(o.unit_price_usd), "Price high": _money(o.unit_price_usd)}
        put_values(ws, n, list(values.values()), [fmts.get(name, counts.get(name)) for name in values],
                   [_ORDER_ALIGN.get(name, TOP) for name in values], [c[name] for name in values])
        _fit_lines(ws, n, [(str(values[k]), chars) for k, chars in wraps])
        if any(f.startswith(("end-of", "quote expired")) for f in o.flags):
            ws.cell(n, c["Flags"]).font = WARN
    # BOM rows a person adds by hand with a new part number have no order line above: this line
    # carries their money, so the order's total stays the BOM's (and shows when it is not zero).
    other = len(r.order) + 2
    ext = _letter(c["Extended price"])
    put_cell(ws, other, 1, "(other BOM rows)")
    put_cell(ws, other, 2, "BOM rows whose part number has no line above (added by hand): order them too")
    put_cell(ws, other, c["Extended price"], fx(f"SUM({ref('Extended price')})-SUM({ext}2:{ext}{other - 1})"), USD0)
    ws.cell(other, 2).alignment = WRAP
    total = other + 1
    put_cell(ws, total, 1, "Total")
    put_cell(ws, total, c["Extended price"], fx(f"SUBTOTAL(109,{ORDER_TABLE}[Extended price])"), USD0)
    _table(ws, ORDER_TABLE, 1, total, len(names), {1: "Total", c["Extended price"]: "sum"})
    define_name(wb, "order_total_usd", f"Order!${_letter(c['Extended price'])}${total}")
    _lead_time_input(ws, c["Lead time (days)"], len(r.order) + 1)
    n = total + 2
    unpriced = [o.sku for o in r.order if not o.unit_price_usd]
    if unpriced:   # listed, so a blank price is read as a gap to fill, not as free
        put_cell(ws, n + 1, 1, f"Unpriced (no unit price: blank above, never 0): {', '.join(unpriced)}")
    put_cell(ws, n, 1, "Spares follow the scenario's spares: policy (defaults in bom/costing/order.py, estimates); "
                   "they are BOM lines in fabric 'spares', priced into capex. Generic parts need the vendor's SKU. "
                   f"Rounded up: the units a quote's minimum order (moq) and pack size add past installed + spares "
                   f"(BOM lines in fabric 'spares', hop '{ROUNDING}', priced into capex).")


#: The Order sheet's columns a printed order needs (with each site's quantity, up to PRINT_SITES sites):
#: the whole sheet's 24 columns at one page wide print unreadably small.
PRINT_COLS = (("Part number", 20), ("Description", 44), ("Total to order", 10), ("Unit", 6),
              (UNIT_PRICE, 13), ("Extended price", 15), ("Vendor", 12), ("Quote ref", 14), ("Lead time (days)", 11))
PRINT_SITES = 4


def _order_print(wb: Workbook, r: Report) -> None:
    """The order as it prints: the Order sheet's key columns, each cell a formula on it (an edit there
    shows here), A4 landscape one page wide with the header row on every page."""
    order = wb["Order"]
    head = {value_and_format(order, 1, k)[0]: k for k in range(1, order.max_column + 1)}
    sites = [f"Site {i} qty" for i in range(1, r.model.cluster.site_count + 1)] if \
        r.model.cluster.site_count <= PRINT_SITES else []
    cols = [*PRINT_COLS[:2], *((name, 8) for name in sites if name in head), *PRINT_COLS[2:]]
    ws = wb.create_sheet("Order (print)")
    header_row(ws, [name for name, _ in cols], [width for _, width in cols])
    last = order.max_row
    aligns = [WRAP if name in ("Part number", "Description") else TOP for name, _ in cols]
    # each column: its letter on the Order sheet, its number there, the characters a line holds if it wraps
    at = [(f"Order!{_letter(head[name])}", head[name], _chars(ws, i) if name in ("Part number", "Description")
           else 0) for i, (name, _) in enumerate(cols, start=1)]
    for n in range(2, last + 1):
        wrapped = []
        formulas, fmts = [], []
        for letter, k, chars in at:
            src = f"{letter}{n}"
            value, fmt = value_and_format(order, n, k)
            formulas.append(fx(f'IF({src}="","",{src})'))
            fmts.append(fmt)
            if chars:
                wrapped.append((str(value or ""), chars))
        put_values(ws, n, formulas, fmts, aligns)
        _fit_lines(ws, n, wrapped)
    ws.print_area = f"A1:{_letter(len(cols))}{last}"
    put_cell(ws, last + 2, 1, "The Order sheet's key columns for print (formulas on it); prices, quotes, lead "
                              "times, flags and sources in full on the Order sheet.")


def _lead_time_input(ws: Worksheet, column: int, last: int) -> None:
    """The lead times are inputs a buyer updates from the quotes: the Schedule sheet follows them."""
    if last < 2:
        return
    dv = DataValidation(type="decimal", operator="between", formula1="0", formula2="3650",
                        error="Days from order to delivery, 0 to 3650", errorTitle="Lead time")
    dv.showErrorMessage = True
    ws.add_data_validation(dv)
    ref_ = f"{_letter(column)}2:{_letter(column)}{last}"
    dv.add(ref_)
    for row in ws[ref_]:
        for cell in row:
            cell.style = "Input"
            cell.number_format = COUNT


# --- Schedule ----------------------------------------------------------------------------

SCHEDULE_COLS = ["Site", "GPUs", "Racks", "Longest lead time (days)", "GPU systems' lead time (days)",
                 "Install days", "In service", "Idle GPU days", "Idle GPU cost", "Arrives last",
                 "Lines without a lead time", "Burn-in days", "Target (in_service)", "Late by (days)",
                 "Last part arrives", "Installed"]
#: The timeline's week columns past the order date: three years, past any lead time in the catalogs.
TIMELINE_WEEKS_MAX = 160
#: Sites drawn as a timeline (every site has its row above; a timeline per site past these adds
#: rows without adding what a reader looks for: the sites of one shape are alike).
TIMELINE_SITES = 4
GATING = PatternFill("solid", fgColor="C00000")
BAR = PatternFill("solid", fgColor="8EA9DB")
MILESTONE = PatternFill("solid", fgColor="375623")


def _schedule(wb: Workbook, r: Report) -> None:
    """Each site's critical path (bom/costing/schedule.py) as formulas over the Order sheet's lead times (a
    site takes a line whose quantity there is not 0; a line not split by site, every site), the order date,
    the install rate and the burn-in on Inputs; then a timeline per site: each line from the order date to
    its arrival, installation, burn-in and the in-service day, week by week, the gating chain in red (the
    bars are conditional formats over the same formulas, so an edited lead time moves them); then the
    phases' critical paths."""
    ws = wb.create_sheet("Schedule")
    header_row(ws, SCHEDULE_COLS, [6, 10, 8, 12, 12, 9, 12, 10, 16, 22, 10, 9, 12, 9, 12, 12])
    lead = f"{ORDER_TABLE}[Lead time (days)]"
    split = r.model.cluster.site_count <= 8   # the Order sheet has a column per site up to 8 sites
    for n, s in enumerate(r.schedule, start=2):
        site = f'{ORDER_TABLE}[Site {s.site} qty],"<>0"' if split else ""
        longest = f"_xlfn.MAXIFS({lead},{site})" if split else f"MAX({lead})"
        gpu = f'_xlfn.MAXIFS({lead},{ORDER_TABLE}[Category],"{Category.COMPUTE}"{"," + site if split else ""})'
        crf_gpu = crf("in_discount_rate", "in_life_gpu")
        values: list[Any] = [s.site, s.gpus, s.racks, fx(longest), fx(gpu),
                             fx(f"IF(C{n}=0,0,ROUNDUP(C{n}/in_install_racks_per_day-1E-9,0))"),
                             fx(f"P{n}+L{n}"), fx(f"MAX(0,D{n}-E{n})"),
                             fx(f"capex_gpu_usd*{crf_gpu}/365*H{n}*B{n}/m_gpus"),
                             s.longest_part, s.without_lead_time, fx("ROUNDUP(in_burn_in_days-1E-9,0)"),
                             s.target, fx(f'IF(M{n}="","",MAX(0,G{n}-M{n}))'),
                             fx(f"in_order_date+ROUNDUP(D{n}-1E-9,0)"), fx(f"O{n}+F{n}")]
        fmts = {2: COUNT, 3: COUNT, 4: "#,##0.0", 5: "#,##0.0", 6: COUNT, 7: DATE, 8: "#,##0.0", 9: USD0, 11: COUNT,
                12: COUNT, 13: DATE, 14: COUNT, 15: DATE, 16: DATE}
        put_row(ws, n, values, fmts)
        for letter, what in (("D", "longest_lead_days"), ("E", "gpu_lead_days"), ("F", "install_days"),
                             ("G", "in_service"), ("H", "idle_gpu_days"), ("I", "idle_gpu_cost_usd"),
                             ("L", "burn_in_days"), ("O", "parts_in"), ("P", "installed")):
            define_name(wb, f"site{s.site}_{what}", f"Schedule!${letter}${n}")
        if s.late:
            ws.cell(n, 14).font = WARN
    n = len(r.schedule) + 3
    put_cell(ws, n, 1, "In service = order date + the longest lead time of the site's parts + its racks / racks "
                   "installed per day + the burn-in days; the part that arrives last gates the site, and the GPU "
                   "systems that arrive first wait (their capital charge). Lead times are the Order sheet's (a "
                   "quote's, else the catalog's: read at a dated source, or an estimate by part class); lines "
                   "without one are left out (unknown, never 0).")
    n += 2
    for s in r.schedule[:TIMELINE_SITES]:
        n = _timeline(ws, r, s, n) + 2
    if len(r.schedule) > TIMELINE_SITES:
        put_cell(ws, n, 1, f"The timelines of sites {TIMELINE_SITES + 1} to {len(r.schedule)} are left out: each "
                           f"site's row at the top has its dates.")
        n += 2
    if r.alternates is not None and r.alternates.options:
        n = _alternates(ws, r, n) + 2
    if r.phases is not None:
        _phase_schedules(ws, r, n)


ALTERNATE_COLS = ["Part number", "Why", "Alternate", "Standard", "Its lead time (days)", "Links taken over",
                  "Hardware change", "TCO change", "IT power change (kW)", "Network's last part (days)",
                  "In service (days)", "Design rules"]


def _alternates(ws: Worksheet, r: Report, top: int) -> int:
    """The long-lead parts' alternates, each priced by a build with it (values: bom/costing/alternates.py)."""
    assert r.alternates is not None
    put_cell(ws, top, 1, "Long-lead parts' alternates: each built in the part's place (changes against this build; "
                         "negative days: sooner); bom build --prefer-available takes those that bring the date in")
    ws.cell(top, 1).font = Font(bold=True)
    head_cells(ws, top + 1, ALTERNATE_COLS)
    n = top + 1
    for a in r.alternates.options:
        n += 1
        values: list[Any] = [a.part_number, a.why, a.label, a.standard,
                             a.lead_time_days if a.lead_time_days is not None else "unknown", a.links,
                             a.change.hardware_usd, a.change.tco_usd, a.change.it_power_kw,
                             a.change.network_ready_days, a.change.in_service_days, "pass" if a.rules_ok else "fail"]
        fmts = {5: "#,##0", 6: COUNT, 7: USD0, 8: USD0, 9: "#,##0.00", 10: "#,##0", 11: "#,##0"}
        put_row(ws, n, values, fmts)
        if a.shortens:
            ws.cell(n, 11).font = WARN
    return n


#: A timeline's week column's width (a turned date).
WEEK_WIDTH = 3.2
#: A timeline's part rows' number formats: lead time, starts, ends.
_ARRIVAL_FORMATS = (None, None, "#,##0", DATE, DATE, None)


def _timeline(ws: Worksheet, r: Report, s: Any, top: int) -> int:
    """One site's timeline from ``top``; returns its last row. Columns: part (or step), category, lead time
    (the Order sheet's), starts, ends, on the gating chain; then a column per week from the order date."""
    k = s.site
    put_cell(ws, top, 1, f"Site {k}: from the order date to in service, week by week (red: the gating chain, the "
                         f"part that arrives last, installation and burn-in; blue: the other parts)")
    ws.cell(top, 1).font = Font(bold=True)
    head = top + 1
    names = ["Part number / step", "Category", "Lead time (days)", "Starts", "Ends", "Gating"]
    head_cells(ws, head, names)
    span = max((x.in_service - x.order_date).days for x in r.schedule[:TIMELINE_SITES])
    weeks = min(TIMELINE_WEEKS_MAX, span // 7 + 2)
    first = len(names) + 1
    for w in range(weeks):
        put_cell(ws, head, first + w, fx(f"in_order_date+{7 * w}"), "mm-dd", align=ROTATED, font=HEAD, fill=FILL)
        letter = _letter(first + w)
        dim = ws.column_dimensions.get(letter)
        if dim is None or dim.width != WEEK_WIDTH:   # the site before set it (a lookup by [] binds it again)
            ws.column_dimensions[letter].width = WEEK_WIDTH
    n = head
    lead = f"{ORDER_TABLE}[Lead time (days)]"
    part = f"{ORDER_TABLE}[Part number]"
    ordered = fx("in_order_date")
    for a in s.arrivals:
        n += 1
        got = f"INDEX({lead},MATCH($A{n},{part},0))"
        put_values(ws, n, [a.sku, a.category, fx(f'IFERROR(IF({got}="","",{got}),"")'), ordered,
                           fx(f'IF(C{n}="","unknown",in_order_date+ROUNDUP(C{n}-1E-9,0))'),
                           # the part that arrives last (the site's longest lead time) is on the gating chain
                           fx(f'IF(C{n}="","",IF(ROUNDUP(C{n}-1E-9,0)=ROUNDUP(site{k}_longest_lead_days-1E-9,0),'
                              f'"yes",""))')], _ARRIVAL_FORMATS)
    for what, start, end in (("Installation", f"site{k}_parts_in", f"site{k}_installed"),
                             ("Burn-in", f"site{k}_installed", f"site{k}_in_service"),
                             ("In service", f"site{k}_in_service", f"site{k}_in_service+1")):
        n += 1
        put_cell(ws, n, 1, what)
        put_cell(ws, n, 4, fx(start), DATE)
        put_cell(ws, n, 5, fx(end), DATE)
        put_cell(ws, n, 6, "yes")
        ws.cell(n, 1).font = Font(bold=True)
    if n > head:
        grid = f"{_letter(first)}{head + 1}:{_letter(first + weeks - 1)}{n}"
        week = f"{_letter(first)}${head}"
        inside = f"{week}+7>$D{head + 1},{week}<$E{head + 1},ISNUMBER($E{head + 1})"
        ws.conditional_formatting.add(grid, FormulaRule(formula=[f'AND({inside},$F{head + 1}="yes")'], fill=GATING,
                                                        stopIfTrue=True))
        ws.conditional_formatting.add(grid, FormulaRule(formula=[f"AND({inside})"], fill=BAR))
        ws.conditional_formatting.add(f"A{head + 1}:F{n}", FormulaRule(formula=[f'$F{head + 1}="yes"'], font=WARN))
    return n


PHASE_SCHEDULE_COLS = ["Phase", "Order date", "Gating part", "Lead time (days)", "Racks added (most at a site)",
                       "Install days", "Burn-in days", "Can be in service", "Date (target)", "Late by (days)",
                       "Earns from"]


def _phase_schedules(ws: Worksheet, r: Report, top: int) -> None:
    """Each phase's critical path under the scenario's growth (values: a phase's order is its own design's)."""
    assert r.phases is not None
    put_cell(ws, top, 1, "Phases: each phase's order from its order date, the racks it adds installed side by side "
                         "at its sites, burn-in; a phase dated before it can be in service earns from that day")
    ws.cell(top, 1).font = Font(bold=True)
    head_cells(ws, top + 1, PHASE_SCHEDULE_COLS)
    n = top + 1
    for p in r.phases.chosen.phases:
        sch = p.schedule
        if sch is None:
            continue
        n += 1
        gate = sch.gate
        values: list[Any] = [p.name, sch.order_date, gate.sku if gate else "", gate.days if gate else None,
                             max(sch.added_racks, default=0), max(sch.install_days, default=0), sch.burn_in_days,
                             fx(f"B{n}+ROUNDUP(D{n}-1E-9,0)+F{n}+G{n}"), sch.target, fx(f"MAX(0,H{n}-I{n})"),
                             fx(f"MAX(H{n},I{n})")]
        fmts = {2: DATE, 4: "#,##0", 5: COUNT, 6: COUNT, 7: COUNT, 8: DATE, 9: DATE, 10: COUNT, 11: DATE}
        put_row(ws, n, values, fmts)
        if sch.late:
            ws.cell(n, 10).font = WARN


# --- Phases --------------------------------------------------------------------------------

PHASE_COLS = ["Phase", "In service", "GPUs", "Fabric", "Part number", "Description", "Category", "Quantity",
              "Unit", "Unit price", "Extended"]


def _phases(wb: Workbook, r: Report) -> None:
    """The build-out (bom/costing/phases.py) under the scenario's growth: each phase's order, a line per
    fabric and part number with its extended price as a formula, and the phase's total (its order, its
    share of the installation and its re-cabling labour) below it. Written only for a scenario with phases."""
    if r.phases is None:
        return
    ws = wb.create_sheet("Phases")
    header_row(ws, PHASE_COLS, [10, 11, 9, 9, 22, 44, 14, 10, 6, 12, 14])
    n = 2
    for p in r.phases.chosen.phases:
        first = n
        for i in p.order:
            values: list[Any] = [p.name, p.date, p.gpus, i.fabric, i.sku, i.description, i.category, i.quantity,
                                 i.unit, i.unit_price_usd, fx(f"H{n}*J{n}")]
            fmts = {2: DATE, 3: COUNT, 8: COUNT if i.unit == "each" else "#,##0.0", 10: USD0, 11: USD0}
            put_row(ws, n, values, fmts)
            n += 1
        total_install = r.phases.chosen.installation_usd
        put_cell(ws, n, 1, p.name)
        put_cell(ws, n, 6, "Installation: the share of the TCO sheet's installation for the links it brings")
        put_cell(ws, n, 8, p.installation_usd / total_install if total_install else 0.0, "0.0000%")
        put_cell(ws, n, 10, fx("installation_usd"), USD0)
        put_cell(ws, n, 11, fx(f"H{n}*J{n}"), USD0)
        n += 1
        put_cell(ws, n, 1, p.name)
        put_cell(ws, n, 6, f"Re-cabling: {p.recabled_links:,} links x install_link")
        put_cell(ws, n, 8, p.recabled_links, COUNT)
        put_cell(ws, n, 10, fx("in_install_link"), USD0)
        put_cell(ws, n, 11, fx(f"H{n}*J{n}"), USD0)
        n += 1
        put_cell(ws, n, 1, p.name)
        put_cell(ws, n, 6, f"Phase {p.name} ({p.policy}): capex")
        put_cell(ws, n, 11, fx(f"SUM(K{first}:K{n - 1})"), USD0)
        n += 2
    put_cell(ws, n, 1, f"Growth: {r.phases.chosen.policy}. Spares are apart (the Order sheet). Under reserve the "
                   "final design is bought in order and no installed cable moves; under rebuild each phase is built "
                   "at its size and re-cables the links the next design does not keep.")


# --- Range ---------------------------------------------------------------------------------

RANGE_FIGURES = (("capex", "capex_usd", "Capex", USD0), ("tco", "tco_usd", "TCO over the period", USD0),
                 ("usd_per_gpu_hour", "usd_per_gpu_hour", "Cost per GPU-hour (levelised)", USD4))


def _range(wb: Workbook, r: Report) -> None:
    """The Monte Carlo's figures (bom/costing/uncertainty.py): P10 / P50 / P90 beside the point, the
    histogram of the cost per GPU-hour and the spreads with their sources.

    The percentiles and bin counts are values computed from the draws, not formulas over them: a
    million draws as cells would be a 3-million-cell sheet that takes openpyxl minutes and gigabytes
    to write (issue 45), for figures the draws' seed reproduces anyway."""
    rg = r.range
    if rg is None:
        return
    ws = wb.create_sheet("Range")
    header_row(ws, ["Figure", "P10", "P50", "P90", "Point (TCO, Schedule)"], [24, 16, 16, 16, 16])
    for j, (key, name, label, fmt) in enumerate(RANGE_FIGURES, start=2):
        put_cell(ws, j, 1, label)
        p = rg.percentiles(key)
        for k, (value, q) in enumerate(((p.p10, "p10"), (p.p50, "p50"), (p.p90, "p90")), start=2):
            put_cell(ws, j, k, value, fmt)
            define_name(wb, f"range_{name}_{q}", f"Range!${_letter(k)}${j}")
        put_cell(ws, j, 5, fx(name), fmt)
    top = _range_dates(wb, ws, rg, len(RANGE_FIGURES) + 2) + 1
    put_cell(ws, top, 1, f"{rg.draws:,} draws, seed {rg.seed} (scenario uncertainty: draws, seed): the same seed "
                         "gives the same draws. Percentiles interpolate between draws as PERCENTILE.INC does.")
    top += 2
    for k, head in enumerate(("From", "To", "Draws"), start=1):
        put_cell(ws, top, k, head)
        ws.cell(top, k).font = Font(bold=True)
    bins = rg.histogram()
    for i, (lo, hi, n) in enumerate(bins, start=top + 1):
        put_cell(ws, i, 1, lo, USD4)
        put_cell(ws, i, 2, hi, USD4)
        put_cell(ws, i, 3, n, COUNT)
    put_cell(ws, top + len(bins) + 1, 1, "Each bin counts the draws from its From up to (not including) its To; "
                                         "the last bin includes its To.")
    chart = BarChart()
    chart.title, chart.legend, chart.width, chart.height = "Cost per GPU-hour over the draws", None, 18, 8
    chart.y_axis.title, chart.x_axis.title = "draws", "USD per GPU-hour (bin from)"
    chart.add_data(Reference(ws, min_col=3, min_row=top + 1, max_row=top + len(bins)))
    chart.set_categories(Reference(ws, min_col=1, min_row=top + 1, max_row=top + len(bins)))
    ws.add_chart(chart, f"G{top}")
    spreads_at = top + len(bins) + 3
    for k, head in enumerate(("Drawn", "Low x", "High x", "Source"), start=1):
        put_cell(ws, spreads_at, k, head)
        ws.cell(spreads_at, k).font = Font(bold=True)
    rows = [(f"price ({src})", sp) for src, sp in SPREADS.items()]
    rows += [("exchange rate", FX), ("utilisation", UTILISATION), ("lead time without a range (share late)",
                                                                      LEAD_TIME_SLIP)]
    for i, (what, sp) in enumerate(rows, start=spreads_at + 1):
        for k, v in enumerate((what, sp.low, sp.high, sp.source), start=1):
            put_cell(ws, i, k, v, "0.00" if isinstance(v, float) else None)
    end = spreads_at + len(rows) + 2
    put_cell(ws, end, 1, "Each price is drawn from a triangular distribution (its value the mode); each draw runs "
                         "the TCO sheet's formulas. Each order line's lead time is drawn from its row's range (the "
                         "Order sheet's low and high, the lead time the mode), a single value up to half of it "
                         "late (the row above); a site is in service its last drawn arrival, installation and "
                         "burn-in after the order date, and a site later than its point date loses those days "
                         "of GPU-hours. Not drawn: energy prices, quantities.")
    ws.print_area = f"A1:{'I' if rg.in_service else 'E'}{end}"


def _range_dates(wb: Workbook, ws: Worksheet, rg: Range, row: int) -> int:
    """Each site's in-service date at P10 / P50 / P90 from row ``row`` on: the drawn days (values, columns
    G to I) after the Inputs sheet's order date, rounded up to a whole day, beside the Schedule sheet's
    date; the last row used."""
    if not rg.in_service:
        return row
    row += 1
    for k, head in enumerate(("Days from the order: P10", "P50", "P90"), start=7):
        put_cell(ws, row - 1, k, head)
        ws.cell(row - 1, k).font = Font(bold=True)
    for s in rg.in_service:
        n = s.site.site
        put_cell(ws, row, 1, f"In service, site {n}")
        p = s.percentiles
        for k, (days, q) in enumerate(((p.p10, "p10"), (p.p50, "p50"), (p.p90, "p90"))):
            put_cell(ws, row, 7 + k, days, "0.0")
            put_cell(ws, row, 2 + k, fx(f"in_order_date+ROUNDUP({_letter(7 + k)}{row}-1E-9,0)"), DATE)
            define_name(wb, f"range_in_service_s{n}_{q}", f"Range!${_letter(2 + k)}${row}")
        put_cell(ws, row, 5, fx(f"site{n}_in_service"), DATE)
        row += 1
    return row


# --- Links and Tiers ---------------------------------------------------------------------

LINK_COLS = ["Fabric", "Tier", "Hop", "From", "To", "Bucket", "Links", "Rate Gbit/s", "Run m", "Sold m",
             "Medium", "Module (from end)", "Modules (from)", "Module (to end)", "Modules (to)",
             "Cable or fibre", "Cables", "Fibre runs", "Lit strands", "Patch panels"]


def _end(end: End) -> str:
    """A link end's part for the Links sheet: the module, "optical engine" (CPO), or "-"."""
    if end.part is not None:
        return str(end.part.part_number)
    return "optical engine (CPO)" if end.engine is not None else "-"


def _links(wb: Workbook, r: Report) -> None:
    ws = wb.create_sheet("Links")
    header_row(ws, LINK_COLS, [9, 12, 11, 7, 7, 10, 9, 10, 8, 8, 14, 18, 10, 18, 10, 28, 9, 10, 10, 9])
    for n, g in enumerate(r.model.groups, start=2):
        c = g.choice
        row = [g.fabric, g.tier, g.hop, g.lower, g.upper, g.bucket, g.links, g.rate_gbps, round(g.length_m, 2),
               c.length_m, g.medium, _end(g.lower_end), g.modules_lower, _end(g.upper_end), g.modules_upper,
               c.part_number or "-", g.cables, g.fibre_runs, g.fibre_strands, g.panels]
        put_values(ws, n, row, [COUNT if isinstance(v, int) else None for v in row])
    last = len(r.model.groups) + 1
    ws.auto_filter.ref = f"A1:T{last}"
    for name, letter in (("lk_tier", "B"), ("lk_links", "G"), ("lk_medium", "K"), ("lk_mod_from", "M"),
                         ("lk_mod_to", "O"), ("lk_runs", "R"), ("lk_strands", "S")):
        define_name(wb, name, f"Links!${letter}$2:${letter}${last}")


#: The Power sheet's first table: each rack layout's feeds with their headroom (bom/links/power.py).
POWER_COLS = ("Rack kind", "Rack model", "Racks", "PDUs", "Cords", "Draw kW", "Feed A kW", "Feed A, B lost kW",
              "Feed B kW", "Feed B, A lost kW", "Feed rating kW", "Headroom kW", "Worst phase share")
#: Its second: each PDU's phases (normal, the other feed lost) against the phase's continuous rating.
PDU_PHASE_COLS = ("Rack kind", "Rack model", "PDU no.", "Feed", "Phase", "Load W", "Other feed lost W",
                  "Rating W", "Headroom W", "Share")


def _power(wb: Workbook, r: Report) -> None:
    """Per rack layout: its feeds, PDUs, phase loads and headroom (live formulas over the loads), then
    each PDU's phases and each site UPS; the ratings at the PDU row's continuous share."""
    plan = r.model.power
    if plan is None:
        return
    ws = wb.create_sheet("Power")
    header_row(ws, POWER_COLS, [11, 16, 8, 7, 8, 9, 9, 11, 9, 11, 10, 11, 10])
    n = 1
    for n, g in enumerate(plan.groups, start=2):
        a, b = g.plan.feeds
        worst = max((ld.worst_w / ld.rating_w for ld in g.plan.phases if ld.rating_w), default=0.0)
        kw = [round(w / 1000, 3) for w in (g.plan.draw_w, a.normal_w, a.failover_w, b.normal_w, b.failover_w,
                                           a.rating_w)]
        put_row(ws, n, [str(g.kind), g.rack, g.racks, len(g.plan.pdus), len(g.plan.cords), *kw,
                        fx(f"K{n}-MAX(G{n}:J{n})"), round(worst, 4)], {3: COUNT, 4: COUNT, 5: COUNT, 13: SHARE})
    put_row(ws, n + 1, ["Total", "", fx(f"SUM(C2:C{n})"), "", fx(f"SUMPRODUCT(C2:C{n},E2:E{n})")], {3: COUNT, 5: COUNT})
    define_name(wb, "power_cords", f"Power!$E${n + 1}")
    _power_phases(ws, r, n + 3)


#: The PDU phase table's number formats, column by column.
_PHASE_FORMATS = (None, None, COUNT, None, None, COUNT, COUNT, COUNT, COUNT, SHARE)


def _power_phases(ws: Worksheet, r: Report, top: int) -> None:
    """Each PDU's phases against their rating (headroom and share as formulas), then each site UPS."""
    plan = r.model.power
    assert plan is not None
    head_cells(ws, top, PDU_PHASE_COLS)
    at = top
    # Rack groups alike share one RackPower (alike sites' racks): its phases' values made once a plan.
    phases: dict[int, list[tuple[Any, ...]]] = {}
    for g in plan.groups:
        kind = str(g.kind)
        got = phases.get(id(g.plan))
        if got is None:
            got = phases[id(g.plan)] = [(ld.pdu + 1, str(ld.feed), f"L{ld.phase + 1}", round(ld.normal_w),
                                         round(ld.failover_w), round(ld.rating_w)) for ld in g.plan.phases]
        for values in got:
            at += 1
            put_values(ws, at, [kind, g.rack, *values, fx(f"H{at}-MAX(F{at}:G{at})"), fx(f"MAX(F{at}:G{at})/H{at}")],
                       _PHASE_FORMATS)
    at += 2
    head_cells(ws, at, ("UPS", "Rows", "Load kW", "Other side lost kW", "Rating kW"))
    ups = r.model.scenario.feeds.ups_capacity
    for name, (rows, normal, failover, _) in plan.ups().items():
        at += 1
        put_row(ws, at, [name, rows, round(normal / 1000, 1), round(failover / 1000, 1),
                         round(magnitude(ups, "power") / 1000, 1) if ups is not None else "sized to load"], {})
    put_cell(ws, at + 2, 1, f"Loads: {plan.basis}.")


#: The Checks sheet: every rule run, then the violations it shows and the build's warnings.
WARNING_ROW = "build"


def warning_parts(warning: str) -> tuple[str, str]:
    """A warning's key (``fabrics.compute``, ``gpus``) and the warning, for a Checks row.

    >>> warning_parts("fabrics.oob: the management switches uplink to spines"), warning_parts("3 parts")
    (('fabrics.oob', 'the management switches uplink to spines'), ('', '3 parts'))
    """
    key, sep, rest = warning.partition(": ")
    return (key, rest) if sep and key and all(p.isidentifier() for p in key.split(".")) else ("", warning)

CHECK_COLS = ["Rule", "Severity", "Reads", "Violations", "Stand for", "Unit", "What it checks"]
VIOLATION_COLS = ["Rule", "Severity", "Where", "What is wrong", "End A", "End B", "What to change", "Count"]


def _checks(wb: Workbook, r: Report) -> None:
    """The design rules run on the model: each rule's count, then its first violations (both ends,
    what to change). Warnings are listed like errors; the severity says which would refuse a build."""
    ws = wb.create_sheet("Checks")
    header_row(ws, CHECK_COLS, [18, 9, 12, 11, 11, 10, 70])
    checks = r.checks
    results = checks.results if checks is not None else []
    for n, res in enumerate(results, start=2):
        row = [res.id, res.severity, " + ".join(res.read), res.violations, res.affected, res.rule.unit,
               res.rule.checks]
        for col_no, v in enumerate(row, start=1):
            put_cell(ws, n, col_no, v, COUNT if isinstance(v, int) else None)
        if res.violations:
            ws.cell(n, 1).font = WARN if res.severity == "error" else Font(bold=True)
    top = len(results) + 3
    put_cell(ws, top, 1, checks.summary() if checks is not None else "The design rules were not run.")
    ws.cell(top, 1).font = Font(bold=True)
    top += 2
    shown: list[list[object]] = [
        [res.id, res.severity, v.where, v.message, v.a.text() if v.a else "", v.b.text() if v.b else "", v.fix,
         v.count] for res in (checks.failed if checks is not None else []) for v in res.kept]
    # Every warning of the build (its choices, the order's flags, the catalog's notes) is a row here too.
    shown += [[WARNING_ROW, "warning", where, what, "", "", "", None] for where, what in map(warning_parts, r.warnings)]
    if not shown:
        return
    head_cells(ws, top, VIOLATION_COLS)
    for n, row in enumerate(shown, start=top + 1):
        for col_no, val in enumerate(row, start=1):
            if val is None:
                continue
            put_cell(ws, n, col_no, val, COUNT if isinstance(val, int) else None, align=WRAP)


def _installed(*criteria: str) -> str:
    return ",".join((*criteria, ref("Fabric"), f'"<>{SPARES}"'))


def _tiers(wb: Workbook, r: Report) -> None:
    ws = wb.create_sheet("Tiers")
    header_row(ws, ["Tier", "Links", "Copper links", "Copper share (links)", "Modules", "Fibre runs",
                 "Lit strands", "Capex", "Copper capex", "Copper share (cost)", "Power kW"],
            [13, 12, 12, 12, 12, 12, 12, 18, 16, 12, 12])
    up, dci = r.totals.scale_up, r.totals.scale_across.dci
    usd, qty, tier, cat = ref("Extended price"), ref("Qty"), ref("Tier"), ref("Category")
    for n, name in enumerate(TIERS, start=2):
        put_cell(ws, n, 1, name)
        if name == Tier.SCALE_UP:
            values: list[Any] = [up.links, up.copper_links, None, up.modules, up.fibre_runs, up.fibre_strands]
        elif name == LineTier.COMPUTE:
            values = [0, 0, None, 0, 0, 0]
        else:
            values = [fx(f'SUMIFS(lk_links,lk_tier,A{n})'),
                      fx(f'SUMIFS(lk_links,lk_tier,A{n},lk_medium,"passive-copper")'
                         f'+SUMIFS(lk_links,lk_tier,A{n},lk_medium,"active-copper")'),
                      None, fx(f"SUMIFS(lk_mod_from,lk_tier,A{n})+SUMIFS(lk_mod_to,lk_tier,A{n})"),
                      fx(f"SUMIFS(lk_runs,lk_tier,A{n})"), fx(f"SUMIFS(lk_strands,lk_tier,A{n})")]
            if name == Tier.SCALE_ACROSS:   # the wavelengths and their coherent modules (installed, not spares)
                values[0] = fx(f"SUMIFS(lk_links,lk_tier,A{n})+{dci.links if dci else 0}")
                values[3] = fx(f"SUMIFS(lk_mod_from,lk_tier,A{n})+SUMIFS(lk_mod_to,lk_tier,A{n})"
                               f"+SUMIFS({_installed(qty, tier, f'A{n}', cat, chr(34) + 'coherent optic' + chr(34))})")
        values[2] = fx(f"IF(B{n}=0,0,C{n}/B{n})")
        for c, v in enumerate(values, start=2):
            put_cell(ws, n, c, v, SHARE if c == 4 else COUNT)
        put_cell(ws, n, 8, fx(f"SUMIFS({usd},{tier},A{n})"), USD0)
        put_cell(ws, n, 9, fx(f'SUMIFS({usd},{tier},A{n},{cat},"{Category.COPPER_CABLE}")'), USD0)
        network = f'(H{n}-SUMIFS({usd},{tier},A{n},{cat},"{Category.COMPUTE}"))'
        put_cell(ws, n, 10, fx(f"IF({network}=0,0,I{n}/{network})"), SHARE)
        put_cell(ws, n, 11, fx(f"SUMIFS({ref('Extended power')},{tier},A{n})/1000"), KW)
    for n, name in enumerate(TIERS, start=2):
        key = name.replace("-", "_")
        for c, what in ((2, "links"), (3, "copper_links"), (4, "copper_share"), (5, "modules"),
                        (6, "fibre_runs"), (7, "fibre_strands"), (8, "capex"), (10, "copper_cost_share"),
                        (11, "power_kw")):
            define_name(wb, f"tier_{key}_{what}", f"Tiers!${'ABCDEFGHIJK'[c - 1]}${n}")


# --- TCO ---------------------------------------------------------------------------------

def _sum(criteria: str = "") -> str:
    return f"SUMIFS({ref('Extended price')},{criteria})" if criteria else f"SUM({ref('Extended price')})"


def crf(rate: str, life: str) -> str:
    """The capital recovery factor as a spreadsheet formula."""
    return f"IF({rate}=0,1/{life},{rate}*(1+{rate})^{life}/((1+{rate})^{life}-1))"


_OPTICS = "+".join(_sum(f'{ref("Category")},"{c}"') for c in OPTICS)
_CLASS = {c: _sum(f'{ref("Asset class")},"{c}"') for c in CLASSES}

TCO_ROWS: list[tuple[str, str, str, str]] = [
    ("hardware_usd", "Hardware (BOM, spares included)", _sum(), USD0),
    ("network_capex_usd", "  of it network",
     _sum() + "".join("-" + _sum(f'{ref("Category")},"{c}"') for c in NOT_NETWORK), USD0),
    ("spares_usd", "  of it spares", _sum(f'{ref("Fabric")},"{SPARES}"'), USD0),
    ("storage_usd", "  of it storage appliances", _sum(f'{ref("Category")},"{Category.STORAGE}"'), USD0),
    ("gpu_systems_usd", "  of it GPU systems", _sum(f'{ref("Category")},"{Category.COMPUTE}"'), USD0),
    ("optics_usd", "  of it optics (transceivers, coherent, AOC)", _OPTICS, USD0),
    ("installation_usd", "Installation", "m_links*in_install_link+m_racks*in_install_rack", USD0),
    ("capex_usd", "Capex (with the building and grid connection when the facility is built)",
     'hardware_usd+installation_usd+IF(in_facility="build",building_capex_usd+grid_connection_usd,0)', USD0),
    ("capex_gpu_usd", "Capex: GPU systems", _CLASS["gpu"], USD0),
    ("capex_network_usd", "Capex: network (with link installation)", f"{_CLASS['network']}+m_links*in_install_link",
     USD0),
    ("capex_facility_usd", "Capex: facility (with rack installation)",
     f"{_CLASS['facility']}+m_racks*in_install_rack", USD0),
    ("it_power_kw", "IT power (the CDUs' pumps are facility power)",
     f'(SUM({ref("Extended power")})-SUMIFS({ref("Extended power")},{ref("Category")},"{Category.COOLING}"))/1000', KW),
    ("cooling_power_kw", "Cooling: CDU pumps (facility power on top of IT x PUE)",
     f'SUMIFS({ref("Extended power max")},{ref("Category")},"{Category.COOLING}")/1000', KW),
    ("network_power_kw", "  of it network",
     f'(SUM({ref("Extended power")})' + "".join(f'-SUMIFS({ref("Extended power")},{ref("Category")},"{c}")'
                                                for c in NOT_NETWORK) + ")/1000", KW),
    ("facility_power_kw", "Facility power, typical (IT x PUE + CDUs): the energy cost's basis",
     "it_power_kw*in_pue+cooling_power_kw", KW),
    ("it_power_max_kw", "IT power at maximum (facility sizing)",
     f'(SUM({ref("Extended power max")})-SUMIFS({ref("Extended power max")},{ref("Category")},"{Category.COOLING}"))'
     "/1000", KW),
    ("facility_power_max_kw", "Facility power at maximum (IT max x PUE + CDUs): power and cooling capacity",
     "it_power_max_kw*in_pue+cooling_power_kw", KW),
    ("lease_per_year_usd", "Lease: space per year (colocation per kW-month of IT at maximum, or per rack)",
     'IF(in_space_basis="kW",it_power_max_kw*in_colocation*12,m_racks*in_space)', USD0),
    ("building_capex_usd", "Build: construction (critical IT MW x capex per MW)", "it_power_max_kw/1000*in_build_capex",
     USD0),
    ("grid_connection_usd", "Build: grid connection (facility MW at maximum x cost per MW)",
     "facility_power_max_kw/1000*in_grid_connection", USD0),
    ("crf_building", "Capital recovery factor: building", crf("in_discount_rate", "in_life_building"), "0.000000"),
    ("build_per_year_usd", "Build: capital charge per year ((construction + grid) x CRF)",
     "(building_capex_usd+grid_connection_usd)*crf_building", USD0),
    ("build_less_lease_per_year_usd", "Build less lease per year (negative: building is cheaper)",
     "build_per_year_usd-lease_per_year_usd", USD0),
    ("energy_per_year_usd", "Energy per year", "facility_power_kw*in_hours*in_electricity", USD0),
    ("support_per_year_usd", "Support per year (per asset class)",
     "capex_gpu_usd*in_support_gpu+capex_network_usd*in_support_network+capex_facility_usd*in_support_facility",
     USD0),
    ("dark_fibre_per_year_usd", "Dark fibre per year", "m_dark_fibre_km*in_dark_fibre", USD0),
    ("space_per_year_usd", "Space per year (the lease; 0 when the facility is built)",
     'IF(in_facility="build",0,lease_per_year_usd)', USD0),
    ("staff_per_year_usd", "Operations staff per year", "in_staff_fte*in_staff_cost", USD0),
    ("licences_per_year_usd", "Software licences per year (per GPU and per node)",
     "m_gpus*in_licence_gpu+m_nodes*in_licence_node", USD0),
    ("insurance_tax_per_year_usd", "Insurance and property tax per year", "capex_usd*(in_insurance+in_property_tax)",
     USD0),
    ("opex_per_year_usd", "Opex per year",
     "energy_per_year_usd+support_per_year_usd+dark_fibre_per_year_usd+space_per_year_usd+staff_per_year_usd"
     "+licences_per_year_usd+insurance_tax_per_year_usd", USD0),
    ("depreciation_per_year_usd", "Depreciation per year (straight line, per class life)",
     "capex_gpu_usd/in_life_gpu+capex_network_usd/in_life_network+capex_facility_usd/in_life_facility"
     '+IF(in_facility="build",(building_capex_usd+grid_connection_usd)/in_life_building,0)', USD0),
    ("crf_gpu", "Capital recovery factor: GPU systems", crf("in_discount_rate", "in_life_gpu"), "0.000000"),
    ("crf_network", "Capital recovery factor: network", crf("in_discount_rate", "in_life_network"), "0.000000"),
    ("crf_facility", "Capital recovery factor: facility", crf("in_discount_rate", "in_life_facility"), "0.000000"),
    ("capital_charge_per_year_usd", "Capital charge per year (capex x CRF)",
     "capex_gpu_usd*crf_gpu+capex_network_usd*crf_network+capex_facility_usd*crf_facility"
     '+IF(in_facility="build",build_per_year_usd,0)', USD0),
    ("annual_cost_usd", "Cost per year (capital charge + opex)", "capital_charge_per_year_usd+opex_per_year_usd",
     USD0),
    ("tco_usd", "TCO over the period (capex + years x opex, undiscounted)", "capex_usd+in_years*opex_per_year_usd",
     USD0),
    ("npv_usd", "NPV of the costs over the period (no residual value)",
     "capex_usd+opex_per_year_usd*IF(in_discount_rate=0,in_years,(1-(1+in_discount_rate)^-in_years)/in_discount_rate)",
     USD0),
    ("service_share", "Share of the period in service (after the deployment ramp)", "1-in_ramp_months/(24*in_years)",
     SHARE),
    ("gpu_hours_per_year", "GPU-hours worked per year (GPUs x hours x utilisation x in service)",
     "m_gpus*in_hours*in_utilisation*service_share", COUNT),
    ("usd_per_gpu_hour", "Cost per GPU-hour (levelised: capital charge + opex per year over GPU-hours per year)",
     "annual_cost_usd/gpu_hours_per_year", USD4),
    ("undiscounted_usd_per_gpu_hour", "Cost per GPU-hour (undiscounted: TCO over the period's GPU-hours)",
     "IF(gpu_hours_per_year=0,0,tco_usd/(gpu_hours_per_year*in_years))", USD4),
    ("marginal_usd_per_gpu_hour", "Marginal cost per GPU-hour (energy and support only)",
     "(energy_per_year_usd+support_per_year_usd)/gpu_hours_per_year", USD4),
    ("usd_per_pflop_hour", "Cost per PFLOP/s-hour (dense FP8)",
     "IF(m_pflops_per_gpu=0,0,usd_per_gpu_hour/m_pflops_per_gpu)", USD4),
    ("network_capex_share", "Network share of hardware", "IF(hardware_usd=0,0,network_capex_usd/hardware_usd)",
     SHARE),
    ("network_power_share", "Network share of IT power", "IF(it_power_kw=0,0,network_power_kw/it_power_kw)",
     SHARE),
]


#: What the job costs (bom/costing/job.py), when the scenario sizes the cluster from a training job.
JOB_ROWS: list[tuple[str, str, str, str]] = [
    ("job_gpu_hours", "Job: GPU-hours (work / (FLOP/s per GPU x MFU) / 3600 x the step factor)",
     "m_job_flop/(m_job_flops_per_gpu*m_job_mfu)/3600*m_job_step_factor", COUNT),
    ("job_wall_days", "Job: wall time on every GPU built (days)", "job_gpu_hours/m_gpus/24", "#,##0.00"),
    ("job_energy_mwh", "Job: facility energy (MWh)", "facility_power_kw*job_wall_days*24/1000", "#,##0.0"),
    ("job_cost_usd", "Job: cost at the cost per GPU-hour (levelised)", "job_gpu_hours*usd_per_gpu_hour", USD0),
    ("job_marginal_cost_usd", "Job: cost at the marginal rate (energy and support)",
     "job_gpu_hours*marginal_usd_per_gpu_hour", USD0),
]


#: The TCO sheet's formulas (as text): wrapped, clear of the value in B.
_TCO_FORMULA = Alignment(horizontal="left", wrap_text=True, vertical="top", indent=1)


def _tco(wb: Workbook, r: Report) -> tuple[int, int]:
    ws = wb.create_sheet("TCO")
    header_row(ws, ["Item", "Value", "Formula", "Name"], [46, 20, 90, 26])
    rows = TCO_ROWS + (JOB_ROWS if r.job is not None else [])
    # each cell's alignment given as it is put (no openpyxl Cell made to set it after), where the workbook
    # has its top alignment already: its styles are then added in the same order
    given = TOP in wb._alignments
    for n, (name, label, formula, fmt) in enumerate(rows, start=2):
        top = TOP if given else None
        put_cell(ws, n, 1, label, align=top)
        put_cell(ws, n, 2, fx(formula), fmt, align=top)
        put_cell(ws, n, 3, formula, align=_TCO_FORMULA)
        put_cell(ws, n, 4, name, align=top)
        # A long formula wraps; the row grows with it so the lines do not print over the next row's.
        _fit_height(ws, n, {3: formula})
        if not given:
            for c in (1, 2, 4):
                ws.cell(n, c).alignment = TOP
        define_name(wb, name, f"TCO!$B${n}")
    first = len(rows) + 3
    put_cell(ws, first, 1, "Capex by category")
    cats = _categories(wb)
    for i, cat in enumerate(cats, start=first + 1):
        put_cell(ws, i, 1, cat)
        put_cell(ws, i, 2, fx(f"SUMIFS({ref('Extended price')},{ref('Category')},A{i})"), USD0)
    tiers_at = first + len(cats) + 2
    put_cell(ws, tiers_at, 1, "Power by tier")
    for i, tier in enumerate(TIERS, start=tiers_at + 1):
        put_cell(ws, i, 1, tier)
        put_cell(ws, i, 2, fx(f"SUMIFS({ref('Extended power')},{ref('Tier')},A{i})/1000"), KW)
    left = tiers_at + len(TIERS) + 2
    put_cell(ws, left, 1, "Not included in the TCO")
    ws.cell(left, 1).font = Font(bold=True)
    for i, what in enumerate(NOT_INCLUDED, start=left + 1):
        put_cell(ws, i, 1, what)
    return first, tiers_at


def _categories(wb: Workbook) -> list[str]:
    """The known categories, then any other category the BOM holds (parts added by other stages)."""
    bom = wb["BOM"]   # its lines: below the header row, above the totals row
    values = (value_and_format(bom, n, col("Category"))[0] for n in range(2, bom.max_row))
    seen = [v for v in values if isinstance(v, str)]
    return list(CATEGORIES) + [c for c in dict.fromkeys(seen) if c not in CATEGORIES]


# --- Sensitivity -------------------------------------------------------------------------

SENS_COLS = ["Input", "Case", "Electricity x", "GPU price x", "Optics price x", "Utilisation x", "Discount rate x",
             "GPU capex", "Network capex", "Energy per year", "Support per year", "Opex per year",
             "Capital charge per year", "Cost per year", "Cost per GPU-hour", "Change"]


def _sens_row(n: int) -> dict[int, str]:
    """The model rebuilt in row ``n`` with the multipliers in C..G (columns H..P)."""
    rate = f"(in_discount_rate*G{n})"
    return {
        8: f"capex_gpu_usd+(D{n}-1)*gpu_systems_usd",
        9: f"capex_network_usd+(E{n}-1)*optics_usd",
        10: f"facility_power_kw*in_hours*in_electricity*C{n}",
        11: f"H{n}*in_support_gpu+I{n}*in_support_network+capex_facility_usd*in_support_facility",
        12: (f"J{n}+K{n}+dark_fibre_per_year_usd+space_per_year_usd+staff_per_year_usd+licences_per_year_usd"
             f"+(H{n}+I{n}+capex_facility_usd)*(in_insurance+in_property_tax)"),
        13: (f"H{n}*{crf(rate, 'in_life_gpu')}+I{n}*{crf(rate, 'in_life_network')}"
             f"+capex_facility_usd*{crf(rate, 'in_life_facility')}"),
        14: f"L{n}+M{n}",
        15: f"N{n}/(m_gpus*in_hours*MIN(1,in_utilisation*F{n})*service_share)",   # no more than every hour
        16: f"IF($O$4=0,0,O{n}/$O$4-1)",
    }


def _sensitivity(wb: Workbook, r: Report) -> None:
    ws = wb.create_sheet("Sensitivity")
    put_cell(ws, 1, 1, "Swing")
    put_cell(ws, 1, 2, 0.2, SHARE)
    ws["B1"].style = "Input"
    ws["B1"].number_format = SHARE
    put_cell(ws, 1, 3, "each input is moved down and up by this fraction, the others stay at their values")
    dv = DataValidation(type="decimal", operator="between", formula1="0", formula2="0.9")
    ws.add_data_validation(dv)
    dv.add("B1")
    define_name(wb, "sens_swing", "Sensitivity!$B$1")
    header_row(ws, SENS_COLS, [20, 13, 12, 12, 12, 12, 12, 16, 16, 15, 15, 15, 16, 16, 12, 9], top=3)
    cases = [("Base", "", None)] + [(label, case, i) for i, (_, label) in enumerate(SENSITIVITY)
                                   for case in ("-", "+")]
    for n, (label, case, moved) in enumerate(cases, start=4):
        put_cell(ws, n, 1, label)
        put_cell(ws, n, 2, {"-": "-swing", "+": "+swing", "": "all at value"}[case])
        for k in range(5):
            value = fx(f"1{case}sens_swing") if k == moved else 1
            put_cell(ws, n, 3 + k, value, "0.00")
        for c, formula in _sens_row(n).items():
            put_cell(ws, n, c, fx(formula), {15: USD4, 16: SHARE}.get(c, USD0))
    define_name(wb, "sens_base_usd_per_gpu_hour", "Sensitivity!$O$4")
    for i, (name, _) in enumerate(SENSITIVITY):
        define_name(wb, f"sens_{name}_low", f"Sensitivity!$O${5 + 2 * i}")
        define_name(wb, f"sens_{name}_high", f"Sensitivity!$O${6 + 2 * i}")
    # The tornado: change in cost per GPU-hour at each end, widest swing on top.
    top = len(cases) + 6
    put_cell(ws, top - 1, 1, "Tornado: change in cost per GPU-hour (USD)")
    ws.cell(top - 1, 1).font = Font(bold=True)
    for k, name in enumerate(("Input", "Input down", "Input up")):
        put_cell(ws, top, 1 + k, name)
        ws.cell(top, 1 + k).font = Font(bold=True)
    order = sorted(range(len(SENSITIVITY)), key=lambda i: abs(r.sensitivity[i].high - r.sensitivity[i].low))
    for j, i in enumerate(order, start=top + 1):
        put_cell(ws, j, 1, SENSITIVITY[i][1])
        put_cell(ws, j, 2, fx(f"O{5 + 2 * i}-$O$4"), USD4)
        put_cell(ws, j, 3, fx(f"O{6 + 2 * i}-$O$4"), USD4)
    chart = BarChart()
    chart.type, chart.grouping, chart.overlap = "bar", "clustered", 100
    chart.title = "Cost per GPU-hour: each input down and up by the swing"
    chart.y_axis.title, chart.x_axis.title = "change (USD per GPU-hour)", None
    last = top + len(order)
    chart.add_data(Reference(ws, min_col=2, max_col=3, min_row=top, max_row=last), titles_from_data=True)
    chart.set_categories(Reference(ws, min_col=1, min_row=top + 1, max_row=last))
    chart.x_axis.tickLblPos = "low"   # input names beside the bars, not across them
    chart.width, chart.height = 18, 8
    ws.add_chart(chart, f"E{top}")


# --- Summary -----------------------------------------------------------------------------

#: Said on the Summary: openpyxl writes formulas without their results, so a viewer that does not calculate shows
#: the totals blank. Storing the values would take a spreadsheet engine at build time (LibreOffice, 300 MB); the
#: JSON and CSV beside the workbook carry every figure instead.
CALCULATING_VIEWER = ("Totals are live formulas (they follow every edit to the BOM, Inputs and Order sheets; a figure "
                      "marked build-time value does not). A viewer that does not calculate (a mail preview, pandas, "
                      "a procurement portal) shows them blank: open the workbook in Excel or LibreOffice, or read "
                      "the JSON and CSV files written beside it.")


def _summary(wb: Workbook, r: Report, first: int, tiers_at: int) -> None:
    ws = wb["Summary"]
    ws.column_dimensions["A"].width = 40
    ws.column_dimensions["B"].width = 22
    m, c = r.model, r.model.cluster
    put_cell(ws, 1, 1, f"clusterbom: {r.name}")
    ws["A1"].font = Font(bold=True, size=14)
    put_cell(ws, 2, 1, CALCULATING_VIEWER)
    ws.cell(2, 1).font = Font(italic=True, size=9)
    facts: list[tuple[str, Any]] = [("Platform", m.platform.id), ("GPUs", fx("m_gpus")), ("Nodes", fx("m_nodes")),
                                    ("Scale-up domains (build-time value)", c.domains),
                                    ("Racks (all kinds; build-time value)", m.racks)]
    facts += [(f"  {kind} racks (build-time value)", n)
              for kind, n in (m.placement.counts() if m.placement else {}).items() if n]
    rnd = c.rounding()
    facts += [("GPUs requested", rnd["requested"]), ("GPUs built (build-time value)", rnd["built"]),
              ("GPU rounding", rnd["why"]), ("Sites", c.site_count), ("Priced on", r.priced_on)]
    if r.checks is not None:
        facts.append(("Design rules (Checks sheet)", r.checks.summary()))
    totals = [("Capex", "capex_usd", USD0), ("  of it spares", "spares_usd", USD0),
              ("  of it storage appliances", "storage_usd", USD0),
              ("IT power (typical)", "it_power_kw", KW),
              ("Facility power (typical: energy)", "facility_power_kw", KW),
              ("Facility power at maximum (sizing)", "facility_power_max_kw", KW),
              ("Opex per year", "opex_per_year_usd", USD0),
              ("Cost per year (capital charge + opex)", "annual_cost_usd", USD0),
              ("TCO (undiscounted)", "tco_usd", USD0), ("NPV of the costs", "npv_usd", USD0),
              ("Cost per GPU-hour (levelised)", "usd_per_gpu_hour", USD4),
              ("Marginal cost per GPU-hour (energy and support)", "marginal_usd_per_gpu_hour", USD4),
              ("Cost per PFLOP/s-hour (dense FP8)", "usd_per_pflop_hour", USD4),
              ("Network share of hardware", "network_capex_share", SHARE),

              ("Scale-out copper share (links)", "tier_scale_out_copper_share", SHARE),
              ("Order total (BOM with spares)", "order_total_usd", USD0)]
    if r.range is not None:   # the Monte Carlo runs at build time: an edit here does not move them
        totals += [("Capex P10 (build-time value, Range sheet)", "range_capex_usd_p10", USD0),
                   ("Capex P90 (build-time value)", "range_capex_usd_p90", USD0),
                   ("Cost per GPU-hour P10 (levelised; build-time value)", "range_usd_per_gpu_hour_p10", USD4),
                   ("Cost per GPU-hour P90 (levelised; build-time value)", "range_usd_per_gpu_hour_p90", USD4)]
    for s in r.schedule[:8]:   # the Schedule sheet has every site
        totals += [(f"Site {s.site}: earliest in service", f"site{s.site}_in_service", DATE),
                   ("  idle GPU cost while the last part is late", f"site{s.site}_idle_gpu_cost_usd", USD0)]
    if r.job is not None:
        totals += [(f"Job {r.job.name}: GPU-hours", "job_gpu_hours", COUNT),
                   ("  wall time (days)", "job_wall_days", "#,##0.00"), ("  energy (MWh)", "job_energy_mwh", "#,##0.0"),
                   ("  cost at the cost per GPU-hour (levelised)", "job_cost_usd", USD0),
                   ("  cost at the marginal rate", "job_marginal_cost_usd", USD0)]
    row = 3
    for label, value in facts:
        put_cell(ws, row, 1, label)
        put_cell(ws, row, 2, value, DATE if isinstance(value, dt.date) else COUNT
                 if isinstance(value, int | Formula) else None)
        row += 1
    row += 1
    for label, name, fmt in totals:
        put_cell(ws, row, 1, label)
        put_cell(ws, row, 2, fx(name), fmt)
        row += 1
    if r.warnings:
        row += 1
        put_cell(ws, row, 1, "Warnings for the buyer")
        ws.cell(row, 1).font = WARN
        ws.column_dimensions["C"].width = 30
        for w in r.warnings:
            row += 1
            put_cell(ws, row, 1, w)
            ws.merge_cells(start_row=row, start_column=1, end_row=row, end_column=3)
            ws.cell(row, 1).font = Font(color="C00000")
            ws.cell(row, 1).alignment = WRAP
            ws.row_dimensions[row].height = 14 * (1 + len(w) // 100)
    tco = wb["TCO"]
    n_cat = len(_categories(wb))
    bar = BarChart()
    bar.type, bar.title, bar.y_axis.title = "bar", "Capex by category", "USD"
    bar.add_data(Reference(tco, min_col=2, min_row=first + 1, max_row=first + n_cat))
    bar.set_categories(Reference(tco, min_col=1, min_row=first + 1, max_row=first + n_cat))
    bar.legend, bar.width, bar.height = None, 16, 9
    ws.add_chart(bar, "D3")
    power = BarChart()
    power.title, power.y_axis.title = "Power by tier", "kW"
    power.add_data(Reference(tco, min_col=2, min_row=tiers_at + 1, max_row=tiers_at + len(TIERS)))
    power.set_categories(Reference(tco, min_col=1, min_row=tiers_at + 1, max_row=tiers_at + len(TIERS)))
    power.legend, power.width, power.height = None, 16, 9
    ws.add_chart(power, "D22")


def workbook(r: Report) -> Workbook:
    wb = Workbook()
    wb.active.title = "Summary"
    _inputs(wb, r)
    _bom(wb, r)
    _order(wb, r)
    _order_print(wb, r)
    _links(wb, r)
    _power(wb, r)
    _tiers(wb, r)
    first, tiers_at = _tco(wb, r)
    _schedule(wb, r)
    _phases(wb, r)
    _range(wb, r)
    _sensitivity(wb, r)
    _checks(wb, r)
    _summary(wb, r, first, tiers_at)
    for ws in wb.worksheets:
        paper_setup(ws, r.name)
    return wb


def to_bytes(wb: Workbook, title: str, on: dt.date | None = None, subject: str = "") -> bytes:
    """The workbook as reproducible bytes: document dates from ``on`` (the scenario's date or the
    catalog's newest as-of, never the clock), recalculated when opened."""
    when = dt.datetime.combine(on or dt.date(2026, 1, 1), dt.time())
    p = wb.properties
    p.creator = p.lastModifiedBy = "clusterbom"
    p.created = p.modified = when
    p.title = title
    p.subject = subject or "AI cluster bill of materials, order and total cost of ownership"
    p.description = ("Generated by clusterbom from a scenario and its catalogs. Every total is a live formula "
                     "over the Inputs sheet and the BOM table; estimates are marked.")
    p.keywords = "clusterbom, BOM, TCO, AI cluster"
    p.category = "bill of materials"
    wb.calculation = CalcProperties(fullCalcOnLoad=True)
    buf = io.BytesIO()
    # Each entry deflated once as openpyxl writes it, with its fixed date (no stored archive read back).
    with ReproducibleZip(buf, when.strftime("%Y-%m-%dT%H:%M:%SZ")) as archive, fast_cells():
        ExcelWriter(wb, archive).save()
    return buf.getvalue()


def write_xlsx(r: Report) -> bytes:
    """The BOM workbook's bytes, made with the cycle collector paused (back as it was after): the tens of
    thousands of cells a large build's workbook allocates set off a full pass over the whole model (about
    0.06 G instructions of a million-GPU build, none at 1k); the workbook's own cycles (a cell's sheet, a
    sheet's workbook) are freed by the next collection after it."""
    was = gc.isenabled()
    gc.disable()
    try:
        return to_bytes(workbook(r), f"{r.name}: BOM, order and TCO", r.document_date)
    finally:
        if was:
            gc.enable()
