"""Ends match: both ends of every link speak one protocol, run one rate on one lane rate, hold a
module their cage takes, speak one optical standard and take the cable's connector and fibre.

Closed form, per link group (and the DCI line once): what each end's device is comes from
:mod:`bom.rules.devices`, what the link puts there from the group's choice (its modules, cable or
fibre). Polarity is not checked: no catalog row says which polarity a part has.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TYPE_CHECKING

from bom.catalog.media import port_standard
from bom.catalog.rows import Coherent, Module
from bom.model.checks import ERROR, WARNING, End, Rule, Violation
from bom.model.hops import HopKind
from bom.roles import FabricRole, Layer
from bom.rules.context import Context, end, where
from bom.rules.devices import PROTOCOL_NAMES, native_ports, switch_device
from bom.units import magnitude

if TYPE_CHECKING:
    from bom.catalog.media import End as LinkEnd
    from bom.model.linkgroups import LinkGroup
    from bom.rules.devices import Device

#: Fibre types each module medium runs on (multimode on OM grades, single-mode on OS2).
FIBRES = {"multimode": ("om3", "om4", "om5"), "smf-parallel": ("os2",), "smf-duplex": ("os2",)}


def _pairs(ctx: Context) -> Iterator[tuple[LinkGroup, Device | None, Device | None]]:
    for g in ctx.groups:
        lo, up = ctx.devices(g)
        yield g, lo, up


def _violation(rule: str, g: LinkGroup, lo: Device | None, up: Device | None, message: str, fix: str) -> Violation:
    return Violation(rule, where(g), message, fix, end(g, True, lo), end(g, False, up), g.links)


# --- protocol ----------------------------------------------------------------------------------

def protocol(ctx: Context) -> Iterator[Violation]:
    for g, lo, up in _pairs(ctx):
        if lo is None or up is None or lo.protocol is None or up.protocol is None or lo.protocol == up.protocol:
            continue
        a, b = PROTOCOL_NAMES[lo.protocol], PROTOCOL_NAMES[up.protocol]
        if g.hop == HopKind.FABRIC_DCI:
            fix = (f"land the DCI routers' client links on {a} ports: an {a} fabric's border leaves or gateways "
                   f"between the {b} fabric and the routers, or long-haul {b} (MetroX class) instead of routers")
        else:
            fix = (f"build the {g.fabric} fabric's {g.hop} hop of switches of one protocol "
                   f"(fabrics.{g.fabric}.switch, spine)")
        yield _violation("ends.protocol", g, lo, up, f"an {a} {lo.kind} port joined to an {b} {up.kind} port", fix)


# --- rate and lanes ----------------------------------------------------------------------------

def _port_rate(e: LinkEnd) -> float | None:
    """The rate one port of the part at this end runs at (None: a cable head or an engine)."""
    part = e.part
    if isinstance(part, Module):
        return magnitude(part.port_rate, "rate")
    if isinstance(part, Coherent):
        return magnitude(part.rate, "rate")
    return None


def rate(ctx: Context) -> Iterator[Violation]:
    for g, lo, up in _pairs(ctx):
        wrong = []
        if not math.isclose(g.choice.option.rate_gbps, g.rate_gbps):
            wrong.append(f"the {g.choice.option.name} runs at {g.choice.option.rate_gbps:g}G")
        for side, e, dev in (("lower", g.lower_end, lo), ("upper", g.upper_end, up)):
            r = _port_rate(e)
            if r is not None and not math.isclose(r, g.rate_gbps):
                wrong.append(f"the {side} module {e.label} runs at {r:g}G")
            if dev is not None and not dev.runs_at(g.rate_gbps):
                wrong.append(f"the {side} {dev.kind} {dev.part} has no {g.rate_gbps:g}G port"
                             + (f" ({dev.note})" if dev.note else ""))
        if wrong:
            yield _violation("ends.rate", g, lo, up, f"the link runs at {g.rate_gbps:g}G but " + "; ".join(wrong),
                             "pick parts and ports of the link's rate (a breakout the switch row lists, or a NIC of "
                             "that rate), or add the part to a catalog overlay")


def _lane(e: LinkEnd, option_lane: float) -> tuple[float, int | None]:
    """(lane rate, lanes) of the part at one end: a module's own, else the option's."""
    if isinstance(e.part, Module):
        return magnitude(e.part.lane_rate, "rate"), e.part.lanes
    return option_lane, None


def lanes(ctx: Context) -> Iterator[Violation]:
    for g, lo, up in _pairs(ctx):
        o = g.choice.option
        if o.coherent is not None:
            continue   # one carrier, no electrical lanes to match at the far end
        (la, na), (lb, nb) = _lane(g.lower_end, o.lane_gbps), _lane(g.upper_end, o.lane_gbps)
        wrong = []
        if not math.isclose(la, lb) or (na and nb and na != nb):
            wrong.append(f"the modules run {na or '?'} x {la:g}G and {nb or '?'} x {lb:g}G lanes")
        for side, lane, dev in (("lower", la, lo), ("upper", lb, up)):
            if dev is not None and dev.lane_gbps is not None and not math.isclose(dev.lane_gbps, lane):
                wrong.append(f"the {side} {dev.kind} {dev.part} has {dev.lane_gbps:g}G lanes, its module {lane:g}G")
        if wrong:
            yield _violation("ends.lanes", g, lo, up, "; ".join(wrong),
                             "pick modules of the switch's lane rate (100G-PAM4 NDR, 200G-PAM4 XDR) at both ends")


# --- cage ----------------------------------------------------------------------------------------

def _cage_wrong(side: str, e: LinkEnd, dev: Device | None) -> list[str]:
    if dev is None:
        return []
    out = []
    what = "cable head" if e.part is None and e.engine is None else "module" if e.engine is None else "engine port"
    if e.form_factor != dev.form_factor:
        out.append(f"the {side} {what} {e.label} is {e.form_factor}, the {dev.kind} {dev.part}'s cage "
                   f"{dev.form_factor}" + (f" ({dev.note})" if dev.note else ""))
    elif e.ports > dev.per_cage:
        out.append(f"the {side} {what} {e.label} serves {e.ports} ports, the {dev.kind} {dev.part}'s cage "
                   f"holds {dev.per_cage}")
    return out


def cage(ctx: Context) -> Iterator[Violation]:
    for g, lo, up in _pairs(ctx):
        wrong = _cage_wrong("lower", g.lower_end, lo) + _cage_wrong("upper", g.upper_end, up)
        if wrong:
            yield _violation("ends.cage", g, lo, up, "; ".join(wrong),
                             "pick a module or cable whose head fits the device's cage (OSFP finned or flat top, "
                             "QSFP112, QSFP-DD, QSFP28), or give the endpoint a NIC of the leaf's kind")
    yield from _line_cage(ctx)


def _line_cage(ctx: Context) -> Iterator[Violation]:
    """The coherent modules in the routers' line ports (both ends of every wavelength)."""
    d = ctx.model.dci
    if d is None:
        return
    c = d.coherent
    rate_ = magnitude(c.rate, "rate")
    dev = switch_device(d.router, native_ports(d.router), Layer.ROUTER, rate_, FabricRole.DCI, Layer.ROUTER)
    if c.form_factor != dev.form_factor or not dev.runs_at(rate_):
        r = End(Layer.ROUTER, d.router.id, "", c.part_number, dev.describe())
        yield Violation("ends.cage", f"dci {HopKind.SITE_SITE} ({d.links:,} wavelengths at {rate_:g}G)",
                        f"the coherent module {c.part_number} is {c.form_factor} at {rate_:g}G; the router's "
                        f"cage is {dev.form_factor} at {'/'.join(f'{x:g}G' for x in dev.rates)}",
                        "pick a DCI router whose cages take the coherent module (defaults.yaml dci router)",
                        r, r, 2 * d.links)


# --- optical standard, connector and fibre -------------------------------------------------------

def _standard(e: LinkEnd) -> str | None:
    """The optical standard one port of this end speaks (per port: a 2xDR4 twin's port is DR4)."""
    if isinstance(e.part, Module):
        return e.part.port_type
    if isinstance(e.part, Coherent):
        return e.part.standard
    if e.engine is not None:
        return e.engine.port_type
    return None


def standard(ctx: Context) -> Iterator[Violation]:
    for g, lo, up in _pairs(ctx):
        a, b = _standard(g.lower_end), _standard(g.upper_end)
        if a is not None and b is not None and a != b:
            yield _violation("ends.standard", g, lo, up,
                             f"the ends speak {port_standard(a)} and {port_standard(b)} (a port of one standard "
                             f"only talks to a port of the same standard)",
                             "pick modules of one port type at both ends (a 2xDR4 twin to two DR4 ports is fine)")


def _connector(e: LinkEnd) -> tuple[str, str] | None:
    """(connector, medium) the part at this end takes; None for a cable head."""
    if isinstance(e.part, Module):
        return e.part.connector, e.part.medium
    if e.engine is not None:
        return e.engine.connector, e.engine.medium
    return None


def connector(ctx: Context) -> Iterator[Violation]:
    for g, lo, up in _pairs(ctx):
        f = g.choice.option.fibre
        if f is None:
            continue   # an assembly brings its own heads; a coherent line its patch cords
        wrong = []
        for side, e in (("lower", g.lower_end), ("upper", g.upper_end)):
            c = _connector(e)
            if c is None:
                continue
            if c[0] != f.connector:
                wrong.append(f"the {side} module {e.label} takes {c[0]}, the fibre {f.part_number} has {f.connector}")
            if f.fibre not in FIBRES.get(c[1], (f.fibre,)):
                wrong.append(f"the {side} module {e.label} is {c[1]}, the fibre {f.part_number} is {f.fibre.upper()}")
        if wrong:
            yield _violation("ends.connector", g, lo, up, "; ".join(wrong),
                             "pick a fibre whose connector (MPO-12/16 APC, LC duplex) and grade (OM4, OS2) the "
                             "modules take")


RULES = (
    Rule("ends.protocol", ERROR, "links",
         "both ends of every link speak one protocol (InfiniBand or Ethernet; a VPI NIC speaks either)",
         closed=protocol),
    Rule("ends.rate", WARNING, "links",
         "the link's rate is the rate of its modules and a rate each end's port runs at",
         closed=rate),
    Rule("ends.lanes", ERROR, "links",
         "both modules run the same lanes, at the lane rate of each switch's SerDes",
         closed=lanes),
    Rule("ends.cage", WARNING, "links",
         "the module or cable head at each end fits the device's cage (form factor, flat or finned top, ports "
         "per cage)",
         closed=cage),
    Rule("ends.standard", ERROR, "links",
         "both ends speak the same optical standard per port (2xDR4 to two DR4, not FR4 to DR4)",
         closed=standard),
    Rule("ends.connector", ERROR, "links",
         "the fibre's connector and grade are the ones both modules take",
         closed=connector),
)
