#!/usr/bin/env bash
# Installs everything the tests need and runs the whole suite. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --disable-pip-version-check -e '.[test]'
python3 -m ruff check bom tests benchmarks
python3 -m pytest "$@"
