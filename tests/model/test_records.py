"""A record that mirrors a dataclass lists every field of it (the JSON would silently lack a new one)."""

from __future__ import annotations

from dataclasses import fields

from bom.model.sizing import Sizing, SizingJson


def test_the_sizing_record_lists_every_field_but_the_split():
    assert list(SizingJson.__annotations__) == [f.name for f in fields(Sizing) if f.name != "parallelism"]
