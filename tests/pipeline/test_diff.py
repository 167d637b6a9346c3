"""bom diff's sides (bom/pipeline/diff.py): OLD=rev:path reads the scenario at a git revision (git show),
so a change to a committed scenario is diffed against its last commit; an unknown revision is bad input."""

from __future__ import annotations

import json
import subprocess

import pytest

SMALL = "name: small\nplatform: dgx-h100\ngpus: 256\nfabrics:\n  compute: {}\n"


@pytest.fixture()
def repo(tmp_path):
    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.email=t@example.org", "-c", "user.name=t", *args], cwd=tmp_path,
                       check=True, capture_output=True, timeout=60)

    git("init", "-q", ".")
    (tmp_path / "s.yaml").write_text(SMALL)
    git("add", "s.yaml")
    git("commit", "-qm", "256 GPUs")
    (tmp_path / "s.yaml").write_text(SMALL.replace("gpus: 256", "gpus: 512"))
    return tmp_path


def test_a_scenario_against_its_last_commit(repo, bom):
    r = bom("diff", "HEAD:s.yaml", "s.yaml", "--json", "-q")
    assert r.exit_code == 1, r.output
    doc = json.loads(r.stdout)
    assert doc["old"] == "HEAD:s.yaml"
    assert {f["name"]: f["delta"] for f in doc["size"]}["gpus"] == 256
    assert all(o["action"] == "buy" for o in doc["order"])
    assert doc["devices"]["added"] > 0 and doc["devices"]["removed"] == 0


def test_the_same_revision_twice_is_the_same(repo, bom):
    r = bom("diff", "HEAD:s.yaml", "HEAD:s.yaml", "-q")
    assert r.exit_code == 0, r.output


def test_an_unknown_revision_is_bad_input(repo, bom):
    r = bom("diff", "no-such-rev:s.yaml", "s.yaml", "-q")
    assert r.exit_code == 2
    assert "git cannot show no-such-rev:s.yaml" in r.stderr and "HEAD~1:" in r.stderr
