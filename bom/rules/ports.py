"""Ports: no device has more links than ports (closed form, per layer), and every port the plan
names carries one link (the plan, port by port).

The closed form sums each layer's link ends over its link groups, in its switches' own ports (a
400G breakout end takes half an 800G port), and compares them with the layer's switches times
their ports; the spreading rule makes every switch of a layer carry the same share, so the layer's
sum stands for each switch. The plan's rule sees each port as it is named.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from bom import names
from bom.cableplan.rows import COL
from bom.model.checks import ERROR, End, Report, Rule, Violation
from bom.model.records import PlanRow
from bom.roles import SWITCH_LAYERS, FabricRole, Layer
from bom.rules.context import Context
from bom.rules.devices import UPLINKS

if TYPE_CHECKING:
    from bom.rules.devices import Device

Population = tuple[str, str, str]


def _devices(ctx: Context, fabric: str, layer: str) -> int:
    """How many devices the model builds of one population."""
    m = ctx.model
    if fabric == FabricRole.DCI:   # its routers, and its own border leaves where it has them
        return (m.dci.routers if layer == Layer.ROUTER else m.dci.border_leaves) if m.dci is not None else 0
    if layer == Layer.NODE:
        return m.cluster.nodes
    return m.fabrics[fabric].switches(Layer(layer))


def count(ctx: Context) -> Iterator[Violation]:
    used: dict[Population, float] = defaultdict(float)
    seen: dict[Population, Device] = {}
    for g in ctx.groups:
        for dev in ctx.devices(g):
            if dev is not None and dev.population is not None:
                used[dev.population] += g.links * dev.share
                seen.setdefault(dev.population, dev)
    d = ctx.model.dci
    if d is not None and (FabricRole.DCI, Layer.ROUTER, "ports") in seen:
        used[FabricRole.DCI, Layer.ROUTER, "ports"] += d.modules   # a line port per coherent module
    for pop, n in used.items():
        dev = seen[pop]
        devices = _devices(ctx, pop[0], pop[1])
        have = devices * dev.pool_ports
        if n > have + 1e-6:
            fabric, layer, pool = pop
            role = names.switch_role(fabric, layer) if layer in SWITCH_LAYERS else layer
            what = "dedicated uplink ports" if pool == UPLINKS else "ports"
            yield Violation("ports.count", f"{fabric} {role} ({devices:,} x {dev.part})",
                            f"the links at this layer take {n:,.6g} of its {have:,} {what} "
                            f"({dev.pool_ports} on each {dev.kind})",
                            "use a larger switch or more of them (layers, oversubscription), or fewer links "
                            "into this layer (dci_bandwidth, endpoints)",
                            End(role, dev.part, "", "", dev.describe()), None, round(n - have))


# --- the plan: each port once ----------------------------------------------------------------

#: Devices whose ports belong to one fabric and one site (a node's ``storage-p1`` is named for its
#: fabric, its ``mgmt`` port is the out-of-band fabric's): what they used is forgotten when the plan
#: moves to the next fabric or site, so the rule's memory stays that of one site's endpoints plus
#: every switch, router and mux (their ports are reached from other fabrics: DCI client links, OOB
#: uplinks, management ports).
LOCAL_ROLES = frozenset({Layer.NODE, Layer.PDU, Layer.UFM, Layer.MGMT, Layer.STORAGE, Layer.NVLINK_SWITCH,
                         Layer.POWER_SHELF})

_LINK, _FABRIC, _SITE = COL["link_id"], COL["fabric"], COL["a_site"]
_AD, _AP, _AR = COL["a_device"], COL["a_port"], COL["a_role"]
_BD, _BP, _BR = COL["b_device"], COL["b_port"], COL["b_role"]


class Unique:
    """Each (device, port) once in the plan: a bit per port name in an integer per device.

    ``row`` is a closure over its tables, both ends written out (a plan has millions of rows)."""

    def __init__(self, ctx: Context, report: Report) -> None:
        bits: dict[object, int] = {}        # port name -> its bit
        kept: dict[object, int] = {}        # switch, router, mux -> ports used
        state: list[Any] = [None, None, None, {}]   # last link, fabric, site; endpoints' ports
        local_roles = LOCAL_ROLES

        def row(r: PlanRow) -> None:
            lid = r[_LINK]
            if lid and lid == state[0]:
                return   # another fibre run of the same link: the same two ports
            state[0] = lid
            if r[_FABRIC] != state[1] or r[_SITE] != state[2]:
                state[1], state[2], state[3] = r[_FABRIC], r[_SITE], {}
            local = state[3]
            port = r[_AP]
            bit = bits.get(port)
            if bit is None:
                bit = bits[port] = 1 << len(bits)
            table = local if r[_AR] in local_roles else kept
            dev = r[_AD]
            used = table.get(dev, 0)
            if used & bit:
                report(lambda: _twice(r, True))
            table[dev] = used | bit
            port = r[_BP]
            bit = bits.get(port)
            if bit is None:
                bit = bits[port] = 1 << len(bits)
            table = local if r[_BR] in local_roles else kept
            dev = r[_BD]
            used = table.get(dev, 0)
            if used & bit:
                report(lambda: _twice(r, False))
            table[dev] = used | bit

        def done() -> None:
            bits.clear()
            kept.clear()
            state[3] = {}

        self.row, self.done = row, done


def _twice(r: PlanRow, a_side: bool) -> Violation:
    side = "a" if a_side else "b"
    c = COL
    dev, port = r[c[f"{side}_device"]], r[c[f"{side}_port"]]
    return Violation("ports.unique", f"{dev}:{port}",
                     f"{r[c['cable_id']]} ({r[c['fabric']]} {r[c['hop']]}, link {r[c['link_id']] or '-'}) lands on a "
                     f"port another link already uses",
                     "a bug in the cable plan's port numbering (bom/links): please report the scenario",
                     plan_end(r, "a"), plan_end(r, "b"))


def plan_end(r: PlanRow, side: str) -> End:
    """One end of a plan row as a violation shows it."""
    c = COL
    rack, u = r[c[f"{side}_rack"]], r[c[f"{side}_u"]]
    place = f"rack {rack} U{u}" if rack else "no rack"
    return End(str(r[c[f"{side}_role"]]), str(r[c[f"{side}_device"]]), str(r[c[f"{side}_port"]]),
               str(r[c[f"{side}_module"]]), place)


RULES = (
    Rule("ports.count", ERROR, "ports",
         "no switch layer, node or router has more links than ports (a breakout port counts as its share of "
         "the native port)",
         closed=count),
    Rule("ports.unique", ERROR, "ports",
         "every device port the cable plan names carries one link",
         stream=Unique),
)
