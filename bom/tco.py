"""Total cost of ownership: small pure functions, each with its formula, and the named inputs.

Every assumption is an :class:`Input` with a default and where the default comes from; the
scenario's ``tco`` block overrides them and the workbook writes each to a named cell.
"""

from __future__ import annotations

from dataclasses import dataclass

HOURS_PER_YEAR = 8760.0


@dataclass(frozen=True)
class Input:
    name: str          # the workbook's defined name
    label: str
    value: float
    unit: str
    source: str


_DEFAULTS = (
    Input("years", "Amortisation period", 5.0, "years",
          "common depreciation schedule for AI servers (Epoch AI uses 4-5 years)"),
    Input("electricity", "Electricity price", 0.08, "USD/kWh",
          "estimate: US industrial average, about 8 c/kWh (EIA Electric Power Monthly, 2024)"),
    Input("pue", "Power usage effectiveness", 1.25, "ratio",
          "estimate: liquid-cooled AI hall (Uptime Institute survey averages ~1.5 for all sites)"),
    Input("utilisation", "Utilisation", 0.8, "fraction", "estimate: share of hours the GPUs do paid work"),
    Input("support", "Support and maintenance", 0.10, "fraction of capex per year",
          "estimate: vendor support contracts of 8-12 % of list price per year"),
    Input("dark_fibre", "Dark fibre lease", 1500.0, "USD per km per year",
          "estimate: metro dark-fibre pair lease; replace with the carrier's quote"),
    Input("space", "Space and facility", 6000.0, "USD per rack per year",
          "estimate: colocation space per rack position, power billed separately"),
    Input("install_link", "Installation per link", 20.0, "USD", "estimate: labour to run and test one link"),
    Input("install_rack", "Installation per rack", 2500.0, "USD", "estimate: rack, stack and power-on"),
    Input("hours", "Hours per year", HOURS_PER_YEAR, "h", "8,760 h = 365 d x 24 h"),
)
DEFAULTS = {i.name: i for i in _DEFAULTS}
_UNITS = {"electricity": ("energy_price", "USD/kWh"), "dark_fibre": ("money_per_km_year", "USD/km/yr"),
          "space": ("money_per_year", "USD/yr"), "install_link": ("money", "USD"),
          "install_rack": ("money", "USD")}


def inputs(spec: object | None) -> dict[str, Input]:
    """The defaults, with every value the scenario's ``tco`` block sets (source: scenario)."""
    out = dict(DEFAULTS)
    for name, default in DEFAULTS.items():
        value = getattr(spec, name, None) if spec is not None else None
        if value is None:
            continue
        number = float(value.to(_UNITS[name][1]).magnitude) if name in _UNITS else float(value)
        out[name] = Input(name, default.label, number, default.unit, "scenario")
    return out


def capex(hardware_usd: float, links: int, racks: int, per_link_usd: float, per_rack_usd: float) -> float:
    """Capex [USD] = hardware + links x install per link + racks x install per rack.

    >>> capex(1_000_000, 100, 2, 20, 2500)
    1007000
    """
    return hardware_usd + links * per_link_usd + racks * per_rack_usd


def energy_per_year(it_kw: float, pue: float, usd_per_kwh: float, hours: float = HOURS_PER_YEAR) -> float:
    """Energy [USD/yr] = IT power x PUE x hours x price.

    >>> round(energy_per_year(100, 1.25, 0.08))
    87600
    """
    return it_kw * pue * hours * usd_per_kwh


def support_per_year(capex_usd: float, rate: float) -> float:
    """Support and maintenance [USD/yr] = capex x rate.

    >>> support_per_year(1e6, 0.1)
    100000.0
    """
    return capex_usd * rate


def dark_fibre_per_year(km: float, usd_per_km_year: float) -> float:
    """Dark fibre [USD/yr] = route km of fibre pairs x lease per km-year.

    >>> dark_fibre_per_year(40, 1500)
    60000
    """
    return km * usd_per_km_year


def space_per_year(racks: int, usd_per_rack_year: float) -> float:
    """Space [USD/yr] = racks x rate.

    >>> space_per_year(10, 6000)
    60000
    """
    return racks * usd_per_rack_year


def total_cost(capex_usd: float, opex_per_year: float, years: float) -> float:
    """TCO [USD] = capex + years x yearly opex (capex amortised over the same years).

    >>> total_cost(1e6, 2e5, 5)
    2000000.0
    """
    return capex_usd + years * opex_per_year


def usd_per_gpu_hour(tco_usd: float, gpus: int, years: float, utilisation: float,
                     hours: float = HOURS_PER_YEAR) -> float:
    """Cost per GPU-hour [USD] = TCO / (GPUs x years x hours x utilisation).

    >>> round(usd_per_gpu_hour(8760 * 5 * 2, 1, 5, 1.0), 2)
    2.0
    """
    return tco_usd / (gpus * years * hours * utilisation)


def share(part: float, whole: float) -> float:
    """part / whole, 0 for an empty whole.

    >>> share(1, 4)
    0.25
    """
    return part / whole if whole else 0.0


@dataclass(frozen=True)
class Tco:
    hardware_usd: float
    network_usd: float
    installation_usd: float
    capex_usd: float
    it_power_kw: float
    network_power_kw: float
    facility_power_kw: float
    energy_per_year: float
    support_per_year: float
    dark_fibre_per_year: float
    space_per_year: float
    opex_per_year: float
    tco_usd: float
    usd_per_gpu_hour: float
    network_capex_share: float
    network_power_share: float

    def to_json(self) -> dict[str, float]:
        return {k: round(v, 6) for k, v in self.__dict__.items()}


def compute_tco(*, hardware_usd: float, network_usd: float, it_power_w: float, network_power_w: float,
                links: int, racks: int, gpus: int, dark_fibre_km: float, ins: dict[str, Input]) -> Tco:
    """The whole TCO from BOM totals and the inputs; mirrors the workbook's TCO sheet."""
    v = {k: i.value for k, i in ins.items()}
    cap = capex(hardware_usd, links, racks, v["install_link"], v["install_rack"])
    it_kw = it_power_w / 1000.0
    energy = energy_per_year(it_kw, v["pue"], v["electricity"], v["hours"])
    support = support_per_year(cap, v["support"])
    fibre = dark_fibre_per_year(dark_fibre_km, v["dark_fibre"])
    space = space_per_year(racks, v["space"])
    opex = energy + support + fibre + space
    total = total_cost(cap, opex, v["years"])
    return Tco(hardware_usd, network_usd, cap - hardware_usd, cap, it_kw, network_power_w / 1000.0,
               it_kw * v["pue"], energy, support, fibre, space, opex, total,
               usd_per_gpu_hour(total, gpus, v["years"], v["utilisation"], v["hours"]),
               share(network_usd, hardware_usd), share(network_power_w, it_power_w))


