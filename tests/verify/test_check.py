"""The plan's devices as the check holds them (name, rack and U by each device's number)."""

from __future__ import annotations

from bom.verify.check import Placed


def test_placed_keeps_a_name_only_where_it_is_not_the_key():
    placed = Placed({"node-1": 0, "leaf-1": 1, "stranger": 2})
    placed.put(0, "node-1", "node-1", "s1-r01-rk01", 3)
    placed.put(1, "Leaf-1", "leaf-1", "s1-r01-rk05", "")
    assert ("node-1" in placed, "leaf-1" in placed, "stranger" in placed, "other" in placed) == \
        (True, True, False, False)
    assert [placed.name(k) for k in ("node-1", "leaf-1", "stranger", "other")] == \
        ["node-1", "Leaf-1", "stranger", "other"]
    assert [placed.where(k) for k in ("node-1", "leaf-1", "stranger")] == \
        [("s1-r01-rk01", 3), ("s1-r01-rk05", ""), ("", "")]
    assert placed.other == {1: "Leaf-1"}


def test_an_empty_verification_places_nothing():
    assert "node-1" not in Placed() and Placed().where("node-1") == ("", "")
