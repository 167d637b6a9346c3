"""Each site's power, and how many buildings of a given power the cluster needs.

A site's IT power at maximum = its GPU systems at their maximum + its share of the rest of the IT
gear (switches, optics, servers, storage: in proportion to its nodes) + an even share of the gear
between sites (DCI); its facility power = IT x PUE + its CDUs' pumps (bom/costing/cooling.py).
The sizing takes the maximum draw, as the facility's power capacity does (bom/costing/tco.py).

``sites.power`` with no ``count``: the fewest buildings, taken in the order given, whose power
holds the facility; the cluster is shared over them in proportion to their power, so each is
filled to the same share (bom/pipeline.py iterates, as more sites bring more DCI gear).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from typing_extensions import TypedDict

from bom.costing.categories import Category
from bom.costing.cooling import Cooling
from bom.costing.lines import Line
from bom.inputs.scenario import Scenario
from bom.model.model import Model
from bom.model.records import Count
from bom.roles import FabricRole
from bom.units import magnitude

#: What set the number of sites: power (sites.power), count (the scenario's) or one site.
DecidedBy = Literal["power", "count", "one site"]

#: At most this many buildings (sites.count's bound).
MAX_SITES = 64


def site_limits_kw(scenario: Scenario) -> list[float]:
    """Each building's power [kW] in order (one figure for all: repeated up to the most sites)."""
    assert scenario.sites is not None and scenario.sites.power is not None
    power = scenario.sites.power
    if isinstance(power, list):
        return [magnitude(p, "power") / 1000.0 for p in power]
    return [magnitude(power, "power") / 1000.0] * MAX_SITES


class SitePowerJson(TypedDict):
    site: Count
    it_power_max_kw: float
    facility_power_max_kw: float
    limit_kw: float | None
    fits: bool | None


class SitesPowerJson(TypedDict):
    """Each site's IT power at maximum (its nodes' share of the IT gear, an even share of the DCI gear) and
    facility power (IT x PUE + its CDUs), against the building's power (sites.power); decided_by: power
    when sites.power set the number of sites (bom/costing/sitepower.py)."""

    decided_by: DecidedBy
    rounds: Count
    pue: float
    facility_power_max_kw: float
    sites: list[SitePowerJson]


@dataclass(frozen=True)
class SitePower:
    site: int
    it_kw: float            # IT power at maximum
    facility_kw: float      # IT x PUE + the site's CDUs
    limit_kw: float | None  # the building's power (sites.power), None: not given

    @property
    def fits(self) -> bool | None:
        return None if self.limit_kw is None else self.facility_kw <= self.limit_kw * (1 + 1e-9)

    def to_json(self) -> SitePowerJson:
        return {"site": self.site, "it_power_max_kw": round(self.it_kw, 3),
                "facility_power_max_kw": round(self.facility_kw, 3),
                "limit_kw": None if self.limit_kw is None else round(self.limit_kw, 3), "fits": self.fits}


@dataclass(frozen=True)
class SitesPower:
    sites: tuple[SitePower, ...]
    decided_by: DecidedBy
    rounds: int = 0          # builds the fixed point took (sites from power)
    pue: float = 0.0

    @property
    def facility_kw(self) -> float:
        return sum(s.facility_kw for s in self.sites)

    def to_json(self) -> SitesPowerJson:
        return {"decided_by": self.decided_by, "rounds": self.rounds, "pue": self.pue,
                "facility_power_max_kw": round(self.facility_kw, 3), "sites": [s.to_json() for s in self.sites]}

    def summary(self) -> str:
        """The terminal line: "power at maximum: 3 sites at 100 MW (decided by power): site 1 IT 62.1 MW, ..."."""
        limits = [s.limit_kw for s in self.sites if s.limit_kw is not None]
        at = ""
        if len(limits) == len(self.sites):
            at = f" at {_mw(limits[0])}" if len(set(limits)) == 1 else " at " + " / ".join(_mw(x) for x in limits)
        each = "; ".join(f"site {s.site} IT {_mw(s.it_kw)}, facility {_mw(s.facility_kw)}" for s in self.sites)
        n = len(self.sites)
        return f"power at maximum: {n} site{'s' * (n != 1)}{at} (decided by {self.decided_by}): {each}"


def _mw(kw: float) -> str:
    return f"{kw / 1000:,.1f} MW"


def site_power(model: Model, lines: Sequence[Line], pue: float, cooling: Cooling | None,
               limits: Sequence[float] | None = None, decided_by: DecidedBy | None = None,
               rounds: int = 0) -> SitesPower:
    """Each site's IT and facility power at maximum (see the module docstring)."""
    nodes = model.cluster.nodes_by_site
    total_nodes = sum(nodes) or 1
    compute = between = rest = 0.0
    for x in lines:
        assert isinstance(x, Line)
        if x.category == Category.COOLING:
            continue
        if x.category == Category.COMPUTE:
            compute += x.power_max_w
        elif x.fabric == FabricRole.DCI:
            between += x.power_max_w
        else:
            rest += x.power_max_w
    cdus = {s.site: s.cdu_power_kw for s in cooling.sites} if isinstance(cooling, Cooling) else {}
    out = []
    for k, n in enumerate(nodes, start=1):
        it = ((compute + rest) * n / total_nodes + between / len(nodes)) / 1000.0
        limit = limits[k - 1] if limits else None
        out.append(SitePower(k, it, it * pue + cdus.get(k, 0.0), limit))
    return SitesPower(tuple(out), decided_by or ("one site" if len(nodes) == 1 else "count"), rounds, pue)


def buildings_needed(facility_kw: float, limits: Sequence[float]) -> int | None:
    """The fewest buildings, in the order given, whose power holds ``facility_kw`` (None: all of them do not).

    >>> buildings_needed(230_000, [100_000] * 64), buildings_needed(230_000, [150_000, 50_000, 100_000])
    (3, 3)
    >>> buildings_needed(230_000, [100_000, 100_000]) is None
    True
    """
    held = 0.0
    for n, kw in enumerate(limits, start=1):
        held += kw
        if held >= facility_kw * (1 - 1e-9):
            return n
    return None
