"""``bom verify``'s stage: read the sources, stream the plan past them, and the work order's files."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bom.cableplan.rows import no_cycle_collection, rows
from bom.errors import BomError
from bom.outputs.writers.workorder import output
from bom.roles import FabricRole
from bom.topology.fabrics import infiniband
from bom.verify import hcamap, workorder
from bom.verify import ib as ibnet
from bom.verify import lldp as lldpd
from bom.verify.check import Verification, verify
from bom.verify.seen import Seen

if TYPE_CHECKING:
    from bom.catalog.rows import Catalog
    from bom.model.model import Model
    from bom.outputs.publish import Output


def read_sources(lldp: Path | None, ib: Path | None, hca_map: Path | None = None) -> Seen:
    """Every neighbour pair the sources saw (exit 2 naming the file on bad input); ``hca_map`` names the
    HCAs ibnetdiscover lists after the plan's ports."""
    with no_cycle_collection():
        return _read(lldp, ib, hca_map)


def _read(lldp: Path | None, ib: Path | None, hca_map: Path | None) -> Seen:
    seen = Seen()
    if lldp is not None:
        lldpd.read_dir(lldp, seen)
    if ib is not None:
        if not ib.is_file():
            raise BomError("is not a file", where=str(ib), key="--ib", hint=ibnet.HINT)
        ibnet.read(ib, seen, hcamap.read(hca_map) if hca_map is not None else None)
    seen.read()
    return seen


def verify_model(model: Model, catalog: Catalog, seen: Seen, fabrics: Iterable[str] = ()) -> Verification:
    """The model's cable plan, streamed row by row, against ``seen``."""
    known = set(model.fabrics) | ({FabricRole.DCI} if model.dci is not None else set())
    for f in fabrics:
        if f not in known:
            raise BomError(f"the design has no fabric {f!r} (it has {', '.join(sorted(known))})", key="--fabric")
    with no_cycle_collection():
        return verify(rows(model, catalog=catalog), seen, fabrics, infiniband(model, catalog))



def work_order(v: Verification, name: str) -> Output:
    return output(name, workorder.HEADER, workorder.rows(v), workorder.PARTS_HEADER, workorder.parts(v))


def lines(v: Verification, limit: int = 50) -> list[str]:
    """The text ``bom verify`` prints: each cable that is not ok, then the counts."""
    out: list[str] = []
    groups: list[tuple[str, list[Any]]] = [
        ("missing", [f"{p.field('cable_id')} {p.expected}" for p in v.missing]),
        ("miswired", [f"{p.field('cable_id')} expected {p.expected}; found {p.found}" for p in v.miswired]),
        ("wrong speed", [f"{p.field('cable_id')} {p.expected}: {p.found_rate:g} Gbit/s, the plan "
                         f"{p.field('rate_gbps'):g} Gbit/s" for p in v.wrong_speed]),
        ("unexpected", [f"{u.found} ({u.why}; {u.source})" for u in v.unexpected]),
    ]
    for title, items in groups:
        out += [f"{title}: {x}" for x in items[:limit]]
        if len(items) > limit:
            out.append(f"... and {len(items) - limit:,} more {title}")
    if v.netbox is not None:
        out += [f"netbox: {x}" for x in v.netbox.lines(limit)]
    out.append(f"{v.ok:,} ok, {len(v.missing):,} missing, {len(v.miswired):,} miswired, "
               f"{len(v.wrong_speed):,} wrong speed, {len(v.unexpected):,} unexpected; "
               f"{v.not_checked:,} planned cables whose ends no source can see were not checked"
               + ("; everything matches the plan" if v.match else ""))
    return out
