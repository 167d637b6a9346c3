"""bom export KIND: the command writes each kind's files through the one publisher, and refuses an unknown
kind before building anything (exit 2, the kinds in its hint)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from bom.cli import app
from bom.pipeline import exports
from tests.paths import TESTS

TWO_SITE = str(TESTS / "netbox" / "scenarios" / "two-site.yaml")


def test_an_unknown_kind_exits_2_with_the_kinds(tmp_path):
    r = CliRunner().invoke(app, ["export", "netlab", TWO_SITE, "-o", str(tmp_path)])
    assert r.exit_code == 2
    assert "no export named 'netlab'" in r.output and all(k in r.output for k in exports.KINDS)
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("kind,names", [("k8s", ["nb-two-site-k8s-node-labels.yaml"]),
                                        ("cvt", ["nb-two-site-cvt-p2p.xlsx"])])
def test_a_kind_writes_its_files(tmp_path, kind, names):
    r = CliRunner().invoke(app, ["export", kind, TWO_SITE, "-o", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == names
    assert all(f"Wrote {tmp_path / n}." in r.output for n in names)
