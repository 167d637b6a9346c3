"""Interruptions and goodput: how often the job stops, how much of its time is useful, what a useful GPU-hour costs.

Interruptions: each part class's rate (bom/faults/rates.py, interruptions per unit and day) times the
cluster's units of it, counted only where one unit's failure stops the job (its failure domain,
bom/faults/domains.py: a PDU or feed of a dual-fed rack stops nothing). The job is synchronous: any
interruption stops every rank until it restarts from its last checkpoint.

Goodput (first-order model, J. W. Young, "A first order approximation to the optimum checkpoint
interval", Communications of the ACM 17(9), 1974): with ``M`` the mean time between interruptions,
``delta`` the time a checkpoint takes to write and ``R`` the restart time, the optimal checkpoint interval
is ``tau = sqrt(2 delta M)`` and the share of wall time lost is ``delta / tau`` (writing checkpoints) plus
``(tau / 2 + R) / M`` (on average half an interval of work redone, and the restart, per interruption).
Goodput = 1 minus that share. The job's days are its failure-free days over the goodput, and a useful
GPU-hour costs the TCO's GPU-hour over the goodput.

A hand-worked small cluster: 64 GPUs on 8 nodes, at the Llama 3 rates of a GPU (148 + 72 + 54 + 19 + 17
+ 7 + 6 + 6 + 2 interruptions per 16,384 GPUs in 54 days: 331) and of a node (32 + 3 + 3 + 2 + 2 + 2 + 2
per 2,048 nodes: 46), with no network: ``64 x 331 / (16,384 x 54) + 8 x 46 / (2,048 x 54)`` = 0.02394 +
0.00333 = 0.02727 interruptions a day, one every 36.7 days (``M`` = 3,168,000 s). A checkpoint written
in 60 s and a restart of 600 s: ``tau = sqrt(2 x 60 x 3,168,000)`` = 19,498 s (5.4 h); lost
``60 / 19,498 + (9,749 + 600) / 3,168,000`` = 0.00308 + 0.00327 = 0.00634; goodput 0.99366.

>>> per_day = 64 * 331 / (16384 * 54) + 8 * 46 / (2048 * 54)
>>> g = goodput(per_day, checkpoint_s=60.0, restart_s=600.0)
>>> round(per_day, 5), round(g.mtbi_h / 24, 1), round(g.interval_s), round(g.share, 5)
(0.02727, 36.7, 19498, 0.99366)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

SECONDS_PER_DAY = 86400.0


@dataclass(frozen=True)
class Goodput:
    per_day: float          # job interruptions a day
    checkpoint_s: float     # delta: writing one checkpoint [s]
    restart_s: float        # R: from an interruption to training again [s]
    interval_s: float       # tau: the checkpoint interval used [s]
    share: float            # the share of wall time that is useful work (0..1)

    @property
    def mtbi_h(self) -> float:
        """Mean time between interruptions [h] (inf: none expected)."""
        return 24.0 / self.per_day if self.per_day > 0 else math.inf


def optimal_interval(checkpoint_s: float, mtbi_s: float) -> float:
    """Young's optimum, ``sqrt(2 delta M)``.

    >>> round(optimal_interval(60.0, 43200.0), 1)
    2276.8
    """
    return math.sqrt(2.0 * checkpoint_s * mtbi_s)


def goodput(per_day: float, checkpoint_s: float, restart_s: float, interval_s: float | None = None) -> Goodput:
    """The job's goodput at ``per_day`` interruptions a day (``interval_s`` None: Young's optimum).

    >>> round(goodput(2.0, 60.0, 600.0).share, 4)
    0.9334
    >>> goodput(0.0, 60.0, 600.0).share     # no interruption: no checkpoint needed
    1.0
    """
    if per_day <= 0:
        return Goodput(0.0, checkpoint_s, restart_s, math.inf, 1.0)
    mtbi = SECONDS_PER_DAY / per_day
    tau = interval_s if interval_s is not None else optimal_interval(checkpoint_s, mtbi)
    lost = checkpoint_s / tau + (tau / 2.0 + restart_s) / mtbi
    return Goodput(per_day, checkpoint_s, restart_s, tau, max(0.0, 1.0 - lost))
