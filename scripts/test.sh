#!/usr/bin/env bash
# Installs everything the tests need and runs the whole suite. Safe to run again.
#  - Python: the package and its test extras (pytest, hypothesis, ruff)
#  - Debian: LibreOffice Calc (recalculates the workbook) and Chromium (renders the report)
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --disable-pip-version-check -e '.[test]'
need=()
command -v soffice >/dev/null 2>&1 || need+=(libreoffice-calc-nogui)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing ${need[*]} for the workbook and report tests" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "warning: ${need[*]} missing and cannot be installed here; those tests will be skipped" >&2
  fi
fi
python3 -m ruff check bom tests benchmarks
# Every catalog fact confirmed at its source or marked confirmed: false (exit 2 names the row).
python3 -m bom.cli catalog validate --strict
python3 -m pytest --doctest-modules bom tests "$@"
