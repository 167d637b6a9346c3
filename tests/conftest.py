"""Shared fixtures: the built-in catalog (loaded once) and a CLI runner."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from bom.catalog import Catalog, load_catalog
from bom.cli import app


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return load_catalog()


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
    from bom.pipeline import build_scenario
    from bom.report import make_report
    from bom.scenario import load_scenario

    scenario, src = load_scenario(None)
    return make_report(build_scenario(scenario, src, catalog), catalog)


@pytest.fixture(scope="session")
def default_outputs(tmp_path_factory, default_report):
    """The default scenario's files written once to a folder: {suffix: path}."""
    from bom.outputs import render, write_all

    out = tmp_path_factory.mktemp("default")
    paths = write_all(render(default_report), out)
    return {p.suffix: p for p in paths}
