"""Link groups: every boundary-crossing link counted as ports, modules and a fibre run.

A hop's two ends are given as device groups with the ports each device has on each run
(:mod:`bom.topology.geometry`); each run's length picks its parts through the standard lookup, and
runs that pick the same parts form one link group. Counting rules (docs/counting.md):
a module per cage with a used port (twin-port modules once per cage; a device's ports that
take the same module share cages across link groups, as runs of different fibre lengths
plug into one twin-port module: the cable plan places them so); copper and AOC
assemblies carry no modules and no fibre; an optical link has a module share at each end
and its fibre runs, whose lit strands come from the connector.
"""

from __future__ import annotations

import math
from collections import defaultdict

from bom.catalog.media import End, Media, Option, fits
from bom.model.floorplan import EndGroups, FloorPlan, Run
from bom.model.linkgroups import LinkGroup
from bom.roles import Layer, Tier


def _orient(o: Option, ff_lower: str | None) -> tuple[End, End, int, int]:
    """The option's ends as (lower, upper) with the head count of each (assemblies)."""
    heads_a = o.assembly.end_a.count if o.assembly else 1
    heads_b = o.assembly.end_b.count if o.assembly else 1
    if ff_lower is None or fits(o.a, ff_lower, heads_b, o.assembly is not None):
        return o.a, o.b, heads_a, heads_b
    return o.b, o.a, heads_b, heads_a


def count_hop(media: Media, fp: FloorPlan, *, fabric: str, tier: Tier, hop: str, lower: Layer,
              upper: Layer, lower_groups: EndGroups, upper_groups: EndGroups, rate_gbps: float,
              ff_lower: str, ff_upper: str, lane_gbps: float | None) -> list[LinkGroup]:
    """All link groups of one hop, counted per device group and run, never per cable. What a run
    decides (its parts, its group, the group's longest run and its runs) is settled the first time the
    run is met; what a group's end holds, when its group is made: a device group then only sums."""
    chosen: dict[Run, object] = {}
    groups: dict[object, LinkGroup] = {}
    # Per group key, each end's facts: (the group, its module's key or None, the end, its heads one).
    facts: dict[object, tuple[_EndFacts, _EndFacts]] = {}

    def pick(run: Run) -> object:
        panels = fp.patch_panels if run.bucket == "cross-row" else 0
        c = media.lookup(rate_gbps, run.length_m, ff_lower, ff_upper, lane_gbps, panels=panels).choice
        key = chosen[run] = (run.bucket, id(c.option), c.part_number)
        g = groups.get(key)
        if g is None:
            lo, up, h_lo, h_up = _orient(c.option, ff_lower)
            g = groups[key] = LinkGroup(fabric, tier, hop, run.bucket, lower, upper, rate_gbps, c, lo, up)
            facts[key] = (_end_facts(g, lo, h_lo), _end_facts(g, up, h_up))
        g.length_m = max(g.length_m, run.length_m)
        g.runs.setdefault(run, c)
        return key

    heads: dict[object, list[int]] = defaultdict(lambda: [0, 0])
    for side, end_groups in ((0, lower_groups), (1, upper_groups)):
        for devices, runs in end_groups:
            per_key: dict[object, int] = {}
            for run, ports in runs.items():
                key = chosen.get(run)
                if key is None:
                    key = pick(run)
                per_key[key] = per_key.get(key, 0) + ports
            # A module per cage with a used port: a device's ports that take the same module share
            # its cages whatever fibre length each run needs (counted on the first such group).
            per_module: dict[tuple[str, int], list] = {}
            for key, ports in per_key.items():
                g, module, end, one_head = facts[key][side]
                if side == 0:
                    g.links += devices * ports
                if module is not None:
                    per_module.setdefault(module, [0, g])[0] += ports
                elif end.engine is not None and end.engine.breakout is not None:
                    # A CPO faceplate connector carrying several ports: a breakout per connector used.
                    key_b = f"breakouts_{'upper' if side else 'lower'}"
                    g.extras[key_b] = g.extras.get(key_b, 0) + devices * math.ceil(
                        ports / end.engine.ports_per_connector)
                if one_head:   # assemblies counted where one head holds them
                    heads[key][side] += devices * math.ceil(ports / end.ports)
            for (_, per_cage), (ports, g) in per_module.items():
                modules = devices * math.ceil(ports / per_cage)
                if side:
                    g.modules_upper += modules
                else:
                    g.modules_lower += modules
    for key, g in groups.items():
        _finish(g, heads[key], media)
    return list(groups.values())


#: A group's end as its device groups read it: the group, the module's (part, ports) key (None: no
#: module bought per cage), the end, whether one head holds the assembly there.
_EndFacts = tuple[LinkGroup, "tuple[str, int] | None", End, bool]


def _end_facts(g: LinkGroup, end: End, heads: int) -> _EndFacts:
    return g, (end.part.id, end.ports) if end.part is not None else None, end, heads == 1


def _finish(g: LinkGroup, heads: list[int], media: Media) -> None:
    o = g.choice.option
    if o.assembly is not None:
        g.cables = max(heads) if any(heads) else math.ceil(g.links / o.assembly.links)
        return
    g.fibre_runs = g.links * o.runs_per_link
    g.cables = math.ceil(g.fibre_runs / o.runs_per_cable)
    g.fibre_strands = g.links * o.lit_per_link
    if g.choice.panels and o.fibre is not None:
        g.panel = media.panel_for(o.fibre.connector, o.medium)
        if g.panel is not None:
            g.panels = g.choice.panels * math.ceil(g.fibre_runs / g.panel.ports)


