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
    # Media the design allows (e.g. [multimode] where a reference design uses optics throughout).
    media: list[Literal["passive-copper", "active-copper", "aoc", "multimode", "smf-parallel",
                        "smf-duplex"]] | None = None


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
    distance: Length | None = None
    """Route length of the fibre between two cabled sites (the same for every pair)."""
    dci_bandwidth: Rate | None = None
    """Bandwidth between each cabled pair of sites; give this or ``dci_fraction``."""
    dci_fraction: float | None = Field(default=None, gt=0, le=1, examples=[0.125])
    """Bandwidth between each cabled pair as a fraction of the smallest site's scale-out (compute
    fabric) bandwidth: nodes x ports x port rate. 0.125 is one eighth."""
    wavelength_rate: Rate | None = None
    """Rate of one coherent wavelength; default 400 Gbit/s (400ZR / OpenZR+)."""

    @model_validator(mode="before")
    @classmethod
    def _count_from_split(cls, data: object) -> object:
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
