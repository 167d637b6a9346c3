"""The README's set-up as a new user on Debian types it: its first command, run with Debian's own
/usr/bin/python3 (externally managed, PEP 668) first on the PATH, in a fresh copy of the clone.

Slow: it makes a venv and installs the package's dependencies from the package index (about 30 s)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT

DEBIAN_PYTHON = Path("/usr/bin/python3")


def readme_commands() -> list[str]:
    """The shell block under "## Set-up" in the README, one command a line, comments cut."""
    text = (ROOT / "README.md").read_text()
    setup = text.split("## Set-up", 1)[1]
    block = re.search(r"```sh\n(.*?)```", setup, re.S)
    assert block, "README.md: no ```sh block under ## Set-up"
    return [line.split("  #")[0].strip() for line in block.group(1).splitlines() if line.strip()]


def test_readme_has_two_commands_each_in_a_venv():
    first, second = readme_commands()
    # The first makes the venv before any pip; the second is the script that makes (or reuses) the same one.
    assert first.startswith("python3 -m venv .venv"), first
    assert first.index("venv") < first.index("pip install")
    assert second == "bash scripts/test.sh"
    script = (ROOT / "scripts/test.sh").read_text()
    assert "BOM_VENV:-.venv" in script and "-m venv" in script


def _debian_python_or_skip() -> Path:
    if not DEBIAN_PYTHON.is_file() or not Path("/etc/debian_version").is_file():
        pytest.skip("not a Debian system with /usr/bin/python3")
    return DEBIAN_PYTHON


def _externally_managed(python: Path) -> bool:
    code = ("import sysconfig, os; "
            "print(os.path.isfile(os.path.join(sysconfig.get_path('stdlib'), 'EXTERNALLY-MANAGED')))")
    return subprocess.run([str(python), "-c", code], capture_output=True, text=True).stdout.strip() == "True"


def _fresh_copy(dest: Path) -> None:
    """The tracked files, as a clone has them (no .venv, no reports, no caches)."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False)
    if files.returncode != 0:
        pytest.skip("not a git checkout: cannot make a fresh copy")
    for name in files.stdout.decode().split("\0"):
        if not name or not (ROOT / name).is_file():
            continue
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, dest / name)


def _debian_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    # Debian's python3 first, and no venv of ours on the PATH (the suite may run inside one).
    venv_bin = str(Path(sys.prefix) / "bin") if sys.prefix != sys.base_prefix else None
    rest = [p for p in env.get("PATH", "").split(os.pathsep) if p and p != venv_bin]
    env["PATH"] = os.pathsep.join([str(DEBIAN_PYTHON.parent), *rest])
    return env


@pytest.mark.slow
def test_readme_first_command_on_debian_python(tmp_path):
    python = _debian_python_or_skip()
    env = _debian_env()
    assert shutil.which("python3", path=env["PATH"]) == str(python)
    if _externally_managed(python):
        # What the README's first command used to do: pip into the system's Python, refused (PEP 668).
        old = subprocess.run(["python3", "-m", "pip", "install", "--dry-run", "--no-deps", "-e", str(ROOT)],
                             env=env, capture_output=True, text=True)
        assert old.returncode != 0 and "externally-managed-environment" in old.stderr, old.stderr[-2000:]
    clone = tmp_path / "clone"
    clone.mkdir()
    _fresh_copy(clone)
    first = readme_commands()[0]
    done = subprocess.run(["sh", "-c", first], cwd=clone, env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=900)
    assert done.returncode == 0, f"{first}\nstdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}"
    # It built the default scenario with the venv it made, on Debian's Python.
    out = clone / "reports" / "gb300-two-sites"
    for suffix in (".xlsx", ".html", ".json", ".md", ".csv"):
        assert (out / f"gb300-two-sites{suffix}").stat().st_size > 0
    cfg = (clone / ".venv" / "pyvenv.cfg").read_text()
    assert f"home = {python.parent}" in cfg, cfg
    # The installed package is whole: every subpackage imports from the venv (a package missing from
    # pyproject's list would still import from an editable checkout, so ask the venv's python from elsewhere).
    probe = subprocess.run([str(clone / ".venv/bin/bom"), "--version"], cwd=tmp_path, env=env,
                           capture_output=True, text=True)
    assert probe.returncode == 0, probe.stderr


def test_every_subpackage_is_installed():
    """pyproject lists the packages by hand: a new one left off imports from an editable checkout but is
    missing from a wheel (bom.rules was)."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {str(p.parent.relative_to(ROOT)).replace("/", ".") for p in (ROOT / "bom").rglob("__init__.py")}
    assert found - listed == set(), f"pyproject.toml [tool.setuptools] packages lacks {sorted(found - listed)}"
