"""The names the tool gives its fabrics, tiers and layers: one table of what each means.

Every enum is a ``str`` enum whose values are the strings the JSON, CSV, workbook, Markdown and
cable plan print, so the outputs keep their bytes; this module is the only place those strings
are written (``tests/test_roles.py``). A top-level module: the scenario and the catalog (below the
model) name fabrics and layers too.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Tier(StrEnum):
    """Where a link stands: inside a scale-up domain, inside a site, or between sites."""

    SCALE_UP = "scale-up"
    SCALE_OUT = "scale-out"
    SCALE_ACROSS = "scale-across"


@dataclass(frozen=True)
class TierMeaning:
    what: str


#: The tiers in the order the JSON lists them.
TIERS: dict[Tier, TierMeaning] = {
    Tier.SCALE_UP: TierMeaning("inside a scale-up domain: the GPUs' NVLink to its switch chips, a torus's ICI "
                               "and its optical circuit switches"),
    Tier.SCALE_OUT: TierMeaning("inside a site: the compute fabric between domains, and the storage, in-band "
                                "and out-of-band fabrics"),
    Tier.SCALE_ACROSS: TierMeaning("between sites: the DCI's wavelengths and its routers' client links"),
}


class FabricRole(StrEnum):
    """The fabrics a scenario names, and what each is for."""

    COMPUTE = "compute"   # the GPUs' scale-out back end
    STORAGE = "storage"   # the nodes' storage network
    INBAND = "inband"     # in-band management (front end)
    OOB = "oob"           # out-of-band management (BMC, switch management ports)
    DCI = "dci"           # between sites


@dataclass(frozen=True)
class RoleMeaning:
    tier: Tier
    topology: str | None   # the default topology (None: not a switched fabric of the scenario's)
    support: bool          # a support fabric (storage, in-band, OOB), counted apart from compute


ROLES: dict[FabricRole, RoleMeaning] = {
    FabricRole.COMPUTE: RoleMeaning(Tier.SCALE_OUT, "rail-optimized", False),
    FabricRole.STORAGE: RoleMeaning(Tier.SCALE_OUT, "tor", True),
    FabricRole.INBAND: RoleMeaning(Tier.SCALE_OUT, "tor", True),
    FabricRole.OOB: RoleMeaning(Tier.SCALE_OUT, "tor", True),
    FabricRole.DCI: RoleMeaning(Tier.SCALE_ACROSS, None, False),
}


SUPPORT: tuple[FabricRole, ...] = tuple(r for r, m in ROLES.items() if m.support)


DEFAULT_TOPOLOGY: dict[str, str] = {r: m.topology for r, m in ROLES.items() if m.topology is not None}


class FabricKind(StrEnum):
    """How a fabric is built and walked: each kind has one ordered registry of hop patterns
    (:data:`bom.links.registry.FAMILIES`), and the fabric types say their kind (no dispatch on types)."""

    SWITCHED = "switched"   # a switch fabric: the compute fabric's leaves, spines and cores
    POOLED = "pooled"       # storage and in-band: leaves sized by the ports they carry
    OOB = "oob"             # the management network over every managed device
    DCI = "dci"             # the routers' client links and the coherent line between sites
    SCALE_UP = "scale-up"   # inside every scale-up domain
    POWER = "power"         # the power cords from each rack's PDUs to every device's supplies (no link tier)


class Layer(StrEnum):
    """A layer of a fabric, or the role of a device at a link's end: what a link group's ``lower`` and
    ``upper`` name, and (a switch's layer prefixed with its fabric off compute: ``storage-leaf``,
    :func:`bom.names.switch_role`) the role the placement and the cable plan give each device."""

    NODE = "node"
    NVSWITCH = "nvswitch"
    OCS = "ocs"
    LEAF = "leaf"
    SPINE = "spine"
    CORE = "core"
    TOP = "top"
    INBAND = "inband"
    STORAGE = "storage"
    UFM = "ufm"
    MGMT = "mgmt"
    PDU = "pdu"
    OOB = "oob"
    ROUTER = "router"
    MUX = "mux"
    AMPLIFIER = "amplifier"
    NVLINK_SWITCH = "nvlink-switch"
    POWER_SHELF = "power-shelf"
    SUPPLY = "supply"


@dataclass(frozen=True)
class LayerMeaning:
    what: str
    switch: bool = False   # a switch layer of a fabric (leaf, spine, core)


L = Layer
#: The table; its order is the order layers are listed in.
LAYERS: dict[Layer, LayerMeaning] = {
    L.NODE: LayerMeaning("a GPU node (its NIC ports, or its GPUs on the scale-up links)"),
    L.NVSWITCH: LayerMeaning("a scale-up domain's switch chips (a GPU's NVLink end)"),
    L.OCS: LayerMeaning("a torus's optical circuit switch"),
    L.LEAF: LayerMeaning("a fabric's first switch layer: the nodes' and endpoints' ports land there", switch=True),
    L.SPINE: LayerMeaning("a fabric's second switch layer", switch=True),
    L.CORE: LayerMeaning("a three-layer fabric's third switch layer", switch=True),
    L.TOP: LayerMeaning("a fabric's top layer, whichever it is (leaf, spine or core), or a border leaf: where a "
                        "DCI router's client ports land"),
    L.INBAND: LayerMeaning("the in-band fabric's leaf a management switch uplinks into"),
    L.STORAGE: LayerMeaning("a storage appliance"),
    L.UFM: LayerMeaning("a fabric manager (UFM) server"),
    L.MGMT: LayerMeaning("a management or head server"),
    L.PDU: LayerMeaning("a rack's power distribution unit (its management port)"),
    L.OOB: LayerMeaning("a management switch (the lower end of its uplink)"),
    L.ROUTER: LayerMeaning("a DCI router"),
    L.MUX: LayerMeaning("a DCI mux/demux"),
    L.AMPLIFIER: LayerMeaning("a DCI line amplifier"),
    L.NVLINK_SWITCH: LayerMeaning("an NVLink switch tray of a rack-scale system"),
    L.POWER_SHELF: LayerMeaning("a rack-scale system's power shelf"),
    L.SUPPLY: LayerMeaning("a powered device at its power supply's inlet (a power cord's far end)"),
}
del L

#: The servers among the devices at a link's end: a management port of theirs (``mgmt``) is their
#: BMC's, a controller with a NIC of its own that the server's operating system never sees (its
#: lldpd lists the host's NICs, ibnetdiscover its HCAs), where a switch's management port is its
#: own operating system's (its lldpd runs there too).
SERVERS: frozenset[Layer] = frozenset({Layer.NODE, Layer.UFM, Layer.MGMT, Layer.STORAGE})

#: A fabric's switch layers, bottom up.
SWITCH_LAYERS: tuple[Layer, ...] = tuple(k for k, m in LAYERS.items() if m.switch)


class RackKind(StrEnum):
    """What a rack holds (the JSON's ``rack_counts``, in this order)."""

    COMPUTE = "compute"         # nodes (and, in a block, what stands with them)
    NETWORK = "network"         # switches
    MANAGEMENT = "management"   # fabric managers and management servers
    STORAGE = "storage"         # storage appliances


class Feed(StrEnum):
    """A rack's two power feeds: each PDU hangs on one, and a device's supplies are split over both."""

    A = "A"
    B = "B"


#: The feeds in the order a rack's PDUs take them (the first PDU feed A, the second B, ...).
FEEDS: tuple[Feed, ...] = (Feed.A, Feed.B)


class FaultElement(StrEnum):
    """An element class whose failure `bom faults` follows (bom/faults): what it cuts off, breaks and stalls."""

    GPU = "gpu"
    NODE = "node"
    SUPPLY = "device supply"
    PDU = "pdu"
    FEED = "feed"
    RACK = "rack"
    CDU = "cdu"
    LEAF = "leaf"
    SPINE = "spine"
    CORE = "core"
    PLANE = "plane"
    TRUNK = "trunk"
    ROUTER = "router"
    DCI_ROUTE = "dci route"
    AMPLIFIER = "amplifier"
    SITE = "site"


#: What each element class is, as the faults table says it.
FAULT_ELEMENTS: dict[FaultElement, str] = {
    FaultElement.GPU: "one accelerator",
    FaultElement.NODE: "a GPU node (its board, CPUs, memory, NICs, drives)",
    FaultElement.SUPPLY: "one power supply of a device fed from both sides",
    FaultElement.PDU: "one rack PDU (one side, A or B)",
    FaultElement.FEED: "one of a rack's two feeds (all the PDUs of one side)",
    FaultElement.RACK: "a whole rack (both feeds, or the rack itself)",
    FaultElement.CDU: "one coolant distribution unit (N+1 per site)",
    FaultElement.LEAF: "a compute fabric leaf",
    FaultElement.SPINE: "a compute fabric spine",
    FaultElement.CORE: "a compute fabric core switch",
    FaultElement.PLANE: "a whole plane of a multi-plane compute fabric",
    FaultElement.TRUNK: "the fibre trunk from a block's network rack to the spines (all its leaf uplinks)",
    FaultElement.ROUTER: "a DCI router",
    FaultElement.DCI_ROUTE: "the fibre route between two sites (every fibre pair on it)",
    FaultElement.AMPLIFIER: "an amplifier on a DCI route (its route goes dark)",
    FaultElement.SITE: "a whole site",
}
