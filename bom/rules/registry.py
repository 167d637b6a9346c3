"""Every design rule, in the order they are run and reported (one family module each)."""

from __future__ import annotations

from bom.model.checks import Rule
from bom.rules import complete, ends, lengths, placement, ports, power

RULES: tuple[Rule, ...] = (*ends.RULES, *ports.RULES, *lengths.RULES, *placement.RULES, *power.RULES, *complete.RULES)
BY_ID: dict[str, Rule] = {r.id: r for r in RULES}
assert len(BY_ID) == len(RULES), "two rules share an id"
