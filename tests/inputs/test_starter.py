"""`bom init`: a commented starter for every catalog platform, which builds as it is."""

from __future__ import annotations

import json

import pytest

from bom.catalog.load import load_catalog
from tests.rules.test_severity import FINDINGS

#: Subprocesses, a spreadsheet engine, a browser or generated inputs: left out of the fast loop.
pytestmark = pytest.mark.slow

PLATFORMS = sorted(load_catalog().rows["platforms"])


@pytest.mark.parametrize("platform", PLATFORMS)
def test_init_builds_for_every_platform(bom, tmp_path, platform):
    path = tmp_path / "s.yaml"
    r = bom("init", str(path), "--platform", platform)
    assert r.exit_code == 0 and r.stdout.startswith("Wrote ")
    text = path.read_text()
    assert text.count("#") > 10  # commented
    b = bom("build", str(path), "-o", str(tmp_path / "out"), "-q", "--json")
    assert b.exit_code == 0, b.stderr
    doc = json.loads(b.stdout)
    assert doc["platform"] == platform
    # A README example: no design rule broken, warnings included (issue 21), but the platform's findings
    # (tests/rules/test_severity.py: a rack-scale system's draw past one feed at its maximum).
    broken = {(platform, r["id"]) for r in doc["checks"]["rules"] if r["violations"]}
    assert doc["checks"]["errors"] == 0 and broken <= FINDINGS, doc["checks"]


@pytest.mark.parametrize("kind", ["serve", "fine-tune", "pretrain"])
def test_init_workload_builds(bom, tmp_path, kind):
    path = tmp_path / "s.yaml"
    assert bom("init", str(path), "--workload", kind, "--platform", "dgx-h100").exit_code == 0
    b = bom("build", str(path), "-o", str(tmp_path / "out"), "-q", "--json")
    assert b.exit_code == 0, b.stderr
    doc = json.loads(b.stdout)
    assert doc["sizing"]["gpus"] >= 1
    assert (doc["checks"]["errors"], doc["checks"]["warnings"]) == (0, 0), doc["checks"]


def test_init_gpus_and_stdout(bom):
    r = bom("init", "-", "--gpus", "1024", "--platform", "dgx-b200")
    assert r.exit_code == 0 and "gpus: 1024" in r.stdout


def test_init_refuses_to_overwrite_and_bad_input(bom, tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("mine")
    r = bom("init", str(path))
    assert r.exit_code == 2 and "exists" in r.stderr and path.read_text() == "mine"
    assert bom("init", str(path), "--force").exit_code == 0
    assert bom("init", "-", "--gpus", "8", "--workload", "serve").exit_code == 2
    r = bom("init", "-", "--workload", "pretrian")
    assert r.exit_code == 2 and "pretrain" in r.stderr
    assert bom("init", "-", "--platform", "nope").exit_code == 2
