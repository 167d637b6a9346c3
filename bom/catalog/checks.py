"""Named consistency checks across catalog rows (what one row's schema cannot see)."""

from __future__ import annotations

import re

from bom.catalog.rows import DEFAULTS, Catalog, Module, Platform, Switch
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


def check_defaults(cat: Catalog) -> None:
    """Every default names a switch row, and the build finds one for each fabric layer it defaults."""
    for d in cat.defaults.values():
        if d.switch not in cat.rows["switches"]:
            try:
                cat.get("switches", d.switch, key=f"{DEFAULTS}.{d.id}.switch")
            except CatalogError as exc:
                exc.where = cat.origin.get(f"{DEFAULTS}:{d.id}", "")
                raise
    missing = [f"{f} {layer}" for f, layer in REQUIRED_DEFAULTS if (f, layer) not in cat.defaults]
    if missing:
        raise CatalogError(f"no default switch for the {', '.join(missing)}",
                           hint=f"The built-in catalogs/{DEFAULTS}.yaml names them; a base catalog needs them too.")


#: The fabric layers the build takes a default for when the scenario names no switch.
REQUIRED_DEFAULTS = (("storage", "leaf"), ("inband", "leaf"), ("oob", "leaf"), ("oob", "spine"), ("dci", "router"))

CHECKS = (check_platform_switches, check_module_form_factors, check_defaults)


def check_catalog(cat: Catalog) -> None:
    for check in CHECKS:
        check(cat)


#: Words in a row's notes or source that say a fact was not read at a source.
UNVERIFIED = re.compile(r"\b(not\s+verified|unverified|unconfirmed|not\s+confirmed|not\s+checked|not\s+re-checked|"
                        r"not\s+read|placeholders?|estimated?|estimates|assumed|assumption|not\s+published|unknown)\b",
                        re.IGNORECASE)
#: Sentences about prices are left out: prices are estimates by design (price_source says so).
PRICE = re.compile(r"\b(price[sd]?|pricing|USD|kUSD|street|reseller|list\s+price|cost)\b", re.IGNORECASE)


def unverified_phrases(text: str | None) -> list[str]:
    """The sentences of ``text`` that say a fact is unverified, price sentences left out.

    >>> unverified_phrases("Verified: 64 ports. Power NOT verified (estimate). Price estimate.")
    ['Power NOT verified (estimate).']
    """
    if not text:
        return []
    sentences = re.split(r"(?<=[.;])\s+|\s+-\s+", text)
    return [s.strip() for s in sentences if UNVERIFIED.search(s) and not PRICE.search(s)]


def check_confirmations(cat: Catalog) -> None:
    """Strict: a row whose notes or source say a fact is unverified carries ``confirmed: false``
    and names the facts in ``unconfirmed`` (``bom catalog validate --strict``)."""
    for kind, rows in cat.rows.items():
        for row in rows.values():
            said = unverified_phrases(row.notes) + unverified_phrases(row.source)
            if said and row.confirmed:
                raise CatalogError(f"{kind} row {row.id!r} says a fact is unverified but is not marked: "
                                   f"{said[0]!r}", where=cat.where(row.id), key=f"{row.id}.confirmed",
                                   hint="Confirm the fact at a primary source and reword the note, or add "
                                        "confirmed: false and unconfirmed: [the facts] to the row.")


def confirmation_counts(cat: Catalog) -> tuple[int, int]:
    """(rows whose facts are all confirmed, rows marked unconfirmed)."""
    rows = list(cat)
    unconfirmed = sum(1 for r in rows if not r.confirmed)
    return len(rows) - unconfirmed, unconfirmed
