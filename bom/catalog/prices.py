"""Price files: quotes that replace catalog prices, with their reference, vendor, dates and currency.

A price file is a CSV with a header row. Columns (any order; only ``sku`` and a price are required):

- ``sku``: a catalog row id or part number (every row with that part number takes the price);
- ``price`` (in ``currency``) or ``price_usd``; ``currency``: ISO 4217 code, default USD. A price in
  another currency is converted at the rate the scenario states in ``exchange_rates`` (USD per
  unit); a currency without a stated rate is refused, never mixed in silently;
- ``price_source``: estimate | list | quote (default quote when ``quote_ref`` is given, else list);
- ``quoted_on`` (or ``as_of``), ``valid_until``: ISO dates; a quote past ``valid_until`` on the
  scenario's date is flagged, not dropped;
- ``quote_ref``, ``vendor``: the quote's reference and who quoted it (a reseller, not the maker);
- ``lead_time``: days from order to delivery as quoted, a number of days or a duration ("12 weeks");
  it replaces the row's ``lead_time`` (the order's Lead time column, the in-service dates);
- ``list_price`` and ``discount``, as partner quotes give them: the price is the list price less the
  discount (a fraction, 0.35, or a percentage, "35%"); with a ``price`` as well the two must agree;
- ``moq`` and ``pack``: the quote's minimum order quantity and the units per pack; the order of that
  part is rounded up to at least ``moq`` and to whole packs (``bom.costing.order.rounding_lines``).

Headers are read in any case, with spaces or hyphens for underscores (``SKU,Price,Price_Source``).
Headers as vendors' quotes write them are read as their column with a note listing the mapping
(:data:`SYNONYMS`: ``Part Number`` and ``Mfr Part #`` as ``sku``, ``Unit Price`` and ``Net Price`` as
``price``); a scenario's ``prices.columns`` maps any other header. A unit price is the quoted price per
unit the buyer pays (net of any discount), never ``list_price``, the price before a discount. Beside a
``Unit Price``, a ``Net Price`` is checked, not read: per unit or x ``Qty`` (the line's extended net)
it must be the unit price. A column the tool does not read (``Description``) is ignored with a note;
one a letter or two from a known column (``curency``) is refused as a typo, since ignoring it would
drop its value.
A SKU that no catalog row sells is warned about by name and the other quotes apply; with
``strict`` (``--strict-prices``) it is refused.
"""

from __future__ import annotations

import csv
import datetime as dt
import difflib
import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import get_args

from bom.catalog.rows import MAX_PRICE_USD, Cable, Catalog, Fibre, Row
from bom.errors import CatalogError
from bom.inputs.scenario import PriceColumn
from bom.inputs.validation import suggest
from bom.inputs.yamlio import read_input
from bom.units import magnitude, parse_quantity

COLUMNS: tuple[str, ...] = get_args(PriceColumn)
#: Read for a check only, never priced from: a vendor's Qty (the order's quantity is the BOM's) and a
#: Net Price beside a Unit Price (the unit price x 1 or x Qty).
QTY, NET = "qty", "net_price"
#: A part number column that may be the reseller's own: the maker's, when the file has one too, is the sku.
_RESELLER_PART = ("part_number", "part_no", "part", "pn", "item_number", "product_number", "product_code")
#: Headers vendors' quotes use (by :func:`_key`: lower case, runs of other characters as one "_"), as the
#: column each is read as. A maker's part number wins over a reseller's own ``Part Number``.
SYNONYMS: dict[str, str] = {
    **dict.fromkeys(("mfr_part", "mfr_part_no", "mfr_part_number", "mfr_pn", "mpn", "manufacturer_part",
                     "manufacturer_part_number", "manufacturer_part_no"), "sku"),
    **dict.fromkeys(_RESELLER_PART, "sku"),
    **dict.fromkeys(("unit_price", "unit_net_price", "net_unit_price", "price_each", "unit_cost", "your_price",
                     "net_price"), "price"),
    **dict.fromkeys(("qty", "quantity"), QTY),
    **dict.fromkeys(("lead_time_days", "delivery", "delivery_time"), "lead_time"),
    **dict.fromkeys(("quote", "quote_number", "quote_no", "quote_id", "quotation_number"), "quote_ref"),
    **dict.fromkeys(("expiration_date", "expires", "valid_through", "quote_expiration", "expiry_date"),
                    "valid_until"),
    **dict.fromkeys(("unit_list_price", "msrp"), "list_price"),
    **dict.fromkeys(("curr", "currency_code"), "currency"),
}
#: Said beside a mapping whose meaning a buyer may doubt.
_MEANING = {"price": "the quoted price per unit, net of any discount; not list_price",
            NET: "checked: the unit price, per unit or x Qty",
            QTY: "checked against a net price, not an order quantity: the BOM decides how many"}
#: A price and a list price less the discount may differ by rounding to the cent, no more.
_AGREE = 0.005
SOURCES = ("estimate", "list", "quote")


@dataclass(frozen=True)
class Quote:
    """One price from a price file, converted to USD."""

    sku: str
    amount: float            # in ``currency``
    currency: str
    rate: float              # USD per unit of ``currency``
    price_source: str
    quoted_on: dt.date | None
    valid_until: dt.date | None
    quote_ref: str
    vendor: str
    where: str               # file:line
    lead_time_days: float | None = None
    moq: int | None = None       # minimum order quantity, units
    pack: int | None = None      # units per pack: the order is a whole number of packs

    @property
    def usd(self) -> float:
        return self.amount * self.rate

    def expired(self, on: dt.date) -> bool:
        return self.valid_until is not None and self.valid_until < on

    def conversion(self) -> str:
        """'12,000.00 EUR at 1.08 USD/EUR' for a converted price, '' for USD."""
        if self.currency == "USD":
            return ""
        return f"{self.amount:,.2f} {self.currency} at {self.rate:g} USD/{self.currency}"

    def to_json(self) -> dict[str, object]:
        return {"sku": self.sku, "amount": self.amount, "currency": self.currency, "usd_per_unit": self.rate,
                "price_usd": round(self.usd, 6), "price_source": self.price_source,
                "quoted_on": self.quoted_on.isoformat() if self.quoted_on else None,
                "valid_until": self.valid_until.isoformat() if self.valid_until else None,
                "quote_ref": self.quote_ref, "vendor": self.vendor, "where": self.where,
                "lead_time_days": self.lead_time_days, "moq": self.moq, "pack": self.pack}


def _date(text: str, where: str, key: str) -> dt.date | None:
    if not text:
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise CatalogError(f"{key} {text!r} is not a date like 2026-12-01", where=where, key=key) from None


#: A number whose commas, if any, group thousands ("1,200.50"): "3,1000" is refused, not read as 31,000.
_AMOUNT = re.compile(r"^\s*([-+]?(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)\s*"
                     r"([A-Za-z]{3})?\s*$")


def _amount(text: str, where: str, key: str) -> tuple[float, str | None]:
    """A price and the currency written after it, if any ("1200", "1,200.50", "900 USD")."""
    m = _AMOUNT.match(text)
    try:
        value = float(m.group(1).replace(",", "")) if m else float("nan")
    except ValueError:
        value = float("nan")
    if value != value or value in (float("inf"), float("-inf")):
        comma = "," in text and re.search(r"[0-9],[0-9]", text)
        raise CatalogError(f"{key} {text[:60]!r} is not a number" + (
            " (commas group thousands, as in 1,200.50; a decimal comma is not read)" if comma else ""),
            where=where, key=key, hint="Write the price per unit as a plain number such as 1200.50.")
    if value < 0:
        raise CatalogError(f"{key} {text[:60]!r} is negative; a price is zero or more", where=where, key=key)
    if value > MAX_PRICE_USD:
        raise CatalogError(f"{key} {text[:60]!r} is past {MAX_PRICE_USD:.0e}: a typo?", where=where, key=key)
    return value, m.group(2).upper() if m and m.group(2) else None


def _lead_time(text: str, where: str) -> float | None:
    """Days from order to delivery: a plain number of days, or a duration ("12 weeks", "90 d")."""
    if not text:
        return None

    text = _vendor_duration(text)
    try:
        days = float(text) if re.fullmatch(r"\s*[0-9.]+\s*", text) else magnitude(parse_quantity(text, "time"), "time")
    except ValueError:   # a QuantityError is one too
        days = float("nan")
    if not 0 <= days <= 3650:
        raise CatalogError(f"lead_time {text[:60]!r} is not a lead time", where=where, key="lead_time",
                           hint="Write days as a number (84) or a duration such as \"12 weeks\", up to 10 years.")
    return days


def _vendor_duration(text: str) -> str:
    """A lead time as quotes write it: "12 weeks ARO" (after receipt of order), "6-8 wks" (the longer end,
    what a schedule must allow), "30 days".

    >>> _vendor_duration("6-8 wks ARO"), _vendor_duration("12 weeks"), _vendor_duration("84")
    ('8 weeks', '12 weeks', '84')
    """
    text = re.sub(r"\s*\bARO\b\.?\s*$", "", text.strip(), flags=re.IGNORECASE)
    text = re.sub(r"^[0-9.]+\s*(?:-|–|to)\s*([0-9.]+)", r"\1", text)
    return re.sub(r"\b(?:wks?|weeks?)\b\.?", "weeks", text, flags=re.IGNORECASE)


def _count(text: str, where: str, key: str) -> int | None:
    """A minimum order or pack size: a whole number of units, 1 or more."""
    if not text:
        return None
    if not re.fullmatch(r"\s*[0-9]{1,9}\s*", text) or int(text) < 1:
        raise CatalogError(f"{key} {text[:60]!r} is not a whole number of units", where=where, key=key,
                           hint=f"Write {key} as a count of units, 1 or more (a pack of 8: pack 8).")
    return int(text)


def _currency(code: str, rates: dict[str, float], where: str) -> float:
    if code == "USD":
        return 1.0
    if code in rates:
        return rates[code]
    known = ", ".join(["USD", *sorted(rates)])
    close = difflib.get_close_matches(code, ["USD", *rates], n=1)
    tip = f" Did you mean {close[0]!r}?" if close else ""
    raise CatalogError(f"currency {code[:20]!r} has no exchange rate in the scenario (known: {known}).{tip}",
                       where=where, key="currency",
                       hint=f"Add exchange_rates: {{{code or 'EUR'}: <USD per {code or 'EUR'}>}} to the "
                            f"scenario with the rate's date and source in a comment, or quote in USD.")


def _name(text: str) -> str:
    """A header cell as the column it names: 'Price_Source', 'Price Source', 'price-source' -> 'price_source'."""
    return re.sub(r"[\s-]+", "_", text.strip().lower())


def _key(text: str) -> str:
    """A header as vendors vary it: 'Mfr Part #', 'Part No.', 'Unit-Price' -> 'mfr_part', 'part_no', 'unit_price'."""
    return re.sub(r"[^a-z0-9]+", "_", text.strip().lower()).strip("_")


def _vendor_names(row: list[str], given: dict[str, str]) -> dict[int, str]:
    """The column each vendor header is read as (by position): the scenario's ``prices.columns`` first,
    then :data:`SYNONYMS`; beside a maker's part number a reseller's is ignored (""), beside a unit price a
    Net Price is checked (:data:`NET`)."""
    ours = {_key(k): v for k, v in given.items()}
    own = {_name(c) for c in row if _name(c) in COLUMNS and _key(c) not in ours}
    out: dict[int, str] = {}
    for i, cell in enumerate(row):
        key = _key(cell)
        if key in ours:
            out[i] = ours[key]
        elif _name(cell) not in COLUMNS and key in SYNONYMS:
            out[i] = SYNONYMS[key]
    for target, weaker, instead in (("sku", _RESELLER_PART, ""), ("price", ("net_price",), NET)):
        weak = [i for i, v in out.items() if v == target and _key(row[i]) in weaker and _key(row[i]) not in ours]
        if weak and (target in own or any(v == target for i, v in out.items() if i not in weak)):
            out.update(dict.fromkeys(weak, instead))
    if NET not in out.values():   # a Qty checks a net price only: without one it is read past, as before
        out = {i: v for i, v in out.items() if v != QTY or _key(row[i]) in ours}
    return out


def _header(row: list[str], path: Path, notes: list[str], given: dict[str, str] | None = None) -> list[str]:
    """The column of each header cell ('' for a column read past, with a note in ``notes``); vendors'
    headers (:data:`SYNONYMS`) and the scenario's ``prices.columns`` (``given``) read as their column,
    with a note listing the mapping."""
    where = f"{path}:1"
    vendor = _vendor_names(row, given or {})
    names, ignored, mapped = [], [], []
    for i, cell in enumerate(row):
        name = _name(cell)
        if i in vendor:
            names.append(vendor[i])
            if vendor[i]:
                mapped.append(f"{cell.strip()[:60]!r} -> {vendor[i]}"
                              + (f" ({_MEANING[vendor[i]]})" if vendor[i] in _MEANING else ""))
            else:
                ignored.append(f"{cell.strip()[:60]} (a reseller's part number beside the maker's)")
            continue
        if name in COLUMNS:
            names.append(name)
            continue
        close = difflib.get_close_matches(name, COLUMNS, n=1, cutoff=0.8)
        if close:   # a typo of a column we read: ignoring it would drop its values silently
            raise CatalogError(f"the header has an unknown column: {suggest(cell.strip()[:60], COLUMNS, 'column')}",
                               where=where, key=cell.strip()[:60],
                               hint=f"Rename it {close[0]}, or map it in the scenario: prices: {{columns: "
                                    f"{{{cell.strip()[:60]!r}: {close[0]}}}}}.")
        names.append("")
        ignored.append(cell.strip()[:60] or "(no name)")
    read = [n for n in names if n]
    if len(set(read)) != len(read):
        twice = sorted({n for n in read if read.count(n) > 1})
        raise CatalogError(f"the header names a column twice: {', '.join(twice)}", where=where,
                           hint="Keep one of them, or map one to another column in the scenario's prices.columns.")
    if "sku" not in read or not ({"price", "price_usd", "list_price"} & set(read)):
        raise CatalogError("the header needs sku and price (or price_usd, or list_price); optional: currency, "
                           "discount, price_source, quoted_on, valid_until, quote_ref, vendor, lead_time", where=where,
                           hint="Is this a price file? A BOM CSV written by bom build is not. A vendor's header "
                                "of another name: map it in the scenario, prices: {columns: {'Our Price': price}}.")
    if mapped:
        notes.append(f"{where}: vendor header{'s' if len(mapped) > 1 else ''} read as: {'; '.join(mapped)}")
    if ignored:
        notes.append(f"{where}: column{'s' if len(ignored) > 1 else ''} {', '.join(ignored)} ignored "
                     f"(read: {', '.join(n for n in read if n not in (QTY, NET))})")
    return names


def _records(path: Path, notes: list[str], given: dict[str, str] | None = None
             ) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """The header and (line, record) of each data row; lines count the line breaks inside quotes."""
    text = read_input(path, "price file")   # regular files only, size limit, UTF-8 with or without BOM
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as exc:
        raise CatalogError(f"not a CSV file we can read: {exc}", where=str(path)) from None
    if not rows:
        raise CatalogError("the price file is empty; its first line is the header sku,price,currency,...",
                           where=f"{path}:1")
    names = _header(rows[0], path, notes, given)
    out, line = [], 1 + sum(cell.count("\n") for cell in rows[0])
    for row in rows[1:]:
        line += 1
        if any(cell.strip() for cell in row):
            if len(row) != len(names):
                raise CatalogError(f"this row has {len(row)} fields and the header {len(names)}",
                                   where=f"{path}:{line}")
            out.append((line, {k: v.strip() for k, v in zip(names, row, strict=True) if k}))
        line += sum(cell.count("\n") for cell in row)
    return names, out


def _discount(text: str, where: str) -> float:
    """A discount as a fraction of the list price: "0.35", "35%", "35 %"."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*(%?)\s*", text)
    value = float(m.group(1)) / (100 if m.group(2) else 1) if m else float("nan")
    if not 0 <= value < 1:
        raise CatalogError(f"discount {text[:60]!r} is not a discount", where=where, key="discount",
                           hint="Write the discount off the list price as a fraction (0.35) or a percentage (35%).")
    return value


def _price(rec: dict[str, str], names: list[str], where: str) -> tuple[str, float, str | None]:
    """The price column read, the price per unit and the currency written after it."""
    listed = rec.get("list_price", "")
    if listed and not rec.get("price") and not rec.get("price_usd"):
        amount, written = _amount(listed, where, "list_price")
        return "list_price", amount * (1 - _discount(rec.get("discount", "") or "0", where)), written
    if rec.get("price_usd") or "price_usd" in names and "price" not in names:
        key = "price_usd"
    else:
        key = "price" if "price" in names else "list_price"
    amount, written = _amount(rec.get(key, ""), where, key)
    if listed and key != "list_price":   # both given: they must say the same
        full, _ = _amount(listed, where, "list_price")
        net = full * (1 - _discount(rec.get("discount", "") or "0", where))
        if abs(net - amount) > _AGREE:
            raise CatalogError(f"{key} {amount:,.2f} is not list_price {full:,.2f} less discount "
                               f"{rec.get('discount') or '0'} ({net:,.2f})", where=where, key=key,
                               hint="Give the price, or the list price and the discount, or make them agree.")
    elif rec.get("discount"):
        raise CatalogError("a discount without a list_price", where=where, key="discount",
                           hint="The discount is off the list price: add the list_price column.")
    return key, amount, written


def read_quotes(path: Path, rates: dict[str, float], notes: list[str] | None = None,
                columns: dict[str, str] | None = None) -> list[Quote]:
    """Every quote in ``path``; bad input raises CatalogError naming file:line and the column.

    Columns read past, and vendors' headers read as ours (``columns``: the scenario's own mapping), are
    noted in ``notes``."""
    names, records = _records(path, notes if notes is not None else [], columns)
    out = []
    for n, rec in records:
        where = f"{path}:{n}"
        sku = rec.get("sku", "")
        if not sku:
            raise CatalogError("a quote without a part number: sku is empty", where=where, key="sku",
                               hint="Give the catalog id or part number the price is for.")
        key, amount, written = _price(rec, names, where)
        _check_net(rec, amount, where)
        code = rec.get("currency", "").upper() or written or "USD"
        if key == "price_usd" and code != "USD" or written and written != code:
            raise CatalogError(f"{key} {rec[key][:60]!r} and currency {code[:10]!r} disagree", where=where,
                               key="currency",
                               hint="Write the price in the price column and its currency in the currency column.")
        rate = _currency(code, rates, where)
        if amount * rate > MAX_PRICE_USD:   # the limit holds after the conversion too
            raise CatalogError(f"{key} {rec[key][:60]!r} {code} at {rate:g} USD/{code} is {amount * rate:.3g} USD, "
                               f"past {MAX_PRICE_USD:.0e}: a typo in the price or in exchange_rates?", where=where,
                               key=key, hint=f"Check exchange_rates.{code} in the scenario (USD per {code}).")
        # a discount off the list is a partner's price for this buyer: a quote
        source = rec.get("price_source", "").lower() or ("quote" if rec.get("quote_ref") or rec.get("discount")
                                                         else "list")
        if source not in SOURCES:
            raise CatalogError(f"price_source {source[:60]!r} must be estimate, list or quote", where=where,
                               key="price_source")
        quoted = _date(rec.get("quoted_on", "") or rec.get("as_of", ""), where,
                       "quoted_on" if rec.get("quoted_on") else "as_of")
        until = _date(rec.get("valid_until", ""), where, "valid_until")
        if quoted and until and until < quoted:
            raise CatalogError(f"valid_until {until} is before quoted_on {quoted}", where=where, key="valid_until")
        out.append(Quote(sku, amount, code, rate, source, quoted, until, rec.get("quote_ref", ""),
                         rec.get("vendor", ""), where, _lead_time(rec.get("lead_time", ""), where),
                         _count(rec.get("moq", ""), where, "moq"), _count(rec.get("pack", ""), where, "pack")))
    return out


def _check_net(rec: dict[str, str], unit: float, where: str) -> None:
    """A Net Price beside a Unit Price is the unit price, per unit or x Qty (the line's extended net)."""
    if not rec.get(NET):
        return
    net, _ = _amount(rec[NET], where, NET)
    qty = rec.get(QTY, "")
    count = float(qty.replace(",", "")) if re.fullmatch(r"\s*[0-9][0-9,]*(\.[0-9]+)?\s*", qty) else None
    if abs(net - unit) <= _AGREE or count is not None and abs(net - unit * count) <= _AGREE * max(1.0, count):
        return
    said = f" or x qty {qty} ({unit * count:,.2f})" if count is not None else ""
    raise CatalogError(f"net price {net:,.2f} is not the unit price {unit:,.2f}{said}", where=where, key="Net Price",
                       hint="Give the net price per unit (or the line's extended net with its Qty), or map the "
                            "columns in the scenario's prices.columns.")


def _rows_for(catalog: Catalog, sku: str) -> list[Row]:
    """The row of that id, else every row of that part number; in any case (buyers' files upper-case ids)."""
    kind = catalog.kind_of(sku)
    if kind:
        return [catalog.rows[kind][sku]]
    same = [r for r in catalog if r.id.lower() == sku.lower()]
    return same or [r for r in catalog if (r.part_number or "").lower() == sku.lower()]


def apply_prices(catalog: Catalog, path: Path, rates: dict[str, float] | None = None, strict: bool = False,
                 columns: dict[str, str] | None = None) -> None:
    """Replace the prices of the rows each quote names; the quote is kept in ``catalog.quotes``.

    A later file replaces an earlier one's price; one file pricing a row twice is refused (which
    of two quotes counts is the buyer's call, not the tool's). A SKU no row sells is a warning in
    ``catalog.notes`` (a buyer's file quotes more than one cluster takes), refused when ``strict``."""
    seen: dict[str, str] = {}
    for q in read_quotes(path, rates or {}, catalog.notes, columns):
        rows = _rows_for(catalog, q.sku)
        if not rows:
            _price_sold_length(catalog, q, seen, strict)
            continue
        for row in rows:
            if row.id in seen:
                raise CatalogError(f"{row.id!r} is priced twice in this file (first at {seen[row.id]})",
                                   where=q.where, key="sku", hint="Keep one quote per part in a price file.")
            seen[row.id] = q.where
            kind = catalog.kind_of(row.id)
            assert kind is not None
            as_of = q.quoted_on or row.as_of
            # a quote is the price: the public range it replaces no longer bounds it
            update: dict[str, object] = {"price_usd": q.usd, "price_source": q.price_source, "as_of": as_of,
                                         "price_low_usd": None, "price_high_usd": None, "price_range_source": None}
            if q.lead_time_days is not None:
                # The quote's lead time is the vendor's word for this order: no class estimate or range any more.
                marks = [u for u in row.unconfirmed if u != "lead_time"]
                update.update(lead_time=parse_quantity(f"{q.lead_time_days} d", "time"), lead_time_low=None,
                              lead_time_high=None, unconfirmed=marks, confirmed=not marks,
                              lead_time_source=f"quote {q.quote_ref or 'without a reference'} ({q.where})")
            catalog.rows[kind][row.id] = row.model_copy(update=update)
            catalog.origin[row.id] = q.where
            catalog.quotes[row.id] = q


def _price_sold_length(catalog: Catalog, q: Quote, seen: dict[str, str], strict: bool) -> None:
    """A quote for one sold length of a cable or fibre (MFP7E30-N005): that length's price."""
    sold = [r for r in catalog if isinstance(r, Cable | Fibre)]   # the rows sold by the length
    hits = [(r, i) for r in sold for i, s in enumerate(r.lengths) if s.part_number.lower() == q.sku.lower()]
    if not hits:
        known = [r.id for r in catalog] + [s.part_number for r in sold for s in r.lengths]
        if strict:
            raise CatalogError(suggest(q.sku, known, "sku"), where=q.where, key="sku",
                               hint="Fix the SKU, or drop --strict-prices to apply the file's other quotes.")
        lower = {k.lower(): k for k in known}
        close = difflib.get_close_matches(q.sku.lower(), lower, n=1, cutoff=0.6)
        catalog.notes.append(f"{q.where}: sku {q.sku[:60]!r} is in no catalog row, its quote is not applied"
                             + (f" (did you mean {lower[close[0]]!r}?)" if close else ""))
        return
    if q.sku in seen:
        raise CatalogError(f"{q.sku!r} is priced twice in this file (first at {seen[q.sku]})",
                           where=q.where, key="sku", hint="Keep one quote per part in a price file.")
    seen[q.sku] = q.where
    for row, i in hits:
        kind = catalog.kind_of(row.id)
        assert kind is not None
        lengths = list(row.lengths)
        lengths[i] = lengths[i].model_copy(update={"price_usd": q.usd})
        catalog.rows[kind][row.id] = row.model_copy(update={"lengths": lengths})
        catalog.quotes[lengths[i].part_number] = q   # by the part number as sold: the line of that length finds it
