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
import math
from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING

from bom import names
from bom.catalog.media import cage
from bom.errors import LimitError
from bom.links.hop import Rows
from bom.links.ports import PlanMismatchError, Ports, port_names
from bom.model.hops import HopKind
from bom.topology.geometry import shared_rack, split
from bom.topology.linkgroups import LinkGroup, count_hop
from bom.units import magnitude

if TYPE_CHECKING:
    from bom.catalog.media import Media
    from bom.catalog.rows import Switch
    from bom.links.ports import Kind, Plan, Switches
    from bom.model.fabrics import OobFabric, OobSection
    from bom.placement.racks import Placement, Rack, SiteLayout, Slot
    from bom.topology.geometry import EndGroups, FloorPlan, Run

Place = tuple[tuple[object, ...], str]
#: (block section number, or None for the shared racks; managed devices' places; management switches' places)
Copy = tuple[int | None, list[Place], list[Place]]


def _place(site: int, rack: Rack, slot: Slot) -> Place:
    return ((names.site(site), f"r{rack.row:02d}", rack.id, slot.u, slot.device, slot.role),
            f"{rack.id}-{slot.u:02d}")


def copies(placement: Placement, shape: SiteLayout, site: int, merged: bool = False) -> Iterator[Copy]:
    """Each copy of each block section of ``site``, then all its shared racks together.
    ``merged``: the site's one management switch takes the shared racks' devices too
    (:func:`bom.topology.support.oob_sections`)."""
    if merged:
        found = list(copies(placement, shape, site))
        if len(found) == 2 and found[-1][0] is None:
            (n, devs, leaves), (_, shared, _) = found
            yield n, devs + shared, leaves
            return
        yield from found
        return
    number = list(itertools.accumulate((sec.block for sec in shape.sections), initial=0))
    shared_devs: list[Place] = []
    shared_leaves: list[Place] = []
    for (k, _), racks in itertools.groupby(placement.site_racks(site, shape), key=lambda r: r[:2]):
        block = shape.sections[k].block
        devs, leaves = ([], []) if block else (shared_devs, shared_leaves)
        for _, _, lay, rack in racks:
            for (item, _), slot in zip(lay.slots, placement.elevation(rack), strict=True):
                if item.managed:
                    devs.append(_place(site, rack, slot))
                elif slot.role == HopKind.OOB_LEAF:
                    leaves.append(_place(site, rack, slot))
        if block:
            yield number[k], devs, leaves
    if shared_devs:
        yield None, shared_devs, shared_leaves


def uplink_names(leaf: Switch) -> list[str]:
    """A management switch's uplink ports, numbered after its downlink cages."""
    assert leaf.uplinks is not None
    up = leaf.uplinks
    return port_names(up.ports // up.ports_per_cage, up.ports_per_cage, leaf.cages)


class OobNodeLeaf:
    """Every managed device's management port to its section's management switches."""

    name = HopKind.NODE_LEAF

    def ends(self, f: OobFabric) -> tuple[EndGroups, EndGroups]:
        dev: EndGroups = []
        leaf: EndGroups = []
        for s in f.sections:
            dev.append((s.devices * s.copies, {s.run: 1}))
            for ports, n in split(s.devices, s.per_rack * s.racks + s.block):
                leaf.append((n * s.copies, {s.run: ports}))
        return dev, leaf

    def count(self, media: Media, fp: FloorPlan, f: OobFabric, leaf: Switch) -> list[LinkGroup]:
        dev, lf = self.ends(f)
        rj45 = cage("rj45", 1)
        return count_hop(media, fp, fabric=f.name, tier=f.tier, hop=self.name, lower="node", upper="leaf",
                         lower_groups=dev, upper_groups=lf, rate_gbps=magnitude(leaf.port_rate, "rate"),
                         ff_lower=rj45, ff_upper=rj45, lane_gbps=None)

    def rows(self, plan: Plan, kinds: dict[Run, Kind], secs: list[OobSection], found: list[Copy],
             leaf: Switch) -> Rows:
        """Each copy's managed devices in rack order over its management switches."""
        names_ = port_names(leaf.cages, leaf.ports_per_cage)
        per = leaf.ports_per_cage
        for n, devs, leaves in found:
            sec = secs[-1] if n is None else secs[n]
            if len(leaves) != sec.per_rack * sec.racks + sec.block or len(devs) != sec.devices:
                raise PlanMismatchError(f"a section has {len(devs)} managed devices and {len(leaves)} management "
                                        f"switches; the OOB fabric counts {sec.devices} and "
                                        f"{sec.per_rack * sec.racks + sec.block}")
            if not devs:
                continue
            k = kinds[sec.run]
            emit = plan.emitter(k)
            d = li = 0
            for ports, count in split(len(devs), len(leaves)):
                for _ in range(count):
                    lf = leaves[li]
                    li += 1
                    for j in range(ports):
                        yield from emit(k, 1, "", devs[d], "mgmt", "mgmt", lf, names_[j], names_[j - j % per])
                        d += 1


class OobUplinks:
    """The management switches' uplinks: to the OOB spines, or the site's in-band network."""

    def hop(self, f: OobFabric) -> str | None:
        """The hop the uplinks are counted as here (None: the in-band fabric's oob-leaf hop)."""
        if f.spines:
            return HopKind.LEAF_SPINE
        return None if f.into_inband else HopKind.LEAF_INBAND

    def count(self, media: Media, fp: FloorPlan, f: OobFabric, leaf: Switch, spine: Switch | None
              ) -> list[LinkGroup]:
        hop = self.hop(f)
        if hop is None:
            return []
        assert leaf.uplinks is not None
        up = leaf.uplinks
        run = shared_rack(fp)
        ups = [(f.leaves, {run: f.uplinks_per_leaf})]
        ff = cage(up.form_factor, 1, True)
        if hop == HopKind.LEAF_SPINE:
            assert spine is not None
            per = math.ceil(f.leaves * f.uplinks_per_leaf / f.spines)
            far, ff_far, upper = [(f.spines, {run: per})], cage(spine.form_factor, spine.ports_per_cage, True), "spine"
        else:   # no in-band fabric is built: the uplinks' cables to the site's in-band network
            far, ff_far, upper = ups, ff, "inband"
        return count_hop(media, fp, fabric=f.name, tier=f.tier, hop=hop, lower="leaf", upper=upper,
                         lower_groups=ups, upper_groups=far, rate_gbps=magnitude(up.rate, "rate"),
                         ff_lower=ff, ff_upper=ff_far, lane_gbps=None)

    def rows(self, plan: Plan, f: OobFabric, kinds: dict[str, dict[Run, Kind]], tops: dict[str, dict[int, Switches]],
             leaves: list[tuple[int, Place]], leaf: Switch, spine: Switch | None) -> Rows:
        hop = self.hop(f)
        if hop is None:
            return
        assert leaf.uplinks is not None
        up_names, per = uplink_names(leaf), leaf.uplinks.ports_per_cage
        k = kinds[hop][shared_rack(plan.model.floor)]
        if hop == HopKind.LEAF_SPINE:
            assert spine is not None
            yield from self._to_spines(plan, f, k, leaves, up_names, per, spine)
        else:
            yield from self._to_inband(plan, f, k, tops.get("inband", {}), leaves, up_names, per)

    def _to_spines(self, plan: Plan, f: OobFabric, k: Kind, leaves: list[tuple[int, Place]], up_names: list[str],
                   per: int, spine: Switch) -> Rows:
        spine_names = port_names(spine.cages, spine.ports_per_cage)
        ranges = [Ports(0, spine.cages, spine.ports_per_cage, spine_names, ("oob-spine", i))
                  for i in range(f.spines)]
        emit = plan.emitter(k)
        c = 0
        for _, lf in leaves:
            for j in range(f.uplinks_per_leaf):
                i = c % len(ranges)
                c += 1
                m = ranges[i].take(k.b_key)
                yield from emit(k, 1, "", lf, up_names[j], up_names[j - j % per], plan.place("oob-spine", 1, i),
                                spine_names[m], spine_names[m - m % ranges[i].per])

    def _to_inband(self, plan: Plan, f: OobFabric, k: Kind, inband: dict[int, Switches],
                   leaves: list[tuple[int, Place]], up_names: list[str], per: int) -> Rows:
        emit = plan.emitter(k)
        free: dict[int, list[list[Ports]]] = {}
        turn: Counter[int] = Counter()
        for site, lf in leaves:
            sw = inband.get(site)
            if sw is None:
                # The closed form counts these uplinks into an in-band fabric the scenario does not build.
                for j in range(f.uplinks_per_leaf):
                    turn[site] += 1
                    name = f"{names.site(site)}-inband"
                    far = ((names.site(site), "", "", "", name, "inband"), name)
                    yield from emit(k, 1, "", lf, up_names[j], up_names[j - j % per], far, f"up{turn[site]}", "")
                continue
            if site not in free:
                free[site] = [sw.spare(i) for i in range(sw.p.leaves * sw.planes)]
            ranges = free[site]
            for j in range(f.uplinks_per_leaf):
                for _ in range(len(ranges)):
                    i = turn[site] % len(ranges)
                    turn[site] += 1
                    spare = next((r for r in ranges[i] if r.free), None)
                    if spare is not None:
                        break
                else:
                    raise LimitError(f"site {site}: the in-band leaves have no free ports for the management "
                                     "switches' uplinks", key="fabrics.oob.uplinks",
                                     hint="Set fabrics.oob.uplinks: spine, or a larger in-band switch.")
                m = spare.take(k.b_key)
                yield from emit(k, 1, "", lf, up_names[j], up_names[j - j % per],
                                plan.place(sw.roles["leaf"], site, i), spare.names[m], spare.names[m - m % spare.per])


OOB_NODE_LEAF = OobNodeLeaf()
OOB_UPLINKS = OobUplinks()


def oob_groups(f: OobFabric, fp: FloorPlan, media: Media, leaf: Switch, spine: Switch | None) -> list[LinkGroup]:
    """The OOB fabric's link groups (closed form)."""
    return OOB_NODE_LEAF.count(media, fp, f, leaf) + OOB_UPLINKS.count(media, fp, f, leaf, spine)


def oob_rows(plan: Plan, f: OobFabric, kinds: dict[str, dict[Run, Kind]], tops: dict[str, dict[int, Switches]],
             leaf: Switch, spine: Switch | None) -> Iterator[Rows]:
    """The OOB fabric's row generators: each site's management ports, then every uplink."""
    placement = plan.model.placement
    assert placement is not None
    site = 0
    leaves: list[tuple[int, Place]] = []
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
            leaves += [(site, lf) for _, _, lfs in found for lf in lfs]
    yield OOB_UPLINKS.rows(plan, f, kinds, tops, leaves, leaf, spine)
