"""One text-safety rule for every CSV and workbook the tool writes (issue 24).

Two halves: the source holds no CSV writer or cell assignment but the rule's own (so a new writer
cannot forget it), and every writer reachable from the CLI (build, cables, NetBox export) is run
on a catalog overlay whose vendors, parts and descriptions are formulas, then every cell of every
CSV and workbook it wrote is read back."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import openpyxl
import pytest
import yaml

from bom.catalog.load import builtin_dir
from bom.outputs.writers.common import is_formula_like
from tests.hostile.conftest import check, run

ROOT = Path(__file__).resolve().parents[2]
PAYLOADS = ['=HYPERLINK("http://evil.example/","Open")', "+1+1", "-2+2", "@SUM(1)", "\t=3+3", "\uff1d4+4",
            " =5+5", "x\r=6+6"]
#: The modules allowed to create a CSV writer or set a workbook cell: the rule itself and the
#: workbook writers that call it (put_cell, the streamed cable-plan sheets).
RULE = {"bom/outputs/writers/common.py"}
CELLS = {"bom/outputs/writers/xlsx.py", "bom/outputs/writers/cabling_xlsx.py"}


def test_no_csv_writer_or_cell_outside_the_rule():
    """``csv.writer``/``DictWriter`` only in the rule; a cell's value set only where ``cell_text`` is."""
    found = []
    for path in sorted((ROOT / "bom").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        text = path.read_text()
        for n, line in enumerate(text.splitlines(), start=1):
            code = line.split("#", 1)[0]
            if re.search(r"\bcsv\.(writer|DictWriter)\(", code) and rel not in RULE:
                found.append(f"{rel}:{n}: {line.strip()}")
            if re.search(r"\.value\s*=[^=]|\bws\.append\(|\.append\(\s*\[", code) and "openpyxl" in text \
                    and rel not in CELLS:
                found.append(f"{rel}:{n}: {line.strip()}")
    assert not found, "writers that bypass bom.outputs.writers.common:\n" + "\n".join(found)
    xlsx = (ROOT / "bom/outputs/writers/xlsx.py").read_text()
    assert "text = cell_text(value)" in xlsx and 'cell.data_type = "s"' in xlsx


def _overlay(folder: Path) -> None:
    folder.mkdir()
    slots = iter(PAYLOADS * 20)
    for kind, ids in (("platforms", {"dgx-h100"}), ("switches", {"qm9700", "sn2201", "sn4600c", "sn5600"})):
        rows = [r for r in yaml.safe_load((builtin_dir() / f"{kind}.yaml").read_text())[kind] if r["id"] in ids]
        for row in rows:
            for key in ("vendor", "description", "source"):
                if key in row:
                    row[key] = next(slots)
        (folder / f"{kind}.yaml").write_text(yaml.safe_dump({kind: rows}))


def _csv_cells(path: Path) -> list[str]:
    return [c for row in csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline="")) for c in row]


@pytest.mark.slow   # every writer on a hostile catalog: 1.4 to 2.1 s under load (over the fast loop's 2 s in CI)
def test_every_csv_and_workbook_holds_no_formula(tmp_path):
    over = tmp_path / "evil"
    _overlay(over)
    scenario = tmp_path / "s.yaml"
    scenario.write_text("name: evil\nplatform: dgx-h100\ngpus: 128\n"
                        "fabrics: {compute: {}, storage: {switch: sn5600}, oob: {switch: sn2201}}\n")
    out = tmp_path / "out"
    cat = ["--catalog", str(over)]
    check(run("build", str(scenario), "-o", str(out / "build"), "-q", *cat), code=0)
    check(run("cables", str(scenario), "-o", str(out / "cables"), "-q", *cat), code=0)
    check(run("netbox", "export", str(scenario), "-o", str(out / "netbox"), *cat), code=0)
    csvs = sorted(out.rglob("*.csv"))
    books = sorted(out.rglob("*.xlsx"))
    assert {p.parent.name for p in csvs} == {"build", "cables", "netbox"} and books
    carried = set()
    for path in csvs:
        for cell in _csv_cells(path):
            assert not is_formula_like(cell), (path.name, cell)
            carried |= {p for p in ("HYPERLINK", "SUM(1)", "1+1", "2+2") if p in cell}
    assert {"HYPERLINK", "1+1"} <= carried, "the payloads must reach the CSVs for the test to mean anything"
    makers = _csv_cells(out / "netbox" / "04-manufacturers.csv")
    assert "'=HYPERLINK(\"http://evil.example/\",\"Open\")" in makers
    for path in books:
        wb = openpyxl.load_workbook(path)
        for ws in wb.worksheets:
            for row in ws.iter_rows():
                for c in row:
                    if c.data_type == "f":
                        assert not any(m in str(c.value) for m in ("HYPERLINK", "SUM(1", "1+1", "evil")), \
                            (path.name, c.coordinate)
                    elif isinstance(c.value, str) and is_formula_like(c.value):
                        assert c.data_type == "s", (path.name, c.coordinate)
