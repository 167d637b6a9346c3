"""Recalculate a workbook with LibreOffice headless and read the values back."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import openpyxl
import pytest

from tests.timeguard import needs_slow

# A fresh profile that recalculates every formula on load (a plain conversion keeps cached values).
_PROFILE = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema"
 xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse">
<value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="ODFRecalcMode" oor:op="fuse">
<value>0</value></prop></item>
</oor:items>
"""


def soffice() -> str:
    needs_slow("LibreOffice")   # a test that starts it is marked slow (tests/timeguard.py)
    exe = shutil.which("soffice") or shutil.which("libreoffice")
    if exe is None:
        pytest.skip("LibreOffice is not installed (scripts/test.sh installs it)")
    return exe


def recalc(xlsx: Path, work: Path) -> Path:
    """A copy of ``xlsx`` recalculated by LibreOffice."""
    return recalc_many([xlsx], work)[0]


def recalc_many(files: list[Path], work: Path, to: str = "xlsx:Calc MS Excel 2007 XML") -> list[Path]:
    """Copies of ``files`` recalculated by LibreOffice in one run (``to``: the --convert-to filter)."""
    profile = work / "lo-profile"
    (profile / "user").mkdir(parents=True, exist_ok=True)
    (profile / "user" / "registrymodifications.xcu").write_text(_PROFILE)
    out = work / "recalc"
    out.mkdir(exist_ok=True)
    subprocess.run([soffice(), f"-env:UserInstallation=file://{profile}", "--headless", "--norestore",
                    "--convert-to", to, "--outdir", str(out), *map(str, files)],
                   check=True, capture_output=True, timeout=300)
    suffix = "." + to.split(":")[0]
    results = [out / (f.stem + suffix) for f in files]
    for r in results:
        assert r.exists(), "LibreOffice wrote nothing (it exits 0 even when it fails)"
    return results


def named_values(path: Path) -> dict[str, object]:
    """Every defined name that points at one cell, with its (recalculated) value."""
    wb = openpyxl.load_workbook(path, data_only=True)
    out: dict[str, object] = {}
    for name, dn in wb.defined_names.items():
        for sheet, ref in dn.destinations:
            if ":" not in ref:
                out[name] = wb[sheet][ref.replace("$", "")].value
    return out


def errors(path: Path) -> list[str]:
    wb = openpyxl.load_workbook(path, data_only=True)
    bad = []
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if isinstance(cell.value, str) and (cell.value.startswith("#") or cell.value.startswith("Err:")):
                    bad.append(f"{ws.title}!{cell.coordinate}={cell.value}")
    return bad
