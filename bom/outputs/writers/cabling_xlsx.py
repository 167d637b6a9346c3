"""The cable plan as a workbook: "Cabling" and "Racks" sheets, streamed row by row into the zip.

openpyxl's write-only mode makes a cell object per value (about 50,000 cells a second here,
so a 35-column plan of a million rows would take over ten minutes); a plan sheet needs none of
its features, so this writes the SpreadsheetML itself: shared strings for the columns that repeat,
inline strings for those of a value of their own a row (ids, labels), numbers, a bold frozen
header row with a filter, column widths, fixed zip dates (byte-identical output), each chunk of
rows as one template of its own columns. openpyxl and LibreOffice read it back
(tests/outputs/writers/test_cables.py). Only formatting: rows come from the plan.
"""

from __future__ import annotations

import contextlib
import re
import zipfile
from collections.abc import Iterable, Sequence
from operator import itemgetter
from typing import IO
from xml.sax.saxutils import escape

from isal import isal_zlib

from bom.model.records import Cell
from bom.outputs.writers.common import FIXED_DATE, is_formula_like

#: The deflate level of every part (the fastest: a plan's XML is mostly repeats).
LEVEL = 1
#: Excel's rows per worksheet (the header is one of them).
EXCEL_ROWS = 1_048_576
_ILLEGAL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_NS = ('xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
       'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"')
_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
_STYLES = (_HEAD + '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
           '<fonts count="2"><font><sz val="11"/><name val="Calibri"/></font>'
           '<font><b/><sz val="11"/><name val="Calibri"/></font></fonts>'
           '<fills count="2"><fill><patternFill patternType="none"/></fill>'
           '<fill><patternFill patternType="gray125"/></fill></fills>'
           '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
           '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
           '<cellXfs count="3"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>'
           '<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>'
           '<xf numFmtId="49" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1" '
           'quotePrefix="1"/></cellXfs>'
           '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>')


def _column(n: int) -> str:
    """Spreadsheet column letters of 0-based column ``n``: 0 -> A, 26 -> AA."""
    s = ""
    n += 1
    while n:
        n, r = divmod(n - 1, 26)
        s = chr(65 + r) + s
    return s


_PLAIN_FIRST = frozenset("=+-@ \uff1d\uff0b\uff0d\uff20")


def _text_cell(value: str, style: str = "") -> str:
    if (not style and value.isprintable() and value[0] not in _PLAIN_FIRST and value[-1] != " "
            and not ("&" in value or "<" in value or ">" in value)):
        return f'<c t="inlineStr"><is><t>{value}</t></is></c>'   # nothing to escape (most plan text)
    text = escape(_ILLEGAL.sub("\ufffd", value)[:32767])
    # A value that looks like a formula is stored as text with a quote prefix (style 2).
    s = ' s="2"' if not style and is_formula_like(value) else style
    space = ' xml:space="preserve"' if text != text.strip() else ""
    return f'<c t="inlineStr"{s}><is><t{space}>{text}</t></is></c>'


def _cell(v: Cell) -> str:
    if v.__class__ is str:
        return _text_cell(v) if v else "<c/>"
    if v is None:
        return "<c/>"
    if isinstance(v, bool):
        return f'<c t="b"><v>{int(v)}</v></c>'
    if isinstance(v, str):   # a str enum (a hop): text, not a number (plain str is the first test: the hot path)
        return _cell(str(v))
    return f"<c><v>{v}</v></c>"


#: A first character or a last that :func:`_text_cell` does not write as it is (between the \x00s
#: :func:`_texts` puts around each value).
_EDGES = re.compile("\x00[=+\\-@ \uff1d\uff0b\uff0d\uff20]| \x00")


def _plain(values: list[Cell]) -> bool:
    """Are all of ``values`` text that :func:`_text_cell` writes as it is (checked as one string)?"""
    if not values or set(map(type, values)) != {str}:
        return False
    text = "".join(values)   # type: ignore[arg-type]
    return not (not text.isprintable() or "&" in text or "<" in text or ">" in text
                or _EDGES.search("\x00" + "\x00".join(values) + "\x00"))   # type: ignore[arg-type]


def _texts(values: list[Cell]) -> list[str]:
    """The cells of a column's values, as :func:`_cell` makes each: where all are plain text (a
    plan's ids and labels), checked as one string and written as they are."""
    if not _plain(values):
        return list(map(_cell, values))
    return [f'<c t="inlineStr"><is><t>{v}</t></is></c>' if v else "<c/>" for v in values]


_INLINE = '<c t="inlineStr"><is><t>%s</t></is></c>'


def _slot(values: list[Cell]) -> tuple[str, list[Cell] | None]:
    """A column of a value of its own a row in a row's template: a cell around each value where all are
    plain text, no value where all are empty (``<c/>``), else each value's cell."""
    if not any(values) and set(map(type, values)) == {str}:
        return "<c/>", None
    if all(values) and _plain(values):
        return _INLINE, values
    return "%s", _texts(values)   # type: ignore[return-value]


class SharedStrings(dict[str, int]):
    """The workbook's repeated text, each value once by first use (xl/sharedStrings.xml): a cell of a
    part number or a device name is its index, not its text, and the sheet's XML a third smaller
    (less to join, encode and deflate). The columns of a value of its own a row stay inline strings,
    so what is held is the distinct values of the others (devices, racks, ports, parts)."""

    def cell(self, value: str) -> str:
        i = self.get(value)
        if i is None:
            i = self[value] = len(self)
        # A value that looks like a formula is stored as text with a quote prefix (style 2).
        return f'<c t="s" s="2"><v>{i}</v></c>' if is_formula_like(value) else f'<c t="s"><v>{i}</v></c>'

    def xml(self) -> str:
        return (f'{_HEAD}<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
                f'uniqueCount="{len(self)}">{"".join(map(_item, self))}</sst>')


def _item(value: str) -> str:
    text = escape(_ILLEGAL.sub("\ufffd", value)[:32767])
    space = ' xml:space="preserve"' if text != text.strip() else ""
    return f"<si><t{space}>{text}</t></si>"


class _Cells(dict[Cell, str]):
    """One column's cell XML by value, made on first sight (most values of a plan repeat: parts,
    roles, racks, devices, ports). A cache a column, as the values of one column are of one type: a
    shared one would hand a rail of 5 the XML of an earlier length of 5.0 (equal keys). Columns of
    one value per row (cable ids, labels, each end's label, an elevation's device) never come here.
    Past :attr:`KEEP` values a column starts again (the plan walks a site at a time, so the devices and racks of the
    site being written are the ones that repeat); what is cached never changes what is written."""

    KEEP = 50_000

    def __init__(self, strings: SharedStrings) -> None:
        super().__init__()
        self.strings = strings

    def __missing__(self, v: Cell) -> str:
        c = self.strings.cell(str(v)) if isinstance(v, str) and v else _cell(v)
        if len(self) >= self.KEEP:
            self.clear()
        self[v] = c
        return c


def _info(name: str) -> zipfile.ZipInfo:
    """A part's entry: fixed date (byte-identical output), deflated at the workbook's level."""
    info = zipfile.ZipInfo(name, FIXED_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    # zf.open(info) and zf.writestr(info) take the level from the ZipInfo, not the ZipFile: left unset,
    # zlib's default (6) deflated a 100k-GPU plan's 480 MB sheet in 6 s; level 1 takes 1 s, 1.5x the size.
    info._compresslevel = LEVEL   # type: ignore[attr-defined]
    info.external_attr = 0o644 << 16
    return info


class _Sheet:
    def __init__(self, zf: zipfile.ZipFile, index: int, header: Sequence[str], widths: Sequence[float],
                 strings: SharedStrings, own: frozenset[int] = frozenset()) -> None:
        self.fh = zf.open(_info(f"xl/worksheets/sheet{index}.xml"), "w", force_zip64=True)
        # The sheet deflated by ISA-L (same format, 5x zlib's speed at level 1 on plan XML, 6 % bigger):
        # at 100k GPUs deflate was a third of the workbook's cost. The zip entry, its CRC and sizes stay
        # zipfile's; the small parts keep zlib.
        self.fh._compressor = isal_zlib.compressobj(LEVEL, isal_zlib.DEFLATED, -15)   # type: ignore[attr-defined]
        # The columns of a value of their own a row (ids, labels), each alone, and the runs of the others
        # between them ((start, end), each column with its cache).
        self.parts: list[int | tuple[int, int]] = []
        for j in range(len(header)):
            if j in own:
                self.parts.append(j)
            elif self.parts and isinstance(self.parts[-1], tuple):
                self.parts[-1] = (self.parts[-1][0], j + 1)
            else:
                self.parts.append((j, j + 1))
        self.cells = [_Cells(strings) for _ in header]
        self.rows = 1
        self.columns = len(header)
        cols = "".join(f'<col min="{i}" max="{i}" width="{w}" customWidth="1"/>' for i, w in enumerate(widths, 1))
        top = ('<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" '
               'activePane="bottomLeft" state="frozen"/></sheetView></sheetViews>')
        head = "".join(_text_cell(h, ' s="1"') for h in header)
        self._write(f'{_HEAD}<worksheet {_NS}>{top}<cols>{cols}</cols><sheetData><row r="1">{head}</row>')

    def _write(self, text: str) -> None:
        self.fh.write(text.encode("utf-8"))

    def append(self, rows: Iterable[tuple[Cell, ...]]) -> None:
        rows = rows if isinstance(rows, list) else list(rows)
        if not rows:
            return
        # A template of the chunk's rows: a column of a value of its own a row gives it a slot (its text
        # where all is plain), a run of the others a slot for their cached cells, joined a row at a time.
        slots = [_slot(list(map(itemgetter(p), rows))) if isinstance(p, int) else ("%s", self._run(rows, *p))
                 for p in self.parts]
        row, r = '<row r="%d">' + "".join(t for t, _ in slots) + "</row>", self.rows
        self._write("".join(map(row.__mod__, zip(range(r + 1, r + 1 + len(rows)),
                                                 *(v for _, v in slots if v is not None), strict=True))))
        self.rows = r + len(rows)

    def _run(self, rows: list[tuple[Cell, ...]], start: int, end: int) -> list[str]:
        """Each row's cells of columns ``start`` to ``end``, from each column's cache (its __missing__
        makes a miss)."""
        cell, cells = dict.__getitem__, self.cells[start:end]
        return ["".join(map(cell, cells, row[start:end])) for row in rows]

    def close(self) -> None:
        last = _column(self.columns - 1)
        self._write(f'</sheetData><autoFilter ref="A1:{last}{self.rows}"/></worksheet>')
        self.fh.close()


class StreamingWorkbook:
    """Sheets written one after another, each row by row; ``close`` adds the workbook parts."""

    def __init__(self, fh: IO[bytes]) -> None:
        self.zf = zipfile.ZipFile(fh, "w", zipfile.ZIP_DEFLATED, compresslevel=LEVEL)
        self.names: list[str] = []
        self.strings = SharedStrings()
        self.current: _Sheet | None = None

    def sheet(self, name: str, header: Sequence[str], widths: Sequence[float], unique: int = 0,
              last: int = 0, own: Iterable[int] = ()) -> _Sheet:
        """A new sheet; ``unique``: how many leading columns hold a value of their own on each row,
        ``last`` how many trailing ones do, ``own`` which others do (0-based). Those are written as
        inline strings; the others' text is shared (held once each, and cached as cells)."""
        if self.current is not None:
            self.current.close()
        self.names.append(name)
        n = len(header)
        mine = frozenset([*range(unique), *range(n - last, n), *own])
        self.current = _Sheet(self.zf, len(self.names), header, widths, self.strings, mine)
        return self.current

    def _part(self, name: str, text: str) -> None:
        self.zf.writestr(_info(name), text)

    def abort(self) -> None:
        """Give up after a failed write: release the zip without writing anything more."""
        for close in ((self.current.fh.close if self.current else None), self.zf.close):
            if close is not None:
                with contextlib.suppress(Exception):
                    close()
        self.current = None

    def close(self) -> None:
        if self.current is not None:
            self.current.close()
            self.current = None
        n = len(self.names)
        part = "application/vnd.openxmlformats-officedocument.spreadsheetml"
        overrides = "".join(f'<Override PartName="/xl/worksheets/sheet{i}.xml" ContentType="{part}.worksheet+xml"/>'
                            for i in range(1, n + 1))
        if self.strings:
            overrides += f'<Override PartName="/xl/sharedStrings.xml" ContentType="{part}.sharedStrings+xml"/>'
        self._part("[Content_Types].xml", _HEAD + (
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            f'<Override PartName="/xl/workbook.xml" ContentType="{part}.sheet.main+xml"/>'
            f'<Override PartName="/xl/styles.xml" ContentType="{part}.styles+xml"/>'
            f'{overrides}</Types>'))
        rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
        self._part("_rels/.rels", _HEAD + (
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rId1" Type="{rel}/officeDocument" Target="xl/workbook.xml"/></Relationships>'))
        sheets = "".join(f'<sheet name="{escape(s)}" sheetId="{i}" r:id="rId{i}"/>'
                         for i, s in enumerate(self.names, 1))
        self._part("xl/workbook.xml", f"{_HEAD}<workbook {_NS}><sheets>{sheets}</sheets></workbook>")
        rels = "".join(f'<Relationship Id="rId{i}" Type="{rel}/worksheet" Target="worksheets/sheet{i}.xml"/>'
                       for i in range(1, n + 1))
        if self.strings:
            rels += f'<Relationship Id="rId{n + 2}" Type="{rel}/sharedStrings" Target="sharedStrings.xml"/>'
        self._part("xl/_rels/workbook.xml.rels", _HEAD + (
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'{rels}<Relationship Id="rId{n + 1}" Type="{rel}/styles" Target="styles.xml"/></Relationships>'))
        if self.strings:
            self._part("xl/sharedStrings.xml", self.strings.xml())
        self._part("xl/styles.xml", _STYLES)
        self.zf.close()
