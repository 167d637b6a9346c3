"""Fixtures of the design rules' tests: the small scenarios built once."""

from __future__ import annotations

import pytest

from tests.rules.cases import CLEAN, TWO_SITES, build


@pytest.fixture(scope="package")
def clean(catalog):  # type: ignore[no-untyped-def]
    return build(CLEAN, catalog)


@pytest.fixture(scope="package")
def two_sites(catalog):  # type: ignore[no-untyped-def]
    return build(TWO_SITES, catalog)
