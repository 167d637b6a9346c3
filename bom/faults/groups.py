"""Which parallel groups of the job stall when some of its GPUs are cut off.

Ranks are laid out as bom/topology/parallelism.py places them, TP innermost, then CP, EP, PP and DP
outermost (EP carved out of DP), and rank ``r`` runs on GPU ``r`` in node order (a node's GPUs, then
the next node's). A group stalls when any GPU in it is cut off: a TP group is one (cp, ep, pp, dp)
coordinate, a DP group one (tp, cp, pp) coordinate over every replica, a model replica one (ep, dp)
coordinate over every tp, cp and pp rank.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bom.model.parallelism import Split

#: The dimensions whose groups are counted, in the split's order, and the replicas.
DIMS = ("tp", "cp", "ep", "pp", "dp")


@dataclass(frozen=True)
class Stalled:
    """Groups of each dimension of more than one rank that stall, of how many: dim -> (stalled, groups)."""

    groups: dict[str, tuple[int, int]]
    replicas: tuple[int, int]     # model replicas (DP x EP copies of the model) that lose a GPU, of how many

    def names(self) -> str:
        """``TP 1/2048, PP 1/1024, ...``: the dimensions with more than one rank that stall."""
        return ", ".join(f"{d.upper()} {n:,}/{t:,}" for d, (n, t) in self.groups.items() if n)


def stalled(split: Split, ranks: np.ndarray) -> Stalled:
    """The groups of ``split`` that hold one of ``ranks`` (GPU indices; those past the split's GPUs run no rank).

    >>> s = stalled(Split(tp=8, pp=2, dp=4), np.arange(8))     # one 8-GPU node: one TP group
    >>> s.groups["tp"], s.groups["pp"], s.groups["dp"], s.replicas
    ((1, 8), (8, 32), (8, 16), (1, 4))
    """
    ep = split.ep if split.ep > 0 and split.dp % split.ep == 0 else 1
    sizes = (split.tp, split.cp, ep, split.pp, split.dp // ep)
    r = ranks[ranks < split.gpus].astype(np.int64)
    coords = []
    for n in sizes:
        coords.append(r % n)
        r = r // n
    t, c, e, p, d = coords
    tp, cp, _, pp, dpo = sizes

    def count(*axes: tuple[np.ndarray, int]) -> int:
        key = np.zeros_like(t)
        for a, n in axes:
            key = key * n + a
        return int(np.unique(key).size)

    g = split.gpus
    out = {"tp": (count((c, cp), (e, ep), (p, pp), (d, dpo)), g // split.tp),
           "cp": (count((t, tp), (e, ep), (p, pp), (d, dpo)), g // split.cp),
           "ep": (count((t, tp), (c, cp), (p, pp), (d, dpo)), g // ep),
           "pp": (count((t, tp), (c, cp), (e, ep), (d, dpo)), g // split.pp),
           "dp": (count((t, tp), (c, cp), (p, pp)), g // split.dp)}
    degree = {"tp": split.tp, "cp": split.cp, "ep": ep, "pp": split.pp, "dp": split.dp}
    out = {k: (v if t.size else (0, v[1])) for k, v in out.items() if degree[k] > 1}   # a degree of 1 has no group
    return Stalled(out, (count((e, ep), (d, dpo)) if t.size else 0, split.dp))
