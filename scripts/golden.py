#!/usr/bin/env python3
"""Record every output of a set of scenarios, and compare two recordings byte for byte.

    python3 scripts/golden.py record DIR [NAME ...]  # run the CLI on each scenario (or those named) into DIR
    python3 scripts/golden.py compare OLD NEW # list every file that differs (exit 1 if any)

A refactoring keeps the outputs: record before, record after, compare. The set is the default
scenario, the reference cases (tests/reference), the NetBox cases (tests/netbox/scenarios), the
golden cases (tests/golden/scenarios: every hop and topology, a million-GPU campus) and the
built-in comparison. Per scenario: ``bom build`` (workbook, report, Markdown, JSON, CSV, the cable
plan when it is small) and its printed summary, ``bom build --json``, ``bom cables --scale-up``
(large plans kept as a digest only), ``bom netbox export`` for the NetBox cases; every BOM
workbook is also dumped cell by cell (``<file>.cells.txt``) so a difference names the cell (the
plan's workbook holds the CSV's rows).
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Files larger than this are kept as a digest (a million-GPU cable plan is hundreds of MB).
KEEP_BYTES = 50_000_000
#: A progress line's elapsed time on stderr (``[ 0.15 s] building the model``).
TIMING = re.compile(rb"\[ *[0-9]+\.[0-9]+ s\]")
#: The NetBox export is checked on these (the others are large).
NETBOX = ("tests/netbox/scenarios",)


def scenarios() -> list[tuple[str, str | None]]:
    out: list[tuple[str, str | None]] = [("default", None)]
    for folder in ("tests/reference", "tests/netbox/scenarios", "tests/golden/scenarios"):
        for path in sorted((ROOT / folder).glob("*.yaml")):
            out.append((f"{Path(folder).parts[1]}-{path.stem}", str(path.relative_to(ROOT))))
    return out


def _run(args: list[str], out: Path, name: str) -> None:
    env = dict(os.environ, COLUMNS="160", PYTHONHASHSEED="0")
    proc = subprocess.run([sys.executable, "-m", "bom.cli", *args], cwd=ROOT, env=env, capture_output=True)
    here = str(out).encode()
    (out / f"{name}.stdout").write_bytes(proc.stdout.replace(here, b"<OUT>"))
    (out / f"{name}.stderr").write_bytes(proc.stderr.replace(here, b"<OUT>"))
    (out / f"{name}.rc").write_text(f"{proc.returncode}\n")


def _cells(path: Path) -> None:
    import openpyxl

    wb = openpyxl.load_workbook(path)
    with open(f"{path}.cells.txt", "w", encoding="utf-8") as fh:
        for ws in wb.worksheets:
            for row in ws.iter_rows():
                for c in row:
                    if c.value is not None:
                        fh.write(f"{ws.title}!{c.coordinate}\t{c.value!r}\n")


def _shrink(folder: Path) -> None:
    """Large files become digests; workbooks get a cell dump."""
    for path in sorted(folder.rglob("*")):
        if not path.is_file():
            continue
        if path.stat().st_size > KEEP_BYTES:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            lines = sum(1 for _ in path.open("rb"))
            path.with_name(path.name + ".sha256").write_text(f"{digest} {path.stat().st_size} bytes {lines} lines\n")
            path.unlink()
        elif path.suffix == ".xlsx" and not path.name.endswith("-cables.xlsx") and zipfile.is_zipfile(path):
            _cells(path)


def record(out: Path, only: list[str] | None = None) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, scen in scenarios():
        if only and name not in only:
            continue
        d = out / name
        d.mkdir(exist_ok=True)
        arg = [scen] if scen else []
        print(name, flush=True)
        _run(["build", *arg, "-o", str(d / "build")], d, "build")
        _run(["build", *arg, "--json", "--quiet", "-o", str(d / "build-json")], d, "build-json")
        shutil.rmtree(d / "build-json", ignore_errors=True)   # the same files as build/
        _run(["cables", *arg, "--scale-up", "--quiet", "-o", str(d / "cables")], d, "cables")
        if scen and scen.startswith(NETBOX):
            _run(["netbox", "export", scen, "-o", str(d / "netbox")], d, "netbox")
        _shrink(d)
    if only and "compare" not in only:
        return
    d = out / "compare"
    d.mkdir(exist_ok=True)
    print("compare", flush=True)
    _run(["compare", "-o", str(d / "out")], d, "compare")
    _run(["compare", "--json", "-o", str(d / "out-json")], d, "compare-json")
    shutil.rmtree(d / "out-json", ignore_errors=True)
    _run(["size"], d, "size")
    _shrink(d)


def compare(old: Path, new: Path) -> int:
    a = {p.relative_to(old) for p in old.rglob("*") if p.is_file()}
    b = {p.relative_to(new) for p in new.rglob("*") if p.is_file()}
    bad = 0
    for rel in sorted(a | b):
        if rel not in a or rel not in b:
            print(f"only in {'old' if rel in a else 'new'}: {rel}")
            bad += 1
            continue
        x, y = (old / rel).read_bytes(), (new / rel).read_bytes()
        if rel.suffix == ".stderr":   # the progress lines carry the time taken
            x, y = TIMING.sub(b"[ T ]", x), TIMING.sub(b"[ T ]", y)
        if x == y:
            continue
        bad += 1
        print(f"differs: {rel}")
        if rel.suffix in (".xlsx",) or b"\0" in x[:4096]:
            continue
        diff = difflib.unified_diff(x.decode(errors="replace").splitlines(), y.decode(errors="replace").splitlines(),
                                    "old", "new", n=0, lineterm="")
        for i, line in enumerate(diff):
            if i >= 12:
                print("    ...")
                break
            print(f"    {line[:200]}")
    print(f"{bad} file(s) differ" if bad else "identical")
    return 1 if bad else 0


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "record":
        record(Path(argv[1]).resolve(), argv[2:])
        return 0
    if len(argv) >= 3 and argv[0] == "compare":
        return compare(Path(argv[1]), Path(argv[2]))
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
