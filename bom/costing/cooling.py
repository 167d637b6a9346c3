"""Cooling of liquid-cooled racks: coolant distribution units, facility water, heat left to air.

A platform whose racks are cooled by liquid (its catalog row's ``cooling: liquid``) needs coolant
distribution units (CDUs) between the racks' loop and the facility water. Per site (hall):

- heat to liquid [W] = the site's GPU nodes at their maximum power x the liquid share;
- CDUs = ceil(heat to liquid / one CDU's cooling capacity) + 1 (N+1: one unit can be serviced);
- the CDU: of the catalog's CDU rows, the one whose N+1 units over every site cost least (a one-rack
  build takes two in-rack units, not two 2.3 MW row units; a hall the large ones), fewer units on a tie;
- facility water flow [L/min] = heat / (rho x c_p x dT) x 1000 L/m^3 x 60 s/min;
- heat to air [W] = the rest of the nodes' heat (fans, power shelves), for the hall's air cooling.

The CDUs' pump power is facility power, not IT power: the TCO adds it to IT power x PUE.
An air-cooled platform gets no plan (None) and the BOM lists no CDUs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from typing_extensions import TypedDict

from bom.catalog.rows import Catalog, Endpoint
from bom.model.model import Model
from bom.model.records import Count
from bom.units import magnitude

#: Water at 25 C: 997 kg/m^3 and 4,186 J/(kg K) (CRC Handbook of Chemistry and Physics, properties of water).
WATER_DENSITY = 997.0
WATER_CP = 4186.0
#: The facility loop's temperature rise across the CDUs [K].
LOOP_DT_K = 10.0
LOOP_DT_SOURCE = ("estimate: CDU sizing guides give 1.5-2 L/min of water per kW of heat for AI racks "
                  "(soeteck.com, 'Why your next CDU for data center will make or break AI performance'), "
                  "a rise of 7-9.6 K; 10 K is the round figure at the low-flow end")
#: The share of a liquid-cooled node's heat that its cold plates take (the rest goes to air).
LIQUID_SHARE = 0.85
LIQUID_SHARE_SOURCE = ("unconfirmed estimate: GB200/GB300 NVL72 racks are liquid-cooled across GPUs, CPUs, "
                       "switches and power hardware 'with airflow handling the rest' (Lenovo GB300 datasheet, as "
                       "quoted by thedailyscout.com); no published share was found, 85 % is an assumption")


def water_flow_l_min(heat_w: float, dt_k: float = LOOP_DT_K) -> float:
    """Facility water flow [L/min] = heat / (rho x c_p x dT) in m^3/s, x 1000 x 60.

    >>> round(water_flow_l_min(1_000_000), 1)
    1437.7
    """
    return heat_w / (WATER_DENSITY * WATER_CP * dt_k) * 1000.0 * 60.0


def cdus_n_plus_1(heat_w: float, capacity_w: float) -> int:
    """CDUs for ``heat_w``: enough to carry it, plus one (N+1); none for no heat.

    >>> cdus_n_plus_1(4_000_000, 2_300_000), cdus_n_plus_1(0, 2_300_000)
    (3, 0)
    """
    return math.ceil(heat_w / capacity_w) + 1 if heat_w > 0 else 0


class SiteCoolingJson(TypedDict):
    site: Count
    liquid_heat_kw: float
    air_heat_kw: float
    cdus: Count
    cdu_power_kw: float
    facility_water_l_per_min: float


class CoolingJson(TypedDict):
    """The coolant distribution units of a liquid-cooled platform, N+1 per site; the facility water flow =
    heat / (rho c_p dT); the heat left to air (bom/costing/cooling.py)."""

    cdu: str
    cdu_capacity_kw: float
    cdu_capacity_source: str
    cdu_power_kw: float
    redundancy: str
    cdus: Count
    cdu_power_total_kw: float
    liquid_share: float
    liquid_share_source: str
    loop_dt_k: float
    loop_dt_source: str
    sites: list[SiteCoolingJson]


@dataclass(frozen=True)
class SiteCooling:
    site: int
    liquid_kw: float      # heat to the CDUs (and the facility water)
    air_kw: float         # heat left to the hall's air
    cdus: int
    cdu_power_kw: float
    water_l_min: float

    def to_json(self) -> SiteCoolingJson:
        return {"site": self.site, "liquid_heat_kw": round(self.liquid_kw, 3), "air_heat_kw": round(self.air_kw, 3),
                "cdus": self.cdus, "cdu_power_kw": round(self.cdu_power_kw, 3),
                "facility_water_l_per_min": round(self.water_l_min, 1)}


@dataclass(frozen=True)
class Cooling:
    cdu: Endpoint
    capacity_w: float
    unit_power_w: float
    sites: tuple[SiteCooling, ...]
    liquid_share: float = LIQUID_SHARE
    loop_dt_k: float = LOOP_DT_K

    @property
    def cdus(self) -> int:
        return sum(s.cdus for s in self.sites)

    @property
    def power_w(self) -> float:
        return self.cdus * self.unit_power_w

    def to_json(self) -> CoolingJson:
        return {"cdu": self.cdu.id, "cdu_capacity_kw": self.capacity_w / 1000.0,
                "cdu_capacity_source": self.cdu.source, "cdu_power_kw": self.unit_power_w / 1000.0,
                "redundancy": "N+1 per site", "cdus": self.cdus, "cdu_power_total_kw": round(self.power_w / 1000.0, 3),
                "liquid_share": self.liquid_share, "liquid_share_source": LIQUID_SHARE_SOURCE,
                "loop_dt_k": self.loop_dt_k, "loop_dt_source": LOOP_DT_SOURCE,
                "sites": [s.to_json() for s in self.sites]}


def cdu_row(catalog: Catalog, heats_w: Sequence[float] = ()) -> Endpoint | None:
    """The CDU the build takes for each site's heat to liquid (``heats_w``): the catalog's CDU row whose N+1
    units cost least over the sites, then the fewest units, then the row id (an overlay's row takes part
    like the others). With no heat given, the lowest price per kW moved."""
    rows = [r for r in catalog.rows["endpoints"].values() if isinstance(r, Endpoint) and r.role == "cdu"]
    if not rows:
        return None

    capacity = {r.id: _capacity_w(r) for r in rows}   # a unit conversion: once a row, not once a site

    def cost(r: Endpoint) -> tuple[float, int, str]:
        units = sum(cdus_n_plus_1(h, capacity[r.id]) for h in heats_w)
        return units * r.price_usd, units, r.id
    if not any(heats_w):
        return min(rows, key=lambda r: (r.price_usd / capacity[r.id], r.id))
    return min(rows, key=cost)


def _capacity_w(cdu: Endpoint) -> float:
    assert cdu.cooling_capacity is not None   # a CDU row has one (the Endpoint row's validator)
    return magnitude(cdu.cooling_capacity, "power")


def size_cooling(model: Model, catalog: Catalog) -> Cooling | None:
    """The CDUs, water and air heat of each site; None for an air-cooled platform (or a catalog with no CDU)."""
    p = model.platform
    if p.cooling != "liquid":
        return None
    heats = [nodes * p.node_power_w for nodes in model.cluster.nodes_by_site]
    row = cdu_row(catalog, [h * LIQUID_SHARE for h in heats])
    if row is None:
        return None
    capacity = _capacity_w(row)
    unit = magnitude(row.power, "power")
    sites = []
    for k, heat in enumerate(heats, start=1):
        liquid = heat * LIQUID_SHARE
        n = cdus_n_plus_1(liquid, capacity)
        sites.append(SiteCooling(k, liquid / 1000.0, (heat - liquid) / 1000.0, n, n * unit / 1000.0,
                                 water_flow_l_min(liquid)))
    return Cooling(row, capacity, unit, tuple(sites))
