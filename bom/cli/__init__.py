"""The `bom` command: parses arguments, calls the pipeline, prints. No model logic here."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional, ParamSpec, TypeVar, cast

import typer

from bom.errors import stdout_closed
from bom.roles import FabricRole

if TYPE_CHECKING:
    from bom.catalog.rows import Row
    from bom.inputs.scenario import Scenario
    from bom.inputs.yamlio import Located

#: Plain click help (no rich boxes): flags show no "<bool>", options show what they take,
#: and -h works as well as --help.
_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"]}
app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  rich_markup_mode=None, context_settings=_SETTINGS,
                  help="clusterbom: from accelerator counts to a costed bill of materials.")
catalog_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None, context_settings=_SETTINGS,
                          help="List, show and validate catalog rows.")
app.add_typer(catalog_app, name="catalog")

P = ParamSpec("P")
R = TypeVar("R")


def _say(*items: object, err: bool = False) -> None:
    """Each item as one line (bom.outputs.echo: the one rule for what a command prints)."""
    from bom.outputs import echo

    echo.lines(*items, err=err)


def _show(text: str, err: bool = False, nl: bool = True) -> None:
    """The tool's own text of several lines, each by the same rule."""
    from bom.outputs import echo

    echo.block(text, err=err, nl=nl)


def _json_document(text: str) -> None:
    from bom.outputs import echo

    echo.json_document(text)


def friendly(fn: Callable[P, R]) -> Callable[P, R]:
    """Turn every BomError into a one-paragraph message on stderr and exit code 2."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        from bom.errors import BomError

        def say(text: str) -> None:   # one paragraph, no escape sequence from the input, no secret
            _say("error: " + " ".join(text.split()), err=True)

        try:
            return fn(*args, **kwargs)
        except BomError as exc:
            say(str(exc))
            raise typer.Exit(2) from None
        except OSError as exc:   # strerror is None on an OSError raised without an errno (a TimeoutError)
            where = f"{exc.filename}: " if exc.filename else ""
            say(where + (exc.strerror or str(exc) or type(exc).__name__))
            raise typer.Exit(2) from None
        except RecursionError:
            say("the input nests too deeply to read")
            raise typer.Exit(2) from None
        except typer.Exit:
            raise   # a command's own exit code (bom check, bom netbox diff: 1 when they find something)
        except Exception as exc:
            if os.environ.get("BOM_DEBUG"):
                raise
            _say(f"internal error (a bug in clusterbom, please report it with the input): "
                 f"{type(exc).__name__}: {exc}. Set BOM_DEBUG=1 for the traceback.", err=True)
            raise typer.Exit(1) from None

    return wrapper


class PipeClosed(SystemExit):
    """The reader of stdout went away (``bom catalog list | head -3``): stop quietly.

    A SystemExit, not an OSError, so that no error handler reports it as a failure.
    """


def pipe_safe(fn: Callable[P, R]) -> Callable[P, R]:
    """Turn a write into a closed pipe into :class:`PipeClosed`, which main() ends with exit 0."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except BrokenPipeError:
            raise PipeClosed(0) from None

    return wrapper


def _version(value: bool) -> None:
    if value:
        from bom import __version__

        _say(f"clusterbom {__version__}")
        raise typer.Exit()


@app.callback()
def _main(version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Print the version and exit.")] = False) -> None:
    """clusterbom: from accelerator counts to a costed bill of materials."""


def _catalog(catalog_dirs: list[Path] | None = None, prices: list[Path] | None = None,
             strict_prices: bool = False) -> Any:
    from bom.catalog.load import load_catalog

    return _noted(load_catalog(catalog_dirs, prices, strict_prices=strict_prices))


def _noted(catalog: Any) -> Any:
    """The catalog, its price files' warnings printed on stderr (build prints them with the report's)."""
    for note in catalog.notes:
        _say(f"warning: {note}", err=True)
    return catalog


def _quantity(text: str | None, dimension: str, unit: str, option: str) -> float | None:
    if text is None:
        return None
    from bom.units import parse_quantity

    return float(parse_quantity(text, dimension, key=option).to(unit).magnitude)


def _write(output: Any, out: Path, json_name: str, as_json: bool) -> list[Path] | None:
    """Publish ``output`` (an output set) into ``out``; print the JSON and return None with --json, else the paths."""
    from bom.outputs.publish import write_all

    paths = write_all(output, out)
    if as_json:
        _json_document(output.files[json_name].decode())
        return None
    return paths


def _wrote(paths: list[Path]) -> None:
    for p in paths:
        _say(f"Wrote {p}.")


def _print_json(data: Any) -> None:
    from bom.outputs import echo

    echo.json_data(data)


CatalogOpt = Annotated[Optional[list[Path]], typer.Option(
    "--catalog", metavar="DIR", help="A directory of catalog YAML files that adds or replaces rows by id; "
    "repeat the option for several.")]
PricesOpt = Annotated[Optional[list[Path]], typer.Option(
    "--prices", metavar="CSV", help="A CSV of quotes (sku, price, currency, price_source, quoted_on, valid_until, "
    "quote_ref, vendor) that replaces catalog prices; repeat the option for several.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON to stdout instead of the text.")]
StrictPricesOpt = Annotated[bool, typer.Option(
    "--strict-prices", help="Refuse a price file that quotes a SKU no catalog row sells (exit 2); without it "
    "the SKU is named in a warning and the file's other quotes apply.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="Hide the progress lines on stderr; warnings and "
                                        "errors still print there, and the summary and Wrote lines on stdout "
                                        "(> /dev/null hides those).")]
StrictDatesOpt = Annotated[bool, typer.Option(
    "--strict-dates", help="Refuse (exit 2) a target day the parts cannot meet: the scenario's in_service, or a "
    "phase's date, before the order date + the gating part's lead time + installation + burn-in; without it, a "
    "warning naming the day it can be met.")]
PreferAvailableOpt = Annotated[bool, typer.Option(
    "--prefer-available", help="Where a link part gates a site's in-service date, build with the catalog's "
    "alternates for its links that arrive sooner (another module standard, copper or an AOC for an optic, another "
    "maker's part), the soonest then the cheapest, while the date moves in and the design rules pass; the outputs "
    "say what was taken and what it changed.")]


@app.command(short_help="GPUs a job needs and the level of scale it lands at.")
@friendly
@pipe_safe
def size(
    scenario: Annotated[Optional[Path], typer.Argument(
        metavar="[SCENARIO]", help="Scenario YAML with a workload; none = the reference example jobs.")] = None,
    platform: Annotated[Optional[str], typer.Option(metavar="ID", help="Platform id from the catalog.")] = None,
    memory_per_gpu: Annotated[Optional[str], typer.Option(
        metavar="QUANTITY", help='Memory per GPU with its unit, e.g. "80 GB".')] = None,
    flops_per_gpu: Annotated[Optional[str], typer.Option(
        metavar="QUANTITY", help='Dense FLOP/s per GPU with its unit, e.g. "2.25 PFLOP/s".')] = None,
    mfu: Annotated[Optional[float], typer.Option(
        min=0.01, max=1.0, metavar="FRACTION", help="Model FLOP utilisation, e.g. 0.4.")] = None,
    pue: Annotated[Optional[float], typer.Option(
        min=1.0, max=3.0, metavar="RATIO", help="Power usage effectiveness, e.g. 1.25.")] = None,
    building: Annotated[Optional[str], typer.Option(
        metavar="QUANTITY", help='The power one building can draw, e.g. "100 MW" (default: the scenario\'s '
                                 'sites.power): each level says how many buildings it takes.')] = None,
    as_json: JsonOpt = False,
    catalog_dir: CatalogOpt = None,
) -> None:
    """How many accelerators a job needs, at which level of scale it lands, and each level's power."""
    from bom import pipeline
    from bom.inputs.scenario import load_scenario
    from bom.outputs import terminal as text

    ov = pipeline.SizeOverrides(
        _positive(memory_per_gpu, "information", "GB", "--memory-per-gpu") if memory_per_gpu else None,
        _positive(flops_per_gpu, "compute", "FLOP/s", "--flops-per-gpu") if flops_per_gpu else None, mfu, pue)
    catalog = _catalog(catalog_dir)
    building_kw = _positive(building, "power", "kW", "--building") if building else None
    if scenario is None:
        results = pipeline.size_seed_jobs(catalog, platform, ov)
        levels = pipeline.size_levels(catalog, platform, ov, results[0].pue, building_kw)
        if as_json:
            _print_json([r.to_json() for r in results] if building is None else
                        {"jobs": [r.to_json() for r in results], "building_kw": building_kw,
                         "levels": [lv.to_json() for lv in levels]})
            return
        _show(text.sizing_heading(results[0].accelerator, None if platform else pipeline.SEED_POWER_PLATFORM))
        _show(text.sizing_table(results))
        if levels:
            _say("")
            _show(text.levels_table(levels, building_kw))
        return
    sc, src = load_scenario(scenario)
    result = pipeline.size_scenario(sc, src, catalog, platform, ov)
    split = result.parallelism
    if building_kw is None and sc.sites is not None and sc.sites.power is not None \
            and not isinstance(sc.sites.power, list):
        from bom.units import magnitude

        building_kw = magnitude(sc.sites.power, "power") / 1000.0
    levels = pipeline.size_levels(catalog, platform or sc.platform, ov, result.pue, building_kw)
    if as_json:
        _print_json({**result.to_json(), "parallelism": split.to_json() if split else None,
                     "building_kw": building_kw, "levels": [lv.to_json() for lv in levels]})
        return
    _say(f"Sizing {sc.name} on {result.accelerator}.")
    _show(text.sizing_table([result]))
    if levels:
        _say("")
        _show(text.levels_table(levels, building_kw))
        note = text.job_buildings(result.gpus, result.facility_power_kw, building_kw)
        if note:
            _show(note)
    if split is not None:
        _say("")
        _show(text.parallelism_text(split))
        said = text.split_note(split, result.gpus)
        if said:
            _show(said)


@app.command(short_help="Build a scenario: workbook, report, JSON and CSV.")
@friendly
@pipe_safe
def build(
    scenario: Annotated[Optional[Path], typer.Argument(
        metavar="[SCENARIO]", help="Scenario YAML; none = the built-in default.")] = None,
    output: Annotated[Optional[Path], typer.Option(
        "-o", "--output", metavar="DIR", help="Folder for the outputs (default: reports/<name>).")] = None,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
    catalog_dir: CatalogOpt = None,
    prices: PricesOpt = None,
    strict_prices: StrictPricesOpt = False,
    allow_violations: Annotated[bool, typer.Option(
        "--allow-violations", help="Write the outputs even when the design breaks a design rule (a budget draft: "
        "the violations are listed in the workbook's Checks sheet, the report and the JSON).")] = False,
    strict_dates: StrictDatesOpt = False,
    prefer_available: PreferAvailableOpt = False,
    plan: Annotated[Optional[bool], typer.Option(
        "--plan/--no-plan", help="Write the cable plan (bom cables' files) beside the outputs whatever its size, or "
        "never; without either, when it has at most 6,144 rows (a larger plan would make the build's cost grow "
        "with its size).")] = None,
) -> None:
    """Build the cluster and write the BOM and TCO workbook, the review report, JSON and CSV.

    The design rules' closed form runs first: a design that breaks an error-severity rule writes
    nothing and exits 2 (bom check lists every violation), unless --allow-violations."""
    import time

    from bom import pipeline
    from bom.inputs.scenario import load_scenario
    from bom.outputs import sets
    from bom.outputs import terminal as text

    start = time.perf_counter()

    def step(what: str) -> None:
        if not quiet:
            _say(f"[{time.perf_counter() - start:5.2f} s] {what}", err=True)

    step("loading the scenario and catalogs")
    sc, src = load_scenario(scenario)
    catalog = pipeline.catalog_for(sc, src, catalog_dir, prices, strict_prices)
    preferred = None
    if prefer_available:
        step("building with the alternates that bring the in-service date in")
        catalog, preferred = pipeline.prefer_available(sc, src, catalog)
    step("building the model")
    model, checks = pipeline.build_checked(sc, src, catalog, allow_violations)
    from bom.inputs.validation import located

    with located(src):   # the costing's keyed errors (an in-service day past the calendar) at their line
        report = pipeline.report_of(model, catalog, checks)
        if sc.phases:
            step("building each phase")
            report = pipeline.with_phases(report, sc, src, catalog)
        step("pricing the long-lead parts' alternates")
        report = pipeline.with_alternates(report, sc, src, catalog, preferred)
    if strict_dates:
        _refuse_late(report, src)
    from dataclasses import replace

    from bom.outputs import planfiles

    report = replace(report, cable_plan="auto" if plan is None else "always" if plan else "never")
    with planfiles.progress_bar(planfiles.streamed_rows(report.model, report.cable_plan), not quiet) as rows_done:
        files, plan_note = sets.build_output(report, catalog, step, rows_done)
        paths = _write(files, output or Path("reports") / sc.name, f"{sc.name}.json", as_json)
    for warning in report.warnings:
        _say(f"warning: {warning}", err=True)
    if checks.failed:
        _say(f"{'warning' if checks.ok else 'error'}: {checks.summary()} They are listed in the outputs; "
                   f"bom check {scenario or ''} prints each with what to change.".replace("  ", " "), err=True)
    step("done")
    if plan_note:
        _say(f"note: {plan_note} (bom cables {scenario or ''} -o DIR)".replace("  ", " "), err=True)
    if paths is None:
        return
    _show(text.build_summary(report.model))
    _show(text.totals_line(report))
    if report.phases is not None:
        _show(text.phases_table(report.phases, report.tco))
    _wrote(paths)


def _refuse_late(report: Any, src: Any) -> None:
    """--strict-dates: a target day (in_service, a phase's date) the parts cannot meet is an error (exit 2)."""
    from bom.errors import ScenarioError

    late = report.late_dates
    if late:
        first = late[0]
        more = f" ({len(late) - 1} more target{'s' * (len(late) != 2)} cannot be met either)" if len(late) > 1 else ""
        raise ScenarioError(first.message + more, where=src.where(first.key),
                            key=".".join(str(k) for k in first.key),
                            hint=f"Give {first.feasible} or later, order earlier (order_date), take parts that arrive "
                                 f"sooner (bom build --prefer-available, or a quote's lead_time in a price file), or "
                                 f"build without --strict-dates to have it as a warning.")


@app.command(short_help="Check the design rules: can every listed link be built?")
@friendly
@pipe_safe
def check(
    scenario: Annotated[Optional[Path], typer.Argument(
        metavar="[SCENARIO]", help="Scenario YAML; none = the built-in default.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the checks as JSON.")] = False,
    catalog_dir: CatalogOpt = None,
    prices: PricesOpt = None,
    strict_prices: StrictPricesOpt = False,
    prefer_available: PreferAvailableOpt = False,
) -> None:
    """Build the model (no outputs written) and run every design rule, on the closed form and on the
    cable plan streamed row by row: ends that match, ports used once, lengths and loss, placement,
    completeness. Prints each violation (rule, where, both ends, what to change) and a summary.
    Exit 0 when no error-severity rule is broken (warnings print but do not fail), 1 when one is,
    2 on bad input."""
    from bom import pipeline
    from bom.inputs.scenario import load_scenario
    from bom.outputs import terminal as text

    sc, src = load_scenario(scenario)
    catalog = _noted(pipeline.catalog_for(sc, src, catalog_dir, prices, strict_prices))
    if prefer_available:   # the design bom build --prefer-available builds, checked the same way
        catalog, _ = pipeline.prefer_available(sc, src, catalog)
    model = pipeline.build_scenario(sc, src, catalog)
    checks = pipeline.check_design(model, catalog, plan=True)
    phases = pipeline.check_phases(sc, src, catalog, model) if sc.phases else []
    if as_json:
        _print_json({"name": sc.name, **checks.to_json(), **({"phases": [p.to_json() for p in phases]} if phases
                                                               else {})})
    else:
        _show(text.checks_text(checks, sc.name))
        for p in phases:
            _say(f"phase {p.name}: reserve (the final plan's rows in service): {p.reserve.summary()} "
                       f"rebuild (its own design): {p.rebuild.summary()}")
    if not checks.ok or not all(p.ok for p in phases):
        raise typer.Exit(1)


@app.command(short_help="Check what was built against the plan: LLDP, ibnetdiscover, NetBox.")
@friendly
@pipe_safe
def verify(
    scenario: Annotated[Optional[Path], typer.Argument(
        metavar="[SCENARIO]", help="Scenario YAML; none = the built-in default.")] = None,
    lldp: Annotated[Optional[Path], typer.Option(
        "--lldp", metavar="DIR", help="A folder of <device>.json files: lldpcli -f json0 (or -f json) show "
        "neighbors, one per device, named after the plan's device.")] = None,
    ib: Annotated[Optional[Path], typer.Option(
        "--ib", metavar="FILE", help="ibnetdiscover's output, node descriptions naming the plan's devices.")] = None,
    hca_map: Annotated[Optional[Path], typer.Option(
        "--hca-map", metavar="MAP", help="With --ib: which HCA (mlx5_N or GUID) of a host is which plan port, the "
        "CSV bom topology --format ibsim writes as a template.")] = None,
    netbox: Annotated[Optional[str], typer.Option(
        "--netbox", metavar="URL", help="Also compare NetBox with the plan (bom netbox diff), token from "
        "$NETBOX_TOKEN or --token-file.")] = None,
    token_file: Annotated[Optional[Path], typer.Option(
        "--token-file", metavar="FILE", help="File whose first line is the NetBox API token.")] = None,
    timeout: Annotated[Optional[float], typer.Option(
        "--timeout", metavar="S", help="With --netbox: seconds to wait for NetBox's answer to a read (default 120; "
        "the status probe waits 10 at most).")] = None,
    fabric: Annotated[Optional[list[str]], typer.Option(
        "--fabric", metavar="NAME", help="Check every planned cable of this fabric (compute, storage, inband, oob, "
        "dci), and only those: one no source sees is missing; repeat for several. Default: every cable with an "
        "end a source can see (a server's BMC port is seen by none: not checked).")] = None,
    output: Annotated[Optional[Path], typer.Option(
        "-o", "--output", metavar="DIR", help="Folder for the work order (default: reports/<name>).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    catalog_dir: CatalogOpt = None,
    prices: PricesOpt = None,
    strict_prices: StrictPricesOpt = False,
) -> None:
    """Check what was built against the cable plan, per planned cable: ok, missing (neither end sees a
    neighbour), miswired (an end sees another), wrong speed, and the neighbour pairs the plan does not
    have (unexpected). Writes the work order (CSV and xlsx: per rack and U what to move, add, replace or
    remove; the parts to order or return). Exit 0 when everything matches, 1 when not, 2 on bad input."""
    from bom import pipeline
    from bom.errors import BomError
    from bom.inputs.scenario import load_scenario
    from bom.outputs.publish import write_all
    from bom.verify import run

    if lldp is None and ib is None and netbox is None:
        raise BomError("nothing to check against", key="--lldp",
                       hint="Give --lldp DIR, --ib FILE or --netbox URL (or several).")
    if hca_map is not None and ib is None:
        raise BomError("--hca-map names the HCAs of an ibnetdiscover file", key="--hca-map",
                       hint="Give --ib FILE with it.")
    if netbox is not None:
        from bom.netbox import client

        client.check_url(netbox)   # a bad --url or --timeout is refused before anything is read
        client.Timeouts.of(timeout)
    seen = run.read_sources(lldp, ib, hca_map)
    sc, src = load_scenario(scenario)
    catalog = _noted(pipeline.catalog_for(sc, src, catalog_dir, prices, strict_prices))
    model = pipeline.build_scenario(sc, src, catalog)
    result = run.verify_model(model, catalog, seen, fabric or ()) if lldp or ib else run.Verification()
    if netbox is not None:
        from bom.cli.netbox import connect
        from bom.netbox.diff import diff

        nb = connect(netbox, None, token_file, timeout, lambda line: _say(line, err=True))
        with client.answers("the reads of bom verify --netbox"):
            result.netbox = diff(nb, model, catalog)
    paths = write_all(run.work_order(result, sc.name), output or Path("reports") / sc.name)
    if as_json:
        _print_json(result.to_json())
    else:
        _say(*run.lines(result))
        _wrote(paths)
    if not result.match:
        raise typer.Exit(1)


@app.command(short_help="Write the cable plan and the rack elevations.")
@friendly
@pipe_safe
def cables(
    scenario: Annotated[Optional[Path], typer.Argument(
        help="Scenario YAML; none = the built-in default.")] = None,
    output: Annotated[Optional[Path], typer.Option(
        "-o", "--output", help="Folder for the plan (default: reports/<name>).")] = None,
    scale_up: Annotated[bool, typer.Option(
        "--scale-up", help="List every GPU's NVLink links too (else a per-rack summary in the racks CSV).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print what was written as JSON.")] = False,
    profile: Annotated[str, typer.Option(
        metavar="installer|procurement|full", help="The columns: installer (each end's TIA-606 label with its "
        "site, hall, row letter and rack column, device, port, module; the part and length), procurement (part, "
        "kind, length, rate, modules) or full (every column, then both ends' labels).")] = "full",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Hide the progress bar and the design rules' "
                     "summary on stderr; errors still print there, and the summary and Wrote lines on stdout "
                     "(> /dev/null hides those).")] = False,
    phase: Annotated[Optional[str], typer.Option(
        "--phase", metavar="NAME", help="With the scenario's phases: list only the rows this phase installs "
        "(every plan of a phased scenario has a phase column).")] = None,
    moves: Annotated[bool, typer.Option(
        "--moves", help="With --phase: write the phase's move list instead (under growth: rebuild, the plan of the "
        "phase before against this phase's: each cable to move, add or take out, port to port, and the parts to "
        "order and return), as <name>-<phase>-moves-workorder.csv, -workorder-parts.csv and .xlsx.")] = False,
    catalog_dir: CatalogOpt = None,
    prices: PricesOpt = None,
    strict_prices: StrictPricesOpt = False,
) -> None:
    """Write the cable plan (every link, device and port at both ends) and the rack elevations; the
    design rules that read the plan (ports used once, runs against the route, devices with no place,
    rows with no part) look at each row as it is written and a broken one is said on stderr."""
    from bom import pipeline
    from bom.cableplan import rows as plan
    from bom.inputs.scenario import load_scenario
    from bom.outputs import planfiles as cabling

    if moves:
        _write_moves(scenario, output, phase, as_json, catalog_dir, prices, strict_prices)
        return
    try:
        from bom.cableplan.labels import profile_columns

        profile_columns(profile, plan.FIELDS)   # an unknown profile fails before anything is built
        sc, src = load_scenario(scenario)
        catalog = _noted(pipeline.catalog_for(sc, src, catalog_dir, prices, strict_prices))
        with_phases = _phase_option(sc, src, phase)
        model = pipeline.build_scenario(sc, src, catalog)
        phased = cabling.Phased(pipeline.plan_phase(sc, src, catalog, model), phase) if with_phases else None
        rules = pipeline.plan_rules(model, catalog)
        with cabling.progress_bar(plan.row_count(model, scale_up, power=True), not quiet) as progress:
            result = cabling.write_plan(model, output or Path("reports") / sc.name, sc.name, catalog=catalog,
                                        progress=progress, scale_up=scale_up, also=rules.rows, profile=profile,
                                        phase=phased)
        checks = rules.finish()
    except KeyboardInterrupt:
        _say("interrupted: no cable plan was written (the stage is removed)", err=True)
        sys.exit(130)   # SystemExit, so friendly() does not take it for a bug
    if as_json:
        _print_json({"name": sc.name, **result.to_json(), "checks": checks.to_json()})
        return
    if checks.failed and not quiet:
        _say(f"{'warning' if checks.ok else 'error'}: the plan's design rules: {checks.summary()} "
                   f"bom check {scenario or ''} prints each with what to change.".replace("  ", " "), err=True)
    _show(result.summary())
    _wrote(result.paths)


def _write_moves(scenario: Path | None, output: Path | None, phase: str | None, as_json: bool,
                 catalog_dir: list[Path] | None, prices: list[Path] | None, strict_prices: bool) -> None:
    """bom cables --phase NAME --moves: the phase's move list through the work-order writer."""
    from bom import pipeline
    from bom.diff import workorder
    from bom.errors import BomError
    from bom.inputs.scenario import load_scenario
    from bom.inputs.validation import located
    from bom.outputs.publish import write_all
    from bom.outputs.writers.workorder import output as work_order
    from bom.pipeline.moves import phase_moves

    if phase is None:
        raise BomError("--moves needs --phase NAME", key="--moves",
                       hint="Give the phase whose move list to write: bom cables SCENARIO --phase NAME --moves.")
    sc, src = load_scenario(scenario)
    catalog = _noted(pipeline.catalog_for(sc, src, catalog_dir, prices, strict_prices))
    _phase_option(sc, src, phase)
    with located(src):
        final = pipeline.build_scenario(sc, src, catalog)
        got: list[Any] = []
        changes = phase_moves(sc, src, catalog, final, phase, got.append)
    name = f"{sc.name}-{phase}-moves"
    paths = write_all(work_order(name, workorder.HEADER, list(workorder.rows(got)), workorder.PARTS_HEADER,
                                 workorder.parts(got)), output or Path("reports") / sc.name)
    if as_json:
        _print_json({"name": sc.name, "phase": phase, "cables": changes.to_json(), "files": [str(p) for p in paths]})
        return
    c = changes.to_json()
    _say(f"phase {phase}: {c['moved']:,} cables to move, {c['added']:,} to add, {c['removed']:,} to take out, "
         f"{c['replaced']:,} to replace ({c['moved_links']:,} links of the phase before moved or taken out)")
    _wrote(paths)


def _id_list(text: str, option: str, what: str) -> list[str]:
    """A comma-separated list of ids, each one given: an empty item (``a,,b``, ``','``, ``dgx-h100@``)
    is refused, not skipped (``,,,`` would otherwise be no list at all, and the command's default)."""
    from bom.errors import BomError

    items = [p.strip() for p in text.split(",")]
    for n, item in enumerate(items, start=1):
        if not item or any(not part.strip() for part in item.split("@")):
            raise BomError(f"item {n} of {text!r} is empty or has an empty part: expected a {what} in every "
                           f"item", key=option, hint=f"Give {option} a comma-separated list without empty items, "
                                                     "e.g. dgx-h100,gb300-nvl72 or gb300-nvl72@q3450-ld.")
    return items


def _phase_option(sc: Scenario, src: Located, phase: str | None) -> bool | None:
    """``--phase NAME`` checked against the scenario's phases; True when the plan gets a phase column."""
    from bom.errors import BomError
    from bom.inputs.validation import suggest

    names = [p.name for p in sc.phases or []]
    if phase is not None and not names:
        raise BomError("--phase lists one phase's rows, and this scenario gives no phases", key="--phase",
                       where=src.file, hint="Add phases: [{name: day1, gpus: N, date: ...}, ...] to the scenario.")
    if phase is not None and phase not in names:
        raise BomError(suggest(phase, names, "phase"), key="--phase", where=src.file,
                       hint=f"The scenario's phases: {', '.join(names)}.")
    return True if names else None


@app.command(short_help="Build one job on each platform generation and compare.")
@friendly
@pipe_safe
def compare(
    scenario: Annotated[Optional[Path], typer.Argument(
        metavar="[SCENARIO]", help="Scenario with the job (gpus or workload); none = scenarios/compare.yaml.")] = None,
    platforms: Annotated[Optional[str], typer.Option(
        metavar="ID,ID,...", help="Comma-separated platform ids; none = all. ID@SWITCH builds the platform with "
                                  "that compute switch (gb300-nvl72@q3450-ld: co-packaged optics).")] = None,
    gpus: Annotated[Optional[int], typer.Option(min=1, metavar="N", help="Build this many GPUs on each.")] = None,
    output: Annotated[Optional[Path], typer.Option(
        "-o", "--output", metavar="DIR", help="Folder for the outputs (default: reports/<name>).")] = None,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
    catalog_dir: CatalogOpt = None,
    prices: PricesOpt = None,
    strict_prices: StrictPricesOpt = False,
) -> None:
    """Build the same job on each platform generation and compare copper share, optics and cost per GPU."""
    from bom import pipeline
    from bom.inputs.scenario import load_scenario
    from bom.outputs import commandsets
    from bom.outputs import terminal as text
    from bom.pipeline.compare import compare as generations
    from bom.resources import data_dir

    ids = _id_list(platforms, "--platforms", "platform id (or platform@switch)") if platforms is not None else None
    sc, src = load_scenario(scenario or data_dir("scenarios") / "compare.yaml")
    catalog = _noted(pipeline.catalog_for(sc, src, catalog_dir, prices, strict_prices))
    from bom.inputs.validation import located

    with located(src):
        result = generations(sc, src, catalog, ids, gpus)
    paths = _write(commandsets.compare_output(result), output or Path("reports") / sc.name,
                   f"{sc.name}-compare.json", as_json)
    if paths is None:
        return
    for g in result.generations:
        for warning in g.report.warnings:
            if "end-of-" in warning:
                _say(f"warning: {g.platform.id}: {warning}", err=True)
    if len(result.generations) == 1 and not quiet:
        _say("Note: one platform, so there is no previous generation to compare against.", err=True)
    _show(text.compare_table(result))
    _wrote(paths)


@app.command(short_help="Build every design of a sweep; the Pareto frontier of the results.")
@friendly
@pipe_safe
def sweep(
    sweep_file: Annotated[Path, typer.Argument(
        metavar="SWEEP", help="Sweep YAML: base scenario, axes, constraints, objectives (docs/sweeps.md).")],
    output: Annotated[Optional[Path], typer.Option(
        "-o", "--output", metavar="DIR", help="Folder for the results file and the outputs (default: "
        "reports/<name>); a stopped sweep run again with the same folder resumes.")] = None,
    workers: Annotated[Optional[int], typer.Option(
        min=1, max=256, metavar="N", help="Local worker processes (default: one per CPU); 1 builds in this "
        "process.")] = None,
    dask: Annotated[Optional[str], typer.Option(
        "--dask", metavar="ADDRESS", help="Run on the Dask distributed scheduler at ADDRESS (tcp://host:8786) "
        "instead of local processes; needs pip install 'clusterbom[dask]'.")] = None,
    point: Annotated[Optional[str], typer.Option(
        "--point", metavar="ID", help="Print the scenario of one point (p0007) for bom build, priced on the "
        "day of the results in the output folder (-o), and build nothing.")] = None,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Build every combination of the axes' values from the base scenario (each through bom build's
    pipeline), keep the designs a constraint or rule refuses with the reason, and write every design's
    figures (CSV, JSON), a workbook and an HTML report with the Pareto frontier over the objectives.
    The results are appended to <name>-sweep-results.jsonl as they finish: Ctrl-C stops after the designs
    in flight, and the same command resumes. Exit 130 when stopped."""
    import os

    from bom import sweep as sweeping
    from bom.outputs import commandsets
    from bom.outputs.planfiles import progress_bar

    prep = sweeping.prepare(sweep_file)
    out = output or Path("reports") / prep.sweep.name
    if point is not None:   # priced on the day of the sweep's results, when there are some
        from bom.sweep.journal import dated

        _show(_point_yaml(prep, point, dated(prep.results_file(out))), nl=False)
        return
    from bom.outputs.publish import check_writable

    check_writable(out)
    n = workers or os.cpu_count() or 1
    with progress_bar(len(prep.points), not quiet and not as_json, "designs", 1) as progress:
        done = sweeping.run(prep, out, n, dask, progress)
    if done.stopped:
        _say(f"Stopped: {len(done.journal.done):,} of {len(prep.points):,} designs done ({done.computed:,} "
             f"this run), in {done.journal.path}. Run the same command again to build the rest.", err=True)
        raise typer.Exit(130)
    doc = sweeping.result(prep, done.journal.done, done.journal.date)
    scenarios = {pid: _point_yaml(prep, pid, done.journal.date) for pid in doc["frontier"]}
    paths = _write(commandsets.sweep_output(doc, scenarios), out, f"{prep.sweep.name}-sweep.json", as_json)
    if paths is None:
        return
    c = doc["counts"]
    _say(f"{c['points']:,} designs ({done.computed:,} built now, {done.resumed:,} read back): "
         f"{c['feasible']:,} feasible, {c['infeasible']:,} refused, {c['frontier']:,} on the frontier "
         f"({', '.join(doc['frontier'][:10])}{', ...' if len(doc['frontier']) > 10 else ''}).")
    _wrote(paths)


def _point_yaml(prep: Any, pid: str, date: Any = None) -> str:
    from bom.errors import BomError
    from bom.inputs.validation import suggest
    from bom.sweep.grid import scenario_yaml

    found = {p.id: p for p in prep.points}
    if pid not in found:
        raise BomError(suggest(pid, found, "point"), key="--point",
                       hint=f"Give a point id from p0000 to {prep.points[-1].id}.")
    return scenario_yaml(found[pid], prep.sweep.name, date)


@app.command(short_help="What breaks when something breaks: failure domains, goodput, redundancy.")
@friendly
@pipe_safe
def faults(
    scenario: Annotated[Optional[Path], typer.Argument(
        metavar="[SCENARIO]", help="Scenario YAML; none = the built-in default.")] = None,
    output: Annotated[Optional[Path], typer.Option(
        "-o", "--output", metavar="DIR", help="Also write <name>-faults.json, .md and .xlsx into this folder.")] = None,
    as_json: JsonOpt = False,
    catalog_dir: CatalogOpt = None,
    prices: PricesOpt = None,
    strict_prices: StrictPricesOpt = False,
    allow_violations: Annotated[bool, typer.Option(
        "--allow-violations", help="Read a design that breaks a design rule (as bom build --allow-violations).")
    ] = False,
) -> None:
    """Build the scenario and say what each element's failure does (device supply, PDU, feed, rack, CDU, leaf,
    spine, core, plane, trunk, DCI route and amplifier, router, site): the GPUs cut off, the scale-up domains
    broken, the bisection lost and the parallel groups of the sized job that stall, worst first; the job's
    expected interruptions a day from published failure rates, its goodput (Young's optimal checkpoint
    interval) and cost per useful GPU-hour; and each redundancy option's capex and gain."""
    from bom import pipeline
    from bom.inputs.scenario import load_scenario
    from bom.outputs import commandsets
    from bom.outputs.faults_text import faults_text
    from bom.pipeline.faults import faults_of

    sc, src = load_scenario(scenario)
    catalog = _noted(pipeline.catalog_for(sc, src, catalog_dir, prices, strict_prices))
    data = faults_of(sc, src, catalog, allow_violations).to_json()
    if output is not None:
        paths = _write(commandsets.faults_output(data), output, f"{sc.name}-faults.json", as_json)
        if paths is None:
            return
    elif as_json:
        _print_json(data)
        return
    else:
        paths = []
    _show(faults_text(data))
    _wrote(paths)


@app.command(short_help="What changes between two designs: parts, money, power, cables.")
@friendly
@pipe_safe
def diff(
    old: Annotated[str, typer.Argument(metavar="OLD", help="A scenario, a build's <name>.json, or REV:PATH (a "
                                       "scenario at a git revision, e.g. HEAD~1:scenarios/default.yaml).")],
    new: Annotated[str, typer.Argument(metavar="NEW", help="The same kinds as OLD.")],
    output: Annotated[Optional[Path], typer.Option(
        "-o", "--output", metavar="DIR", help="Also write the diff's files (JSON, Markdown, workbook) there.")] = None,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
    catalog_dir: CatalogOpt = None,
    prices: PricesOpt = None,
    strict_prices: StrictPricesOpt = False,
) -> None:
    """Compare two designs: the order delta (buy and return, priced, with lead times), money by category and
    the TCO, power and cooling, copper share and modules per GPU, design rules newly broken, devices added,
    removed and moved, cables added, removed, re-patched and replaced. Exit 0 when the designs are the same,
    1 when they differ, 2 on bad input."""
    import json

    from bom.outputs import diff_text
    from bom.pipeline import diff as diffing

    def step(what: str) -> None:
        if not quiet:
            _say(what, err=True)

    step(f"reading {old}")
    a = diffing.load_side(old, "OLD", catalog_dir, prices, strict_prices)
    step(f"reading {new}")
    b = diffing.load_side(new, "NEW", catalog_dir, prices, strict_prices)
    moves: list[Any] = []   # the work order's changes, held only when it is written (-o)
    d = diffing.diff_sides(a, b, moves.append if output is not None else None, progress=step)
    paths = None
    if output is not None:
        from bom.outputs import commandsets
        from bom.outputs.publish import write_all

        step("writing the diff")
        paths = write_all(commandsets.diff_output(d, a.doc, b.doc, moves), output)
    if as_json:
        _json_document(json.dumps(d.to_json(), indent=2))
    else:
        _show(diff_text.summary(d))
        if paths:
            _wrote(paths)
    raise typer.Exit(0 if d.same else 1)


@app.command(short_help="One fabric of one site as Graphviz DOT, draw.io XML and a netlab topology.")
@friendly
@pipe_safe
def topology(
    scenario: Annotated[Optional[Path], typer.Argument(
        metavar="[SCENARIO]", help="Scenario YAML; none = the built-in default.")] = None,
    output: Annotated[Optional[Path], typer.Option(
        "-o", "--output", metavar="DIR", help="Folder for the files (default: reports/<name>).")] = None,
    fabric: Annotated[str, typer.Option(metavar="NAME", help="compute, storage, inband or oob.")] = FabricRole.COMPUTE,
    site: Annotated[int, typer.Option(min=1, metavar="N", help="The site (1 = the first).")] = 1,
    max_links: Annotated[int, typer.Option(min=1, metavar="N", help="Refuse a drawing of more cable runs.")] = 2000,
    formats: Annotated[Optional[list[str]], typer.Option(
        "--format", metavar="NAME", help="dot, drawio, netlab or ibsim (an InfiniBand fabric's ibsim net file and "
        "its HCA map); repeat for several. Default: dot, drawio and netlab.")] = None,
    catalog_dir: CatalogOpt = None,
    prices: PricesOpt = None,
    strict_prices: StrictPricesOpt = False,
) -> None:
    """Write one fabric of one site as <name>-<fabric>-s<N>.dot (Graphviz: dot -Tsvg FILE > FILE.svg),
    .drawio (draw.io / diagrams.net) and -netlab.yml (netlab create makes a containerlab lab of it, to
    emulate the fabric): every device of the fabric's cable plan a box, in rows by layer, every cable run
    an edge with the port at each end on it. --format ibsim writes an InfiniBand fabric as .ibnet (ibsim -s
    FILE simulates it; ibnetdiscover's format) and -hca-map.csv (which HCA, mlx5_N or GUID, is which plan
    port: fill it in and give it to bom verify --ib FILE --hca-map MAP)."""
    from bom import pipeline
    from bom.cableplan import rows as plan
    from bom.errors import BomError
    from bom.inputs.scenario import load_scenario
    from bom.outputs.writers.topology import topology_graph, write_dot, write_drawio, write_netlab

    kinds = list(dict.fromkeys(formats or ("dot", "drawio", "netlab")))
    for k in kinds:
        if k not in ("dot", "drawio", "netlab", "ibsim"):
            raise BomError(f"no format {k!r}", key="--format", hint="Give dot, drawio, netlab or ibsim.")
    sc, src = load_scenario(scenario)
    catalog = _noted(pipeline.catalog_for(sc, src, catalog_dir, prices, strict_prices))
    model = pipeline.build_scenario(sc, src, catalog)
    if fabric not in model.fabrics:
        raise BomError(f"the scenario builds no '{fabric}' fabric; it builds {', '.join(model.fabrics)}",
                       key="--fabric")
    if site > model.cluster.site_count:
        raise BomError(f"the scenario has {model.cluster.site_count} site(s), not {site}", key="--site")
    stem = f"{sc.name}-{fabric}-s{site}"
    files: dict[str, bytes] = {}
    said: list[str] = []
    if {"dot", "drawio", "netlab"} & set(kinds):
        g = topology_graph(plan.rows(model, catalog=catalog), plan.COL, stem, f"s{site}", fabric, max_links)
        drawn = {"dot": (".dot", write_dot), "drawio": (".drawio", write_drawio),
                 "netlab": ("-netlab.yml", write_netlab)}
        files.update({f"{stem}{suffix}": write(g) for k, (suffix, write) in drawn.items() if k in kinds})
        said.append(f"{stem}: {len(g.devices):,} devices, {len(g.edges):,} cable runs")
    if "ibsim" in kinds:
        from bom.pipeline.ibsim import ibsim_files

        net, more = ibsim_files(model, catalog, stem, site, fabric)
        files.update(more)
        said.append(f"{stem}.ibnet: {net.counts}")
    paths = _write(files, output or Path("reports") / sc.name, "", False)
    assert paths is not None
    _say(*said)
    _wrote(paths)


@app.command("export", short_help="The plan for acceptance tests, schedulers and simulators.")
@friendly
@pipe_safe
def export_(
    kind: Annotated[str, typer.Argument(
        metavar="KIND", help="anta (an ANTA test catalog per Ethernet fabric), cvt (the point-to-point workbook "
        "NVIDIA's cable validation tool reads), expected-topology (every tier's links with each fibre run's "
        "receive-power window, JSON), slurm (topology.conf: tree and block), k8s (node labels), simai (a SimAI "
        "topology and workload).")],
    scenario: Annotated[Optional[Path], typer.Argument(
        metavar="[SCENARIO]", help="Scenario YAML; none = the built-in default.")] = None,
    output: Annotated[Optional[Path], typer.Option(
        "-o", "--output", metavar="DIR", help="Folder for the files (default: reports/<name>).")] = None,
    catalog_dir: CatalogOpt = None,
    prices: PricesOpt = None,
    strict_prices: StrictPricesOpt = False,
) -> None:
    """Write the plan as the files of KIND, each from the cable plan's rows (the same devices, ports and
    cables as bom cables writes)."""
    from bom import pipeline
    from bom.inputs.scenario import load_scenario
    from bom.pipeline import exports

    exports.check_kind(kind)   # before anything is built
    sc, src = load_scenario(scenario)
    catalog = _noted(pipeline.catalog_for(sc, src, catalog_dir, prices, strict_prices))
    model = pipeline.build_scenario(sc, src, catalog)
    paths = _write(exports.export(kind, model, catalog, sc.name), output or Path("reports") / sc.name, "", False)
    assert paths is not None
    _wrote(paths)


@app.command(short_help="Rate and length -> standard, medium and part numbers.")
@friendly
@pipe_safe
def lookup(
    rate: Annotated[str, typer.Option(metavar="QUANTITY", help='Link rate: "800 Gbit/s", 800G, 1.6T, 400GbE.')],
    reach: Annotated[str, typer.Option(metavar="QUANTITY", help='Required length, e.g. "30 m" or "80 km".')],
    form_factor: Annotated[Optional[str], typer.Option(
        metavar="CAGE", help="Cage at one end: osfp, qsfp112, ...")] = None,
    far_form_factor: Annotated[Optional[str], typer.Option(metavar="CAGE", help="Cage at the other end.")] = None,
    lane_rate: Annotated[Optional[str], typer.Option(
        metavar="QUANTITY", help='Lane rate, e.g. "200 Gbit/s" (XDR).')] = None,
    prefer: Annotated[str, typer.Option(metavar="ladder|cost|power", help="What decides the choice.")] = "ladder",
    panels: Annotated[int, typer.Option(min=0, max=8, metavar="N", help="Patch panels on the route.")] = 0,
    slack: Annotated[str, typer.Option(
        metavar="QUANTITY", help="Added to the length before choosing a sold length.")] = "0 m",
    as_json: JsonOpt = False,
    catalog_dir: CatalogOpt = None,
    prices: PricesOpt = None,
    strict_prices: StrictPricesOpt = False,
) -> None:
    """The standard lookup: rate + length -> medium and part numbers, with the runners-up."""
    from bom.catalog.media import NO_PART_HINT, Media, Preference
    from bom.errors import BomError, LimitError
    from bom.inputs.validation import suggest
    from bom.outputs import terminal as text

    if prefer not in ("ladder", "cost", "power"):
        raise BomError(suggest(prefer, ["ladder", "cost", "power"], "preference"), key="--prefer")
    preference = cast("Preference", prefer)   # one of them, checked above
    # "1.6 Tbit/s" is 1600.0000000000002 Gbit/s in binary floating point; the catalog's rates are whole.
    rate_g = round(_positive(rate, "rate", "Gbit/s", "--rate"), 6)
    extra = _quantity(slack, "length", "m", "--slack") or 0.0
    if extra < 0:
        raise BomError(f"{slack!r} must not be negative", key="--slack")
    length = _positive(reach, "length", "m", "--reach") + extra
    lane = _positive(lane_rate, "rate", "Gbit/s", "--lane-rate") if lane_rate else None
    from typing import get_args

    from bom.catalog.rows import FormFactor
    from bom.inputs.validation import cage_option

    form_factor = cage_option(form_factor, "--form-factor", get_args(FormFactor))
    far_form_factor = cage_option(far_form_factor, "--far-form-factor", get_args(FormFactor))
    media = Media(_catalog(catalog_dir, prices, strict_prices))
    # 1.6T with no 1.6T part: two 800G links on twin-port ends, one module (or cable head) per cage.
    half = media.twin_port_rate(rate_g)
    if half is not None:
        form_factor, far_form_factor = (f"{f or ''}:2" if f is None or ":" not in f else f
                                        for f in (form_factor, far_form_factor or form_factor))
    try:
        result = media.lookup(half or rate_g, length, form_factor, far_form_factor, lane, preference, panels, True)
    except LimitError as exc:
        if form_factor and exc.hint == NO_PART_HINT:
            exc.hint = "Drop --form-factor (and --far-form-factor), or add the part to a catalog overlay."
        raise
    if as_json:
        _print_json({"rate_gbps": rate_g, "links_per_cage": 2 if half else 1,
                     "choice": result.choice.to_json() | {"parts": result.choice.option.label},
                     "passed_over": [{"option": r.option.label, "id": r.option.name, "medium": r.option.medium,
                                      "standard": r.option.standard,
                                      "reason": r.reason} for r in result.runners_up]})
        return
    _show(text.lookup_report(result, rate_g if half else None))


def _positive(text_: str | None, dimension: str, unit: str, option: str) -> float:
    from bom.errors import QuantityError

    value = _quantity(text_, dimension, unit, option)
    if value is None or not value > 0:
        raise QuantityError(f"{text_!r} must be a quantity greater than zero.", key=option)
    return value


@app.command(short_help="Print the JSON Schema of a scenario file (or of the output JSON).")
@friendly
@pipe_safe
def schema(
    output: Annotated[bool, typer.Option(
        "--output", help="The schema of the output JSON (bom build --json, bom compare --json) instead.")] = False,
) -> None:
    """Print the JSON Schema of a scenario file (for an editor's YAML language server), or with
    --output of the JSON a build or a comparison writes (docs/output.md)."""
    if output:
        from bom.outputs.schema import schema_text as output_text

        _json_document(output_text())
        return
    from bom.inputs.schema import schema_text

    _json_document(schema_text())


@app.command(short_help="Write a commented starter scenario that builds as it is.")
@friendly
@pipe_safe
def init(
    file: Annotated[Path, typer.Argument(
        metavar="[FILE]", help='Where to write the starter; "-" prints it.')] = Path("scenario.yaml"),
    platform: Annotated[Optional[str], typer.Option(
        metavar="ID", help="Platform id from the catalog (default gb300-nvl72).")] = None,
    gpus: Annotated[Optional[int], typer.Option(
        min=1, metavar="N", help="Size in GPUs (default: one scalable unit).")] = None,
    workload: Annotated[Optional[str], typer.Option(
        metavar="KIND", help="Size from a job instead: serve, finetune or pretrain.")] = None,
    force: Annotated[bool, typer.Option("--force", "-f", help="Replace FILE if it exists.")] = False,
) -> None:
    """Write a commented starter scenario that builds as it is."""
    from bom.errors import BomError
    from bom.starter import starter

    text = starter(_catalog(), platform, gpus, workload)
    if str(file) == "-":
        _show(text, nl=False)
        return
    if os.path.islink(file):   # never written through: a link may lead out of the folder
        raise BomError("the file is a symbolic link; bom init writes a new file, not through a link.", where=str(file),
                       hint="Give the path of a new file, or remove the link.")
    if os.path.lexists(file) and not force:
        raise BomError("the file exists already.", where=str(file),
                       hint="Give another FILE, or --force to replace it.")
    if os.path.lexists(file) and not file.is_file():
        raise BomError("the path is a folder or a special file, not a scenario file.", where=str(file),
                       hint="Give the path of a file.")
    from bom.outputs.publish import replace_file

    replace_file(file, text.encode("utf-8"))
    _say(f"Wrote {file}. Build it with: bom build {file}")


@catalog_app.command("list")
@friendly
@pipe_safe
def catalog_list(
    kind: Annotated[Optional[str], typer.Option(
        metavar="KIND", help="One kind of row: platforms, switches, modules, cables, fibres, panels, coherent, "
        "dwdm, endpoints or racks (singular too: platform).")] = None,
    catalog_dir: CatalogOpt = None,
    prices: PricesOpt = None,
    strict_prices: StrictPricesOpt = False,
) -> None:
    """List catalog rows (id, part number, price, its published range and its source, lead time).

    The price column says "estimate" for an estimate inside a published range and "placeholder" for
    an estimate with none (a round figure to replace with a quote)."""
    from bom.catalog.rows import KINDS
    from bom.errors import BomError
    from bom.inputs.validation import suggest
    from bom.outputs import terminal as text

    if kind is not None:
        # As people type it: "platform" for platforms, any case.
        kind = kind.strip().lower()
        kind = next((k for k in (kind, f"{kind}s", f"{kind}es") if k in KINDS), kind)
    if kind is not None and kind not in KINDS:
        raise BomError(suggest(kind, KINDS, "kind"), key="--kind")
    cat = _catalog(catalog_dir, prices, strict_prices)
    from bom.outputs.writers.common import terminal_text as tt

    rows = [[k, r.id, tt(r.part_number), f"{r.price_usd:,.0f}",
             "" if r.price_low_usd is None else f"{_short_usd(r.price_low_usd)}-{_short_usd(r.price_high_usd)}",
             "placeholder" if r.placeholder_price else r.price_source,
             r.lead_time_label, str(r.as_of),
             r.status if r.status == "active" else f"{r.status} {r.status_date}",
             "SKU" if r.orderable else "generic", tt(r.description)[:50]]
            for k in KINDS if kind in (None, k) for r in cat.by_kind[k]]
    headers = ["kind", "id", "part number", "USD", "USD range", "price", "lead time", "as of", "status",
               "orderable", "description"]
    right = [False, False, False, True, False, False, True, False, False, False, False]
    width = text.terminal_width()
    # Eleven columns of five characters and the numbers pass 80: on a narrow terminal the dates go.
    keep = [i for i, h in enumerate(headers)
            if width is None or width >= 100 or h not in ("as of", "orderable")]
    _show(text.table([headers[i] for i in keep], [[r[i] for i in keep] for r in rows], [right[i] for i in keep]))


def _short_usd(usd: float | None) -> str:
    """A price in few characters for a narrow column: 950, 36k, 3.7M."""
    assert usd is not None
    if usd >= 1e6:
        return f"{usd / 1e6:.3g}M"
    return f"{usd / 1e3:.3g}k" if usd >= 1e3 else f"{usd:.0f}"


@catalog_app.command("show")
@friendly
@pipe_safe
def catalog_show(row_id: Annotated[str, typer.Argument(
                     metavar="ID|PART", help="A catalog row id (q3400) or a part number (MQM9790-NS2F, "
                     "MFP7E10-N030: a sold length's part number shows its row), any case.")],
                 catalog_dir: CatalogOpt = None, prices: PricesOpt = None,
                 strict_prices: StrictPricesOpt = False) -> None:
    """Every field of one catalog row, and the file it came from; by part number, every row sold under it."""
    from bom.catalog.rows import Cable, Fibre
    from bom.errors import CatalogError
    from bom.inputs.validation import suggest
    from bom.outputs import terminal as text

    cat = _catalog(catalog_dir, prices, strict_prices)
    kind = cat.kind_of(row_id)
    if kind is not None:
        _show(text.show_row(kind, cat.rows[kind][row_id], cat.origin[row_id]))
        return
    want = row_id.strip().upper()
    hits: list[tuple[str, Row, str]] = []   # kind, row, how the part number matched
    for k, rows in cat.rows.items():
        for row in rows.values():
            if row.id.upper() == want or row.part_number.upper() == want:
                hits.append((k, row, ""))
                continue
            for sold in row.lengths if isinstance(row, Cable | Fibre) else ():
                if sold.part_number.upper() == want:
                    hits.append((k, row, f"{sold.part_number} is its {sold.length.to('m').magnitude:g} m sold length"))
    if not hits:
        import difflib

        parts = sorted({r.part_number for r in cat})
        close = difflib.get_close_matches(row_id.upper(), parts, n=3, cutoff=0.6)
        tip = f" Part numbers close to it: {', '.join(close)}." if close else ""
        raise CatalogError(suggest(row_id, sorted({r.id for r in cat}), "id or part number") + tip,
                           hint="bom catalog list prints every row's id and part number.")
    if len(hits) > 1:
        _say(f"{row_id}: {len(hits)} catalog rows: {', '.join(r.id for _, r, _ in hits)}", "")
    for i, (k, row, how) in enumerate(hits):
        if how:
            _say(f"{how} ({row.id}):")
        _show(("\n" if i else "") + text.show_row(k, row, cat.origin[row.id]))


@catalog_app.command("validate")
@friendly
@pipe_safe
def catalog_validate(directory: Annotated[Optional[Path], typer.Argument(
        metavar="[DIR]", help="An overlay directory to check on top of the built-in catalog.")] = None,
        prices: PricesOpt = None,
        strict_prices: StrictPricesOpt = False,
        strict: Annotated[bool, typer.Option(
            "--strict", help="Also read every text of every row at every depth (notes, source, support.source, "
            "laser_source.notes, ...) and fail where one says a fact is unverified (estimate, assumed, not "
            "verified, not re-verified) and the row does not mark it (confirmed: false, the fact in unconfirmed), "
            "where a value equals one a sibling row marks unconfirmed, or where a text speaks of a lookup "
            "session; and refuse a row without a lead time (a dated source, an estimate by part class with its "
            "range and basis, marked unconfirmed, or unknown with why).")] = False,
        ) -> None:
    """Load and check the built-in catalog (and an overlay); exit 2 on the first problem."""
    from bom.catalog.checks import check_catalog, check_confirmations, confirmation_counts, lead_time_counts

    cat = _catalog([directory] if directory else None, prices, strict_prices)
    check_catalog(cat)
    if strict:
        check_confirmations(cat)
    counts = ", ".join(f"{len(v)} {k}" for k, v in cat.rows.items() if v)
    confirmed, unconfirmed = confirmation_counts(cat)
    sourced, estimated, unknown = lead_time_counts(cat)
    _say(f"Catalog ok: {counts}; {confirmed} rows confirmed at their sources, "
         f"{unconfirmed} marked unconfirmed; lead times: {sourced} from a dated source, {estimated} estimated "
         f"by part class, {unknown} unknown.")


def _add_netbox() -> None:
    # the NetBox commands live in bom/cli/netbox.py, with this module's error handling
    from bom.cli.netbox import register

    register(app, lambda fn: friendly(pipe_safe(fn)))


_add_netbox()


def _told(exc: Any) -> int:
    """Click's message for a bad option or argument, ended as a sentence like every other one.

    Typer carries its own click; its exceptions are known by their public base class and by the
    ``message``/``show`` that every click exception has.
    """
    if type(exc).__name__ != "NoArgsIsHelpError" and isinstance(getattr(exc, "message", None), str):
        from bom.outputs.writers.common import terminal_text

        # click quotes the value given ("'x' is not a valid integer"): by the rule of every printed line
        exc.message = terminal_text(exc.message.rstrip())   # NoArgsIsHelpError's message is the help itself
        if exc.message and not exc.message.endswith((".", "?", "!")):
            exc.message += "."
    exc.show()
    return int(getattr(exc, "exit_code", 2))


def main() -> None:
    from typer.exceptions import TyperException

    try:
        try:
            # Not standalone: click's usage errors come back here to be told as sentences.
            code = app(standalone_mode=False)
        except typer.Abort:
            _say("Aborted.", err=True)
            code = 1
        except TyperException as exc:
            if not hasattr(exc, "show"):
                raise
            code = _told(exc)
        finally:
            sys.stdout.flush()  # buffered output into a closed pipe fails here, not at the write
    except KeyboardInterrupt:
        sys.exit(130)
    except (BrokenPipeError, PipeClosed):
        stdout_closed()
        sys.exit(0)
    sys.exit(code if isinstance(code, int) else 0)

