"""The design rules' data types: a rule, the violation it reports, and the checks of one run.

A :class:`Rule` is written once and says what it reads: the closed form (``closed``: the model's
link groups, runs, DCI and placement, work independent of the GPU count) and/or the cable plan
streamed a row at a time (``stream``: only what needs each port, in constant memory per row). A
run's :class:`Checks` keep, per rule, the number of violations and the first few of them, so a
million-GPU plan with a systematic fault stays small.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from typing_extensions import TypedDict

from bom.model.records import Count, PlanRow

Severity = Literal["error", "warning"]
ERROR: Severity = "error"
WARNING: Severity = "warning"
#: Violations kept per rule (the count covers them all).
KEEP = 20
#: What a rule reads: the model's closed form, the streamed cable plan.
Reads = Literal["model", "plan"]
MODEL: Reads = "model"
PLAN: Reads = "plan"


class EndJson(TypedDict):
    """One end: role, device (a plan name or a catalog id), port, module, what."""

    role: str
    device: str
    port: str
    module: str
    what: str


class ViolationJson(TypedDict):
    """One violation: where, a one-line message, what to change, both ends, and the links, ports, devices
    or rows it stands for (count)."""

    rule: str
    where: str
    message: str
    fix: str
    a: EndJson | None
    b: EndJson | None
    count: Count


class RuleJson(TypedDict):
    """One rule: what it checks and reads, its violations, what they stand for (in unit) and the first
    ones."""

    id: str
    """family.name: ends.protocol, lengths.route, ..."""
    severity: Severity
    """An error refuses a build; a warning is listed."""
    checks: str
    """What the rule checks, in one line."""
    reads: list[Reads]
    """What this run read for it: the closed form (model) and/or the streamed cable plan (plan)."""
    violations: Count
    """How many violations it found (all of them, not only those shown)."""
    affected: Count
    """The links, ports, devices, racks or rows they stand for (in unit)."""
    unit: str
    shown: list[ViolationJson]
    """The first violations (at most 20)."""


class ChecksJson(TypedDict):
    """The design rules run on the model (a build: the closed form; `bom check`: the cable plan too). ok:
    no error-severity violation."""

    plan: bool
    """Whether the plan's rules ran (bom check) or the closed form only (a build)."""
    rules_run: list[str]
    """Every rule run, in the registry's order."""
    errors: Count
    """Violations of error-severity rules."""
    warnings: Count
    """Violations of warning-severity rules."""
    ok: bool
    """No error-severity violation."""
    rules: list[RuleJson]


@dataclass(frozen=True)
class End:
    """One end of the link (or the device) a violation is about, as a person finds it."""

    role: str            # node, leaf, spine, core, router, mux, storage, ufm, ...
    device: str          # a device name from the plan, or the part (catalog id) the closed form knows
    port: str = ""       # the port (plan) or ""
    module: str = ""     # the part in the cage; "" for a cable head or no cage
    what: str = ""       # what the end is: "InfiniBand switch q3400, OSFP cage"

    def text(self) -> str:
        place = f"{self.device}:{self.port}" if self.port else self.device
        parts = [f"{self.role} {place}"] + [p for p in (self.module and f"module {self.module}", self.what) if p]
        return ", ".join(parts)

    def to_json(self) -> EndJson:
        return {"role": self.role, "device": self.device, "port": self.port, "module": self.module,
                "what": self.what}


@dataclass(frozen=True)
class Violation:
    """One thing that cannot be built: where, both ends, what is wrong and what to change."""

    rule: str
    where: str              # the link group ("compute leaf-spine, cross-row runs") or a device / rack
    message: str            # one line
    fix: str                # what to change
    a: End | None = None
    b: End | None = None
    count: int = 1          # links, runs or devices it stands for

    def to_json(self) -> ViolationJson:
        return {"rule": self.rule, "where": self.where, "message": self.message, "fix": self.fix,
                "a": self.a.to_json() if self.a else None, "b": self.b.to_json() if self.b else None,
                "count": self.count}


#: How a plan rule reports: a violation, or what makes one (made only when it is among those kept,
#: so a million rows that break a rule cost a count each, not a message each).
Report = Callable[[Violation | Callable[[], Violation]], None]


class RowCheck(Protocol):
    """A rule's check of the streamed plan: called with every row, then once at the end."""

    def row(self, r: PlanRow) -> None: ...

    def done(self) -> None: ...


@dataclass(frozen=True)
class Rule:
    id: str                 # family.name: ends.protocol
    severity: Severity
    unit: str               # what a violation's count counts: links, ports, devices, racks, rows
    checks: str             # what it checks, in one line
    # Both take the run's bom.rules.context.Context (which imports this module, so typed Any here).
    closed: Callable[[Any], Iterable[Violation]] | None = None
    stream: Callable[[Any, Report], RowCheck] | None = None

    @property
    def family(self) -> str:
        return self.id.split(".", 1)[0]

    @property
    def reads(self) -> tuple[Reads, ...]:
        return tuple(k for k, f in ((MODEL, self.closed), (PLAN, self.stream)) if f is not None)


@dataclass
class RuleResult:
    """One rule's outcome in one run: how many violations, how many links or items they stand for,
    and the first :data:`KEEP` of them."""

    rule: Rule
    read: tuple[Reads, ...]         # what this run read for it (the plan only when it was streamed)
    violations: int = 0
    affected: int = 0
    kept: list[Violation] = field(default_factory=list)
    keep: int = KEEP

    def add(self, v: Violation | Callable[[], Violation]) -> None:
        """Count a violation (a plan rule's stands for one row, port or device: made only if kept)."""
        self.violations += 1
        if self.violations > self.keep:   # the common case on a big plan: only counted
            self.affected += v.count if type(v) is Violation else 1
            return
        kept = v if isinstance(v, Violation) else v()
        self.kept.append(kept)
        self.affected += kept.count

    @property
    def id(self) -> str:
        return self.rule.id

    @property
    def severity(self) -> Severity:
        return self.rule.severity

    @property
    def ok(self) -> bool:
        return self.violations == 0

    def to_json(self) -> RuleJson:
        return {"id": self.id, "severity": self.severity, "checks": self.rule.checks, "reads": list(self.read),
                "violations": self.violations, "affected": self.affected, "unit": self.rule.unit,
                "shown": [v.to_json() for v in self.kept]}


@dataclass
class Checks:
    """Every rule a run applied, in registry order, with what each found."""

    results: list[RuleResult]
    plan: bool = False              # whether the plan-stream rules ran (``bom check``), not only the closed form

    def count(self, severity: Severity) -> int:
        return sum(r.violations for r in self.results if r.severity == severity)

    @property
    def errors(self) -> int:
        return self.count(ERROR)

    @property
    def warnings(self) -> int:
        return self.count(WARNING)

    @property
    def ok(self) -> bool:
        """No error-severity violation (warnings print but do not fail)."""
        return self.errors == 0

    @property
    def failed(self) -> list[RuleResult]:
        """The rules with violations, errors first, in registry order within each severity."""
        return sorted((r for r in self.results if r.violations), key=lambda r: r.severity != ERROR)

    @property
    def rules_run(self) -> list[str]:
        return [r.id for r in self.results]

    def summary(self) -> str:
        """One line: rules run, violations by severity."""
        parts = []
        for sev in (ERROR, WARNING):
            rules = [r for r in self.failed if r.severity == sev]
            n = sum(r.violations for r in rules)
            parts.append(f"{n:,} {sev}{'s' * (n != 1)} in {len(rules)} rule{'s' * (len(rules) != 1)}" if n
                         else f"no {sev}")
        return f"{len(self.results)} design rules checked: {', '.join(parts)}."

    def to_json(self) -> ChecksJson:
        return {"plan": self.plan, "rules_run": self.rules_run, "errors": self.errors, "warnings": self.warnings,
                "ok": self.ok, "rules": [r.to_json() for r in self.results]}
