"""Hostile YAML in a scenario and in a catalog overlay: refused before it grows, with file:line."""

from __future__ import annotations

import pytest

from tests.hostile.conftest import SMALL, check, leftovers, run, run_process, write

BOMB = "".join(f"{k}: &{k} [{', '.join(['*' + p] * 9) if p else ', '.join(['1'] * 9)}]\n"
               for p, k in zip(["", "a", "b", "c", "d", "e", "f", "g"], "abcdefgh", strict=True))

#: (case, text, line, key): each is refused with exit 2 naming the file, the line and the key.
SCENARIOS = [
    ("alias bomb", SMALL + "description: x\nx:\n" + "".join("  " + line + "\n" for line in BOMB.splitlines()),
     None, "the document expands to more than"),
    ("recursive alias", SMALL + "fabrics: &f {compute: *f}\n", 4, "recursive alias"),
    ("recursive list", SMALL + "catalogs: &c [*c]\n", 4, "recursive alias"),
    ("merge key", SMALL + "layout: &l {rise: \"1 m\"}\ntco:\n  <<: *l\n", 6, "merge keys"),
    ("python tag", SMALL + "description: !!python/object/apply:os.system [echo]\n", 4, "tag"),
    ("custom tag", SMALL + "description: !vault abc\n", 4, "tag"),
    ("set tag", SMALL + "catalogs: !!set {a, b}\n", 4, "tag"),
    ("binary tag", SMALL + "description: !!binary aGk=\n", 4, "tag"),
    ("sequence as key", SMALL + "? [a, b]\n: 1\n", 4, "a key must be a plain name"),
    ("mapping as key", SMALL + "? {a: 1}\n: 1\n", 4, "a key must be a plain name"),
    ("5000-digit integer", SMALL.replace("nodes: 16", "nodes: " + "9" * 5000), 3, "nodes"),
    ("deep nesting", SMALL + "description: " + "[" * 5000 + "]" * 5000 + "\n", 4, "nest"),
    ("two documents", SMALL + "---\nname: other\n", 4, "one YAML document"),
    ("bad date", SMALL + "description: 2026-13-45\n", 4, "description"),
    ("duplicate key", SMALL + "nodes: 8\n", 4, "duplicate key"),
    ("not a mapping", "- a\n- b\n", 1, "a scenario is a YAML mapping"),
    ("broken YAML", "name: [unclosed\n", 2, "not valid YAML"),
    ("tab indent", "name: a\n\tplatform: x\n", 2, "not valid YAML"),
    # YAML 1.1 numbers that do not read as written (issue 24): refused, not 8 and 90 nodes
    ("octal", SMALL.replace("nodes: 16", "nodes: 010"), 3, "reads it as octal 8, not 10"),
    ("leading zero", SMALL.replace("nodes: 16", "nodes: 09"), 3, "reads it as a text, not 9"),
    ("base 60", SMALL.replace("nodes: 16", "nodes: 1:30"), 3, "base-60"),
    ("base 60 float", SMALL + "tco: {pue: 1:20.5}\n", 4, "base-60"),
]


@pytest.mark.parametrize("case,text,line,key", SCENARIOS, ids=[c[0] for c in SCENARIOS])
def test_hostile_yaml_scenario(tmp_path, case, text, line, key):
    path = write(tmp_path, "s.yaml", text)
    out = tmp_path / "out"
    where = f"{path}:{line}" if line else str(path)
    check(run("build", str(path), "-o", str(out), "-q"), where=where, key=key)
    assert not out.exists() and not leftovers(tmp_path)


ENCODINGS = [
    ("latin-1", SMALL.replace("nodes: 16", "nodes: 16\ndescription: caf\xe9").encode("latin-1"), 4, "not UTF-8"),
    ("NUL byte", SMALL.encode() + b"description: a\0b\n", 4, "NUL"),
    ("UTF-16", SMALL.encode("utf-16"), 1, None),
]


@pytest.mark.parametrize("case,data,line,key", ENCODINGS, ids=[c[0] for c in ENCODINGS])
def test_files_that_are_not_utf8_text(tmp_path, case, data, line, key):
    path = write(tmp_path, "s.yaml", data)
    check(run("build", str(path), "-o", str(tmp_path / "out"), "-q"), where=f"{path}:{line}", key=key)
    assert not (tmp_path / "out").exists()


def test_numbers_as_written_still_read(tmp_path):
    """A quoted "010" stays text; 0, 0.5, 1_000 and 10 read as written."""
    from bom.inputs.yamlio import load_text

    data = load_text('a: 0\nb: 0.5\nc: 1_000\nd: 10\ne: "010"\nf: "1:30"\ng: -0.25\n', "x.yaml").data
    assert data == {"a": 0, "b": 0.5, "c": 1000, "d": 10, "e": "010", "f": "1:30", "g": -0.25}


def test_a_byte_order_mark_is_fine(tmp_path):
    path = write(tmp_path, "s.yaml", b"\xef\xbb\xbf" + SMALL.encode())
    check(run("build", str(path), "-o", str(tmp_path / "out"), "-q"), code=0)


OVERLAYS = [
    ("alias bomb", BOMB.replace("a: &a", "switches: []\na: &a"), None, "more than"),
    ("recursive alias", "switches: &s [*s]\n", 1, "recursive alias"),
    ("merge key", "switches:\n  - &x {id: a}\n  - <<: *x\n", 3, "merge keys"),
    ("custom tag", "switches: !!python/name:os.system\n", 1, "tag"),
    ("mapping as key", "? {a: 1}\n: []\n", 1, "a key must be a plain name"),
    ("huge integer", "switches:\n  - ports: " + "7" * 5000 + "\n", 2, "digits"),
]


@pytest.mark.parametrize("case,text,line,key", OVERLAYS, ids=[c[0] for c in OVERLAYS])
def test_hostile_yaml_overlay_named_by_the_scenario(tmp_path, case, text, line, key):
    over = write(tmp_path, "over/x.yaml", text)
    path = write(tmp_path, "s.yaml", SMALL + "catalogs: [over]\n")
    where = f"{over}:{line}" if line else str(over)
    check(run("build", str(path), "-o", str(tmp_path / "out"), "-q"), where=where, key=key)
    assert not (tmp_path / "out").exists()


@pytest.mark.slow   # a child process: 1.2 to 1.9 s under load, too near the fast loop's 2 s
def test_a_billion_laughs_in_a_child_process_stays_small_and_quick(tmp_path):
    """The bomb of the issue (60 s and 6 GB before): refused within the time and memory budget."""
    path = write(tmp_path, "s.yaml", SMALL + "x:\n" + "".join("  " + line + "\n" for line in BOMB.splitlines()))
    check(run_process("build", str(path), "-o", str(tmp_path / "out"), "-q"), where=str(path),
          key="expands to more than")
