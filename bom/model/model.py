"""The whole model of one scenario: data types only (:func:`bom.pipeline.model.build_model` builds it).

:class:`Design`: the cluster before its devices stand anywhere (what the placement places): the
cluster, floor plan, fabrics with their switches, endpoints and DCI. :class:`Model`: the design with
where every device stands, every hop's link groups, the scale-up domains and the sizing, made once
every stage has landed (no field is filled in later); :meth:`Model.totals` the typed totals every
writer reads, :meth:`Model.to_json` their serialisation.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from typing_extensions import TypedDict

from bom.catalog.rows import Platform
from bom.inputs.scenario import Scenario
from bom.model.cluster import Cluster, RoundingJson, ScaleUp
from bom.model.dci import Dci
from bom.model.endpoints import Endpoints, EndpointsJson
from bom.model.fabrics import DciFabric, DciFabricJson, Fabric, FabricJson
from bom.model.floorplan import FloorPlan
from bom.model.linkgroups import LinkGroup
from bom.model.parallelism import ParallelismJson
from bom.model.placement import Placement
from bom.model.power import PowerJson, PowerPlan
from bom.model.records import Count
from bom.model.sizing import Sizing, SizingJson
from bom.model.totals import ScaleAcrossTotals, ScaleOutTotals, ScaleUpTotals, TiersJson, Totals, sum_groups
from bom.roles import FabricRole, RackKind, Tier
from bom.units import magnitude


class SiteSizeJson(TypedDict):
    site: Count
    nodes: Count
    gpus: Count


class ModelJson(TypedDict):
    """The built model's part of a build's JSON."""

    name: str
    """The scenario's name."""
    platform: str
    """The platform id (catalog)."""
    gpus: Count
    """GPUs built."""
    nodes: Count
    """GPU nodes built."""
    domains: Count
    """Scale-up domains."""
    racks: Count
    """Every rack the placement builds."""
    sites: Count
    """Sites (2 or more: a DCI between them)."""
    site_sizes: list[SiteSizeJson]
    """Nodes and GPUs of each site."""
    requested_gpus: Count
    """GPUs asked for (before rounding to whole systems)."""
    rounding: RoundingJson
    """GPUs asked for, built, and why they differ."""
    rack_counts: dict[RackKind, Count]
    """Racks by kind: compute, network, management, storage."""
    endpoints: EndpointsJson
    """UFM, management and storage servers."""
    sizing: SizingJson | None
    parallelism: ParallelismJson | None
    fabrics: dict[str, FabricJson | DciFabricJson]
    """Each fabric by name (compute, storage, inband, oob, dci)."""
    tiers: TiersJson
    """The three tiers' totals (Totals: ScaleUpTotals, ScaleOutTotals, ScaleAcrossTotals)."""
    power_plan: PowerJson | None
    """The power plan (bom/links/power.py): cords by part and length, each rack layout's feed and phase
    loads, each site UPS's load (issue 48)."""


@dataclass(frozen=True)
class Design:
    """The cluster before its devices stand anywhere: what the placement places (the fabrics carry
    their switches, not yet their link groups)."""

    scenario: Scenario
    platform: Platform
    cluster: Cluster
    floor: FloorPlan
    fabrics: dict[str, Fabric]
    endpoints: Endpoints
    dci: Dci | None
    rack_power_w: float       # a compute rack's power budget (0: the platform gives none)

    def with_fabric(self, fabric: Fabric) -> Design:
        """The design with ``fabric`` added or put in place of the one of its name."""
        return replace(self, fabrics={**self.fabrics, fabric.name: fabric})


@dataclass(frozen=True)
class Model(Design):
    sizing: Sizing | None
    scale_up: ScaleUp
    dci_groups: list[LinkGroup]
    placement: Placement
    #: Each site shape built on its own, (sites of that shape, its model): () for one site, None when
    #: a shape cannot stand alone.
    site_models: tuple[tuple[int, Model | None], ...] | None   # (sites, a site's model; None: all alike)
    #: Builds it took to settle the number of sites from sites.power (0: the scenario gave the count).
    power_rounds: int
    #: The power plan's closed form: every rack's supplies on its PDUs' outlets, the loads on its
    #: phases, banks, PDUs and feeds, the cords by part (bom/links/power.py).
    power: PowerPlan | None = None

    @property
    def racks(self) -> int:
        """Every rack the placement builds (compute, network, management, storage)."""
        return self.placement.total

    @property
    def warnings(self) -> tuple[str, ...]:
        """What the build chose for the user and says so, the one place every writer reads it from (the
        terminal, the workbook's Summary and Checks sheets, the report, the JSON's ``warnings``): each
        ``why`` the JSON gives of a choice the build made (the GPUs rounded up, the storage sized, where
        the UFM ports went or that none was bought, a port priced as another's, the coherent line
        amplified), the defaults taken (a storage fabric's appliances), the management switches' own
        spines, the DCI's own border leaves and the
        site keys one building leaves unused."""
        out = list(self.endpoints.warnings)
        rounding = self.cluster.rounding()
        if rounding["why"] != "as requested":
            out.append(f"gpus: {rounding['requested']:,} GPUs asked, {rounding['built']:,} built: {rounding['why']}")
        e = self.endpoints
        # (The platform's default storage, basis "ra", says so in the endpoints' own warning.)
        if e.storage is not None and e.storage_count and (
                e.basis == "job" or (e.basis == "scenario" and not e.why.endswith("appliances given"))):
            out.append(f"storage: {e.storage_count:,} x {e.storage.id} per site, sized by "
                       f"{'the training job' if e.basis == 'job' else 'the storage block'}: {e.why}")
        for f in self.fabrics.values():
            if f.ufm is not None and f.ufm.ports:
                out.append(f"fabrics.{f.name}: the UFM appliances' {f.ufm.ports:,} ports are {f.ufm.why}")
            elif f.ufm is not None:
                out.append(f"fabrics.{f.name}: the UFM appliances are not on the fabric they manage: {f.ufm.why}")
            out += [f"fabrics.{f.name}: the {role} ports are counted as the nodes' port (a substitution the "
                    f"complete.substitutions rule refuses): {why}" for role, why in sorted(f.substitutions.items())]
            if f.note:
                out.append(f.note)
        d = self.dci
        if d is not None and d.loss is not None and (d.loss.over or d.loss.budget_db is None):
            what = "amplified (a booster and a pre-amplifier each way)" if d.loss.over else "unamplified"
            out.append(f"sites: the coherent line is {what}: {d.loss.why()}")
        if d is not None and d.border is not None:
            out.append(d.note)
        out += self._one_building()
        return tuple(out)

    def _one_building(self) -> tuple[str, ...]:
        """``sites.power`` found the cluster fits one building: the keys that join sites join nothing."""
        sites = self.scenario.sites
        if sites is None or not sites.from_power or self.cluster.site_count != 1:
            return ()
        unused = sites.unused_on_one_site()
        if not unused:
            return ()
        keys = " and ".join(f"sites.{k}" for k in unused)
        return (f"sites.power puts the cluster in one building, so {keys} "
                f"{'is' if len(unused) == 1 else 'are'} not used (no second site to join); give sites.count "
                "to build on more sites",)

    @property
    def groups(self) -> list[LinkGroup]:
        return [g for f in self.fabrics.values() for g in f.groups] + self.dci_groups

    def totals(self) -> Totals:
        """Every fabric's totals and the three tiers', each one sum over its link groups."""
        fabrics = {k: f.totals() for k, f in self.fabrics.items()}
        clients = sum_groups(self.dci_groups)
        scale_out = sum_groups(g for f in self.fabrics.values() if f.tier == Tier.SCALE_OUT for g in f.groups)
        return Totals(fabrics=fabrics, dci_clients=clients, scale_up=ScaleUpTotals.of(self.scale_up),
                      scale_out=ScaleOutTotals.of(scale_out), scale_across=ScaleAcrossTotals.of(self.dci, clients))

    def tiers(self) -> TiersJson:
        """The tiers' JSON (``totals().tiers_json()``)."""
        return self.totals().tiers_json()

    @property
    def site_sizes(self) -> list[SiteSize]:
        """Each site's nodes and GPUs, site 1 first."""
        return [SiteSize(i + 1, n, n * self.platform.gpus_per_node) for i, n in enumerate(self.cluster.nodes_by_site)]

    @property
    def dci_fabric(self) -> DciFabric | None:
        """The DCI told as a fabric (None on one site)."""
        return DciFabric(self.dci, sum_groups(self.dci_groups)) if self.dci is not None else None

    def to_json(self) -> ModelJson:
        c = self.cluster
        fabrics: dict[str, FabricJson | DciFabricJson] = {k: f.to_json() for k, f in self.fabrics.items()}
        dci = self.dci_fabric
        if dci is not None:
            fabrics[FabricRole.DCI] = dci.to_json()
        return {"name": self.scenario.name, "platform": self.platform.id, "gpus": c.gpus,
                "nodes": c.nodes, "domains": c.domains, "racks": self.racks, "sites": c.site_count,
                "site_sizes": [SiteSizeJson(site=s.site, nodes=s.nodes, gpus=s.gpus) for s in self.site_sizes],
                "requested_gpus": c.requested_gpus, "rounding": c.rounding(),
                "rack_counts": self.placement.counts(),
                "endpoints": self.endpoints.to_json(),
                "sizing": self.sizing.to_json() if self.sizing else None,
                "parallelism": self.sizing.parallelism.to_json() if self.sizing and self.sizing.parallelism else None,
                "fabrics": fabrics, "tiers": self.tiers(), "power_plan": self._power_json()}

    def _power_json(self) -> PowerJson | None:
        if self.power is None:
            return None
        ups = self.scenario.feeds.ups_capacity
        return self.power.to_json(magnitude(ups, "power") if ups is not None else 0.0)


@dataclass(frozen=True)
class SiteSize:
    site: int      # numbered from 1
    nodes: int
    gpus: int
