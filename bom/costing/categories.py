"""BOM categories: one table of what each means (the fabric roles are :mod:`bom.roles`').

Every consumer (the lines, the TCO, the spares, the compare metrics, the workbooks, the report)
reads its sets from here; no category string is written anywhere else. Both enums are ``str``
enums whose values are the strings the JSON, CSV, workbook and Markdown print, so the outputs
keep their bytes.

Asset classes are the TCO's (:mod:`bom.costing.tco`): each depreciates over the TCO input
``life_<class>`` (GPU systems 5 years, network 6, facility 10 by default) and carries the
support rate ``support_<class>``. Storage appliances and management/UFM servers are IT capital
equipment bought and refreshed with the servers: class ``gpu``, the GPU systems' life. They are
not network, so the network totals leave them out (``group`` ``site``: bought for the cluster,
standing around the nodes, like the racks and PDUs).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bom.roles import Tier


class Category(StrEnum):
    COMPUTE = "compute"
    STORAGE = "storage"
    SERVER = "server"
    RACK = "rack"
    PDU = "PDU"
    POWER_CORD = "power cord"
    COOLING = "CDU"
    SWITCH = "switch"
    LASER_SOURCE = "laser source"
    TRANSCEIVER = "transceiver"
    COPPER_CABLE = "copper cable"
    AOC = "AOC"
    FIBRE_BREAKOUT = "fibre breakout"
    FIBRE_TRUNK = "fibre trunk"
    PATCH_CORD = "patch cord"
    PATCH_PANEL = "patch panel"
    COHERENT_OPTIC = "coherent optic"
    DWDM = "DWDM"
    DCI_SWITCH = "DCI switch"
    DARK_FIBRE = "dark fibre"


class LineTier(StrEnum):
    """Where a BOM line stands besides the link tiers (:class:`bom.roles.Tier`)."""

    COMPUTE = "compute"     # the GPU systems
    FACILITY = "facility"   # what stands around the nodes: racks, PDUs, storage, servers, cooling
    FABRIC = "fabric"       # (in the table only) the line takes its fabric's tier


@dataclass(frozen=True)
class Meaning:
    label: str          # what the outputs print (the enum's value)
    asset_class: str    # the TCO's: gpu | network | facility (depreciation life_<class>, support_<class>)
    group: str          # compute | site | network: which totals count it (network capex and power: network)
    tier: Tier | LineTier   # the tier its lines stand in (FABRIC: the tier of the fabric's line)
    optics: bool = False   # counted in the "optics" price sensitivity and optics power
    copper: bool = False   # counted in the copper share of a fabric
    switch: bool = False   # counted in switches per GPU


C, T = Category, LineTier
#: The table. Its order is the order the outputs list categories in.
TABLE: dict[Category, Meaning] = {
    C.COMPUTE: Meaning(C.COMPUTE, "gpu", "compute", T.COMPUTE),
    C.STORAGE: Meaning(C.STORAGE, "gpu", "site", T.FACILITY),
    C.SERVER: Meaning(C.SERVER, "gpu", "site", T.FACILITY),
    C.RACK: Meaning(C.RACK, "facility", "site", T.FACILITY),
    C.PDU: Meaning(C.PDU, "facility", "site", T.FACILITY),
    # A PDU outlet's cord to a device supply, a power shelf's whip (bom/links/power.py): the PDUs' class.
    C.POWER_CORD: Meaning(C.POWER_CORD, "facility", "site", T.FACILITY),
    # Coolant distribution units: facility plant, their power is the facility's, not IT's (bom/costing/cooling.py).
    C.COOLING: Meaning(C.COOLING, "facility", "site", T.FACILITY),
    C.SWITCH: Meaning(C.SWITCH, "network", "network", T.FABRIC, switch=True),
    C.LASER_SOURCE: Meaning(C.LASER_SOURCE, "network", "network", T.FABRIC, optics=True),
    C.TRANSCEIVER: Meaning(C.TRANSCEIVER, "network", "network", T.FABRIC, optics=True),
    C.COPPER_CABLE: Meaning(C.COPPER_CABLE, "network", "network", T.FABRIC, copper=True),
    C.AOC: Meaning(C.AOC, "network", "network", T.FABRIC, optics=True),
    C.FIBRE_BREAKOUT: Meaning(C.FIBRE_BREAKOUT, "network", "network", T.FABRIC),
    C.FIBRE_TRUNK: Meaning(C.FIBRE_TRUNK, "network", "network", T.FABRIC),
    C.PATCH_CORD: Meaning(C.PATCH_CORD, "network", "network", T.FABRIC),
    C.PATCH_PANEL: Meaning(C.PATCH_PANEL, "network", "network", T.FABRIC),
    C.COHERENT_OPTIC: Meaning(C.COHERENT_OPTIC, "network", "network", Tier.SCALE_ACROSS, optics=True),
    C.DWDM: Meaning(C.DWDM, "network", "network", Tier.SCALE_ACROSS),
    C.DCI_SWITCH: Meaning(C.DCI_SWITCH, "network", "network", Tier.SCALE_ACROSS, switch=True),
    C.DARK_FIBRE: Meaning(C.DARK_FIBRE, "network", "network", Tier.SCALE_ACROSS),
}
del C, T

CATEGORIES: tuple[Category, ...] = tuple(TABLE)
_BY_LABEL: dict[str, Meaning] = {c.value: m for c, m in TABLE.items()}   # any category string, ours or not
#: Not network: the GPU systems, then what stands around the nodes (storage, servers, racks, PDUs).
NOT_NETWORK: tuple[Category, ...] = tuple(c for c, m in TABLE.items() if m.group != "network")
NETWORK: tuple[Category, ...] = tuple(c for c, m in TABLE.items() if m.group == "network")
COPPER: tuple[Category, ...] = tuple(c for c, m in TABLE.items() if m.copper)
SWITCHES: tuple[Category, ...] = tuple(c for c, m in TABLE.items() if m.switch)
#: The optics of the sensitivity table's "optics price" and of the optics power (CPO lasers are optics too).
OPTICS: tuple[Category, ...] = (Category.TRANSCEIVER, Category.COHERENT_OPTIC, Category.AOC, Category.LASER_SOURCE)
assert set(OPTICS) == {c for c, m in TABLE.items() if m.optics}


def asset_class(category: str) -> str:
    """The asset class a BOM category depreciates with (a category another stage adds: network).

    >>> asset_class("compute"), asset_class("transceiver"), asset_class("rack"), asset_class("storage")
    ('gpu', 'network', 'facility', 'gpu')
    """
    m = _BY_LABEL.get(category)
    return m.asset_class if m is not None else "network"


