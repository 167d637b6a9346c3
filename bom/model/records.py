"""How the output JSON's records are declared: each ``to_json`` returns a record, a TypedDict declared
beside it (its keys, their types and, in the docstring under each, what they mean), and
``bom schema --output`` (:mod:`bom.outputs.schema`) reads the JSON Schema off the records, so a key
is declared once and the type checker holds ``to_json`` to it.

Every record is closed (a key it does not declare is never written: the type checker refuses one,
and the schema says so). The scalar types below say what the plain ``int`` and ``float`` do not: a
count is never negative, a share lies in [0, 1], a date is an ISO date.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import Field, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

#: One row of the cable plan: ``bom.cableplan.rows.CableRow``'s fields by position, a plain tuple (a
#: million-GPU plan makes hundreds of millions of them); its readers index it by column.
PlanRow = tuple[Any, ...]
#: A value in a plan row's column: text (a str enum prints as its value), a count or a length.
Cell = str | int | float | None

#: A whole number of things (links, GPUs, racks).
Count = Annotated[int, Field(ge=0)]
#: A quantity of an order or a BOM line: whole "each", or metres of cable.
Amount = Annotated[float, Field(ge=0)]
#: A fraction of a whole.
Share = Annotated[float, Field(ge=0, le=1)]
#: A day, as ISO 8601 text (2026-01-31).
Date = Annotated[str, Field(json_schema_extra={"format": "date"})]


@dataclass(frozen=True)
class Handwritten:
    """A field whose schema :mod:`bom.outputs.schema` still writes by hand (its record is not declared
    yet; the names are its functions'): the generated schema holds a placeholder it replaces."""

    name: str

    def __get_pydantic_json_schema__(self, core: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        return {"$handwritten": self.name}
