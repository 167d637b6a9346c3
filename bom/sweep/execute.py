"""Running a sweep's points: in this process, on local worker processes, or on a Dask cluster.

Every way hands each finished design to ``record`` as it finishes (the results file appends it), so the
outputs never depend on how or in what order the designs were built. The first SIGINT (Ctrl-C) stops
handing out designs: those being built finish and are recorded, the rest wait for the next run; a
second SIGINT stops at once.
"""

from __future__ import annotations

import contextlib
import itertools
import signal
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from multiprocessing import get_context
from types import FrameType
from typing import Any

from bom.errors import BomError
from bom.model.sweep import Point, PointJson
from bom.sweep.evaluate import Context, evaluate

Record = Callable[[PointJson], None]


class Stop:
    """Set by the first SIGINT while a sweep runs; the second raises KeyboardInterrupt."""

    def __init__(self) -> None:
        self.asked = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if self.asked:
            raise KeyboardInterrupt
        self.asked = True


@contextlib.contextmanager
def stoppable() -> Iterator[Stop]:
    stop = Stop()
    try:
        previous = signal.signal(signal.SIGINT, stop)
    except ValueError:   # not the main thread: no handler, Ctrl-C stops as Python does
        yield stop
        return
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)


def run_here(ctx: Context, todo: Sequence[Point], record: Record, stop: Stop) -> None:
    for point in todo:
        if stop.asked:
            return
        record(evaluate(ctx, point))


#: The context of this worker process (set once by the pool's initializer: sent once, not with each point).
_WORKER: dict[str, Context] = {}


def _worker_init(ctx: Context) -> None:
    # The parent decides when to stop (and lets the builds in flight finish): a worker ignores Ctrl-C.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WORKER["ctx"] = ctx


def _in_worker(point: Point) -> PointJson:
    return evaluate(_WORKER["ctx"], point)


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    """The workers start as the points are handed out: with SIGINT ignored then, they inherit it ignored (an
    ignored signal stays ignored across exec, and Python then installs no handler), so a Ctrl-C to the
    terminal's process group cannot stop one while it imports, before its initializer runs."""
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:   # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def run_local(ctx: Context, todo: Sequence[Point], workers: int, record: Record, stop: Stop) -> None:
    """On ``workers`` processes (spawned: each imports the package and reads its catalog once)."""
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn"), initializer=_worker_init,
                             initargs=(ctx,)) as pool:
        with _sigint_ignored():
            pending: set[Future[PointJson]] = {pool.submit(_in_worker, p) for p in todo}
        try:
            while pending and not stop.asked:
                done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                for f in done:
                    record(f.result())
        finally:
            for f in pending:
                f.cancel()   # queued ones; the running ones finish, and are recorded below
        for f in pending:
            if not f.cancelled():
                record(f.result())


def evaluate_on(point: Point, ctx: Context) -> PointJson:
    """A Dask task: the point, the context a scattered future (sent once to each worker)."""
    return evaluate(ctx, point)


def run_dask(ctx: Context, todo: Sequence[Point], address: Any, record: Record, stop: Stop, tag: str) -> None:
    """On the Dask cluster at ``address`` (a scheduler address, or a Cluster object)."""
    try:
        from distributed import Client, as_completed  # lazy: dask.distributed only for --dask (an optional extra)
    except ImportError:
        raise BomError("--dask needs dask.distributed, which is not installed", key="--dask",
                       hint="pip install 'clusterbom[dask]' (on this machine and on the cluster's workers).") from None

    with Client(address) as client:
        shared = client.scatter(ctx, broadcast=True)

        def submit(p: Point) -> Any:
            return client.submit(evaluate_on, p, ctx=shared, key=f"sweep-{tag}-{p.id}")

        # A window of designs in flight, two per worker thread: a stop then waits for those and records them,
        # and cancels nothing (a Dask task cancelled while it runs still runs: it would be built twice).
        points = iter(todo)
        window = 2 * max(1, sum(client.nthreads().values()))
        flight = as_completed([submit(p) for p in itertools.islice(points, window)])
        for f in flight:
            record(f.result())
            nxt = None if stop.asked else next(points, None)
            if nxt is not None:
                flight.add(submit(nxt))
