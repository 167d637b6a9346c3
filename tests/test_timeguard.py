"""The fast loop's time guard (tests/timeguard.py) fails what it must and only that: a pytest of its own
(pytester, in this process) runs small tests against a budget of 0.1 s (BOM_TEST_BUDGET_S) that sleep
or compute for 0.15 s, so each of these takes well under a second."""

from __future__ import annotations

import re
import textwrap

import pytest

from tests import timeguard

CONFTEST = """
from tests import timeguard

def pytest_configure(config):
    config.addinivalue_line("markers", "slow: left out of the fast loop")
    timeguard.configure(config)
"""

CASES = '''
import time
import pytest
from tests.timeguard import needs_slow


def spin(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_quick():
    pass


def test_sleeps():
    time.sleep(0.15)


def test_computes():
    spin(0.15)


@pytest.mark.slow
def test_sleeps_marked_slow():
    time.sleep(0.15)


def test_fails_on_its_own():
    time.sleep(0.15)
    assert 1 == 2


@pytest.fixture()
def slow_setup():
    time.sleep(0.15)


def test_function_fixture_counts(slow_setup):
    pass


def test_starts_libreoffice():
    needs_slow("LibreOffice")


@pytest.mark.slow
def test_starts_libreoffice_marked_slow():
    needs_slow("LibreOffice")
'''

SHARED = '''
import time
import pytest


@pytest.fixture(scope="module")
def built():
    time.sleep(0.2)
    return 1


@pytest.mark.parametrize("i", range({n}))
def test_uses_it(built, i):
    pass
'''


def _run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, budget: str = "0.1",
         **files: str) -> tuple[dict[str, str], str]:
    """Runs ``files`` in a pytest of their own (in this process) with the guard; {nodeid: outcome}, output."""
    monkeypatch.setenv("BOM_TEST_BUDGET_S", budget)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(**{k: textwrap.dedent(v) for k, v in files.items()})
    result = pytester.runpytest_inprocess("-q", "-rA", "-p", "no:cacheprovider", "-p", "no:xdist",
                                         "-p", "no:hypothesispytest")   # its summary takes seconds
    out: dict[str, str] = {}
    for line in result.outlines:
        m = re.match(r"(PASSED|FAILED|ERROR) (\S+)", line)
        if m:
            out[m.group(2)] = m.group(1)
    assert out, result.stdout.str()[-3000:]
    return out, result.stdout.str()


def test_a_test_over_budget_fails_unless_marked_slow(pytester, monkeypatch):
    got, text = _run(pytester, monkeypatch, test_cases=CASES)
    case = "test_cases.py::"
    assert got[case + "test_quick"] == "PASSED"
    assert got[case + "test_sleeps"] == "FAILED" and got[case + "test_computes"] == "FAILED"
    assert got[case + "test_sleeps_marked_slow"] == "PASSED"
    assert got[case + "test_function_fixture_counts"] == "FAILED"
    assert got[case + "test_starts_libreoffice"] == "FAILED"
    assert got[case + "test_starts_libreoffice_marked_slow"] == "PASSED"
    # The message names the test and says what to do; a failure of its own stays its own.
    assert re.search(r"time guard \(tests/timeguard.py\): test_cases.py::test_sleeps took 0\.\d s", text), text
    assert "Mark it @pytest.mark.slow" in text and "BOM_TEST_BUDGET_S raises the budget" in text
    assert got[case + "test_fails_on_its_own"] == "FAILED" and "test_fails_on_its_own took" not in text
    assert "test_cases.py::test_starts_libreoffice starts LibreOffice: mark it @pytest.mark.slow" in text


def test_a_shared_fixture_is_spread_over_the_tests_that_use_it(pytester, monkeypatch):
    got, text = _run(pytester, monkeypatch, test_shared_by_four=SHARED.replace("{n}", "4"),   # 0.05 s a test
                     test_shared_by_one=SHARED.replace("{n}", "1"))                          # 0.2 s for one
    assert all(got[f"test_shared_by_four.py::test_uses_it[{i}]"] == "PASSED" for i in range(4))
    assert got["test_shared_by_one.py::test_uses_it[0]"] == "FAILED"
    assert re.search(r"the module-scoped fixture 'built' took 0\.\d s to set up \(wall 0\.\d s\) for 1 test using it",
                     text), text


def test_a_larger_budget_lets_them_through(pytester, monkeypatch):
    got, _ = _run(pytester, monkeypatch, budget="30", test_cases=CASES.replace("def test_computes", "def _computes"))
    assert got["test_cases.py::test_sleeps"] == "PASSED"


@pytest.mark.parametrize("raw", ["two", "0", "-1"])
def test_a_budget_that_is_not_a_positive_number_is_refused(raw, monkeypatch):
    monkeypatch.setenv("BOM_TEST_BUDGET_S", raw)
    with pytest.raises(pytest.UsageError, match="BOM_TEST_BUDGET_S"):
        timeguard.budget_from_env()


def test_the_default_budget_is_two_seconds(monkeypatch):
    monkeypatch.delenv("BOM_TEST_BUDGET_S", raising=False)
    assert timeguard.budget_from_env() == 2.0
