"""The ``bom`` command's entry point: ``bom --help`` and ``bom --version`` answered without loading
the command line (typer is most of a start-up: ``bom --help`` took 4.6 times ``python -c pass``),
everything else handed to :func:`bom.cli.main`.

The help is the command line's own, written out once: ``tests/test_launch.py`` renders the typer
app's help and checks it is this text, so a new command or a changed summary fails the tests until
it is copied here. It is click's layout at its widest (78 columns, what a terminal of 80 or more or a
pipe gets); a narrower terminal gets the command line's own wrapping.
"""

from __future__ import annotations

import os
import shutil
import sys

from bom import __version__

#: ``bom --help`` (``{prog}``: the program's name as it was started).
HELP = """\
Usage: {prog} [OPTIONS] COMMAND [ARGS]...

  clusterbom: from accelerator counts to a costed bill of materials.

Options:
  --version   Print the version and exit.
  -h, --help  Show this message and exit.

Commands:
  size      GPUs a job needs and the level of scale it lands at.
  build     Build a scenario: workbook, report, JSON and CSV.
  check     Check the design rules: can every listed link be built?
  verify    Check what was built against the plan: LLDP, ibnetdiscover,
            NetBox.
  cables    Write the cable plan and the rack elevations.
  compare   Build one job on each platform generation and compare.
  sweep     Build every design of a sweep; the Pareto frontier of the results.
  faults    What breaks when something breaks: failure domains, goodput,
            redundancy.
  diff      What changes between two designs: parts, money, power, cables.
  topology  One fabric of one site as Graphviz DOT, draw.io XML and a netlab
            topology.
  export    The plan for acceptance tests, schedulers and simulators.
  lookup    Rate and length -> standard, medium and part numbers.
  schema    Print the JSON Schema of a scenario file (or of the output JSON).
  init      Write a commented starter scenario that builds as it is.
  catalog   List, show and validate catalog rows.
  netbox    The plan in NetBox: import files, push, diff.
"""
#: The narrowest terminal the written-out help fits as click would lay it out.
WIDE = 80


def answer(argv: list[str], columns: int) -> str | None:
    """What ``bom`` prints for these arguments without the command line, or None: hand them over."""
    if argv[1:] == ["--version"]:
        return f"clusterbom {__version__}\n"
    if argv[1:] in (["--help"], ["-h"]) and columns >= WIDE:
        return HELP.format(prog=os.path.basename(argv[0]))
    return None


def main() -> None:
    # The terminal's width as click reads it (COLUMNS, else the terminal, else 80).
    text = answer(sys.argv, shutil.get_terminal_size().columns)
    if text is None:
        from bom.cli import main as cli  # the command line, loaded only to run a command

        cli()
        return
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:   # bom --help | head -1
        from bom.errors import stdout_closed  # only on a closed pipe

        stdout_closed()
