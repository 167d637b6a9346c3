"""The cable plan's writers: streamed CSV and the streamed Cabling/Racks workbook, read back."""

from __future__ import annotations

import csv
import io

import openpyxl
import pytest

from bom.cableplan import rows as plan
from bom.inputs.scenario import load_scenario
from bom.model.hops import HopKind
from bom.outputs import planfiles as cabling
from bom.outputs.writers.cables import write_csv
from bom.outputs.writers.cabling_xlsx import EXCEL_ROWS, StreamingWorkbook
from bom.pipeline import build_scenario
from tests.paths import REFERENCE as REFERENCE_DIR
from tests.spreadsheet import recalc

H100_FULL = REFERENCE_DIR / "superpod_h100_4su_full.yaml"


def test_csv_makes_catalog_text_safe_and_streams_in_chunks():
    rows = [("C1", "=HYPERLINK(1)", 3.5), ("C2", "MMA4Z00-NS", 4)] * 30_000
    out = io.StringIO()
    seen = []
    n = write_csv(iter(rows), ("id", "part", "x"), out, text_columns=(1,), progress=seen.append)
    back = list(csv.reader(io.StringIO(out.getvalue())))
    assert n == 60_000 and sum(seen) == n and len(seen) > 1
    assert back[1] == ["C1", "'=HYPERLINK(1)", "3.5"] and back[2] == ["C2", "MMA4Z00-NS", "4"]


def test_workbook_reads_back_with_text_numbers_and_no_formulas(tmp_path):
    path = tmp_path / "w.xlsx"
    with path.open("wb") as fh:
        wb = StreamingWorkbook(fh)
        wb.sheet("Cabling", ("a", "b", "c", "d"), (10, 10, 10, 10)).append(
            [("x & <y>", 4.7, "=1+1", ""), (" pad ", 8, "p17/2", HopKind.NODE_LEAF)])
        wb.sheet("Racks", ("rack",), (12,)).append([("s1-r01-rk01",)])
        wb.close()
    book = openpyxl.load_workbook(path)
    ws = book["Cabling"]
    assert book.sheetnames == ["Cabling", "Racks"]
    assert [c.value for c in ws[1]] == ["a", "b", "c", "d"] and ws.freeze_panes == "A2"
    assert [c.value for c in ws[2]] == ["x & <y>", 4.7, "=1+1", None]
    assert ws["C2"].data_type == "s"        # text that looks like a formula stays text
    assert [c.value for c in ws[3]] == [" pad ", 8, "p17/2", "node-leaf"]   # a str enum is text
    assert book["Racks"]["A2"].value == "s1-r01-rk01"


def test_workbook_writes_each_number_as_its_own_column_has_it(tmp_path, monkeypatch):
    """Cells are cached a column at a time: a length of 5.0 seen first does not turn a later rail of
    5 (an equal key) into 5.0, and a column's cache starting again changes nothing written."""
    import zipfile

    from bom.outputs.writers import cabling_xlsx

    monkeypatch.setattr(cabling_xlsx._Cells, "KEEP", 2)
    path = tmp_path / "w.xlsx"
    with path.open("wb") as fh:
        wb = StreamingWorkbook(fh)
        wb.sheet("Cabling", ("id", "length", "rail", "label"), (10,) * 4, unique=1, last=1).append(
            [(f"C{i}", [5.0, 3.0, 4.0][i % 3], [5, 3, 4][i % 3], f"L{i}") for i in range(7)])
        wb.close()
    xml = zipfile.ZipFile(path).read("xl/worksheets/sheet1.xml").decode()
    assert xml.count("<c><v>5.0</v></c><c><v>5</v></c>") == 3
    assert xml.count("<c><v>4.0</v></c><c><v>4</v></c>") == 2
    rows = list(openpyxl.load_workbook(path)["Cabling"].iter_rows(min_row=2, values_only=True))
    assert rows[6] == ("C6", 5.0, 5, "L6")


def test_a_chunk_column_of_one_value_is_one_cell_and_rows_follow_each_other(tmp_path):
    """A chunk is written a column at a time: a column of one value in it is that value's cell on every
    row, from the column's own cache (a rail of 5 beside a length of 5.0 stays 5); rows carry no
    number, so each chunk's rows follow the last (openpyxl reads them at the rows written to)."""
    import zipfile

    path = tmp_path / "w.xlsx"
    with path.open("wb") as fh:
        wb = StreamingWorkbook(fh)
        sheet = wb.sheet("Cabling", ("id", "hop", "length", "rail"), (10,) * 4, unique=1)
        sheet.append([(f"C{i}", "node-leaf", 5.0, 5) for i in range(3)])
        sheet.append([(f"C{i}", "node-leaf", 5.0, [5, 3][i % 2]) for i in range(3, 7)])
        wb.close()
    xml = zipfile.ZipFile(path).read("xl/worksheets/sheet1.xml").decode()
    assert xml.count("<row>") == 7 and '<row r="' not in xml.split("</row>", 1)[1]
    assert xml.count('<c t="s"><v>0</v></c><c><v>5.0</v></c><c><v>5</v></c>') == 5
    rows = list(openpyxl.load_workbook(path)["Cabling"].iter_rows(min_row=2))
    assert [(r[0].row, r[0].value) for r in rows] == [(i + 2, f"C{i}") for i in range(7)]
    assert [(r[1].value, r[2].value, r[3].value) for r in rows] == [("node-leaf", 5.0, [5, 3][i % 2] if i > 2 else 5)
                                                                 for i in range(7)]
    assert {type(r[2].value) for r in rows} == {float} and {type(r[3].value) for r in rows} == {int}


def test_repeated_text_is_written_once_and_each_id_inline(tmp_path):
    """The columns that repeat hold an index into xl/sharedStrings.xml (each value once, in the order
    first met); a value that looks like a formula keeps its quote prefix (style 2); text with spaces
    or markup reads back as it was; the columns of a value of their own a row stay inline strings."""
    import zipfile

    path = tmp_path / "w.xlsx"
    with path.open("wb") as fh:
        wb = StreamingWorkbook(fh)
        wb.sheet("Cabling", ("id", "part", "via", "n"), (10,) * 4, unique=1).append(
            [(f"C{i}", "MFP7E30-N005", ["=1+1", " pad ", "a & <b>"][i % 3], i) for i in range(6)])
        wb.sheet("Racks", ("part",), (10,)).append([("MFP7E30-N005",), ("x\x01",)])
        wb.close()
    zf = zipfile.ZipFile(path)
    xml, shared = (zf.read(f"xl/{p}.xml").decode() for p in ("worksheets/sheet1", "sharedStrings"))
    assert shared.count("<si>") == 5 and shared.count("MFP7E30-N005") == 1
    assert '<t xml:space="preserve"> pad </t>' in shared and "a &amp; &lt;b&gt;" in shared
    assert xml.count('<c t="s" s="2"><v>1</v></c>') == 2 and '<c t="inlineStr"><is><t>C5</t></is></c>' in xml
    book = openpyxl.load_workbook(path)
    rows = list(book["Cabling"].iter_rows(min_row=2, values_only=True))
    assert rows[:3] == [("C0", "MFP7E30-N005", "=1+1", 0), ("C1", "MFP7E30-N005", " pad ", 1),
                        ("C2", "MFP7E30-N005", "a & <b>", 2)]
    assert book["Cabling"]["C2"].data_type == "s" and book["Cabling"]["C2"].quotePrefix
    assert [c.value for c in book["Racks"]["A"]] == ["part", "MFP7E30-N005", "x\ufffd"]


def test_columns_of_their_own_anywhere_read_back_as_each_cell_would(tmp_path):
    """A chunk is one template: a column of a value of its own a row (first, last or between shared
    ones, as an elevation's device) is a slot of its plain text, a ``<c/>`` where all of it is empty,
    else each value's own cell (a formula-like start, markup, a number, an empty one among others)."""
    import zipfile

    from bom.outputs.writers.cabling_xlsx import _cell

    rows = [(f"C{i}", "leaf", f"dev-{i}", ["", "x"][i % 2], ["=1", "a<b", 3, ""][i % 4], "", "p1") for i in range(8)]
    path = tmp_path / "w.xlsx"
    with path.open("wb") as fh:
        wb = StreamingWorkbook(fh)
        wb.sheet("S", ("id", "role", "device", "some", "mixed", "none", "port"), (10,) * 7, unique=1, last=1,
                 own=(2, 3, 4, 5)).append(rows)
        wb.close()
    xml = zipfile.ZipFile(path).read("xl/worksheets/sheet1.xml").decode()
    assert ('<row><c t="inlineStr"><is><t>C0</t></is></c><c t="s"><v>0</v></c>'
            f'<c t="inlineStr"><is><t>dev-0</t></is></c><c/>{_cell("=1")}<c/><c t="inlineStr"><is><t>p1</t></is></c>'
            "</row>") in xml
    back = list(openpyxl.load_workbook(path)["S"].iter_rows(min_row=2, values_only=True))
    assert back == [tuple(v if v != "" else None for v in r) for r in rows]


@pytest.mark.slow   # starts LibreOffice
def test_h100_plan_workbook_matches_the_csv_and_opens_in_libreoffice(catalog, tmp_path):
    sc, src = load_scenario(H100_FULL)
    model = build_scenario(sc, src, catalog)
    result = cabling.write_plan(model, tmp_path, "p", catalog=catalog)
    assert result.xlsx and result.rows == plan.row_count(model, power=True)   # the power cords end the plan
    with (tmp_path / "p-cables.csv").open(newline="") as fh:
        rows = list(csv.reader(fh))
    with (tmp_path / "p-racks.csv").open(newline="") as fh:
        racks = list(csv.reader(fh))
    converted = recalc(tmp_path / "p-cables.xlsx", tmp_path / "lo")
    book = openpyxl.load_workbook(converted, read_only=True)
    cabling_rows = list(book["Cabling"].iter_rows(values_only=True))
    assert len(cabling_rows) == len(rows) and len(list(book["Racks"].iter_rows())) == len(racks)
    for mine, theirs in zip(rows[:50], cabling_rows[:50], strict=True):
        assert [_value(v) for v in mine] == [_value("" if v is None else str(v)) for v in theirs]


def _value(v: str) -> object:
    """A CSV field as a spreadsheet holds it: numbers as numbers (400.0 and 400 alike)."""
    try:
        return float(v)
    except ValueError:
        return v


def test_excel_row_limit_decides_the_workbook():
    assert cabling.fits_workbook(EXCEL_ROWS - 1) and not cabling.fits_workbook(EXCEL_ROWS)
    assert "CSV only" in cabling.xlsx_note(EXCEL_ROWS) and cabling.xlsx_note(10) == ""


def test_text_that_needs_quoting_goes_through_the_csv_module():
    rows = [("C1", "2 in-line amplifier sites, 4 x amp", 1), ("C2", 'a "b"', 2)]
    out = io.StringIO()
    write_csv(iter(rows), ("id", "via", "n"), out, text_columns=(1,))
    assert list(csv.reader(io.StringIO(out.getvalue())))[1:] == [[a, b, str(c)] for a, b, c in rows]


def test_a_column_of_plain_text_is_written_as_each_cell_would_be():
    """The workbook's per-row columns (ids, labels) are checked a chunk's column at a time: any value
    that is not plain text as it is (a formula-like start, a trailing space, markup, a control
    character, an enum, a number) sends the whole column through the per-cell path, so the cells
    are the same either way."""
    from bom.outputs.writers.cabling_xlsx import _cell, _texts
    from bom.roles import FabricRole

    columns = [["C00000001", "C00000002"], ["s1-r01:p1 / s1-r02:p2", ""], ["a", "=1+1"], ["a", "-x"],
               ["b ", "c"], ["a&b", "c"], ["x\x01", "y"], ["x", "\x7fy"], ["x", "y\x1f"], ["caf\u00e9", "\u2028"],
               ["\uff1dq", "r"], [FabricRole.COMPUTE, "z"], [1, "2"], []]
    for values in columns:
        assert _texts(values) == [_cell(v) for v in values], values
    assert _texts(["C1", ""]) == ['<c t="inlineStr"><is><t>C1</t></is></c>', "<c/>"]


def test_every_part_is_deflated_at_the_workbooks_level(tmp_path):
    """The sheets by ISA-L, the small parts by zlib, each at the writer's level: ``ZipFile.open(ZipInfo)``
    takes the level from the ZipInfo (left unset, zlib's default 6 deflated a 100k-GPU plan's sheet at a
    sixth of level 1's speed), and the sheet's compressor is swapped on zipfile's write handle (a
    Python whose handle keeps it elsewhere would write zlib's stream and fail here)."""
    import zipfile
    import zlib

    from isal import isal_zlib

    from bom.outputs.writers.cabling_xlsx import LEVEL

    path = tmp_path / "w.xlsx"
    with path.open("wb") as fh:
        wb = StreamingWorkbook(fh)
        wb.sheet("Cabling", ("id", "n"), (10, 10), unique=1).append([(f"C{i:08}", i % 7) for i in range(5000)])
        wb.close()
    with zipfile.ZipFile(path) as zf, path.open("rb") as raw:
        assert zf.testzip() is None
        for info in zf.infolist():
            lib = isal_zlib if info.filename.startswith("xl/worksheets/") else zlib
            level = lib.compressobj(LEVEL, lib.DEFLATED, -15)
            expected = level.compress(zf.read(info)) + level.flush()
            raw.seek(info.header_offset + 26)
            name, extra = int.from_bytes(raw.read(2), "little"), int.from_bytes(raw.read(2), "little")
            raw.seek(name + extra, 1)
            assert raw.read(info.compress_size) == expected, info.filename


@pytest.mark.parametrize("repeats", [(2, 5), (2, 4), (1, 2)])
def test_shared_columns_formatted_once_write_what_csv_writer_writes(repeats, monkeypatch):
    """The columns rows share are formatted once per distinct value (``repeats``), with what stands after
    them formatted per row; the bytes are csv.writer's, also past the cache's size (it starts again)."""
    from bom.outputs.writers import cables

    monkeypatch.setattr(cables._Lines, "KEEP", 3)
    rows = [(f"C{i}", HopKind.NODE_LEAF, 800.0, i % 7, "" if i % 2 else "x", 4.7 * (i % 5)) for i in range(9000)]
    out, want = io.StringIO(), io.StringIO()
    write_csv(iter(rows), ("id", "hop", "rate", "n", "via", "m"), out, repeats=repeats)
    w = csv.writer(want, lineterminator="\n")
    w.writerow(("id", "hop", "rate", "n", "via", "m"))
    w.writerows(rows)
    assert out.getvalue() == want.getvalue()


def test_the_plans_shared_columns_stand_together_in_the_full_profile_only():
    from bom.cableplan.labels import profile_columns

    assert plan.repeats_in(plan.FIELDS) == plan.REPEATS
    full = profile_columns("full", plan.FIELDS)
    assert plan.repeats_in(full) == plan.REPEATS and len(full) > plan.REPEATS[1]
    assert plan.repeats_in(profile_columns("installer", plan.FIELDS)) is None


@pytest.mark.parametrize("phase", [False, True])
def test_places_formatted_once_a_device_write_what_csv_writer_writes(phase, monkeypatch):
    """Each end's place (its columns, keyed by the device's name) is made text once a device, the columns
    between and after it per row (both labels, or labels and a phase): the bytes are csv.writer's, also
    past the caches' size (they start again)."""
    from bom.outputs.writers import cables

    monkeypatch.setattr(cables._Lines, "KEEP", 40)
    made: list[object] = []
    place = cables._Lines._place
    monkeypatch.setattr(cables._Lines, "_place",
                        lambda self, side, r: made.append(r[4 + 5 * side]) or place(self, side, r))

    def end(d: int) -> tuple[object, ...]:
        return f"s{d % 3 + 1}", "" if d % 10 == 0 else d % 4 + 1, f"s{d % 3 + 1}-dev-{d:02d}"

    rows = [(f"C{i}", HopKind.NODE_LEAF, *end(i // 10 % 50), f"p{i % 32}", "MMA4Z00", *end(50 + i // 30 % 30),
             f"p{i % 7}/2", "", 800.0, i % 7, f"a{i}", f"b{i}", *(("phase 1",) if phase else ())) for i in range(9000)]
    header = ("id", "hop", "as", "au", "ad", "ap", "am", "bs", "bu", "bd", "bp", "bm", "rate", "n", "al", "bl",
              *(("phase",) if phase else ()))
    out, want = io.StringIO(), io.StringIO()
    write_csv(iter(rows), header, out, (6, 11), repeats=(12, 14), places=((2, 5, 4), (7, 10, 9)))
    w = csv.writer(want, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    assert out.getvalue() == want.getvalue()
    assert len(made) <= 9000 // 10 + 9000 // 30 and set(made) == {r[4] for r in rows} | {r[9] for r in rows}


def test_each_ends_place_stands_whole_in_the_full_profile_only():
    from bom.cableplan.labels import profile_columns

    full = profile_columns("full", plan.FIELDS)
    a, b = cabling._places(full) or ((0, 0, 0), (0, 0, 0))
    assert full[a[0]:a[1]] == ("a_site", "a_row", "a_rack", "a_u", "a_device", "a_role") and full[a[2]] == "a_device"
    assert full[b[0]:b[1]] == ("b_site", "b_row", "b_rack", "b_u", "b_device", "b_role") and full[b[2]] == "b_device"
    assert cabling._places((*full, "phase")) == (a, b)
    assert cabling._places(profile_columns("installer", plan.FIELDS)) is None
