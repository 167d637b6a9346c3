"""The `bom` command: parses arguments, calls the pipeline, prints. No model logic here."""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Optional, TypeVar

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="clusterbom: from accelerator counts to a costed bill of materials.")
catalog_app = typer.Typer(no_args_is_help=True, help="List, show and validate catalog rows.")
app.add_typer(catalog_app, name="catalog")

F = TypeVar("F", bound=Callable[..., Any])


def friendly(fn: F) -> F:
    """Turn every BomError into a one-paragraph message on stderr and exit code 2."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from bom.errors import BomError

        try:
            return fn(*args, **kwargs)
        except BomError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        except OSError as exc:
            typer.echo(f"error: {exc.filename or ''}: {exc.strerror}", err=True)
            raise typer.Exit(2) from None
        except Exception as exc:
            if os.environ.get("BOM_DEBUG"):
                raise
            typer.echo(f"internal error (a bug in clusterbom, please report it with the input): "
                       f"{type(exc).__name__}: {exc}. Set BOM_DEBUG=1 for the traceback.", err=True)
            raise typer.Exit(1) from None

    return wrapper  # type: ignore[return-value]


def _catalog(catalog_dirs: list[Path] | None = None, prices: list[Path] | None = None) -> Any:
    from bom.catalog import load_catalog

    return load_catalog(catalog_dirs, prices)


def _quantity(text: str | None, dimension: str, unit: str, option: str) -> float | None:
    if text is None:
        return None
    from bom.units import parse_quantity

    return float(parse_quantity(text, dimension, key=option).to(unit).magnitude)


def _write(files: dict[str, bytes], out: Path, json_name: str, as_json: bool) -> list[Path] | None:
    """Write ``files`` into ``out``; print the JSON and return None with --json, else the paths."""
    from bom import outputs

    paths = outputs.write_all(files, out)
    if as_json:
        typer.echo(files[json_name].decode(), nl=False)
        return None
    return paths


def _wrote(paths: list[Path]) -> None:
    for p in paths:
        typer.echo(f"wrote {p}")


def _print_json(data: Any) -> None:
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False))


CatalogOpt = Annotated[Optional[list[Path]], typer.Option(
    "--catalog", help="A directory of catalog YAML files that adds or replaces rows by id.")]
PricesOpt = Annotated[Optional[list[Path]], typer.Option(
    "--prices", help="A CSV of sku,price_usd,price_source,as_of that replaces prices.")]


@app.command()
@friendly
def size(
    scenario: Annotated[Optional[Path], typer.Argument(
        help="Scenario YAML with a workload; none = the seed's six example jobs.")] = None,
    platform: Annotated[Optional[str], typer.Option(help="Platform id from the catalog.")] = None,
    memory_per_gpu: Annotated[Optional[str], typer.Option(help='e.g. "80 GB"')] = None,
    flops_per_gpu: Annotated[Optional[str], typer.Option(help='e.g. "2.25 PFLOP/s"')] = None,
    mfu: Annotated[Optional[float], typer.Option(min=0.01, max=1.0)] = None,
    pue: Annotated[Optional[float], typer.Option(min=1.0, max=3.0)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the sizing block as JSON.")] = False,
    catalog_dir: CatalogOpt = None,
) -> None:
    """How many accelerators a job needs, and at which level of scale it lands."""
    from bom import pipeline, text
    from bom.scenario import load_scenario

    ov = pipeline.SizeOverrides(
        _quantity(memory_per_gpu, "information", "GB", "--memory-per-gpu"),
        _quantity(flops_per_gpu, "compute", "FLOP/s", "--flops-per-gpu"), mfu, pue)
    catalog = _catalog(catalog_dir)
    if scenario is None:
        results = pipeline.size_seed_jobs(catalog, platform, ov)
        if as_json:
            _print_json([r.to_json() for r in results])
            return
        power = "" if platform else f"; power per GPU from {pipeline.SEED_POWER_PLATFORM}"
        typer.echo(f"Sizing on {results[0].accelerator}; usable memory 85 %{power}; "
                   f"the seed's six example jobs")
        typer.echo(text.sizing_table(results))
        return
    sc, src = load_scenario(scenario)
    result = pipeline.size_scenario(sc, src, catalog, platform, ov)
    if as_json:
        _print_json(result.to_json())
        return
    typer.echo(f"Sizing {sc.name} on {result.accelerator}")
    typer.echo(text.sizing_table([result]))


@app.command()
@friendly
def build(
    scenario: Annotated[Optional[Path], typer.Argument(
        help="Scenario YAML; none = the built-in default.")] = None,
    output: Annotated[Optional[Path], typer.Option(
        "-o", "--output", help="Folder for the outputs (default: reports/<name>).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the JSON summary to stdout.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr.")] = False,
    catalog_dir: CatalogOpt = None,
    prices: PricesOpt = None,
) -> None:
    """Build the cluster and write the BOM and TCO workbook, the review report, JSON and CSV."""
    import time

    from bom import cabling, outputs, pipeline, text
    from bom.report import make_report
    from bom.scenario import load_scenario

    start = time.perf_counter()

    def step(what: str) -> None:
        if not quiet:
            typer.echo(f"[{time.perf_counter() - start:5.2f} s] {what}", err=True)

    step("loading the scenario and catalogs")
    sc, src = load_scenario(scenario)
    catalog = pipeline.catalog_for(sc, src, catalog_dir, prices)
    step("building the model")
    report = make_report(pipeline.build_scenario(sc, src, catalog), catalog)
    files = outputs.render(report, step)
    step("writing the cable plan")
    plan_files, plan_note = cabling.for_build(report.model, sc.name, catalog)
    files.update(plan_files)
    paths = _write(files, output or Path("reports") / sc.name, f"{sc.name}.json", as_json)
    step("done")
    if plan_note:
        typer.echo(f"note: {plan_note} (bom cables {scenario or ''} -o DIR)".replace("  ", " "), err=True)
    if paths is None:
        return
    typer.echo(text.build_summary(report.model))
    typer.echo(text.totals_line(report))
    _wrote(paths)


@app.command()
@friendly
def cables(
    scenario: Annotated[Optional[Path], typer.Argument(
        help="Scenario YAML; none = the built-in default.")] = None,
    output: Annotated[Optional[Path], typer.Option(
        "-o", "--output", help="Folder for the plan (default: reports/<name>).")] = None,
    scale_up: Annotated[bool, typer.Option(
        "--scale-up", help="List every GPU's NVLink links too (else a per-rack summary in the racks CSV).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print what was written as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar on stderr.")] = False,
    catalog_dir: CatalogOpt = None,
    prices: PricesOpt = None,
) -> None:
    """Write the cable plan (every link, device and port at both ends) and the rack elevations."""
    from bom import cabling, pipeline, plan
    from bom.scenario import load_scenario

    try:
        sc, src = load_scenario(scenario)
        catalog = pipeline.catalog_for(sc, src, catalog_dir, prices)
        model = pipeline.build_scenario(sc, src, catalog)
        with cabling.progress_bar(plan.row_count(model, scale_up), not quiet) as progress:
            result = cabling.write_plan(model, output or Path("reports") / sc.name, sc.name, catalog=catalog,
                                        progress=progress, scale_up=scale_up)
    except KeyboardInterrupt:
        typer.echo("interrupted: no cable plan was written (the temporary files are removed)", err=True)
        sys.exit(130)   # SystemExit, so friendly() does not take it for a bug
    if as_json:
        _print_json({"name": sc.name, **result.to_json()})
        return
    typer.echo(result.summary())
    _wrote(result.paths)


@app.command()
@friendly
def compare(
    scenario: Annotated[Optional[Path], typer.Argument(
        help="Scenario with the job (gpus or workload); none = scenarios/compare.yaml.")] = None,
    platforms: Annotated[Optional[str], typer.Option(help="Comma-separated platform ids; none = all.")] = None,
    gpus: Annotated[Optional[int], typer.Option(min=1, help="Build this many GPUs on each.")] = None,
    output: Annotated[Optional[Path], typer.Option("-o", "--output", help="Folder (default reports/<name>).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the comparison JSON to stdout.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q")] = False,
    catalog_dir: CatalogOpt = None,
    prices: PricesOpt = None,
) -> None:
    """Build the same job on each platform generation and compare copper share, optics and cost per GPU."""
    from bom import compare as cmp
    from bom import outputs, pipeline, text
    from bom.resources import data_dir
    from bom.scenario import load_scenario

    sc, src = load_scenario(scenario or data_dir("scenarios") / "compare.yaml")
    catalog = pipeline.catalog_for(sc, src, catalog_dir, prices)
    ids = [p.strip() for p in platforms.split(",") if p.strip()] if platforms else None
    result = cmp.compare(sc, src, catalog, ids, gpus)
    paths = _write(outputs.render_comparison(result), output or Path("reports") / sc.name,
                   f"{sc.name}-compare.json", as_json)
    if paths is None:
        return
    if len(result.generations) == 1 and not quiet:
        typer.echo("note: one platform, so there is no previous generation to compare against", err=True)
    typer.echo(text.compare_table(result))
    _wrote(paths)


@app.command()
@friendly
def lookup(
    rate: Annotated[str, typer.Option(help='Link rate, e.g. "800 Gbit/s".')],
    reach: Annotated[str, typer.Option(help='Required length, e.g. "30 m" or "80 km".')],
    form_factor: Annotated[Optional[str], typer.Option(help="Cage at one end: osfp, qsfp112, ...")] = None,
    far_form_factor: Annotated[Optional[str], typer.Option(help="Cage at the other end.")] = None,
    lane_rate: Annotated[Optional[str], typer.Option(help='e.g. "200 Gbit/s" (XDR).')] = None,
    prefer: Annotated[str, typer.Option(help="ladder (default), cost or power.")] = "ladder",
    panels: Annotated[int, typer.Option(min=0, max=8, help="Patch panels on the route.")] = 0,
    slack: Annotated[str, typer.Option(help="Added to the length before choosing a sold length.")] = "0 m",
    as_json: Annotated[bool, typer.Option("--json")] = False,
    catalog_dir: CatalogOpt = None,
    prices: PricesOpt = None,
) -> None:
    """The standard lookup: rate + length -> medium and part numbers, with the runners-up."""
    from bom import text
    from bom.errors import BomError
    from bom.media import Media
    from bom.validation import suggest

    if prefer not in ("ladder", "cost", "power"):
        raise BomError(suggest(prefer, ["ladder", "cost", "power"], "preference"), key="--prefer")
    rate_g = _positive(rate, "rate", "Gbit/s", "--rate")
    length = _positive(reach, "length", "m", "--reach") + (_quantity(slack, "length", "m", "--slack") or 0)
    lane = _positive(lane_rate, "rate", "Gbit/s", "--lane-rate") if lane_rate else None
    media = Media(_catalog(catalog_dir, prices))
    result = media.lookup(rate_g, length, form_factor, far_form_factor, lane, prefer, panels, True)
    if as_json:
        _print_json({"choice": result.choice.to_json(),
                     "passed_over": [{"option": r.option.name, "medium": r.option.medium,
                                      "reason": r.reason} for r in result.runners_up]})
        return
    typer.echo(text.lookup_report(result))


def _positive(text_: str | None, dimension: str, unit: str, option: str) -> float:
    from bom.errors import QuantityError

    value = _quantity(text_, dimension, unit, option)
    if value is None or not value > 0:
        raise QuantityError(f"{text_!r} must be a number greater than zero", key=option)
    return value


@catalog_app.command("list")
@friendly
def catalog_list(
    kind: Annotated[Optional[str], typer.Option(help="platforms, switches, modules, ...")] = None,
    catalog_dir: CatalogOpt = None,
    prices: PricesOpt = None,
) -> None:
    """List catalog rows (id, part number, price and its source)."""
    from bom import text
    from bom.catalog import KINDS
    from bom.errors import BomError
    from bom.validation import suggest

    if kind is not None and kind not in KINDS:
        raise BomError(suggest(kind, KINDS, "kind"), key="--kind")
    cat = _catalog(catalog_dir, prices)
    rows = [[k, r.id, r.part_number, f"{r.price_usd:,.0f}", r.price_source, str(r.as_of),
             r.description[:60]]
            for k in KINDS if kind in (None, k) for r in cat.by_kind[k]]
    typer.echo(text.table(["kind", "id", "part number", "USD", "price", "as of", "description"],
                          rows, [False, False, False, True, False, False, False]))


@catalog_app.command("show")
@friendly
def catalog_show(row_id: Annotated[str, typer.Argument(metavar="ID")],
                 catalog_dir: CatalogOpt = None, prices: PricesOpt = None) -> None:
    """Every field of one catalog row, and the file it came from."""
    from bom.errors import CatalogError
    from bom.validation import suggest

    cat = _catalog(catalog_dir, prices)
    kind = cat.kind_of(row_id)
    if kind is None:
        raise CatalogError(suggest(row_id, [r.id for r in cat], "id"))
    row = cat.rows[kind][row_id]
    typer.echo(f"# {kind[:-1] if kind.endswith('s') else kind} from {cat.origin[row_id]}")
    for name, value in row.model_dump(mode="python").items():
        typer.echo(f"{name}: {value}")


@catalog_app.command("validate")
@friendly
def catalog_validate(directory: Annotated[Optional[Path], typer.Argument(
        help="An overlay directory to check on top of the built-in catalog.")] = None,
        prices: PricesOpt = None) -> None:
    """Load and check the built-in catalog (and an overlay); exit 2 on the first problem."""
    from bom.checks import check_catalog

    cat = _catalog([directory] if directory else None, prices)
    check_catalog(cat)
    counts = ", ".join(f"{len(v)} {k}" for k, v in cat.rows.items() if v)
    typer.echo(f"catalog ok: {counts}")


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
