"""The scenario file (docs/scenarios.md): what to build, on what, where, and how to cost it."""

from __future__ import annotations

import datetime as dt
import itertools
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, BeforeValidator, Field, PlainValidator, WithJsonSchema, model_validator

from bom.errors import ScenarioError
from bom.inputs.validation import (
    Duration,
    EnergyPrice,
    Length,
    Length0,
    Memory,
    Model,
    Money,
    MoneyPerKmYear,
    MoneyPerKwMonth,
    MoneyPerPower,
    MoneyPerYear,
    MultiRuleError,
    PositivePower,
    Power,
    Rate,
    RuleError,
    ratio,
    validate,
)
from bom.inputs.workload import Workload
from bom.inputs.yamlio import Located, load_file, load_text
from bom.resources import data_dir
from bom.roles import FabricRole, Layer
from bom.units import magnitude, parse_quantity

#: The most uplinks per downlink a layer may have (1:4, the JVD lab's "heavily overprovisioned" leaf);
#: below it a ratio is a typo (0.1 for 10:1), and the leaf keeps a downlink for every four uplinks.
LEAST_RATIO = Fraction(1, 4)


def _oversubscription(value: Any) -> Fraction:
    """down:up as written ("4:3", "4/3", 3, "1:1.16") or as a decimal (1.333 -> 4:3, see fabric.ratio)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str, Fraction)):
        raise ValueError(f"{value!r} is not a ratio; write it as down:up, e.g. 3:1, 4:3 or 1:1.16")
    try:
        r = ratio(value)
    except (ValueError, ZeroDivisionError, OverflowError):
        raise ValueError(f"{value!r} is not a ratio; write it as down:up, e.g. 3:1, 4:3 or 1:1.16") from None
    if r < LEAST_RATIO:
        raise ValueError(f"{value!r} is below 1:4; a layer has at most four uplinks per downlink "
                         "(write 1 for non-blocking, 1:1.16 for AMD's undersubscribed leaf)")
    return r


_RATIO_SCHEMA = {"anyOf": [{"type": "number", "minimum": 0.25},
                           {"type": "string", "pattern": r"^\s*\d+(\.\d+)?\s*:\s*\d+(\.\d+)?\s*$"}]}
Oversubscription = Annotated[Fraction, BeforeValidator(_oversubscription), WithJsonSchema(_RATIO_SCHEMA)]


#: The days a plan may name: a date outside is a typo (a year 9999 overflows the in-service dates, and
#: phases a thousand years apart discount capex past what a float holds).
FIRST_DAY, LAST_DAY = dt.date(1970, 1, 1), dt.date(2199, 12, 31)


def _day(value: Any) -> Any:
    """A date as YAML writes it (2027-01-15) or as text; a number is refused, not read as seconds since 1970."""
    if isinstance(value, (bool, int, float)):
        raise ValueError(f"{value!r} is a number, not a date: write the day as YYYY-MM-DD, e.g. 2027-01-15")
    return value


def _in_range(day: dt.date) -> dt.date:
    if not FIRST_DAY <= day <= LAST_DAY:
        raise ValueError(f"{day.isoformat()} is outside the days a plan may name, {FIRST_DAY.isoformat()} to "
                         f"{LAST_DAY.isoformat()}")
    return day


Day = Annotated[dt.date, BeforeValidator(_day), AfterValidator(_in_range)]


class LayerRatios(Model):
    """Down:up port ratios per switch layer (``fabrics.<name>.oversubscription`` as a mapping)."""

    leaf: Oversubscription = Field(default=Fraction(1), examples=["1:1.16"])
    """At the leaf: its ports to the nodes over its uplinks ("1:1.16": AMD's undersubscribed leaf)."""
    spine: Oversubscription = Field(default=Fraction(1), examples=["7:1"])
    """At the spines of three layers: their ports to the leaves over their uplinks to the cores
    ("7:1": Meta's taper above the AI zone); a ratio other than 1 asks for three layers."""


def _ratios(value: Any) -> Fraction | LayerRatios:
    """One ratio (the leaf's) or a mapping of layer to ratio."""
    if isinstance(value, (dict, LayerRatios)):
        return LayerRatios.model_validate(value)
    return _oversubscription(value)


# A plain validator: the value is one or the other, never coerced into a Fraction afterwards.
_LAYERS_SCHEMA = {"type": "object", "additionalProperties": False,
                  "properties": {Layer.LEAF: _RATIO_SCHEMA, Layer.SPINE: _RATIO_SCHEMA}}
Ratios = Annotated[Fraction | LayerRatios, PlainValidator(_ratios),
                   WithJsonSchema({"anyOf": [*_RATIO_SCHEMA["anyOf"], _LAYERS_SCHEMA]})]


class FabricSpec(Model):
    """One scale-out fabric (``compute``, ``storage``, ``inband`` or ``oob``)."""

    switch: str | None = Field(default=None, examples=["q3400", "arista-7700r4c-38pe"])
    """Leaf switch, a catalog id (`bom catalog list --kind switches`); default: the platform's
    ``default_switch`` for compute, and the platform's RA switches for storage, in-band and OOB. A
    scheduled fabric's interface node (``arista-7700r4c-38pe``, Jericho3-AI) makes the compute fabric
    a scheduled (cell) fabric: every fabric port cabled to its fabric elements (Ramon3) as the spines."""
    spine: str | None = Field(default=None, examples=["ptx10008-lc1301", "arista-7720r4-128pe"])
    """Spine (and core) switch, a catalog id, when it differs from the leaf: a larger fixed switch
    or a modular chassis whose line cards the BOM counts from the ports used; default: the leaf's
    (a scheduled fabric's interface node: its own fabric element)."""
    topology: Literal["rail-optimized", "rail-only", "tor", "pair"] = Field(default="rail-optimized",
                                                                           examples=["tor"])
    """``rail-optimized``: GPU n of every node in a scalable unit goes to leaf n (compute default);
    ``rail-only``: rail leaves and no spine, every node's port of a rail on one leaf (GPUs of
    different rails meet only through the scale-up domain; Wang et al. 2023, Asterfusion's
    small-scale guide); ``tor``: a leaf in each rack (default for storage, in-band and OOB);
    ``pair``: two switches joined by ISLs (a BasePOD-size pod), each taking half of every node's ports."""
    layers: Literal["auto", 1, 2, 3] = Field(default="auto", examples=[2])
    """Switch layers: ``auto`` takes two (leaf, spine) while the spines' ports reach, else three;
    ``1``: leaves and no spine (one switch when every port fits it; on a rail-optimized fabric,
    else a leaf per rail set as ``rail-only``; refused where one layer cannot join the nodes)."""
    rails_per_leaf: int | None = Field(default=None, ge=1, examples=[1])
    """Rail fabrics: rails one leaf takes, a divisor of the node's rails; ``1`` is a leaf per rail
    per SU (the Juniper JVDs' stripes, joined through spines even when the pod's ports would fit one
    switch). Default: as many as the leaf's downlinks hold (a pod that fits one switch is one switch)."""
    min_spines: int | None = Field(default=None, ge=1, examples=[4])
    """The fewest spines each leaf's uplinks spread over, for path diversity: ``4`` is the Juniper
    JVDs' "minimum of 4 spines" (even in a single-stripe fabric); a fabric that states it has a
    spine layer even where its ports would fit one switch, and each leaf's uplinks must divide
    evenly over the spines. Default: the fewest spines whose ports take every uplink."""
    oversubscription: Ratios = Field(default=Fraction(1), examples=["4:3", {"leaf": "1:1.16", "spine": "7:1"}])
    """Down:up port ratio at the leaf, "4:3" or 1.333; 1 is non-blocking, below 1 undersubscribed
    ("1:1.16", more uplinks than downlinks); or a ratio per layer, ``{leaf: ..., spine: ...}``.
    Default 1, except on storage (and on in-band where the platform's RA runs storage and in-band
    as one fabric): the platform's RA ratio, 4:3 (the platform row's ``support.oversubscription``,
    with its source)."""
    uplink_rate: Literal["native", "downlink"] | Rate = Field(default="native", examples=["downlink", "400G"])
    """``native``: switch-to-switch links at the switches' own port rate (800G over 2 x 400G planes)
    where whole native ports join each pair of switches and leaf and spine have the same cage at that
    rate (a fixed leaf under a modular chassis alike); ``downlink``: at the NIC's rate. A storage or
    in-band fabric joins its switches at the NIC's rate unless no part joins two such ports (200G,
    a quarter of an 800G cage), then ``native`` takes the fastest own rate (800G, then 400G) whose
    whole ports join every pair. A rate (``"400G"``): every switch-to-switch link at that rate, a
    breakout of the switches' cages where it is below their own (2 x 400G in an 800G OSFP, as Alibaba
    HPN's 51.2T ToRs run 60 x 400G uplinks beside 200G downlinks), never below the nodes' rate: the
    uplinks spread in whole links of it, and a fabric that cannot take them is refused."""
    su_nodes: int | None = Field(default=None, ge=1, examples=[32])
    """Nodes per scalable unit (SU): the group of nodes whose rails share one set of leaves (on the
    storage and in-band fabrics, the nodes per leaf group); default: the platform's ``su_nodes``."""
    planes: int = Field(default=1, ge=1, le=8, examples=[2])
    """Parallel fabric planes, each with its own leaves, spines and cores; each node port is split over
    them (a port's rate / planes), or with ``planes_by: port`` each NIC's ports are dealt over them."""
    planes_by: Literal["rate", "port"] = Field(default="rate", examples=["port"])
    """Compute fabric, with ``planes``: how a node reaches the planes. ``rate``: every NIC port is split
    over them, one link per plane at the port's rate / planes from the one cage (an 800G OSFP as 2 x
    400G); ``port``: the NIC's ports are dealt over them, port k of each NIC to plane k at its full rate
    from a cage of its own, so each port lands on its own ToR (dual-plane and dual-ToR: Alibaba HPN,
    SIGCOMM 2024, a 2 x 200G NIC per GPU, port 1 to a ToR of plane 1 and port 2 to a ToR of plane 2).
    The platform's ports are taken as NICs of ``planes`` ports each, in order: their count must be a
    multiple of ``planes``."""
    uplinks: Literal["inband", "spine"] | None = Field(default=None, examples=["spine"])
    """Out-of-band only: the management switches' uplinks go into the in-band fabric (the RAs'
    design) unless a separate OOB spine layer (``spine``) is asked for."""
    growth: Literal["reserve", "rebuild"] = Field(default="reserve", examples=["rebuild"])
    """With ``phases``: how this fabric grows. ``reserve``: the final design is bought in order, its
    top layers (spines, cores, DCI routers) with their site's first phase and leaves as their nodes
    arrive, so no installed cable moves; ``rebuild``: each phase gets the design built for its own
    size, and a later phase re-cables the links of the earlier design it does not keep
    (bom/costing/phases.py)."""
    @property
    def port_split(self) -> int:
        """Links one NIC port carries, one to each plane it reaches: ``planes`` where a port's rate is split
        over them, 1 where whole ports are dealt over them (``planes_by: port``)."""
        return 1 if self.planes_by == "port" else self.planes

    @property
    def uplink_gbps(self) -> float | None:
        """The switch-to-switch rate the scenario states [Gbit/s] (None: ``native`` or ``downlink``)."""
        return None if isinstance(self.uplink_rate, str) else magnitude(self.uplink_rate, "rate")

    @property
    def leaf_ratio(self) -> Fraction:
        """The leaf's down:up ratio (the one ratio, or the mapping's ``leaf``)."""
        o = self.oversubscription
        return o.leaf if isinstance(o, LayerRatios) else o

    @property
    def spine_ratio(self) -> Fraction | None:
        """The spines' down:up ratio when the scenario states one (three layers), else None."""
        o = self.oversubscription
        return o.spine if isinstance(o, LayerRatios) and Layer.SPINE in o.model_fields_set else None

    mlag: int | None = Field(default=None, ge=1, le=16, examples=[2])
    """Storage and in-band: the leaves in MLAG pairs, every node's and endpoint's ports dual-homed over
    its pair's two switches, and this many peer links between them (the DGX BasePOD deployment guide
    bonds two ports, swp63 and swp64, as the SN4600C pair's peerlink). Default: single-homed leaves."""
    media: list[Literal["passive-copper", "active-copper", "aoc", "multimode", "smf-parallel",
                        "smf-duplex"]] | None = Field(default=None, examples=[["multimode"]])
    """Media the design allows, e.g. [multimode] where a reference design uses optics throughout;
    default: all, cheapest rung of the ladder that reaches."""


#: What the out-of-band fabric's shape follows from (the managed devices), never a scenario key.
OOB_FIXED = ("su_nodes", "topology", "oversubscription", "layers", "planes", "rails_per_leaf", "min_spines")


class Storage(Model):
    """Storage appliances: a count, or capacity and/or throughput that derive it; with none of them,
    the capacity the training job needs (checkpoints kept and the dataset) derives it."""

    appliance: str | None = Field(default=None, examples=["storage-appliance-2u"])
    """The appliance, an ``endpoints`` catalog row; default: the platform's."""
    count: int | None = Field(default=None, ge=1, examples=[8])
    """Appliances; default: derived from ``capacity`` and ``throughput``, else the platform's."""
    capacity: Memory | None = Field(default=None, examples=["2 PB"])
    """Usable capacity the appliances must hold (derives the count)."""
    throughput: Rate | None = Field(default=None, examples=["400 GB/s"])
    """Read throughput the appliances must deliver (derives the count)."""
    ports: int | None = Field(default=None, ge=0, examples=[4])
    """Storage-fabric ports per appliance; default: the catalog row's."""
    rate: Rate | None = Field(default=None, examples=["400 Gbit/s"])
    """Rate of those ports; default: the catalog row's."""
    checkpoints: int | None = Field(default=None, ge=1, le=10000, examples=[5])
    """Checkpoints kept, to size the capacity from the training job (default 5, an estimate)."""
    checkpoint_bytes_per_param: float | None = Field(default=None, gt=0, le=100, examples=[14])
    """Bytes per parameter of one checkpoint (default 14: bf16 weights with the fp32 master weights and
    Adam moments, ZeRO's 16 less the gradients)."""
    dataset_bytes_per_token: float | None = Field(default=None, gt=0, le=1000, examples=[4])
    """Bytes per training token of the dataset (default 4: token ids as 32-bit integers)."""


class Management(Model):
    """Fabric managers and management / head nodes (per site)."""

    ufm: str | None = Field(default=None, examples=["ufm-appliance-3.1"])
    """Fabric manager appliance, an ``endpoints`` catalog row; default: the platform's."""
    ufm_count: int | None = Field(default=None, ge=0, examples=[4])
    """Fabric manager appliances per site; default: the platform RA's."""
    server: str | None = Field(default=None, examples=["mgmt-x86-2s"])
    """Management / head node, an ``endpoints`` catalog row; default: the platform's."""
    servers: int | None = Field(default=None, ge=0, examples=[5])
    """Management / head nodes per site; default: the platform RA's."""


class Racks(Model):
    """Rack budgets (per compute rack); defaults from the platform's support row."""

    power_budget: PositivePower | None = Field(default=None, examples=["40 kW"])
    """Power a compute rack may draw; nodes per rack follow from it when the layout gives none."""
    rack_units: int | None = Field(default=None, ge=1, le=60, examples=[48])
    """Rack units of a rack."""


class Feeds(Model):
    """The power distribution the racks hang on (the power plan, bom/links/power.py): each rack's A and
    B feeds on its row's A-side and B-side distribution (a busway or remote power panel), each row side
    on its site's UPS A or B (2N). Without a rating the plan sizes the distribution to the load it
    reports; with one, a load over it breaks the design rule ``power.distribution``."""

    row_capacity: PositivePower | None = Field(default=None, examples=["460 kW"])
    """What one row's A (or B) distribution carries continuously; default: not given (sized to the load)."""
    ups_capacity: PositivePower | None = Field(default=None, examples=["2 MW"])
    """What one site's UPS A (or B) carries; default: not given (sized to the load)."""


class Sites(Model):
    """Buildings the cluster is shared over, and the wavelengths that join them (scale-across)."""

    count: int = Field(default=1, ge=1, le=64, examples=[2])
    """How many buildings; default: the length of ``split``, else 1."""
    split: list[float] | None = Field(default=None, min_length=1, max_length=64, examples=[[2, 1, 1]])
    """Each site's size as relative weights, in site order (site 1 first); default: equal sizes.
    The cluster's whole systems are shared out in these proportions (largest remainder)."""
    topology: Literal["mesh", "ring", "hub"] = Field(default="mesh", examples=["ring"])
    """Which site pairs are cabled: ``mesh`` (default) every pair; ``ring`` each site to the next and
    the last to the first; ``hub`` every site to site 1. Every cabled pair gets ``dci_bandwidth``."""
    distance: Length | None = Field(default=None, examples=["40 km"])
    """Route length of the fibre between two cabled sites (the same for every pair)."""
    dci_bandwidth: Rate | Literal["auto"] | None = Field(default=None, examples=["25.6 Tbit/s", "auto"])
    """Bandwidth between each cabled pair of sites; give this or ``dci_fraction``. ``auto``: the
    bandwidth that carries the workload's data-parallel traffic between sites within ``dci_overlap``
    of a training step (needs a training workload with its shape: layers, hidden, heads, sequence,
    batch_tokens)."""
    dci_overlap: float | None = Field(default=None, gt=0, le=1, examples=[0.5])
    """With ``dci_bandwidth: auto``: the share of a training step the sites' gradient and weight
    exchange may take (it hides under the backward pass up to 2/3 of the step). Required with
    ``auto``; with a given bandwidth, the report says what share of the step it takes."""
    dci_fraction: float | None = Field(default=None, gt=0, le=1, examples=[0.125])
    """Bandwidth between each cabled pair as a fraction of the smallest site's scale-out (compute
    fabric) bandwidth: nodes x ports x port rate. 0.125 is one eighth."""
    wavelength_rate: Rate | None = Field(default=None, examples=["400 Gbit/s"])
    """Rate of one coherent wavelength; default 400 Gbit/s (400ZR / OpenZR+)."""
    amplifiers: Literal["both", "booster", "pre-amp"] = Field(default="both", examples=["booster"])
    """Where an amplified route's amplifiers stand at its two ends: ``both``, a booster at the sending end
    and a pre-amplifier at the receiving end of each direction (4 on a fibre pair); ``booster``, the
    booster only (2: each end amplifies what it sends); ``pre-amp``, the pre-amplifier only (2: each end
    amplifies what it receives). The line's loss budget follows: the module's unamplified budget plus the
    gain of each stage that stands (the amplifier row's ``booster_gain``, ``preamp_gain``); a route whose
    loss is over it is refused by ``bom check`` and ``bom build`` (rule ``lengths.coherent``). One stage
    only on a single span: a route with in-line amplifier sites, or a two-stage pluggable line system
    (``qdd-ols``), takes both."""
    amplifier: str | None = Field(default=None, examples=["qdd-ols"])
    """The line amplifier (a dwdm catalog row of kind amplifier) where a route is amplified; default:
    the cheapest rack-mounted one, a booster and a pre-amplifier per direction (4 on a fibre pair).
    A pluggable bidirectional line system (``qdd-ols``, Cisco's QDD OLS) is one module at each end
    of a fibre pair in a router port: single span only, at most its channels (32) on a fibre pair."""
    power: Power | list[Power] | None = Field(default=None, examples=["100 MW", ["100 MW", "60 MW"]])
    """The facility power one building can draw (IT at its maximum x PUE, plus the CDUs), or a list with
    one per building in the order they are filled. With no ``count``: as many buildings as the facility
    power needs (the fewest, in order; the cluster shared in proportion to their power); with ``count``:
    a build that does not fit is refused (exit 2) with the MW and the buildings it needs."""
    attach: Literal["auto", "compute", "inband", "storage"] = Field(default="auto", examples=["inband"])
    """Where the DCI routers' client ports (Ethernet) land in each site: ``compute``, free cages of an
    Ethernet compute fabric's top layer; ``inband`` or ``storage``, border leaves of that Ethernet
    fabric (leaf groups of their own, uplinked to its spines, sized by the ports they carry);
    ``auto`` (default): the compute fabric when it is Ethernet, else the in-band fabric, else the
    storage fabric, whichever is built on Ethernet switches with ports at the wavelength's rate; where
    none is, border leaves of the DCI's own (the DCI border leaf of catalogs/defaults.yaml, SN5600),
    standing with the routers, as many as half their ports at that rate take, said in the warnings."""

    @model_validator(mode="before")
    @classmethod
    def _count_from_split(cls, data: Any) -> Any:
        if isinstance(data, dict) and "count" not in data and isinstance(data.get("split"), list):
            return {**data, "count": len(data["split"])}
        return data

    @model_validator(mode="after")
    def _count_and_split(self) -> Sites:
        if self.split is not None:
            if self.count != len(self.split):
                raise ValueError(f"count is {self.count} but split gives {len(self.split)} sites; "
                                 "give one weight per site, or leave count out")
            if not all(w > 0 for w in self.split):
                raise ValueError("every weight in split must be greater than zero, such as [2, 1, 1]")
        return self

    @model_validator(mode="after")
    def _power(self) -> Sites:
        """A list of buildings' power names each site the count gives; with no count it is where they come from."""
        if isinstance(self.power, list) and self.count_given and len(self.power) != self.count:
            raise RuleError(f"power lists {len(self.power)} buildings for count {self.count}", ("power",),
                            hint="Leave count out (the buildings' power gives it), or give one power per site.",
                            fix={("count",): None})
        if self.power is not None and not self.count_given and self.split is not None:
            raise RuleError("split and power without count: the buildings' power shares the cluster out", ("split",),
                            hint="Leave split out (or give count).", fix={("split",): None})
        return self

    @property
    def count_given(self) -> bool:
        """The scenario gives the number of sites (count, or split's length)."""
        return "count" in self.model_fields_set or self.split is not None

    @property
    def from_power(self) -> bool:
        """The number of sites comes from the buildings' power (``power`` with no ``count``)."""
        return self.power is not None and not self.count_given

    #: The keys that say how many buildings and how large; every other key joins sites (the DCI).
    SIZING: ClassVar[tuple[str, ...]] = ("count", "split", "power")

    def unused_on_one_site(self) -> list[str]:
        """The keys that join sites the scenario gives, which a build on one site does not use."""
        return [k for k in type(self).model_fields if k not in self.SIZING and k in self.model_fields_set]

    @model_validator(mode="after")
    def _joined(self) -> Sites:
        self.check_joined()
        return self

    def check_joined(self) -> None:
        """Two or more sites are joined: a route length, and one way to size the DCI (also asked of a
        copy with another count, which pydantic does not validate again). Every missing key is named at
        once (one run, every fix)."""
        if self.count < 2:
            return
        problems = []
        if self.distance is None:
            problems.append(RuleError("two or more sites need the distance between them", ("distance",),
                                      hint='Add distance: "40 km".', fix={("distance",): "40 km"}))
        if self.dci_bandwidth is None and self.dci_fraction is None:
            problems.append(RuleError(
                "sites need dci_bandwidth (per site pair) or dci_fraction (of a site's scale-out bandwidth), one "
                "of them", ("dci_bandwidth",), hint='Add dci_bandwidth: "25.6 Tbit/s" (or dci_fraction: 0.125).',
                fix={("dci_bandwidth",): "25.6 Tbit/s"}))
        elif self.dci_bandwidth is not None and self.dci_fraction is not None:
            problems.append(RuleError("sites take dci_bandwidth (per site pair) or dci_fraction (of a site's "
                                      "scale-out bandwidth), not both", ("dci_bandwidth",),
                                      hint="Drop dci_fraction (or dci_bandwidth).", fix={("dci_fraction",): None}))
        if self.dci_bandwidth == "auto" and self.dci_overlap is None:
            problems.append(RuleError("dci_bandwidth: auto needs dci_overlap, the share of a training step the "
                                      "sites' data-parallel exchange may take", ("dci_overlap",),
                                      hint="Add dci_overlap: 0.5.", fix={("dci_overlap",): 0.5}))
        if problems:
            raise problems[0] if len(problems) == 1 else MultiRuleError(problems)

    @property
    def dci_auto(self) -> bool:
        """The DCI is sized from the workload's data-parallel traffic."""
        return self.dci_bandwidth == "auto"


class Layout(Model):
    """The floor plan that sets every cable length (defaults in bom/topology/geometry.py)."""

    nodes_per_rack: int | None = Field(default=None, ge=1, examples=[4])
    """Nodes in one rack; default: the platform's ``nodes_per_rack``."""
    racks_per_row: int | None = Field(default=None, ge=1, examples=[8])
    """Racks in one row of the hall."""
    rack_width: Length | None = Field(default=None, examples=["0.6 m"])
    """Width of one rack position."""
    row_pitch: Length | None = Field(default=None, examples=["2.4 m"])
    """Distance from one row to the next (rack depth plus aisle)."""
    rise: Length0 | None = Field(default=None, examples=["1 m"])
    """From a cage up to the overhead tray, at each end of a run."""
    slack: Length0 | None = Field(default=None, examples=["0.3 m"])
    """Added to every run for service loops."""
    in_rack: Length | None = Field(default=None, examples=["1.5 m"])
    """Length of a run inside one rack."""
    patch_panels: int = Field(default=0, ge=0, le=6, examples=[2])
    """Patch panels on every run that leaves its row (structured cabling); each adds mated pairs
    to the optical loss."""
    rack_power_limit: Power | None = Field(default=None, examples=["40 kW"])
    """What the hall can feed one rack. Compute racks are spread to fewer nodes under it where the
    platform allows (whole nodes or systems per rack); a rack-scale system drawing more (an NVL72 rack)
    cannot be spread and breaks the design rule ``placement.rack_power``, as does any rack over it.
    Default: not stated (the rack's power budget alone)."""
    cooling: Literal["air", "liquid"] | list[Literal["air", "liquid"]] | None = Field(
        default=None, examples=["air", ["liquid", "air"]])
    """What the halls can cool: ``liquid`` (a facility water loop to the racks) or ``air`` only;
    one for every site, or a list with one per site. A platform that needs liquid cooling in an
    air-only hall breaks the design rule ``placement.cooling``. Default: not stated (not checked)."""




class Tco(Model):
    """TCO assumptions; each default and its source is in bom/costing/tco.py (``DEFAULTS``)."""

    years: float | None = Field(default=None, gt=0, le=30, examples=[5])
    """Amortisation period [years]."""
    electricity: EnergyPrice | None = Field(default=None, examples=["0.08 USD/kWh"])
    """Electricity price."""
    pue: float | None = Field(default=None, ge=1.0, le=3.0, examples=[1.25])
    """Power usage effectiveness: facility power / IT power."""
    utilisation: float | None = Field(default=None, gt=0, le=1, examples=[0.8])
    """Share of hours the GPUs do paid work (divides the cost per GPU-hour)."""
    support: float | None = Field(default=None, ge=0, le=1, examples=[0.1])
    """Support and maintenance per year, as a fraction of the hardware cost."""
    dark_fibre: MoneyPerKmYear | None = Field(default=None, examples=["1500 USD/km/yr"])
    """Dark fibre lease per km of route per fibre pair per year (scale-across)."""
    space: MoneyPerYear | None = Field(default=None, examples=["6000 USD/yr"])
    """Space and facility per rack per year."""
    install_link: Money | None = Field(default=None, examples=["20 USD"])
    """Labour to run and test one link."""
    install_rack: Money | None = Field(default=None, examples=["2500 USD"])
    """Labour to rack, stack and power on one rack."""
    discount_rate: float | None = Field(default=None, ge=0, le=1, examples=[0.08])
    """Cost of capital (discount rate per year)."""
    life_gpu: float | None = Field(default=None, gt=0, le=30, examples=[5])
    """Depreciation life of the GPU systems [years]."""
    life_network: float | None = Field(default=None, gt=0, le=30, examples=[5])
    """Depreciation life of the network [years]."""
    life_facility: float | None = Field(default=None, gt=0, le=40, examples=[15])
    """Depreciation life of racks, PDUs and facility [years]."""
    support_gpu: float | None = Field(default=None, ge=0, le=1, examples=[0.08])
    """Support per year as a fraction of the GPU systems' capex."""
    support_network: float | None = Field(default=None, ge=0, le=1, examples=[0.1])
    """Support per year as a fraction of the network capex."""
    support_facility: float | None = Field(default=None, ge=0, le=1, examples=[0.03])
    """Support per year as a fraction of the facility capex."""
    colocation: MoneyPerKwMonth | None = None
    """Colocation price per kW-month (space basis kW)."""
    space_basis: Literal["rack", "kW"] | None = Field(default=None, examples=["rack"])
    """Space priced per kW of IT power (``kW``, colocation) or per rack (``rack``)."""
    facility: Literal["lease", "build"] | None = Field(default=None, examples=["build"])
    """The building: ``lease`` (default: colocation per kW-month, or space per rack) or ``build`` (capex
    per MW of critical IT load and the grid connection, charged over ``life_building``; no space lease).
    The TCO sheet shows both."""
    build_capex: MoneyPerPower | None = Field(default=None, examples=["11.7e6 USD/MW"])
    """With ``facility: build``: construction cost per MW of critical IT load (the IT load at its maximum)."""
    grid_connection: MoneyPerPower | None = Field(default=None, examples=["1e6 USD/MW"])
    """With ``facility: build``: the utility grid connection per MW of facility power at its maximum."""
    life_building: float | None = Field(default=None, gt=0, le=60, examples=[20])
    """Depreciation life of a built data centre and its grid connection [years]."""
    staff_fte: float | None = Field(default=None, ge=0, le=1e5, examples=[12])
    """Operations staff [full-time equivalents] (default 0: give your own)."""
    staff_cost: MoneyPerYear | None = Field(default=None, examples=["150000 USD/yr"])
    """Cost per staff FTE-year."""
    licence_gpu: MoneyPerYear | None = Field(default=None, examples=["4500 USD/yr"])
    """Software licences per GPU per year (NVIDIA AI Enterprise lists at 4,500 USD; default 0)."""
    licence_node: MoneyPerYear | None = Field(default=None, examples=["500 USD/yr"])
    """Software licences per GPU node per year (UFM, Base Command Manager, OS; default 0)."""
    insurance: float | None = Field(default=None, ge=0, le=1, examples=[0.005])
    """Insurance per year as a fraction of capex (default 0)."""
    property_tax: float | None = Field(default=None, ge=0, le=1, examples=[0.01])
    """Property tax per year as a fraction of capex (default 0)."""
    install_racks_per_day: float | None = Field(default=None, gt=0, le=10000, examples=[4])
    """Racks a site's crews install, cable and test per day (sets the in-service dates)."""
    burn_in_days: float | None = Field(default=None, ge=0, le=365, examples=[3])
    """Days of burn-in and acceptance testing after a site's installation, before it is in service
    (default 7: the 168-hour campaign of the strictest acceptance standards)."""
    ramp_months: float | None = Field(default=None, ge=0, le=360, examples=[6])
    """Deployment ramp: months from the first rack in service to the last (default 0); the GPUs earn
    from the day they are in service."""


class Phase(Model):
    """One step of the build-out: its size and the day it is in service."""

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$", examples=["day1"])
    """Names the phase in the outputs and in `bom cables --phase NAME`."""
    gpus: int | None = Field(default=None, ge=1, examples=[1024])
    """The cluster's size once this phase is in service, in GPUs (as the scenario's ``gpus``)."""
    nodes: int | None = Field(default=None, ge=1, examples=[128])
    """Or in nodes (as the scenario's ``nodes``)."""
    date: Day = Field(examples=["2027-03-01"])
    """The day the phase's GPUs are to be in service (and start earning). A day before its parts can
    arrive, be installed and burnt in is a warning naming the day it can be (an error with
    ``bom build --strict-dates``), and the phase earns from that day."""
    order_date: Day | None = Field(default=None, examples=["2026-10-01"])
    """The day this phase's order is placed (default: the scenario's ``order_date``)."""
    sites: int | None = Field(default=None, ge=1, le=64, examples=[1])
    """Sites in service once this phase is (the first ones of ``sites``); default: all of them."""

    @model_validator(mode="after")
    def _one_size(self) -> Phase:
        if (self.gpus is None) == (self.nodes is None):
            raise ValueError("a phase gives its size as gpus or as nodes, one of them")
        return self


class SparesRule(Model):
    """Spares of every part of one category: the largest of the rules given (0 = none). With ``afr``,
    ``resupply`` and ``service_level`` (all three), the spares by failure rate: per site, the fewest
    that cover the failures during one resupply time with that probability (Poisson)."""

    fraction: float = Field(default=0.0, ge=0, le=1, examples=[0.02])
    """Of the installed quantity, rounded up."""
    min: int = Field(default=0, ge=0, examples=[2])
    """At least this many per part number."""
    per_site: int = Field(default=0, ge=0, examples=[1])
    """Or this many per part number and site."""
    afr: float | None = Field(default=None, gt=0, le=10, examples=[0.02])
    """Annual failure rate per installed unit (0.02 = 2 % a year), from the vendor or your fleet."""
    resupply: Duration | None = Field(default=None, examples=["30 d"])
    """Days until a failed unit's replacement arrives (RMA or reorder)."""
    service_level: float | None = Field(default=None, gt=0, lt=1, examples=[0.99])
    """Probability that a site's failures during one resupply time do not outnumber its spares."""

    @model_validator(mode="after")
    def _failure_rate_whole(self) -> SparesRule:
        given = [k for k in ("afr", "resupply", "service_level") if getattr(self, k) is not None]
        if given and len(given) != 3:
            raise ValueError("spares by failure rate need afr, resupply and service_level together "
                             f"(this rule gives {', '.join(given)})")
        if self.resupply is not None and not self.resupply.to("day").magnitude > 0:
            raise ValueError("resupply is a time greater than zero, such as \"30 d\"")
        return self

    @property
    def by_failure_rate(self) -> bool:
        return self.afr is not None


#: faults' times when a key is left out: planning estimates, not published figures (their docstrings say so).
FAULTS_DEFAULTS = {"checkpoint_write": "60 s", "restart": "10 min", "repair": "4 h"}


class Faults(Model):
    """The job's checkpoints, restarts and repairs, for its goodput (`bom faults`; bom/faults/goodput.py). The
    defaults are planning estimates, not published figures: give your own."""

    checkpoint_write: Duration | None = Field(default=None, examples=["30 s"])
    """Time the job stops to write one checkpoint (delta in Young's model); default 60 s."""
    checkpoint_interval: Duration | Literal["auto"] = Field(default="auto", examples=["30 min"])
    """Time between checkpoints; auto: Young's optimum, sqrt(2 x checkpoint_write x the mean time between
    interruptions)."""
    restart: Duration | None = Field(default=None, examples=["5 min"])
    """From an interruption to training again: detection, rescheduling and loading the last checkpoint;
    default 10 min."""
    repair: Duration | None = Field(default=None, examples=["24 h"])
    """Until failed hardware is replaced: the job runs without the failed node's replicas (or a spine's links)
    until then, unless a hot spare takes its place; default 4 h."""
    spare_service_level: float = Field(default=0.99, gt=0, lt=1, examples=[0.999])
    """Hot spares: the probability that the failures during one repair time do not outnumber them (Poisson)."""

    def seconds(self, key: str) -> float:
        """A time key in seconds, its default where left out (checkpoint_interval auto: 0)."""
        value = getattr(self, key)
        if value == "auto":
            return 0.0
        if value is None:
            return float(parse_quantity(FAULTS_DEFAULTS[key], "time").to("s").magnitude)
        return float(value.to("s").magnitude)


class Uncertainty(Model):
    """The P10 / P50 / P90 range's Monte Carlo (bom/costing/uncertainty.py: the spreads and their sources)."""

    draws: int = Field(default=2000, ge=100, le=1_000_000, examples=[10000])
    """Draws of the prices, exchange rates, utilisation and lead times."""
    seed: int = Field(default=1, ge=0, examples=[2027])
    """The random seed: the same seed gives the same figures."""


CurrencyCode = Annotated[str, Field(pattern=r"^[A-Z]{3}$")]
#: The columns a price file is read as (bom/catalog/prices.py reads them; docs/scenarios.md "Price files").
PriceColumn = Literal["sku", "price", "price_usd", "currency", "price_source", "quoted_on", "as_of", "valid_until",
                      "quote_ref", "vendor", "lead_time", "list_price", "discount", "moq", "pack"]


class Prices(Model):
    """Price files (quotes) and how their headers read."""

    files: list[str] = Field(default=[], examples=[["quote-2027-01.csv"]])
    """Price CSV files, relative to this file (see "Price files")."""
    columns: dict[Annotated[str, Field(min_length=1, max_length=100)], PriceColumn] = Field(
        default={}, max_length=64, examples=[{"Vendor SKU": "sku", "Our Price": "price", "Ship Days": "lead_time"}])
    """A vendor header (any case, spaces and punctuation as written) and the column it is read as; for a
    header the usual vendor names (Part Number, Unit Price, Net Price, Qty, Mfr Part #) do not cover.
    Each mapping is listed in the build's warnings."""

    @model_validator(mode="after")
    def _one_column_each(self) -> Prices:
        taken = [v for v in self.columns.values()]
        twice = sorted({v for v in taken if taken.count(v) > 1})
        if twice:
            raise ValueError(f"columns maps two headers to {', '.join(twice)}; a column is read from one header")
        return self


def _price_files(value: Any) -> Any:
    """``prices: [a.csv]``, the list of files alone, as ``prices: {files: [a.csv]}``."""
    return {"files": value} if isinstance(value, list) else value


class Scenario(Model):
    """What to build, on what, where, and how to cost it. Give exactly one of ``nodes``, ``gpus``
    or ``workload``."""

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$", examples=["gb300-two-sites"])
    """Names the outputs (reports/<name>/<name>.xlsx, ...): letters, digits, dot, dash, underscore."""
    description: str | None = Field(default=None, examples=["64 GB300 NVL72 racks in two buildings"])
    """One line for the report's heading."""
    platform: str | None = Field(default=None, examples=["gb300-nvl72"])
    """The system, a catalog id (`bom catalog list --kind platforms`); `bom build` needs one."""
    nodes: int | None = Field(default=None, ge=1, examples=[32])
    """Size the cluster in nodes (rounded up to whole rack systems)."""
    gpus: int | None = Field(default=None, ge=1, examples=[4608])
    """Size the cluster in GPUs (rounded up to whole nodes and rack systems)."""
    workload: Workload | None = None
    """Size the cluster from a job (see the workload keys)."""
    fabrics: dict[Literal["compute", "storage", "inband", "oob"], FabricSpec] = Field(
        default={}, examples=[{"compute": {"switch": "q3400"}, "oob": {}}])
    """The scale-out fabrics to build, by name; default: compute alone."""
    sites: Sites | None = None
    """More than one building (scale-across); default: one site."""
    storage: Storage | None = None
    """Storage appliances on the storage fabric (a count, or capacity and throughput); default with a
    storage fabric: the platform RA's appliance, as many as the RA's read guideline needs for the
    cluster's GPUs (40 GB/s per 256-GPU SU, RA-11333-001 Table 6), with a warning saying so."""
    management: Management | None = None
    """Management and head nodes, UFM appliances (platform RA defaults)."""
    racks: Racks = Racks()
    """Rack budgets (U and power) and kinds; default: the platform's rack."""
    feeds: Feeds = Feeds()
    """The power distribution the racks' A and B feeds hang on (rows, UPS) and its ratings."""
    layout: Layout = Layout()
    """The floor plan."""
    tco: Tco = Tco()
    """Cost assumptions."""
    catalogs: list[str] = Field(default=[], examples=[["my-catalog"]])
    """Catalog overlay directories, relative to this file (see "Catalog overlays")."""
    prices: Annotated[Prices, BeforeValidator(_price_files)] = Field(
        default=Prices(), examples=[{"files": ["quote.csv"], "columns": {"Our Price": "price"}}])
    """Price files and how their headers read: `{files: [...], columns: {...}}`, or the list of files alone
    (`[prices.csv]`)."""
    date: Day | None = Field(default=None, examples=["2026-12-01"])
    """The day the BOM is priced for: quotes past valid_until are flagged against it (default today),
    and the workbook's document date (default: the newest catalog as_of)."""
    faults: Faults = Faults()
    """Checkpoints, restarts and repairs: the job's goodput under failures (`bom faults`)."""
    uncertainty: Uncertainty = Uncertainty()
    """The P10 / P50 / P90 range of capex, TCO, cost per GPU-hour and each site's in-service date (draws and
    seed)."""
    order_date: Day | None = Field(default=None, examples=["2027-01-15"])
    """The day the order is placed: each site's in-service date counts from it (the longest lead time of
    its parts, then its racks' installation and burn-in); default: the day the BOM is priced for (``date``)."""
    in_service: Day | None = Field(default=None, examples=["2027-12-01"])
    """The day the cluster is to be in service (a target): a day before a site's parts can arrive, be
    installed and burnt in is a warning naming the day it can be (an error with ``bom build
    --strict-dates``). With ``phases``, each phase's ``date`` is its target."""
    exchange_rates: dict[CurrencyCode, Annotated[float, Field(gt=0)]] = Field(default={}, examples=[{"EUR": 1.08}])
    """USD per unit of each currency a price file quotes in, e.g. {EUR: 1.08}; USD is 1."""
    spares: dict[str, SparesRule] | None = Field(default=None, examples=[{"transceiver": {"fraction": 0.02,
                                                                                            "min": 2}}])
    """Spares per BOM category (compute, switch, transceiver, ...); none given = the defaults in
    bom/costing/order.py; a category given here replaces its default."""
    phases: list[Phase] | None = Field(default=None, min_length=1, max_length=32, examples=[[
        {"name": "day1", "gpus": 1024, "date": "2027-03-01"}, {"name": "full", "gpus": 4096, "date": "2027-09-01"}]])
    """The build-out in phases, smallest first: each phase's size (``gpus`` or ``nodes``, as the scenario
    sizes itself) and in-service date. The last phase is the scenario's size (or gives it, when the
    scenario gives none). Each fabric's ``growth`` says how it grows."""
    platforms: list[str] | None = Field(default=None, examples=[["dgx-h100", "gb200-nvl72"]])
    """The platforms `bom compare` builds (columns run by year); default: every platform.
    `platform@switch` builds the platform with that compute switch, beside its own (`gb300-nvl72@q3450-ld`)."""

    @model_validator(mode="after")
    def _usd_is_one(self) -> Scenario:
        if self.exchange_rates.get("USD", 1.0) != 1.0:
            raise ValueError("exchange_rates are USD per unit of each currency, so USD is 1; leave it out")
        return self

    @property
    def fabric_specs(self) -> dict[str, FabricSpec]:
        """The scenario's fabrics keyed by their FabricRole (the field's keys are a Literal of strings, for
        its error message, which a FabricRole does not index for the type checker)."""
        return {FabricRole(k): v for k, v in self.fabrics.items()}

    @model_validator(mode="after")
    def _fabric_keys(self) -> Scenario:
        """Keys that only some fabrics take (the builders then never see them elsewhere)."""
        for name, spec in self.fabrics.items():
            given = spec.model_fields_set
            if name != FabricRole.OOB and spec.uplinks is not None:
                raise RuleError("uplinks is a key of the out-of-band fabric only", ("fabrics", name, "uplinks"),
                                hint="Drop it here; fabrics.oob.uplinks: spine gives OOB its own spine layer.",
                                fix={("fabrics", name, "uplinks"): None})
            if name != FabricRole.COMPUTE and spec.planes_by != "rate":
                raise RuleError("planes_by deals a node's NIC ports over the compute fabric's planes; the other "
                                "fabrics split a port's rate", ("fabrics", name, "planes_by"), hint="Drop it here.",
                                fix={("fabrics", name, "planes_by"): None})
            if spec.planes_by == "port" and spec.planes < 2:
                raise RuleError("planes_by: port deals each NIC's ports over the planes, and this fabric has one",
                                ("fabrics", name, "planes_by"),
                                hint="Add planes: 2 (a NIC's two ports on two planes), or drop planes_by.",
                                fix={("fabrics", name, "planes"): 2})
            if name not in (FabricRole.STORAGE, FabricRole.INBAND) and spec.mlag is not None:
                raise RuleError("mlag pairs the leaves of the storage and in-band fabrics only",
                                ("fabrics", name, "mlag"),
                                hint="Drop it here; the compute fabric's switch pair is topology: pair.",
                                fix={("fabrics", name, "mlag"): None})
            if name in (FabricRole.STORAGE, FabricRole.INBAND) and "rails_per_leaf" in given:
                raise RuleError(f"rails_per_leaf is a key of the compute fabric; the {name} fabric is rail-agnostic",
                                ("fabrics", name, "rails_per_leaf"), hint="Drop it here.",
                                fix={("fabrics", name, "rails_per_leaf"): None})
            if name in (FabricRole.STORAGE, FabricRole.INBAND) and "topology" in given \
                    and spec.topology in ("rail-optimized", "rail-only"):
                raise RuleError(f"the {name} fabric is rail-agnostic (its leaves take whole groups of nodes)",
                                ("fabrics", name, "topology"),
                                hint="Use topology: tor, and su_nodes for the nodes per leaf group.",
                                fix={("fabrics", name, "topology"): "tor"})
            for key in OOB_FIXED if name == FabricRole.OOB else ():
                if key in given:
                    raise RuleError(f"{key} does not apply to the out-of-band fabric: it cables the management port "
                               "of every managed device to the management switches the platform's RA places",
                                    ("fabrics", FabricRole.OOB, key),
                                    hint="Drop the key; use uplinks: spine for a separate OOB spine layer.",
                                    fix={("fabrics", FabricRole.OOB, key): None})
        return self

    @model_validator(mode="after")
    def _fabric_shapes(self) -> Scenario:
        """Shape keys that contradict each other (the planner then never sees them together): on the
        compute fabric, the keys a switch pair or rail leaves with no spine have no use for; on any
        fabric, a spine ratio with two layers. In the order the planner met them."""
        for name, spec in self.fabrics.items():
            at, layers = ("fabrics", name), None if spec.layers == "auto" else int(spec.layers)
            if name == FabricRole.COMPUTE:
                _compute_shape(spec, at, layers)
            if spec.spine_ratio is not None and spec.spine_ratio != 1 and layers == 2:
                raise RuleError("a spine ratio sets the spines' uplinks to a core layer; two layers have none",
                                (*at, "oversubscription", Layer.SPINE),
                                hint="Set layers: 3 (or auto), or drop oversubscription.spine.",
                                fix={(*at, "layers"): 3})
        return self

    @model_validator(mode="after")
    def _storage_sized(self) -> Scenario:
        """A storage block with no count, capacity or throughput is sized by the training job's checkpoints
        and dataset (bom/topology/endpoints.py ``job_capacity``): there must be one."""
        s, w = self.storage, self.workload
        if s is None or any(getattr(s, k) is not None for k in ("count", "capacity", "throughput")):
            return self
        if w is None or w.kind == "serve" or w.params is None or w.tokens is None:
            raise RuleError("the storage block gives no count, capacity or throughput, and there is no training job "
                            "(a workload with params and tokens) to size it from", ("storage", "count"),
                            hint="Add count: 8, or capacity: \"2 PB\" and/or throughput: \"400 GB/s\".",
                            fix={("storage", "count"): 8})
        return self

    @model_validator(mode="after")
    def _cooling_per_site(self) -> Scenario:
        """A list of halls' cooling names every site, no more and no fewer."""
        cooling, sites = self.layout.cooling, self.sites.count if self.sites is not None else 1
        if isinstance(cooling, list) and len(cooling) != sites:
            raise RuleError(f"layout.cooling lists {len(cooling)} halls for {sites} site(s)", ("layout", "cooling"),
                            hint=f"Give one word for every hall (cooling: {cooling[0]}), or one for each site.",
                            fix={("layout", "cooling"): cooling[0]})
        return self

    @model_validator(mode="after")
    def _dci_attach(self) -> Scenario:
        """The routers' client ports land on a fabric the scenario builds (its protocol is the
        catalog's, checked at build)."""
        attach = self.sites.attach if self.sites is not None else "auto"
        if attach in (FabricRole.INBAND, FabricRole.STORAGE) and attach not in self.fabrics:
            raise RuleError(f"attach: {attach} puts the DCI routers' client ports on border leaves of the {attach} "
                            f"fabric, which the scenario does not build", ("sites", "attach"),
                            hint=f"Use attach: auto (an Ethernet fabric that takes them, else border leaves of the "
                                 f"DCI's own), or add fabrics.{attach} (an Ethernet switch, such as "
                                 "{switch: sn5600}).", fix={("sites", "attach"): "auto"})
        return self

    @model_validator(mode="before")
    @classmethod
    def _size_from_phases(cls, data: Any) -> Any:
        """A scenario with phases and no size of its own is the last phase's size."""
        if not isinstance(data, dict) or any(k in data for k in ("nodes", "gpus", "workload")):
            return data
        phases = data.get("phases")
        last = phases[-1] if isinstance(phases, list) and phases and isinstance(phases[-1], dict) else {}
        size = {k: last[k] for k in ("gpus", "nodes") if k in last}
        return {**data, **size} if len(size) == 1 else data

    @model_validator(mode="after")
    def _phases_grow(self) -> Scenario:
        """Phases in order, each larger than the one before, sized as the scenario is, the last its size."""
        if not self.phases:
            return self
        unit = "gpus" if self.gpus is not None else "nodes" if self.nodes is not None else None
        if unit is None and self.workload is None:
            return self   # no size at all: _one_size says so
        if unit is None:
            last = self.phases[-1]
            unit, size = ("gpus", last.gpus) if last.gpus is not None else ("nodes", last.nodes)
            raise RuleError("phases give the cluster's size in gpus or nodes, and this scenario is sized by its "
                            "workload", ("phases",), hint=f"Give the scenario {unit}: {size} (the last phase's) "
                            "instead of a workload.", fix={("workload",): None, (unit,): size})
        sites = self.sites.count if self.sites is not None else 1
        seen: set[str] = set()
        for i, ph in enumerate(self.phases):
            if getattr(ph, unit) is None:
                raise RuleError(f"phase {ph.name} gives its size in {'nodes' if unit == 'gpus' else 'gpus'} and the "
                                f"scenario in {unit}", ("phases", i), hint=f"Give every phase {unit}: N.")
            if ph.name in seen:
                raise RuleError(f"two phases are named {ph.name}", ("phases", i, "name"),
                                hint=f"Give each phase a name of its own (this one {ph.name}-{i + 1}).",
                                fix={("phases", i, "name"): f"{ph.name}-{i + 1}"})
            seen.add(ph.name)
            if ph.sites is not None and ph.sites > sites:
                raise RuleError(f"phase {ph.name} has {ph.sites} sites in service and the scenario builds {sites}",
                                ("phases", i, "sites"), hint=f"Give at most {sites}, or more sites under sites:.",
                                fix={("phases", i, "sites"): sites})
            if i:
                before = self.phases[i - 1]
                if getattr(ph, unit) <= getattr(before, unit):
                    raise self._not_larger(i, unit)
                if ph.date < before.date:
                    raise RuleError(f"phase {ph.name} is in service on {ph.date}, before phase {before.name} "
                                    f"({before.date})", ("phases", i, "date"),
                                    hint=f"List the phases in date order (date: {before.date} or later here).",
                                    fix={("phases", i, "date"): str(before.date)})
                if (ph.sites or sites) < (before.sites or sites):
                    keep = before.sites or sites
                    raise RuleError(f"phase {ph.name} has fewer sites than phase {before.name}",
                                    ("phases", i, "sites"), hint=f"Give it sites: {keep} (a site once in service "
                                    "stays in service).", fix={("phases", i, "sites"): keep})
        last = self.phases[-1]
        if getattr(last, unit) != getattr(self, unit):
            raise RuleError(f"the last phase, {last.name}, has {getattr(last, unit)} {unit} and the scenario "
                            f"{getattr(self, unit)}", ("phases", len(self.phases) - 1, unit),
                            hint=f"The last phase is the final build: give it {unit}: {getattr(self, unit)}, "
                                 f"or leave the scenario's {unit} out.",
                            fix={("phases", len(self.phases) - 1, unit): getattr(self, unit)})
        if last.sites is not None and last.sites != sites:
            raise RuleError(f"the last phase, {last.name}, has {last.sites} sites and the scenario {sites}",
                            ("phases", len(self.phases) - 1, "sites"), hint="Leave the last phase's sites out.",
                            fix={("phases", len(self.phases) - 1, "sites"): None})
        return self

    def _not_larger(self, i: int, unit: str) -> RuleError:
        """Phase ``i`` is not larger than the one before. Where the two sizes read the other way round fit
        (dates in order, each phase larger than the one before, the last the scenario's size), the fix
        swaps them: the likely slip is two sizes typed in each other's place."""
        phases = self.phases or []
        ph, before = phases[i], phases[i - 1]
        sizes = [getattr(p, unit) for p in phases]
        swapped = [*sizes[:i - 1], sizes[i], sizes[i - 1], *sizes[i + 1:]]
        fits = (sizes[i] < sizes[i - 1] and ph.date >= before.date and swapped[-1] == getattr(self, unit)
                and all(a < b for a, b in itertools.pairwise(swapped)))
        message = (f"phase {ph.name} ({sizes[i]} {unit}) is not larger than phase {before.name} ({sizes[i - 1]} "
                   f"{unit})")
        if not fits:
            return RuleError(message, ("phases", i, unit),
                             hint="List the phases smallest first, each adding to the one before.")
        return RuleError(message, ("phases", i, unit),
                         hint=f"Swap the two sizes: phase {before.name} {unit}: {sizes[i]}, phase {ph.name} {unit}: "
                              f"{sizes[i - 1]} (each phase adds to the one before, in date order).",
                         fix={("phases", i - 1, unit): sizes[i], ("phases", i, unit): sizes[i - 1]})

    @model_validator(mode="after")
    def _one_size(self) -> Scenario:
        given = [k for k in ("nodes", "gpus", "workload") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of nodes, gpus or workload"
                             + (f" (this file gives {', '.join(given)})" if given else ""))
        return self

    @model_validator(mode="after")
    def _dci_auto_has_a_job(self) -> Scenario:
        """``dci_bandwidth: auto`` is worked out from a training job's data-parallel traffic."""
        auto = self.sites is not None and self.sites.dci_auto and self.sites.count > 1
        if auto and (self.workload is None or self.workload.kind == "serve" or not self.workload.has_shape):
            raise RuleError("dci_bandwidth: auto sizes the DCI from a training job's data-parallel traffic, and "
                            "this scenario gives no training workload with its shape (params, layers, hidden, "
                            "heads, sequence, batch_tokens)", ("sites", "dci_bandwidth"),
                            hint='Give dci_bandwidth: "25.6 Tbit/s", or add those workload keys.',
                            fix={("sites", "dci_bandwidth"): "25.6 Tbit/s"})
        return self


def _compute_shape(spec: FabricSpec, at: tuple[str, ...], layers: int | None) -> None:
    """The compute fabric's topology against its su_nodes, min_spines, rails_per_leaf and layers."""
    topology = spec.topology
    if topology == "pair" and spec.su_nodes is not None:
        raise RuleError("su_nodes has no meaning for a switch pair (two switches take every node)", (*at, "su_nodes"),
                        hint="Drop su_nodes, or use topology: rail-optimized for scalable units.",
                        fix={(*at, "su_nodes"): None})
    if topology == "rail-only" and spec.su_nodes is not None:
        raise RuleError("su_nodes has no meaning for a rail-only fabric (a rail's leaf takes every node)",
                        (*at, "su_nodes"),
                        hint="Drop su_nodes, or use topology: rail-optimized for scalable units and spines.",
                        fix={(*at, "su_nodes"): None})
    if spec.min_spines is not None and (topology in ("pair", "rail-only") or layers == 1):
        shape = f"topology {topology}" if topology in ("pair", "rail-only") else "layers: 1"
        raise RuleError(f"min_spines asks for a spine layer, and {shape} has none", (*at, "min_spines"),
                        hint="Drop min_spines, or use topology: rail-optimized (or tor) with layers: auto or 2.",
                        fix={(*at, "min_spines"): None})
    if topology == "pair" and layers not in (None, 1):
        raise RuleError("a switch pair has one layer (two switches joined by ISLs)", (*at, "layers"),
                        hint="Drop layers, or use topology: rail-optimized for leaves and spines.",
                        fix={(*at, "layers"): None})
    # A pair takes no rails_per_leaf either, but the planner never read it there: it is still let be.
    if topology == "tor" and spec.rails_per_leaf is not None:
        raise RuleError(f"rails_per_leaf has no meaning for topology {topology} (its leaves take whole nodes or "
                        "racks, not rails)", (*at, "rails_per_leaf"),
                        hint="Drop rails_per_leaf, or use topology: rail-optimized or rail-only.",
                        fix={(*at, "rails_per_leaf"): None})
    if topology == "rail-only" and layers not in (None, 1):
        raise RuleError(f"a rail-only fabric has one layer (rail leaves, no spine); layers is {layers}",
                        (*at, "layers"), hint="Drop layers, or use topology: rail-optimized for leaves and spines.",
                        fix={(*at, "layers"): None})


def parse_scenario(src: Located) -> Scenario:
    if not isinstance(src.data, dict):
        raise ScenarioError("a scenario is a YAML mapping of keys such as name, platform, "
                            "nodes, workload", where=src.where(()))
    scenario = validate(Scenario, src.data, src)
    assert isinstance(scenario, Scenario)
    return scenario


def load_scenario(path: Path | None) -> tuple[Scenario, Located]:
    """The scenario at ``path`` (or the built-in default) and where each of its keys stands."""
    if path is None:
        path = data_dir("scenarios") / "default.yaml"
    src = load_file(path, "scenario file")
    return parse_scenario(src), src


def scenario_from_text(text: str, file: str = "<scenario>") -> Scenario:
    return parse_scenario(load_text(text, file))
