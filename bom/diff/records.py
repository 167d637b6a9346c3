"""The records of ``bom diff --json`` (the written ``<old>-vs-<new>-diff.json``): each a TypedDict the
diff's ``to_json`` returns, read by :mod:`bom.outputs.schema` for the schema and docs/output.md."""

from __future__ import annotations

from typing_extensions import TypedDict

from bom.model.records import Count


class FigureJson(TypedDict):
    """One figure in both designs."""

    name: str
    """What the figure is (a JSON path of the build: totals.it_power_kw)."""
    old: float
    new: float
    delta: float
    """new - old."""


class OrderDeltaJson(TypedDict):
    """One part number whose ordered quantity or price moves."""

    catalog_id: str
    sku: str
    category: str
    action: str
    """buy (more of it), return (less of it) or reprice (same quantity, another price)."""
    old_quantity: float
    new_quantity: float
    delta_quantity: float
    """new - old, spares included (the order's total)."""
    unit_price_usd: float
    """The new design's unit price (the old design's for a part it no longer orders)."""
    delta_usd: float
    """new extended - old extended (the order's extended_usd)."""
    lead_time_days: float | None
    """The lead time of what is bought (the row's, or its quote's); null when unknown."""


class CategoryDeltaJson(TypedDict):
    """The order's money in one BOM category."""

    category: str
    old_usd: float
    new_usd: float
    delta_usd: float


class RuleJson(TypedDict):
    """A design rule the new design breaks and the old did not."""

    id: str
    severity: str
    violations: Count
    checks: str
    """What the rule checks."""


class DeviceJson(TypedDict):
    """A device added, removed or moved: the logical device (site, role, index) and where it stands."""

    site: Count
    role: str
    index: Count
    """1-based index of the device among its role's in its site (the plan's numbering)."""
    model: str
    old_rack: str | None
    old_u: Count | None
    new_rack: str | None
    new_u: Count | None


class DevicesJson(TypedDict):
    """Devices added, removed and moved (rack or U); null lists when a side has no placement to read."""

    compared: bool
    """False when a side is an output JSON with no racks CSV beside it (nothing to place devices by)."""
    added: Count
    removed: Count
    moved: Count
    shown: list[DeviceJson]
    """The first changes (at most ``limit`` of each kind)."""
    limit: Count


class CablesJson(TypedDict):
    """The cable plans merged by link end (fabric, hop, near device and port)."""

    compared: bool
    """False when a side is an output JSON (the plans come from the scenarios)."""
    same: Count
    """Rows in both plans unchanged."""
    added: Count
    removed: Count
    moved: Count
    """Rows whose near end stays and whose far end moves (re-patched)."""
    replaced: Count
    """Rows with both ends kept and another cable or module."""
    moved_links: Count
    """Links of the old plan with a row taken out or moved (bom build's recabled_links, for a phase)."""
    held_max: Count
    """The most rows held at once while merging, beside each plan's current row (the memory bound: rows not
    yet matched)."""


class DiffJson(TypedDict):
    """A diff: `bom diff --json`, the written <old>-vs-<new>-diff.json."""

    old: str
    """The old side (scenario path, JSON path or rev:path)."""
    new: str
    same: bool
    """True when no figure, part, device, rule or cable differs (exit 0)."""
    size: list[FigureJson]
    """GPUs, nodes, racks and sites (figures that move)."""
    order: list[OrderDeltaJson]
    """The order delta, one line per part number that moves."""
    categories: list[CategoryDeltaJson]
    """The order's money by BOM category (categories that move)."""
    tco: list[FigureJson]
    """The TCO and its parts (totals and finance figures that move)."""
    power: list[FigureJson]
    """IT, network and facility power, the cooling's CDUs and pumps (figures that move)."""
    optics: list[FigureJson]
    """Copper share, modules and modules per GPU per tier (figures that move)."""
    rules: list[RuleJson]
    """Rules the new design breaks that the old did not."""
    devices: DevicesJson
    cables: CablesJson
