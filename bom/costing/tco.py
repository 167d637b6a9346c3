"""Total cost of ownership: small pure functions, each with its formula, and the named inputs.

Every assumption is an :class:`Input` with a default and where the default comes from; the
scenario's ``tco`` block overrides them and the workbook writes each to a named cell. The
workbook's TCO sheet computes the same figures with live formulas; :func:`compute_tco` is its
mirror and the tests hold the two to agree.

Conventions (those of AI-cloud TCO models such as SemiAnalysis' and Epoch AI's): capex is
charged per year by the capital recovery factor over each asset class's life at the cost of
capital; opex is energy (at the typical IT draw), support per asset class, space (colocation per
kW-month of the IT load at its maximum, the capacity a contract reserves, or per rack), leased dark
fibre, operations staff, software licences (per GPU and per node), insurance and property tax;
facility sizing (power and cooling capacity) takes the maximum IT draw; cost per GPU-hour =
(capital charge + opex) per year over the GPU-hours worked (utilisation, and the deployment ramp:
GPUs earn from the day they are in service). The marginal rate is energy and support alone over
the same hours. No residual value is credited at the end of the period; ``NOT_INCLUDED`` lists
what else the TCO leaves out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import Final

from typing_extensions import TypedDict

from bom.catalog.rows import MAX_PRICE_USD
from bom.costing.categories import Category
from bom.errors import BomError, ScenarioError
from bom.inputs.scenario import Tco as TcoSpec

HOURS_PER_YEAR = 8760.0
CLASSES = ("gpu", "network", "facility")
CLASS_LABELS = {"gpu": "GPU systems", "network": "Network", "facility": "Facility"}
#: Asset classes of the BOM categories: bom.costing.categories.TABLE.


@dataclass(frozen=True)
class Input:
    name: str          # the workbook's defined name (in_<name>)
    label: str
    value: float | str
    unit: str
    source: str


_DEFAULTS = (
    Input("years", "Analysis period", 5.0, "years",
          "estimate: the GPU systems' life (the TCO and NPV are taken over this many years)"),
    Input("electricity", "Electricity price", 0.08, "USD/kWh",
          "estimate: US industrial average, about 8 c/kWh (EIA Electric Power Monthly, 2024)"),
    Input("pue", "Power usage effectiveness", 1.25, "ratio",
          "estimate: liquid-cooled AI hall (Uptime Institute survey averages ~1.5 for all sites)"),
    Input("utilisation", "Utilisation", 0.8, "fraction", "estimate: share of hours the GPUs do paid work"),
    Input("discount_rate", "Cost of capital (discount rate)", 0.08, "fraction per year",
          "estimate: a data-centre operator's cost of capital; CBRE North America Data Center Trends "
          "H2 2018 puts stabilised data-centre cap rates at 5.5-7.5 %, GPU buyers borrow dearer"),
    Input("life_gpu", "Depreciation life: GPU systems", 5.0, "years",
          "Amazon 10-K 2022: servers 5 years; Meta 5, Microsoft and Alphabet 6 (10-K/10-Q 2022-23, "
          "collected at shaulkoral.com 'Useful life of servers and network assets')"),
    Input("life_network", "Depreciation life: network", 6.0, "years",
          "Amazon 10-K 2022: networking equipment 6 years (same collection)"),
    Input("life_facility", "Depreciation life: facility", 10.0, "years",
          "estimate: racks, power distribution and installation work outlive two GPU generations"),
    Input("support_gpu", "Support: GPU systems", 0.10, "fraction of capex per year",
          "estimate: one year of DGX support lists at ~20 % of the system price (supercluster.blog, "
          "'NVIDIA DGX H100 hardware', 2025); multi-year contracts cost less per year"),
    Input("support_network", "Support: network", 0.08, "fraction of capex per year",
          "estimate: switch and optics support contracts of 5-10 % of list price per year"),
    Input("support_facility", "Support: facility", 0.03, "fraction of capex per year",
          "estimate: maintenance of racks and power distribution"),
    Input("space_basis", "Space priced per", "kW", "kW or rack",
          "kW: colocation per kW-month of IT load, the convention of AI-cloud TCO models; rack: per rack-year"),
    Input("colocation", "Colocation per kW-month", 184.06, "USD/kW/month",
          "CBRE North America Data Center Trends H2 2024: average asking rate 184.06 USD per kW-month "
          "for 250-500 kW in primary markets; energy billed on top at the electricity price"),
    Input("facility", "Facility: lease or build", "lease", "lease or build",
          "lease: colocation per kW-month (or space per rack); build: construction capex per MW of critical IT "
          "load and the grid connection, charged over the building's life"),
    Input("build_capex", "Construction per MW of critical IT load", 11.7e6, "USD/MW",
          "Cushman & Wakefield, Data Center Development Cost Guide 2025: the cost to develop one MW of critical "
          "load across 19 US markets, 9.3 M USD (San Antonio) to 15 M USD (Reno), average 11.7 M USD; land, "
          "design and soft costs and owner-furnished equipment excluded"),
    Input("grid_connection", "Grid connection per MW of facility power", 0.0, "USD/MW",
          "0: no published figure per MW holds across utilities (a substation, lines and deposits depend on the "
          "site and the utility's tariff); give the utility's quote"),
    Input("life_building", "Depreciation life: building and grid connection", 20.0, "years",
          "estimate: a data centre's shell and power and cooling plant outlive several GPU generations; "
          "longer than the facility class's racks and PDUs"),
    Input("space", "Space per rack-year", 6000.0, "USD per rack per year",
          "estimate: colocation space per rack position, power billed separately (used when priced per rack)"),
    Input("dark_fibre", "Dark fibre lease", 1500.0, "USD per km per year",
          "estimate: metro dark-fibre pair lease; replace with the carrier's quote"),
    Input("install_link", "Installation per link", 20.0, "USD", "estimate: labour to run and test one link"),
    Input("install_rack", "Installation per rack", 2500.0, "USD", "estimate: rack, stack and power-on"),
    Input("install_racks_per_day", "Racks installed per day (per site)", 12.0, "racks per day",
          "estimate: xAI's Colossus, 100,000 H100 GPUs in racks of 64 (about 1,560 racks), was built in 122 days "
          "(xAI, 2024-09-02; NVIDIA, 2024-10-28): about 13 racks a day, the fast end of what is published"),
    Input("burn_in_days", "Burn-in and acceptance before service", 7.0, "days",
          "the 168-hour (7-day) burn-in campaign the strictest GPU-cluster acceptance standards demand, past the "
          "72-hour minimum that catches infant mortality (The Definitive Guide to AI Data Centers, ch. 13.8 'GPU "
          "Node Burn-In, Diagnostics & Stress Validation', aidatacenterguide.com, undated); counted after a site's "
          "installation and before its in-service date"),
    Input("hours", "Hours per year", HOURS_PER_YEAR, "h", "8,760 h = 365 d x 24 h"),
    Input("staff_fte", "Operations staff", 0.0, "FTE",
          "0: no published staffing ratio holds across operators (remote hands, a managed service or an own "
          "team); give the full-time equivalents the cluster needs"),
    Input("staff_cost", "Cost per staff FTE-year", 90520.0, "USD per FTE per year",
          "BLS Occupational Outlook Handbook, Network and Computer Systems Administrators: median pay "
          "90,520 USD per year (May 2022); wages only, add benefits and overhead for a loaded cost"),
    Input("licence_gpu", "Software licences per GPU-year", 0.0, "USD per GPU per year",
          "0: NVIDIA AI Enterprise lists at 4,500 USD per GPU per year (NVIDIA Q3 FY2024 earnings call; "
          "NVIDIA AI Enterprise licensing guide), but some systems bundle it and not every cluster runs it"),
    Input("licence_node", "Software licences per node-year", 0.0, "USD per node per year",
          "0: per-node subscriptions (UFM, Base Command Manager, an OS or scheduler) have no public list price; "
          "give the quote"),
    Input("insurance", "Insurance", 0.0, "fraction of capex per year",
          "0: property insurance on the equipment depends on the site and the policy; give the broker's rate"),
    Input("property_tax", "Property tax", 0.0, "fraction of capex per year",
          "0: personal-property tax on equipment depends on the jurisdiction, and many US states exempt "
          "data-centre equipment; give the local rate"),
    Input("ramp_months", "Deployment ramp", 0.0, "months",
          "0: months from the first rack in service to the last, the GPUs entering service evenly; they earn "
          "from the day they are in service, so the GPU-hours over the period lose half the ramp"),
)
#: What the TCO leaves out (listed on the TCO sheet and in the report).
NOT_INCLUDED = (
    "land, design and soft costs of a built facility (tco.facility: build prices construction per MW and the grid "
    "connection); with the default lease, colocation or space per rack stands in for the building",
    "network transit and internet (only leased dark fibre between sites is priced)",
    "storage capacity beyond the storage appliances in the BOM",
    "spares consumed after the first set in the BOM (support contracts cover replacements)",
    "financing fees, income taxes and any residual or resale value at the end of the period",
    "the software to train or serve (models, data, engineers): the job's cost is the cluster's time only",
)
DEFAULTS = {i.name: i for i in _DEFAULTS}
_UNITS = {"electricity": "USD/kWh", "dark_fibre": "USD/km/yr", "space": "USD/yr", "install_link": "USD",
          "install_rack": "USD", "colocation": "USD/kW/month", "staff_cost": "USD/yr",
          "build_capex": "USD/MW", "grid_connection": "USD/MW",
          "licence_gpu": "USD/yr", "licence_node": "USD/yr"}
#: The scenario's older single support rate sets every class's rate.
_SUPPORT_ALL = "support"


def _check_money(name: str, value: float) -> None:
    """A money figure in USD stays within the price cap once converted (1e40 USD/kWh is a typo, not
    a TCO of 1e46 USD)."""
    if not (math.isfinite(value) and 0 <= value <= MAX_PRICE_USD):
        raise BomError(f"{value:.3g} {_UNITS[name]} is past {MAX_PRICE_USD:.0e} USD: a typo in the number or "
                       "its unit?", key=f"tco.{name}", at=("tco", name),
                       hint=f"Give {name} in {_UNITS[name]}, for example {DEFAULTS[name].value:g} {_UNITS[name]}.",
                       fix={("tco", name): f"{DEFAULTS[name].value:g} {_UNITS[name]}"})


#: The PUE a hall of each cooling takes when the scenario gives none (``layout.cooling``).
PUE_BY_COOLING = {
    "liquid": DEFAULTS["pue"],
    "air": Input("pue", "Power usage effectiveness", 1.56, "ratio",
                 "Uptime Institute Global Data Center Survey 2024: average annual PUE 1.56 reported by operators "
                 "at their largest data centre (mostly air-cooled halls)"),
}


def inputs(spec: TcoSpec | None, cooling: str | Sequence[str] | None = None) -> dict[str, Input]:
    """The defaults, with every value the scenario's ``tco`` block sets (source: scenario); ``cooling``, the
    halls' (``layout.cooling``: a name or one per site), picks the default PUE when every hall is alike."""
    given = {name: getattr(spec, name, None) for name in DEFAULTS} if spec is not None else {}
    one_rate = getattr(spec, _SUPPORT_ALL, None)
    for c in CLASSES:   # the single support rate fills every class the scenario leaves out
        if given.get(f"support_{c}") is None:
            given[f"support_{c}"] = one_rate
    out = dict(DEFAULTS)
    halls = {cooling} if cooling is None or isinstance(cooling, str) else set(cooling)
    hall = halls.pop() if len(halls) == 1 else None
    if hall is not None and hall in PUE_BY_COOLING:
        out["pue"] = PUE_BY_COOLING[hall]
    for name, default in DEFAULTS.items():
        value = given.get(name)
        if value is None:
            continue
        if name in _UNITS:
            value = float(value.to(_UNITS[name]).magnitude)
            _check_money(name, value)
        elif not isinstance(value, str):
            value = float(value)
        out[name] = Input(name, default.label, value, default.unit, "scenario")
    ramp, years = float(out["ramp_months"].value), float(out["years"].value)
    if service_share(ramp, years) <= 0:
        raise ScenarioError(f"a deployment ramp of {ramp:g} months leaves no GPU-hours in {years:g} years "
                            f"(the GPUs enter service evenly over the ramp)", key="tco.ramp_months",
                            hint=f"Give a ramp under {24 * years:g} months (ramp_months: {12 * years:g}), or a longer "
                                 "tco.years.", fix={("tco", "ramp_months"): 12 * years})
    return out


# --- the cost maths ------------------------------------------------------------------

def capital_recovery_factor(rate: float, years: float) -> float:
    """CRF = r (1+r)^n / ((1+r)^n - 1): the yearly payment that repays 1 over n years at r (1/n at r = 0).

    >>> round(capital_recovery_factor(0.08, 5), 6)
    0.250456
    >>> capital_recovery_factor(0.0, 4)
    0.25
    """
    if rate == 0:
        return 1.0 / years
    g = (1 + rate) ** years
    return rate * g / (g - 1)


def present_value_factor(rate: float, years: float) -> float:
    """PVA = (1 - (1+r)^-n) / r: today's value of 1 a year for n years (n at r = 0).

    >>> round(present_value_factor(0.08, 5), 6)
    3.99271
    """
    return float(years) if rate == 0 else (1 - (1 + rate) ** -years) / rate


def installation(links: int, racks: int, per_link_usd: float, per_rack_usd: float) -> float:
    """Installation [USD] = links x install per link + racks x install per rack.

    >>> installation(100, 2, 20, 2500)
    7000
    """
    return links * per_link_usd + racks * per_rack_usd


def energy_per_year(it_kw: float, pue: float, usd_per_kwh: float, hours: float = HOURS_PER_YEAR) -> float:
    """Energy [USD/yr] = IT power x PUE x hours x price.

    >>> round(energy_per_year(100, 1.25, 0.08))
    87600
    """
    return it_kw * pue * hours * usd_per_kwh


def space_per_year(basis: str, it_kw: float, racks: int, usd_per_kw_month: float, usd_per_rack_year: float) -> float:
    """Space [USD/yr] = IT kW x colocation per kW-month x 12 ("kW"), or racks x rate ("rack").

    >>> space_per_year("kW", 100, 2, 150, 6000), space_per_year("rack", 100, 2, 150, 6000)
    (180000, 12000)
    """
    return it_kw * usd_per_kw_month * 12 if basis == "kW" else racks * usd_per_rack_year


def dark_fibre_per_year(km: float, usd_per_km_year: float) -> float:
    """Dark fibre [USD/yr] = route km of fibre pairs x lease per km-year.

    >>> dark_fibre_per_year(40, 1500)
    60000
    """
    return km * usd_per_km_year


def npv(capex_usd: float, opex_per_year: float, rate: float, years: float) -> float:
    """NPV of the costs [USD] = capex today + opex at each year's end, discounted at ``rate``.

    >>> round(npv(1e6, 1e5, 0.08, 5))
    1399271
    """
    return capex_usd + opex_per_year * present_value_factor(rate, years)


def worked_gpu_hours(gpus: int, hours: float, utilisation: float, in_service: float = 1.0) -> float:
    """GPU-hours worked per year = GPUs x hours x utilisation x share in service (the ramp).

    >>> worked_gpu_hours(10, 8760, 0.5, 0.95)
    41610.0
    """
    return gpus * hours * utilisation * in_service


def service_share(ramp_months: float, years: float) -> float:
    """Share of the period's GPU-hours the GPUs are in service = 1 - ramp / (2 x period): over an even
    ramp the GPUs are in service half the time on average.

    >>> service_share(6, 5), service_share(0, 5)
    (0.95, 1.0)
    """
    return 1.0 - ramp_months / (24.0 * years)


#: The one basis every cost per GPU-hour takes (the headline, the phases, the job's cost, the comparison,
#: the Monte Carlo), and the other one, shown beside it where a reader may hold it up to a quote.
BASIS_NAME: Final = "levelised"
GPU_HOUR_BASIS = ("levelised: the capital charge (capex x the capital recovery factor over each asset class's "
                  "life at the cost of capital) plus opex per year, over the GPU-hours worked per year; a build "
                  "bought in phases: the costs and GPU-hours of every phase from its date, each discounted at the "
                  "cost of capital to the first phase, one over the other")
OTHER_BASIS = ("undiscounted: the TCO (capex + opex x years) over the GPU-hours worked in the period; no cost of "
               "capital, so buying later looks cheaper than it is")


def in_period_factor(rate: float, start: float, years: float) -> float:
    """Today's value of 1 a year from year ``start`` to the period's end: (1+r)^-start x PVA(r, years - start).

    >>> round(in_period_factor(0.08, 0.0, 5), 6) == round(present_value_factor(0.08, 5), 6)
    True
    >>> in_period_factor(0.0, 2.0, 5)
    3.0
    """
    left = max(0.0, years - start)
    return (1 + rate) ** -start * present_value_factor(rate, left) if left else 0.0


def levelised(steps: Sequence[tuple[float, float, float]], rate: float, years: float) -> float:
    """Cost per GPU-hour on the levelised basis (``GPU_HOUR_BASIS``) of steps (start year, cost per year,
    GPU-hours per year), each from its start to the period's end: sum cost x F / sum hours x F, F the
    in-period factor. One step from year 0 is the annual cost over the annual GPU-hours.

    >>> levelised([(0.0, 100.0, 50.0)], 0.08, 5)
    2.0
    >>> round(levelised([(0.0, 100.0, 50.0), (1.0, 100.0, 50.0)], 0.0, 5), 6)
    2.0
    """
    cost = sum(c * in_period_factor(rate, t, years) for t, c, _ in steps)
    hours = sum(h * in_period_factor(rate, t, years) for t, _, h in steps)
    return share(cost, hours)


def share(part: float, whole: float) -> float:
    """part / whole, 0 for an empty whole.

    >>> share(1, 4)
    0.25
    """
    return part / whole if whole else 0.0


# --- the whole TCO -------------------------------------------------------------------

#: Which power figure each total takes (``compute_tco``: the energy cost from the typical draw,
#: facility sizing from the maximum), and what the two figures are for each kind of BOM line.
#: The JSON's ``power_basis`` and the report print it as it stands here.
POWER_BASIS: dict[str, dict[str, str]] = {
    "totals": {"it_power_kw": "typical", "network_power_kw": "typical", "facility_power_kw": "typical",
               "energy_per_year_usd": "typical", "it_power_max_kw": "maximum", "facility_power_max_kw": "maximum",
               "space_per_year": "maximum (when space is priced per kW)"},
    "lines": {
        Category.COMPUTE: "typical: the platform row's power_typical where published, else power_per_system; "
                   "maximum: power_per_system",
        "switch": "typical: the switch row's power_typical (without optics); maximum: power_max less the "
                  "optics it counts (cages x power_max_optics), where the row says what those are; "
                  "else power_typical for both; a rack's power budget takes the same maximum",
        "chassis part": "each part's own draw for both (line cards, fabric cards, supervisors, frame)",
        "optics": "a module's, cable end's or laser module's power (its maximum) for both",
        "other": "the row's one published figure for both (management servers, UFM, storage, PDUs)"},
}


@dataclass(frozen=True)
class Basis:
    """What the TCO is computed from: BOM totals and counts from the model."""

    capex_by_class: dict[str, float]   # hardware [USD] per asset class (installation not included)
    network_usd: float
    gpu_systems_usd: float             # the compute lines (the sensitivity's "GPU system price")
    optics_usd: float                  # transceivers, coherent optics, AOCs
    it_power_w: float
    network_power_w: float
    links: int
    racks: int
    gpus: int
    dark_fibre_km: float
    pflops_per_gpu: float              # dense FP8 [PFLOP/s] per GPU
    it_power_max_w: float | None = None   # the maximum IT draw (facility sizing); None: it_power_w
    nodes: int = 0                     # GPU nodes (software licences per node)
    cooling_power_w: float = 0.0       # CDU pumps (bom/costing/cooling.py): facility power, not IT


@dataclass(frozen=True)
class Tco:
    hardware_usd: float
    network_usd: float
    installation_usd: float
    capex_usd: float
    capex_gpu_usd: float
    capex_network_usd: float
    capex_facility_usd: float
    it_power_kw: float
    network_power_kw: float
    facility_power_kw: float
    energy_per_year: float
    support_per_year: float
    dark_fibre_per_year: float
    space_per_year: float
    staff_per_year: float
    licences_per_year: float
    insurance_tax_per_year: float
    opex_per_year: float
    depreciation_per_year: float
    capital_charge_per_year: float
    annual_cost_usd: float
    tco_usd: float
    npv_usd: float
    service_share: float               # of the period's GPU-hours, after the deployment ramp
    gpu_hours_per_year: float          # GPUs x hours x utilisation x service share
    usd_per_gpu_hour: float            # levelised (GPU_HOUR_BASIS)
    marginal_usd_per_gpu_hour: float   # energy and support only
    usd_per_pflop_hour: float
    network_capex_share: float
    network_power_share: float
    it_power_max_kw: float             # the IT load at its maximum: facility sizing and space per kW
    facility_power_max_kw: float       # it_power_max_kw x PUE + cooling: the facility's power capacity
    cooling_power_kw: float = 0.0      # the CDUs' pumps, on top of IT x PUE
    lease_per_year: float = 0.0        # the space a lease costs (tco.facility: lease takes it as space_per_year)
    building_capex_usd: float = 0.0    # construction per MW of critical IT load x the IT load at its maximum
    grid_connection_usd: float = 0.0   # grid connection per MW x the facility power at its maximum
    build_per_year: float = 0.0        # (building + grid connection) x CRF over life_building
    facility_built: bool = False       # tco.facility: build (the building's capex in capex, no space lease)
    undiscounted_usd_per_gpu_hour: float = 0.0   # OTHER_BASIS: the TCO over the period's GPU-hours

    def to_json(self) -> dict[str, float]:
        return {k: round(float(v), 6) for k, v in self.__dict__.items()}


def _values(ins: dict[str, Input]) -> dict[str, float | str]:
    return {k: i.value for k, i in ins.items()}


def compute_tco(b: Basis, ins: dict[str, Input]) -> Tco:
    """The whole TCO from BOM totals and the inputs; mirrors the workbook's TCO sheet."""
    v = _values(ins)
    f = {k: float(x) for k, x in v.items() if not isinstance(x, str)}
    hardware = sum(b.capex_by_class.values())
    install_links = b.links * f["install_link"]
    install_racks = b.racks * f["install_rack"]
    cap = {"gpu": b.capex_by_class.get("gpu", 0.0),
           "network": b.capex_by_class.get("network", 0.0) + install_links,
           "facility": b.capex_by_class.get("facility", 0.0) + install_racks}
    it_kw = b.it_power_w / 1000.0                       # typical: the energy cost
    peak_kw = (b.it_power_w if b.it_power_max_w is None else b.it_power_max_w) / 1000.0   # maximum: sizing
    cooling_kw = b.cooling_power_w / 1000.0
    facility_kw, facility_max_kw = it_kw * f["pue"] + cooling_kw, peak_kw * f["pue"] + cooling_kw
    r = f["discount_rate"]
    # Lease against build: both are worked out (the TCO sheet shows them side by side); the scenario's
    # tco.facility says which one the totals take.
    lease = space_per_year(str(v["space_basis"]), peak_kw, b.racks, f["colocation"], f["space"])
    building = peak_kw / 1000.0 * f["build_capex"]
    grid = facility_max_kw / 1000.0 * f["grid_connection"]
    build_year = (building + grid) * capital_recovery_factor(r, f["life_building"])
    built = v["facility"] == "build"
    owned = building + grid if built else 0.0
    capex = hardware + install_links + install_racks + owned
    energy = facility_kw * f["hours"] * f["electricity"]
    support = sum(cap[c] * f[f"support_{c}"] for c in CLASSES)
    fibre = dark_fibre_per_year(b.dark_fibre_km, f["dark_fibre"])
    space = 0.0 if built else lease
    staff = f["staff_fte"] * f["staff_cost"]
    licences = b.gpus * f["licence_gpu"] + b.nodes * f["licence_node"]
    insurance_tax = capex * (f["insurance"] + f["property_tax"])
    opex = energy + support + fibre + space + staff + licences + insurance_tax
    depreciation = sum(cap[c] / f[f"life_{c}"] for c in CLASSES) + owned / f["life_building"]
    charge = sum(cap[c] * capital_recovery_factor(r, f[f"life_{c}"]) for c in CLASSES) + (build_year if built else 0.0)
    annual = charge + opex
    in_service = service_share(f["ramp_months"], f["years"])
    worked = worked_gpu_hours(b.gpus, f["hours"], f["utilisation"], in_service)
    gpu_hour = share(annual, worked)
    return Tco(hardware, b.network_usd, install_links + install_racks, capex, cap["gpu"], cap["network"],
               cap["facility"], it_kw, b.network_power_w / 1000.0, facility_kw, energy, support, fibre, space, staff,
               licences, insurance_tax, opex, depreciation, charge, annual, capex + f["years"] * opex,
               npv(capex, opex, r, f["years"]), in_service, worked, gpu_hour, share(energy + support, worked),
               gpu_hour / b.pflops_per_gpu if b.pflops_per_gpu else 0.0,
               share(b.network_usd, hardware), share(b.network_power_w, b.it_power_w),
               peak_kw, facility_max_kw, cooling_kw, lease, building, grid, build_year, built,
               share(capex + f["years"] * opex, worked * f["years"]))


# --- sensitivity ---------------------------------------------------------------------

#: The inputs the sensitivity table moves, each by -20 % and +20 %.
SENSITIVITY = (("electricity", "Electricity price"), ("gpu_price", "GPU system price"),
               ("optics_price", "Optics price"), ("utilisation", "Utilisation"),
               ("discount_rate", "Cost of capital"))
SWING = 0.2


def moved(b: Basis, ins: dict[str, Input], what: str, factor: float) -> Tco:
    """The TCO rebuilt with one input (or one price class) multiplied by ``factor`` (utilisation at most 1).

    >>> b = Basis({"gpu": 100.0}, 0.0, 100.0, 0.0, 1000.0, 0.0, 0, 0, 1, 0.0, 1.0)
    >>> base = compute_tco(b, DEFAULTS).usd_per_gpu_hour
    >>> round(moved(b, DEFAULTS, "utilisation", 1.2).usd_per_gpu_hour * 1.2 / base, 9)
    1.0
    """
    if what == "gpu_price":
        extra = b.gpu_systems_usd * (factor - 1)
        b = replace(b, capex_by_class={**b.capex_by_class, "gpu": b.capex_by_class.get("gpu", 0.0) + extra},
                    gpu_systems_usd=b.gpu_systems_usd * factor)
    elif what == "optics_price":
        extra = b.optics_usd * (factor - 1)
        b = replace(b, capex_by_class={**b.capex_by_class,
                                       "network": b.capex_by_class.get("network", 0.0) + extra},
                    network_usd=b.network_usd + extra, optics_usd=b.optics_usd * factor)
    else:
        i = ins[what]
        value = float(i.value) * factor
        ins = {**ins, what: replace(i, value=min(1.0, value) if what == "utilisation" else value)}
    return compute_tco(b, ins)


class SensitivityJson(TypedDict):
    input: str
    label: str
    low_usd_per_gpu_hour: float
    high_usd_per_gpu_hour: float


@dataclass(frozen=True)
class Sensitivity:
    name: str
    label: str
    low: float          # cost per GPU-hour with the input at -20 %
    high: float         # ... at +20 %

    def to_json(self) -> SensitivityJson:
        return {"input": self.name, "label": self.label, "low_usd_per_gpu_hour": round(self.low, 6),
                "high_usd_per_gpu_hour": round(self.high, 6)}


def sensitivity(b: Basis, ins: dict[str, Input]) -> list[Sensitivity]:
    """Cost per GPU-hour with each input moved by -20 % and +20 %, the others at their values."""
    return [Sensitivity(name, label, moved(b, ins, name, 1 - SWING).usd_per_gpu_hour,
                        moved(b, ins, name, 1 + SWING).usd_per_gpu_hour) for name, label in SENSITIVITY]


TCO_FIELDS = tuple(f.name for f in fields(Tco))
