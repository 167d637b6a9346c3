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


def test_an_unknown_key_that_looks_like_a_path_tag_is_named(bom, tmp_path):
    # Regression: a key holding "[" was taken for pydantic's union tag and dropped, which left an
    # empty path and crashed (IndexError, exit 1) instead of naming the key.
    path = tmp_path / "s.yaml"
    path.write_text('name: x\n"[": null\nplatform: dgx-h100\nnodes: 2\n')
    r = bom("build", str(path), "-o", str(tmp_path / "out"))
    assert r.exit_code == 2 and f"{path}:2: [: unknown key." in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()


def test_cooling_lists_one_hall_per_site(bom, tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("name: c\nplatform: gb300-nvl72\ngpus: 1152\nfabrics: {inband: {switch: sn5600}}\n"
                 "sites: {count: 2, distance: \"40 km\", dci_bandwidth: \"3.2 Tbit/s\"}\n"
                 "layout: {cooling: [liquid]}\n")
    r = bom("check", str(p))
    assert r.exit_code == 2 and "c.yaml:6: layout.cooling: layout.cooling lists 1 halls for 2 site(s)" in r.stderr
