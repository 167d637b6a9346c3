"""The UFM appliances' compute-fabric ports on the leaves' spare downlinks: hop ``ufm-leaf``.

One pattern, counted and expanded. The ports spread one per leaf a round over the leaves with
room, the leaves with a half-used twin-port cage first (the port shares that cage's module), then
the leaves nearest the UFM (:func:`spread`, :meth:`UfmLeaf.spread`, leaf by leaf, for both the
closed form and the cable plan); each port on the run between the UFM's rack and its leaf's.
Whether the UFM is connected at all, and what to say
when there is no room, is the model's (:mod:`bom.topology.ufm`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bom.catalog.media import cage
from bom.links.hop import FabricLinks, Link, Rows
from bom.links.ports import port_names
from bom.model.fabrics import UFM_HOP
from bom.model.hops import HopKind
from bom.model.linkgroups import LinkGroup
from bom.topology.geometry import Profiles, leaf_loads, route
from bom.topology.linkgroups import count_hop
from bom.units import magnitude

if TYPE_CHECKING:
    from bom.catalog.media import Media
    from bom.catalog.rows import NicPorts
    from bom.links.ports import Kind, Plan, Switches
    from bom.model.endpoints import Endpoints
    from bom.model.floorplan import EndGroups, Floorish, FloorPlan, Run
    from bom.model.plane import Plane


@dataclass(frozen=True)
class UfmLinks:
    """What the hop needs of the UFM appliances: their compute NIC and how many stand in a site."""

    nic: NicPorts
    per_site: int

    @classmethod
    def of(cls, ends: Endpoints | None) -> UfmLinks | None:
        """From the model's endpoints (None: no UFM port on the compute fabric)."""
        if ends is None or ends.ufm is None or not ends.ufm_count or ends.ufm.ports.compute is None:
            return None
        return cls(ends.ufm.ports.compute, ends.ufm_count)

    @property
    def ports(self) -> int:
        """UFM ports in one site."""
        return self.per_site * self.nic.ports


def spread(loads: Sequence[tuple[int, int]], down: int, per_cage: int, ports: int,
           near: Sequence[float] = ()) -> list[tuple[int, int, bool, int]] | None:
    """Place ``ports`` one per leaf a round on leaves of ``down`` downlinks: ``loads`` is (leaves,
    ports used on each) per group of leaves; the result (group, ports taken, whether each opens a
    cage, round) in placement order, or None when the leaves have no room. In each round the
    leaves with a half-used cage come first, then the nearest (``near``: each group's distance
    from the UFM), then by group.
    """
    left, out = ports, []
    for rnd in range(down):
        cands = sorted(((used + rnd) % per_cage == 0, near[g] if near else 0.0, g)
                       for g, (_, used) in enumerate(loads) if used + rnd < down)
        for opens, _, g in cands:
            take = min(left, loads[g][0])
            out.append((g, take, opens, rnd))
            left -= take
            if not left:
                return out
        if not cands:
            break
    return None


def place_ports(loads: list[tuple[int, int]], down: int, per_cage: int, ports: int,
                near: Sequence[float] = ()) -> tuple[int, int] | None:
    """Spread ``ports`` over the leaves with room (:func:`spread`): (leaves used, modules added), or None."""
    return summary(spread(loads, down, per_cage, ports, near))


def summary(placed: list[tuple[int, int, bool, int]] | None) -> tuple[int, int] | None:
    """(leaves used, modules added) of a :func:`spread`."""
    if placed is None:
        return None
    return (sum(take for _, take, _, rnd in placed if rnd == 0), sum(take for _, take, opens, _ in placed if opens))


class UfmLeaf:
    """The UFM's ports to the compute leaves (lower end ``ufm``), a hop of their own so that
    ``node-leaf`` keeps meaning the nodes' links; their ports share the nodes' leaf cages."""

    name, lower, upper = UFM_HOP, "ufm", "leaf"
    #: The hop whose cages the UFM's ports fill (the cable plan's cage keys).
    shares = HopKind.NODE_LEAF

    def spread(self, p: Plane, planes: int, ufm: UfmLinks, floor: Floorish, fp: FloorPlan, role: str
               ) -> list[tuple[int, int, bool, int]] | None:
        """One site's UFM ports over its leaves, one per leaf a round, the leaves nearest the first
        UFM first (:func:`spread`, leaf by leaf)."""
        loads = leaf_loads(p, planes)
        home = floor.spot("ufm", 0)
        near = [route(home, floor.spot(role, i), fp).length_m for i in range(len(loads))]
        return spread(loads, p.leaf_down, p.leaf.ports_per_cage, ufm.ports, near)

    def place(self, fab: FabricLinks, fp: FloorPlan, ufm: UfmLinks) -> list[tuple[int, int] | None]:
        """Per site shape: (leaves used, modules added) in one site, None where there is no room."""
        return [summary(self.spread(plane, fab.planes, ufm, floor, fp, fab.role("leaf")))
                for (_, plane), floor in zip(fab.shapes, fab.floors, strict=True)]

    def ends(self, fab: FabricLinks, fp: FloorPlan, ufm: UfmLinks) -> tuple[EndGroups, EndGroups, Counter[Run]]:
        """Every site's UFM ports and the leaves that take them, each on the run between their racks;
        and per run, the ports that open a leaf cage (the others share a node's half-used one)."""
        lo: EndGroups = []
        up: EndGroups = []
        opening: Counter[Run] = Counter()
        role = fab.role("leaf")
        for (count, p), floor in zip(fab.shapes, fab.floors, strict=True):
            devs, leaves = Profiles(), Profiles()
            for u, (i, _, opens, _) in enumerate(self.spread(p, fab.planes, ufm, floor, fp, role) or ()):
                run = route(floor.spot("ufm", u // ufm.nic.ports), floor.spot(role, i), fp)
                devs.add(u // ufm.nic.ports, run, 1)
                leaves.add(i, run, 1)
                opening[run] += count * opens
            lo += devs.groups(count)
            up += leaves.groups(count)
        return lo, up, opening

    def link(self, fab: FabricLinks, ufm: UfmLinks) -> Link:
        p, nic = fab.first, ufm.nic
        return Link(min(magnitude(nic.rate, "rate"), p.leaf.rate_gbps), cage(nic.form_factor, nic.ports_per_cage, True),
                    cage(p.leaf.form_factor, p.leaf.ports_per_cage, True), None)

    def count(self, media: Media, fp: FloorPlan, fab: FabricLinks, ufm: UfmLinks,
              node_groups: Sequence[LinkGroup]) -> list[LinkGroup]:
        """The hop's link groups (closed form)."""
        lo, up, opening = self.ends(fab, fp, ufm)
        link = self.link(fab, ufm)
        groups = count_hop(media, fp, fabric=fab.name, tier=fab.tier, hop=self.name, lower=self.lower,
                           upper=self.upper, lower_groups=lo, upper_groups=up, rate_gbps=link.rate_gbps,
                           ff_lower=link.ff_lower, ff_upper=link.ff_upper, lane_gbps=link.lane_gbps)
        # A UFM port in a leaf's half-used twin-port cage shares the module already counted there
        # (one run, so one group; a part-less end, copper, has no modules to correct).
        for g in groups:
            if self.shares_cages(node_groups, g):
                g.modules_upper = sum(opening[run] for run in g.runs)
        return groups

    def shares_cages(self, node_groups: Sequence[LinkGroup], g: LinkGroup) -> bool:
        """Whether the UFM ports of link group ``g`` fill the nodes' half-used leaf cages: only where
        every node port on the fabric's leaves takes one module part, the UFM's. Else (another part,
        or parts mixed with copper, whose half-used cages the leaf-by-leaf count does not see) the
        UFM's ports open cages of their own; the closed form and the cable plan both ask this."""
        if g.upper_end.part is None:
            return False
        parts = {n.upper_end.part.id if n.upper_end.part is not None else None
                 for n in node_groups if n.hop == self.shares}
        return parts == {g.upper_end.part.id}

    def rows(self, plan: Plan, sw: Switches, kinds: dict[Run, Kind], p: Plane, fp: FloorPlan, site: int,
             fab: FabricLinks, ufm: UfmLinks) -> Rows:
        """One site's rows: the same spread over each leaf's downlinks in use (after the nodes')."""
        nic = ufm.nic
        placed = self.spread(p, fab.planes, ufm, plan.floors[plan.shape_of[site - 1]], fp, sw.roles["leaf"])
        assert placed is not None   # the closed form found room (else it connects no UFM port)
        leaf_role = sw.roles["leaf"]
        for u, (i, _, _, _) in enumerate(placed):
            d, r = divmod(u, nic.ports)
            k = kinds[plan.run(("ufm", d), (leaf_role, i), site, fp)]
            emit, per = plan.emitter(k), k.a_per
            names_ = port_names(-(-nic.ports // per), per)
            ports = sw.leaf_down(i)
            j = ports.take(k.b_key)
            yield from emit(k, 1, "", plan.place("ufm", site, d), names_[r], names_[r - r % per],
                            plan.place(leaf_role, site, i), ports.names[j], ports.names[j - j % ports.per])


UFM_LEAF = UfmLeaf()
