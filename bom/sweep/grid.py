"""The sweep's points: the base scenario's keys, and each combination of the axes' values set into them.

The points are made on the scenario's mapping (what its YAML holds), so a point is a scenario file
(:func:`scenario_yaml`) that ``bom build`` builds as it is. Each axis value is checked once, alone on the
base, by the scenario's own validators: a bad value names its axis and what is allowed.
"""

from __future__ import annotations

import copy
import datetime as dt
import itertools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from bom.catalog.rows import Catalog
from bom.costing.compare import PLATFORM_OWNED, parse_entry
from bom.errors import BomError
from bom.inputs.scenario import parse_scenario
from bom.inputs.sweep import Sweep
from bom.inputs.validation import suggest
from bom.inputs.yamlio import Located, load_file
from bom.model.sweep import Point
from bom.resources import data_dir
from bom.roles import FabricRole

#: Scenario keys that hold paths of files, relative to the scenario file (made absolute in a point, whose
#: scenario may be written elsewhere; an axis' paths are relative to the sweep file). ``prices`` may be the
#: list of files alone.
PATH_KEYS = ("catalogs", "prices.files", "prices")


def base_of(sweep: Sweep, src: Located) -> Located:
    """The base scenario's mapping and lines: its file (relative to the sweep file), the inline keys (their
    lines the sweep file's, under ``base``), or the built-in default."""
    here = Path(src.file).parent
    if isinstance(sweep.base, dict):
        lines = {k[1:]: v for k, v in src.lines.items() if k[:1] == ("base",)}
        out = Located(copy.deepcopy(sweep.base), src.file, lines)
    else:
        out = load_file(here / sweep.base if sweep.base else data_dir("scenarios") / "default.yaml", "scenario file")
    if not isinstance(out.data, dict):
        raise BomError("the base scenario is not a YAML mapping", key="base", where=src.where(("base",)))
    _absolute_paths(out.data, Path(out.file).parent)
    return out


def _absolute_paths(data: dict[str, Any], here: Path) -> None:
    for key in PATH_KEYS:
        *up, last = key.split(".")
        node: Any = data
        for part in up:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict) and last in node:
            node[last] = _absolute(node[last], here)


def _absolute(value: Any, here: Path) -> Any:
    """A list of paths made absolute from ``here`` (anything else as it is: the validators say what is wrong)."""
    if not isinstance(value, list):
        return value
    return [str((here / p).resolve()) if isinstance(p, str) else p for p in value]


def with_overrides(base: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """The base's keys with each override set (``platform`` first: it resets what the platform owns, as
    ``bom compare`` does, so another axis may set those keys again)."""
    data = copy.deepcopy(dict(base))
    if "platform" in overrides:
        pid, switch = parse_entry(str(overrides["platform"]))
        data["platform"] = pid
        for spec in (data.get("fabrics") or {}).values():
            for key in PLATFORM_OWNED:
                if isinstance(spec, dict):
                    spec.pop(key, None)
        data.pop("layout", None)
        if switch is not None:
            fabrics = data.setdefault("fabrics", {})
            fabrics[FabricRole.COMPUTE] = {**(fabrics.get(FabricRole.COMPUTE) or {}), "switch": switch}
    for key, value in overrides.items():
        if key != "platform":
            _set(data, key.split("."), value)
    return data


def _set(data: dict[str, Any], path: list[str], value: Any) -> None:
    node = data
    for part in path[:-1]:
        if not isinstance(node.get(part), dict):
            node[part] = {}
        node = node[part]
    node[path[-1]] = copy.deepcopy(value)


def points(sweep: Sweep, src: Located, base: Located, catalog: Catalog) -> list[Point]:
    """Every combination of the axes' values (the first axis slowest), each value checked first (an error
    at its line of the sweep file ``src``)."""
    axes = sweep.axis_values()
    here = Path(src.file).parent
    axes = {k: [_absolute(v, here) for v in vs] if k in PATH_KEYS else vs for k, vs in axes.items()}
    for key, values in axes.items():
        for i, value in enumerate(values):
            _check_value(key, i, value, base, catalog, src.where(("axes", key, i)))
    keys = list(axes)
    combos = (dict(zip(keys, combo, strict=True)) for combo in itertools.product(*axes.values()))
    return [Point(n, over, with_overrides(base.data, over)) for n, over in enumerate(combos)]


def _check_value(key: str, i: int, value: Any, base: Located, catalog: Catalog, where: str) -> None:
    """One axis value alone on the base must make a valid scenario (the catalog's ids for ``platform``)."""
    at = f"axes.{key}.{i}"
    if key == "platform":
        pid, switch = parse_entry(str(value))
        if pid not in catalog.rows["platforms"]:
            raise BomError(suggest(pid, catalog.rows["platforms"], "platform"), key=at, where=where,
                           hint="Name a platform from `bom catalog list --kind platform`, or platform@switch.")
        if switch is not None and switch not in catalog.rows["switches"]:
            raise BomError(suggest(switch, catalog.rows["switches"], "switch") + f" (in {value!r})", key=at,
                           where=where,
                           hint="Write platform@switch with a switch id from `bom catalog list --kind switches`.")
    try:   # every line of the scenario is the value's own (its errors are told at the sweep file's line)
        parse_scenario(Located(with_overrides(base.data, {key: value}), where.rpartition(":")[0] or where,
                               {(): int(where.rpartition(":")[2] or 0)}))
    except BomError as exc:
        raise BomError(f"the value {value!r} does not make a valid scenario: {exc.message}", key=at, where=where,
                       hint=exc.hint or "Give a value the scenario key takes (docs/scenarios.md).") from None


def scenario_yaml(point: Point, name: str, date: dt.date | None = None) -> str:
    """The point's scenario as a file ``bom build`` builds: the base's keys with the overrides, named after
    the sweep and the point, priced on the sweep's ``date`` (unless the base pins its own): the row's figures."""
    data = {**point.scenario, "name": f"{name}-{point.id}"}
    if date is not None and "date" not in data:
        data["date"] = date
    head = "".join(f"#   {k}: {json.dumps(v, default=str)}\n" for k, v in point.overrides.items())
    return f"# bom sweep {name}, point {point.id}:\n{head}" + yaml.safe_dump(data, sort_keys=False,
                                                                              allow_unicode=True)
