"""An explicit fabric graph, built switch by switch and port by port, for cross-checks.

Independent of bom.topology.planes's closed form: sizes come from brute-force searches over the
rules as docs/counting.md states them, and every link is a pair of (device, port) ends. A link of
``width`` w takes w consecutive ports at each end (a native 800G link on a switch counted in
400G ports takes both ports of its cage).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from fractions import Fraction


@dataclass
class Graph:
    radix: dict[str, int] = field(default_factory=dict)        # device -> ports it has
    cage: dict[str, int] = field(default_factory=dict)         # device -> ports per cage
    layer: dict[str, str] = field(default_factory=dict)
    next_port: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    links: list[tuple[str, tuple[str, int], tuple[str, int], int]] = field(default_factory=list)

    def add(self, name: str, layer: str, radix: int, cage: int) -> str:
        self.radix[name], self.cage[name], self.layer[name] = radix, cage, layer
        return name

    def port(self, dev: str, at: int | None = None, width: int = 1) -> tuple[str, int]:
        p = self.next_port[dev] if at is None else max(at, self.next_port[dev])
        self.next_port[dev] = p + width
        return dev, p

    def connect(self, hop: str, a: tuple[str, int], b: tuple[str, int], width: int = 1) -> None:
        self.links.append((hop, a, b, width))

    def count(self, layer: str) -> int:
        return sum(1 for v in self.layer.values() if v == layer)

    def hop(self, hop: str) -> int:
        return sum(1 for h, _, _, _ in self.links if h == hop)

    def used_ports(self) -> dict[str, set[int]]:
        used: dict[str, set[int]] = defaultdict(set)
        for _, (da, pa), (db, pb), w in self.links:
            for d, p in ((da, pa), (db, pb)):
                for q in range(p, p + w):
                    assert q not in used[d], f"port {d}:{q} used twice"
                    used[d].add(q)
        return used

    def modules(self, layer: str) -> int:
        """Cages with at least one used port, over the devices of ``layer``."""
        used = self.used_ports()
        return sum(len({p // self.cage[d] for p in ports}) for d, ports in used.items()
                   if self.layer[d] == layer)

    def per_pair(self, hop: str) -> Counter[tuple[str, str]]:
        return Counter((a, b) for h, (a, _), (b, _), _ in self.links if h == hop)


def _uplinks(radix: int, per_cage: int, over: Fraction) -> int:
    up = per_cage
    while up * (over + 1) < radix:
        up += per_cage
    return up


def _spread(up: int, sources: int, ports: int) -> int | None:
    for d in range(1, up + 1):
        if up % d == 0 and sources * (up // d) <= ports:
            return d
    return None


def _round_up(x: Fraction | int, per_cage: int) -> int:
    k = per_cage
    while k < x:
        k += per_cage
    return k


def _spine_ports(radix: int, per_cage: int, spine_over: Fraction) -> tuple[int, int]:
    """(most downlinks, most uplinks) of a spine: half each at 1:1, else the leaf's split rule."""
    if spine_over == 1:
        return radix // 2, radix // 2
    up = _uplinks(radix, per_cage, spine_over)
    return radix - up, up


def _pod_search(leaves: int, per_group: int, up: int, radix: int, per_cage: int,
                spine_over: Fraction = Fraction(1)) -> tuple[int, int, int, int]:
    """Every pod size and spine count tried: the fewest spines + cores, then whole groups, then
    fewer pods, then fuller pods. A spine uplinks its used downlinks over ``spine_over``."""
    down_most, up_most = _spine_ports(radix, per_cage, spine_over)
    found = []
    for spines in range(1, up + 1):
        if up % spines:
            continue
        for size in range(1, leaves + 1):
            if size * (up // spines) > down_most:
                break
            pods = -(-leaves // size)
            spine_up = min(up_most, _round_up(Fraction(size * (up // spines)) / spine_over, per_cage))
            cores = _spread(spine_up, pods, radix)
            if cores is not None:
                found.append(((pods + cores) * spines, size % per_group != 0, pods, -size, spines, spine_up, cores))
    assert found, "no three-layer shape"
    _, _, _, size, spines, spine_up, cores = min(found)
    size = -size
    return size, spines, spine_up, cores


def build(nodes: int, node_ports: int, node_cage: int, radix: int, per_cage: int, *, topology: str,
          group: int, over: float | Fraction = 1, layers: int = 2, blocks: bool = False,
          native: int = 1, rails: int | None = None, spine_over: float | Fraction = 1) -> Graph:
    over, spine_over = Fraction(over), Fraction(spine_over)
    if topology == "pair":
        return _pair(nodes, node_ports, node_cage, radix, per_cage, over, native)
    rail = topology in ("rail-optimized", "rail-only")
    if layers == 1 and rail and (topology == "rail-only" or nodes * node_ports > radix
                                 or rails not in (None, node_ports)):
        return _rail_only(nodes, node_ports, node_cage, radix, per_cage, rails)
    if layers == 1:
        return _single(nodes, node_ports, node_cage, radix, per_cage)
    g = Graph()
    up = _uplinks(radix, per_cage, over)
    down = radix - up
    group = min(group, nodes)
    blocks = blocks and topology == "rail-optimized" and down >= node_ports
    if blocks:   # whole nodes on each leaf, as many as its downlinks hold
        per_leaf = down // node_ports
        up = min(up, _round_up(Fraction(min(group, per_leaf) * node_ports) / over, per_cage))
    elif topology == "rail-optimized":   # several rails on a leaf while its downlinks hold them
        rails = rails or max(r for r in range(1, node_ports + 1)
                             if node_ports % r == 0 and (r == 1 or r * group <= down))
        per_rail = 1
        while per_rail * (down // rails) < group:   # whole nodes on a leaf, down // rails of them
            per_rail += 1
        up = min(up, _round_up(Fraction(-(-group // per_rail) * rails) / over, per_cage))
    groups = -(-nodes // group)
    leaves_by_group: list[list[str]] = []
    for s in range(groups):
        members = range(s * group, min(nodes, (s + 1) * group))
        names = [g.add(f"n{n}", "node", node_ports, node_cage) for n in members]
        leaves: list[str] = []
        if blocks:
            leaves = [g.add(f"b{s}.{j}", "leaf", radix, per_cage) for j in range(-(-group // per_leaf))]
            for i, n in enumerate(names):
                for _ in range(node_ports):
                    g.connect("node-leaf", g.port(n), g.port(leaves[i // per_leaf]))
        elif topology == "rail-optimized":
            ports_of: dict[str, list[int]] = {n: list(range(node_ports)) for n in names}
            for r0 in range(0, node_ports, rails):
                set_leaves = [g.add(f"l{s}.{r0}.{j}", "leaf", radix, per_cage) for j in range(per_rail)]
                leaves += set_leaves
                for i, n in enumerate(names):
                    leaf = set_leaves[min(i // (down // rails), per_rail - 1)]
                    for r in range(r0, r0 + rails):
                        g.connect("node-leaf", (n, ports_of[n][r]), g.port(leaf))
        else:
            tors = 1
            while tors * down < group * node_ports:
                tors += 1
            need = -(-group * node_ports // tors)
            up = min(_uplinks(radix, per_cage, over), _round_up(Fraction(need) / over, per_cage))
            leaves = [g.add(f"t{s}.{t}", "leaf", radix, per_cage) for t in range(tors)]
            k = 0
            for n in names:
                for _ in range(node_ports):
                    g.connect("node-leaf", g.port(n), g.port(leaves[k % tors]))
                    k += 1
        leaves_by_group.append(leaves)
    flat = [x for ls in leaves_by_group for x in ls]
    if layers == 2:
        s_count = _spread(up, len(flat), radix)
        assert s_count is not None
        spines = [g.add(f"s{i}", "spine", radix, per_cage) for i in range(s_count)]
        width = native if (up // s_count) % native == 0 else 1
        _wire(g, "leaf-spine", flat, spines, up // s_count, down, 0, width)
        return g
    size, sp, spine_up, cg = _pod_search(len(flat), len(leaves_by_group[0]), up, radix, per_cage, spine_over)
    half = _spine_ports(radix, per_cage, spine_over)[0]   # where a spine's uplinks start
    pods = [flat[i:i + size] for i in range(0, len(flat), size)]
    cores = [[g.add(f"c{i}.{j}", "core", radix, per_cage) for j in range(cg)] for i in range(sp)]
    # Native-rate links only where both hops have whole native ports per pair.
    width = native if (up // sp) % native == 0 and (spine_up // cg) % native == 0 else 1
    for p, pod in enumerate(pods):
        spines = [g.add(f"s{p}.{i}", "spine", radix, per_cage) for i in range(sp)]
        _wire(g, "leaf-spine", pod, spines, up // sp, down, 0, width)
        for i, s in enumerate(spines):
            _wire(g, "spine-core", [s], cores[i], spine_up // cg, half, 0, width)
    return g


def _wire(g: Graph, hop: str, lower: list[str], upper: list[str], per_pair: int, lower_at: int,
          upper_at: int, width: int) -> None:
    """``per_pair`` plane-rate ports between every lower and upper switch, as links ``width``
    ports wide (a native-rate link takes ``width`` plane-rate ports at each end)."""
    for a in lower:
        for b in upper:
            for _ in range(per_pair // width):
                g.connect(hop, g.port(a, lower_at, width), g.port(b, upper_at, width), width)


def _single(nodes: int, node_ports: int, node_cage: int, radix: int, per_cage: int) -> Graph:
    g = Graph()
    leaf = g.add("l0", "leaf", radix, per_cage)
    assert nodes * node_ports <= radix
    for n in range(nodes):
        name = g.add(f"n{n}", "node", node_ports, node_cage)
        for _ in range(node_ports):
            g.connect("node-leaf", g.port(name), g.port(leaf))
    return g


def _rail_only(nodes: int, node_ports: int, node_cage: int, radix: int, per_cage: int,
               rails: int | None) -> Graph:
    """Rail leaves, no spine: port r of every node on leaf r // rails (as many rails a leaf as fit)."""
    rails = rails or max(r for r in range(1, node_ports + 1) if node_ports % r == 0 and r * nodes <= radix)
    assert rails * nodes <= radix
    g = Graph()
    leaves = [g.add(f"r{k}", "leaf", radix, per_cage) for k in range(node_ports // rails)]
    for n in range(nodes):
        name = g.add(f"n{n}", "node", node_ports, node_cage)
        for r in range(node_ports):
            g.connect("node-leaf", g.port(name), g.port(leaves[r // rails]))
    return g


def _pair(nodes: int, node_ports: int, node_cage: int, radix: int, per_cage: int, over: Fraction,
          native: int) -> Graph:
    g = Graph()
    a, b = g.add("pa", "leaf", radix, per_cage), g.add("pb", "leaf", radix, per_cage)
    for n in range(nodes):
        name = g.add(f"n{n}", "node", node_ports, node_cage)
        for r in range(node_ports):
            first = n < -(-nodes // 2) if node_ports == 1 else r < node_ports // 2
            side = a if first else b
            g.connect("node-leaf", g.port(name), g.port(side))
    isl = _round_up(Fraction(max(g.next_port[a], g.next_port[b])) / over, per_cage)
    _wire(g, "leaf-leaf", [a], [b], isl, 0, 0, native if isl % native == 0 else 1)
    return g
