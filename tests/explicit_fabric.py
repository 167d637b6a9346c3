"""An explicit fabric graph, built switch by switch and port by port, for cross-checks.

Independent of bom.fabric's closed form: sizes come from brute-force searches over the
rules as DESIGN.md states them, and every link is a pair of (device, port) ends.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field


@dataclass
class Graph:
    radix: dict[str, int] = field(default_factory=dict)        # device -> ports it has
    cage: dict[str, int] = field(default_factory=dict)         # device -> ports per cage
    layer: dict[str, str] = field(default_factory=dict)
    next_port: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    links: list[tuple[str, tuple[str, int], tuple[str, int]]] = field(default_factory=list)

    def add(self, name: str, layer: str, radix: int, cage: int) -> str:
        self.radix[name], self.cage[name], self.layer[name] = radix, cage, layer
        return name

    def port(self, dev: str, at: int | None = None) -> tuple[str, int]:
        p = self.next_port[dev] if at is None else max(at, self.next_port[dev])
        self.next_port[dev] = p + 1
        return dev, p

    def connect(self, hop: str, a: tuple[str, int], b: tuple[str, int]) -> None:
        self.links.append((hop, a, b))

    def count(self, layer: str) -> int:
        return sum(1 for v in self.layer.values() if v == layer)

    def hop(self, hop: str) -> int:
        return sum(1 for h, _, _ in self.links if h == hop)

    def used_ports(self) -> dict[str, set[int]]:
        used: dict[str, set[int]] = defaultdict(set)
        for _, (da, pa), (db, pb) in self.links:
            for d, p in ((da, pa), (db, pb)):
                assert p not in used[d], f"port {d}:{p} used twice"
                used[d].add(p)
        return used

    def modules(self, layer: str) -> int:
        """Cages with at least one used port, over the devices of ``layer``."""
        used = self.used_ports()
        return sum(len({p // self.cage[d] for p in ports}) for d, ports in used.items()
                   if self.layer[d] == layer)


def _uplinks(radix: int, per_cage: int, over: float) -> int:
    up = per_cage
    while up * (over + 1) < radix:
        up += per_cage
    return up


def _spread(up: int, sources: int, ports: int) -> int | None:
    for d in range(1, up + 1):
        if up % d == 0 and sources * (up // d) <= ports:
            return d
    return None


def build(nodes: int, node_ports: int, node_cage: int, radix: int, per_cage: int, *, topology: str,
          group: int, over: float = 1.0, layers: int = 2, blocks: bool = False) -> Graph:
    g = Graph()
    up = _uplinks(radix, per_cage, over)
    down = radix - up
    blocks = blocks and topology == "rail-optimized" and down >= node_ports
    if blocks:   # whole nodes on each leaf, as many as its downlinks hold
        per_leaf = down // node_ports
        up = min(up, math.ceil(min(group, per_leaf) * node_ports / over / per_cage) * per_cage)
    elif topology == "rail-optimized":   # uplinks for the downlinks a full SU uses
        per_rail = math.ceil(group / down)
        up = min(up, math.ceil(math.ceil(group / per_rail) / over / per_cage) * per_cage)
    groups = math.ceil(nodes / group)
    leaves_by_group: list[list[str]] = []
    for s in range(groups):
        members = range(s * group, min(nodes, (s + 1) * group))
        names = [g.add(f"n{n}", "node", node_ports, node_cage) for n in members]
        leaves: list[str] = []
        if blocks:
            leaves = [g.add(f"b{s}.{j}", "leaf", radix, per_cage) for j in range(math.ceil(group / per_leaf))]
            for i, n in enumerate(names):
                for _ in range(node_ports):
                    g.connect("node-leaf", g.port(n), g.port(leaves[i // per_leaf]))
        elif topology == "rail-optimized":
            per_rail = math.ceil(group / down)
            for r in range(node_ports):
                rail = [g.add(f"l{s}.{r}.{j}", "leaf", radix, per_cage) for j in range(per_rail)]
                leaves += rail
                for i, n in enumerate(names):
                    g.connect("node-leaf", g.port(n), g.port(rail[i // down]))
        else:
            tors = 1
            while tors * down < group * node_ports:
                tors += 1
            need = math.ceil(group * node_ports / tors)
            up = min(_uplinks(radix, per_cage, over), math.ceil(need / over / per_cage) * per_cage)
            leaves = [g.add(f"t{s}.{t}", "leaf", radix, per_cage) for t in range(tors)]
            k = 0
            for n in names:
                for _ in range(node_ports):
                    g.connect("node-leaf", g.port(n), g.port(leaves[k % tors]))
                    k += 1
        leaves_by_group.append(leaves)
    if layers == 2:
        flat = [x for ls in leaves_by_group for x in ls]
        s_count = _spread(up, len(flat), radix)
        assert s_count is not None
        spines = [g.add(f"s{i}", "spine", radix, per_cage) for i in range(s_count)]
        for leaf in flat:
            for sp in spines:
                for _ in range(up // s_count):
                    g.connect("leaf-spine", g.port(leaf, down), g.port(sp))
        return g
    half = radix // 2
    per_pod = half // len(leaves_by_group[0])
    pods = [leaves_by_group[i:i + per_pod] for i in range(0, groups, per_pod)]
    sp = _spread(up, per_pod * len(leaves_by_group[0]), half)
    assert sp is not None
    spine_up = min(half, math.ceil(per_pod * len(leaves_by_group[0]) * (up // sp) / per_cage) * per_cage)
    cg = _spread(spine_up, len(pods), radix)
    assert cg is not None
    cores = [[g.add(f"c{i}.{j}", "core", radix, per_cage) for j in range(cg)] for i in range(sp)]
    for p, pod in enumerate(pods):
        spines = [g.add(f"s{p}.{i}", "spine", radix, per_cage) for i in range(sp)]
        for leaf in (x for ls in pod for x in ls):
            for s in spines:
                for _ in range(up // sp):
                    g.connect("leaf-spine", g.port(leaf, down), g.port(s))
        for i, s in enumerate(spines):
            for c in cores[i]:
                for _ in range(spine_up // cg):
                    g.connect("spine-core", g.port(s, half), g.port(c))
    return g
