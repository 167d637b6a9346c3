"""The one way a command prints to the terminal: every line through one rule.

Names in what a command prints come from files and servers anyone may write (an LLDP neighbour's
system name, a NetBox device, an overlay's part number). Each printed line is
:func:`~bom.outputs.writers.common.terminal_text`: escape sequences and C1 controls removed, line
breaks and the other controls shown escaped, so no name sets the terminal's title, clears it, or
starts a line that reads as the tool's own. ``tests/hostile/test_round4.py`` fails on any other
print in ``bom/``.

Two kinds of text: :func:`lines` takes items that are one line each whatever they hold (a line break
inside one is shown as ``\\n``); :func:`block` takes the tool's own text of several lines (a table),
whose cells the builders pass through ``terminal_text`` themselves.
"""

from __future__ import annotations

import json
from typing import Any

import typer

from bom.errors import redact
from bom.outputs.writers.common import json_safe, json_text, terminal_text


def lines(*items: object, err: bool = False) -> None:
    """Print each item as one line."""
    typer.echo("\n".join(terminal_text(redact(str(i))) for i in items), err=err)


def block(text: str, err: bool = False, nl: bool = True) -> None:
    """Print the tool's own text of several lines (split at LF only), each line by the rule."""
    typer.echo("\n".join(terminal_text(redact(line)) for line in text.split("\n")), err=err, nl=nl)


def json_data(data: Any, ascii: bool = False) -> None:
    """``data`` as indented JSON; what a terminal would act on is a \\u escape (the same JSON), and with
    ``ascii`` everything past ASCII."""
    typer.echo(redact(json.dumps(data, indent=2, ensure_ascii=True) if ascii else json_text(data, indent=2)))


def json_document(text: str) -> None:
    """JSON text written elsewhere (a build's JSON file, a schema), as :func:`json_data` prints."""
    typer.echo(redact(json_safe(text)), nl=False)
