"""Faults while writing: SIGKILL at every rename, link and unlink of the publication, a full disk,
SIGINT and SIGTERM, and two builds racing into one folder. The folder always holds the previous
complete set or the new complete set (and the user's own files), and the next run leaves no
temporary file."""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bom.cli import app
from bom.outputs import publish as outputs
from tests.hostile.conftest import ROOT, SMALL, check, leftovers, run, write

#: Subprocesses, a spreadsheet engine, a browser or generated inputs: left out of the fast loop.
pytestmark = pytest.mark.slow

OLD = SMALL
NEW = SMALL.replace("nodes: 16", "nodes: 32")
#: Runs the CLI with the file operations of bom.outputs.publish wrapped: SIGKILL before the KILL_AT-th one.
HARNESS = textwrap.dedent("""\
    import os, signal, sys, time
    # As a shell starts bom: Ctrl-C is Python's KeyboardInterrupt, whatever the test runner ignores
    # (an ignored SIGINT is inherited, and Python then installs no handler).
    inherited = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    import bom.outputs.publish as o
    count = [0]
    at = int(os.environ.get("KILL_AT", "0"))
    pause = os.environ.get("PAUSE_IN_WRITE")
    def wrap(fn):
        def inner(*a, **k):
            count[0] += 1
            if count[0] == at:
                os.kill(os.getpid(), signal.SIGKILL)
            return fn(*a, **k)
        return inner
    for name in ("rename", "replace", "link", "unlink", "rmdir"):
        setattr(os, name, wrap(getattr(os, name)))
    o._exchange = wrap(o._exchange)
    def hold():
        # Short sleeps, not one long one: a signal the kernel hands to OpenBLAS's thread (numpy
        # comes in with pint) sets Python's flag without waking the main thread from a long sleep.
        for _ in range(6000):
            time.sleep(0.1)
    if pause:
        write = o._write_file
        def slow(path, data):
            if path.name.endswith(".md"):
                open(pause, "w").write(f"SIGINT inherited: {inherited}")
                hold()   # held here until the test's signal arrives
            write(path, data)
        o._write_file = slow
    held = os.environ.get("PAUSE_IN_STREAM")
    if held:   # a streamed file (bom cables): held open once the first streamed file is written
        open_new = o._open_new
        def slow_open(path):
            if path.name.endswith("-racks.csv"):
                open(held, "w").write(f"SIGINT inherited: {inherited}")
                hold()
            return open_new(path)
        o._open_new = slow_open
    if os.environ.get("WRITE_FROM"):   # the writer alone, on a rendered set (no build: quicker)
        from pathlib import Path
        src = Path(os.environ["WRITE_FROM"])
        plan = tuple("small" + suffix for suffix in ("-cables.csv", "-cables.xlsx", "-racks.csv"))
        o.write_all({p.name: p.read_bytes() for p in sorted(src.iterdir())}, Path(sys.argv[1]), plan)
    else:
        sys.argv = ["bom"] + sys.argv[1:]
        from bom.cli import main
        main()
""")


def _spawn(args: list[str], **env: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", HARNESS, *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=dict(os.environ, PYTHONPATH=str(ROOT), **env))


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())} if folder.exists() else {}


@pytest.fixture(scope="module")
def sets(tmp_path_factory):
    """Reference sets of the old and the new scenario (builds are byte-identical), and the scenarios."""
    tmp_path = tmp_path_factory.mktemp("sets")
    ref = {}
    for label, text in (("old", OLD), ("new", NEW)):
        path = write(tmp_path / label, "s.yaml", text)
        # Not run(): its wall-clock alarm is for hostile input, and a loaded machine trips it here.
        r = CliRunner().invoke(app, ["build", str(path), "-o", str(tmp_path / label / "out"), "-q"])
        assert r.exit_code == 0, r.output
        ref[label] = (path, _snapshot(tmp_path / label / "out"))
    return ref


def _prepare(tmp_path: Path, sets) -> Path:
    out = tmp_path / "work" / "out"
    out.mkdir(parents=True)
    for name, data in sets["old"][1].items():
        (out / name).write_bytes(data)
    (out / "notes.txt").write_text("the user's own file")
    return out


def test_sigkill_at_every_step_leaves_old_or_new_set(tmp_path, sets):
    """The writer is killed before its 1st, 2nd, ... file operation until it gets through."""
    user = {"notes.txt": b"the user's own file"}
    old, new = {**sets["old"][1], **user}, {**sets["new"][1], **user}
    killed_at = []
    for at in range(1, 60):
        work = tmp_path / f"k{at}"
        out = _prepare(work, sets)
        p = subprocess.Popen([sys.executable, "-c", HARNESS, str(out)], cwd=ROOT, stderr=subprocess.PIPE,
                             env=dict(os.environ, PYTHONPATH=str(ROOT), KILL_AT=str(at),
                                      WRITE_FROM=str(sets["new"][0].parent / "out")))
        _, err = p.communicate(timeout=60)
        state = _snapshot(out)
        assert state in (old, new), f"a mix after SIGKILL at step {at}: {sorted(state)}"
        if p.returncode == 0:
            assert state == new and not leftovers(work)
            break
        assert p.returncode == -signal.SIGKILL, err.decode()
        killed_at.append(at)
        # The next run cleans what the killed one left and publishes the new set.
        outputs.write_all(sets["new"][1], out)
        assert _snapshot(out) == new and not leftovers(work), at
    print(f"killed before steps {killed_at}")
    assert len(killed_at) >= 5, "the publication has a link, an exchange and the clean-up"


@pytest.mark.parametrize("at", [2])
def test_sigkill_of_bom_build_at_the_exchange(tmp_path, sets, at):
    """The same through the command: the user's file is linked (step 1), then the folders swap."""
    out = _prepare(tmp_path, sets)
    p = _spawn(["build", str(sets["new"][0]), "-q", "-o", str(out)], KILL_AT=str(at))
    p.communicate(timeout=60)
    assert p.returncode == -signal.SIGKILL
    assert _snapshot(out) == {**sets["old"][1], "notes.txt": b"the user's own file"} and leftovers(tmp_path)
    check(run("build", str(sets["new"][0]), "-q", "-o", str(out)), code=0)
    assert _snapshot(out) == {**sets["new"][1], "notes.txt": b"the user's own file"} and not leftovers(tmp_path)


def test_sigkill_when_the_folder_is_new(tmp_path, sets):
    for at in (1, 2):
        out = tmp_path / f"k{at}" / "out"
        p = subprocess.Popen([sys.executable, "-c", HARNESS, str(out)], cwd=ROOT,
                             env=dict(os.environ, PYTHONPATH=str(ROOT), KILL_AT=str(at),
                                      WRITE_FROM=str(sets["new"][0].parent / "out")))
        p.communicate(timeout=60)
        assert _snapshot(out) in ({}, sets["new"][1])
        outputs.write_all(sets["new"][1], out)
        assert _snapshot(out) == sets["new"][1] and not leftovers(tmp_path / f"k{at}")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_while_writing_removes_the_stage(tmp_path, sets, sig):
    out = _prepare(tmp_path, sets)
    flag = tmp_path / "writing"
    p = _spawn(["build", str(sets["new"][0]), "-q", "-o", str(out)], PAUSE_IN_WRITE=str(flag))
    try:   # the child holds its write open until the signal: a loaded machine only makes it slower
        deadline = time.monotonic() + 300
        while not flag.exists():
            assert time.monotonic() < deadline and p.poll() is None, p.stderr.read() if p.stderr else ""
            time.sleep(0.02)
        assert leftovers(tmp_path), "the stage exists while writing"
        p.send_signal(sig)
        try:
            p.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            pytest.fail(f"no exit 120 s after {sig.name} ({flag.read_text()})")
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode != 0
    assert _snapshot(out) == {**sets["old"][1], "notes.txt": b"the user's own file"}
    assert not leftovers(tmp_path)


def test_sigterm_while_bom_cables_streams_leaves_nothing(tmp_path, sets):
    """Issue 24: `bom cables` stopped by SIGTERM while it streams the plan removes its stage (and a
    stage a SIGKILL leaves is removed by the next run)."""
    out = tmp_path / "work" / "plan"
    flag = tmp_path / "streaming"
    for sig in (signal.SIGTERM, signal.SIGKILL):
        flag.unlink(missing_ok=True)
        p = _spawn(["cables", str(sets["new"][0]), "-q", "-o", str(out)], PAUSE_IN_STREAM=str(flag))
        try:
            deadline = time.monotonic() + 300
            while not flag.exists():
                assert time.monotonic() < deadline and p.poll() is None, p.stderr.read() if p.stderr else ""
                time.sleep(0.02)
            assert leftovers(tmp_path), "the stage exists while streaming"
            p.send_signal(sig)
            try:
                p.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                pytest.fail(f"no exit 120 s after {sig.name} ({flag.read_text()})")
        finally:
            if p.poll() is None:
                p.kill()
        assert p.returncode != 0
        if sig == signal.SIGTERM:
            assert not leftovers(tmp_path) and not out.exists()
    assert leftovers(tmp_path), "a SIGKILL leaves its stage"
    r = CliRunner().invoke(app, ["cables", str(sets["new"][0]), "-q", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert not leftovers(tmp_path) and (out / "small-cables.csv").is_file()


def _tmpfs(mount: Path, size: str) -> bool:
    if os.geteuid() != 0:
        return False
    mount.mkdir()
    return subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)],
                          capture_output=True).returncode == 0


def test_full_disk_keeps_the_previous_set(tmp_path, sets, monkeypatch):
    disk = tmp_path / "disk"
    mounted = _tmpfs(disk, "4m")
    try:
        if not mounted:   # not root here: the same fault from a write that fails as a full disk does
            disk.mkdir(exist_ok=True)
            real = outputs._write_file

            def full(path, data):
                if path.suffix == ".md":
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
                real(path, data)

            monkeypatch.setattr(outputs, "_write_file", full)
        out = disk / "out"
        out.mkdir()
        for name, data in sets["old"][1].items():
            (out / name).write_bytes(data)
        filler = disk / "filler"
        if mounted:
            free = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize
            with contextlib.suppress(OSError), open(filler, "wb") as fh:
                fh.write(b"\0" * (free - 16 * 1024))
        r = run("build", str(sets["new"][0]), "-q", "-o", str(out))
        check(r, where=None, key="--output")
        assert "No space left on device" in r.stderr
        assert _snapshot(out) == sets["old"][1] and not leftovers(disk)
        filler.unlink(missing_ok=True)
        monkeypatch.undo()
        check(run("build", str(sets["new"][0]), "-q", "-o", str(out)), code=0)
        assert _snapshot(out) == sets["new"][1] and not leftovers(disk)
    finally:
        if mounted:
            subprocess.run(["umount", str(disk)], check=False)


def test_a_folder_where_an_output_goes_writes_nothing(tmp_path, sets):
    out = _prepare(tmp_path, sets)
    (out / "small.json").unlink()
    (out / "small.json").mkdir()
    before = _snapshot_tree(out)
    check(run("build", str(sets["new"][0]), "-q", "-o", str(out)), key="--output", where=None)
    assert _snapshot_tree(out) == before and not leftovers(tmp_path)


def _snapshot_tree(folder: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None) for p in folder.rglob("*")}


def test_builds_racing_into_one_folder_leave_one_complete_set(tmp_path, sets):
    """Writers of two different sets of one name take turns on the folder's lock."""
    out = tmp_path / "race" / "out"
    for _ in range(3):
        procs = [subprocess.Popen([sys.executable, "-c", HARNESS, str(out)], cwd=ROOT, stderr=subprocess.PIPE,
                                  env=dict(os.environ, PYTHONPATH=str(ROOT),
                                           WRITE_FROM=str(sets[label][0].parent / "out")))
                 for label in ("old", "new", "old", "new")]
        for p in procs:
            _, err = p.communicate(timeout=120)
            assert p.returncode == 0, err.decode()
        # Read once every writer is done: the snapshot reads the files one by one, so another
        # writer's atomic swap of the folder between two of its reads would mix the two sets.
        assert _snapshot(out) in (sets["old"][1], sets["new"][1])
        assert not leftovers(tmp_path / "race")


def test_stale_stages_of_a_killed_build_are_removed_but_not_the_users_files(tmp_path, sets):
    out = _prepare(tmp_path, sets)
    stale = out.parent / f".out{outputs.TAG}999-dead"
    stale.mkdir()
    (stale / "small.json").write_text("half")
    (out.parent / (stale.name + ".json")).write_text('["small.json"]')
    (stale / "mine.txt").write_text("not ours: goes back")
    check(run("build", str(sets["new"][0]), "-q", "-o", str(out)), code=0)
    assert not leftovers(tmp_path) and (out / "mine.txt").read_text() == "not ours: goes back"
