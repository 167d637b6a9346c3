"""The standard lookup: a link's rate and length -> medium and part numbers.

Options are built once per catalog (every copper or optical assembly, every pair of
modules that share a port type with a fibre for their connector, every coherent module);
a lookup filters them on plain numbers. The default order is the ladder: passive copper,
active copper, AOC, multimode, parallel single-mode, duplex single-mode, coherent; the
catalog's reach figures, not code, decide what exists at each rate and lane rate.
"""

from __future__ import annotations

import bisect
import copy
import dataclasses
import math
import weakref
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from bom.catalog.rows import CPO, Cable, Catalog, Coherent, Dwdm, Engine, Fibre, Module, Panel, Row, Switch
from bom.errors import LimitError
from bom.inputs.validation import suggest
from bom.roles import Layer
from bom.units import magnitude

#: id(catalog) -> (the catalog, its lookup); the reference tells a reused id from the same catalog.
_MEDIA: dict[int, tuple[weakref.ref[Catalog], Media]] = {}

LADDER = ("passive-copper", "active-copper", "aoc", "multimode", "smf-parallel", "smf-duplex",
          "coherent")
_CABLE_MEDIUM = {"dac": "passive-copper", "rj45": "passive-copper", "acc": "active-copper",
                 "lacc": "active-copper", "aec": "active-copper", "aoc": "aoc"}
#: Lit fibres one connector of each type carries (an MPO-12 lights 8 of 12 for SR4/DR4).
CONNECTOR_LIT = {"mpo12": 8, "mpo12-apc": 8, "mpo16-apc": 16, "lc-duplex": 2}
#: The module's own two connections count as mated pairs too: NVIDIA's reach figures
#: assume "at most two patch panels, four ferrule-to-ferrule connections in all".
END_CONNECTIONS = 2
Preference = Literal["ladder", "cost", "power"]


#: How the coherent standards are written (OIF 400ZR, the OpenZR+ MSA, OIF 800ZR).
COHERENT_STANDARD = {"400zr": "400ZR", "openzr+": "OpenZR+", "800zr": "800ZR"}


def port_standard(port_type: str) -> str:
    """A catalog ``port_type`` as the standard is written.

    >>> port_standard("800g-2xdr4"), port_standard("400g-lr4"), port_standard("100g-cwdm4")
    ('800G 2xDR4', '400G LR4', '100G CWDM4')
    """
    rate, _, pmd = port_type.partition("-")
    pmd = pmd.upper()
    if pmd[:1].isdigit() and "X" in pmd:
        count, _, rest = pmd.partition("X")
        pmd = f"{count}x{rest}"
    return f"{rate.upper()} {pmd}".strip()


@dataclass(frozen=True)
class End:
    """One end of a link option: the part in the cage and how many ports it serves."""

    form_factor: str
    part: Row | None        # the module; None for an assembly's head or an optical engine
    ports: int              # ports served by one module (twin-port OSFP: 2) or one head
    engine: Engine | None = None   # a co-packaged-optics port: the engine on the switch package

    @property
    def kind(self) -> str:
        """What sits at this end of the link: a ``pluggable`` module bought per cage, an
        ``optical engine`` on the switch package (nothing to buy per port), or ``none`` (the
        head of a copper cable or AOC)."""
        if self.part is not None:
            return "pluggable"
        return "optical engine" if self.engine is not None else "none"

    @property
    def label(self) -> str:
        """The part at this end for people: a part number, or what stands in for one."""
        if self.part is not None:
            return self.part.part_number
        if self.engine is not None:
            return f"{port_standard(self.engine.port_type)} optical engine (co-packaged)"
        return "cable head"


@dataclass(frozen=True)
class Option:
    """A way to build a link at one rate, before its length is known."""

    medium: str
    rate_gbps: float
    lane_gbps: float
    a: End
    b: End
    reach_max_m: float
    reach_min_m: float
    assembly: Cable | None = None
    fibre: Fibre | None = None
    runs_per_link: int = 0          # connector-to-connector fibre paths per link
    runs_per_cable: int = 1         # paths one fibre cable carries (a 24-fibre LC trunk: 12)
    lit_per_link: int = 0
    loss_budget_db: float = math.inf
    attenuation_db_per_m: float = 0.0
    loss_per_pair_db: float = 0.0
    coherent: Coherent | None = None
    unamplified_m: float = math.inf
    span_m: float | None = None     # coherent: one amplified span without in-line sites
    fixed_power_w: float = 0.0      # per link, both ends
    fixed_price_usd: float = 0.0    # per link: the modules' share
    sold: tuple[tuple[float, str, float], ...] = ()  # (length m, part number, price USD)

    @property
    def name(self) -> str:
        if self.assembly is not None:
            return self.assembly.id
        if self.coherent is not None:
            return self.coherent.id
        a, b = (e.part.id if e.part is not None else f"cpo-{e.engine.port_type if e.engine else '?'}"
                for e in (self.a, self.b))
        ids = a if a == b else f"{a}+{b}"
        return f"{ids} over {self.fibre.id if self.fibre else '?'}"

    @property
    def label(self) -> str:
        """The option for people, by the part numbers the BOM and the cable plan print (``name`` is the
        catalog ids, the option's key)."""
        if self.assembly is not None:
            return self.assembly.part_number
        if self.coherent is not None:
            return self.coherent.part_number
        a, b = self.a.label, self.b.label
        ends = a if a == b else f"{a} + {b}"
        return f"{ends} over {self.fibre.part_number if self.fibre else '?'}"

    @property
    def is_copper(self) -> bool:
        return self.medium in ("passive-copper", "active-copper")

    @property
    def rows(self) -> frozenset[str]:
        """The catalog rows a link of this option buys: its modules, its cable or fibre, its coherent module."""
        parts = (self.a.part, self.b.part, self.assembly, self.fibre, self.coherent)
        return frozenset(p.id for p in parts if p is not None)

    @property
    def standard(self) -> str:
        """The interface standard engineers check a choice by, from the catalog rows: a module's
        ``port_type`` ("800g-2xdr4" -> "800G 2xDR4"), a coherent module's ``standard`` ("OpenZR+"),
        an assembly's rate and kind ("800G DAC")."""
        if self.coherent is not None:
            return COHERENT_STANDARD.get(self.coherent.standard, self.coherent.standard.upper())
        if self.assembly is not None and self.assembly.kind == "rj45":  # IEEE 802.3 twisted pair
            rate = self.rate_gbps
            return f"{rate * 1000:g}BASE-T" if rate < 10 else f"{rate:g}GBASE-T"
        if self.assembly is not None:
            return f"{self.rate_gbps:g}G {self.assembly.kind.upper()}"
        for end in (self.a, self.b):
            if isinstance(end.part, Module):
                return port_standard(end.part.port_type)
        assert self.a.engine is not None
        return port_standard(self.a.engine.port_type)


@dataclass(slots=True)  # not frozen: built in the hot loop, and never changed once returned
class Choice:
    """The parts of one link at its length: what the BOM multiplies by the link count."""

    option: Option
    required_m: float
    length_m: float                  # sold length of the cable or fibre run (or the span)
    part_number: str | None          # of the cable or fibre run at that length
    price_usd: float                 # per link: modules' share + cable or fibre
    power_w: float                   # per link
    loss_db: float
    panels: int
    amplifiers: int = 0              # in-line amplifier sites (coherent: spans - 1)
    amplified: bool = False          # past the unamplified reach: booster and pre-amp at the ends
    exact: bool = False              # depends on the exact length (cut-to-length fibre, coherent)
    #: What the lookup was asked (rate, both cages, lane rate, patch panels): the link this choice is for,
    #: so the parts that would also serve it can be asked again (:meth:`Media.alternatives`).
    asked: tuple[float, str | None, str | None, float | None, int] | None = None

    def at(self, required_m: float) -> Choice:
        """The same parts for another required length in the same interval."""
        return Choice(self.option, required_m, self.length_m, self.part_number, self.price_usd,
                      self.power_w, self.loss_db, self.panels, self.amplifiers, self.amplified,
                      self.exact, self.asked)

    @property
    def rows(self) -> frozenset[str]:
        """The catalog rows the choice buys (modules, cable, fibre, coherent module)."""
        return self.option.rows

    @property
    def medium(self) -> str:
        return self.option.medium

    @property
    def margin_m(self) -> float:
        return self.option.reach_max_m - self.required_m

    def to_json(self) -> dict[str, object]:
        o = self.option
        return {
            "medium": o.medium, "standard": o.standard, "rate_gbps": o.rate_gbps, "lane_rate_gbps": o.lane_gbps,
            "required_m": self.required_m, "length_m": self.length_m,
            "module_a": o.a.part.part_number if o.a.part else None, "ports_per_module_a": o.a.ports,
            "module_b": o.b.part.part_number if o.b.part else None, "ports_per_module_b": o.b.ports,
            "form_factor_a": o.a.form_factor, "form_factor_b": o.b.form_factor,
            "end_a": o.a.kind, "end_b": o.b.kind,
            "cable": self.part_number if o.assembly else None,
            "fibre": self.part_number if o.fibre else None,
            "connector": o.fibre.connector if o.fibre else ("lc-duplex" if o.coherent else None),
            "fibre_runs": o.runs_per_link, "lit_strands": o.lit_per_link,
            "coherent": o.coherent.part_number if o.coherent else None,
            "amplifiers": self.amplifiers, "amplified": self.amplified, "reach_max_m": o.reach_max_m,
            "margin_m": self.margin_m, "loss_db": round(self.loss_db, 3),
            "loss_budget_db": None if math.isinf(o.loss_budget_db) else o.loss_budget_db,
            "panels": self.panels, "price_usd": round(self.price_usd, 2),
            "power_w": round(self.power_w, 3),
            # Energy per bit of the link's optics (W per Gbit/s = nJ/bit; x 1000 for pJ/bit). A CPO
            # engine's share is in its switch's power and a laser module's on its own BOM line.
            "pj_per_bit": round(self.power_w / o.rate_gbps * 1000, 3),
        }


@dataclass(frozen=True)
class Patch:
    """A patch cord at one sold length: its catalog row, the length, part number and price."""

    row: Fibre
    length_m: float
    part_number: str
    price_usd: float


@dataclass(frozen=True)
class Rejected:
    option: Option
    reason: str


@dataclass(slots=True)  # not frozen, as Choice: one made for most lookups, never changed once returned
class Lookup:
    choice: Choice
    runners_up: tuple[Rejected, ...] = field(default=())


#: Custom fibre past the longest stock length is ordered in steps of this many metres.
CUT_STEP_M = 10.0


def _sold(row: Cable | Fibre) -> tuple[tuple[float, str, float], ...]:
    out = []
    for s in row.lengths:
        length = magnitude(s.length, "length")
        price = s.price_usd if s.price_usd is not None else row.price_usd + row.price_per_m_usd * length
        out.append((length, s.part_number, price))
    return tuple(sorted(out))


def _assembly_options(cables: list[Cable]) -> list[Option]:
    out = []
    for c in cables:
        a = End(c.end_a.form_factor, None, c.end_a.ports)
        b = End(c.end_b.form_factor, None, c.end_b.ports)
        heads = c.end_a.count + c.end_b.count
        out.append(Option(_CABLE_MEDIUM[c.kind], magnitude(c.port_rate, "rate"),
                          magnitude(c.lane_rate, "rate"), a, b, magnitude(c.reach_max, "length"),
                          0.0, assembly=c,
                          fixed_power_w=magnitude(c.power_per_end, "power") * heads / c.links,
                          sold=tuple((m, pn, p / c.links) for m, pn, p in _sold(c))))
    return out


def ports_per_connector(m: Module) -> int:
    """Ports of the module that share one of its connectors: 2 on an MPO-12 that a twin-port module
    at 200G splits between two 2-lane ports (4 of its 8 lit fibres each), else 1.

    A port lighting fewer fibres than its connector carries runs only over a splitter (NVIDIA's
    400G SR4/DR4 modules drop to 2 lanes, 200G, when a 1:2 splitter's end is plugged in)."""
    if m.ports == 1:
        return 1
    return max(1, min(m.ports, CONNECTOR_LIT[m.connector] // m.lit_strands))


def _fibres_for(ma: Module, mb: Module, fibres: list[Fibre]) -> list[Fibre | None]:
    """The fibre cables that join ``ma`` to ``mb`` (or [None]): straight trunks and cords for the
    module's connector and fibre type when each port has connectors of its own at both ends; a 1:2
    splitter when one end's connector carries two ports that the other end has one connector
    each for; nothing otherwise."""
    kinds = ("om3", "om4", "om5") if ma.medium == "multimode" else ("os2",)
    share_a, share_b = ports_per_connector(ma), ports_per_connector(mb)
    full = CONNECTOR_LIT[ma.connector]
    if share_a == share_b == 1 and ma.lit_strands >= full and mb.lit_strands >= full:
        wanted: tuple[tuple[str, int], ...] = (("trunk", 1), ("patch-cord", 1))
    elif min(share_a, share_b) == 1 and max(share_a, share_b) > 1:
        wanted = (("splitter", max(share_a, share_b)),)
    elif ma.lit_strands < full or mb.lit_strands < full:
        return []          # a split-mode port without a splitter to feed it: no such link
    else:
        wanted = (("trunk", 1), ("patch-cord", 1))
    fits = [f for f in fibres if f.connector == ma.connector and f.fibre in kinds
            and (f.kind, f.splits) in wanted]
    return list(fits) or [None]


def panel_medium(medium: str) -> str:
    """The patch-panel grade for a fibre medium: multimode runs on multimode panels."""
    return "multimode" if medium == "multimode" else "single-mode"


def pair_loss(connector: str, medium: str, panels: list[Panel]) -> float:
    """Loss of one mated pair of ``connector`` on ``medium``: the catalog's worst panel of that kind."""
    losses = [magnitude(p.loss_per_mated_pair, "loss") for p in panels
              if p.connector == connector and p.medium == panel_medium(medium)]
    return max(losses, default=0.75)  # TIA-568 allows 0.75 dB per mated pair


def _optical_options(modules: list[Module], fibres: list[Fibre], panels: list[Panel]) -> list[Option]:
    out = []
    for ma in modules:
        for mb in modules:
            if ma.port_type != mb.port_type or ma.port_rate != mb.port_rate:
                continue
            for fibre in _fibres_for(ma, mb, fibres):
                out.append(_optical(ma, mb, fibre, panels))
    return out


def _optical(ma: Module, mb: Module, fibre: Fibre | None, panels: list[Panel]) -> Option:
    lit = CONNECTOR_LIT[ma.connector]
    runs = math.ceil(ma.lit_strands / lit)
    # A fan-out trunk (24 fibres in LC pairs) carries several runs; an MPO-12 trunk one; a 1:2
    # splitter the runs of the two ports that share its single end's connector.
    per_cable = (fibre.splits if fibre.splits > 1 else max(1, fibre.strands // lit)) if fibre else 1
    reach = min(magnitude(ma.reach_max, "length"), magnitude(mb.reach_max, "length"))
    return Option(
        ma.medium, magnitude(ma.port_rate, "rate"), magnitude(ma.lane_rate, "rate"),
        End(ma.form_factor, ma, ma.ports), End(mb.form_factor, mb, mb.ports), reach,
        max(magnitude(ma.reach_min, "length"), magnitude(mb.reach_min, "length")),
        fibre=fibre, runs_per_link=runs, runs_per_cable=per_cable, lit_per_link=ma.lit_strands,
        loss_budget_db=min(magnitude(ma.loss_budget, "loss"), magnitude(mb.loss_budget, "loss")),
        attenuation_db_per_m=magnitude(fibre.attenuation, "attenuation") / 1000 if fibre else 0,
        loss_per_pair_db=pair_loss(ma.connector, ma.medium, panels),
        fixed_power_w=(magnitude(ma.power, "power") / ma.ports
                       + magnitude(mb.power, "power") / mb.ports),
        fixed_price_usd=ma.price_usd / ma.ports + mb.price_usd / mb.ports,
        sold=_sold(fibre) if fibre else ())


def _engine_options(switches: list[Switch], modules: list[Module], fibres: list[Fibre],
                    panels: list[Panel]) -> list[Option]:
    """Links that end on a co-packaged-optics port: a pluggable at the far end (a NIC or a
    pluggable switch) whose port type the engine speaks, or another engine. The engine's power and
    price are the switch's; the laser modules are counted per switch (bom/costing/lines.py)."""
    engines: dict[tuple[object, ...], tuple[Engine, float, float]] = {}
    for s in switches:
        if s.engine is not None:   # identical engines give identical options: one set per kind
            e = s.engine
            key = (repr(e),)   # every field, quantities included (model_dump_json cannot write pint)
            engines.setdefault(key, (e, magnitude(s.port_rate, "rate"), magnitude(s.lane_rate, "rate")))
    out: list[Option] = []
    for e, rate, lane in engines.values():
        end = End(CPO, None, e.ports_per_connector, engine=e)   # a CPO switch's "cage": its faceplate connector
        reach = magnitude(e.reach_max, "length")
        budget = magnitude(e.loss_budget, "loss")
        pluggables = [m for m in modules if m.port_type == e.port_type and magnitude(m.port_rate, "rate") == rate
                      and m.connector == e.connector]
        for m in pluggables:
            for fibre in _fibres_for(m, m, fibres):
                o = _optical(m, m, fibre, panels)
                out.append(dataclasses.replace(o, b=end, reach_max_m=min(reach, o.reach_max_m),
                                        loss_budget_db=min(budget, o.loss_budget_db),
                                        fixed_power_w=magnitude(m.power, "power") / m.ports,
                                        fixed_price_usd=m.price_usd / m.ports))
        kinds = ("os2",)
        found: list[Fibre | None] = [f for f in fibres if f.connector == e.connector and f.fibre in kinds
                                     and f.kind in ("trunk", "patch-cord")]
        for fibre in found or [None]:
            lit = CONNECTOR_LIT[e.connector]
            out.append(Option(e.medium, rate, lane, end, end, reach, 0.0, fibre=fibre,
                              runs_per_link=math.ceil(e.lit_strands / lit),
                              runs_per_cable=max(1, fibre.strands // lit) if fibre else 1,
                              lit_per_link=e.lit_strands, loss_budget_db=budget,
                              attenuation_db_per_m=magnitude(fibre.attenuation, "attenuation") / 1000 if fibre else 0,
                              loss_per_pair_db=pair_loss(e.connector, e.medium, panels),
                              sold=_sold(fibre) if fibre else ()))
    return out


def _coherent_options(rows: list[Coherent]) -> list[Option]:
    out = []
    for c in rows:
        end = End(c.form_factor, c, 1)
        out.append(Option("coherent", magnitude(c.rate, "rate"), magnitude(c.rate, "rate"), end, end,
                          magnitude(c.reach_max, "length"), 0.0, coherent=c,
                          unamplified_m=magnitude(c.reach_unamplified, "length"),
                          span_m=magnitude(c.span_max, "length") if c.span_max is not None else None,
                          fixed_power_w=2 * magnitude(c.power, "power"),
                          fixed_price_usd=2 * c.price_usd, runs_per_link=1, lit_per_link=2))
    return out


class _Intervals:
    """Lookup answers per interval between the breakpoints of a set of options."""

    def __init__(self, options: tuple[Option, ...], longest: Option | None,
                 asked: tuple[float, str | None, str | None, float | None, int]) -> None:
        self.reach = longest.reach_max_m if longest is not None else math.inf
        self.longest = _longest(longest) if longest is not None else ""   # past it: what the error names
        self.asked = asked   # what every answer of the table was asked (Choice.asked)
        self.too_far = _too_far_tail(asked[0], self.longest)   # made once: a lookup past reach is common
        points = set()
        for o in options:
            points.add(o.reach_max_m)
            if o.reach_min_m > 0:
                points.add(math.nextafter(o.reach_min_m, 0.0))
            points.update(s[0] for s in o.sold)
        self.breakpoints = sorted(points)
        self.results: list[Lookup | None] = [None] * (len(self.breakpoints) + 1)
        # Answers that depend on the exact length (fibre cut past its longest stock length, coherent
        # parts), by interval and cut step: within both, every option's fit and price are the same,
        # so the same part wins and only its exact length is made again (Media._fit).
        self.exact: dict[tuple[int, int], Option | Choice] = {}
        # Intervals only coherent parts reach (every other option's reach ends at or below the interval):
        # a coherent part's fit and price do not change inside an interval, so neither does the winner,
        # whatever the cut step (a metro run is one lookup per interval, not per 10 m).
        shortest = [o.reach_max_m for o in options if o.coherent is None]
        self.coherent_only = [i > 0 and all(r <= self.breakpoints[i - 1] for r in shortest)
                              for i in range(len(self.results))]

    def step(self, i: int, length_m: float) -> tuple[int, int]:
        """The key of :attr:`exact` for ``length_m`` in interval ``i``."""
        return (i, 0) if self.coherent_only[i] else (i, math.ceil(length_m / CUT_STEP_M))


def cage(form_factor: str, ports: int, spread: bool = False) -> str:
    """A cage requirement for the lookup: the form factor, the ports one cage serves, and
    whether those ports go to different devices (a rail leaf's twin cage serves two nodes)."""
    return f"{form_factor}:{ports}" + (":spread" if spread and ports > 1 else "")


def cage_words(want: str | None) -> str:
    """A cage requirement for a reader: ``osfp:4:spread`` -> "an osfp cage serving 4 ports to 4 devices".

    >>> cage_words("qsfp112:1"), cage_words(":2"), cage_words(None)
    ('a qsfp112 cage serving 1 port', 'any cage serving 2 ports', 'any pluggable cage')
    >>> cage_words("osfp:4:spread")
    'an osfp cage serving 4 ports to 4 devices'
    """
    if want is None:
        return "any pluggable cage"
    ff, _, rest = want.partition(":")
    ports, _, spread = rest.partition(":")
    if ff == "cpo":
        return "a co-packaged optical engine"
    what = (("an " if ff[:1] in "aeiou" else "a ") + f"{ff} cage") if ff else "any cage"
    if ports:
        what += f" serving {ports} port{'' if ports == '1' else 's'}"
        if spread:
            what += f" to {ports} devices"
    return what


def _end_words(end: End) -> str:
    """What an option has at one end, for a reader: "an osfp cage serving 2 ports", "a co-packaged optical engine"."""
    if end.engine is not None:
        return "a co-packaged optical engine"
    return cage_words(f"{end.form_factor}:{end.ports}")


def fits(end: End, want: str | None, far_heads: int = 1, assembly: bool = False) -> bool:
    if want is None:   # any cage, but an optical engine only where a CPO port is asked for
        return end.engine is None
    ff, _, rest = want.partition(":")
    ports, _, spread = rest.partition(":")
    # No form factor (":2"): any pluggable cage serving that many ports.
    if (end.form_factor != ff if ff else end.engine is not None) or (ports and end.ports != int(ports)):
        return False
    # One cable head serving several ports reaches one far device, unless the cable splits
    # into as many heads at the far end; optics have a fibre per port and always spread.
    return not (spread and assembly and end.ports > 1 and far_heads < end.ports)


def _ends_match(o: Option, ff_a: str | None, ff_b: str | None) -> bool:
    a_heads = o.assembly.end_a.count if o.assembly else 1
    b_heads = o.assembly.end_b.count if o.assembly else 1
    cable = o.assembly is not None
    return ((fits(o.a, ff_a, b_heads, cable) and fits(o.b, ff_b, a_heads, cable))
            or (fits(o.b, ff_a, a_heads, cable) and fits(o.a, ff_b, b_heads, cable)))


def media_for(catalog: Catalog) -> Media:
    """The catalog's lookup, built once per catalog object (as its ``by_kind`` rows are): a campus
    builds each site shape again for the order, and the options' unit conversions are most of a
    small build's time."""
    hit = _MEDIA.get(id(catalog))
    if hit is not None and hit[0]() is catalog:
        return hit[1]
    media = _MEDIA[id(catalog)] = (weakref.ref(catalog), Media(catalog))
    return media[1]


class Media:
    """The lookup over one catalog; build once, call :meth:`lookup` many times."""

    def __init__(self, catalog: Catalog, amplifier_span_m: float | None = None) -> None:
        modules, fibres, panels = catalog.rows_of(Module), catalog.rows_of(Fibre), catalog.rows_of(Panel)
        options = (_assembly_options(catalog.rows_of(Cable)) + _optical_options(modules, fibres, panels)
                   + _coherent_options(catalog.rows_of(Coherent))
                   + _engine_options(catalog.rows_of(Switch), modules, fibres, panels))
        options.sort(key=lambda o: (LADDER.index(o.medium), o.fixed_price_usd, o.name))
        self.by_rate: dict[float, list[Option]] = {}
        for o in options:
            self.by_rate.setdefault(o.rate_gbps, []).append(o)
        spans = [magnitude(d.span_max, "length") for d in catalog.rows_of(Dwdm)
                 if d.kind == Layer.AMPLIFIER and d.span_max is not None]
        self.span_m = amplifier_span_m or min(spans, default=80_000.0)
        self._tables: dict[tuple[object, ...], _Intervals] = {}
        self._views: dict[tuple[str, ...], Media] = {}
        self.fibres = fibres
        self._panels: dict[tuple[str, str], Panel] = {}
        self._panel_rows = panels
        for p in sorted(panels, key=lambda p: p.price_usd, reverse=True):
            self._panels[(p.connector, p.medium)] = p   # the cheapest of each kind wins
        # A build that prefers other parts for some rows (bom build --prefer-available): where a lookup
        # would choose a part of these rows, it takes the first of the named options that fits instead
        # (any other fit when none is named), the ranking otherwise as it is.
        self.substitutes: dict[str, tuple[str, ...]] = dict(catalog.substitutes)

    def restricted(self, allowed: tuple[str, ...]) -> Media:
        """The same lookup over only the media in ``allowed`` (a scenario's fabric policy)."""
        unknown = [m for m in allowed if m not in LADDER]
        if unknown:
            raise LimitError(suggest(unknown[0], LADDER, "medium"), key="media")
        if allowed not in self._views:
            view = copy.copy(self)
            view.by_rate = {r: [o for o in opts if o.medium in allowed] for r, opts in self.by_rate.items()}
            view._tables, view._views = {}, {}   # _candidates' cache is keyed by the instance too
            self._views[allowed] = view
        return self._views[allowed]

    def coherent(self, rate_gbps: float, length_m: float) -> Choice:
        """The cheapest coherent part that spans ``length_m`` (what a DWDM system can carry)."""
        options = [o for o in self.by_rate.get(rate_gbps, ()) if o.coherent is not None]
        if not options:
            raise LimitError(f"no coherent part in the catalog runs at {rate_gbps:g} Gbit/s",
                             key="sites.wavelength_rate", hint="Use 400 Gbit/s wavelengths (400ZR, ZR+).",
                             fix={("sites", "wavelength_rate"): "400 Gbit/s"})
        fits = [c for c in (self._fit(o, length_m, 0) for o in options) if isinstance(c, Choice)]
        if not fits:
            raise _too_far(rate_gbps, length_m, _longest(max(options, key=lambda o: o.reach_max_m)))
        return min(fits, key=lambda c: (c.price_usd, c.option.name))

    def patch_cord(self, fibre: str, connector: str, length_m: float) -> Patch | None:
        """The cheapest ``fibre`` patch cord with ``connector`` at each end, at its shortest sold
        length that covers ``length_m`` (None: the catalog sells none that long)."""
        fits = []
        for f in self.fibres:
            if f.kind == "patch-cord" and f.fibre == fibre and f.connector == connector:
                sold = next((s for s in _sold(f) if s[0] >= length_m - 1e-9), None)
                if sold is not None:
                    fits.append(Patch(f, *sold))
        return min(fits, key=lambda p: (p.price_usd, p.row.id), default=None)

    def pair_loss(self, connector: str, medium: str) -> float:
        """Loss of one mated pair of ``connector`` on ``medium`` [dB], as the optical options count it:
        the catalog's panel grade for them, else TIA-568's allowance."""
        return pair_loss(connector, medium, self._panel_rows)

    def panel_for(self, connector: str, medium: str) -> Panel | None:
        """The cheapest patch panel for ``connector`` graded for the run's ``medium``."""
        return self._panels.get((connector, panel_medium(medium)))

    def lookup(self, rate_gbps: float, length_m: float, form_factor: str | None = None,
               far_form_factor: str | None = None, lane_gbps: float | None = None,
               preference: Preference = "ladder", panels: int = 0, explain: bool = False) -> Lookup:
        """The link for ``rate_gbps`` over ``length_m``; raises LimitError when nothing fits.

        ``form_factor``/``far_form_factor`` are the cages at the two ends (the far end
        defaults to the near one), optionally with the ports one cage serves (``cage("osfp", 2)``),
        ``panels`` the patch panels on the route; ``explain``
        also returns every other option with why it was passed over.
        """
        if explain or rate_gbps not in self.by_rate:
            return self._lookup(rate_gbps, length_m, form_factor, far_form_factor, lane_gbps,
                                preference, panels, explain)
        far = far_form_factor or form_factor
        # Between two breakpoints (reaches and sold lengths) the answer is the same part at
        # the same sold length, so it is computed once per interval, not once per query.
        group = (rate_gbps, form_factor, far, lane_gbps, preference, panels)
        table = self._tables.get(group)
        if table is None:
            candidates, _, longest = self._candidates(rate_gbps, form_factor, far, lane_gbps)
            table = self._tables[group] = _Intervals(candidates, longest,
                                                     (rate_gbps, form_factor, far, lane_gbps, panels))
        if length_m > table.reach:
            raise _too_far(rate_gbps, length_m, table.longest, table.too_far)
        i = bisect.bisect_left(table.breakpoints, length_m)
        hit: Lookup | LimitError | None = table.results[i]
        if hit is None:
            step = table.step(i, length_m)
            won = table.exact.get(step)
            if won is not None:
                if isinstance(won, Choice):   # a fibre cut: the step's sold length, price and loss
                    return Lookup(won.at(length_m))
                exact = self._fit(won, length_m, panels)
                assert isinstance(exact, Choice)   # it fit at another length of the same interval and step
                exact.asked = table.asked
                return Lookup(exact)
            try:
                hit = self._lookup(rate_gbps, length_m, form_factor, far, lane_gbps, preference, panels,
                                   False)
            except LimitError as exc:
                hit = exc
            if not isinstance(hit, LimitError):
                if hit.choice.exact:
                    if not self.substitutes:   # a substitute is chosen from the rows the winner buys
                        won_at = hit.choice
                        # A coherent part's span and amplifiers follow the exact length; a fibre cut's
                        # parts are the same over its whole cut step, so the step keeps the choice.
                        table.exact[step] = won_at.option if won_at.option.coherent is not None else won_at
                else:
                    table.results[i] = hit
        if isinstance(hit, LimitError):
            raise LimitError(hit.message, where=hit.where, key=hit.key, hint=hit.hint)
        choice = hit.choice
        choice.asked = table.asked
        return hit if choice.required_m == length_m else Lookup(choice.at(length_m))

    def alternatives(self, choice: Choice) -> list[Choice]:
        """Every other part that serves the link ``choice`` was looked up for (the same rate, cages, lane rate,
        patch panels and length), the ladder's order then price: the runners-up the lookup passed over,
        another module standard, copper or an AOC for an optic, another maker's part. Empty when the
        choice does not say what it was asked (it was not looked up)."""
        if choice.asked is None:
            return []
        rate, ff, far, lane, panels = choice.asked
        candidates, _, _ = self._candidates(rate, ff, far, lane)
        fits = [c for c in (self._fit(o, choice.required_m, panels) for o in candidates if o is not choice.option)
                if isinstance(c, Choice)]
        for c in fits:
            c.asked = choice.asked
        return sorted(fits, key=lambda c: (LADDER.index(c.medium), c.price_usd, c.option.name))

    def _substitute(self, chosen: Choice, rate: float, length: float, ff: str | None, far: str | None,
                    lane: float | None, panels: int) -> Choice:
        """The fit the build's substitutes name for a choice that buys one of their rows (else ``chosen``)."""
        avoided = [r for r in chosen.rows if r in self.substitutes]
        if not avoided:
            return chosen
        chosen.asked = (rate, ff, far, lane, panels)
        others = [c for c in self.alternatives(chosen) if not c.rows & set(avoided)]
        for r in avoided:
            for name in self.substitutes[r]:
                hit = next((c for c in others if c.option.name == name), None)
                if hit is not None:
                    return hit
        named = any(self.substitutes[r] for r in avoided)
        return others[0] if others and not named else chosen

    def joins(self, rate_gbps: float, form_factor: str | None, far_form_factor: str | None,
              lane_gbps: float | None = None) -> bool:
        """Whether any part at ``rate_gbps`` fits these two cages, at any length."""
        return bool(self._candidates(rate_gbps, form_factor, far_form_factor or form_factor, lane_gbps)[0])

    def twin_port_rate(self, rate_gbps: float) -> float | None:
        """The port rate of twin-port parts that carry ``rate_gbps`` in one cage (1.6T: two 800G
        ports on a twin-port OSFP), when the catalog has no part at ``rate_gbps`` itself."""
        if rate_gbps in self.by_rate:
            return None
        half = rate_gbps / 2
        twin = any(o.a.ports == 2 and o.b.ports == 2 for o in self.by_rate.get(half, ()))
        return half if twin else None

    @lru_cache(maxsize=4096)  # noqa: B019 - one Media per catalog, kept for the program's life
    def _candidates(self, rate_gbps: float, ff: str | None, far: str | None,
                    lane: float | None) -> tuple[tuple[Option, ...], tuple[Rejected, ...], Option | None]:
        """Options at this rate whose ends and lane rate fit, and the others with why not."""
        keep: list[Option] = []
        out: list[Rejected] = []
        for o in self.by_rate.get(rate_gbps, ()):
            if lane is not None and o.lane_gbps != lane:
                out.append(Rejected(o, f"lane rate {o.lane_gbps:g}G, not {lane:g}G"))
            elif not _ends_match(o, ff, far):
                has = _end_words(o.a) if o.a == o.b else f"{_end_words(o.a)} and {_end_words(o.b)}"
                wants = cage_words(ff) if ff == far else f"{cage_words(ff)} and {cage_words(far)}"
                out.append(Rejected(o, f"it has {has} at its ends, the link needs {wants}"))
            else:
                keep.append(o)
        return tuple(keep), tuple(out), max(keep, key=lambda o: o.reach_max_m, default=None)

    def _fit(self, o: Option, required: float, panels: int) -> Choice | str:
        """The choice for ``o`` at ``required`` metres, or why it does not fit."""
        if required > o.reach_max_m:
            return f"reach {metres(o.reach_max_m)} < {metres(required)}"
        if required < o.reach_min_m:
            return f"needs at least {metres(o.reach_min_m)}"
        if o.coherent is not None:
            amplified = required > o.unamplified_m
            amps = inline_sites(required, o.span_m or self.span_m) if amplified else 0
            return Choice(o, required, required, None, o.fixed_price_usd, o.fixed_power_w, 0.0, 0, amps,
                          amplified, True)
        if o.assembly is not None and panels:
            return "an assembly cannot pass through patch panels"
        if o.fibre is None and o.assembly is None:
            return "no fibre in the catalog for its connector"
        i = bisect.bisect_left(o.sold, (required,))
        sold = o.sold[i] if i < len(o.sold) else None
        exact = sold is None
        if sold is None:
            if o.assembly is not None:
                return f"longest sold length {metres(o.sold[-1][0])} < {metres(required)}"
            fibre = o.fibre
            assert fibre is not None
            # Cut to length past the longest stock length, ordered in CUT_STEP_M steps (one order
            # line per step, not one per metre of every route).
            length = float(math.ceil(required / CUT_STEP_M) * CUT_STEP_M)
            sold = (length, f"{fibre.part_number} cut to {length:g} m",
                    fibre.price_usd + fibre.price_per_m_usd * length)
        length, part, price = sold
        loss = 0.0
        if o.fibre is not None:
            loss = o.attenuation_db_per_m * length + (END_CONNECTIONS + panels) * o.loss_per_pair_db
            if loss > o.loss_budget_db + 1e-9:
                return (f"loss {loss:.2f} dB ({panels} patch panels) > budget "
                        f"{o.loss_budget_db:.2f} dB")
        cables = o.runs_per_link / o.runs_per_cable if o.fibre is not None else 1
        return Choice(o, required, length, part, o.fixed_price_usd + price * cables, o.fixed_power_w,
                      loss, panels, exact=exact)

    def _lookup(self, rate_gbps: float, length_m: float, form_factor: str | None,
                far_form_factor: str | None, lane_gbps: float | None,
                preference: Preference, panels: int, explain: bool) -> Lookup:
        if rate_gbps not in self.by_rate:
            rates = ", ".join(f"{r:g}" for r in sorted(self.by_rate))
            raise LimitError(f"no part in the catalog runs at {rate_gbps:g} Gbit/s",
                             hint=f"Rates the catalog has: {rates} Gbit/s.")
        far = far_form_factor or form_factor
        candidates, passed, longest = self._candidates(rate_gbps, form_factor, far, lane_gbps)
        if longest is not None and length_m > longest.reach_max_m:
            raise _too_far(rate_gbps, length_m, _longest(longest))
        fits: list[Choice] = []
        rejected: list[Rejected] = list(passed) if explain else []
        for o in candidates:
            if length_m > o.reach_max_m and not explain:
                continue  # the common rejection, without building its reason
            reason = self._fit(o, length_m, panels)
            if isinstance(reason, Choice):
                if preference == "ladder" and not explain and fits and fits[0].medium != o.medium:
                    break  # the ladder stops at the first medium that reaches
                fits.append(reason)
            elif explain:
                rejected.append(Rejected(o, reason))
        if not fits:
            if not explain:  # build the reasons only for the error message
                return self._lookup(rate_gbps, length_m, form_factor, far_form_factor, lane_gbps,
                                    preference, panels, True)
            raise self._nothing_fits(rate_gbps, length_m, form_factor, far, lane_gbps, panels,
                                     rejected + list(passed))
        key = {"ladder": lambda c: (LADDER.index(c.medium), c.price_usd),
               "cost": lambda c: (c.price_usd, LADDER.index(c.medium)),
               "power": lambda c: (c.power_w, c.price_usd)}[preference]
        fits.sort(key=key)
        if not explain:
            if self.substitutes:
                return Lookup(self._substitute(fits[0], rate_gbps, length_m, form_factor, far, lane_gbps, panels))
            return Lookup(fits[0])
        runners = [Rejected(c.option, f"fits, but {_why_not(c, fits[0], preference)}") for c in fits[1:]]
        return Lookup(fits[0], tuple(runners + rejected))

    def _nothing_fits(self, rate: float, length: float, ff: str | None, far: str | None,
                      lane: float | None, panels: int, rejected: list[Rejected]) -> LimitError:
        usable = [r.option for r in rejected if (lane is None or r.option.lane_gbps == lane)
                  and _ends_match(r.option, ff, far)]
        if not usable:
            ends = cage_words(ff) if ff == far else f"{cage_words(ff)} and {cage_words(far)}"
            return LimitError(f"no {rate:g} Gbit/s part in the catalog fits {ends} at its ends"
                              + (f" at {lane:g}G per lane" if lane else ""),
                              hint=NO_PART_HINT)
        reasons = "; ".join(f"{r.option.label}: {r.reason}" for r in rejected[:4])
        return LimitError(f"no {rate:g} Gbit/s part fits {metres(length)} with {panels} patch panels "
                          f"({reasons})", hint="Use fewer patch panels or a shorter route.")


#: What to do when no part joins two cages (the build's wording; `bom lookup` adds its own option).
NO_PART_HINT = "Add the part to a catalog overlay (catalogs/SCHEMA.md), or use switches a catalog part joins."


def inline_sites(route_m: float, span_m: float) -> int:
    """In-line amplifier sites (huts) along one route of ``route_m`` in spans of ``span_m``.

    >>> inline_sites(120_000, 120_000), inline_sites(600_000, 80_000), inline_sites(121_000, 80_000)
    (0, 7, 1)
    """
    return max(0, math.ceil(round(route_m / span_m, 9)) - 1)


def _too_far(rate: float, length: float, longest: str, tail: str | None = None) -> LimitError:
    """``longest``: :func:`_longest` of the longest-reaching option (made once per lookup table); ``tail``:
    :func:`_too_far_tail` of the two, where the lookup table made it once."""
    return LimitError(f"no single-span part reaches {metres(length)}{tail or _too_far_tail(rate, longest)}",
                      hint="Split the route with a regeneration site or shorten it.")


def _too_far_tail(rate: float, longest: str) -> str:
    """What :func:`_too_far` says after the length."""
    return f" at {rate:g} Gbit/s; {longest}"


def _longest(o: Option) -> str:
    return f"the longest reach available is {metres(o.reach_max_m)} ({o.name}, {o.medium})"


def _why_not(c: Choice, best: Choice, preference: Preference) -> str:
    if preference == "ladder" and c.medium != best.medium:
        return f"the ladder tries {best.medium} before {c.medium}"
    if preference == "power":
        return f"{c.power_w:.1f} W per link vs {best.power_w:.1f} W"
    return f"{c.price_usd:,.0f} USD per link vs {best.price_usd:,.0f} USD"


def metres(length_m: float) -> str:
    """A length for people: 30 m, 1.5 km."""
    if length_m >= 1000:
        return f"{length_m / 1000:,.4g} km"
    return f"{length_m:.4g} m"
