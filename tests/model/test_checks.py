"""The core: a rule's result keeps its count and only the first violations; the checks' summary."""

from __future__ import annotations

from bom.model.checks import ERROR, KEEP, PLAN, WARNING, Checks, End, Rule, RuleResult, Violation
from bom.rules.registry import BY_ID, RULES


def _rule(severity: str = ERROR) -> Rule:
    return Rule("ends.test", severity, "links", "a test", closed=lambda ctx: iter(()))  # type: ignore[arg-type]


def test_a_million_violations_keep_twenty():
    r = RuleResult(_rule(), ("model",))
    for n in range(1_000_000):
        r.add(Violation("ends.test", f"group {n}", "wrong", "fix it", count=3))
    assert (r.violations, r.affected, len(r.kept)) == (1_000_000, 3_000_000, KEEP)
    assert r.kept[0].where == "group 0"


def test_summary_counts_errors_and_warnings():
    bad, warn, good = RuleResult(_rule(), ("model",)), RuleResult(_rule(WARNING), ("model",)), RuleResult(
        _rule(), ("model",))
    bad.add(Violation("ends.test", "x", "wrong", "fix"))
    warn.add(Violation("ends.test", "y", "odd", "look"))
    warn.add(Violation("ends.test", "z", "odd", "look"))
    checks = Checks([warn, bad, good])
    assert (checks.errors, checks.warnings, checks.ok) == (1, 2, False)
    assert checks.failed == [bad, warn]                     # errors first
    assert checks.summary() == "3 design rules checked: 1 error in 1 rule, 2 warnings in 1 rule."
    assert Checks([good]).summary() == "1 design rules checked: no error, no warning."
    assert Checks([warn]).ok


def test_the_json_of_a_violation_names_both_ends():
    v = Violation("ends.test", "g", "wrong", "fix", End("leaf", "qm9700", "p1", "MMA4Z00-NS", "osfp cage"), None, 4)
    assert v.to_json() == {"rule": "ends.test", "where": "g", "message": "wrong", "fix": "fix",
                           "a": {"role": "leaf", "device": "qm9700", "port": "p1", "module": "MMA4Z00-NS",
                                 "what": "osfp cage"}, "b": None, "count": 4}
    assert v.a.text() == "leaf qm9700:p1, module MMA4Z00-NS, osfp cage"


def test_every_rule_is_registered_once_with_a_family_module_and_a_severity():
    assert len(BY_ID) == len(RULES) == 31   # 25, and the power plan's 6 (issue 48)
    assert {r.family for r in RULES} == {"ends", "ports", "lengths", "placement", "power", "complete"}
    for r in RULES:
        assert r.severity in (ERROR, WARNING) and r.reads and r.checks and r.unit
        assert r.id.startswith(r.family + ".")
    assert {r.id for r in RULES if PLAN in r.reads} == {"ports.unique", "lengths.route", "placement.unplaced",
                                                       "complete.rows", "complete.oob", "complete.labels"}
