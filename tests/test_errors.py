"""Every error is told as a sentence, with its full stop, and the hint after it."""

from __future__ import annotations

from bom.errors import BomError


def test_message_and_hint_are_sentences():
    e = BomError("no such scenario file", where="x.yaml", hint="Give the path of a scenario YAML file")
    assert str(e) == "x.yaml: no such scenario file. Give the path of a scenario YAML file."
    assert str(BomError("write it like \"40 km\"")) == "write it like \"40 km\"."
    assert str(BomError("already one.", key="k")) == "k: already one."


def test_cli_errors_end_with_a_full_stop(bom, tmp_path):
    for args in (["build", str(tmp_path / "missing.yaml")], ["size", "--platform", "nope"],
                 ["lookup", "--rate", "800 Gbit/s", "--reach", "900 km", "--form-factor", "rj45"]):
        r = bom(*args)
        assert r.exit_code == 2 and r.stderr.strip().endswith("."), r.stderr
