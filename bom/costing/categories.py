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


class Category(StrEnum):
    COMPUTE = "compute"
    STORAGE = "storage"
    SERVER = "server"
    RACK = "rack"
    PDU = "PDU"
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


@dataclass(frozen=True)
class Meaning:
    label: str          # what the outputs print (the enum's value)
    asset_class: str    # the TCO's: gpu | network | facility (depreciation life_<class>, support_<class>)
    group: str          # compute | site | network: which totals count it (network capex and power: network)
    tier: str           # the tier its lines stand in: a tier name, or "fabric" (the tier of the fabric's line)
    optics: bool = False   # counted in the "optics" price sensitivity and optics power
    copper: bool = False   # counted in the copper share of a fabric
    switch: bool = False   # counted in switches per GPU


C = Category
#: The table. Its order is the order the outputs list categories in.
TABLE: dict[Category, Meaning] = {
    C.COMPUTE: Meaning(C.COMPUTE, "gpu", "compute", "compute"),
    C.STORAGE: Meaning(C.STORAGE, "gpu", "site", "facility"),
    C.SERVER: Meaning(C.SERVER, "gpu", "site", "facility"),
    C.RACK: Meaning(C.RACK, "facility", "site", "facility"),
    C.PDU: Meaning(C.PDU, "facility", "site", "facility"),
    # Coolant distribution units: facility plant, their power is the facility's, not IT's (bom/costing/cooling.py).
    C.COOLING: Meaning(C.COOLING, "facility", "site", "facility"),
    C.SWITCH: Meaning(C.SWITCH, "network", "network", "fabric", switch=True),
    C.LASER_SOURCE: Meaning(C.LASER_SOURCE, "network", "network", "fabric", optics=True),
    C.TRANSCEIVER: Meaning(C.TRANSCEIVER, "network", "network", "fabric", optics=True),
    C.COPPER_CABLE: Meaning(C.COPPER_CABLE, "network", "network", "fabric", copper=True),
    C.AOC: Meaning(C.AOC, "network", "network", "fabric", optics=True),
    C.FIBRE_BREAKOUT: Meaning(C.FIBRE_BREAKOUT, "network", "network", "fabric"),
    C.FIBRE_TRUNK: Meaning(C.FIBRE_TRUNK, "network", "network", "fabric"),
    C.PATCH_CORD: Meaning(C.PATCH_CORD, "network", "network", "fabric"),
    C.PATCH_PANEL: Meaning(C.PATCH_PANEL, "network", "network", "fabric"),
    C.COHERENT_OPTIC: Meaning(C.COHERENT_OPTIC, "network", "network", "scale-across", optics=True),
    C.DWDM: Meaning(C.DWDM, "network", "network", "scale-across"),
    C.DCI_SWITCH: Meaning(C.DCI_SWITCH, "network", "network", "scale-across", switch=True),
    C.DARK_FIBRE: Meaning(C.DARK_FIBRE, "network", "network", "scale-across"),
}
del C

CATEGORIES: tuple[Category, ...] = tuple(TABLE)
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
    m = TABLE.get(category)  # type: ignore[call-overload]
    return m.asset_class if m is not None else "network"


