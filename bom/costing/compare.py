"""Generation comparison: the same job built on each platform, and what changes between them.

Each generation gets its own switch generation and floor-plan defaults (the scenario's
switch and layout choices are dropped, its fabrics, sites and TCO inputs kept), so the
differences come from the catalog rows, not from constants here. The scenario's storage,
in-band and out-of-band fabrics are built too, on each platform's RA switches; each metric
says what it is about (SCOPES): the scale-out figures are the compute fabric's, the module,
fibre, switch and cost figures the whole network's.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from bom.catalog.rows import Catalog, Platform
from bom.costing.categories import COPPER, NETWORK, OPTICS, SWITCHES, Category
from bom.costing.report import Report
from bom.errors import BomError
from bom.inputs.scenario import FabricSpec, Scenario
from bom.model.totals import LinkTotals, TierTotals
from bom.roles import SUPPORT, FabricRole, Tier
from bom.units import magnitude


def default_platforms(catalog: Catalog) -> list[str]:
    """Every platform in the catalog, oldest first, smaller domains first within a year."""
    rows = [p for p in catalog.rows["platforms"].values() if isinstance(p, Platform)]
    return [p.id for p in sorted(rows, key=lambda p: (p.year, p.gpus_per_domain, p.id))]


#: ``platform@switch`` in a list of platforms: the platform with that switch on its compute fabric
#: (the same NVIDIA platform on pluggable and co-packaged-optics switches, side by side).
SWITCH_SEP = "@"


def parse_entry(entry: str) -> tuple[str, str | None]:
    """A comparison entry as (platform id, compute switch or None).

    >>> parse_entry("gb300-nvl72@q3450-ld"), parse_entry("dgx-b200")
    (('gb300-nvl72', 'q3450-ld'), ('dgx-b200', None))
    """
    pid, sep, switch = entry.partition(SWITCH_SEP)
    return pid.strip(), (switch.strip() or None) if sep else None


@dataclass(frozen=True)
class Generation:
    platform: Platform
    report: Report
    note: str | None
    left_out: tuple[str, ...] = ()     # non-compute fabrics this generation could not build
    switch: str | None = None          # the compute switch the entry named (None: the platform's default)
    #: bom/faults' figures, beside the copper share (the pipeline reads them: the faults stage is above this one).
    reliability: tuple[tuple[str, float], ...] = ()

    @property
    def label(self) -> str:
        """The row's name: the platform id, with the compute switch when the entry named one."""
        return self.platform.id if self.switch is None else f"{self.platform.id}{SWITCH_SEP}{self.switch}"

    def not_comparable(self, built: frozenset[str]) -> tuple[str, ...]:
        """The metrics that miss a fabric this generation left out (``left_out``) but another column
        ``built``: its whole-network and cost figures leave that fabric out, so they do not compare.
        Columns that all left out the same fabrics compare with each other."""
        if not set(self.left_out) & built:
            return ()
        return tuple(k for k, scope in SCOPES.items() if scope in PARTIAL_SCOPES or k in PARTIAL_METRICS)

    @property
    def compute_switch(self) -> str:
        return self.report.model.fabrics[FabricRole.COMPUTE].first.leaf.id

    def metrics(self) -> dict[str, float]:
        """The figures compared across generations (computed once; the writers ask often)."""
        return dict(self._metrics)

    @cached_property
    def _metrics(self) -> dict[str, float]:
        r, m = self.report, self.report.model
        gpus = m.cluster.gpus
        t = r.totals
        lines = r.lines
        net = [x for x in lines if x.category in NETWORK]
        out: dict[str, float] = {"gpus": gpus, "gpus_per_domain": self.platform.gpus_per_domain,
                                 "domains": m.cluster.domains}
        # Scale-out figures are the compute fabric's (the GPUs' own tier); see SCOPES.
        compute = t.fabrics[FabricRole.COMPUTE]
        per_tier: dict[Tier, LinkTotals | TierTotals] = {Tier.SCALE_UP: t.scale_up, Tier.SCALE_OUT: compute,
                                                          Tier.SCALE_ACROSS: t.scale_across}
        for tier, totals in per_tier.items():
            key = tier.replace("-", "_")
            mine = [x for x in net
                    if x.tier == tier and (tier != Tier.SCALE_OUT or x.fabric == FabricRole.COMPUTE)]
            usd = sum(x.price_usd for x in mine)
            copper_usd = sum(x.price_usd for x in mine if x.category in COPPER)
            out[f"{key}_links_per_gpu"] = totals.links / gpus
            out[f"{key}_copper_share"] = totals.copper_share
            out[f"{key}_copper_cost_share"] = copper_usd / usd if usd else 0.0
        network = t.network
        out["network_copper_share"] = network.copper_share
        # Every link of the cluster, the scale-up tier's NVLink copper included: the share a reader
        # compares across kinds of system (an NVL72's copper is in its scale-up tier, an 8-GPU node's not).
        up = t.scale_up
        all_links = up.links + network.links
        out["cluster_copper_share"] = (up.copper_links + network.copper_links) / all_links if all_links else 0.0
        out.update(self.reliability)
        out["support_links_per_gpu"] = t.fabric_links(SUPPORT) / gpus
        # The whole network includes a scale-up tier's own optics (a TPU torus's cube-to-OCS links).
        out["modules_per_gpu"] = (network.modules + up.modules) / gpus
        out["fibre_runs_per_gpu"] = (network.fibre_runs + up.fibre_runs) / gpus
        out["lit_strands_per_gpu"] = (network.fibre_strands + up.fibre_strands) / gpus
        out["switches_per_gpu"] = sum(x.quantity for x in lines if x.category in SWITCHES
                                      and x.fabric != "spares") / gpus
        out["support_switches_per_gpu"] = sum(x.quantity for x in lines
                                              if x.category == Category.SWITCH and x.fabric in SUPPORT) / gpus
        out["scale_out_gbps_per_gpu"] = _scale_out_gbps(self.platform)
        # Co-packaged optics: engine ports need no module, but the switches need laser modules; the
        # optics' power is every pluggable's, AOC's and laser module's (engines are in the switch power).
        out["engine_ports_per_gpu"] = t.engine_ports() / gpus
        installed = [x for x in net if x.fabric != "spares"]
        out["laser_sources_per_gpu"] = sum(x.quantity for x in installed if x.category == Category.LASER_SOURCE) / gpus
        out["optics_power_w_per_gpu"] = sum(x.power_w for x in installed if x.category in OPTICS) / gpus
        c = r.tco
        out.update(network_capex_per_gpu=c.network_usd / gpus, network_power_w_per_gpu=c.network_power_kw * 1000 / gpus,
                   network_capex_share=c.network_capex_share, network_power_share=c.network_power_share,
                   capex_per_gpu=c.capex_usd / gpus, tco_usd=c.tco_usd, usd_per_gpu_hour=c.usd_per_gpu_hour)
        # Cost per unit of compute: the cost per GPU-hour over the GPU's dense PFLOP/s at each dtype it has.
        for dtype in DTYPES:
            if getattr(self.platform, f"{dtype}_dense") is not None:
                pflops = self.platform.flops_per_gpu(dtype) / 1e15
                out[f"usd_per_pflop_hour_{dtype}"] = c.usd_per_gpu_hour / pflops if pflops else 0.0
        if r.job is not None:   # the job each generation was sized for: its cost and time side by side
            j = r.job
            out.update(job_gpu_hours=j.gpu_hours, job_wall_days=j.wall_days, job_energy_mwh=j.energy_mwh,
                       job_cost_usd=j.cost_usd, job_marginal_cost_usd=j.marginal_cost_usd)
        return out


#: What each metric is about: the GPUs' own compute fabric, the storage / in-band / out-of-band
#: fabrics, the whole network (every fabric and the DCI), or the whole cluster.
SCOPES: dict[str, str] = {
    "gpus": "cluster", "gpus_per_domain": "platform", "domains": "cluster",
    "scale_up_links_per_gpu": Tier.SCALE_UP, "scale_up_copper_share": Tier.SCALE_UP,
    "scale_up_copper_cost_share": Tier.SCALE_UP,
    "scale_out_links_per_gpu": "compute fabric", "scale_out_copper_share": "compute fabric",
    "scale_out_copper_cost_share": "compute fabric",
    "scale_across_links_per_gpu": Tier.SCALE_ACROSS, "scale_across_copper_share": Tier.SCALE_ACROSS,
    "scale_across_copper_cost_share": Tier.SCALE_ACROSS,
    "network_copper_share": "whole network", "cluster_copper_share": "whole cluster",
    "interruptions_per_day": "cluster", "goodput": "cluster", "usd_per_useful_gpu_hour": "cluster",
    "support_links_per_gpu": "storage, in-band, out-of-band",
    "modules_per_gpu": "whole network", "fibre_runs_per_gpu": "whole network", "lit_strands_per_gpu": "whole network",
    "switches_per_gpu": "whole network", "support_switches_per_gpu": "storage, in-band, out-of-band",
    "scale_out_gbps_per_gpu": "compute fabric",
    "engine_ports_per_gpu": "whole network", "laser_sources_per_gpu": "whole network",
    "optics_power_w_per_gpu": "whole network",
    "network_capex_per_gpu": "whole network", "network_power_w_per_gpu": "whole network",
    "network_capex_share": "whole network", "network_power_share": "whole network",
    "capex_per_gpu": "cluster", "tco_usd": "cluster", "usd_per_gpu_hour": "cluster",
    "usd_per_pflop_hour_bf16": "cluster", "usd_per_pflop_hour_fp8": "cluster", "usd_per_pflop_hour_fp4": "cluster",
    "job_gpu_hours": "job", "job_wall_days": "job", "job_energy_mwh": "job", "job_cost_usd": "job",
    "job_marginal_cost_usd": "job",
}
#: The job's metrics: present when the comparison sizes each generation from the scenario's training job.
JOB_METRICS = tuple(k for k, v in SCOPES.items() if v == "job")
#: The dtypes a cost per dense PFLOP/s-hour is given for; a comparison shows those every column's GPU has
#: (a TPU v4 has no FP8, a Hopper no FP4).
DTYPES = ("bf16", "fp8", "fp4")
PFLOP_METRICS = tuple(f"usd_per_pflop_hour_{d}" for d in DTYPES)


#: Scopes and cluster metrics that include the storage, in-band and out-of-band fabrics.
PARTIAL_SCOPES = frozenset({"whole network", "storage, in-band, out-of-band"})
PARTIAL_METRICS = frozenset({"capex_per_gpu", "tco_usd", "usd_per_gpu_hour", "usd_per_useful_gpu_hour",
                             *PFLOP_METRICS})


#: The figures of the network alone: equal in two columns, their networks are the same.
NETWORK_METRICS = tuple(k for k, scope in SCOPES.items()
                        if scope in (Tier.SCALE_UP, "compute fabric", Tier.SCALE_ACROSS)
                        and k != "scale_out_gbps_per_gpu"
                        ) + ("modules_per_gpu", "fibre_runs_per_gpu", "lit_strands_per_gpu", "optics_power_w_per_gpu")


def _rate(p: Platform) -> str:
    return f"{magnitude(p.scale_out.rate, 'rate'):g}G"


def _scale_out_gbps(p: Platform) -> float:
    return p.scale_out.ports * magnitude(p.scale_out.rate, "rate") / p.gpus_per_node


@dataclass(frozen=True)
class Comparison:
    name: str
    generations: list[Generation]
    skipped: dict[str, str]          # platform id -> why it cannot build this job

    def rows(self) -> list[dict[str, float]]:
        """Each generation's metrics, those every generation has (a dtype one GPU lacks is left out)."""
        rows = [g.metrics() for g in self.generations]
        common = set.intersection(*(set(r) for r in rows)) if rows else set()
        return [{k: v for k, v in r.items() if k in common} for r in rows]

    def not_comparable(self, g: Generation) -> tuple[str, ...]:
        """``g``'s metrics that miss a fabric another column built (Generation.not_comparable)."""
        built = frozenset(f for other in self.generations for f in other.report.model.fabrics)
        return g.not_comparable(built)

    def kind_notes(self) -> list[str | None]:
        """A note where the previous generation is a different kind of system (node vs rack scale)."""
        out: list[str | None] = [None]
        for prev, cur in zip(self.generations, self.generations[1:], strict=False):
            p, c = prev.platform, cur.platform
            notes = [] if (p.system, p.gpus_per_domain) == (c.system, c.gpus_per_domain) else [
                f"the previous generation ({p.id}) is a {p.system} system with {p.gpus_per_domain}-GPU "
                f"scale-up domains, this one a {c.system} system with {c.gpus_per_domain}-GPU domains: "
                f"per-GPU changes come from the kind of system as much as from the generation"]
            a, b = prev.metrics(), cur.metrics()
            if all(a[k] == b[k] for k in NETWORK_METRICS):
                notes.append(
                    f"its scale-up, compute fabric and optics figures equal the previous column's ({p.id}): "
                    f"the two catalog rows give the same network, the scale-up tier ({c.scale_up.links_per_gpu} "
                    f"links per GPU, "
                    f"{c.scale_up.kind}), the node's scale-out ports ({c.scale_out.ports} x "
                    f"{_rate(c)} per {c.gpus_per_node} GPUs) and switch ({c.default_switch}); the rest differs by "
                    f"the compute rows' price, power and rack. Check the two rows' notes for which of these "
                    f"are assumed")
            out.append("; ".join(notes) or None)
        return out

    def to_json(self) -> dict[str, object]:
        rows = self.rows()
        gens = []
        for i, (g, row, kind) in enumerate(zip(self.generations, rows, self.kind_notes(), strict=True)):
            prev = rows[i - 1] if i else None
            gens.append({"platform": g.platform.id, "label": g.label, "switch": g.compute_switch,
                         "generation": g.platform.generation, "year": g.platform.year,
                         "system": g.platform.system, "note": g.note, "kind_note": kind,
                         "left_out": list(g.left_out), "not_comparable": list(self.not_comparable(g)),
                         "metrics": {k: round(v, 6) for k, v in row.items()},
                         "delta": None if prev is None else {k: round(v - prev[k], 6) for k, v in row.items()},
                         "change": None if prev is None else {
                             k: (round(v - prev[k], 6) if "share" in k else
                                 (round(v / prev[k] - 1, 6) if prev[k] else None)) for k, v in row.items()}})
        return {"name": self.name, "scopes": {k: SCOPES[k] for k in rows[0]} if rows else {}, "generations": gens,
                "skipped": self.skipped}


#: The fabric keys a platform's own defaults fill when a comparison (or a sweep's platform axis) moves a job to
#: another platform: its switch and scalable unit (the scenario's floor plan, ``layout``, goes back to the defaults
#: too).
PLATFORM_OWNED = ("switch", "su_nodes")


def variant(scenario: Scenario, platform_id: str, gpus: int | None, switch: str | None = None) -> Scenario:
    # Each generation's own switches (its platform's defaults on every fabric) and SU; set keys only.
    fabrics = {k: f.model_copy(update={key: None for key in PLATFORM_OWNED if key in f.model_fields_set})
               for k, f in scenario.fabric_specs.items()}
    if switch is not None:   # the entry's compute switch (platform@switch)
        compute = fabrics.get(FabricRole.COMPUTE, FabricSpec())
        fabrics[FabricRole.COMPUTE] = compute.model_copy(update={"switch": switch})
    update: dict[str, object] = {"platform": platform_id, "fabrics": fabrics, "layout": type(scenario.layout)(),
                                 "name": f"{scenario.name}-{platform_id}"}
    if gpus is not None:
        update.update(gpus=gpus, nodes=None, workload=None)
    elif scenario.nodes is not None:
        raise BomError("a comparison needs a GPU count or a workload: nodes differ between platforms",
                       key="nodes", hint="Give gpus: N in the scenario or --gpus N.")
    return scenario.model_copy(update=update)
