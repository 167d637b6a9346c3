"""The scenario file (DESIGN.md section 4): what to build, on what, where, and how to cost it."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from bom.errors import ScenarioError
from bom.resources import data_dir
from bom.validation import EnergyPrice, Length, Model, Qty, Rate, validate
from bom.workload import Workload
from bom.yamlio import Located, load_file, load_text


class FabricSpec(Model):
    switch: str | None = None          # catalog id; default: the platform's default switch
    topology: Literal["rail-optimized", "tor"] = "rail-optimized"
    layers: Literal["auto", 2, 3] = "auto"
    oversubscription: float = Field(default=1.0, ge=1.0)
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
    platforms: list[str] | None = None     # the generations `bom compare` builds, in order

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
    if not path.is_file():
        raise ScenarioError("no such scenario file", where=str(path),
                            hint="Give the path of a scenario YAML file.")
    src = load_file(path)
    return parse_scenario(src), src


def scenario_from_text(text: str, file: str = "<scenario>") -> Scenario:
    return parse_scenario(load_text(text, file))
