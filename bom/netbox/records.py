"""Reading pynetbox records: a choice field's value, a related object's id or name, a number.

The push and the diff read NetBox's answers the same way.
"""

from __future__ import annotations

from typing import Any


def value_of(x: Any) -> Any:
    """A choice field's value (pynetbox gives choice fields as records with .value)."""
    return getattr(x, "value", x)


def id_of(x: Any) -> Any:
    return getattr(x, "id", x)


def name_of(x: Any) -> str:
    if x is None:
        return ""
    return str(getattr(x, "name", None) or getattr(x, "model", None) or x)


def int_of(x: Any) -> int | None:
    return None if x is None else int(float(x))
