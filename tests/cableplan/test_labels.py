"""Each end's label: the writers' view (a device's prefix found by its name) and the rule's (by its place)."""

from __future__ import annotations

from pathlib import Path

from bom import names
from bom.cableplan import labels
from bom.cableplan.labels import plan_labels, profile_view
from bom.cableplan.rows import COL, FIELDS, rows
from tests.rules.cases import build

#: Links of several fibre runs (their labels marked ``#``) and 0U PDUs on the out-of-band fabric.
ARISTA = Path(__file__).parents[1] / "reference" / "arista_7800r4_spine.yaml"


def test_full_view_labels_are_the_rules_and_each_device_prefixed_once(catalog, monkeypatch):
    plan = list(rows(build(ARISTA.read_text(), catalog), catalog=catalog, power=True))
    made: list[tuple[object, ...]] = []
    prefix = labels._prefix.__wrapped__

    def counted(*at: object) -> str | None:
        made.append(at)
        return prefix(*at)

    monkeypatch.setattr(labels, "_prefix", counted)
    header, view = profile_view("full", FIELDS)
    shown = view(plan[:700]) + view(plan[700:])   # two chunks: the names found again across them
    # A device's prefix made once (its ports' rows found it by name); a run's label names its run's port.
    marked = [names.RUN_MARK in r[COL["label"]] for r in plan]
    devices = {r[COL[f"{s}_device"]] for r, m in zip(plan, marked, strict=True) if not m for s in "ab"}
    assert len(made) == len(devices) + 2 * sum(marked) and len(devices) > 100
    ends = plan_labels(FIELDS)
    assert header[-2:] == ("a_label", "b_label")
    assert [r[-2:] for r in shown] == [ends(r) for r in plan]
    assert [r[:-2] for r in shown] == plan
    assert any(names.RUN_MARK in r[COL["label"]] for r in plan) and any("-0U" in x for r in shown for x in r[-2:])
