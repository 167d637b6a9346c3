"""The scenario file (DESIGN.md section 4): what to build, on what, where, and how to cost it."""

from __future__ import annotations

import datetime as dt
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, model_validator

from bom.errors import ScenarioError
from bom.resources import data_dir
from bom.validation import EnergyPrice, Length, Model, Qty, Rate, validate
from bom.workload import Workload
from bom.yamlio import Located, load_file, load_text


def _oversubscription(value: Any) -> Fraction:
    """down:up as written ("4:3", "4/3", 3) or as a decimal (1.333 -> 4:3, see fabric.ratio)."""
    from bom.fabric import ratio

    if isinstance(value, bool) or not isinstance(value, (int, float, str, Fraction)):
        raise ValueError(f"{value!r} is not a ratio; write it as down:up, e.g. 3:1 or 4:3")
    try:
        r = ratio(value)
    except (ValueError, ZeroDivisionError, OverflowError):
        raise ValueError(f"{value!r} is not a ratio; write it as down:up, e.g. 3:1 or 4:3") from None
    if r < 1:
        raise ValueError(f"{value!r} is below 1:1; a leaf has at most as many uplinks as downlinks "
                         "(write 1 for non-blocking)")
    return r


Oversubscription = Annotated[Fraction, BeforeValidator(_oversubscription)]


class FabricSpec(Model):
    switch: str | None = None          # catalog id; default: the platform's default switch
    # pair: two switches joined by ISLs (a BasePOD-size pod), each taking half of every node's ports
    topology: Literal["rail-optimized", "tor", "pair"] = "rail-optimized"
    layers: Literal["auto", 2, 3] = "auto"
    oversubscription: Oversubscription = Fraction(1)   # down:up at the leaf, "4:3" or 1.333
    # native: switch-to-switch links at the switch's own port rate (800G over 2 x 400G planes)
    # where whole native ports join each pair of switches; downlink: at the NIC's rate
    uplink_rate: Literal["native", "downlink"] = "native"
    su_nodes: int | None = Field(default=None, ge=1)
    planes: int = Field(default=1, ge=1, le=8)
    # Out-of-band only: the management switches' uplinks go into the in-band fabric (the RAs'
    # design) unless a separate OOB spine layer is asked for.
    uplinks: Literal["inband", "spine"] | None = None
    # Media the design allows (e.g. [multimode] where a reference design uses optics throughout).
    media: list[Literal["passive-copper", "active-copper", "aoc", "multimode", "smf-parallel",
                        "smf-duplex"]] | None = None


class Storage(Model):
    """Storage appliances: a count, or capacity and/or throughput that derive it."""

    appliance: str | None = None            # endpoints row; default: the platform's
    count: int | None = Field(default=None, ge=1)
    capacity: Qty("information") | None = None  # type: ignore[valid-type]
    throughput: Rate | None = None
    ports: int | None = Field(default=None, ge=0)   # per appliance on the storage fabric
    rate: Rate | None = None


class Management(Model):
    """Fabric managers and management / head nodes (per site)."""

    ufm: str | None = None
    ufm_count: int | None = Field(default=None, ge=0)
    server: str | None = None
    servers: int | None = Field(default=None, ge=0)


class Racks(Model):
    """Rack budgets (per compute rack); defaults from the platform's support row."""

    power_budget: Qty("power") | None = None  # type: ignore[valid-type]
    rack_units: int | None = Field(default=None, ge=1, le=60)


class Sites(Model):
    count: int = Field(default=1, ge=1, le=64)
    distance: Length | None = None
    dci_bandwidth: Rate | None = None
    dci_fraction: float | None = Field(default=None, gt=0, le=1)
    wavelength_rate: Rate | None = None


class Layout(Model):
    nodes_per_rack: int | None = Field(default=None, ge=1)
    racks_per_row: int | None = Field(default=None, ge=1)
    rack_width: Length | None = None
    row_pitch: Length | None = None
    rise: Qty("length", "nonnegative") | None = None  # type: ignore[valid-type]
    slack: Qty("length", "nonnegative") | None = None  # type: ignore[valid-type]
    in_rack: Length | None = None
    patch_panels: int = Field(default=0, ge=0, le=6)   # on runs that leave their row


Money = Qty("money", "nonnegative")


class Tco(Model):
    """TCO assumptions; each default and its source is in bom/tco.py (``DEFAULTS``)."""

    years: float | None = Field(default=None, gt=0, le=30)
    electricity: EnergyPrice | None = None
    pue: float | None = Field(default=None, ge=1.0, le=3.0)
    utilisation: float | None = Field(default=None, gt=0, le=1)
    support: float | None = Field(default=None, ge=0, le=1)
    dark_fibre: Qty("money_per_km_year", "nonnegative") | None = None  # type: ignore[valid-type]
    space: Qty("money_per_year", "nonnegative") | None = None  # type: ignore[valid-type]
    install_link: Money | None = None  # type: ignore[valid-type]
    install_rack: Money | None = None  # type: ignore[valid-type]
    # Finance: cost of capital, lives and support per asset class, colocation per kW-month.
    discount_rate: float | None = Field(default=None, ge=0, le=1)
    life_gpu: float | None = Field(default=None, gt=0, le=30)
    life_network: float | None = Field(default=None, gt=0, le=30)
    life_facility: float | None = Field(default=None, gt=0, le=40)
    support_gpu: float | None = Field(default=None, ge=0, le=1)
    support_network: float | None = Field(default=None, ge=0, le=1)
    support_facility: float | None = Field(default=None, ge=0, le=1)
    colocation: Qty("money_per_kw_month", "nonnegative") | None = None  # type: ignore[valid-type]
    space_basis: Literal["rack", "kW"] | None = None


class SparesRule(Model):
    """Spares of every part of one category: the largest of the three (0 = none)."""

    fraction: float = Field(default=0.0, ge=0, le=1)   # of the installed quantity, rounded up
    min: int = Field(default=0, ge=0)                   # at least this many per part number
    per_site: int = Field(default=0, ge=0)              # or this many per part number and site


CurrencyCode = Annotated[str, Field(pattern=r"^[A-Z]{3}$")]


class Scenario(Model):
    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
    description: str | None = None
    platform: str | None = None
    nodes: int | None = Field(default=None, ge=1)
    gpus: int | None = Field(default=None, ge=1)
    workload: Workload | None = None
    fabrics: dict[Literal["compute", "storage", "inband", "oob"], FabricSpec] = {}
    sites: Sites | None = None
    storage: Storage | None = None
    management: Management | None = None
    racks: Racks = Racks()
    layout: Layout = Layout()
    tco: Tco = Tco()
    catalogs: list[str] = []
    prices: list[str] = []
    # The day the BOM is priced for: quotes past valid_until are flagged against it (default
    # today), and the workbook's document date (default: the newest catalog as_of).
    date: dt.date | None = None
    # USD per unit of each currency a price file quotes in, e.g. {EUR: 1.08}; USD is 1.
    exchange_rates: dict[CurrencyCode, Annotated[float, Field(gt=0)]] = {}
    # Spares per BOM category (compute, switch, transceiver, ...); none given = the defaults
    # in bom/order.py; a category given here replaces its default.
    spares: dict[str, SparesRule] | None = None
    platforms: list[str] | None = None     # the generations `bom compare` builds, in order

    @model_validator(mode="after")
    def _usd_is_one(self) -> Scenario:
        if self.exchange_rates.get("USD", 1.0) != 1.0:
            raise ValueError("exchange_rates are USD per unit of each currency, so USD is 1; leave it out")
        return self

    @model_validator(mode="after")
    def _one_size(self) -> Scenario:
        given = [k for k in ("nodes", "gpus", "workload") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of nodes, gpus or workload"
                             + (f" (this file gives {', '.join(given)})" if given else ""))
        return self


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
