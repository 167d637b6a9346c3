"""No message names an option its command lacks (issue 42, item 4: a build's error once told ``bom build``
to use ``--form-factor``, an option of ``bom lookup`` only).

Every string the package can print (its literals and f-strings' literal parts, bare strings aside) is read
for ``--option`` names. An option after ``bom <command>`` in the same clause is that command's; any other
is checked against every command :data:`OWNERS` says prints the module's messages. A module that names an
option and is not in :data:`OWNERS` fails until it says which commands print it. The commands and their
options are the typer/click command objects of :mod:`bom.cli`, not a copy.

bom/cli itself is left out: its strings are the options' own declarations and help, beside them; so is
bom/launch.py, which holds the top-level help written out (tests/test_launch.py checks it is bom/cli's).
"""

from __future__ import annotations

import ast
import re
from typing import Any

import pytest
import typer

from bom.cli import app
from tests.hints import BOM, ROOT

#: ``--name`` not inside a word (``a--b``) or a longer option.
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")

#: Options of other programs a message names as theirs.
FOREIGN = {
    ("bom/verify/ib.py", "--node-name-map"): "ibnetdiscover's option: the node descriptions it prints",
}

#: The scenario commands: each builds the model, so the sizing and the build's stages can print through it.
MODEL = ("build", "check", "cables", "topology", "verify", "compare", "netbox export")

#: Module (or folder) -> the commands whose runs print its messages.
OWNERS: dict[str, tuple[str, ...]] = {
    "bom/cableplan/labels.py": ("cables",),   # the plan's --profile
    # load_catalog: every command that reads the catalog with overlays and price files.
    "bom/catalog/load.py": ("size", *MODEL, "lookup", "catalog list", "catalog show", "netbox push",
                            "netbox diff"),
    "bom/catalog/prices.py": (*MODEL, "lookup", "catalog list", "catalog show", "catalog validate",
                              "netbox push", "netbox diff"),
    "bom/costing/compare.py": ("compare",),
    "bom/netbox/client.py": ("netbox push", "netbox diff"),
    "bom/netbox/script.py": ("netbox push",),   # the push's paths: --path, --install-script
    # write_all (bom/cli _write, verify), write_plan (cables), the NetBox export's files.
    "bom/outputs/publish.py": ("build", "verify", "cables", "compare", "topology", "netbox export"),
    "bom/outputs/sets.py": ("build",),   # the build's output set: a plan asked for with --plan
    "bom/outputs/writers/ibsim.py": ("topology",),
    "bom/outputs/writers/topology.py": ("topology",),
    "bom/outputs/writers/sweep.py": ("sweep",),   # each design's rebuild command: bom sweep --point
    "bom/outputs/writers/xlsx.py": ("build",),
    "bom/pipeline/checks.py": ("build",),   # refusal: build_checked, bom build's only
    "bom/pipeline/compare.py": ("compare",),
    "bom/pipeline/diff.py": ("diff",),
    "bom/pipeline/ibsim.py": ("topology",),
    "bom/pipeline/moves.py": ("cables",),   # bom cables --phase NAME --moves
    "bom/pipeline/sizing.py": ("size", *MODEL),   # build_scenario sizes a scenario with a workload
    "bom/starter.py": ("init",),
    "bom/sweep/": ("sweep",),
    "bom/verify/": ("verify",),
}


def commands() -> dict[str, set[str]]:
    """Every command's path ("catalog list") -> its long options, from the click objects typer makes."""
    out: dict[str, set[str]] = {}

    def walk(cmd: Any, path: tuple[str, ...]) -> None:
        subs = getattr(cmd, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk(sub, (*path, name))
        else:
            out[" ".join(path)] = {o for p in cmd.params for o in (*p.opts, *p.secondary_opts) if o.startswith("--")}
            out[" ".join(path)].add("--help")

    walk(typer.main.get_command(app), ())
    return out


COMMANDS = commands()
#: ``bom <command>`` with the longest command path that exists, then the rest of its clause.
NAMED = re.compile(r"\bbom ((?:[a-z]+ ?)+)([^`);.]*)")


def _strings(tree: ast.AST) -> list[ast.Constant]:
    # Bare strings are documentation (docstrings, a field's docstring under it), not what a command prints.
    docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    return [n for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and id(n) not in docs and "--" in n.value]


def _named(text: str) -> tuple[list[tuple[str, str]], str]:
    """The (command, option) pairs ``text`` names as ``bom <command> ... --option``, and the text left."""
    pairs: list[tuple[str, str]] = []

    def take(m: re.Match[str]) -> str:
        words = m.group(1).split()
        for n in range(len(words), 0, -1):
            if " ".join(words[:n]) in COMMANDS:
                tail = " ".join(words[n:]) + " " + m.group(2)
                pairs.extend((" ".join(words[:n]), o) for o in OPTION.findall(tail))
                return ""
        return m.group(0)

    return pairs, NAMED.sub(take, text)


def _owners(rel: str) -> tuple[str, ...] | None:
    return next((cmds for key, cmds in OWNERS.items() if rel == key or rel.startswith(key) and key.endswith("/")),
                None)


def mentions() -> list[tuple[str, int, str, str]]:
    """Every (module, line, command, option) a message of the package names; command "" where no owner is
    known."""
    out = []
    for path in sorted(BOM.rglob("*.py")):
        rel = str(path.relative_to(ROOT))
        if rel.startswith("bom/cli/") or rel == "bom/launch.py":   # the top-level help, written out
            continue
        for node in _strings(ast.parse(path.read_text())):
            pairs, rest = _named(node.value)
            out += [(rel, node.lineno, cmd, opt) for cmd, opt in pairs]
            for opt in OPTION.findall(rest):
                if (rel, opt) not in FOREIGN:
                    out += [(rel, node.lineno, cmd, opt) for cmd in _owners(rel) or ("",)]
    return out


MENTIONS = mentions()


def test_the_commands_are_read() -> None:
    """The command tree is typer's own: build has --allow-violations and no --form-factor, lookup has it."""
    assert "--allow-violations" in COMMANDS["build"] and "--form-factor" not in COMMANDS["build"]
    assert "--form-factor" in COMMANDS["lookup"] and "--kind" in COMMANDS["catalog list"]
    assert all(c in COMMANDS for cmds in OWNERS.values() for c in cmds), set(OWNERS.values())


def test_the_scan_finds_options() -> None:
    """The scan sees an option named bare, one named after its command, and leaves another program's."""
    found = {(m, c, o) for m, _, c, o in MENTIONS}
    assert ("bom/pipeline/checks.py", "build", "--allow-violations") in found
    assert ("bom/pipeline/compare.py", "catalog list", "--kind") in found
    assert ("bom/outputs/writers/topology.py", "init", "--gpus") in found
    assert not any(o == "--node-name-map" for _, _, _, o in MENTIONS)


def test_a_wrong_option_is_caught() -> None:
    """What the test would say of the message that started it."""
    pairs, rest = _named("Use `bom lookup --form-factor osfp` to see the parts; or build with --form-factor.")
    assert pairs == [("lookup", "--form-factor")]
    assert OPTION.findall(rest) == ["--form-factor"] and "--form-factor" not in COMMANDS["build"]


def test_every_module_naming_an_option_says_its_commands() -> None:
    loose = sorted({f"{m}:{line}" for m, line, cmd, _ in MENTIONS if cmd == ""})
    assert loose == [], "modules whose messages name an option with no command in OWNERS: " + ", ".join(loose)


@pytest.mark.parametrize("command", sorted({c for _, _, c, _ in MENTIONS if c}))
def test_no_message_names_an_option_its_command_lacks(command: str) -> None:
    wrong = sorted({f"{m}:{line}: {opt}" for m, line, cmd, opt in MENTIONS if cmd == command
                    and opt not in COMMANDS[command]})
    assert wrong == [], f"bom {command} has no such option: {wrong} (its options: {sorted(COMMANDS[command])})"
