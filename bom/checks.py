"""Named consistency checks across catalog rows (what one row's schema cannot see)."""

from __future__ import annotations

from bom.catalog import Catalog, Module, Platform, Switch
from bom.errors import CatalogError


def check_platform_switches(cat: Catalog) -> None:
    """Every platform's default switch is a switch row."""
    for p in cat.rows["platforms"].values():
        assert isinstance(p, Platform)
        if p.default_switch not in cat.rows["switches"]:
            try:
                cat.get("switches", p.default_switch, key=f"{p.id}.default_switch")
            except CatalogError as exc:
                exc.where = cat.where(p.id, "default_switch")
                raise


def check_module_form_factors(cat: Catalog) -> None:
    """Every module fits a cage that some switch or platform NIC has."""
    cages = {s.form_factor for s in cat.rows["switches"].values() if isinstance(s, Switch)}
    for p in cat.rows["platforms"].values():
        assert isinstance(p, Platform)
        cages |= {n.form_factor for n in (p.scale_out, p.storage, p.oob) if n is not None}
    cages |= {"osfp-flat"} if "osfp" in cages else set()
    for m in cat.rows["modules"].values():
        assert isinstance(m, Module)
        if m.form_factor not in cages:
            raise CatalogError(f"module {m.id!r} has form factor {m.form_factor!r}, which no "
                               f"switch or NIC in the catalog has (cages: {', '.join(sorted(cages))})",
                               where=cat.where(m.id, "form_factor"), key=f"{m.id}.form_factor",
                               hint="Fix the form factor or add the switch that takes it.")


CHECKS = (check_platform_switches, check_module_form_factors)


def check_catalog(cat: Catalog) -> None:
    for check in CHECKS:
        check(cat)
