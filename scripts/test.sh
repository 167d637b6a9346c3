#!/usr/bin/env bash
# Installs everything the tests need and runs the whole suite. Safe to run again.
#  - Python: the package and its test extras (pytest, pytest-xdist, hypothesis, ruff, mypy, ...)
#  - Debian: LibreOffice Calc (recalculates the workbook), Chromium (renders the report), Graphviz (renders the DOT)
#    and lldpd (bom verify's network-namespace test, tests/verify/test_lldpd.py)
# --fast: the tests not marked slow (doctests included), without NetBox, the catalog check, ruff or mypy (the edit
# loop, under 2 minutes on 2 cores; a test over 2 s that is not marked slow fails, tests/timeguard.py); CI runs
# everything. Both run in parallel, one pytest-xdist worker per CPU (-n auto; `-n 0` after the other arguments runs in
# one process), a test file to a worker (--dist loadfile: a module's fixtures are built once, and the live NetBox
# tests, all in tests/netbox/test_live.py, run one at a time).
# Everything goes into a virtual environment (.venv, or $BOM_VENV), the README's, created here when it is missing:
# Debian's python3 refuses pip outside one (PEP 668).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${BOM_VENV:-.venv}
# Compiled modules kept between runs, in this checkout's .pycache (ignored): with PYTHONDONTWRITEBYTECODE set, as on
# these machines, every pytest worker and every `python -m bom.cli` a test starts compiled bom (and pytest rewrote
# every test module) from source each time, seconds of CPU per worker.
export PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX=$PWD/.pycache
parallel=(-n auto --dist loadfile)
if [ "${1:-}" = --fast ]; then
  shift
  # The edit loop: the venv's Python when there is one, else whatever python3 has the package.
  py=python3
  [ -x "$venv/bin/python" ] && py=$venv/bin/python
  if ! "$py" -c 'import xdist' 2>/dev/null; then
    echo "warning: pytest-xdist is not installed for $py (pip install -e '.[test]'): running in one process" >&2
    parallel=()
  fi
  exec env BOM_NETBOX=off "$py" -m pytest -q -m "not slow" "${parallel[@]}" "$@"
fi
if [ ! -x "$venv/bin/python" ]; then
  if ! python3 -m venv "$venv"; then
    # Debian ships venv apart from python3 (python3-venv); without it the venv is left half made.
    rm -rf "$venv"
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      echo "installing python3-venv to create $venv" >&2
      apt-get update -qq >/dev/null
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
      python3 -m venv "$venv"
    else
      echo "error: python3 -m venv failed; install your distribution's venv package (Debian: python3-venv)" >&2
      exit 2
    fi
  fi
fi
venv=$(cd "$venv" && pwd)
# As `. .venv/bin/activate` does: python3, pip and bom below (and in the tests' child processes) are the venv's.
export VIRTUAL_ENV=$venv PATH=$venv/bin:$PATH
python3 -m pip install --quiet --disable-pip-version-check -e '.[test]'
need=()
command -v soffice >/dev/null 2>&1 || need+=(libreoffice-calc-nogui)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v dot >/dev/null 2>&1 || need+=(graphviz)      # renders bom topology's DOT in its test
command -v lldpd >/dev/null 2>&1 || need+=(lldpd)
command -v slurmctld >/dev/null 2>&1 || need+=(slurm-wlm)   # slurmctld reads bom export slurm's topology.conf
command -v ibsim >/dev/null 2>&1 || need+=(ibsim-utils)              # simulates bom topology's ibsim net file
{ command -v ibnetdiscover || [ -x /usr/sbin/ibnetdiscover ]; } >/dev/null 2>&1 || need+=(infiniband-diags)  # bom verify --ib
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing ${need[*]} for the workbook, report, LLDP and InfiniBand tests" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "warning: ${need[*]} missing and cannot be installed here; those tests will be skipped" >&2
  fi
fi
python3 -m ruff check bom tests benchmarks
python3 -m mypy   # pyproject.toml [tool.mypy]: bom, strict on bom/model
# Every catalog fact confirmed at its source or marked confirmed: false (exit 2 names the row).
python3 -m bom.cli catalog validate --strict
# A real NetBox for tests/netbox/test_live.py: this checkout's own (scripts/netbox-dir.sh), started here (cold, about
# 4 minutes with the committed database dump), stopped on exit unless it was already running. BOM_NETBOX=off skips it.
nb_state=$(bash scripts/netbox-dir.sh)/state.env
if [ "${BOM_NETBOX:-on}" != off ] && [ "$(id -u)" = 0 ]; then
  [ -f "$nb_state" ] || trap 'bash scripts/netbox-down.sh' EXIT
  bash scripts/netbox-up.sh >/dev/null || echo "warning: NetBox did not start; the live NetBox tests fail in CI" >&2
fi
python3 -m pytest "${parallel[@]}" "$@"   # bom (doctests) and tests: pyproject.toml testpaths
