"""The cable plan as a workbook: "Cabling" and "Racks" sheets, streamed row by row into the zip.

openpyxl's write-only mode makes a cell object per value (about 50,000 cells a second here,
so a 35-column plan of a million rows would take over ten minutes); a plan sheet needs none of
its features, so this writes the SpreadsheetML itself: shared strings for the columns that repeat,
inline strings for those of a value of their own a row (ids, labels), numbers, a bold frozen
header row with a filter, column widths, fixed zip dates (byte-identical output), each chunk of
rows made a column at a time (a column of one value in the chunk is one cell of every row's text),
rows and cells without their optional references. openpyxl and LibreOffice read it back
(tests/outputs/writers/test_cables.py). Only formatting: rows come from the plan.
"""

from __future__ import annotations

import contextlib
import re
import zipfile
from collections.abc import Iterable, Sequence
from itertools import repeat
from operator import itemgetter
from typing import IO, cast
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
_FIRST, _LAST = itemgetter(0), itemgetter(-1)


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


#: The printable ASCII characters, as bytes (deleted by a C-level translate: what is left is not printable).
_PRINTABLE_ASCII = bytes(range(0x20, 0x7F))


def _printable(text: str) -> bool:
    """``text.isprintable()``; for ASCII text (a plan's ids and labels) the bytes left once the printable
    ones are deleted, a third of the time of the character-class test on a column of labels.

    >>> [_printable(t) for t in ("1A.C07-12:p1/2", "a" + chr(9), "", "caf\u00e9", "x\u2028")]
    [True, False, True, True, False]
    """
    return not text.encode("ascii").translate(None, _PRINTABLE_ASCII) if text.isascii() else text.isprintable()


def _plain(values: list[Cell], filled: bool = False) -> bool:
    """Are all of ``values`` text that :func:`_text_cell` writes as it is (checked as one string, then
    each value's first and last character a C-level pass each: a regular expression over the
    joined column cost 0.3 s at 100k GPUs)?"""
    if not values or set(map(type, values)) != {str}:
        return False
    text = "".join(values)   # type: ignore[arg-type]
    if not _printable(text) or "&" in text or "<" in text or ">" in text:
        return False
    texts = cast(list[str], values if filled or "" not in values else list(filter(None, values)))
    return _PLAIN_FIRST.isdisjoint(map(_FIRST, texts)) and " " not in map(_LAST, texts)


def _texts(values: list[Cell]) -> list[str]:
    """The cells of a column's values, as :func:`_cell` makes each: where all are plain text (a
    plan's ids and labels), checked as one string and written as they are."""
    if not _plain(values):
        return list(map(_cell, values))
    return [f'<c t="inlineStr"><is><t>{v}</t></is></c>' if v else "<c/>" for v in values]


_INLINE_START, _INLINE_END = '<c t="inlineStr"><is><t>', "</t></is></c>"
#: A piece of a chunk's rows: a text every row has, or each row's own.
Piece = str | list[str]


def _slot(values: list[Cell]) -> list[Piece]:
    """A column of a value of its own a row, as pieces of a chunk's rows: one ``<c/>`` where all of it
    is empty text, its text between a cell's two ends where all is plain, else each value's cell."""
    if not any(values) and set(map(type, values)) == {str}:
        return ["<c/>"]
    if all(values) and _plain(values, filled=True):
        return [_INLINE_START, values, _INLINE_END]   # type: ignore[list-item]
    return [_texts(values)]


def _joined(pieces: list[Piece], n: int) -> str:
    """``n`` rows of ``pieces``: the texts every row has merged into one between the lists, each row
    joined, then the rows (no per-row format to parse: 0.1 s less at 100k GPUs)."""
    merged: list[Piece] = []
    for p in pieces:
        if isinstance(p, str) and merged and isinstance(merged[-1], str):
            merged[-1] += p
        else:
            merged.append(p)
    return "".join(map("".join, zip(*(repeat(p, n) if isinstance(p, str) else p for p in merged),
                                    strict=True)))


def _one(values: tuple[Cell, ...]) -> bool:
    """Does a column of a chunk hold one value throughout? Its cell is then the one its column's cache
    holds for that value (a cache a column: a rail of 5 is not a length of 5.0), as each row's would be."""
    first = values[0]
    # The ends first: most columns that vary differ there, and then the count is not made.
    return first == values[-1] and values.count(first) == len(values)


class SharedStrings(dict[str, int]):
    """The workbook's repeated text, each value once by first use (a chunk's columns of one value
    first, then the others left to right) in xl/sharedStrings.xml: a cell of a part number or a
    device name is its index, not its text, and the sheet's XML a third smaller (less to join,
    encode and deflate). The columns of a value of its own a row stay inline strings,
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
        # Each column's cache of cells; none for a column of a value of its own a row (ids, labels).
        self.cells: list[_Cells | None] = [None if j in own else _Cells(strings) for j in range(len(header))]
        self.rows = 1
        self.columns = len(header)
        cols = "".join(f'<col min="{i}" max="{i}" width="{w}" customWidth="1"/>' for i, w in enumerate(widths, 1))
        top = ('<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" '
               'activePane="bottomLeft" state="frozen"/></sheetView></sheetViews>')
        head = "".join(_text_cell(h, ' s="1"') for h in header)
        self._write(f'{_HEAD}<worksheet {_NS}>{top}<cols>{cols}</cols><sheetData><row r="1">{head}</row>')

    def _write(self, text: str) -> None:
        """What zipfile's handle does on a write (its sizes, CRC and deflated bytes, which
        test_every_part_is_deflated_at_the_workbooks_level reads back), the CRC by ISA-L: zlib's took
        0.1 CPU s of a 100k-GPU plan's 340 MB of XML, ISA-L's a fifth of that."""
        data, fh = text.encode("utf-8"), self.fh
        if fh.closed:
            raise ValueError("I/O operation on closed file.")
        fh._file_size += len(data)   # type: ignore[attr-defined]
        fh._crc = isal_zlib.crc32(data, fh._crc)   # type: ignore[attr-defined]
        data = fh._compressor.compress(data)   # type: ignore[attr-defined]
        fh._compress_size += len(data)   # type: ignore[attr-defined]
        fh._fileobj.write(data)   # type: ignore[attr-defined]

    def append(self, rows: Iterable[tuple[Cell, ...]]) -> None:
        rows = rows if isinstance(rows, list) else list(rows)
        if not rows:
            return
        n, r = len(rows), self.rows
        # The chunk a column at a time: a column of one value throughout (most of a plan's: its tier,
        # fabric, hop, site, parts, rate) is one cell in the chunk's row template, written as text
        # between the others; each other column a list of its rows' cells. Then one join of them all.
        columns = list(zip(*rows, strict=True))
        if len(columns) < self.columns:
            raise ValueError(f"rows of {len(columns)} cells in a sheet of {self.columns} columns")
        shared = [(j, c) for j, c in enumerate(self.cells) if c is not None]
        ones = {j for j, _ in shared if _one(columns[j])}
        # Those columns' cells first: new text takes the next shared-string index, and theirs is on
        # every row (row by row, their text was met first too).
        made: dict[int, Piece] = {j: c[columns[j][0]] for j, c in shared if j in ones}
        made.update((j, list(map(c.__getitem__, columns[j]))) for j, c in shared if j not in ones)
        # Rows without their number (r is optional: the row after the last; openpyxl, LibreOffice and
        # Excel read it so, as they read cells without theirs): 0.15 CPU s less at 100k GPUs.
        pieces: list[Piece] = ["<row>"]
        for j, cells in enumerate(self.cells):
            pieces += _slot(list(columns[j])) if cells is None else [made[j]]
        pieces.append("</row>")
        self._write(_joined(pieces, n))
        self.rows = r + n

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
