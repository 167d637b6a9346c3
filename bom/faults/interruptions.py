"""The job's expected interruptions a day, per part class: rate x units x (does one unit's failure stop it)."""

from __future__ import annotations

from dataclasses import dataclass

from bom.faults.domains import Domain
from bom.faults.rates import Part, Rate
from bom.model.hops import HopKind
from bom.model.model import Model
from bom.roles import FabricRole, FaultElement

#: The failure domain that says whether one unit of a rate's part stops the job.
DOMAIN_OF: dict[str, FaultElement] = {
    FaultElement.GPU: FaultElement.GPU, FaultElement.NODE: FaultElement.NODE, "nic": FaultElement.LEAF,
    "link": FaultElement.LEAF, FaultElement.FEED: FaultElement.FEED, FaultElement.PDU: FaultElement.PDU,
    FaultElement.CDU: FaultElement.CDU, "route": FaultElement.DCI_ROUTE}
#: Rate groups whose failures need a part replaced (a hot spare takes the failed node's place).
HARDWARE = ("GPU", "Host")


@dataclass(frozen=True)
class Interruptions:
    rate: Rate
    units: int               # the cluster's units of the rate's part
    stops: bool              # one unit's failure stops the job (its failure domain)
    per_day: float           # expected interruptions a day (0: it does not stop the job, or no rate)

    @property
    def hardware(self) -> bool:
        return self.rate.group in HARDWARE


def units(model: Model, part: Part, domains: list[Domain]) -> int:
    """The cluster's units of ``part``: its GPUs, nodes, compute NIC ports and compute fabric links, and
    the elements the failure domains count (feeds, PDUs, CDUs, DCI routes)."""
    f = model.fabrics.get(FabricRole.COMPUTE)
    if part == FaultElement.GPU:
        return model.cluster.gpus
    if part == FaultElement.NODE:
        return model.cluster.nodes
    if part == "nic":
        return f.hop_links(HopKind.NODE_LEAF) // max(f.port_split, 1) if f is not None else 0
    if part == "link":
        return f.sums.links if f is not None else 0
    return sum(d.count for d in domains if d.element == DOMAIN_OF[part])


def interruptions(model: Model, rates: tuple[Rate, ...], domains: list[Domain]) -> list[Interruptions]:
    """Each rate's expected job interruptions a day on this cluster."""
    out = []
    for r in rates:
        n = units(model, r.part, domains)
        stops = any(d.interrupts for d in domains if d.element == DOMAIN_OF[r.part])
        per_unit = r.per_unit_day
        out.append(Interruptions(r, n, stops, n * per_unit if stops and per_unit is not None else 0.0))
    return out
