"""What every writer shares: safe text for spreadsheets, CSV and terminals, and reproducible zips.

Text from scenarios, catalogs and price files is data, never markup or a formula. Our own
formulas are told apart by type (:class:`Formula`, made only by ``bom.outputs.writers.xlsx.fx``),
never by what a string starts with.
"""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from collections.abc import Iterable
from typing import Any, BinaryIO, TextIO

#: Fixed timestamps make two builds of one scenario byte-identical.
FIXED_DATE = (1980, 1, 1, 0, 0, 0)
FIXED_ISO = "2000-01-01T00:00:00Z"
#: What starts a formula in Excel, LibreOffice or Google Sheets (OWASP "CSV injection").
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n", "\uff1d", "\uff0b", "\uff0d", "\uff20")
#: Characters an XML 1.0 document cannot hold (openpyxl refuses them), and the C1 controls.
_XML_ILLEGAL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
#: ANSI/VT escape sequences (CSI, OSC, and two-character escapes) and every other control.
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?|[ -/]*[0-~])"
                   r"|\x9b[0-?]*[ -/]*[@-~]")
#: C1 controls: removed from terminal text (an 8-bit terminal takes \x9b for ESC [). NEL (\x85) is a line
#: break and shown as one (below).
_C1 = re.compile(r"[\x80-\x84\x86-\x9f]")
#: What terminal text shows escaped: every other control (LF and every other line break: VT, FF, CR,
#: the separators \x1c-\x1e, NEL, U+2028, U+2029), DEL, the bidirectional controls that reorder what
#: follows them on screen ("Trojan Source", CVE-2021-42574) and lone surrogates (no encoding holds
#: them). Tab stays a tab.
_SHOWN = re.compile("[\x00-\x08\x0a-\x1f\x7f\x85\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                    "\ud800-\udfff]")
#: What JSON text holds as a \u escape rather than raw (JSON needs it only for C0; the others would
#: reach a terminal that shows the JSON raw, or fail to encode).
_JSON_RAW = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
#: Excel's limit on the text of one cell.
CELL_MAX = 32767


class Formula(str):
    """One of our own spreadsheet formulas, without its leading "="."""


def is_formula_like(value: str) -> bool:
    """Would a spreadsheet read ``value`` as a formula if it were typed into a cell?"""
    return value.lstrip(" ").startswith(_FORMULA_START)


def cell_text(value: str) -> str:
    """``value`` as a workbook can hold it: XML-illegal characters become U+FFFD, length capped.

    CR and CRLF become LF: an XML parser turns a raw CR into LF on reading (and only some
    writers escape it), so the workbook would hold one text or the other by chance.

    >>> cell_text("x\\r\\n=4+4"), cell_text("\\r=1+1")
    ('x\\n=4+4', '\\n=1+1')
    """
    return _XML_ILLEGAL.sub("\ufffd", value.replace("\r\n", "\n").replace("\r", "\n"))[:CELL_MAX]


def safe_text(value: str) -> str:
    """A CSV field that no spreadsheet reads as a formula (OWASP CSV injection).

    Line breaks become LF only, so the csv module quotes the field (it does not quote a bare
    CR when the line terminator is LF); a leading formula character gets a "'" prefix.

    >>> safe_text("=1+1"), safe_text("a\\r=cmd"), safe_text("-test")
    ("'=1+1", 'a\\n=cmd', "'-test")
    """
    text = _XML_ILLEGAL.sub("\ufffd", value.replace("\r\n", "\n").replace("\r", "\n"))
    return "'" + text if is_formula_like(text) else text


class SafeCsvWriter:
    """``csv.writer`` whose every text field goes through :func:`safe_text`: the one way the tool
    writes CSV (``tests/hostile/test_writers.py`` finds any other). Distinct texts are checked once
    (a cable plan repeats its parts, roles and racks on every row)."""

    def __init__(self, fh: TextIO) -> None:
        self._w = csv.writer(fh, lineterminator="\n")
        self._seen: dict[str, str] = {}

    def _safe(self, value: Any) -> Any:
        if value.__class__ is not str and not isinstance(value, str):
            return value
        got = self._seen.get(value)
        if got is None:
            got = safe_text(value)
            if len(self._seen) < 200_000:
                self._seen[value] = got
        return got

    def writerow(self, row: Iterable[Any]) -> None:
        self._w.writerow([self._safe(v) for v in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        safe = self._safe
        self._w.writerows([[safe(v) for v in row] for row in rows])


def csv_writer(fh: TextIO) -> SafeCsvWriter:
    """A CSV writer (LF line ends) that no spreadsheet reads a formula from."""
    return SafeCsvWriter(fh)


def csv_text(header: Iterable[str], rows: Iterable[Iterable[Any]]) -> str:
    """``header`` and ``rows`` as CSV text, every field made safe."""
    buf = io.StringIO()
    w = csv_writer(buf)
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


def _escape(m: re.Match[str]) -> str:
    ch = m.group()
    if ch in "\n\r":
        return "\\n" if ch == "\n" else "\\r"
    return f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}"


def terminal_text(value: str) -> str:
    r"""One line as a terminal may show it (the one rule for every line a command prints): escape
    sequences and C1 controls removed; line breaks, other controls, bidirectional controls and lone
    surrogates shown escaped, so text from a file or a server never moves the cursor, sets the title,
    starts a line of its own or reorders one.

    >>> terminal_text("a\x1b]0;title\x07\x1b[2Jb\x9b31mc\ncounted: ok\u2028d\u202ee\udc80")
    'abc\\ncounted: ok\\u2028d\\u202ee\\udc80'
    """
    text = _ANSI.sub("", str(value))
    return _SHOWN.sub(_escape, _C1.sub("", text))


def _json_escape(m: re.Match[str]) -> str:
    return f"\\u{ord(m.group()):04x}"


def json_safe(text: str) -> str:
    r"""JSON text with DEL, C1 and bidirectional controls, Unicode line breaks and lone surrogates as
    \u escapes: the same JSON, which a terminal can show and every encoding can hold.

    >>> json_safe('{"a": "x\x9b\u2028\udc80"}')
    '{"a": "x\\u009b\\u2028\\udc80"}'
    """
    if text.isascii() and "\x7f" not in text:   # nearly every JSON: two C scans, not the pattern's (1 MB: 3 ms)
        return text
    return _JSON_RAW.sub(_json_escape, text)


def json_text(data: Any, **kw: Any) -> str:
    """``json.dumps(data, ensure_ascii=False, **kw)`` through :func:`json_safe` (``indent=2``, what every
    JSON we write uses, through :func:`indented`: the same text)."""
    text = indented(data) if kw == {"indent": 2} else json.dumps(data, ensure_ascii=False, **kw)
    return json_safe(text)


_C_ENCODER = getattr(json.encoder, "c_make_encoder", None)


def indented(data: Any) -> str:
    """``json.dumps(data, ensure_ascii=False, indent=2)``, the same text, about three times as fast.

    The standard library's C encoder cannot indent, so ``indent`` takes its pure-Python encoder, which
    yields every token. Here a container whose items are all scalars (most: a schedule's arrival, a list
    of numbers) is one C-encoder call whose item separator is the newline and its depth's indent; a dict
    that also holds containers is one call with its containers stood in by ``null`` and split on a NUL
    separator, its containers put in after. A JSON string never holds a raw control character (the
    encoder escapes them), so a newline or NUL in the text is always a separator. Python walks only the
    containers that hold containers (so a cycle ends in RecursionError, not json's ValueError)."""
    if _C_ENCODER is None:   # an interpreter without the _json accelerator
        return json.dumps(data, ensure_ascii=False, indent=2)
    return _Indenter(_C_ENCODER).text(data, 0)


class _Indenter:
    """One ``indented`` call's C encoders, one per item separator (each call's own, so that the C
    encoder's circular-reference ``markers``, which a TypeError part-way leaves dirty, start clean)."""

    def __init__(self, make: Any) -> None:
        self.make = make
        self.default = json.JSONEncoder().default   # what json.dumps raises on a value it cannot encode
        self.encoders: dict[str, Any] = {}
        self.scalars: set[type] = {str, int, float, bool, type(None)}
        self.containers: set[type] = set()   # the types is_scalar said are not
        # A list met again (each site's arrivals, one list for alike sites; the flags of a part's lines) is
        # written once; by identity, which holds while the data is (the whole call).
        self.done: dict[tuple[int, int], str] = {}

    def encode(self, o: Any, separator: str) -> str:
        """``o`` C-encoded with ``separator`` between items and ``": "`` after keys."""
        enc = self.encoders.get(separator)
        if enc is None:
            enc = self.encoders[separator] = self.make({}, self.default, json.encoder.encode_basestring, None,
                                                       ": ", separator, False, False, True)
        return "".join(enc(o, 0))

    def is_scalar(self, t: type) -> bool:
        """Whether both encoders write a value of type ``t`` as one token: str, int and float and their
        subclasses (our enums; both encoders write their value), None."""
        if t in self.scalars:
            return True
        if t in self.containers:
            return False
        if issubclass(t, (str, int, float)):
            self.scalars.add(t)
            return True
        self.containers.add(t)
        return False

    def text(self, o: Any, depth: int) -> str:
        """``o`` as indented JSON whose first line is already placed and whose closing bracket is at ``depth``."""
        if isinstance(o, dict):
            return self.mapping(o, depth) if o else "{}"
        if isinstance(o, (list, tuple)):
            if not o:
                return "[]"
            done = self.done.get((id(o), depth))
            if done is None:
                inner = "\n" + "  " * (depth + 1)
                kinds = set(map(type, o))
                if kinds <= self.scalars or all(map(self.is_scalar, kinds)):
                    done = "[" + inner + self.encode(o, "," + inner)[1:-1] + inner[:-2] + "]"
                else:
                    items = self.mappings(o, depth + 1) if kinds == {dict} else None
                    if items is None:
                        items = [self.text(v, depth + 1) for v in o]
                    done = "[" + inner + ("," + inner).join(items) + inner[:-2] + "]"
                self.done[id(o), depth] = done
            return done
        return self.encode(o, ",")

    def mappings(self, dicts: list[Any] | tuple[Any, ...], depth: int) -> list[str] | None:
        """Each of a list's dicts as :meth:`mapping` writes it, the whole list one C-encoder call: each dict
        with its containers as ``null``, items on a NUL separator, so a dict ends where ``}``, NUL and ``{``
        meet (within a dict a NUL stands after a scalar, never after ``}``). None for an empty dict."""
        if not all(dicts):
            return None
        scalars, inner = self.scalars, "\n" + "  " * (depth + 1)
        flats: list[dict[Any, Any]] = []
        nested: dict[int, list[tuple[int, Any]]] = {}
        for k, o in enumerate(dicts):
            odd = set(map(type, o.values())) - scalars
            if not odd or all([self.is_scalar(t) for t in odd]):
                flats.append(o)
                continue
            flat = dict(o)
            mine = nested[k] = [(i, v) for i, v in enumerate(o.values()) if type(v) not in scalars]
            keys = list(o)
            for i, _ in mine:
                flat[keys[i]] = None
            flats.append(flat)
        parts = self.encode(flats, "\0")[2:-2].split("}\0{")
        out = []
        for k, part in enumerate(parts):
            if k in nested:
                items = part.split("\0")
                for i, v in nested[k]:   # '"key": null' -> '"key": ' and the container
                    items[i] = items[i][:-4] + self.text(v, depth + 1)
                part = ("," + inner).join(items)
            else:
                part = part.replace("\0", "," + inner)
            out.append("{" + inner + part + inner[:-2] + "}")
        return out

    def mapping(self, o: dict[Any, Any], depth: int) -> str:
        inner = "\n" + "  " * (depth + 1)
        values = list(o.values())
        types = list(map(type, values))
        kinds = set(types)
        if kinds <= self.scalars or all([self.is_scalar(t) for t in kinds]):   # each type registered
            return "{" + inner + self.encode(o, "," + inner)[1:-1] + inner[:-2] + "}"
        scalars = self.scalars
        nested = [i for i, t in enumerate(types) if t not in scalars]
        flat, keys = dict(o), list(o)
        for i in nested:
            flat[keys[i]] = None
        items = self.encode(flat, "\0")[1:-1].split("\0")
        for i in nested:   # '"key": null' -> '"key": ' and the container
            items[i] = items[i][:-4] + self.text(values[i], depth + 1)
        return "{" + inner + ("," + inner).join(items) + inner[:-2] + "}"


#: What an export (DOT, draw.io XML, a netlab YAML) holds as U+FFFD: every control, line breaks
#: included (each of these formats ends its lines itself), DEL, C1, the Unicode line and paragraph
#: separators, bidirectional controls, lone surrogates and the two non-characters XML refuses.
_NOT_IN_EXPORTS = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                             "\ud800-\udfff\ufffe\uffff]")


def export_text(value: object) -> str:
    r"""Text for a drawing or a lab file: escape sequences removed, every control and what XML cannot
    hold as U+FFFD (Graphviz copies a DOT tooltip into its SVG as it is, and a control makes that SVG
    no XML).

    >>> export_text("QSFP\x01-\x1b[31mDD\n\u2028x") == "QSFP\ufffd-DD\ufffd\ufffdx"
    True
    """
    return _NOT_IN_EXPORTS.sub("\ufffd", _ANSI.sub("", str(value)))


#: The controls HTML and Markdown text does not keep (an escape sequence starts with one of them).
_INVISIBLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def visible_text(value: str) -> str:
    """Text for HTML and Markdown: escape sequences and controls other than tab and LF removed."""
    if _INVISIBLE.search(value) is None:   # nearly every value: no escape sequence either (ESC, CSI are here)
        return value
    return _INVISIBLE.sub("\ufffd", _ANSI.sub("", value))


#: Every character :func:`markdown_text` changes or removes (a line break or tab, what an escape sequence
#: starts with, the controls terminal text drops or shows escaped, what Markdown escapes): text without any
#: is its own Markdown (a table's numbers, names and parts: nearly every value).
_MARKDOWN_KEPT_NOT = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                                "\ud800-\udfff\\\\|<>`]")
_MARKDOWN_ESCAPED = re.compile(r"([\\|<>`])")


def markdown_text(value: str) -> str:
    """Text for a Markdown table cell: no controls, no line breaks, pipes and angle brackets escaped."""
    text = str(value)
    if _MARKDOWN_KEPT_NOT.search(text) is None:
        return text
    text = terminal_text(text.replace("\r", " ").replace("\n", " ").replace("\t", " "))
    return _MARKDOWN_ESCAPED.sub(r"\\\1", text)


class ReproducibleZip:
    """A deflated zip archive whose entries have fixed dates and mode and whose document dates are
    ``document_iso``, in the order written: an archive writer (``writestr``, ``namelist``, ``close``) that
    openpyxl's ``ExcelWriter`` writes into, each entry deflated once as it comes."""

    def __init__(self, out: BinaryIO, document_iso: str = FIXED_ISO) -> None:
        self._zip = zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED)
        self._iso = document_iso

    def writestr(self, name: str | zipfile.ZipInfo, data: bytes | str) -> None:
        filename = name.filename if isinstance(name, zipfile.ZipInfo) else name
        body = data.encode("utf-8") if isinstance(data, str) else data   # as ZipFile.writestr encodes text
        if filename == "docProps/core.xml":
            body = re.sub(rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*(<)",
                          rb"\g<1>" + self._iso.encode() + rb"\g<2>", body)
        entry = zipfile.ZipInfo(filename, FIXED_DATE)
        entry.compress_type = zipfile.ZIP_DEFLATED
        entry.external_attr = 0o644 << 16
        self._zip.writestr(entry, body)

    def write(self, filename: str, arcname: str) -> None:
        """A file's bytes as entry ``arcname`` (openpyxl writes a write-only sheet from a file)."""
        with open(filename, "rb") as f:
            self.writestr(arcname, f.read())

    def namelist(self) -> list[str]:
        return self._zip.namelist()

    def close(self) -> None:
        self._zip.close()

    def __enter__(self) -> ReproducibleZip:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def reproducible_zip(data: bytes, document_iso: str = FIXED_ISO) -> bytes:
    """The same archive with fixed entry dates and document dates (``document_iso``), entries in
    stored order."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with ReproducibleZip(out, document_iso) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, src.read(info.filename))
    return out.getvalue()


def price_ranges(lines: Iterable[Any]) -> dict[str, tuple[float, float, str]]:
    """Per part number, the published price range its BOM lines carry (low, high, where published).

    One catalog row sells a part number, so the first line with a range speaks for all of them; a
    quote replaces the range, and a line priced off its row (a sold length) has none."""
    out: dict[str, tuple[float, float, str]] = {}
    for x in lines:
        if x.unit_price_low_usd is not None and x.unit_price_high_usd is not None and x.sku not in out:
            out[x.sku] = (x.unit_price_low_usd, x.unit_price_high_usd, x.unit_price_range_source or "")
    return out


def range_source(source: str | None, price_source: str) -> str:
    """Where a line's published price range comes from, or why it has none."""
    if source:
        return source
    return "placeholder: no published range" if price_source == "estimate" else ""
