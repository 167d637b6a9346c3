"""The cable plan as an output set: streamed into the publisher's stage, published as one unit.

``<name>-cables.csv`` always; ``<name>-racks.csv`` (the elevations) when the model has a
placement; ``<name>-cables.xlsx`` (sheets "Cabling" and "Racks") when the plan fits one
worksheet (Excel's 1,048,576 rows). The plan is made once: each chunk of rows goes to the CSV
and to the workbook, written straight into the stage of :mod:`bom.outputs.publish` (never held
in memory). A failure or an interrupt removes the stage and leaves any earlier plan as it was.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import operator
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING

from bom.cableplan import rows as plan
from bom.cableplan.labels import profile_view
from bom.errors import LimitError
from bom.model.records import PlanRow
from bom.outputs.publish import Output, write_all
from bom.outputs.terminal import table
from bom.outputs.writers.cables import Place, write_csv
from bom.outputs.writers.cabling_xlsx import EXCEL_ROWS, StreamingWorkbook
from bom.placement.elevation import HEADER, elevation_rows
from bom.roles import FabricKind, Tier

#: The files of a plan beside the other outputs (a build that does not write them retires old ones).
PLAN_SUFFIXES = ("-cables.csv", "-cables.xlsx", "-racks.csv")

if TYPE_CHECKING:
    from bom.catalog.rows import Catalog
    from bom.costing.report import CablePlanJson, PlanChoice
    from bom.model.model import Model

#: ``bom build`` writes the plan beside its other outputs up to this many rows unless told (``--plan`` writes it
#: whatever its size, ``--no-plan`` never); past it, it says to run ``bom cables`` or ``bom build --plan``. Writing a
#: plan row costs about 90,000 instructions (its tuple, CSV line, label and workbook cell), a build about 6.7 G, so
#: the largest build that writes its plan unasked (1,584 GPUs of the bench, 6,055 rows) stays within 1.1x the
#: smallest that does not (benchmarks/bench_instructions.py --only step; issue 46: no step where the build writes
#: its plan). At 20,000 rows the step was 1.24x, at 100,000 a 16k-GPU build was 2.6x a 1k one.
BUILD_MAX_ROWS = 6_144
#: Plans past this many rows show a progress bar (they take more than a moment).
PROGRESS_ROWS = 200_000
#: Columns that carry catalog text (part numbers, cable types, what a run passes).
TEXT_COLUMNS = tuple(plan.COL[c] for c in ("a_module", "b_module", "cable_type", "cable_part", "via"))
#: The racks CSV's columns a rack's layout fixes for every row of the rack (its U, power and scale-up
#: totals, floats among them), formatted once per distinct value (writers/cables.py: _Lines).
RACK_REPEATS = (HEADER.index("rack_u_used"), len(HEADER))
WIDTHS = {"cable_id": 12, "label": 44, "a_label": 22, "b_label": 22, "link_id": 12, "bundle": 22, "a_device": 24,
          "b_device": 24, "a_rack": 14, "b_rack": 14, "a_module": 16, "b_module": 16, "cable_type": 20,
          "cable_part": 18, "via": 30}


@dataclass(frozen=True)
class Phased:
    """Each row's phase (a name, bom/costing/phases.py: PlanPhase), and the one phase to list (None: all)."""

    of: Callable[[PlanRow], str]
    only: str | None = None


@dataclass
class PlanFiles:
    """What ``write_plan`` wrote."""

    paths: list[Path]
    rows: int
    hops: Counter[tuple[str, str]] = field(default_factory=Counter)   # rows per (fabric, hop)
    xlsx: bool = False
    note: str = ""

    def summary(self) -> str:
        """What the CLI prints: rows per fabric and hop, and whether there is a workbook."""
        body = table(["fabric", "hop", "rows"], [[f, h, f"{n:,}"] for (f, h), n in sorted(self.hops.items())],
                     [False, False, True])
        tail = (f"{self.rows:,} rows; workbook sheets Cabling and Racks" if self.xlsx
                else f"{self.rows:,} rows; {self.note}")
        if not any(p.name.endswith("-racks.csv") for p in self.paths):
            tail += " (no placement, so no rack elevations)"
        return f"{body}\n{tail}"

    def to_json(self) -> dict[str, object]:
        return {"rows": self.rows, "files": [str(p) for p in self.paths], "xlsx": self.xlsx,
                "excel_row_limit": EXCEL_ROWS, "note": self.note or None,
                "rows_per_hop": {f"{f}/{h}": n for (f, h), n in sorted(self.hops.items())}}


def fits_workbook(rows: int) -> bool:
    return rows <= EXCEL_ROWS - 1


def xlsx_note(rows: int) -> str:
    if fits_workbook(rows):
        return ""
    return (f"the plan has {rows:,} rows, more than a worksheet holds ({EXCEL_ROWS - 1:,} under the header), "
            "so it is written as CSV only")


def _rack_rows(model: Model) -> tuple[tuple[str, ...], Iterator[PlanRow]] | None:
    """The elevations (header, rows) when the model has a placement."""
    placement = getattr(model, "placement", None)
    if placement is None:
        return None

    return HEADER, elevation_rows(model)


def _stream(model: Model, name: str, open_: Callable[[str], IO[bytes]], catalog: Catalog | None,
            progress: Callable[[int], None] | None, scale_up: bool = False,
            also: Callable[[list[PlanRow]], None] | None = None, profile: str = "full",
            phase: Phased | None = None) -> tuple[int, Counter[tuple[str, str]], bool]:
    """Write the plan's files through ``open_`` (a binary file per name); the plan is made once, and
    each chunk of rows also goes to ``also`` (the plan's design rules, bom/rules/run.py: PlanRules)."""
    total = plan.row_count(model, scale_up, power=True)
    xlsx = fits_workbook(total)
    hops: Counter[tuple[str, str]] = Counter()
    texts: list[io.TextIOWrapper] = []
    book: StreamingWorkbook | None = None

    def text(fname: str) -> io.TextIOWrapper:
        texts.append(io.TextIOWrapper(open_(fname), encoding="utf-8", newline=""))
        return texts[-1]

    try:
        cables = text(f"{name}-cables.csv")
        book = StreamingWorkbook(open_(f"{name}-cables.xlsx")) if xlsx else None
        # Cable id, label, link id and bundle are (nearly) one per row: not worth caching as cells.
        # The profile's columns (bom/cableplan/labels.py): the plan's, each end's label, or a trade's subset.
        header, view = profile_view(profile, plan.FIELDS)
        # The power cords close the plan (bom/links/power.py); the plan's design rules read the links only.
        source: Iterator[PlanRow] = plan.rows(model, catalog=catalog, scale_up=scale_up, power=True)
        if phase is not None:   # the row's phase rides as a last column, past the profile's
            header, view, source = (*header, "phase"), _with_phase(view), _phased(source, phase)
        at = {h: i for i, h in enumerate(header)}
        texts_at = tuple(at[plan.FIELDS[c]] for c in TEXT_COLUMNS if plan.FIELDS[c] in at)
        # Cable id, label, link id and bundle are (nearly) one per row: not worth caching as cells.
        own = {"cable_id", "label", "link_id", "bundle", "a_label", "b_label"}
        unique = next((i for i, h in enumerate(header) if h not in own), len(header))
        last = next((i for i, h in enumerate(reversed(header[unique:])) if h not in own), 0)
        sheet = (book.sheet("Cabling", header, [WIDTHS.get(f, 11) for f in header], unique=unique, last=last)
                 if book else None)
        fabric_hop = operator.itemgetter(plan.COL["fabric"], plan.COL["hop"])
        fabric = plan.COL["fabric"]

        def each(chunk: list[PlanRow]) -> None:
            # A hop's rows come together: a run of them counted at once (a row's key hashes two enums,
            # each a Python call).
            for key, run in itertools.groupby(map(fabric_hop, chunk)):
                hops[key] += len(list(run))
            if also is not None:   # the power cords come last
                also([r for r in chunk if r[fabric] != FabricKind.POWER]
                     if chunk and chunk[-1][fabric] == FabricKind.POWER else chunk)

        rows = write_csv(source, header, cables, texts_at,
                         progress, each, view, sheet.append if sheet is not None else None, plan.repeats_in(header),
                         _places(header))
        racks = _rack_rows(model)
        if racks is not None:
            header, rack_rows = racks
            # The workbook's Racks sheet takes each chunk the CSV writer takes (one zip write a chunk).
            # A device is on one row of the elevations: its name is not worth sharing or caching.
            rack_sheet = (book.sheet("Racks", header, [14] * len(header), own=(header.index("device"),))
                          if book is not None else None)
            write_csv(rack_rows, header, text(f"{name}-racks.csv"), (5, 10),
                      also=rack_sheet.append if rack_sheet is not None else None, repeats=RACK_REPEATS)
        for t in texts:
            t.flush()
        if book is not None:
            book.close()
    except BaseException:
        if book is not None:
            book.abort()
        raise
    finally:
        for t in texts:   # the files are the caller's to close (or to throw away)
            with contextlib.suppress(Exception):
                t.detach()
    return rows, hops, xlsx


def _places(header: tuple[str, ...]) -> tuple[Place, Place] | None:
    """Each end's place in a profile's ``header`` (its six columns and its device's) where it has them whole:
    the plan places a device once, so the CSV writes a device's place once and finds it by name."""
    out = []
    for s in ("a", "b"):
        cols = tuple(f"{s}_{k}" for k in ("site", "row", "rack", "u", "device", "role"))
        at = header.index(cols[0]) if cols[0] in header else -1
        if at < 0 or header[at:at + len(cols)] != cols:
            return None
        out.append((at, at + len(cols), at + cols.index(f"{s}_device")))
    return out[0], out[1]


def _phased(rows: Iterator[PlanRow], phase: Phased) -> Iterator[PlanRow]:
    for r in rows:
        p = phase.of(r) if r[plan.COL["tier"]] != Tier.SCALE_UP else ""
        if phase.only is None or p == phase.only:
            yield (*r, p)


def _with_phase(view: Callable[[list[PlanRow]], list[PlanRow]]
                ) -> Callable[[list[PlanRow]], list[PlanRow]]:
    def phased(chunk: list[PlanRow]) -> list[PlanRow]:
        return [(*v, r[-1]) for v, r in zip(view([r[:-1] for r in chunk]), chunk, strict=True)]
    return phased


def plan_output(model: Model, name: str, *, catalog: Catalog | None = None,
                progress: Callable[[int], None] | None = None, scale_up: bool = False,
                also: Callable[[list[PlanRow]], None] | None = None,
                profile: str = "full", phase: Phased | None = None) -> tuple[Output, PlanFiles]:
    """The plan's output set (streamed) and what it holds once published (filled in as it streams)."""
    result = PlanFiles([], 0)

    def write(open_: Callable[[str], IO[bytes]]) -> None:
        result.rows, result.hops, result.xlsx = _stream(model, name, open_, catalog, progress, scale_up, also,
                                                        profile, phase)
        result.note = xlsx_note(result.rows)

    names = tuple(f"{name}{suffix}" for suffix in PLAN_SUFFIXES)
    return Output(streams=[(names, write)], what="the cable plan"), result


def write_plan(model: Model, out: Path, name: str, *, catalog: Catalog | None = None,
               progress: Callable[[int], None] | None = None, scale_up: bool = False,
               also: Callable[[list[PlanRow]], None] | None = None, profile: str = "full",
               phase: Phased | None = None) -> PlanFiles:
    """Stream the plan (and the elevations) into ``out`` as one unit; see the module docstring.
    ``also`` sees every chunk of the plan's rows as it is written (the plan's design rules);
    ``phase`` adds each row's phase as a last column, and with its ``only`` keeps that phase's rows."""
    output, result = plan_output(model, name, catalog=catalog, progress=progress, scale_up=scale_up, also=also,
                                 profile=profile, phase=phase)
    result.paths = write_all(output, out)
    return result


class _Memory(io.BytesIO):
    def close(self) -> None:   # the zip writer closes its file; keep the bytes readable
        pass


def build_rows(model: Model) -> int:
    """The rows of the plan ``bom build`` writes (the power cords included; no scale-up)."""
    return plan.row_count(model, power=True)


def in_build(rows: int, choice: PlanChoice = "auto") -> bool:
    """Does ``bom build`` write a plan of ``rows`` rows?"""
    return choice == "always" or (choice == "auto" and rows <= BUILD_MAX_ROWS)


def streams_in_build(rows: int, choice: PlanChoice = "auto") -> bool:
    """Does the build stream its plan into the stage (written on request past :data:`BUILD_MAX_ROWS`), rather
    than render it in memory with the other files?"""
    return in_build(rows, choice) and rows > BUILD_MAX_ROWS


def streamed_rows(model: Model, choice: PlanChoice) -> int:
    """The rows of the plan a build streams on request (0: none streamed): what its progress bar counts."""
    rows = build_rows(model)
    return rows if streams_in_build(rows, choice) else 0


def for_build(model: Model, name: str, catalog: Catalog | None = None, phase: Phased | None = None
              ) -> tuple[dict[str, bytes], str]:
    """The plan's files for ``bom build`` (rendered in memory, written with the other outputs) when
    the plan has at most :data:`BUILD_MAX_ROWS` rows; else none, and what to run instead."""
    rows = build_rows(model)
    if rows > BUILD_MAX_ROWS:
        return {}, (f"the cable plan has {rows:,} rows, more than bom build writes unasked ({BUILD_MAX_ROWS:,}): "
                    f"run bom build --plan, or bom cables, for it")
    files: dict[str, _Memory] = {}

    def open_(fname: str) -> IO[bytes]:
        files[fname] = _Memory()
        return files[fname]

    try:
        _stream(model, name, open_, catalog, None, phase=phase)
    except LimitError as exc:   # a design the plan cannot list yet: the BOM stands, the plan is left out
        return {}, f"no cable plan written: {exc.message}"
    return {k: v.getvalue() for k, v in files.items()}, ""


def plan_json(model: Model, choice: PlanChoice = "auto") -> CablePlanJson:
    """The build JSON's ``cable_plan``: the plan's rows and whether the build writes it."""
    rows = build_rows(model)
    return {"rows": rows, "in_build": in_build(rows, choice), "threshold": BUILD_MAX_ROWS}


def build_note(model: Model, choice: PlanChoice = "auto") -> dict[str, object]:
    """What the report says about the plan: its size, and whether ``bom build`` wrote it."""
    rows = build_rows(model)
    return {"rows": rows, "in_build": in_build(rows, choice), "xlsx": fits_workbook(rows),
            "threshold": BUILD_MAX_ROWS, "name": model.scenario.name, "never": choice == "never"}


@contextlib.contextmanager
def progress_bar(total: int, enabled: bool, label: str = "cable plan",
                 least: int = PROGRESS_ROWS) -> Iterator[Callable[[int], None] | None]:
    """A rich progress bar on stderr for ``total`` items from ``least`` up (a plan's rows: past
    :data:`PROGRESS_ROWS`; a sweep's designs), stdout kept clean."""
    if not enabled or total < least:
        yield None
        return
    # lazy: rich draws a bar only on a plan past 200,000 rows
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("rows", total=total)
        yield lambda n: bar.advance(task, n)
