"""Shared fixtures: the built-in catalog (loaded once) and a CLI runner."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bom.catalog.load import load_catalog
from bom.catalog.rows import Catalog
from bom.cli import app
from tests import timeguard


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return load_catalog()


@pytest.fixture(scope="session", autouse=True)
def _builtin_catalog_read_once() -> Iterator[None]:
    """The built-in catalog's files read and validated once per test process, not at every command.

    ``bom`` reads its catalog once a process; the suite runs hundreds of commands in one process
    (CliRunner), and reading the built-in directory (YAML, then every quantity through pint) was
    about half of the fast loop's CPU: 565 reads, 95 CPU-seconds (issue 41). Every load_catalog
    still builds a new Catalog, applies its overlays and price files and runs its checks; only the
    built-in directory's rows come from the first read. Safe to share: rows are frozen pydantic models
    (a price file replaces a row with ``model_copy``), and each catalog gets dictionaries of its own.
    A test that reads another directory as the base (``base=``, an overlay) reads it as before.
    ``BOM_TEST_CATALOG_CACHE=off`` reads it every time.
    """
    from bom.catalog import load

    if os.environ.get("BOM_TEST_CATALOG_CACHE") == "off":
        yield
        return
    read_dir, builtin = load._load_dir, load.builtin_dir().resolve()
    first: list[Catalog] = []

    def read_once(catalog: Catalog, directory: Path, overlay: bool) -> None:
        if overlay or Path(directory).resolve() != builtin:
            return read_dir(catalog, directory, overlay)
        if not first:
            fresh = Catalog()
            read_dir(fresh, directory, overlay)
            first.append(fresh)
        done = first[0]
        for kind, rows in done.rows.items():
            catalog.rows[kind].update(rows)
        catalog.origin.update(done.origin)
        catalog._keys.update(done._keys)
        catalog.defaults.update(done.defaults)
        return None

    read_once.__wrapped__ = read_dir   # type: ignore[attr-defined]  # tests/catalog/test_read_once.py
    load._load_dir = read_once
    yield
    load._load_dir = read_dir


class Run:
    def __init__(self) -> None:
        self.runner = CliRunner()

    def __call__(self, *args: str):  # type: ignore[no-untyped-def]
        result = self.runner.invoke(app, list(args))
        # A traceback is a bug: every failure must be a BomError turned into exit code 2.
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        return result


@pytest.fixture()
def bom() -> Run:
    return Run()


@pytest.fixture(scope="session")
def default_report(catalog):
    """The built-in default scenario, built once: model, lines, TCO."""
    from bom.inputs.scenario import load_scenario
    from bom.pipeline import build_scenario, report_of

    scenario, src = load_scenario(None)
    return report_of(build_scenario(scenario, src, catalog), catalog)


@pytest.fixture(scope="session")
def default_outputs(tmp_path_factory, default_report):
    """The default scenario's files written once to a folder: {suffix: path}."""
    from bom.outputs.publish import write_all
    from bom.outputs.sets import render

    out = tmp_path_factory.mktemp("default")
    paths = write_all(render(default_report), out)
    return {p.suffix: p for p in paths}


#: The user's own output folder: the suite must never write there (``bom build`` without
#: ``-o`` writes reports/<name> under the current directory).
USER_REPORTS = Path(__file__).resolve().parent.parent / "reports"


def _snapshot(folder: Path) -> dict[str, float]:
    if not folder.is_dir():
        return {}
    return {str(p.relative_to(folder)): p.stat().st_mtime for p in folder.rglob("*")}


def pytest_configure(config: pytest.Config) -> None:
    timeguard.configure(config)   # a test not marked slow over 2 s fails (tests/timeguard.py)


def pytest_sessionstart(session: pytest.Session) -> None:
    session.config._user_reports = _snapshot(USER_REPORTS)  # type: ignore[attr-defined]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    before = getattr(session.config, "_user_reports", None)
    if before is not None and _snapshot(USER_REPORTS) != before:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        print(f"\nFAILED: the test suite wrote into {USER_REPORTS}; tests must write under tmp_path.")


@pytest.fixture(autouse=True)
def _work_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test runs in its own folder, so default outputs land there and not in reports/.

    And without the caller's terminal size: tables fit ``COLUMNS`` when it is set, and a test that
    wants a width sets it. pytest-xdist's workers start with ``COLUMNS=80 LINES=24`` (the
    controlling pytest's environment holds them by then), which clipped the tables of tests that
    expect the full width of a pipe; so would a developer's exported ``COLUMNS``.
    """
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)


@pytest.fixture(scope="session")
def cpo_diff(tmp_path_factory):
    """bom diff's case, built once: the default against the default on co-packaged-optics compute switches
    (q3450-ld, catalogs/switches-cpo.yaml): (old side, new side, diff, its moves, a folder with both
    builds' JSON as old.json and new.json)."""
    import json

    from bom.pipeline.diff import diff_sides, load_side
    from bom.resources import data_dir

    folder = tmp_path_factory.mktemp("cpo")
    text = (data_dir("scenarios") / "default.yaml").read_text()
    assert "switch: q3400" in text
    (folder / "cpo.yaml").write_text(text.replace("switch: q3400", "switch: q3450-ld", 1))
    old = load_side(str(data_dir("scenarios") / "default.yaml"), "OLD")
    new = load_side(str(folder / "cpo.yaml"), "NEW")
    (folder / "old.json").write_text(json.dumps(old.doc))
    (folder / "new.json").write_text(json.dumps(new.doc))
    moves: list = []
    return old, new, diff_sides(old, new, moves.append), moves, folder
