"""Accounting hooks loaded INTO the throw-away NetBox (``BOM_NETBOX_ACCOUNT=<file>`` for
``BOM_NETBOX_SERVER=gunicorn scripts/netbox-up.sh``), for benchmarks/bench_netbox_account.py: one JSON line
per event appended to that file.

- gunicorn (its ``pre_request``/``post_request`` server hooks, which run in the thread that serves the
  request): the request's method, path (numbers as ``N``), status, wall and the serving thread's CPU seconds.
- the RQ worker (``--worker-class bench_netbox_hooks.AccountingWorker``, NetBox's own worker class with two
  methods wrapped): per job, its function, the CPU seconds of ``perform_job`` in the forked work horse, and
  the horse's whole CPU from ``wait4``'s rusage; the difference is what the fork per job costs (the fork,
  the horse's start, its exit). Behaviour is unchanged: each method calls NetBox's.

Runs on NetBox's Python (3.12+), imports only what NetBox has; nothing of bom.
"""

from __future__ import annotations

import json
import os
import re
import time
from typing import Any

LOG = os.environ.get("BOM_NETBOX_ACCOUNT", "")
_NUM = re.compile(r"/\d+(?=/|$)")


def _write(rec: dict[str, Any]) -> None:
    if not LOG:
        return
    # one short line in O_APPEND: whole lines from several processes and threads
    fd = os.open(LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (json.dumps(rec) + "\n").encode())
    finally:
        os.close(fd)


def pre_request(worker: Any, req: Any) -> None:
    req.bench_t = (time.perf_counter(), time.thread_time())


def post_request(worker: Any, req: Any, environ: Any, resp: Any) -> None:
    t = getattr(req, "bench_t", None)
    if t is None:
        return
    _write({"src": "web", "pid": os.getpid(), "method": req.method, "path": _NUM.sub("/N", req.path),
            "status": str(getattr(resp, "status", "")).split(" ")[0],
            "wall": time.perf_counter() - t[0], "cpu": time.thread_time() - t[1]})


def _name(job: Any) -> str:
    """The job's class and function: NetBox's jobs are all a JobRunner's ``handle`` (ScriptJob, SearchCacheJob)."""
    owner = getattr(getattr(job, "instance", None), "__name__", "")
    name = f"{owner}.{job.func_name}" if owner else str(job.func_name)
    try:   # a script job's model (clusterbom_bulk's model_label): the kind it creates
        label = job.kwargs["data"]["model_label"]
    except (KeyError, TypeError, AttributeError):
        return name
    return f"{name} {label}"


def __getattr__(name: str) -> Any:
    """AccountingWorker, made on first use: NetBox's worker class imports Django's settings, which gunicorn's
    config (this module's other user) has not loaded when it reads its hooks."""
    if name != "AccountingWorker":
        raise AttributeError(name)
    from utilities.rqworker import NetBoxRQWorker

    class AccountingWorker(NetBoxRQWorker):  # type: ignore[misc]
        def execute_job(self, job: Any, queue: Any) -> Any:
            self.bench_func, self.bench_t = _name(job), time.perf_counter()
            return super().execute_job(job, queue)

        def perform_job(self, job: Any, queue: Any) -> Any:
            # in the horse, between its fork and its exit
            c0 = time.process_time()
            try:
                return super().perform_job(job, queue)
            finally:
                _write({"src": "job", "func": _name(job), "cpu": time.process_time() - c0})

        def wait_for_horse(self) -> Any:
            pid, stat, ru = super().wait_for_horse()
            if ru is not None:
                _write({"src": "horse", "func": getattr(self, "bench_func", "?"), "cpu": ru.ru_utime + ru.ru_stime,
                        "wall": time.perf_counter() - getattr(self, "bench_t", time.perf_counter())})
            return pid, stat, ru

    globals()[name] = AccountingWorker
    return AccountingWorker
