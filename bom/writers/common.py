"""What every writer shares: safe text for spreadsheets and CSV, and reproducible zips."""

from __future__ import annotations

import io
import re
import zipfile

#: Fixed timestamps make two builds of one scenario byte-identical.
FIXED_DATE = (1980, 1, 1, 0, 0, 0)
FIXED_ISO = "2000-01-01T00:00:00Z"
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def safe_text(value: str) -> str:
    """Text from scenarios and catalogs never starts a formula in a CSV (OWASP CSV injection)."""
    return "'" + value if value.startswith(_FORMULA_START) else value


def is_formula_like(value: str) -> bool:
    return value.startswith(_FORMULA_START)


def reproducible_zip(data: bytes, document_iso: str = FIXED_ISO) -> bytes:
    """The same archive with fixed entry dates and document dates (``document_iso``), entries in
    stored order."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = src.read(info.filename)
            if info.filename == "docProps/core.xml":
                body = re.sub(rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*(<)",
                              rb"\g<1>" + document_iso.encode() + rb"\g<2>", body)
            entry = zipfile.ZipInfo(info.filename, FIXED_DATE)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            dst.writestr(entry, body)
    return out.getvalue()
