"""Endpoints beyond the GPU nodes: storage appliances, fabric managers, management servers.

Counts are per site (each building runs its own fabrics): the platform's reference-architecture
defaults (``support`` in platforms.yaml), overridden by the scenario's ``storage:`` and
``management:`` blocks. A storage block gives a count, or capacity and throughput that derive
it (the larger of the two ratios, whole appliances). PDUs are placed per rack (bom/placement/layout.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bom.catalog.rows import Catalog, Endpoint, NicPorts, Platform
from bom.errors import BomError, LimitError
from bom.inputs.scenario import Scenario
from bom.units import magnitude


@dataclass(frozen=True)
class Endpoints:
    ufm: Endpoint | None
    ufm_count: int
    mgmt: Endpoint | None
    mgmt_count: int
    storage: Endpoint | None
    storage_count: int
    storage_ports: NicPorts | None    # per appliance, on the storage fabric
    why: str                           # how the storage count was reached

    def management(self) -> list[tuple[Endpoint, int]]:
        return [(r, n) for r, n in ((self.ufm, self.ufm_count), (self.mgmt, self.mgmt_count)) if r and n]

    def storage_rows(self) -> list[tuple[Endpoint, int]]:
        return [(self.storage, self.storage_count)] if self.storage and self.storage_count else []

    def ports(self, fabric: str) -> int:
        """Ports per site on ``fabric`` (storage appliances on storage; servers on in-band)."""
        total = 0
        for row, n in self.management() + self.storage_rows():
            nic = self.storage_ports if fabric == "storage" and row is self.storage else getattr(row.ports, fabric)
            total += n * (nic.ports if nic else 0)
        return total

    def kinds(self, fabric: str) -> list[tuple[str, NicPorts, int]]:
        """(role, the row's own ports on ``fabric``, ports per site) of every endpoint kind on it."""
        out = []
        for row, n in self.management() + self.storage_rows():
            nic = self.storage_ports if fabric == "storage" and row is self.storage else getattr(row.ports, fabric)
            if nic is not None and n:
                out.append((row.role, nic, n * nic.ports))
        return out

    def to_json(self) -> dict[str, object]:
        return {"ufm": {"id": self.ufm.id if self.ufm else None, "count": self.ufm_count},
                "management_servers": {"id": self.mgmt.id if self.mgmt else None, "count": self.mgmt_count},
                "storage": {"id": self.storage.id if self.storage else None, "count": self.storage_count,
                            "ports": self.storage_ports.ports if self.storage_ports else 0, "why": self.why}}


def _row(catalog: Catalog, rid: str | None, path: tuple[str, ...]) -> Endpoint | None:
    if rid is None:
        return None
    try:
        row = catalog.get("endpoints", rid, key=".".join(path))
    except BomError as exc:
        exc.where, exc.at = None, path
        raise
    assert isinstance(row, Endpoint)
    return row


# The largest DGX BasePOD: RA-11127-001 V5, "DGX BasePOD with NDR200 Compute Fabric", Table 5
# ("Compute nodes (2-16)"; the NDR400 variant, Table 1, takes 2-8). A site this small follows the
# BasePOD RA, a larger one the platform's SuperPOD RA (the catalog row's support counts).
BASEPOD_MAX_NODES = 16
# UFM below a SuperPOD: one HA pair (a UFM server and its UFM HA server, UFM Enterprise User
# Manual, "UFM Overview"). The BasePOD RA pages read (System Architecture) do not state a UFM
# count, so this is the stated rule, not a published figure (tests/reference/test_basepod.py).
BASEPOD_UFM = 2


def build_endpoints(scenario: Scenario, catalog: Catalog, platform: Platform,
                    compute_protocol: str | None, sites: int, site_nodes: int | None = None) -> Endpoints:
    """``site_nodes``: nodes in the largest site; at BasePOD size the UFM default is one HA pair."""
    sup = platform.support
    m = scenario.management
    ufm_id = m.ufm if m and m.ufm else (sup.ufm if sup else None)
    ufm = _row(catalog, ufm_id, ("management", "ufm"))
    ufm_default = sup.ufm_count if sup and compute_protocol == "infiniband" else 0
    if site_nodes is not None and site_nodes <= BASEPOD_MAX_NODES:
        ufm_default = min(ufm_default, BASEPOD_UFM)
    ufm_count = m.ufm_count if m and m.ufm_count is not None else ufm_default
    mgmt = _row(catalog, m.server if m and m.server else (sup.mgmt if sup else None),
                ("management", "server"))
    mgmt_count = m.servers if m and m.servers is not None else (sup.mgmt_count if sup else 0)
    storage, count, nic, why = _storage(scenario, catalog, platform, sites)
    return Endpoints(ufm, ufm_count, mgmt, mgmt_count, storage, count, nic, why)


def _storage(scenario: Scenario, catalog: Catalog, platform: Platform,
             sites: int) -> tuple[Endpoint | None, int, NicPorts | None, str]:
    s = scenario.storage
    if s is None:
        return None, 0, None, "no storage block"
    sup = platform.support
    row = _row(catalog, s.appliance or (sup.storage if sup else None), ("storage", "appliance"))
    if row is None:
        raise BomError("the storage block needs an appliance (a catalog endpoints row)", at=("storage",),
                       key="storage.appliance")
    base = row.ports.storage
    if s.ports is not None or s.rate is not None:
        if base is None and (s.ports is None or s.rate is None):
            raise BomError(f"appliance {row.id!r} has no storage ports in the catalog; give both ports and rate",
                           at=("storage",), key="storage.ports")
        update: dict[str, object] = {}
        if s.ports is not None:
            update["ports"] = s.ports
        if s.rate is not None:
            update["rate"] = s.rate
        nic = base.model_copy(update=update) if base else NicPorts(ports=s.ports, rate=s.rate,  # type: ignore[arg-type]
                                                                   form_factor="qsfp112", ports_per_cage=1)
    else:
        nic = base
    if nic is None or nic.ports < 1:
        raise LimitError(f"storage appliance {row.id!r} has no storage-fabric ports",
                         at=("storage", "ports"), key="storage.ports",
                         hint="Give storage.ports >= 1 (ports per appliance) or another appliance.")
    count, why = _storage_count(s, row)
    return row, math.ceil(count / sites), nic, why


def _storage_count(s: object, row: Endpoint) -> tuple[int, str]:
    count = getattr(s, "count", None)
    if count is not None:
        return count, f"{count} appliances given"
    need: list[tuple[int, str]] = []
    for key, have, dim, _unit in (("capacity", row.capacity, "information", "TB"),
                                 ("throughput", row.throughput, "rate", "GB/s")):
        want = getattr(s, key, None)
        if want is None:
            continue
        if have is None:
            raise BomError(f"appliance {row.id!r} has no {key} in the catalog, so a {key} cannot size it",
                           at=("storage", key), key=f"storage.{key}", hint="Give storage.count.")
        per = magnitude(have, dim)
        n = math.ceil(magnitude(want, dim) / per - 1e-9)
        need.append((n, f"{key} {magnitude(want, dim):g} / {per:g} per appliance -> {n}"))
    if not need:
        raise BomError("the storage block needs count, or capacity and/or throughput",
                       at=("storage",), key="storage.count", hint="Add count: 8.")
    n, why = max(need)
    return max(n, 1), "; ".join(w for _, w in need)
