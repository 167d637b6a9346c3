"""``bom topology --format ibsim``'s stage: an InfiniBand fabric's switch rows and plan rows to the net file
and the HCA map (:mod:`bom.outputs.writers.ibsim` formats them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bom.cableplan.rows import COL, rows
from bom.catalog.rows import Switch
from bom.errors import BomError
from bom.names import switch_role
from bom.outputs.writers.ibsim import IbsimNet, SwitchKind, hca_map, ibsim_net, write_net
from bom.topology.fabrics import infiniband
from bom.units import magnitude

if TYPE_CHECKING:
    from bom.catalog.rows import Catalog
    from bom.model.model import Model


def switch_kinds(model: Model, catalog: Catalog, fabric: str) -> dict[str, SwitchKind]:
    """The fabric's switch roles (leaf, spine, core) and what the net file says of each."""
    rows_ = catalog.rows.get("switches", {})
    out: dict[str, SwitchKind] = {}
    for layer, row_id in model.fabrics[fabric].switch_ids().items():
        sw = rows_[row_id]
        assert isinstance(sw, Switch)
        out[switch_role(fabric, layer)] = SwitchKind(sw.ports, sw.ports_per_cage,
                                                     magnitude(sw.lane_rate, "rate"),
                                                     sw.part_number.split("-", 1)[0])
    return out


def ibsim_files(model: Model, catalog: Catalog, stem: str, site: int, fabric: str
                ) -> tuple[IbsimNet, dict[str, bytes]]:
    """The net file and the HCA map of ``fabric`` at ``site`` (1-based), by file name."""
    if fabric not in infiniband(model, catalog):
        raise BomError(f"the {fabric} fabric's switches are not InfiniBand: ibsim simulates InfiniBand only",
                       key="--format", hint="Give --fabric the name of an InfiniBand fabric (compute on a "
                                            "Quantum switch), or another --format.")
    net = ibsim_net(rows(model, catalog=catalog), COL, stem, f"s{site}", fabric, switch_kinds(model, catalog, fabric))
    return net, {f"{stem}.ibnet": write_net(net), f"{stem}-hca-map.csv": hca_map(net)}
