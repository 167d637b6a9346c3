"""The same scenario gives the same bytes whatever the interpreter's hash seed (sets and frozensets of
strings iterate in hash order; nothing an output shows may follow it)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.paths import ROOT

pytestmark = pytest.mark.slow


def _build(tmp_path, seed: str) -> dict[str, bytes]:
    out = tmp_path / f"seed{seed}"
    subprocess.run([sys.executable, "-m", "bom.cli", "build", str(ROOT / "tests/reference/b200_16k.yaml"), "-q",
                    "-o", str(out)], check=True, cwd=ROOT, capture_output=True,
                   env=dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(ROOT)))
    return {p.name: p.read_bytes() for p in out.iterdir() if p.suffix in (".csv", ".json", ".md")}


def test_outputs_do_not_follow_the_hash_seed(tmp_path):
    first = _build(tmp_path, "1")
    assert first and _build(tmp_path, "2") == first and _build(tmp_path, "3") == first
