"""``bom diff``: each side read (a scenario built, an earlier build's JSON, or a scenario at a git revision)
and the two compared (bom/diff)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bom.cableplan.rows import COL, rows
from bom.catalog.rows import Catalog
from bom.diff import cables, devices
from bom.diff.result import Diff, diff_docs
from bom.errors import BomError
from bom.inputs.scenario import parse_scenario
from bom.inputs.validation import located
from bom.inputs.yamlio import Located, load_file, load_text
from bom.model.model import Model
from bom.model.records import PlanRow
from bom.outputs.writers.documents import write_json
from bom.pipeline.build import catalog_for
from bom.pipeline.checks import build_checked, report_of
from bom.pipeline.phases import with_phases

FABRIC = COL["fabric"]
#: Keys every build JSON has (a JSON without them is not one: refused, not read as zeros).
BUILD_KEYS = ("name", "gpus", "tiers", "totals", "finance", "order", "checks")


@dataclass
class Side:
    """One side of the diff: its name, its build's JSON, and (from a scenario) its model and catalog."""

    label: str
    doc: dict[str, Any]
    model: Model | None = None
    catalog: Catalog | None = None

    def plan(self) -> Iterator[PlanRow]:
        assert self.model is not None
        return rows(self.model, catalog=self.catalog)


def _git_show(spec: str, role: str) -> tuple[str, str]:
    """``rev:path``: the file's text at that revision (git show, in the path's folder) and its path."""
    rev, _, path = spec.partition(":")
    folder = Path(path).parent if Path(path).parent.exists() else Path(".")
    rel = f"./{Path(path).name}" if folder != Path(".") else path
    try:
        got = subprocess.run(["git", "-C", str(folder), "show", f"{rev}:{rel}"], capture_output=True, text=True,
                             timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BomError(f"cannot run git for {spec}: {exc}", key=role,
                       hint="Install git, or give the scenario's file (git show REV:PATH > old.yaml).") from None
    if got.returncode != 0:
        raise BomError(f"git cannot show {spec}: {' '.join(got.stderr.split())[:300]}", key=role,
                       hint="Write REV:PATH with a revision git knows (git log) and the scenario's path at it, "
                            "e.g. HEAD~1:scenarios/default.yaml.")
    return got.stdout, path


def _json_side(path: Path, role: str) -> Side:
    try:
        doc = json.loads(path.read_text())
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BomError(f"{path} is not JSON ({exc})", key=role,
                       hint="Give a scenario (.yaml) or the <name>.json bom build writes.") from None
    missing = [k for k in BUILD_KEYS if not isinstance(doc, dict) or k not in doc]
    if missing:
        raise BomError(f"{path} is not a build's JSON (no {', '.join(missing)})", key=role,
                       hint="Give the <name>.json bom build writes (not the -compare.json), or a scenario.")
    return Side(str(path), doc)


def _scenario_side(src: Located, label: str, overlays: list[Path] | None, prices: list[Path] | None,
                   strict_prices: bool) -> Side:
    scenario = parse_scenario(src)
    catalog = catalog_for(scenario, src, overlays, prices, strict_prices)
    model, checks = build_checked(scenario, src, catalog, allow_violations=True)
    with located(src):
        report = report_of(model, catalog, checks)
        report = with_phases(report, scenario, src, catalog)
    return Side(label, json.loads(write_json(report)), model, catalog)


def load_side(spec: str, role: str, overlays: list[Path] | None = None, prices: list[Path] | None = None,
              strict_prices: bool = False) -> Side:
    """A side from its argument: a build's JSON, a scenario, or ``rev:path`` (a scenario at a git revision)."""
    path = Path(spec)
    if not path.exists() and ":" in spec and not spec.startswith(":"):
        text, file = _git_show(spec, role)
        return _scenario_side(load_text(text, file), spec, overlays, prices, strict_prices)
    if path.suffix.lower() == ".json":
        return _json_side(path, role)
    return _scenario_side(load_file(path, "scenario file"), spec, overlays, prices, strict_prices)


def diff_sides(old: Side, new: Side, sink: cables.Sink | None = None,
               progress: Callable[[str], None] = lambda _: None) -> Diff:
    """The figures, the devices (both sides built from scenarios) and the cable plans, streamed."""
    d = diff_docs(old.label, new.label, old.doc, new.doc)
    if old.model is None or new.model is None:
        d.devices = devices.not_compared()
        d.cables = cables.CableChanges(compared=False)
        return d
    progress("comparing the placements")
    d.devices = devices.merge(devices.placed(old.model.placement), devices.placed(new.model.placement))
    progress("comparing the cable plans")
    d.cables = cables.merge(old.plan(), new.plan(), sink, logical(old.model, new.model))
    return d


def logical(old: Model, new: Model) -> tuple[cables.Resolve, cables.Resolve]:
    return devices.Logical(old.placement), devices.Logical(new.placement)
