"""``bom netbox export|push|diff``: argument parsing and printing only (the work is in the modules)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

app = typer.Typer(no_args_is_help=True, rich_markup_mode=None, context_settings={"help_option_names": ["-h", "--help"]},
                  help="The plan in NetBox: import files, push, diff.")

CatalogOpt = Annotated[Optional[list[Path]], typer.Option(
    "--catalog", metavar="DIR", help="A directory of catalog YAML files that adds or replaces rows by id.")]
PricesOpt = Annotated[Optional[list[Path]], typer.Option("--prices", metavar="CSV", help="A CSV of quotes.")]
StrictPricesOpt = Annotated[bool, typer.Option(
    "--strict-prices", help="Refuse a price file that quotes a SKU no catalog row sells (exit 2).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON to stdout instead of the text.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="Print no progress on stderr.")]


def register(parent: typer.Typer, wrap: Callable[[Callable[..., Any]], Callable[..., Any]]) -> None:
    """Add ``bom netbox`` to the main app; ``wrap`` is the CLI's error handling (exit 2 on bad input)."""
    for name, fn, short in (("export", export, "Write NetBox bulk-import files for the plan."),
                            ("push", push, "Create what NetBox lacks of the plan (never twice)."),
                            ("diff", diff, "Compare NetBox with the plan (exit 1 if they differ).")):
        app.command(name, short_help=short)(wrap(fn))
    parent.add_typer(app, name="netbox")


def _print_json(data: Any) -> None:
    from bom.outputs import echo

    # ASCII escapes: a name from NetBox with an escape sequence reaches the terminal as \u001b
    echo.json_data(data, ascii=True)

ScenarioArg = Annotated[Optional[Path], typer.Argument(help="Scenario YAML; none = the built-in default.")]
UrlOpt = Annotated[str, typer.Option("--url", metavar="URL", help="NetBox address, http(s)://host[:port].")]
TokenFileOpt = Annotated[Optional[Path], typer.Option(
    "--token-file", metavar="FILE", help="File whose first line is the API token (else $NETBOX_TOKEN).")]
TokenOpt = Annotated[Optional[str], typer.Option("--token", hidden=True)]
TimeoutOpt = Annotated[Optional[float], typer.Option(
    "--timeout", metavar="S", help="Seconds to wait for NetBox's answer to a read or a write (default 120 and 300; "
    "the status probe waits 10 at most).")]


def _say(line: str, err: bool = True) -> None:
    """One line, on stderr unless ``err`` is false (progress): nothing from NetBox reaches the terminal as
    an escape, a line of its own or a secret."""
    from bom.outputs import echo

    echo.lines(line, err=err)


def _echo(text: str, err: bool = False) -> None:
    from bom.outputs import echo

    echo.block(text, err=err)


def _model(scenario: Path | None, catalog_dir: list[Path] | None, prices: list[Path] | None,
           strict_prices: bool = False) -> tuple[Any, Any]:
    from bom import pipeline
    from bom.inputs.scenario import load_scenario

    sc, src = load_scenario(scenario)
    catalog = pipeline.catalog_for(sc, src, catalog_dir, prices, strict_prices)
    for note in catalog.notes:   # a price file's SKU not applied, its columns read past
        _say(f"warning: {note}")
    return pipeline.build_scenario(sc, src, catalog), catalog


def connect(url: str, token: str | None, token_file: Path | None, timeout: float | None = None,
            say: Callable[[str], None] | None = None) -> Any:
    from bom.errors import BomError
    from bom.netbox import client

    if token is not None:
        raise BomError("the token is not taken from the command line (other users can read it in the process list)",
                       key="--token", hint=f"Set ${client.TOKEN_ENV} or give --token-file FILE.")
    client.check_url(url)
    client.Timeouts.of(timeout)
    return client.connect(url, client.read_token(token_file), timeout, say)


def export(
    scenario: ScenarioArg = None,
    output: Annotated[Optional[Path], typer.Option(
        "-o", "--output", metavar="DIR", help="Folder for the files (default: reports/<name>/netbox).")] = None,
    netbox_version: Annotated[Optional[str], typer.Option(
        "--netbox-version", metavar="X.Y.Z", help="The NetBox release the files are for (default: the tested "
        "one): before 4.6.9 an InfiniBand port takes its generation's type, NetBox having no 4X types.")] = None,
    as_json: JsonOpt = False,
    catalog_dir: CatalogOpt = None,
    prices: PricesOpt = None,
    strict_prices: StrictPricesOpt = False,
) -> None:
    """Write the plan as NetBox import files, numbered in the order to import them."""
    from bom.errors import BomError
    from bom.netbox import choices
    from bom.netbox import export as ex

    version = None
    if netbox_version is not None:
        version = choices.release(netbox_version)
        if version is None or not choices.version_ok(netbox_version):
            lo, hi = choices.SUPPORTED
            raise BomError(f"{netbox_version!r} is not a NetBox release clusterbom supports", key="--netbox-version",
                           hint=f"Give a release from {lo[0]}.{lo[1]}.0 up to before {hi[0]}.{hi[1]}, e.g. "
                                f"--netbox-version {choices.TESTED_VERSION}.")
    model, catalog = _model(scenario, catalog_dir, prices, strict_prices)
    result = ex.export(model, catalog, output or Path("reports") / model.scenario.name / "netbox", version)
    inv = result.inventory
    if as_json:
        _print_json({"name": inv.scenario, "files": [str(p) for p in result.paths], "sites": len(inv.sites),
                     "racks": len(inv.racks), "devices": len(inv.devices), "cables": inv.cables})
        return
    _echo(f"{len(inv.sites)} sites, {len(inv.racks)} racks, {len(inv.device_types)} device types, "
               f"{len(inv.devices)} devices, {inv.cables:,} cables; import the files in their order "
               "(device types through NetBox's device type import, as YAML).")
    for p in result.paths:
        _say(f"Wrote {p}.", err=False)


def push(
    scenario: ScenarioArg = None,
    url: UrlOpt = "",
    token_file: TokenFileOpt = None,
    token: TokenOpt = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Read NetBox and say what would be created.")] = False,
    batch: Annotated[int, typer.Option(min=1, metavar="N", help="Objects per list POST (1 = one at a time).")] = 250,
    workers: Annotated[int, typer.Option(min=1, max=16, metavar="N", help=(
        "List POSTs in flight at once (1-16). More help only when NetBox runs several worker "
        "processes and its database has cores to spare."))] = 4,
    path: Annotated[str, typer.Option("--path", metavar="auto|script|list", help=(
        "How objects are created: auto (the clusterbom_bulk script run by NetBox's RQ worker when the server "
        "offers it, else list POSTs), script (only the script) or list (only list POSTs)."))] = "auto",
    install_script: Annotated[bool, typer.Option("--install-script", help=(
        "Upload the clusterbom_bulk script to NetBox first when it lacks this version (the token's user "
        "needs to add script modules)."))] = False,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
    timeout: TimeoutOpt = None,
    catalog_dir: CatalogOpt = None,
    prices: PricesOpt = None,
    strict_prices: StrictPricesOpt = False,
) -> None:
    """Push the plan into NetBox: create what is missing in batches, match what is there, report what differs."""
    from bom.errors import BomError
    from bom.netbox import client
    from bom.netbox import push as pu
    from bom.netbox import script as nbscript

    if path not in nbscript.PATHS:
        raise BomError(f"--path {path!r} is not a push path", key="--path",
                       hint="Give --path auto (the default), --path script or --path list.")
    say = None if quiet else _say
    nb = connect(url, token, token_file, timeout, say)
    model, catalog = _model(scenario, catalog_dir, prices, strict_prices)
    with client.answers("the push"):
        result = pu.push(nb, model, catalog, dry_run=dry_run, batch=batch, workers=workers,
                           say=None if as_json else say, path=path, install_script=install_script)
    if as_json:
        _print_json({"name": model.scenario.name, **result.to_json()})
        return
    _echo(result.summary())


def diff(
    scenario: ScenarioArg = None,
    url: UrlOpt = "",
    token_file: TokenFileOpt = None,
    token: TokenOpt = None,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
    timeout: TimeoutOpt = None,
    catalog_dir: CatalogOpt = None,
    prices: PricesOpt = None,
    strict_prices: StrictPricesOpt = False,
) -> None:
    """Devices, rack positions and cables missing, extra or different in NetBox; exit 0 when all match."""
    from bom.netbox import client
    from bom.netbox import diff as df

    nb = connect(url, token, token_file, timeout, None if quiet else _say)
    model, catalog = _model(scenario, catalog_dir, prices, strict_prices)
    with client.answers("the diff's reads"):
        result = df.diff(nb, model, catalog)
    if as_json:
        _print_json({"name": model.scenario.name, **result.to_json()})
    else:
        from bom.outputs import echo

        echo.lines(*result.lines())
    if not result.match:
        raise typer.Exit(1)
