"""Catalog rows as pydantic models, and the loader that merges catalogs and overlays.

Every row has an ``id``, where its facts come from (``source``, ``as_of``) and a price
with its own source (estimate, list, quote). A catalog directory holds YAML files whose
single top-level key names the kind of row (``platforms:``, ``switches:``, ...). A user's
overlay directory adds rows and replaces rows by id; a price CSV replaces prices (bom/catalog/prices.py).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Annotated, Any, Literal, TypeVar

from pydantic import Field, model_validator

from bom.errors import CatalogError
from bom.inputs.validation import (
    Attenuation,
    Compute,
    Current,
    Duration,
    Frequency,
    Length,
    Length0,
    Loss,
    Memory,
    Model,
    Power,
    Rate,
    Voltage,
    suggest,
)
from bom.inputs.yamlio import Located
from bom.roles import Layer
from bom.units import magnitude, parse_quantity

#: The dearest part we price [USD]: past it a price is a typo (and a sum of them could overflow).
MAX_PRICE_USD = 1e12
PriceSource = Literal["estimate", "list", "quote"]
Status = Literal["active", "end-of-sale", "end-of-life"]
FormFactor = Literal["osfp", "osfp-flat", "qsfp112", "qsfp-dd", "qsfp56", "qsfp28", "sfp28", "rj45", "cpo"]
#: Cages whose modules gearbox the host's lanes into optical lanes of another rate (a 400G QSFP-DD
#: DR4 or FR4 module takes 8 x 50G host lanes and sends 4 x 100G optical ones), so the switch's
#: SerDes rate does not fix the lane rate of the module in the cage.
GEARBOX_CAGES = frozenset({"qsfp-dd"})
#: A co-packaged-optics port: an optical engine on the switch package behind a faceplate fibre connector.
CPO = "cpo"
#: Fields that are bookkeeping, not facts to confirm (prices are estimates by design: price_source).
#: A lead time is a fact to confirm (an estimate by part class is marked ``unconfirmed: [lead_time]``);
#: its range and its source are how it is stated, as a price's range is.
UNCONFIRMABLE = frozenset({"id", "source", "as_of", "notes", "price_usd", "price_source", "confirmed",
                           "unconfirmed", "price_per_m_usd", "price_low_usd", "price_high_usd",
                           "price_range_source", "lead_time_low", "lead_time_high", "lead_time_source"})
#: The facts whose basis their own ``*_source`` text states: an unconfirmed row marking only these
#: needs no ``notes`` to say what they rest on.
SELF_SOURCED = frozenset({"lead_time"})
#: A lead time no source gives and no class estimate covers (Google sells no TPU pods): said, never 0.
UNKNOWN = "unknown"
#: The longest lead time a row may state [days]: past it a figure is a typo.
MAX_LEAD_DAYS = 3650.0
Connector = Literal["mpo12", "mpo12-apc", "mpo16-apc", "lc-duplex", "rj45"]


class Row(Model):
    """What every catalog row carries."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9.+-]*$")
    vendor: str
    part_number: str
    description: str
    source: str
    as_of: dt.date
    price_usd: float = Field(ge=0, le=MAX_PRICE_USD)
    price_source: PriceSource
    # The range public prices span (the budget's low and high), with where each end is published;
    # an estimate without one is a placeholder (the workbook's Inputs sheet lists them).
    price_low_usd: float | None = Field(default=None, ge=0, le=MAX_PRICE_USD)
    price_high_usd: float | None = Field(default=None, ge=0, le=MAX_PRICE_USD)
    price_range_source: str | None = None
    notes: str | None = None
    # Buying: whether the part is still sold, and whether part_number is an orderable SKU or a
    # generic or marketing name that a buyer must turn into one with the vendor.
    status: Status = "active"
    status_date: dt.date | None = None
    status_source: str | None = None
    orderable: bool = True
    avl: list[Annotated[str, Field(min_length=1, max_length=200)]] = []
    """The approved vendor list: who the buyer may order this part from (resellers, distributors);
    empty = not stated. A buyer's overlay fills it; the Order sheet and the cart show it."""
    lead_time: Duration | Literal["unknown"] | None = None
    """Order to delivery, the planning figure ("12 weeks", "90 d"), or ``unknown``; with
    ``lead_time_source`` (the document and its date, or "estimate: ..." saying what it rests on, the
    row then marking ``lead_time`` unconfirmed). Like a price, a quote replaces it (bom/catalog/prices.py).
    ``bom catalog validate --strict`` refuses a built-in row without one."""
    lead_time_low: Duration | None = None
    """The shortest lead time the sources give for the part or its class (with ``lead_time_high``):
    the schedule's Monte Carlo draws each line's lead time between the two, the planning figure the mode."""
    lead_time_high: Duration | None = None
    """The longest lead time the sources give for the part or its class."""
    lead_time_source: str | None = None
    confirmed: bool = True
    """Whether every fact of the row was read at its source; ``false`` names them in ``unconfirmed``."""
    unconfirmed: list[str] = []
    """The facts (field names, dotted into blocks: ``scale_up.copper_cables_per_domain``) that no
    primary source read so far confirms; ``notes`` says what each one rests on instead."""

    @model_validator(mode="after")
    def _status_has_source(self) -> Row:
        if self.status != "active" and (self.status_date is None or not self.status_source):
            raise ValueError(f"status {self.status} needs status_date (the last order or support date) "
                             f"and status_source (where it is announced)")
        return self

    @model_validator(mode="after")
    def _price_range(self) -> Row:
        ends = (self.price_low_usd, self.price_high_usd)
        if (None in ends) != (ends == (None, None)) or (ends != (None, None)) != bool(self.price_range_source):
            raise ValueError("price_low_usd, price_high_usd and price_range_source go together (the range public "
                             "prices span and where each end is published)")
        low, high = ends
        if low is not None and high is not None and not low <= self.price_usd <= high:
            raise ValueError(f"price_usd ({self.price_usd:,.0f}) is outside its range "
                             f"{low:,.0f}-{high:,.0f} (price_low_usd-price_high_usd)")
        return self

    @property
    def placeholder_price(self) -> bool:
        """An estimated price with no published range around it: a round figure to replace with a quote."""
        return self.price_source == "estimate" and self.price_low_usd is None

    @model_validator(mode="after")
    def _lead_time_has_source(self) -> Row:
        if (self.lead_time is None) != (self.lead_time_source is None):
            raise ValueError("lead_time goes with lead_time_source (a document, or \"estimate: ...\" saying what "
                             "it rests on), and lead_time_source with a lead_time")
        ends = (self.lead_time_low, self.lead_time_high)
        if (ends[0] is None) != (ends[1] is None):
            raise ValueError("lead_time_low and lead_time_high go together (the shortest and longest lead time "
                             "the sources give)")
        if self.lead_time == UNKNOWN:
            if ends != (None, None):
                raise ValueError("an unknown lead_time has no lead_time_low / lead_time_high")
            return self
        for key, q in (("lead_time", self.lead_time), ("lead_time_low", ends[0]), ("lead_time_high", ends[1])):
            if q is not None and not isinstance(q, str) and not 0 <= magnitude(q, "time") <= MAX_LEAD_DAYS:
                raise ValueError(f"{key} is between 0 and 10 years (\"12 weeks\", \"90 d\")")
        mid = self.lead_time_days
        if ends[0] is not None and ends[1] is not None and mid is not None:
            low, high = magnitude(ends[0], "time"), magnitude(ends[1], "time")
            if not low <= mid <= high:
                raise ValueError(f"lead_time ({self.lead_time}) is outside its range {ends[0]} to {ends[1]} "
                                 f"(lead_time_low to lead_time_high)")
        return self

    @property
    def lead_time_days(self) -> float | None:
        """Days from order to delivery (None: not stated, or unknown)."""
        return None if self.lead_time is None or isinstance(self.lead_time, str) else magnitude(self.lead_time, "time")

    @property
    def lead_time_range_days(self) -> tuple[float, float] | None:
        """(shortest, longest) lead time in days the sources give, None without a range."""
        if self.lead_time_low is None or self.lead_time_high is None:
            return None
        return magnitude(self.lead_time_low, "time"), magnitude(self.lead_time_high, "time")

    @property
    def lead_time_label(self) -> str:
        """The lead time for people: "84 d", "364 d est." (an estimate by part class) or "unknown" (never
        blank, never 0: an unknown lead time is not "arrives at once")."""
        days = self.lead_time_days
        if days is None:
            return "unknown"
        return f"{days:,.0f} d" + (" est." if self.lead_time_estimate else "")

    @property
    def lead_time_estimate(self) -> bool:
        """Whether the lead time is an estimate (by part class) rather than read at a source."""
        return "lead_time" in self.unconfirmed

    @model_validator(mode="after")
    def _unconfirmed_named(self) -> Row:
        # A row marked unconfirmed names the facts, and names only fields it has (a typo would
        # otherwise mark nothing).
        if self.confirmed == bool(self.unconfirmed):
            raise ValueError("confirmed: false goes with unconfirmed: [the facts no source confirms] "
                             "(and confirmed: true with none)")
        for fact in self.unconfirmed:
            head = fact.split(".", 1)[0]
            if head not in type(self).model_fields or head in UNCONFIRMABLE:
                raise ValueError(f"unconfirmed names {fact!r}, which is not a fact of this row "
                                 f"(facts: {', '.join(f for f in type(self).model_fields if f not in UNCONFIRMABLE)})")
        # A lead time's basis is its lead_time_source; any other unconfirmed fact needs notes.
        if not self.confirmed and not self.notes and set(self.unconfirmed) - SELF_SOURCED:
            raise ValueError("an unconfirmed row says in notes what its unconfirmed facts rest on")
        return self


# --- platforms -----------------------------------------------------------------------

#: How a platform's scale-up domain is wired (bom/topology/scaleup.py counts each):
#: ``electrical``: copper or board traces inside the domain, nothing bought per link (NVLink on a
#: baseboard or an NVL72 spine, Infinity Fabric, Gaudi's on-board RoCE mesh);
#: ``switched``: Ethernet / UALink scale-up switches inside the rack, counted in the tier (Helios);
#: ``torus-ocs``: cubes of chips on copper, a torus across cubes through optical circuit switches,
#: so the tier itself has optics, fibre and switches to buy (TPU v4 and successors).
ScaleUpKind = Literal["electrical", "switched", "torus-ocs"]


#: How a device takes its power: an IEC 60320 inlet for a cord from a rack PDU's outlet (C14 takes a
#: C13 outlet's cord, C20 a C19's), a DC busbar behind a rack-scale system's trays (no cord: the rack's
#: power shelves feed it), or a three-phase whip from the rack's feed (a rack-scale system's power
#: shelf, as an Open Rack shelf is "fed with a single AC cord whip").
Inlet = Literal["c14", "c20", "busbar", "whip"]
#: The PDU outlet each cord inlet takes (the whip lands on the feed itself, the busbar on no outlet).
OUTLET_FOR: dict[str, str] = {"c14": "c13", "c20": "c19"}


class Supplies(Model):
    """A device's power supplies as its maker publishes them: how many, each one's rating, the inlet
    each takes its cord on, and how many of them carry the device (``redundancy`` "N+M": N carry it,
    M are spare; N+N when N equals M, the scheme that survives losing one of two feeds)."""

    count: int = Field(ge=1, le=64)
    """How many supplies the device has (one cord each)."""
    rating: Power
    """One supply's rated output."""
    inlet: Inlet
    """Where its cord lands: ``c14`` (a C13 outlet's cord), ``c20`` (a C19's), ``busbar`` (no cord), ``whip``."""
    redundancy: str = Field(pattern=r"^\d+\+\d+$", examples=["1+1", "4+2"])
    """N+M: N supplies carry the device, M are spare (N + M = count)."""
    source: str
    """Where the facts are published (or what a class estimate rests on)."""

    @model_validator(mode="after")
    def _adds_up(self) -> Supplies:
        if self.needed + self.spare != self.count:
            raise ValueError(f"redundancy {self.redundancy!r} is {self.needed + self.spare} supplies; count is "
                             f"{self.count} (N+M must add up to count)")
        if self.needed < 1:
            raise ValueError(f"redundancy {self.redundancy!r}: at least one supply carries the device")
        return self

    @property
    def needed(self) -> int:
        """N: the supplies that carry the device."""
        return int(self.redundancy.split("+")[0])

    @property
    def spare(self) -> int:
        """M: the supplies past N."""
        return int(self.redundancy.split("+")[1])

    @property
    def n_plus_n(self) -> bool:
        """Whether half the supplies carry the device (two feeds, each able to carry it alone)."""
        return self.needed == self.spare

    @property
    def rating_w(self) -> float:
        return magnitude(self.rating, "power")


class PduOutlets(Model):
    """A rack PDU's electrical build: its input, its outlets by type, its banks (each a branch breaker
    on one phase) and the share of a rating a continuous load may take."""

    phases: Literal[1, 3]
    """Input phases."""
    voltage: Voltage
    """The input's line-to-line voltage ("415 V")."""
    current: Current
    """The input's rating per phase ("60 A")."""
    outlet_voltage: Voltage
    """What one outlet gives (line to neutral on a wye PDU: "240 V")."""
    outlets: dict[Literal["c13", "c19"], int]
    """Outlets by type over the whole PDU."""
    banks: int = Field(ge=1, le=24)
    """Breaker banks, spread evenly over the phases (bank b on phase b mod phases)."""
    bank_breaker: Current
    """Each bank's branch breaker ("20 A")."""
    continuous: float = Field(gt=0, le=1)
    """The share of a rating a continuous load may take (0.8: NEC 210.20(A))."""
    continuous_source: str
    """Where that share is published."""
    source: str
    """Where the PDU's build is published (or what a class estimate rests on)."""

    @model_validator(mode="after")
    def _banks_on_phases(self) -> PduOutlets:
        if self.banks % self.phases:
            raise ValueError(f"{self.banks} banks do not spread evenly over {self.phases} phases")
        for kind, n in self.outlets.items():
            if n % self.banks:
                raise ValueError(f"{n} {kind} outlets do not spread evenly over {self.banks} banks")
        return self

    def amps(self, key: str) -> float:
        """A current field in A."""
        return magnitude(getattr(self, key), "current")

    def volts(self, key: str) -> float:
        """A voltage field in V."""
        return magnitude(getattr(self, key), "voltage")


class ScaleUpPart(Model):
    """A part only the scale-up tier buys and no other catalog kind describes (an optical circuit
    switch, a torus link's optic, its fibre), with its own source and price."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9.+-]*$")
    vendor: str
    part_number: str
    description: str
    power: Power
    ports: int | None = Field(default=None, ge=1)      # an OCS's ports
    strands: int = Field(default=1, ge=1)               # a fibre run's strands
    price_usd: float = Field(ge=0, le=MAX_PRICE_USD)
    price_source: PriceSource
    source: str
    notes: str | None = None


class Torus(Model):
    """Cubes of chips wired on copper inside a rack, and the torus wraparound between cube faces
    through optical circuit switches: one OCS group per dimension and position on a face."""

    cube: list[int] = Field(min_length=1, max_length=3)   # chips along each edge of a cube: [4, 4, 4]
    ocs: ScaleUpPart
    optic: ScaleUpPart            # at the cube end of each optical link (the OCS is passive)
    fibre: ScaleUpPart            # one run from a cube port to an OCS port
    # The published slices smaller than a cube ([2, 2, 1]: 4 chips), smallest first: part of one
    # cube's copper mesh, with no wraparound and so no optics (Google: only 4x4x4 and larger
    # slices have the full 3D torus).
    slices: list[list[int]] = []

    @model_validator(mode="after")
    def _edges(self) -> Torus:
        if any(n < 2 for n in self.cube):
            raise ValueError(f"every cube edge holds two chips or more, not {self.cube}")
        if self.ocs.ports is None:
            raise ValueError("torus.ocs needs ports (the optical circuit switch's port count)")
        for shape in self.slices:
            if (len(shape) != len(self.cube) or min(shape) < 1 or math.prod(shape) >= self.chips
                    or any(a > b for a, b in zip(sorted(shape), sorted(self.cube), strict=True))):
                raise ValueError(f"slice {shape} is not a part of the {self.cube} cube smaller than it")
        if [math.prod(s) for s in self.slices] != sorted({math.prod(s) for s in self.slices}):
            raise ValueError("slices go smallest first, one shape per chip count")
        return self

    def slice_for(self, chips: int) -> list[int] | None:
        """The smallest published slice smaller than a cube that holds ``chips`` (None: a whole cube or more)."""
        return next((s for s in self.slices if math.prod(s) >= chips), None)

    @property
    def chips(self) -> int:
        return math.prod(self.cube)

    def face(self, d: int) -> int:
        """Chips on one face across dimension ``d`` (the links leaving that face)."""
        return self.chips // self.cube[d]


class InterRack(Model):
    """A scale-up domain over two racks (GB200 NVL36x2): each rack's switch chips take its own GPUs'
    links on the rack's cable cartridges and carry as many links to the same-numbered chip of the other
    rack, over cables between the two racks' switch trays, ``links_per_cable`` NVLink links a cable."""

    cable: ScaleUpPart
    links_per_cable: int = Field(ge=1)


class ScaleUp(Model):
    generation: str
    bandwidth_per_gpu: Rate
    links_per_gpu: int = Field(ge=0)
    switch_chips_per_domain: int = Field(ge=0)
    switch_trays_per_domain: int = Field(ge=0)
    copper_cables_per_domain: int = Field(ge=0)
    kind: ScaleUpKind = "electrical"
    switch: str | None = None              # switched: the scale-up switch chip, as published
    torus: Torus | None = None             # torus-ocs: the cube and the parts between cubes
    inter_rack: InterRack | None = None    # a domain over two racks: the switch-to-switch cables between them

    @model_validator(mode="after")
    def _kind_has_parts(self) -> ScaleUp:
        if self.kind == "torus-ocs" and self.torus is None:
            raise ValueError("kind torus-ocs needs torus (cube, ocs, optic, fibre)")
        if self.kind != "torus-ocs" and self.torus is not None:
            raise ValueError(f"torus is for kind torus-ocs, not {self.kind}")
        if self.kind == "switched" and not (self.switch_chips_per_domain and self.switch):
            raise ValueError("kind switched needs switch (the switch chip) and switch_chips_per_domain > 0")
        if self.inter_rack is not None and (self.kind != "electrical" or not self.switch_chips_per_domain):
            raise ValueError("inter_rack joins the switch chips of an electrical domain's two racks: kind "
                             "electrical with switch_chips_per_domain > 0")
        return self


class NicPorts(Model):
    """Network ports of one kind on one node."""

    nic: str | None = None
    ports: int = Field(ge=1)
    rate: Rate
    form_factor: FormFactor
    ports_per_cage: int = Field(ge=1, le=2)


#: The devices of a rack-scale system a published front view stacks.
FRONT_ROLES = (Layer.NODE, Layer.NVLINK_SWITCH, Layer.POWER_SHELF)


class FrontBlock(Model):
    """A run of one kind of tray in a rack-scale system's published front view."""

    role: str        # a layer of FRONT_ROLES: node (compute trays), nvlink-switch or power-shelf
    count: int = Field(ge=1)

    @model_validator(mode="after")
    def _a_tray(self) -> FrontBlock:
        if self.role not in FRONT_ROLES:
            raise ValueError(f"front_view: role {self.role!r} is not one of {', '.join(FRONT_ROLES)}")
        return self


class Support(Model):
    """The platform's reference-architecture defaults for everything around the nodes."""

    rack: str                              # racks row of the compute racks
    network_rack: str                      # racks row of network, management and storage racks
    rack_power_budget: Power               # per compute rack, as the RA powers it
    pdu: str                               # endpoints row of the rack PDUs
    ufm: str | None = None                 # fabric manager appliance (InfiniBand compute fabrics)
    ufm_count: int = Field(default=0, ge=0)
    mgmt: str | None = None                # management / head node
    mgmt_count: int = Field(default=0, ge=0)
    storage: str | None = None             # storage appliance a scenario's storage block defaults to
    oob_switches_per_rack: int = Field(default=0, ge=0)   # in-rack management switches (NVL72: 2)
    rack_managed_devices: int = Field(default=0, ge=0)    # extra BMCs per system (NVLink switch trays)
    rack_device_units: int = Field(default=0, ge=0)       # U of a system's non-node trays (switch trays, shelves)
    # The RA's switch for each non-compute fabric (storage, inband, oob) when the scenario names none.
    switches: dict[Literal["storage", "inband", "oob"], str] = Field(default_factory=dict)
    # The RA's leaf down:up ratio ("4:3") for storage and in-band when the scenario gives none.
    oversubscription: dict[Literal["storage", "inband"], str] = Field(default_factory=dict)
    oversubscription_source: str | None = None
    #: A rack-scale system's trays as its maker publishes the rack's front view, bottom up (NVL72:
    #: power shelves, 8 compute trays, the 9 NVLink switch trays, 10 compute trays, power shelves);
    #: empty: the compute trays from U1, then the switch trays and shelves above them.
    front_view: list[FrontBlock] = Field(default_factory=list)
    front_view_source: str | None = None   # where the front view is published (with front_view)
    source: str

    @model_validator(mode="after")
    def _front_has_source(self) -> Support:
        if bool(self.front_view) != bool(self.front_view_source):
            raise ValueError("front_view and front_view_source go together (the rack's published front view and "
                             "where it is)")
        return self

    @model_validator(mode="after")
    def _ratios(self) -> Support:
        for name, text in self.oversubscription.items():
            down, sep, up = text.partition(":")
            if not (sep and down.strip().isdigit() and up.strip().isdigit() and int(up) > 0
                    and int(down) >= int(up)):
                raise ValueError(f"oversubscription.{name} {text!r} is not down:up with down >= up, e.g. \"4:3\"")
        if self.oversubscription and not self.oversubscription_source:
            raise ValueError("oversubscription needs oversubscription_source (where the ratio is published)")
        return self


#: The platform a starter takes, and a hint names, when none is given: the built-in default scenario's.
DEFAULT_PLATFORM = "gb300-nvl72"


class Platform(Row):
    generation: str
    year: int
    gpu: str
    system: Literal["node", "rack"]
    gpus_per_node: int = Field(ge=1)
    nodes_per_system: int = Field(ge=1)
    gpus_per_domain: int = Field(ge=1)
    nodes_per_rack: int = Field(ge=1)
    #: Racks one system stands in: 1, or 2 for a system over two racks (GB200 NVL36x2: half its nodes,
    #: switch trays and shelves in each, its scale-up domain joined by ``scale_up.inter_rack``).
    racks_per_system: int = Field(default=1, ge=1, le=2)
    node_rack_units: int = Field(ge=1)
    su_nodes: int = Field(ge=1)
    memory_per_gpu: Memory
    bf16_dense: Compute
    fp8_dense: Compute | None = None     # None: the chip has no FP8 (TPU v4)
    fp4_dense: Compute | None = None
    power_per_system: Power              # the maximum (PSU rating, published max): facility sizing
    # The typical draw under load, where a source publishes one (the notes say which): the energy
    # cost takes it; None = only the maximum is published, and the energy cost takes that.
    power_typical: Power | None = None
    #: The GPU's memory (HBM) bandwidth, per GPU (per package for Rubin), "3.35 TB/s": what a serving
    #: replica's decode step reads its weights and KV cache at (bom/topology/serving.py). None: no
    #: figure recorded, and the decode step is not worked out.
    memory_bandwidth: Rate | None = None
    memory_bandwidth_source: str | None = None   # where the figure is published (with memory_bandwidth)
    scale_up: ScaleUp
    scale_out: NicPorts
    storage: NicPorts | None = None
    oob: NicPorts | None = None
    inband: NicPorts | None = None       # in-band management ports (their own rate and cage)
    default_switch: str
    support: Support | None = None       # what the platform's RA puts around the nodes
    #: One node's (a rack-scale system's compute tray's) power supplies; a tray on the rack's DC
    #: busbar says ``inlet: busbar`` (no cord: the power shelves feed it).
    supplies: Supplies | None = None
    #: A rack-scale system's power shelf's AC input (each shelf placed in the rack takes these): the
    #: whips from the rack's feeds that carry the whole rack.
    shelf_supplies: Supplies | None = None
    #: What the system's heat needs of the hall: ``liquid`` (direct-to-chip, a coolant loop at the
    #: rack) or ``air``; None where no source says (the cooling rule then says nothing).
    cooling: Literal["air", "liquid"] | None = None

    @model_validator(mode="after")
    def _torus_fits(self) -> Platform:
        t = self.scale_up.torus
        if t is not None and (self.gpus_per_node * self.nodes_per_system != t.chips
                              or self.gpus_per_domain % t.chips):
            raise ValueError(f"a torus platform's system is one cube: gpus_per_node x nodes_per_system "
                             f"({self.gpus_per_node} x {self.nodes_per_system}) must be the cube's "
                             f"{t.chips} chips, and gpus_per_domain ({self.gpus_per_domain}) whole cubes")
        return self

    @model_validator(mode="after")
    def _two_racks(self) -> Platform:
        su, r = self.scale_up, self.racks_per_system
        if (r > 1) != (su.inter_rack is not None):
            raise ValueError("racks_per_system 2 and scale_up.inter_rack go together (a domain over two racks and "
                             "the cables that join them)")
        if r > 1 and (self.system != "rack" or self.nodes_per_system != r * self.nodes_per_rack
                      or self.gpus_per_domain != self.gpus_per_system or su.switch_chips_per_domain % r
                      or su.switch_trays_per_domain % r
                      or su.links_per_gpu % (su.switch_chips_per_domain // r)):
            raise ValueError(f"a system over {r} racks is a rack system of one domain, nodes_per_rack x {r} nodes, "
                             f"its switch chips and trays shared evenly by the racks and each GPU's links spread "
                             f"evenly over its own rack's chips")
        return self

    @model_validator(mode="after")
    def _front_counts(self) -> Platform:
        """A published front view holds the rack's compute trays, switch trays and shelves, each once."""
        sup = self.support
        if sup is None or not sup.front_view:
            return self
        trays = self.scale_up.switch_trays_per_domain
        want = {Layer.NODE: self.nodes_per_rack, Layer.NVLINK_SWITCH: trays,
                Layer.POWER_SHELF: max(sup.rack_device_units - trays, 0)}
        got = {r: sum(b.count for b in sup.front_view if b.role == r) for r in want}
        if got != want:
            raise ValueError("support.front_view counts " + ", ".join(f"{got[r]} {r}" for r in want) + "; the row has "
                             + ", ".join(f"{want[r]} {r}" for r in want) + " (nodes_per_rack, "
                             "switch_trays_per_domain, rack_device_units less the switch trays)")
        return self

    @model_validator(mode="after")
    def _bandwidth_has_source(self) -> Platform:
        if (self.memory_bandwidth is None) != (self.memory_bandwidth_source is None):
            raise ValueError("memory_bandwidth and memory_bandwidth_source go together (the GPU's HBM bandwidth and "
                             "where it is published)")
        return self

    @model_validator(mode="after")
    def _typical_below_max(self) -> Platform:
        if self.power_typical is not None and (magnitude(self.power_typical, "power")
                                               > magnitude(self.power_per_system, "power")):
            raise ValueError(f"power_typical ({self.power_typical}) is above power_per_system "
                             f"({self.power_per_system}), the system's maximum")
        return self

    @property
    def system_power_typical_w(self) -> float:
        """A system's typical draw [W] (the maximum where no typical figure is published)."""
        return magnitude(self.power_typical if self.power_typical is not None else self.power_per_system, "power")

    @property
    def node_power_w(self) -> float:
        """One node's share of its system's power [W]."""
        return magnitude(self.power_per_system, "power") / self.nodes_per_system

    @property
    def gpus_per_system(self) -> int:
        return self.gpus_per_node * self.nodes_per_system

    @property
    def gpus_per_rack(self) -> int:
        return self.gpus_per_node * self.nodes_per_rack

    @property
    def power_per_gpu_w(self) -> float:
        """System power shared out over its GPUs [W] (includes CPUs, NICs, switch trays)."""
        return magnitude(self.power_per_system, "power") / self.gpus_per_system

    def flops_per_gpu(self, dtype: str) -> float:
        """Dense FLOP/s per GPU at ``dtype`` (bf16, fp8, fp4)."""
        value = {"bf16": self.bf16_dense, "fp8": self.fp8_dense, "fp4": self.fp4_dense}[dtype]
        if value is None:
            raise CatalogError(f"platform {self.id!r} has no dense {dtype} figure "
                               f"({self.gpu} does not support it)", key="dtype")
        return magnitude(value, "compute")


# --- switches and media (the standard lookup's parts) --------------------------------

#: The most ports a switch row may have (the largest in the catalog, a 16-slot chassis, has 576 cages and
#: 4,608 ports broken out): a count past it is a typo, and one of 10^15 would have the build place a
#: switch for every few of them.
MAX_SWITCH_PORTS = 16_384


class Breakout(Model):
    rate: Rate
    ports: int = Field(ge=1, le=8 * MAX_SWITCH_PORTS)


class Uplinks(Model):
    """Ports of another rate kept for uplinks (a 1G management switch's 100G ports), or a scheduled
    fabric's fabric ports (a Jericho3-AI interface node's cell links to its fabric elements)."""

    ports: int = Field(ge=1, le=MAX_SWITCH_PORTS)
    rate: Rate
    form_factor: FormFactor
    ports_per_cage: int = Field(default=1, ge=1, le=8)
    # Bundles of the cage's lanes one uplink may be split into (an 800G OSFP's two 4-lane halves to two
    # fabric elements): the planner takes the finest where whole native ports cannot spread evenly.
    breakouts: list[Breakout] = Field(default=[], examples=[[{"rate": "400 Gbit/s", "ports": 40}]])
    """Bundles of a cage's lanes one uplink splits into (an 800G OSFP's two 4-lane halves to two fabric
    elements: ``[{rate: "400 Gbit/s", ports: 40}]``); the planner spreads at the finest."""
    scheduled: bool = Field(default=False, examples=[True])
    """A scheduled (cell) fabric's fabric ports (``true``): every one is cabled whatever the host ports
    carry (cells are sprayed over all of them; the surplus is the speedup), only to ``fabric_element``."""
    fabric_element: str | None = Field(default=None, examples=["arista-7720r4-128pe"])
    """The fabric element row (Ramon3) a scheduled leaf's fabric ports join: its default spine."""
    max_host_ports: int | None = Field(default=None, ge=1, examples=[32768])
    """The most host ports (at their native rate) one scheduled fabric of this silicon joins, as its
    maker publishes it (Jericho3-AI with Ramon3: ``32768`` x 800G); a larger one is refused."""

    @model_validator(mode="after")
    def _scheduled_has_elements(self) -> Uplinks:
        if self.scheduled and not self.fabric_element:
            raise ValueError("a scheduled fabric's uplinks name the fabric element they join (fabric_element: "
                             "the switch row of the cell switch, e.g. a Ramon3 box)")
        if self.fabric_element and not self.scheduled:
            raise ValueError("fabric_element is for a scheduled fabric's uplinks: add scheduled: true")
        return self


class ChassisPart(Model):
    """A part a modular chassis holds: its frame, a fabric card, a supervisor, a power supply."""

    part_number: str
    description: str
    count: int = Field(default=1, ge=1)     # per chassis (the frame: 1)
    power: Power                            # drawn by one part (a power supply: its own losses, 0 W)
    price_usd: float = Field(ge=0, le=MAX_PRICE_USD)


class LineCard(Model):
    """A modular chassis's line card: the ports come in cards of ``ports`` native ports."""

    part_number: str
    description: str
    ports: int = Field(ge=1, le=MAX_SWITCH_PORTS)
    power: Power                            # typical
    power_max: Power | None = None          # the data sheet's maximum, where it gives one
    price_usd: float = Field(ge=0, le=MAX_PRICE_USD)

    def power_w(self, peak: bool = False) -> float:
        """One card's draw: typical, or at its maximum (facility sizing) where published."""
        return magnitude(self.power_max if peak and self.power_max is not None else self.power, "power")


class Modular(Model):
    """A modular chassis (a spine layer of one or a few boxes): the switch row's ports are a full
    chassis (``slots`` x the line card's ports); the BOM counts the frame, the line cards the
    used ports fill, the fabric cards, the supervisors and the power supplies as their own lines."""

    slots: int = Field(ge=1)
    line_card: LineCard
    chassis: ChassisPart                    # the frame with its fans and fan controllers
    fabric_cards: ChassisPart
    supervisors: ChassisPart
    power_supplies: ChassisPart

    @property
    def parts(self) -> tuple[ChassisPart, ...]:
        """The parts every chassis holds whatever its ports carry."""
        return (self.chassis, self.fabric_cards, self.supervisors, self.power_supplies)

    def cards(self, used_native: float) -> int:
        """Line cards one chassis needs for ``used_native`` of its native ports (at most every slot)."""
        return min(self.slots, math.ceil(used_native / self.line_card.ports - 1e-9))

    def power_w(self, used_native: float, peak: bool = False) -> float:
        """One chassis's draw with the cards its used ports fill (the BOM's lines and a rack's budget
        alike): the fixed parts, and the cards at their typical or maximum."""
        fixed = sum(p.count * magnitude(p.power, "power") for p in self.parts)
        return fixed + self.cards(used_native) * self.line_card.power_w(peak)


class FaceplateBreakout(Model):
    """The fibre shuffle (breakout) at a CPO faceplate connector that carries several ports: it
    splits one faceplate connector into one standard connector per port, bought per connector used."""

    vendor: str
    part_number: str
    description: str
    price_usd: float = Field(ge=0, le=MAX_PRICE_USD)
    price_source: PriceSource
    source: str
    as_of: dt.date


class Engine(Model):
    """The optical engine behind each port of a co-packaged-optics switch: what the far end's
    pluggable must match (port type, connector, fibre), and the reach the vendor states."""

    port_type: str                       # as a module's port_type: 800g-dr4
    medium: Literal["smf-parallel", "smf-duplex"]
    connector: Connector                 # of each port after the faceplate (and its breakout)
    lit_strands: int = Field(ge=1)
    reach_max: Length
    loss_budget: Loss
    ports_per_connector: int = Field(default=1, ge=1, le=16)   # ports one faceplate connector carries
    breakout: FaceplateBreakout | None = None

    @model_validator(mode="after")
    def _breakout_where_shared(self) -> Engine:
        if self.ports_per_connector > 1 and self.breakout is None:
            raise ValueError(f"a faceplate connector carrying {self.ports_per_connector} ports needs breakout "
                             f"(the fibre shuffle that splits it into one connector per port)")
        return self


class LaserSource(Model):
    """The external laser modules (ELS / ELSFP) a CPO switch needs: bought, spared and powered on
    their own, so the BOM counts them per switch with their own part number."""

    vendor: str
    part_number: str
    description: str
    per_switch: int = Field(ge=1)
    power: Power                         # per laser module
    price_usd: float = Field(ge=0, le=MAX_PRICE_USD)
    price_source: PriceSource
    source: str
    notes: str | None = None


class Switch(Row):
    protocol: Literal["infiniband", "ethernet"]
    ports: int = Field(ge=1, le=MAX_SWITCH_PORTS)
    port_rate: Rate
    cages: int = Field(ge=1, le=MAX_SWITCH_PORTS)
    form_factor: FormFactor
    ports_per_cage: int = Field(ge=1, le=8)
    lane_rate: Rate
    breakouts: list[Breakout] = []
    uplinks: Uplinks | None = None
    power_typical: Power                 # typical draw without optics (passive cables): the energy cost
    power_max: Power                     # the data sheet's maximum
    # The optics per cage the data sheet's maximum counts (NVIDIA: "max power with active optics" at
    # the cages' rated class), "0 W" where it counts none. The BOM counts optics on lines of their
    # own at their maximum, so a switch line's maximum is power_max less cages x this; None = not
    # published, and the line takes power_typical for the maximum too (power_basis says so).
    power_max_optics: Power | None = None
    rack_units: int = Field(ge=1)
    modular: Modular | None = None       # a chassis with line cards (the row's ports fill every slot)
    # Co-packaged optics: the ports are optical engines (form_factor "cpo"), lasers are external.
    engine: Engine | None = None
    laser_source: LaserSource | None = None
    # The published system power includes the laser modules: the BOM shows their share on the laser
    # line and the rest on the switch line, so the total stays the published figure.
    power_includes_lasers: bool = True
    supplies: Supplies | None = None     # its power supplies (2 PSU bays, 1+1)
    fabric_element: bool = Field(default=False, examples=[True])
    """A scheduled fabric's fabric element (Ramon3, ``true``): every port is a cell link to an interface
    node's fabric ports; it takes no hosts and stands only as the spine (or core)."""

    @property
    def cpo(self) -> bool:
        return self.form_factor == CPO

    @property
    def power_max_without_optics_w(self) -> float | None:
        """The switch's own maximum [W], its optics taken out (None: the data sheet's maximum cannot
        be split from the optics it counts)."""
        if self.power_max_optics is None:
            return None
        return magnitude(self.power_max, "power") - self.cages * magnitude(self.power_max_optics, "power")

    @model_validator(mode="after")
    def _power_order(self) -> Switch:
        typical, peak = magnitude(self.power_typical, "power"), magnitude(self.power_max, "power")
        if typical > peak:
            raise ValueError(f"power_typical ({self.power_typical}) is above power_max ({self.power_max})")
        own = self.power_max_without_optics_w
        if own is not None and own < typical:
            raise ValueError(f"power_max less the optics it counts ({self.power_max} - {self.cages} cages x "
                             f"{self.power_max_optics} = {own:,.0f} W) is below power_typical "
                             f"({self.power_typical}): check power_max_optics (the optics per cage the "
                             f"data sheet's maximum counts)")
        return self

    @model_validator(mode="after")
    def _cpo_complete(self) -> Switch:
        if self.cpo and (self.engine is None or self.laser_source is None):
            raise ValueError('a co-packaged-optics switch (form_factor "cpo") needs engine (the port type its '
                             'optical engines speak) and laser_source (the external laser modules)')
        if self.engine is not None and self.cpo and self.ports_per_cage != self.engine.ports_per_connector:
            raise ValueError(f"a CPO switch's cage is its faceplate connector: ports_per_cage "
                             f"({self.ports_per_cage}) must equal engine.ports_per_connector "
                             f"({self.engine.ports_per_connector})")
        if not self.cpo and (self.engine is not None or self.laser_source is not None):
            raise ValueError('engine and laser_source belong to co-packaged-optics switches (form_factor "cpo")')
        return self

    @model_validator(mode="after")
    def _ports_add_up(self) -> Switch:
        m = self.modular
        if m is not None and self.ports != m.slots * m.line_card.ports:
            raise ValueError(f"a modular switch's ports ({self.ports}) are its slots x the line card's ports "
                             f"({m.slots} x {m.line_card.ports})")
        # A leaf splits its cages between downlinks and uplinks, so a switch has two cages at least.
        if self.ports != self.cages * self.ports_per_cage:
            raise ValueError(f"ports ({self.ports}) must be cages x ports_per_cage "
                             f"({self.cages} x {self.ports_per_cage})")
        if self.cages < 2:
            raise ValueError("a switch needs at least two cages (one for downlinks, one for uplinks)")
        for b in self.breakouts:
            if b.ports < self.ports:
                raise ValueError(f"a breakout splits ports into more ports: {b.ports} is fewer than {self.ports}")
        return self


class Module(Row):
    form_factor: FormFactor
    # Ports one module serves: a twin-port OSFP 2 at 400G, 4 at 200G (each MPO split 1:2).
    ports: int = Field(ge=1, le=4)
    port_rate: Rate
    port_type: str
    lanes: int = Field(ge=1)
    lane_rate: Rate
    medium: Literal["multimode", "smf-parallel", "smf-duplex"]
    connector: Connector
    lit_strands: int = Field(ge=1)
    reach_max: Length
    reach_min: Length0 = Field(default_factory=lambda: parse_quantity("0 m", "length"))
    loss_budget: Loss
    power: Power


class CableEnd(Model):
    form_factor: FormFactor
    ports: int = Field(ge=1, le=2)
    count: int = Field(ge=1, le=8)


class SoldLength(Model):
    length: Length
    part_number: str
    price_usd: float | None = Field(default=None, ge=0, le=MAX_PRICE_USD)


class Cable(Row):
    kind: Literal["dac", "acc", "lacc", "aec", "aoc", "rj45"]
    port_rate: Rate
    lane_rate: Rate
    links: int = Field(ge=1)
    end_a: CableEnd
    end_b: CableEnd
    reach_max: Length
    power_per_end: Power
    lengths: list[SoldLength] = Field(min_length=1)
    price_per_m_usd: float = Field(default=0.0, ge=0, le=MAX_PRICE_USD)


class Fibre(Row):
    kind: Literal["trunk", "patch-cord", "splitter"]
    fibre: Literal["om3", "om4", "om5", "os2"]
    connector: Connector
    strands: int = Field(ge=1)
    attenuation: Attenuation
    lengths: list[SoldLength] = Field(min_length=1)
    price_per_m_usd: float = Field(default=0.0, ge=0, le=MAX_PRICE_USD)
    splits: int = Field(default=1, ge=1, le=8)
    """A splitter's ends at its split side: one connector to ``splits`` connectors (an MPO-12 1:2
    splitter: 2), each carrying one port of the module at its single end."""

    @model_validator(mode="after")
    def _splitter_splits(self) -> Fibre:
        if (self.kind == "splitter") != (self.splits > 1):
            raise ValueError("a splitter fibre needs splits (the connectors its split end has, 2 for 1:2) "
                             "and only a splitter has them")
        return self


class PowerCord(Row):
    """A power cord sold in lengths: from a PDU outlet to a device's inlet (``c13-c14``, ``c19-c20``),
    or a three-phase whip from a rack's feed to a power shelf (``whip``)."""

    kind: Literal["c13-c14", "c19-c20", "whip"]
    """Its two ends: outlet to inlet (``c13-c14``, ``c19-c20``), or a three-phase ``whip``."""
    rating: Current
    """The current the cord and its couplers carry (IEC 60320: C13/C14 10 A, C19/C20 16 A)."""
    lengths: list[SoldLength] = Field(min_length=1)
    """The lengths it is sold in, each with its part number."""

    @property
    def inlet(self) -> str:
        """The device inlet the cord's far end takes (``c14``, ``c20``, ``whip``)."""
        return self.kind.rsplit("-", 1)[-1]


class Panel(Row):
    connector: Connector
    medium: Literal["multimode", "single-mode"]   # the fibre its adapters are graded for
    ports: int = Field(ge=1)
    rack_units: int = Field(ge=1)
    loss_per_mated_pair: Loss


class Coherent(Row):
    form_factor: FormFactor
    rate: Rate
    standard: Literal["400zr", "openzr+", "800zr"]
    reach_max: Length
    reach_unamplified: Length
    # Longest span its standard runs with amplifiers at the two ends only (no in-line site):
    # 400ZR's single amplified span of up to 120 km; None = the line amplifier's span sets it.
    span_max: Length | None = None
    # The unamplified application's link loss budget (transmitter to receiver, every mated pair,
    # fibre and mux/demux between them); None: only reach_unamplified decides amplification.
    loss_budget_unamplified: Loss | None = None
    grid: Frequency
    power: Power


class Dwdm(Row):
    kind: Literal["mux", "amplifier"]
    channels: int | None = Field(default=None, ge=1)   # an amplifier's: the most wavelengths it carries
    spacing: Frequency | None = None
    span_max: Length | None = None
    insertion_loss: Loss | None = None
    power: Power
    rack_units: int = Field(ge=0)
    # An amplifier's stages: 1, one fibre in one direction (a shelf EDFA); 2, the booster and the
    # pre-amplifier of one end of a fibre pair in one unit (a bidirectional line system).
    stages: Literal[1, 2] = 1
    # A pluggable amplifier's cage: it takes a router port at each end of its fibre pair and
    # no rack space, and amplifies one span only (no in-line site: no router stands in a hut).
    form_factor: str | None = None
    # An amplifier's gain as a booster (at the sending end: it raises the launch power) and as a
    # pre-amplifier (at the receiving end: it raises the power the receiver sees): what each adds to
    # the line's loss budget where it stands (None: not published, the budget is not checked).
    booster_gain: Loss | None = None
    preamp_gain: Loss | None = None
    supplies: Supplies | None = None     # a racked unit's power supplies (a passive mux has none)

    @model_validator(mode="after")
    def _pluggable(self) -> Dwdm:
        if self.kind != Layer.AMPLIFIER and (self.stages != 1 or self.form_factor is not None
                                             or self.booster_gain is not None or self.preamp_gain is not None):
            raise ValueError("stages, form_factor, booster_gain and preamp_gain are an amplifier's")
        if self.form_factor is not None and self.rack_units:
            raise ValueError("a pluggable amplifier (form_factor) stands in a router cage: rack_units 0")
        return self

    @property
    def pluggable(self) -> bool:
        return self.form_factor is not None


class EndpointPorts(Model):
    """An endpoint's network ports by fabric."""

    compute: NicPorts | None = None
    storage: NicPorts | None = None
    inband: NicPorts | None = None
    oob: NicPorts | None = None


class Endpoint(Row):
    """A device around the nodes: storage appliance, fabric manager, management server, PDU."""

    role: Literal["storage", "ufm", "mgmt", "pdu", "cdu"]
    rack_units: int = Field(ge=0)           # 0 = side-mounted (a vertical PDU)
    power: Power
    ports: EndpointPorts = EndpointPorts()
    capacity: Memory | None = None          # storage: usable capacity per appliance
    throughput: Rate | None = None          # storage: read throughput per appliance
    power_capacity: Power | None = None     # pdu: what one PDU delivers
    cooling_capacity: Power | None = None   # cdu: the heat one coolant distribution unit moves to facility water
    supplies: Supplies | None = None        # its power supplies (a PDU's input is its ``outlets`` block)
    outlets: PduOutlets | None = None       # pdu: its input, outlets, banks and breakers

    @model_validator(mode="after")
    def _pdu_outlets(self) -> Endpoint:
        if self.outlets is not None and self.role != Layer.PDU:
            raise ValueError("outlets is a PDU's (role: pdu)")
        return self

    @model_validator(mode="after")
    def _cdu_capacity(self) -> Endpoint:
        if (self.role == "cdu") != (self.cooling_capacity is not None):
            raise ValueError("cooling_capacity is a CDU's (role: cdu), and a CDU needs it (\"2300 kW\")")
        return self


class RackType(Row):
    rack_units: int = Field(ge=1)
    power_budget: Power                     # default per rack of this type (the platform's wins)


class Default(Model):
    """A part the build picks when the scenario names none: one fabric's layer (catalogs/defaults.yaml)."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9.+-]*$")
    fabric: Literal["storage", "inband", "oob", "dci"]
    layer: Literal["leaf", "spine", "router"]
    switch: str          # the id of a switches row
    source: str          # the reference design that makes it the default
    notes: str | None = None


#: The kind of the defaults file: not a part, so not in KINDS (no price, no order line).
DEFAULTS = "defaults"

KINDS: dict[str, type[Row]] = {
    "platforms": Platform, "switches": Switch, "modules": Module, "cables": Cable,
    "fibres": Fibre, "panels": Panel, "coherent": Coherent, "dwdm": Dwdm,
    "endpoints": Endpoint, "racks": RackType, "power": PowerCord,
}
KIND_OF: dict[type[Row], str] = {cls: kind for kind, cls in KINDS.items()}
R = TypeVar("R", bound=Row)


@dataclass(frozen=True)
class Price:
    usd: float
    source: str
    as_of: dt.date


@dataclass
class Catalog:
    """All rows by kind and id; ``origin`` says which file each row came from."""

    rows: dict[str, dict[str, Row]] = field(default_factory=lambda: {k: {} for k in KINDS})
    origin: dict[str, str] = field(default_factory=dict)
    quotes: dict[str, Any] = field(default_factory=dict)    # row id -> bom.catalog.prices.Quote
    notes: list[str] = field(default_factory=list)          # price files' warnings: SKUs not applied, columns ignored
    defaults: dict[tuple[str, str], Default] = field(default_factory=dict)   # (fabric, layer) -> default
    #: Rows a build takes another part for where one serves the same link (bom build --prefer-available):
    #: row id -> the standard lookup's option names to take instead, first that fits (empty: any other fit).
    substitutes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    _keys: dict[str, tuple[Located, tuple[str | int, ...]]] = field(default_factory=dict)

    def where(self, row_id: str, key: str | None = None) -> str:
        """"file:line" of a row, or of one of its keys."""
        if key is None or row_id not in self._keys:
            return self.origin.get(row_id, "")
        src, path = self._keys[row_id]
        return src.where(path + (key,))

    def kind_of(self, row_id: str) -> str | None:
        for kind, rows in self.rows.items():
            if row_id in rows:
                return kind
        return None

    def get(self, kind: str, row_id: str, key: str | None = None, where: str | None = None) -> Row:
        """The row ``row_id`` of ``kind``; an unknown id is an error at ``key`` (and ``where``, a file and line)."""
        rows = self.rows[kind]
        if row_id not in rows:
            raise CatalogError(suggest(row_id, rows, kind.rstrip("s")), key=key, where=where)
        return rows[row_id]

    def default_switch(self, fabric: str, layer: str = Layer.LEAF) -> str | None:
        """The switch id a fabric's layer takes when the scenario names none (None: no default)."""
        d = self.defaults.get((fabric, layer))
        return d.switch if d is not None else None

    def default(self, fabric: str, layer: str = Layer.LEAF) -> str:
        """The default switch of a fabric layer the build needs one for (KeyError when there is none)."""
        return self.defaults[(fabric, layer)].switch

    def platform(self, row_id: str, key: str = "platform") -> Platform:
        row = self.get("platforms", row_id, key)
        assert isinstance(row, Platform)
        return row

    @cached_property
    def by_kind(self) -> dict[str, list[Row]]:
        return {k: sorted(v.values(), key=lambda r: r.id) for k, v in self.rows.items()}

    def rows_of(self, cls: type[R]) -> list[R]:
        """Every row of ``cls``'s kind, by id."""
        return [r for r in self.by_kind[KIND_OF[cls]] if isinstance(r, cls)]

    def __iter__(self) -> Iterator[Row]:
        for rows in self.rows.values():
            yield from rows.values()
