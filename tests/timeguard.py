"""The fast loop's time guard: a test not marked ``slow`` that takes over 2 s fails.

``bash scripts/test.sh --fast`` runs the tests not marked slow and must stay under 2 minutes on
2 cores; without a guard it grew from 553 to 1,312 cases and past 6 minutes (issue 41). So every
test not marked ``slow`` gets a budget, in the fast loop and in CI alike:

- **the test**: its call phase plus the set-up of its function-scoped fixtures (``tmp_path``, a
  scenario it writes, a CLI runner) must take at most ``BUDGET`` seconds;
- **a shared fixture** (class, module, package or session scope, such as ``default_report``) is set
  up once for many tests, so its set-up is spread over the tests in its scope that use it in this
  run (per xdist worker for a session fixture, which each worker builds once): at most ``BUDGET``
  seconds a test. A module fixture of 6 s serving 10 tests passes; one serving 2 tests fails the
  test that set it up.
- Teardown is not counted (removing a temporary folder, closing a server).

Time is wall-clock time less the time spent waiting for a CPU: on a loaded machine (these are
shared) a test is not charged for other processes' turns, while a test that sleeps or waits on a
server is charged for the wait. The test's thread's wait is Linux's (``/proc/thread-self/schedstat``;
plain wall time elsewhere); a child process's is estimated from its CPU time (``Clock``).

``BOM_TEST_BUDGET_S`` sets the budget (default 2); raise it on a machine so loaded that the
estimate falls short. The default holds in ``scripts/test.sh --fast`` and in CI. The guard is
off under ``--pdb`` and ``--trace`` (a debugger stops the clock-watching). A test that fails on its
own is reported as it is; the guard only turns a pass into a failure. ``BOM_TEST_TIMES=FILE`` writes
every test's time (and every shared fixture's) to ``FILE.<worker>``, tab-separated, to study the
suite by.

Starting LibreOffice or Chromium fails a test not marked slow whatever its time (``needs_slow``).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

DEFAULT_BUDGET_S = 2.0
_SCHEDSTAT = Path("/proc/thread-self/schedstat")
#: The test running in this process now (set by the guard), for ``needs_slow``.
_current: pytest.Item | None = None


def needs_slow(what: str) -> None:
    """Fails the running test unless it is marked slow: ``what`` (LibreOffice, Chromium) takes seconds to
    start whatever the test does, and the fast loop leaves it out. Called by the helpers that start them
    (tests/spreadsheet.py ``soffice``, tests/outputs/writers/test_report.py ``chromium``), so a new test
    that uses one is marked slow even on a machine where it happened to start within the budget."""
    item = _current
    if item is not None and item.get_closest_marker("slow") is None:
        pytest.fail(f"{item.nodeid} starts {what}: mark it @pytest.mark.slow (the fast loop, "
                    "scripts/test.sh --fast, runs no LibreOffice or Chromium)", pytrace=False)


def schedstat() -> tuple[float, float]:
    """Seconds this thread has run on a CPU and waited, runnable, for one (Linux; zeros elsewhere)."""
    try:
        ran, waited = _SCHEDSTAT.read_text().split()[:2]
        return int(ran) / 1e9, int(waited) / 1e9
    except (OSError, ValueError):
        return 0.0, 0.0


def children_cpu() -> float:
    """CPU seconds of this process's child processes that have ended (and been waited for)."""
    t = os.times()
    return t.children_user + t.children_system


@dataclass
class Clock:
    """Wall time less the time spent waiting for a CPU, from ``start`` on.

    The test's own thread: Linux says how long it waited. Its child processes (a ``bom`` command, a
    shell pipeline): their wait is estimated as their CPU seconds times the waiting this thread has
    seen per second of CPU since it started, the machine's contention as this worker sees it."""

    wall0: float = field(default_factory=time.perf_counter)
    sched0: tuple[float, float] = field(default_factory=schedstat)
    children0: float = field(default_factory=children_cpu)

    def stop(self) -> tuple[float, float]:
        wall = time.perf_counter() - self.wall0
        ran, waited = schedstat()
        own_wait = max(waited - self.sched0[1], 0.0)
        child = max(children_cpu() - self.children0, 0.0)
        contention = waited / ran if ran > 0 else 0.0
        charged = wall - own_wait - child * contention
        # Never less than the CPU time itself: the test's thread's and its children's.
        return max(charged, max(ran - self.sched0[0], 0.0) + child, 0.0), wall


@dataclass
class Charge:
    """What one test has been charged so far: seconds, wall seconds, and shared fixtures over budget."""

    seconds: float = 0.0
    wall: float = 0.0
    shared: list[str] = field(default_factory=list)


_CHARGE = pytest.StashKey[Charge]()


def budget_from_env() -> float:
    raw = os.environ.get("BOM_TEST_BUDGET_S", "")
    if not raw:
        return DEFAULT_BUDGET_S
    try:
        value = float(raw)
    except ValueError:
        raise pytest.UsageError(f"BOM_TEST_BUDGET_S={raw!r}: seconds, a number such as 2 or 5") from None
    if value <= 0:
        raise pytest.UsageError(f"BOM_TEST_BUDGET_S={raw!r}: must be more than 0 seconds")
    return value


class TimeGuard:
    """Registered by tests/conftest.py for the whole session (doctests in bom/ included)."""

    def __init__(self, config: pytest.Config, budget: float) -> None:
        self.config = config
        self.budget = budget
        self.items: list[pytest.Item] = []
        self.item: pytest.Item | None = None   # the test whose set-up, call or teardown runs now
        #: Rows of (nodeid, what, seconds, wall) for BOM_TEST_TIMES, a file to study the suite's times by.
        self.rows: list[tuple[str, str, float, float]] = []

    @staticmethod
    def slow(item: pytest.Item) -> bool:
        return item.get_closest_marker("slow") is not None

    def charge(self, item: pytest.Item) -> Charge:
        if _CHARGE not in item.stash:
            item.stash[_CHARGE] = Charge()
        return item.stash[_CHARGE]

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        self.items = items   # after -m and -k: the tests this run will hold

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item):  # type: ignore[no-untyped-def]
        global _current
        self.item = _current = item
        yield
        self.item = _current = None

    def users(self, fixturedef: pytest.FixtureDef, request: pytest.FixtureRequest) -> int:
        """The tests of this run (this worker's share of a session fixture) that use this set-up of it."""
        scope_node = request.node
        index = getattr(request, "param_index", 0) if fixturedef.params else None
        n = 0
        for it in self.items:
            if fixturedef.argname not in getattr(it, "fixturenames", ()):
                continue
            if fixturedef.scope != "session" and scope_node not in it.listchain():
                continue
            if index is not None:
                callspec = getattr(it, "callspec", None)
                if callspec is None or callspec.indices.get(fixturedef.argname) != index:
                    continue
            n += 1
        if fixturedef.scope == "session":
            workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
            n = -(-n // max(workers, 1))
        return max(n, 1)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef: pytest.FixtureDef, request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
        clock = Clock()
        yield
        item = self.item
        if item is None:
            return
        seconds, wall = clock.stop()
        charge = self.charge(item)
        if fixturedef.scope == "function":
            charge.seconds += seconds
            charge.wall += wall
            return
        self.rows.append((item.nodeid, f"fixture {fixturedef.argname} ({fixturedef.scope})", seconds, wall))
        n = self.users(fixturedef, request)
        if seconds > self.budget * n:
            charge.shared.append(
                f"the {fixturedef.scope}-scoped fixture {fixturedef.argname!r} took {seconds:.1f} s to set up "
                f"(wall {wall:.1f} s) for {n} test{'s' if n != 1 else ''} using it: over {self.budget:g} s a test")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: pytest.Item):  # type: ignore[no-untyped-def]
        clock = Clock()
        yield
        seconds, wall = clock.stop()
        charge = self.charge(item)
        charge.seconds += seconds
        charge.wall += wall

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo):  # type: ignore[no-untyped-def]
        outcome = yield
        if call.when != "call":
            return
        report: pytest.TestReport = outcome.get_result()
        charge = self.charge(item)
        self.rows.append((item.nodeid, "slow test" if self.slow(item) else "test", charge.seconds, charge.wall))
        if not report.passed or self.slow(item):
            return
        over = list(charge.shared)
        if charge.seconds > self.budget:
            over.insert(0, f"took {charge.seconds:.1f} s (wall {charge.wall:.1f} s, less the time spent waiting "
                           f"for a CPU): over the fast loop's budget of {self.budget:g} s a test")
        if over:
            report.outcome = "failed"
            report.longrepr = (f"time guard (tests/timeguard.py): {item.nodeid} " + "; ".join(over) +
                               ".\nMark it @pytest.mark.slow (it then runs in CI, not in "
                               "`scripts/test.sh --fast`) or make it faster. "
                               "BOM_TEST_BUDGET_S raises the budget on a loaded machine.")

    def pytest_sessionfinish(self) -> None:
        out = os.environ.get("BOM_TEST_TIMES")
        if not out or not self.rows:
            return
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open(f"{out}.{worker}", "w") as fh:
            for nodeid, what, seconds, wall in self.rows:
                fh.write(f"{seconds:.3f}\t{wall:.3f}\t{what}\t{nodeid}\n")


def configure(config: pytest.Config) -> None:
    """Registers the guard, unless a debugger is to stop tests (--pdb, --trace)."""
    if config.getoption("usepdb", False) or config.getoption("trace", False):
        return
    config.pluginmanager.register(TimeGuard(config, budget_from_env()), "clusterbom-timeguard")
