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
    """One scale-out fabric (``compute``, ``storage``, ``inband`` or ``oob``)."""

    switch: str | None = Field(default=None, examples=["q3400"])
    """Leaf switch, a catalog id (`bom catalog list --kind switches`); default: the platform's
    ``default_switch`` for compute, sn5600 for storage and in-band, sn2201 for OOB."""
    topology: Literal["rail-optimized", "tor"] = Field(default="rail-optimized", examples=["tor"])
    """``rail-optimized``: GPU n of every node in a scalable unit goes to leaf n (compute default);
    ``tor``: a leaf in each rack (default for storage, in-band and OOB)."""
    layers: Literal["auto", 2, 3] = Field(default="auto", examples=[2])
    """Switch layers: ``auto`` takes two (leaf, spine) while the spines' ports reach, else three."""
    oversubscription: float = Field(default=1.0, ge=1.0, examples=[2.0])
    """Down:up port ratio at the leaf; 1 is non-blocking."""
    su_nodes: int | None = Field(default=None, ge=1, examples=[32])
    """Nodes per scalable unit (SU) of a rail-optimized fabric: the group of nodes whose rails
    share one set of leaves; default: the platform's ``su_nodes`` (32 for a DGX H100 SuperPOD)."""
    planes: int = Field(default=1, ge=1, le=8, examples=[2])
    """Parallel fabric planes; each node port is split over them (a port's rate / planes)."""
    media: list[Literal["passive-copper", "active-copper", "aoc", "multimode", "smf-parallel",
                        "smf-duplex"]] | None = Field(default=None, examples=[["multimode"]])
    """Media the design allows, e.g. [multimode] where a reference design uses optics throughout;
    default: all, cheapest rung of the ladder that reaches."""


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
    distance: Length | None = Field(default=None, examples=["40 km"])
    """Route length of the fibre between two cabled sites (the same for every pair)."""
    dci_bandwidth: Rate | None = Field(default=None, examples=["25.6 Tbit/s"])
    """Bandwidth between each cabled pair of sites; give this or ``dci_fraction``."""
    dci_fraction: float | None = Field(default=None, gt=0, le=1, examples=[0.125])
    """Bandwidth between each cabled pair as a fraction of the smallest site's scale-out (compute
    fabric) bandwidth: nodes x ports x port rate. 0.125 is one eighth."""
    wavelength_rate: Rate | None = Field(default=None, examples=["400 Gbit/s"])
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
    """The floor plan that sets every cable length (defaults in bom/floorplan.py)."""

    nodes_per_rack: int | None = Field(default=None, ge=1, examples=[4])
    """Nodes in one rack; default: the platform's ``nodes_per_rack``."""
    racks_per_row: int | None = Field(default=None, ge=1, examples=[8])
    """Racks in one row of the hall."""
    rack_width: Length | None = Field(default=None, examples=["0.6 m"])
    """Width of one rack position."""
    row_pitch: Length | None = Field(default=None, examples=["2.4 m"])
    """Distance from one row to the next (rack depth plus aisle)."""
    rise: Qty("length", "nonnegative") | None = Field(default=None, examples=["1 m"])  # type: ignore[valid-type]
    """From a cage up to the overhead tray, at each end of a run."""
    slack: Qty("length", "nonnegative") | None = Field(default=None, examples=["0.3 m"])  # type: ignore[valid-type]
    """Added to every run for service loops."""
    in_rack: Length | None = Field(default=None, examples=["1.5 m"])
    """Length of a run inside one rack."""
    patch_panels: int = Field(default=0, ge=0, le=6, examples=[2])
    """Patch panels on every run that leaves its row (structured cabling); each adds mated pairs
    to the optical loss."""


Money = Qty("money", "nonnegative")


class Tco(Model):
    """TCO assumptions; each default and its source is in bom/tco.py (``DEFAULTS``)."""

    years: float | None = Field(default=None, gt=0, le=30, examples=[5])
    """Amortisation period [years]."""
    electricity: EnergyPrice | None = Field(default=None, examples=["0.08 USD/kWh"])
    """Electricity price."""
    pue: float | None = Field(default=None, ge=1.0, le=3.0, examples=[1.25])
    """Power usage effectiveness: facility power / IT power."""
    utilisation: float | None = Field(default=None, gt=0, le=1, examples=[0.8])
    """Share of hours the GPUs do paid work (divides the cost per GPU-hour)."""
    support: float | None = Field(default=None, ge=0, le=1, examples=[0.1])
    """Support and maintenance per year, as a fraction of the hardware cost."""
    dark_fibre: Qty("money_per_km_year", "nonnegative") | None = Field(default=None, examples=["1500 USD/km/yr"])  # type: ignore[valid-type]
    """Dark fibre lease per km of route per fibre pair per year (scale-across)."""
    space: Qty("money_per_year", "nonnegative") | None = Field(default=None, examples=["6000 USD/yr"])  # type: ignore[valid-type]
    """Space and facility per rack per year."""
    install_link: Money | None = Field(default=None, examples=["20 USD"])  # type: ignore[valid-type]
    """Labour to run and test one link."""
    install_rack: Money | None = Field(default=None, examples=["2500 USD"])  # type: ignore[valid-type]
    """Labour to rack, stack and power on one rack."""


class Scenario(Model):
    """What to build, on what, where, and how to cost it. Give exactly one of ``nodes``, ``gpus``
    or ``workload``."""

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$", examples=["gb300-two-sites"])
    """Names the outputs (reports/<name>/<name>.xlsx, ...): letters, digits, dot, dash, underscore."""
    description: str | None = Field(default=None, examples=["64 GB300 NVL72 racks in two buildings"])
    """One line for the report's heading."""
    platform: str | None = Field(default=None, examples=["gb300-nvl72"])
    """The system, a catalog id (`bom catalog list --kind platforms`); `bom build` needs one."""
    nodes: int | None = Field(default=None, ge=1, examples=[32])
    """Size the cluster in nodes (rounded up to whole rack systems)."""
    gpus: int | None = Field(default=None, ge=1, examples=[4608])
    """Size the cluster in GPUs (rounded up to whole nodes and rack systems)."""
    workload: Workload | None = None
    """Size the cluster from a job (see the workload keys)."""
    fabrics: dict[Literal["compute", "storage", "inband", "oob"], FabricSpec] = Field(
        default={}, examples=[{"compute": {"switch": "q3400"}, "oob": {}}])
    """The scale-out fabrics to build, by name; default: compute alone."""
    sites: Sites | None = None
    """More than one building (scale-across); default: one site."""
    layout: Layout = Layout()
    """The floor plan."""
    tco: Tco = Tco()
    """Cost assumptions."""
    catalogs: list[str] = Field(default=[], examples=[["my-catalog"]])
    """Catalog overlay directories, relative to this file (see "Catalog overlays")."""
    prices: list[str] = Field(default=[], examples=[["prices.csv"]])
    """Price CSV files, relative to this file (see "Price files")."""
    platforms: list[str] | None = Field(default=None, examples=[["dgx-h100", "gb200-nvl72"]])
    """The generations `bom compare` builds, in order; default: every platform."""

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
