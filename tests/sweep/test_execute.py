"""Running a sweep (bom/sweep/execute.py): the same files whether built here, on two local processes or on a
Dask LocalCluster; a sweep stopped by SIGINT resumes and builds nothing twice."""

from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bom import sweep
from bom.outputs.commandsets import sweep_output
from bom.sweep.evaluate import TRACE_ENV
from bom.sweep.grid import scenario_yaml
from tests.sweep.conftest import GRID, sweep_text

ROOT = Path(__file__).resolve().parents[2]
DAY = dt.date(2027, 1, 4)


def _files(path: Path, out: Path, **how) -> dict[str, bytes]:  # type: ignore[no-untyped-def]
    prep = sweep.prepare(path)
    done = sweep.run(prep, out, today=DAY, **how)
    assert done.computed == len(prep.points) and not done.stopped
    doc = sweep.result(prep, done.journal.done, done.journal.date)
    points = {p.id: p for p in prep.points}
    frontier = {pid: scenario_yaml(points[pid], prep.sweep.name, DAY) for pid in doc["frontier"]}
    return sweep_output(doc, frontier).files


@pytest.mark.slow   # starts two worker processes and a Dask LocalCluster (several seconds each)
def test_one_process_two_processes_and_a_local_cluster_write_the_same_bytes(write, tmp_path) -> None:
    from distributed import LocalCluster

    path = write(GRID.replace("[288, 576, 1152]", "[288, 576, 1152, 2304]"))
    here = _files(path, tmp_path / "one", workers=1)
    assert _files(path, tmp_path / "two", workers=2) == here
    cluster = LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None)
    try:
        # The scheduler's address, as --dask ADDRESS gives it.
        assert _files(path, tmp_path / "dask", dask=cluster.scheduler_address) == here
    finally:
        cluster.close()
    assert sorted(here) == ["small-p0002.yaml", "small-p0005.yaml", "small-p0008.yaml", "small-p0011.yaml",
                            "small-sweep.csv", "small-sweep.html", "small-sweep.json", "small-sweep.xlsx"]


def _rows(results: Path) -> list[str]:
    return results.read_text().splitlines()[1:] if results.exists() else []


@pytest.mark.slow   # a real sweep in a child process, stopped and resumed (about 10 s)
def test_a_sweep_stopped_by_sigint_resumes_and_builds_nothing_twice(write, tmp_path) -> None:
    out, trace = tmp_path / "out", tmp_path / "trace"
    _stop_and_resume(write, out, trace, ["--workers", "2"])


@pytest.mark.slow   # a Dask LocalCluster and a sweep on it in a child process, stopped and resumed
def test_a_sweep_on_dask_stopped_by_sigint_resumes_and_builds_nothing_twice(write, tmp_path, monkeypatch) -> None:
    from distributed import LocalCluster

    out, trace = tmp_path / "out", tmp_path / "trace"
    monkeypatch.setenv(TRACE_ENV, str(trace))   # the cluster's workers build, and trace, the designs
    cluster = LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None)
    try:
        _stop_and_resume(write, out, trace, ["--dask", cluster.scheduler_address])
    finally:
        cluster.close()


def _stop_and_resume(write, out: Path, trace: Path, how: list[str]) -> None:  # type: ignore[no-untyped-def]
    path = write(sweep_text("  gpus: {start: 1152, stop: 4608, step: 288}\n"
                            "  fabrics.compute.oversubscription: [1, 2, 4]\n"))
    results = out / "small-sweep-results.jsonl"
    env = {**os.environ, TRACE_ENV: str(trace), "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "bom.cli", "sweep", str(path), "-o", str(out), *how, "-q"]
    child = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while len(_rows(results)) < 3 and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
    first = len(_rows(results))
    assert child.returncode == 130, err
    assert "Stopped:" in err and 3 <= first < 39, (first, err)
    again = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert f"39 designs ({39 - first} built now, {first} read back)" in again.stdout
    built = trace.read_text().split()
    assert len(built) == 39 and len(set(built)) == 39     # every design built once, none twice
    ids = [line.split('"id":"')[1][:5] for line in _rows(results)]
    assert sorted(ids) == [f"p{i:04d}" for i in range(39)]
