"""The out-of-band fabric's two hops, each one pattern counted and expanded.

:data:`OOB_NODE_LEAF` (hop ``node-leaf``): the management port of every managed device of a
placement section, in rack order, over the section's management switches, the ports split as
evenly as :func:`~bom.topology.geometry.split` splits them (the closed form groups the switches by
how many ports each takes; the plan hands each switch its share of the devices).

:data:`OOB_UPLINKS`: the management switches' uplinks, to a separate OOB spine layer (hop
``leaf-spine``) or to the site's in-band network (hop ``leaf-inband``). Into a built in-band
fabric they are that fabric's ``oob-leaf`` endpoint hop (:mod:`bom.links.pooled`) and this
pattern has no links. How many switches stand where is the model's
(:func:`bom.topology.support.oob_sections`).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING

from bom import names
from bom.catalog.media import cage
from bom.links.hop import Rows
from bom.links.ports import PlanMismatchError, Ports, port_names
from bom.model.floor import floors
from bom.model.hops import HopKind
from bom.model.linkgroups import LinkGroup
from bom.model.shares import split
from bom.topology.geometry import Profiles, route, unplaced_run
from bom.topology.linkgroups import count_hop
from bom.units import magnitude

if TYPE_CHECKING:
    from bom.catalog.media import Media
    from bom.catalog.rows import Switch
    from bom.links.ports import Kind, Plan
    from bom.model.fabrics import OobFabric, OobSection
    from bom.model.floorplan import EndGroups, FloorPlan, Run
    from bom.model.placement import Placement, Rack, SiteLayout, Slot

Place = tuple[tuple[object, ...], str]
Spot = tuple[int, int]
#: (block section number, or None for the shared racks; managed devices' and management switches'
#: places, each with where its rack stands)
#: One rack of a copy: its kind, its managed devices and its management switches (in slot order).
OobRack = tuple[str, list, list]
#: (block section number, or None for the shared racks; the copy's racks, each device and switch a
#: plan place with where its rack stands)
Copy = tuple[int | None, list[OobRack]]


def assign(racks: list[tuple[str, int, int]]) -> Iterator[tuple[int, int, int, int]]:
    """One copy's managed devices over its management switches, from (kind, managed devices,
    switches) of each of its racks: (rack, switch number in the copy, its first port, devices),
    each rack's devices in order. A compute rack's devices go to its own switches (the RA's two in
    each NVL72 rack), every other device to the switches that stand outside the compute racks (the
    block's network rack, the shared racks), each group split as evenly as
    :func:`~bom.topology.geometry.split` splits it. The closed form and the cable plan both take
    this; the counts are :func:`bom.topology.support.oob_sections`'.

    >>> list(assign([("compute", 3, 2), ("network", 2, 1), ("compute", 1, 0)]))
    [(0, 0, 0, 2), (0, 1, 0, 1), (1, 2, 0, 2), (2, 2, 2, 1)]
    """
    first = 0
    pool: list[tuple[int, int]] = []
    pool_leaves: list[int] = []
    groups = []
    for r, (kind, devs, leaves) in enumerate(racks):
        nums = list(range(first, first + leaves))
        first += leaves
        if kind == "compute" and leaves:
            groups.append(([(r, devs)] if devs else [], nums))
        else:
            pool += [(r, devs)] if devs else []
            pool_leaves += nums
    if pool:
        groups.append((pool, pool_leaves))
    for devs, nums in groups:
        total = sum(n for _, n in devs)
        if total and not nums:
            raise PlanMismatchError(f"{total} managed devices have no management switch to go to")
        at, left = 0, devs[0][1] if devs else 0
        li = 0
        for ports, count in split(total, len(nums)):
            for _ in range(count):
                j = 0
                while j < ports:
                    take = min(ports - j, left)
                    yield devs[at][0], nums[li], j, take
                    j += take
                    left -= take
                    if not left and at + 1 < len(devs):
                        at += 1
                        left = devs[at][1]
                li += 1


def _place(site: int, rack: Rack, slot: Slot) -> tuple[Place, Spot]:
    """The device's place on a plan row, and where its rack stands."""
    return (((names.site(site), f"r{rack.row:02d}", rack.id, slot.u, slot.device, slot.role),
             f"{rack.id}-{slot.u:02d}"), (rack.row, rack.position))


def copies(placement: Placement, shape: SiteLayout, site: int, merged: bool = False) -> Iterator[Copy]:
    """Each copy of each block section of ``site``, then all its shared racks together.
    ``merged``: the site's one management switch takes the shared racks' devices too
    (:func:`bom.topology.support.oob_sections`)."""
    if merged:
        found = list(copies(placement, shape, site))
        if len(found) == 2 and found[-1][0] is None:
            (n, racks), (_, shared) = found
            yield n, racks + shared
            return
        yield from found
        return
    number = list(itertools.accumulate((sec.block for sec in shape.sections), initial=0))
    shared: list[OobRack] = []
    for (k, _), laid in itertools.groupby(placement.site_racks(site, shape), key=lambda r: r[:2]):
        block = k < len(shape.sections) and shape.sections[k].block   # a site's own racks are not a block
        racks = [] if block else shared
        for _, _, lay, rack in laid:
            devs, leaves = [], []
            for (item, _), slot in zip(lay.slots, placement.elevation(rack), strict=True):
                if item.managed:
                    devs.append(_place(site, rack, slot))
                elif slot.role == HopKind.OOB_LEAF:
                    leaves.append(_place(site, rack, slot))
            racks.append((lay.kind, devs, leaves))
        if block:
            yield number[k], racks
    if any(devs for _, devs, _ in shared):
        yield None, shared


def uplink_names(leaf: Switch) -> list[str]:
    """A management switch's uplink ports, numbered after its downlink cages."""
    assert leaf.uplinks is not None
    up = leaf.uplinks
    return port_names(up.ports // up.ports_per_cage, up.ports_per_cage, leaf.cages)


class OobNodeLeaf:
    """Every managed device's management port to its section's management switches."""

    name = HopKind.NODE_LEAF

    def ends(self, f: OobFabric, placement: Placement, fp: FloorPlan) -> tuple[EndGroups, EndGroups]:
        """Every copy of every section: its devices and switches where the placement stands them
        (:func:`assign` pairs them, rack by rack), counted once per section and shape."""
        lo, up = Profiles(), Profiles()
        per = placement.racks_per_row
        for k, shape in enumerate(placement.sites):
            blocks, n_shared = f.per_shape[k] if k < len(f.per_shape) else ([], 1)
            starts = shape.starts(per)
            shared: list[tuple[Spot, tuple[str, int, int]]] = []
            found = []
            for n, sec in enumerate(shape.sections):
                racks = [] if sec.block else shared
                for i, lay in enumerate(sec.layouts):
                    racks.append((sec.spot(starts[n], 0, i, per),
                                  (lay.kind, sum(1 for item, _ in lay.slots if item.managed),
                                   sum(1 for item, _ in lay.slots if item.role == HopKind.OOB_LEAF))))
                if sec.block:
                    found.append((n, racks, sec.copies * shape.count))
            if len(blocks) == 1 and not n_shared and len(found) == 1 and found[0][2] == shape.count and shared:
                found[0] = (found[0][0], found[0][1] + shared, found[0][2])   # one switch takes the site
            elif any(r[1][1] for r in shared):
                found.append((None, shared, shape.count))
            for n, racks, times in found:
                leaves = [spot for spot, (_, _, ls) in racks for _ in range(ls)]
                for r, li, _, devs in assign([r for _, r in racks]):
                    run = route(racks[r][0], leaves[li], fp)
                    lo.add((k, n, r, li), run, 1, devs * times)
                    up.add((k, n, li), run, devs, times)
        return lo.groups(), up.groups()

    def count(self, media: Media, fp: FloorPlan, f: OobFabric, leaf: Switch, placement: Placement) -> list[LinkGroup]:
        dev, lf = self.ends(f, placement, fp)
        rj45 = cage("rj45", 1)
        return count_hop(media, fp, fabric=f.name, tier=f.tier, hop=self.name, lower="node", upper="leaf",
                         lower_groups=dev, upper_groups=lf, rate_gbps=magnitude(leaf.port_rate, "rate"),
                         ff_lower=rj45, ff_upper=rj45, lane_gbps=None)

    def rows(self, plan: Plan, kinds: dict[Run, Kind], secs: list[OobSection], found: list[Copy],
             leaf: Switch) -> Rows:
        """Each copy's managed devices over its management switches (:func:`assign`)."""
        names_ = port_names(leaf.cages, leaf.ports_per_cage)
        per = leaf.ports_per_cage
        fp = plan.model.floor
        for n, racks in found:
            sec = secs[-1] if n is None else secs[n]
            leaves = [lf for _, _, ls in racks for lf in ls]
            devs = sum(len(ds) for _, ds, _ in racks)
            if len(leaves) != sec.per_rack * sec.racks + sec.block or devs != sec.devices:
                raise PlanMismatchError(f"a section has {devs} managed devices and {len(leaves)} management "
                                        f"switches; the OOB fabric counts {sec.devices} and "
                                        f"{sec.per_rack * sec.racks + sec.block}")
            cursor = [0] * len(racks)
            for r, li, j0, n_devs in assign([(kind, len(ds), len(ls)) for kind, ds, ls in racks]):
                lf, l_spot = leaves[li]
                for j in range(j0, j0 + n_devs):
                    dev, d_spot = racks[r][1][cursor[r]]
                    cursor[r] += 1
                    k = kinds[route(d_spot, l_spot, fp)]
                    yield from plan.emitter(k)(k, 1, "", dev, "mgmt", "mgmt", lf, names_[j], names_[j - j % per])


class OobUplinks:
    """The management switches' uplinks: to the OOB spines, or the site's in-band network."""

    def hop(self, f: OobFabric) -> str | None:
        """The hop the uplinks are counted as here (None: the in-band fabric's oob-leaf hop)."""
        if f.spines:
            return HopKind.LEAF_SPINE
        return None if f.into_inband else HopKind.LEAF_INBAND

    @staticmethod
    def pairs(leaves: int, spines: int, per_leaf: int) -> Iterator[tuple[int, int, int]]:
        """(management switch, its uplink, spine) of one site: each switch's uplinks to the site's
        spines round robin, switches in number order."""
        c = 0
        for n in range(leaves):
            for j in range(per_leaf):
                yield n, j, c % spines
                c += 1

    def count(self, media: Media, fp: FloorPlan, f: OobFabric, leaf: Switch, spine: Switch | None,
              placement: Placement) -> list[LinkGroup]:
        hop = self.hop(f)
        if hop is None:
            return []
        assert leaf.uplinks is not None
        up = leaf.uplinks
        ff = cage(up.form_factor, 1, True)
        if hop == HopKind.LEAF_SPINE:
            assert spine is not None
            ups, far = [], []
            for floor, leaves, (sites, spines) in zip(floors(placement), f.site_leaves, f.site_spines, strict=True):
                lo, hi = Profiles(), Profiles()
                for n, _, s in self.pairs(leaves, spines, f.uplinks_per_leaf):
                    run = route(floor.spot(HopKind.OOB_LEAF, n), floor.spot("oob-spine", s), fp)
                    lo.add(n, run, 1)
                    hi.add(s, run, 1)
                ups += lo.groups(sites)
                far += hi.groups(sites)
            ff_far, upper = cage(spine.form_factor, spine.ports_per_cage, True), "spine"
        else:   # no in-band fabric is built: the uplinks' cables to the site's in-band network (not placed)
            ups = far = [(f.leaves, {unplaced_run(fp): f.uplinks_per_leaf})]
            ff_far, upper = ff, "inband"
        return count_hop(media, fp, fabric=f.name, tier=f.tier, hop=hop, lower="leaf", upper=upper,
                         lower_groups=ups, upper_groups=far, rate_gbps=magnitude(up.rate, "rate"),
                         ff_lower=ff, ff_upper=ff_far, lane_gbps=None)

    def rows(self, plan: Plan, f: OobFabric, kinds: dict[str, dict[Run, Kind]],
             leaves: list[tuple[int, tuple[Place, Spot]]], leaf: Switch, spine: Switch | None) -> Rows:
        hop = self.hop(f)
        if hop is None:
            return
        assert leaf.uplinks is not None
        up_names, per = uplink_names(leaf), leaf.uplinks.ports_per_cage
        if hop == HopKind.LEAF_SPINE:
            assert spine is not None
            yield from self._to_spines(plan, f, kinds[hop], leaves, up_names, per, spine)
        else:
            yield from self._to_inband(plan, f, kinds[hop][unplaced_run(plan.model.floor)], leaves, up_names, per)

    def _to_spines(self, plan: Plan, f: OobFabric, kinds: dict[Run, Kind], leaves: list[tuple[int, tuple[Place, Spot]]],
                   up_names: list[str], per: int, spine: Switch) -> Rows:
        """Each site's management switches to its own spines (:meth:`pairs`)."""
        spine_names = port_names(spine.cages, spine.ports_per_cage)
        role, fp = HopKind.OOB_LEAF, plan.model.floor
        site = 0
        for (sites, spines), n_leaves in zip(f.site_spines, f.site_leaves, strict=True):
            for _ in range(sites):
                site += 1
                ranges = [Ports(0, spine.cages, spine.ports_per_cage, spine_names, ("oob-spine", i))
                          for i in range(spines)]
                for n, j, i in self.pairs(n_leaves, spines, f.uplinks_per_leaf):
                    k = kinds[plan.run((role, n), ("oob-spine", i), site, fp)]
                    m = ranges[i].take(k.b_key)
                    yield from plan.emitter(k)(k, 1, "", plan.place(role, site, n), up_names[j],
                                               up_names[j - j % per], plan.place("oob-spine", site, i),
                                               spine_names[m], spine_names[m - m % ranges[i].per])

    def _to_inband(self, plan: Plan, f: OobFabric, k: Kind, leaves: list[tuple[int, tuple[Place, Spot]]],
                   up_names: list[str], per: int) -> Rows:
        """No in-band fabric is built: each uplink to the site's in-band network, a port a turn."""
        emit = plan.emitter(k)
        turn: Counter[int] = Counter()
        for site, (lf, _) in leaves:
            for j in range(f.uplinks_per_leaf):
                turn[site] += 1
                name = f"{names.site(site)}-inband"
                far = ((names.site(site), "", "", "", name, "inband"), name)
                yield from emit(k, 1, "", lf, up_names[j], up_names[j - j % per], far, f"up{turn[site]}", "")


OOB_NODE_LEAF = OobNodeLeaf()
OOB_UPLINKS = OobUplinks()


def oob_groups(f: OobFabric, fp: FloorPlan, media: Media, leaf: Switch, spine: Switch | None,
               placement: Placement) -> list[LinkGroup]:
    """The OOB fabric's link groups (closed form), where the placement stands its devices."""
    return (OOB_NODE_LEAF.count(media, fp, f, leaf, placement)
            + OOB_UPLINKS.count(media, fp, f, leaf, spine, placement))


def oob_rows(plan: Plan, f: OobFabric, kinds: dict[str, dict[Run, Kind]], leaf: Switch, spine: Switch | None
             ) -> Iterator[Rows]:
    """The OOB fabric's row generators: each site's management ports, then every uplink."""
    placement = plan.model.placement
    assert placement is not None
    site = 0
    leaves: list[tuple[int, tuple[Place, Spot]]] = []
    sections = iter(f.sections)
    for k, shape in enumerate(placement.sites):
        secs: list[OobSection] | None = None
        blocks, n_shared = f.per_shape[k] if k < len(f.per_shape) else ([], 1)
        for _ in range(shape.count):
            site += 1
            found = list(copies(placement, shape, site, merged=len(blocks) == 1 and not n_shared))
            if secs is None:   # one OobSection per block section, then the shared racks' (oob_sections)
                shared = 1 if found and found[-1][0] is None else 0
                secs = [next(sections) for _ in range(sum(sec.block for sec in shape.sections) + shared)]
            yield OOB_NODE_LEAF.rows(plan, kinds[HopKind.NODE_LEAF], secs, found, leaf)
            leaves += [(site, lf) for _, racks in found for _, _, lfs in racks for lf in lfs]
    yield OOB_UPLINKS.rows(plan, f, kinds, leaves, leaf, spine)
