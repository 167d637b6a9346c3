"""The plan for schedulers, before the cluster exists: Slurm's ``topology.conf`` (``topology/tree`` from the
compute fabric's switches, ``topology/block`` from the NVLink domains) and Kubernetes node labels for
topology-aware scheduling.

Format only: which node hangs under which switch, and which nodes share an NVLink domain, is read off the
cable plan's rows (the compute fabric's hops and the scale-up links); nothing here re-derives a wiring.

A node of a rail-optimised fabric reaches one leaf per rail (and plane): Slurm's tree wants each node under
one leaf switch, so the nodes that reach the same set of leaves (a scalable unit's) stand under one
switch entry, named after the first of those leaves and listing the rest in a comment; the level above is
the spines those leaves reach, grouped the same way, then the cores. That is what the scheduler needs:
nodes under one entry are a switch hop apart on every rail.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import yaml

from bom.model.records import PlanRow
from bom.roles import Layer, Tier

_NUM = re.compile(r"^(.*?)(\d+)$")


def hostlist(names: Iterable[str]) -> str:
    """Names as a Slurm hostlist: runs of one prefix and zero-padded number as ``prefix[01-18]``.

    >>> hostlist(["n-01", "n-02", "n-03", "n-05", "m-1", "x"])
    'm-1,n-[01-03,05],x'
    """
    groups: dict[tuple[str, int], list[int]] = {}
    plain: list[str] = []
    for name in sorted(set(names)):
        m = _NUM.match(name)
        if m is None:
            plain.append(name)
        else:
            groups.setdefault((m[1], len(m[2])), []).append(int(m[2]))
    out = list(plain)
    for (prefix, width), nums in groups.items():
        nums.sort()
        if len(nums) == 1:
            out.append(f"{prefix}{nums[0]:0{width}d}")
            continue
        ranges, start = [], nums[0]
        for prev, cur in zip(nums, [*nums[1:], None], strict=True):
            if cur != prev + 1:
                ranges.append(f"{start:0{width}d}" + (f"-{prev:0{width}d}" if prev != start else ""))
                start = cur if cur is not None else start
        out.append(f"{prefix}[{','.join(ranges)}]")
    return ",".join(sorted(out))


@dataclass
class Tree:
    """The compute fabric as the scheduler sees it: each node's leaves, each leaf's uplink switches."""

    up: dict[str, set[str]] = field(default_factory=dict)     # device -> switches above it
    site: dict[str, str] = field(default_factory=dict)        # node -> site
    domain: dict[str, str] = field(default_factory=dict)      # node -> its NVLink domain (a switch tray)
    routers: set[str] = field(default_factory=set)            # the DCI routers that join the sites


def tree_of(rows: Iterable[PlanRow], col: dict[str, int], fabric: str) -> Tree:
    """The compute ``fabric``'s rows (node to leaf, leaf to spine, spine to core) and the scale-up tier's
    (a node's GPUs to its domain's switch trays)."""
    c, t = col, Tree()
    switch_roles = {Layer.LEAF, Layer.SPINE, Layer.CORE}
    for r in rows:
        a, b, a_role, b_role = r[c["a_device"]], r[c["b_device"]], r[c["a_role"]], r[c["b_role"]]
        if r[c["fabric"]] == fabric and b_role in switch_roles and a_role in (Layer.NODE, *switch_roles):
            t.up.setdefault(a, set()).add(b)
            if a_role == Layer.NODE:
                t.site[a] = r[c["a_site"]]
        elif r[c["tier"]] == Tier.SCALE_ACROSS and a_role == Layer.ROUTER:
            t.routers.add(a)
        elif r[c["tier"]] == Tier.SCALE_UP and a_role == Layer.NODE and b_role == Layer.NVLINK_SWITCH:
            t.domain.setdefault(a, b)
    return t


@dataclass(frozen=True)
class Entry:
    """One switch entry of the tree: the switches it stands for and the names under it."""

    name: str
    switches: frozenset[str]
    under: tuple[str, ...]


def _entry(switches: frozenset[str], under: Iterable[str]) -> Entry:
    return Entry(min(switches) + (f"-x{len(switches)}" if len(switches) > 1 else ""), switches, tuple(sorted(under)))


def levels(t: Tree) -> list[list[Entry]]:
    """Bottom up, each level's switch entries: the nodes (then the entries below) grouped by the switches
    above them, each group one entry named after its first switch (``-xN`` when it stands for N). Sites
    whose fabrics have no switch in common stand under one entry for the DCI routers that join them (the
    scheduler then packs a job into one site where it can, and can still give it several)."""
    out: list[list[Entry]] = []
    members: dict[str, frozenset[str]] = {n: frozenset({n}) for n in t.site}
    while True:
        groups: dict[frozenset[str], list[str]] = {}
        for name, devices in members.items():
            above = frozenset(s for dev in devices for s in t.up.get(dev, ()))
            if above:
                groups.setdefault(above, []).append(name)
        if not groups:
            if len(members) > 1 and t.routers and out:
                out.append([_entry(frozenset(t.routers), members)])
            return out
        level = [_entry(a, u) for a, u in groups.items()]
        out.append(sorted(level, key=lambda e: e.name))
        members = {e.name: e.switches for e in level}


def slurm_tree(t: Tree, name: str) -> bytes:
    """``topology.conf`` for ``TopologyPlugin=topology/tree``: a leaf entry per group of nodes that reach
    the same leaves, then the spines' and cores' entries above them."""
    lines = [f"# {name}: Slurm topology/tree, written by clusterbom (bom export slurm) from the cable plan.",
             "# A switch entry stands for the switches its comment lists: every node under it reaches each of them."]
    for i, level in enumerate(levels(t)):
        for e in level:
            lines.append(f"# {e.name}: {hostlist(e.switches)}")
            lines.append(f"SwitchName={e.name} {'Nodes' if i == 0 else 'Switches'}={hostlist(e.under)}")
    return ("\n".join(lines) + "\n").encode()


def domains(t: Tree) -> dict[str, list[str]]:
    """The NVLink domains that span nodes, named ``nvl1``.. in the order of their first node: name -> nodes."""
    by: dict[str, list[str]] = {}
    for node, dom in t.domain.items():
        by.setdefault(dom, []).append(node)
    spans = sorted((sorted(v) for v in by.values() if len(v) > 1), key=lambda v: v[0])
    width = len(str(len(spans)))
    return {f"nvl{n:0{width}d}": nodes for n, nodes in enumerate(spans, start=1)}


def slurm_block(t: Tree, name: str) -> bytes | None:
    """``topology.conf`` for ``TopologyPlugin=topology/block`` (Slurm 23.11 and later): one block per
    NVLink domain of more than one node; None when no domain spans nodes (an 8-GPU server's NVLink
    stays inside it)."""
    blocks = domains(t)
    if not blocks:
        return None
    lines = [f"# {name}: Slurm topology/block (Slurm 23.11+), one block per NVLink domain, written by "
             "clusterbom (bom export slurm) from the cable plan."]
    lines += [f"BlockName={b} Nodes={hostlist(nodes)}" for b, nodes in blocks.items()]
    return ("\n".join(lines) + "\n").encode()


#: Topograph's label keys (NVIDIA/topograph, docs/k8s.md): the NVLink domain and the switch levels.
K8S_KEYS = ("network.topology.nvidia.com/accelerator", "network.topology.nvidia.com/block",
            "network.topology.nvidia.com/spine", "network.topology.nvidia.com/datacenter")


def label_value(text: str) -> str:
    """A Kubernetes label value: at most 63 of letters, digits, ``-``, ``_`` and ``.``, alphanumeric at both
    ends (a scenario's name may hold anything).

    >>> label_value("GB300 pod #2 "), label_value("x" * 70) == "x" * 63
    ('GB300-pod--2', True)
    """
    out = re.sub(r"[^A-Za-z0-9_.-]", "-", text)[:63]
    return re.sub(r"^[^A-Za-z0-9]+|[^A-Za-z0-9]+$", "", out)


def k8s_labels(t: Tree, name: str) -> bytes:
    """Each node's labels: the well-known ``topology.kubernetes.io/region`` (the cluster) and ``zone`` (its
    site), its NVLink domain and the tree's switch entries above it, leaf to core, under Topograph's keys."""
    parent: dict[str, str] = {u: e.name for level in levels(t) for e in level for u in e.under}
    domain = {node: b for b, members in domains(t).items() for node in members}
    nodes: dict[str, dict[str, str]] = {}
    for node in sorted(t.site):
        labels = {"topology.kubernetes.io/region": label_value(name), "topology.kubernetes.io/zone": t.site[node]}
        if node in domain:
            labels[K8S_KEYS[0]] = domain[node]
        cur = node
        for key in K8S_KEYS[1:]:
            if cur not in parent:
                break
            cur = parent[cur]
            labels[key] = cur
        nodes[node] = labels
    head = (f"# {name}: Kubernetes node labels for topology-aware scheduling, written by clusterbom "
            f"(bom export k8s) from the cable plan.\n")
    return (head + yaml.safe_dump({"nodes": nodes}, sort_keys=False, width=120)).encode()
