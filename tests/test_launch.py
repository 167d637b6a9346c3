"""The entry point's fast answers (bom/launch.py): the command line's own help and version, written
out, and everything else handed over."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bom import launch
from bom.cli import app

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_the_written_out_help_is_the_command_lines_own(flag):
    """A new command or a changed summary fails here until bom/launch.py's HELP is made again."""
    # click lays help out two columns short of the terminal's width, at most 80
    theirs = CliRunner().invoke(app, [flag], prog_name="bom", terminal_width=launch.WIDE - 2)
    assert theirs.exit_code == 0
    assert launch.answer(["/usr/bin/bom", flag], launch.WIDE) == theirs.stdout


def test_the_version_is_the_command_lines_own(bom):
    assert launch.answer(["bom", "--version"], 20) == bom("--version").stdout


@pytest.mark.parametrize("argv,columns", [(["bom"], 120), (["bom", "build", "--help"], 120), (["bom", "-h"], 79),
                                          (["bom", "--help", "x"], 120)])
def test_everything_else_goes_to_the_command_line(argv, columns):
    assert launch.answer(argv, columns) is None


def test_help_starts_without_the_command_line():
    """``bom --help`` loads neither typer nor the package's commands (the point of the fast path)."""
    code = ("import sys; sys.argv = ['bom', '--help']; from bom.launch import main; main(); "
            "print(sorted(m for m in sys.modules if m.startswith(('typer', 'bom.'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100"}, check=True).stdout
    assert out.startswith("Usage: bom [OPTIONS] COMMAND") and out.rstrip().endswith("['bom.launch']")
