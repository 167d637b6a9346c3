"""What every hostile case must hold to: exit 2 (or 0 when the input is valid), one paragraph on
stderr naming the file, the line and the key, no traceback, no "internal error", quick, and no
file left behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bom.cli import app

ROOT = Path(__file__).resolve().parents[2]
#: The budget of every case (the issue's figures).
SECONDS = 5.0
MEGABYTES = 200

SMALL = """\
name: small
platform: dgx-h100
nodes: 16
"""


@dataclass
class Outcome:
    code: int
    stdout: str
    stderr: str
    seconds: float


def check(result: Outcome, *, code: int = 2, where: str | None = None, key: str | None = None) -> None:
    """The promise for bad input (``code`` 2) or good input (``code`` 0)."""
    err = result.stderr
    assert result.code == code, f"exit {result.code}, expected {code}: {err[-800:]}"
    assert "Traceback" not in err and "internal error" not in err, err
    assert result.seconds < SECONDS, f"{result.seconds:.1f} s"
    if code == 2:
        lines = [line for line in err.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), err
        assert "\x1b" not in err
        if where is not None:
            assert where in err, f"{where!r} not in {err!r}"
        if key is not None:
            assert key in err, f"{key!r} not in {err!r}"


#: Wall seconds before the alarm interrupts a case: the hang limit, not the budget (CPU seconds are), so
#: a loaded machine's waits for a core do not read as a hang.
HANG_S = 6 * SECONDS


class Hung(BaseException):
    """Past HANG_S: a BaseException, so no handler of the CLI's takes it for an input error."""


def run(*args: str) -> Outcome:
    """The CLI in this process (fast); a Python exception escaping it fails the test, and an alarm
    interrupts it (even a blocking open of a FIFO) past HANG_S of wall time."""
    def alarm(_signum: int, _frame: object) -> None:
        raise Hung(f"no exit within {HANG_S:g} s: {args}")

    start = time.process_time()   # CPU seconds: the budget is the work done, not the machine's load
    saved = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, HANG_S)
    try:
        r = CliRunner().invoke(app, list(args))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, saved)
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    return Outcome(r.exit_code, r.stdout, r.stderr, time.process_time() - start)


#: Runs in a small interpreter of its own and starts the CLI from there: a child forked from pytest
#: inherits pytest's resident pages, and Linux counts them in the child's peak (``ru_maxrss`` keeps the
#: high-water mark across exec), so a 200 MB budget measured from a late, large pytest fails on a
#: small child. The launcher is a fresh process, so the child it forks starts small.
LAUNCHER = """
import json, os, resource, subprocess, sys, time
timeout, out, err, cwd = float(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
def limit():
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
with open(out, "wb") as o, open(err, "wb") as e:
    p = subprocess.Popen([sys.executable, "-m", "bom.cli", *sys.argv[5:]], stdin=subprocess.DEVNULL,
                         stdout=o, stderr=e, cwd=cwd, preexec_fn=limit)
    start = time.perf_counter()
    while True:
        pid, status, usage = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() - start > timeout:
            p.kill()
            pid, status, usage = os.wait4(p.pid, 0)
            print(json.dumps({"timeout": True}))
            sys.exit(0)
        time.sleep(0.02)
print(json.dumps({"timeout": False, "code": os.waitstatus_to_exitcode(status),
                  "seconds": usage.ru_utime + usage.ru_stime, "peak_kb": usage.ru_maxrss}))
"""


def run_process(*args: str, timeout: float = 30, cwd: Path | None = None, megabytes: float = MEGABYTES) -> Outcome:
    """The CLI in a child process (for hangs and bombs): killed past ``timeout``, its peak resident
    memory checked against ``megabytes`` (an address-space cap of 1 GB keeps a bomb off the machine)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONDONTWRITEBYTECODE="1")
    with tempfile.TemporaryDirectory() as folder:
        out, err = Path(folder, "out"), Path(folder, "err")
        launched = subprocess.run([sys.executable, "-c", LAUNCHER, str(timeout), str(out), str(err),
                                   str(cwd or ROOT), *args], capture_output=True, text=True, env=env,
                                  timeout=timeout + 30, check=True)
        report = json.loads(launched.stdout)
        if report["timeout"]:
            pytest.fail(f"no exit within {timeout} s: {args}")
        # The child's CPU seconds against the budget (wall time stays the hang limit above): on a
        # loaded machine a quick refusal can still wait seconds for a core.
        result = Outcome(report["code"], out.read_bytes().decode(errors="replace"),
                         err.read_bytes().decode(errors="replace"), report["seconds"])
    peak_mb = report["peak_kb"] / 1024
    assert peak_mb < megabytes, f"{peak_mb:.0f} MB resident at peak: {args}"
    return result


def write(folder: Path, name: str, text: str | bytes) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(textwrap.dedent(text))
    return path


def leftovers(folder: Path) -> list[str]:
    """Temporary files or stages of ours anywhere under ``folder``."""
    return [str(p) for p in folder.rglob("*") if ".clusterbom-" in p.name]
