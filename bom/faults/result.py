"""What `bom faults` says of a build: its failure domains, interruptions, goodput and redundancy options, and
their JSON (typed records beside their to_json)."""

from __future__ import annotations

from dataclasses import dataclass

from typing_extensions import TypedDict

from bom.costing.report import Report
from bom.faults.domains import Domain, fault_domains
from bom.faults.goodput import SECONDS_PER_DAY, Goodput, goodput
from bom.faults.interruptions import Interruptions, interruptions
from bom.faults.rates import failure_rates
from bom.faults.redundancy import Option, options, replica_share, scale_out_share
from bom.model.records import Count, Share
from bom.roles import FaultElement

#: Days the Llama 3 paper's snapshot spans (Table 5): the JSON's interruptions over that many days too.
PAPER_DAYS = 54.0


class GroupsJson(TypedDict):
    """Groups of one parallel dimension that stall, of how many."""

    stalled: Count
    groups: Count


class DomainJson(TypedDict):
    """One element class's failure domain: what one element's failure does."""

    element: FaultElement
    what: str
    count: Count
    """Elements of the class in the cluster."""
    gpus_cut: Count
    """GPUs one element cuts off from the rest of the job."""
    domains_broken: Count
    """Scale-up domains with a GPU cut off."""
    bisection_lost: Share
    """Share of the compute fabric's top-layer links one element takes (every plane and site)."""
    sites_split: bool
    interrupts: bool
    """The job stops when one element fails."""
    stalled: dict[str, GroupsJson] | None
    """The sized job's TP, CP, EP, PP and DP groups that stall; null without a training split."""
    replicas_lost: Count | None
    """Model replicas (DP x EP copies) that lose a GPU; null without a training split."""
    why: str


class InterruptionJson(TypedDict):
    """One failure-rate row on this cluster."""

    id: str
    category: str
    group: str
    part: str
    units: Count
    """The cluster's units of the part (GPUs, nodes, compute NIC ports, compute links, feeds, ...)."""
    rate_per_unit_day: float | None
    """Interruptions per unit and day (null: no published rate read)."""
    stops_job: bool
    per_day: float
    """Expected job interruptions a day."""
    over_54_days: float
    """Expected over the Llama 3 paper's 54-day snapshot, to set beside its Table 5."""
    source: str


class GoodputJson(TypedDict):
    """The job's goodput under its interruptions (Young 1974, bom/faults/goodput.py)."""

    interruptions_per_day: float
    mtbi_hours: float | None
    """Mean time between interruptions [h]; null with none expected."""
    checkpoint_write_s: float
    checkpoint_interval_s: float | None
    """The interval used (Young's optimum unless faults.checkpoint_interval is given); null with none expected."""
    restart_s: float
    repair_s: float
    checkpoint_and_restart: Share
    """Goodput from checkpoints, redone work and restarts alone."""
    degraded_loss: Share
    """Lost while the job runs short of a failed node's replicas or a spine's links until repaired."""
    goodput: Share
    job_days: float | None
    """The job's failure-free wall days (the build's job); null without a training job."""
    job_days_with_failures: float | None
    """job_days over the goodput."""
    usd_per_gpu_hour: float
    """The TCO's cost per GPU-hour."""
    usd_per_useful_gpu_hour: float
    """usd_per_gpu_hour over the goodput."""


class RedundancyJson(TypedDict):
    """One redundancy option: its capex and what it changes."""

    option: str
    built: bool
    """The base build already has it (its capex is in the build's)."""
    units: Count
    capex_usd: float | None
    """What it adds to the capex (null: it could not be built here; why says so)."""
    goodput: Share | None
    """The goodput with the option (null: no failure rate to price its gain by)."""
    goodput_gain: Share | None
    usd_per_useful_gpu_hour: float | None
    """With the option's capex in the TCO, over its goodput."""
    usd_per_useful_gpu_hour_change: float | None
    why: str


class FaultsJson(TypedDict):
    """`bom faults --json`: the failure domains worst first, the interruptions, the goodput, redundancy priced."""

    name: str
    gpus: Count
    domains: list[DomainJson]
    interruptions: list[InterruptionJson]
    unexpected_per_day: float
    goodput: GoodputJson
    redundancy: list[RedundancyJson]


@dataclass(frozen=True)
class Faults:
    report: Report
    domains: list[Domain]
    rows: list[Interruptions]
    base: Goodput            # checkpoints and restarts alone
    degraded: float          # share lost running short until repairs
    repair_s: float
    options: list[Option]

    @property
    def goodput(self) -> float:
        return max(0.0, self.base.share - self.degraded)

    @property
    def usd_per_gpu_hour(self) -> float:
        return self.report.tco.usd_per_gpu_hour

    def useful_usd(self, goodput: float, capex_usd: float = 0.0) -> float | None:
        """A useful GPU-hour's cost at ``goodput`` with ``capex_usd`` more in the TCO (None: no useful hour)."""
        t = self.report.tco
        if goodput <= 0:
            return None
        return t.usd_per_gpu_hour * (1.0 + capex_usd / t.tco_usd if t.tco_usd else 1.0) / goodput

    def to_json(self) -> FaultsJson:
        m = self.report.model
        return {"name": m.scenario.name, "gpus": m.cluster.gpus,
                "domains": [_domain_json(d, m.cluster.gpus) for d in self.domains],
                "interruptions": [_row_json(r) for r in self.rows],
                "unexpected_per_day": round(sum(r.per_day for r in self.rows), 6),
                "goodput": self._goodput_json(), "redundancy": [self._option_json(o) for o in self.options]}

    def _goodput_json(self) -> GoodputJson:
        b, job = self.base, self.report.job
        useful = self.useful_usd(self.goodput)
        return {"interruptions_per_day": round(b.per_day, 6),
                "mtbi_hours": round(b.mtbi_h, 4) if b.per_day else None,
                "checkpoint_write_s": b.checkpoint_s,
                "checkpoint_interval_s": round(b.interval_s, 1) if b.per_day else None,
                "restart_s": b.restart_s, "repair_s": self.repair_s,
                "checkpoint_and_restart": round(b.share, 6), "degraded_loss": round(self.degraded, 6),
                "goodput": round(self.goodput, 6),
                "job_days": round(job.wall_days, 4) if job is not None else None,
                "job_days_with_failures": (round(job.wall_days / self.goodput, 4)
                                           if job is not None and self.goodput else None),
                "usd_per_gpu_hour": round(self.usd_per_gpu_hour, 6),
                "usd_per_useful_gpu_hour": round(useful, 6) if useful is not None else 0.0}

    def _option_json(self, o: Option) -> RedundancyJson:
        base = self.useful_usd(self.goodput)
        if o.loss_avoided is None:
            g = usd = None
        else:
            g = min(self.base.share, self.goodput + o.loss_avoided)
            usd = self.useful_usd(g, 0.0 if o.built else o.capex_usd) if o.capex_usd is not None else None
        return {"option": o.name, "built": o.built, "units": o.units,
                "capex_usd": round(o.capex_usd, 2) if o.capex_usd is not None else None,
                "goodput": round(g, 6) if g is not None else None,
                "goodput_gain": round(g - self.goodput, 6) if g is not None else None,
                "usd_per_useful_gpu_hour": round(usd, 6) if usd is not None else None,
                "usd_per_useful_gpu_hour_change": (round(usd - base, 6) if usd is not None and base is not None
                                                   else None),
                "why": o.why}


def _domain_json(d: Domain, gpus: int) -> DomainJson:
    s = d.stalled
    return {"element": d.element, "what": d.what, "count": d.count, "gpus_cut": d.gpus_cut,
            "domains_broken": d.domains_broken, "bisection_lost": round(d.bisection_lost, 6),
            "sites_split": d.sites_split, "interrupts": d.interrupts,
            "stalled": ({k: GroupsJson(stalled=n, groups=t) for k, (n, t) in s.groups.items()}
                        if s is not None else None),
            "replicas_lost": s.replicas[0] if s is not None else None, "why": d.why}


def _row_json(r: Interruptions) -> InterruptionJson:
    rate = r.rate.per_unit_day
    return {"id": r.rate.id, "category": r.rate.category, "group": r.rate.group, "part": r.rate.part,
            "units": r.units, "rate_per_unit_day": rate, "stops_job": r.stops, "per_day": round(r.per_day, 6),
            "over_54_days": round(r.per_day * PAPER_DAYS, 3), "source": r.rate.source}


def analyse(report: Report, planes: tuple[float | None, str] | None = None) -> Faults:
    """The report's build under failures: its failure domains, interruptions, goodput and redundancy options
    (``planes``: what a two-plane compute fabric adds to the capex, None where it cannot be built, and why;
    None: not priced, the option left out)."""
    m = report.model
    spec = m.scenario.faults
    cdus = report.cooling.cdus if report.cooling is not None else 0
    domains = fault_domains(m, cdus)
    rows = interruptions(m, failure_rates(), domains)
    per_day = sum(r.per_day for r in rows)
    base = goodput(per_day, spec.seconds("checkpoint_write"), spec.seconds("restart"),
                   spec.seconds("checkpoint_interval") or None)
    repair_days = spec.seconds("repair") / SECONDS_PER_DAY
    opts = options(report, rows, domains, repair_days, spec.spare_service_level, planes)
    degraded = sum(o.loss_avoided for o in opts if o.loss_avoided is not None and not o.built)
    return Faults(report, domains, rows, base, degraded, spec.seconds("repair"), opts)


__all__ = ["Faults", "FaultsJson", "analyse", "replica_share", "scale_out_share"]
