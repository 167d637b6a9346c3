"""The fabrics a scenario names and the tiers they stand in: one table of what each means.

Both enums are ``str`` enums whose values are the strings the JSON, CSV, workbook and Markdown print,
so the outputs keep their bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class FabricRole(StrEnum):
    """The fabrics a scenario names, and what each is for."""

    COMPUTE = "compute"   # the GPUs' scale-out back end
    STORAGE = "storage"   # the nodes' storage network
    INBAND = "inband"     # in-band management (front end)
    OOB = "oob"           # out-of-band management (BMC, switch management ports)
    DCI = "dci"           # between sites


@dataclass(frozen=True)
class RoleMeaning:
    tier: str
    topology: str | None   # the default topology (None: not a switched fabric of the scenario's)
    support: bool          # a support fabric (storage, in-band, OOB), counted apart from compute


ROLES: dict[FabricRole, RoleMeaning] = {
    FabricRole.COMPUTE: RoleMeaning("scale-out", "rail-optimized", False),
    FabricRole.STORAGE: RoleMeaning("scale-out", "tor", True),
    FabricRole.INBAND: RoleMeaning("scale-out", "tor", True),
    FabricRole.OOB: RoleMeaning("scale-out", "tor", True),
    FabricRole.DCI: RoleMeaning("scale-across", None, False),
}


SUPPORT: tuple[FabricRole, ...] = tuple(r for r, m in ROLES.items() if m.support)


DEFAULT_TOPOLOGY: dict[str, str] = {r: m.topology for r, m in ROLES.items() if m.topology is not None}


class FabricKind(StrEnum):
    """How a fabric is built and walked: each kind has one ordered registry of hop patterns
    (:data:`bom.links.registry.FAMILIES`), and the fabric types say their kind (no dispatch on types)."""

    SWITCHED = "switched"   # a switch fabric: the compute fabric's leaves, spines and cores
    POOLED = "pooled"       # storage and in-band: leaves sized by the ports they carry
    OOB = "oob"             # the management network over every managed device
    DCI = "dci"             # the routers' client links and the coherent line between sites
    SCALE_UP = "scale-up"   # inside every scale-up domain
