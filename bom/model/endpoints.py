"""The endpoints beyond the GPU nodes (storage appliances, fabric managers, management servers) per
site: a data type (:func:`bom.topology.endpoints.build_endpoints` chooses them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from typing_extensions import TypedDict

from bom.catalog.rows import Endpoint, NicPorts
from bom.model.records import Count
from bom.roles import FabricRole

#: What sized the storage: the scenario's count, capacity or throughput; the training job's
#: checkpoints and dataset; the platform RA's read guideline; none built.
StorageBasis = Literal["scenario", "job", "ra", "none"]


class EndpointJson(TypedDict):
    id: str | None
    count: Count


class StorageJson(TypedDict):
    id: str | None
    count: Count
    ports: Count
    why: str
    basis: StorageBasis
    """What sized the storage: the scenario's count, capacity or throughput; the training job's
    checkpoints and dataset; the platform RA's read guideline; none built."""


class EndpointsJson(TypedDict):
    """UFM, management and storage servers."""

    ufm: EndpointJson
    management_servers: EndpointJson
    storage: StorageJson


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
    warnings: tuple[str, ...] = ()     # what the build chose for the user (the report lists them)
    basis: StorageBasis = "none"

    def management(self) -> list[tuple[Endpoint, int]]:
        return [(r, n) for r, n in ((self.ufm, self.ufm_count), (self.mgmt, self.mgmt_count)) if r and n]

    def storage_rows(self) -> list[tuple[Endpoint, int]]:
        return [(self.storage, self.storage_count)] if self.storage and self.storage_count else []

    def _nic(self, row: Endpoint, fabric: str) -> NicPorts | None:
        """``row``'s ports on ``fabric`` (the appliances' storage ports are the ones the build chose)."""
        if fabric == FabricRole.STORAGE and row is self.storage:
            return self.storage_ports
        nic: NicPorts | None = getattr(row.ports, fabric)   # the row's ports are named after the fabrics
        return nic

    def ports(self, fabric: str) -> int:
        """Ports per site on ``fabric`` (storage appliances on storage; servers on in-band)."""
        total = 0
        for row, n in self.management() + self.storage_rows():
            nic = self._nic(row, fabric)
            total += n * (nic.ports if nic else 0)
        return total

    def kinds(self, fabric: str) -> list[tuple[str, NicPorts, int]]:
        """(role, the row's own ports on ``fabric``, ports per site) of every endpoint kind on it."""
        out: list[tuple[str, NicPorts, int]] = []
        for row, n in self.management() + self.storage_rows():
            nic = self._nic(row, fabric)
            if nic is not None and n:
                out.append((row.role, nic, n * nic.ports))
        return out

    def to_json(self) -> EndpointsJson:
        return EndpointsJson(
            ufm={"id": self.ufm.id if self.ufm else None, "count": self.ufm_count},
            management_servers={"id": self.mgmt.id if self.mgmt else None, "count": self.mgmt_count},
            storage={"id": self.storage.id if self.storage else None, "count": self.storage_count,
                     "ports": self.storage_ports.ports if self.storage_ports else 0, "why": self.why,
                     "basis": self.basis})
