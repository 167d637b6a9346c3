"""Named consistency checks across catalog rows (what one row's schema cannot see)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from pydantic import BaseModel

from bom.catalog.rows import DEFAULTS, UNCONFIRMABLE, UNKNOWN, Catalog, Dwdm, Endpoint, Module, Platform, Row, Switch
from bom.errors import CatalogError
from bom.roles import FabricRole, Layer
from bom.units import DIMENSIONS, Quantity, magnitude


def check_platform_switches(cat: Catalog) -> None:
    """Every platform's default switch is a switch row."""
    for p in cat.rows["platforms"].values():
        assert isinstance(p, Platform)
        cat.get("switches", p.default_switch, key=f"{p.id}.default_switch", where=cat.where(p.id, "default_switch"))


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
        cat.get("switches", d.switch, key=f"{DEFAULTS}.{d.id}.switch", where=cat.origin.get(f"{DEFAULTS}:{d.id}", ""))
    missing = [f"{f} {layer}" for f, layer in REQUIRED_DEFAULTS if (f, layer) not in cat.defaults]
    if missing:
        raise CatalogError(f"no default switch for the {', '.join(missing)}",
                           hint=f"The built-in catalogs/{DEFAULTS}.yaml names them; a base catalog needs them too.")


def check_fabric_elements(cat: Catalog) -> None:
    """A scheduled leaf's uplinks name a fabric element row, at their own form factor and rate."""
    for s in cat.rows["switches"].values():
        assert isinstance(s, Switch)
        up = s.uplinks
        if up is None or not up.scheduled:
            continue
        where, key = cat.where(s.id, "uplinks"), f"{s.id}.uplinks.fabric_element"
        fe = cat.rows["switches"].get(up.fabric_element or "")
        if not isinstance(fe, Switch) or not fe.fabric_element:
            raise CatalogError(f"switch {s.id!r}: uplinks.fabric_element {up.fabric_element!r} is not a switch row "
                               "marked fabric_element: true", where=where, key=key,
                               hint="Name the fabric element (Ramon) row the interface node's fabric ports join.")
        if fe.form_factor != up.form_factor or fe.port_rate != up.rate:
            raise CatalogError(f"switch {s.id!r}: its fabric ports are {up.form_factor} at {up.rate}, and fabric "
                               f"element {fe.id!r} has {fe.form_factor} at {fe.port_rate}", where=where, key=key,
                               hint="A scheduled fabric's two ends are the same cage at the same rate.")


#: The fabric layers the build takes a default for when the scenario names no switch.
REQUIRED_DEFAULTS = ((FabricRole.STORAGE, Layer.LEAF), (FabricRole.INBAND, Layer.LEAF), (FabricRole.OOB, Layer.LEAF),
                     (FabricRole.OOB, Layer.SPINE), (FabricRole.DCI, Layer.ROUTER), (FabricRole.DCI, Layer.LEAF))

def check_part_numbers(cat: Catalog) -> None:
    """A part number with a space in it is a name ("x86 2-socket management server", "MGX rack (part of
    the NVL72 system)"), not a SKU a reseller's system takes: the row must say ``orderable: false`` so
    the order flags it (generic) and the build warns. Vendors' SKUs carry no spaces (MQM9700-NS2F,
    DGXH-G640F+P2EDI36); a bundle of two SKUs ("NCS1001 + NCS1K-EDFA") is not one orderable line either."""
    for row in cat:
        if row.orderable and re.search(r"\s", (row.part_number or "").strip()):
            raise CatalogError(f"{row.id}: part_number {row.part_number[:80]!r} is a name, not a SKU (it has a "
                               f"space), and the row says it is orderable", where=cat.where(row.id, "part_number"),
                               key="orderable", hint="Add orderable: false (the order flags it for the vendor's "
                               "SKU), or give the vendor's SKU as part_number.")


#: Checked on every load. A part number with a space is flagged by the order wherever it comes from
#: (an overlay's name still builds) and refused only by ``validate --strict`` (the built-in rows).
CHECKS = (check_platform_switches, check_module_form_factors, check_defaults, check_fabric_elements)


def check_catalog(cat: Catalog) -> None:
    for check in CHECKS:
        check(cat)


#: Words in a row's texts that say a fact was not read at a source.
UNVERIFIED = re.compile(r"\b(not\s+(?:re-?)?verified|unverified|unconfirmed|not\s+(?:re-?)?confirmed|"
                        r"not\s+(?:re-?)?checked|not\s+read|placeholders?|estimated?|estimates|assumed|assumption|"
                        r"not\s+published|unknown)\b", re.IGNORECASE)
#: Clauses about prices are left out: prices are estimates by design (price_source says so). Only the
#: clause is: "NOT verified: 1U, 800 W, price." still doubts 1U and 800 W.
PRICE = re.compile(r"\b(price[sd]?|pricing|USD|kUSD|street|reseller|list\s+price|cost)\b", re.IGNORECASE)
#: A figure of a class of products, not of the model the row sells ("AMD's figure for a 51.2T switch",
#: "the QSFP28 class figure", "SN6810-class", "estimates only"): stored as the model's fact it is an
#: estimate whatever words go with it. "Class 8 (17 W)" (a module power class) is not one.
CLASS = re.compile(r"\b(?:class\s+(?:figure|value|estimate)s?\b|[\w.]+-class\b|the\s+class\s+of\b|"
                   r"of\s+the\s+[\w. ]{1,30}?\s+class\b|for\s+an?\s+[\d.]+\s*T\s+switch|estimates?\s+only)",
                   re.IGNORECASE)
#: Product text speaks of the product: what a fact rests on, not when or by whom it was looked up.
SESSION = re.compile(r"\b(?:this|that|the\s+last|an?\s+earlier)\s+session\b", re.IGNORECASE)
#: Text fields that are not prose about facts (names and codes).
NOT_PROSE = frozenset({"id", "part_number", "vendor", "price_source", "status", "form_factor", "port_type",
                       "connector", "medium", "kind", "protocol", "standard", "fibre", "role", "system",
                       "generation", "gpu", "nic", "switch", "rack", "network_rack", "pdu", "ufm", "mgmt",
                       "storage", "default_switch", "layer", "fabric", "lead_time"})
#: Texts about a price or a lead time, which are not facts to confirm ("estimate: ..." is their form).
NOT_FACTS = frozenset({"price_range_source", "lead_time_source"})
#: A sentence's clauses: list items and asides ("NOT verified: 1U, 800 W and price").
_CLAUSES = re.compile(r"[,;:]\s*|\s+(?:and|or|but|plus)\s+", re.IGNORECASE)
_SENTENCES = re.compile(r"(?<=[.;])\s+|\s+-\s+")


def _doubted(sentence: str) -> bool:
    """Whether ``sentence`` doubts a fact, read clause by clause so a price in it excuses only its clause.

    A clause with a doubt and no price doubts a fact ("NOT verified: 1U, ..., price."), unless the
    sentence is about the price alone ("Price: the launch price, an estimate for today."); a price
    clause whose doubt follows its price word closes a list whose other items share the doubt
    ("Power and price are estimates.") unless it stands first ("Price estimate from resellers, 64
    ports verified.")."""
    if CLASS.search(sentence) and _figures(sentence):
        return True
    clauses = [c for c in _CLAUSES.split(sentence) if c and c.strip(" .()")]
    if not clauses or not UNVERIFIED.search(sentence):
        return False
    if not PRICE.search(sentence):
        return True
    topic = PRICE.match(clauses[0].strip(" ('\"")) is not None and len(clauses[0].split()) <= 3
    for i, clause in enumerate(clauses):
        doubt, price = UNVERIFIED.search(clause), PRICE.search(clause)
        if doubt is None:
            continue
        if price is None:
            if not topic:
                return True
        elif i > 0 and price.start() < doubt.start() and not topic \
                and any(not PRICE.search(c) for c in clauses[:i]):
            return True
    return False


def unverified_phrases(text: str | None) -> list[str]:
    """The sentences of ``text`` that say a fact is unverified, their price clauses excused.

    >>> unverified_phrases("Verified: 64 ports. Power NOT verified (estimate). Price estimate.")
    ['Power NOT verified (estimate).']
    >>> unverified_phrases("Part number from RA-11333-001 V11 (not re-verified).")
    ['Part number from RA-11333-001 V11 (not re-verified).']
    >>> unverified_phrases("NOT verified: 1U, 800 W, two 100G in-band ports, price.")
    ['NOT verified: 1U, 800 W, two 100G in-band ports, price.']
    >>> unverified_phrases("Power (3.5 W) and price are estimates. Price: the launch price, an estimate.")
    ['Power (3.5 W) and price are estimates.']
    """
    if not text:
        return []
    return [s.strip() for s in _SENTENCES.split(text) if _doubted(s)]


#: A figure with its unit as notes quote it ("1,125 W", "593w", "3.5 kW", "100 m", "1.9 dB").
_FIGURE = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s?(kW|W|km|m|dB)(?![\w/])", re.IGNORECASE)
_UNITS = {"kw": ("power", 1000.0), "w": ("power", 1.0), "km": ("length", 1000.0), "m": ("length", 1.0),
          "db": ("loss", 1.0)}


def _figures(text: str) -> set[tuple[str, float]]:
    """(dimension, value in W, m or dB) of every figure ``text`` quotes."""
    out = set()
    for number, unit in _FIGURE.findall(text):
        dim, scale = _UNITS[unit.lower()]
        out.add((dim, round(float(number.replace(",", "")) * scale, 6)))
    return out


def texts(model: BaseModel, path: str = "") -> Iterator[tuple[str, str, BaseModel]]:
    """Every prose text of a row at every depth: (dotted field path, text, the block that holds it).

    The row's own ``notes`` and ``source``, and nested ones (``support.source``,
    ``laser_source.notes``, ``scale_up.torus.ocs.source``, ``modular.line_card.description``)."""
    for name in type(model).model_fields:
        value = getattr(model, name)
        where = f"{path}{name}"
        if isinstance(value, str) and name not in NOT_PROSE:
            yield where, value, model
        elif isinstance(value, BaseModel):
            yield from texts(value, where + ".")
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, BaseModel):
                    yield from texts(item, f"{where}.{i}.")
        elif isinstance(value, dict):
            for k, item in value.items():
                if isinstance(item, str) and name not in NOT_PROSE:
                    yield f"{where}.{k}", item, model


#: Fields whose names are everyday words in notes ("the orderable OPN"): not matched by name.
_UNNAMED = frozenset({"orderable", "status", "status_date", "status_source", "vendor", "description", "notes",
                      "source", "kind", "system", "gpu", "rack", "network_rack", "pdu", "ufm", "mgmt", "storage",
                      "nic", "switch", "switches"})


def _facts(model: BaseModel, path: str = "") -> Iterator[tuple[str, str]]:
    """(dotted path, the field's own name) of every fact of a row at every depth."""
    for name, value in ((n, getattr(model, n)) for n in type(model).model_fields):
        if (not path and name in UNCONFIRMABLE) or name in _UNNAMED:
            continue
        if isinstance(value, BaseModel):
            yield f"{path}{name}", name
            yield from _facts(value, f"{path}{name}.")
        elif not isinstance(value, dict):
            yield f"{path}{name}", name


def _values(model: BaseModel, path: str = "") -> Iterator[tuple[str, tuple[str, float]]]:
    """(dotted path, (dimension, value in W, m or dB)) of every power, length and loss fact of a row."""
    for name in type(model).model_fields:
        value = getattr(model, name)
        if (not path and name in UNCONFIRMABLE) or name in _UNNAMED:
            continue
        if isinstance(value, BaseModel):
            yield from _values(value, f"{path}{name}.")
        elif isinstance(value, Quantity):
            for dim in ("power", "length", "loss"):
                if value.is_compatible_with(DIMENSIONS[dim][1]):
                    yield f"{path}{name}", (dim, round(magnitude(value, dim), 6))


def _named(sentence: str, word: str) -> bool:
    """Whether ``sentence`` names the field ``word`` (``loss_budget`` or ``loss budget``)."""
    spaced = word.replace("_", "[ _]")
    return re.search(rf"(?<![\w.-]){spaced}(?![\w-])", sentence, re.IGNORECASE) is not None


def _marked(row: Row, fact: str) -> bool:
    return any(fact == u or fact.startswith(u + ".") or u.startswith(fact + ".") for u in row.unconfirmed)


def _siblings(cat: Catalog, kind: str, row: Row) -> list[Row]:
    """Rows of the same kind this row's texts point to ("as mma4z00-ns", "as for mms4a00-xm") or that
    sell the same part number: the rows whose values it may have copied."""
    said = " ".join(t for _, t, _ in texts(row))
    return [o for o in cat.rows[kind].values()
            if o.id != row.id and (o.part_number == row.part_number
                                   or re.search(rf"(?<![\w-]){re.escape(o.id)}(?![\w-])", said))]


def confirmation_problems(cat: Catalog) -> Iterator[tuple[str, Row, str, str]]:
    """(kind, row, the field at fault, what is wrong) for every row whose marks do not match its texts.

    A row's texts at every depth are read. Refused: a text that says a fact is unverified on a row not
    marked ``confirmed: false``; a sentence naming a fact the row's ``unconfirmed`` leaves out; a
    text speaking of a lookup session rather than the product; a value equal to one a sibling row
    marks unconfirmed (copied, so no better confirmed) without the mark."""
    for kind, rows in cat.rows.items():
        for row in rows.values():
            facts = list(_facts(row))
            values = list(_values(row))
            for where, text, _ in texts(row):
                if said := SESSION.search(text):
                    yield (kind, row, where, f"{where} speaks of a lookup session, not the product: "
                           f"{said.group(0)!r} (say what the fact rests on: a document, a table, "
                           f"a third-party figure)")
                if where in NOT_FACTS:
                    continue
                prefix = where.rsplit(".", 1)[0] + "." if "." in where else ""   # the block's path
                for sentence in unverified_phrases(text):
                    if row.confirmed:
                        yield kind, row, "confirmed", f"{where} says a fact is unverified: {sentence!r}"
                        break
                    # A sentence names a fact of its own block by the field's name, or any fact by its
                    # dotted path; a nested block's doubt needs one of that block's facts marked.
                    named = [f for f, word in facts
                             if (f == prefix + word and _named(sentence, word)) or ("." in f and _named(sentence, f))]
                    # A class figure names the facts by their values ("AMD's figure for a 51.2T switch: 540 W
                    # typical" is power_typical); elsewhere a figure may be what an estimate rests on ("2,100 W
                    # is an estimate (940 W + 64 x 18 W optics)": the 940 W is the data sheet's typical).
                    if CLASS.search(sentence):
                        quoted = _figures(sentence)
                        named += [f for f, v in values if v in quoted and f.startswith(prefix) and f not in named]
                    # "36 ports per line card" names the marked modular.line_card.ports, not the row's ports
                    missing = [f for f in named if not _marked(row, f)
                               and not any(u.endswith("." + f.rsplit(".", 1)[-1]) for u in row.unconfirmed)]
                    if missing:
                        yield (kind, row, "unconfirmed", f"{where} says {missing[0]} is unverified but "
                               f"unconfirmed does not name it: {sentence!r}")
                        break
                    if prefix and not named and not any(_marked(row, f) for f, _ in facts
                                                        if f.startswith(prefix) or f + "." == prefix):
                        yield (kind, row, "unconfirmed", f"{where} says a fact of {prefix[:-1]} is unverified "
                               f"but unconfirmed names none of them: {sentence!r}")
                        break
            for sib in _siblings(cat, kind, row):
                for fact in sib.unconfirmed:
                    head = fact.split(".", 1)[0]
                    if "." in fact or head not in type(row).model_fields or _marked(row, fact):
                        continue
                    if getattr(row, head) == getattr(sib, head):
                        yield (kind, row, "unconfirmed", f"{fact} equals the value sibling row {sib.id!r} marks "
                               f"unconfirmed ({getattr(row, head)}), and this row does not mark it")


#: A source's date: a year (2024), a month (2024-04) or a day; "undated" says the source gives none.
_DATED = re.compile(r"\b(?:19|20)\d{2}\b|\bundated\b", re.IGNORECASE)
#: How an estimated lead time's source begins (SCHEMA.md): what the figure rests on follows.
_ESTIMATE = re.compile(r"^\s*estimate\b", re.IGNORECASE)


def lead_time_problems(cat: Catalog) -> Iterator[tuple[str, Row, str, str]]:
    """(kind, row, key, what is wrong) for every row whose lead time is missing or not stated as
    catalogs/SCHEMA.md asks: a figure read at a source names the source and its date; an estimate
    by part class starts its source with "estimate:", gives the range (``lead_time_low`` and
    ``lead_time_high``) and is marked (``lead_time`` in ``unconfirmed``); ``unknown`` says why."""
    for kind, rows in cat.rows.items():
        for row in rows.values():
            said = row.lead_time_source or ""
            if row.lead_time is None:
                yield kind, row, "lead_time", "has no lead_time"
            elif row.lead_time == UNKNOWN:
                if row.lead_time_estimate:
                    yield kind, row, "unconfirmed", "marks an unknown lead_time unconfirmed: unknown is no estimate"
            elif _ESTIMATE.match(said):
                if not row.lead_time_estimate:
                    yield (kind, row, "unconfirmed", "has an estimated lead_time (its source begins \"estimate\") "
                           "that unconfirmed does not name")
                elif row.lead_time_range_days is None:
                    yield (kind, row, "lead_time_low", "has an estimated lead_time without its range "
                           "(lead_time_low and lead_time_high)")
            elif row.lead_time_estimate:
                yield (kind, row, "lead_time_source", "marks lead_time unconfirmed but its source does not say "
                       "what the estimate rests on (begin it with \"estimate: \")")
            elif not _DATED.search(said):
                yield (kind, row, "lead_time_source", f"gives a lead time read at a source that names no date: "
                       f"{said[:80]!r}")


def check_lead_times(cat: Catalog) -> None:
    """Strict: every row has a lead time, stated as :func:`lead_time_problems` says."""
    for kind, row, key, what in lead_time_problems(cat):
        raise CatalogError(f"{kind} row {row.id!r} {what}", where=cat.where(row.id, key), key=f"{row.id}.{key}",
                           hint="Give lead_time and lead_time_source: the figure and the document with its date; or "
                                "an estimate by part class: lead_time, lead_time_low, lead_time_high, "
                                "lead_time_source: \"estimate: <what it rests on>\" and lead_time in unconfirmed; "
                                "or lead_time: unknown with why (catalogs/SCHEMA.md).")


def lead_time_counts(cat: Catalog) -> tuple[int, int, int]:
    """(rows whose lead time is read at a source, rows whose lead time is an estimate, rows without one
    or with ``unknown``)."""
    rows = list(cat)
    estimated = sum(1 for r in rows if r.lead_time_days is not None and r.lead_time_estimate)
    sourced = sum(1 for r in rows if r.lead_time_days is not None and not r.lead_time_estimate)
    return sourced, estimated, len(rows) - sourced - estimated


def supplies_problems(cat: Catalog) -> Iterator[tuple[str, Row, str]]:
    """(kind, row, what is missing) for every built-in row that stands in a rack and draws power but
    says nothing of how it takes it: the power plan (bom/links/power.py) cords every supply. Not
    asked of a floor-standing CDU (fed by the facility), a passive mux (0 W), a pluggable amplifier
    (powered by its router's cage) or a PDU (its ``outlets`` block is its input)."""
    for kind, rows in cat.rows.items():
        for row in rows.values():
            if isinstance(row, Endpoint):
                if row.role == Layer.PDU and row.outlets is None:
                    yield kind, row, "outlets"
                elif row.role not in (Layer.PDU, "cdu") and row.supplies is None:
                    yield kind, row, "supplies"
            elif isinstance(row, Dwdm):
                if row.supplies is None and row.form_factor is None and magnitude(row.power, "power") > 0:
                    yield kind, row, "supplies"
            elif isinstance(row, (Switch, Platform)) and row.supplies is None:
                yield kind, row, "supplies"
            elif isinstance(row, Platform) and row.system == "rack" and row.shelf_supplies is None \
                    and row.supplies is not None and row.supplies.inlet == "busbar":
                yield kind, row, "shelf_supplies"


def check_supplies(cat: Catalog) -> None:
    """Strict: every built-in row that draws power in a rack says how (:func:`supplies_problems`)."""
    for kind, row, key in supplies_problems(cat):
        raise CatalogError(f"{kind} row {row.id!r} has no {key}: the power plan cannot cord it",
                           where=cat.where(row.id), key=f"{row.id}.{key}",
                           hint=f"Add {key}: {{count: 2, rating: \"1.1 kW\", inlet: c14, redundancy: \"1+1\", "
                                "source: \"...\"}} from the data sheet (or its class estimate, marked unconfirmed)."
                           if key != "outlets" else "Add outlets: the PDU's phases, voltage, current, outlets, banks "
                                                    "and breaker (catalogs/SCHEMA.md).")


def check_confirmations(cat: Catalog) -> None:
    """Strict: every text of a row, at every depth, agrees with its marks: a row whose texts say a
    fact is unverified carries ``confirmed: false`` and names the fact in ``unconfirmed``, and a value
    copied from a sibling's unconfirmed one is marked too (``bom catalog validate --strict``); a
    part number that is a name says ``orderable: false``; every row has a lead time
    (:func:`check_lead_times`)."""
    check_part_numbers(cat)
    for kind, row, key, what in confirmation_problems(cat):
        raise CatalogError(f"{kind} row {row.id!r}: {what}", where=cat.where(row.id), key=f"{row.id}.{key}",
                           hint="Confirm the fact at a primary source and reword the text to quote it, or add "
                                "confirmed: false and unconfirmed: [the facts] to the row.")
    check_lead_times(cat)
    check_supplies(cat)


def confirmation_counts(cat: Catalog) -> tuple[int, int]:
    """(rows whose facts are all confirmed, rows marked unconfirmed)."""
    rows = list(cat)
    unconfirmed = sum(1 for r in rows if not r.confirmed)
    return len(rows) - unconfirmed, unconfirmed
