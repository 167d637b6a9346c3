"""The fast cell writer writes the bytes openpyxl's own writer writes: on a workbook of every kind of cell
(hostile text, white space, formulas, numbers at their edges, dates and hyperlinks left to openpyxl, rows
with dimensions and no cells, an empty sheet, a sheet with a comment) and on
the default build's BOM workbook, every part of the package compared."""

from __future__ import annotations

import datetime as dt
import gc
import io
import math
import weakref
import zipfile

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from openpyxl import Workbook
from openpyxl.comments import Comment
from openpyxl.styles import Alignment, Font
from openpyxl.utils.exceptions import IllegalCharacterError
from openpyxl.writer.excel import ExcelWriter

from bom.costing.categories import Category
from bom.outputs.writers import xlsx
from bom.outputs.writers.sheetxml import as_cells, cell_xml, fast_cells, value_and_format
from bom.outputs.writers.xlsx import fx, put_cell
from bom.roles import Layer, Tier

TEXTS = ("plain", " lead", "trail ", "  ", "\tx", "a & b < c > d", "&amp;", "x\ny", "=1+1", "+3", "-", "@SUM(A1)",
         "é ü ß 中文 \u2028", "\"quoted\" 'single'", "]]>", "<t>", "ends\n", "\u00a0nbsp", "x\u3000", "\u2029",
         "x" * 300)
# 0.0 and -0.0 after 0: equal as keys, written "0" and "-0"
NUMBERS = (0, 1, -1, 0.0, -0.0, 1.0, 10**15, 2**62, 0.1, 1 / 3, -2.5e-300, 1e300, math.nan, math.inf, -math.inf,
           True, False)


def _parts(wb: Workbook, fast: bool) -> dict[str, bytes]:
    wb.properties.created = wb.properties.modified = dt.datetime(2027, 1, 1)   # not the clock
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as archive:
        if fast:
            with fast_cells():
                ExcelWriter(wb, archive).save()
        else:
            as_cells(wb)   # openpyxl's own writer takes Cell objects, not put_cell's records
            ExcelWriter(wb, archive).save()
    z = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    return {name: z.read(name) for name in z.namelist()}


def _every_kind() -> Workbook:
    wb = Workbook()
    ws = wb.active
    for n, text in enumerate(TEXTS, start=1):
        put_cell(ws, n, 1, text)
        put_cell(ws, n, 2, text, "0.0%")
    for n, value in enumerate(NUMBERS, start=1):
        ws.cell(n, 3).value = value
        put_cell(ws, n, 4, value, '#,##0 "USD"')
    for n, formula in enumerate(("SUM(C1:C5)", 'IF(A1="x","<&>",1)', "", "BOM[Extended price]"), start=1):
        put_cell(ws, n, 5, fx(formula))
    ws.cell(1, 6).font = Font(bold=True)             # styled, no value
    ws.cell(2, 6).alignment = Alignment(wrap_text=True)
    ws.cell(3, 6).value = ""
    ws.cell(1, 7).value = dt.date(2027, 3, 1)        # left to openpyxl: a date
    put_cell(ws, 5, 7, dt.date(1900, 2, 28))         # a date record: before the 1900 leap-year bug's day
    put_cell(ws, 6, 7, dt.date(2027, 3, 1), "mm-dd", align=Alignment(vertical="top"))
    put_cell(ws, 7, 7, dt.date(1899, 12, 30), xlsx.DATE)   # the epoch: day 0
    ws.cell(2, 7).value = dt.datetime(2027, 3, 1, 12, 30)
    ws.cell(3, 7).value = "link"
    ws.cell(3, 7).hyperlink = "https://example.com/?a=1&b=2"
    ws.cell(4, 7).value = "#N/A"
    ws.cell(4, 7).data_type = "e"
    ws.row_dimensions[2].height = 30
    ws.row_dimensions[3].hidden = True
    ws.row_dimensions[40].height = 12                # a row with no cells: written empty
    xlsx._set_height(ws, 5, 42)                      # a wrapped row's height, kept beside the records
    xlsx._set_height(ws, 6, 28.5)
    ws.row_dimensions[6].hidden = True               # its dimension made after its height: both written
    xlsx._set_height(ws, 3, 56)                      # a row with a dimension: the height on it
    xlsx._set_height(ws, 42, 14)                     # a height on a row with no cells: written empty
    ws.cell(41, 1)                                    # a cell with no value and no style: left out
    wb.create_sheet("Empty")                          # no rows at all
    return wb


def _with_comment() -> Workbook:
    wb = _every_kind()
    wb.active.cell(5, 1).comment = Comment("a note", "clusterbom")   # openpyxl's writer collects comments
    return wb


def test_every_kind_of_cell_as_openpyxl_writes_it() -> None:
    assert _parts(_every_kind(), True) == _parts(_every_kind(), False)


def test_a_sheet_with_a_comment_as_openpyxl_writes_it() -> None:
    assert _parts(_with_comment(), True) == _parts(_with_comment(), False)


def test_the_default_builds_workbook_as_openpyxl_writes_it(default_report) -> None:
    # Two workbooks: a second save of one workbook writes its tables' relations again.
    assert _parts(xlsx.workbook(default_report), True) == _parts(xlsx.workbook(default_report), False)


def test_left_to_openpyxl() -> None:
    ws = _every_kind().active
    assert cell_xml(ws.cell(1, 7), False) is None   # a date
    assert cell_xml(ws.cell(3, 7), False) is None   # a hyperlink
    assert cell_xml(ws.cell(4, 7), False) is None   # an error
    assert cell_xml(ws.cell(2, 1), False) == '<c r="A2" t="inlineStr"><is><t xml:space="preserve"> lead</t></is></c>'


def _styled(fast: bool) -> Workbook:
    """Cells styled through put_cell's resolved styles (fast) or openpyxl's descriptors, in the same order:
    shared objects, equal objects made apart, a date (styled by its value first), a cell styled twice."""
    wb = Workbook()
    ws = wb.active
    cells = [(1, 1, "head", None, xlsx.HEAD_ALIGN, xlsx.HEAD, xlsx.FILL), (1, 2, 3.5, xlsx.USD, xlsx.TOP, None, None),
             (2, 1, "=text", None, xlsx.WRAP, None, None), (2, 2, 7, xlsx.COUNT, None, Font(bold=True), None),
             (3, 1, dt.date(2027, 5, 1), xlsx.DATE, xlsx.TOP, None, None), (3, 2, 1, "0.000 \"x\"", None, None, None),
             (4, 1, "x", None, Alignment(vertical="top"), Font(bold=True), None), (4, 2, 2, xlsx.USD, None, None, None),
             (1, 1, "again", xlsx.SHARE, xlsx.WRAP, xlsx.WARN, None)]
    for row, col, value, fmt, align, font, fill in cells:
        if fast:
            put_cell(ws, row, col, value, fmt, align=align, font=font, fill=fill)
            continue
        if isinstance(value, dt.date):   # openpyxl's own setter and descriptors, not put_cell's date record
            ws.cell(row, col).value = value
            ws.cell(row, col).number_format = fmt
        else:
            put_cell(ws, row, col, value, fmt)
        cell = ws.cell(row, col)
        for name, got in (("alignment", align), ("font", font), ("fill", fill)):
            if got is not None:
                setattr(cell, name, got)
    return wb


def test_resolved_styles_are_the_descriptors() -> None:
    fast, slow = _styled(True), _styled(False)
    as_cells(fast)
    as_cells(slow)
    assert [tuple(c._style) for c in fast.active._cells.values()] == [
        tuple(c._style) for c in slow.active._cells.values()]
    assert _parts(fast, True) == _parts(slow, False)


def test_a_cell_outside_the_sheet_is_refused() -> None:
    with pytest.raises(ValueError, match="Row"):
        put_cell(Workbook().active, 0, 1, "x")


def test_a_workbook_is_freed_with_its_styles() -> None:
    wb = _styled(True)
    gone = weakref.ref(wb)
    del wb
    gc.collect()
    assert gone() is None


def test_a_records_value_and_format_are_its_cells() -> None:
    fast, cells = _styled(True), _styled(True)
    as_cells(cells)
    for row, col in list(fast.active._cells):
        cell = cells.active.cell(row, col)
        assert value_and_format(fast.active, row, col) == (cell.value, cell.number_format)
    assert type(dict.get(fast.active._cells, (1, 2))) is tuple   # read, not made a Cell
    assert value_and_format(fast.active, 9, 9) == (None, "General")
    assert (9, 9) in fast.active._cells   # made, as ws.cell makes it: its row is written


def test_a_defined_name_as_openpyxl_makes_and_writes_it() -> None:
    from openpyxl.workbook.defined_name import DefinedName
    from openpyxl.xml.functions import tostring

    wb, own = Workbook(), Workbook()
    for name, ref in (("in_pue", "Inputs!$B$2"), ("lk_links", "Links!$G$2:$G$9"), ("x", "Order!$A$1&\"<>\"")):
        xlsx.define_name(wb, name, ref)
        own.defined_names[name] = DefinedName(name, attr_text=ref)
        made, want = wb.defined_names[name], own.defined_names[name]
        assert made.__dict__ == want.__dict__ and dict(made) == dict(want)
        assert tostring(made.to_tree("definedName", 0)) == tostring(want.to_tree("definedName", 0))
    xlsx.define_name(wb, "Print_Area", "Inputs!$A$1:$B$2")   # reserved: openpyxl's own, its _xlnm. prefix
    assert type(wb.defined_names["Print_Area"]) is DefinedName


class _Shouty(str):
    """A str subclass whose str() is not its text (cell_text keeps its text)."""

    def __str__(self) -> str:
        return "SHOUT"


#: Values put_values stores itself or hands to put_cell: text, enums, an odd str subclass, formulas (one
#: openpyxl refuses), numbers, None, bools, dates (a datetime is openpyxl's).
_VALUES = st.sampled_from(["plain", "=1+1", " lead", "x\r\ny", "", "\x01bad", Category.COMPUTE, Tier.SCALE_OUT,
                           Layer.LEAF, _Shouty("text"), fx("SUM(A1:A2)"), fx("A1\x02"), fx(""), 0, -0.0, 1.5,
                           10**15, None, True, dt.date(2027, 3, 1), dt.date(1900, 2, 28),
                           dt.datetime(2027, 3, 1, 12, 30)])
_FORMATS = st.sampled_from([None, xlsx.COUNT, xlsx.DATE, "mm-dd", "0.0%"])
_ALIGNS = st.sampled_from([None, xlsx.WRAP, Alignment(vertical="top")])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 4), st.lists(st.tuples(_VALUES, _FORMATS, _ALIGNS), max_size=6)),
                max_size=6), st.booleans())
@example([(1, [(dt.date(2027, 3, 1), None, None), (Layer.LEAF, None, None), (_Shouty("t"), "0.0%", None)]),
          (1, [(1.5, None, None)])], False)   # a date taking the setter's format; enums; a cell put twice
def test_put_values_is_put_cell_of_each_value_in_order(rows, iso_dates) -> None:  # type: ignore[no-untyped-def]
    """A row's values stored by put_values are put_cell's, in the order given, however the values, formats
    and alignments mix (the order styles are first met is the workbook's order), a cell put twice too: the
    saved workbooks are the same bytes (or the same error)."""
    def made(one_by_one: bool) -> Workbook:
        wb = Workbook()
        wb.iso_dates = iso_dates
        ws = wb.active
        for row, cells in rows:
            if one_by_one:
                for col, (v, fmt, align) in enumerate(cells, start=1):
                    put_cell(ws, row, col, v, fmt, align=align)
            else:
                xlsx.put_values(ws, row, *([c[k] for c in cells] for k in range(3)))
        return wb

    def saved(one_by_one: bool) -> object:
        try:
            return _parts(made(one_by_one), True)
        except IllegalCharacterError as e:   # a formula openpyxl refuses: refused alike
            return type(e), str(e)

    assert saved(False) == saved(True)
