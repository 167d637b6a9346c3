"""Loading a catalog: the built-in directory, overlay directories, price files, then the checks.

Apart from :mod:`bom.catalog.rows` (the row types) so that the row types, the price files
(:mod:`bom.catalog.prices`) and the cross-row checks (:mod:`bom.catalog.checks`) import one
another in one direction only: rows <- prices, checks <- load.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bom.catalog.checks import check_catalog
from bom.catalog.prices import apply_prices
from bom.catalog.rows import DEFAULTS, KINDS, Catalog, Default
from bom.errors import CatalogError
from bom.inputs.validation import suggest, validate
from bom.inputs.yamlio import Located, load_file
from bom.resources import data_dir


def _load_dir(catalog: Catalog, directory: Path, overlay: bool) -> None:
    files = sorted(directory.glob("*.yaml")) + sorted(directory.glob("*.yml"))
    if not files and overlay:
        raise CatalogError("no catalog files (*.yaml) in this directory", where=str(directory))
    seen_here: dict[str, str] = {}
    for path in files:
        src = load_file(path, "catalog file")
        if src.data is None:
            continue
        if not isinstance(src.data, dict) or len(src.data) != 1:
            raise CatalogError(f"a catalog file holds one top-level key, one of: "
                               f"{', '.join(KINDS)}", where=src.where(()))
        (kind, rows), = src.data.items()
        if kind not in KINDS and kind != DEFAULTS:
            raise CatalogError(suggest(str(kind), [*KINDS, DEFAULTS], "catalog kind"), where=src.where((kind,)))
        if not isinstance(rows, list):
            raise CatalogError("expected a list of rows", where=src.where((kind,)), key=kind)
        if kind == DEFAULTS:
            _load_defaults(catalog, rows, src)
            continue
        for i, data in enumerate(rows):
            row = validate(KINDS[kind], data, src, (kind, i))
            where = src.where((kind, i))
            if row.id in seen_here:
                raise CatalogError(f"duplicate id {row.id!r} (first at {seen_here[row.id]})",
                                   where=where, key=f"{kind}.{i}.id",
                                   hint="Ids are unique across a catalog directory.")
            other = catalog.kind_of(row.id)
            if other is not None and other != kind:
                raise CatalogError(f"id {row.id!r} is already a {other} row; an overlay "
                                   f"replaces rows of the same kind only", where=where)
            seen_here[row.id] = where
            catalog.rows[kind][row.id] = row
            catalog.origin[row.id] = where
            catalog._keys[row.id] = (src, (kind, i))


def _load_defaults(catalog: Catalog, rows: list[Any], src: Located) -> None:
    """The defaults of one file: an overlay's replace the built-in ones of the same fabric and layer."""
    seen: dict[tuple[str, str], str] = {}
    for i, data in enumerate(rows):
        d = validate(Default, data, src, (DEFAULTS, i))
        where = src.where((DEFAULTS, i))
        key = (d.fabric, d.layer)
        if key in seen:
            raise CatalogError(f"a second default for the {d.fabric} {d.layer} (first at {seen[key]})",
                               where=where, key=f"{DEFAULTS}.{i}")
        seen[key] = where
        catalog.defaults[key] = d
        catalog.origin.setdefault(f"{DEFAULTS}:{d.id}", where)


def builtin_dir() -> Path:
    """The catalogs shipped with the package."""
    return data_dir("catalogs")


def load_catalog(overlays: list[Path] | None = None, prices: list[Path] | None = None,
                 base: Path | None = None, rates: dict[str, float] | None = None,
                 strict_prices: bool = False, columns: dict[str, str] | None = None) -> Catalog:
    """The built-in catalog (or ``base``), then each overlay directory, then each price file
    (prices in other currencies converted at ``rates``, USD per unit; an unknown SKU refused when
    ``strict_prices``, else a warning in ``catalog.notes``; ``columns``: the scenario's prices.columns)."""
    catalog = Catalog()
    _load_dir(catalog, base or builtin_dir(), overlay=False)
    for directory in overlays or []:
        if not directory.is_dir():
            raise CatalogError("not a directory", where=str(directory),
                               hint="--catalog takes a directory of YAML catalog files.")
        _load_dir(catalog, directory, overlay=True)
    for path in prices or []:
        apply_prices(catalog, path, rates, strict_prices, columns)
    check_catalog(catalog)
    return catalog
