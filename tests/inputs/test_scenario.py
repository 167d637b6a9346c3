"""Bad scenarios exit 2 with one paragraph naming the file, the line and the key."""

from __future__ import annotations

import textwrap

import pytest

GOOD = """\
name: job
platform: gb300-nvl72
workload:
  kind: pretrain
  params: 70e9
  tokens: 15e12
  deadline: "60 d"
"""


def write(tmp_path, text):
    path = tmp_path / "s.yaml"
    path.write_text(textwrap.dedent(text))
    return str(path)


def check_error(result, path, line, *words):
    assert result.exit_code == 2, result.output
    err = result.stderr
    assert "Traceback" not in err and err.count("\n") == 1, err
    assert f"{path}:{line}" in err, err
    for w in words:
        assert w in err, err
    return err


def test_good_scenario_sizes(bom, tmp_path):
    r = bom("size", write(tmp_path, GOOD), "--json")
    assert r.exit_code == 0
    assert '"gpus_by_time"' in r.stdout


@pytest.mark.parametrize("text,line,words", [
    # missing deadline for training
    (GOOD.replace('  deadline: "60 d"\n', ""), 3, ["workload", "needs a deadline"]),
    (GOOD.replace('"60 d"', '"-3 d"'), 7, ["workload.deadline", "greater than zero"]),
    (GOOD.replace('"60 d"', '"0 d"'), 7, ["workload.deadline", "greater than zero"]),
    (GOOD.replace("tokens: 15e12", "tokens: 15e12\n  dtype: bf61"), 7, ["workload.dtype",
                                                                     "'bf16'"]),
    (GOOD.replace('"60 d"', '"60 m"'), 7, ["workload.deadline", "not a time"]),
    (GOOD.replace("name: job\n", ""), 1, ["name", "required"]),
    (GOOD.replace("params: 70e9", "parms: 70e9"), 5, ["workload.parms", "Did you mean 'params'"]),
])
def test_bad_scenarios(bom, tmp_path, text, line, words):
    path = write(tmp_path, text)
    check_error(bom("size", path), path, line, *words)


def test_unknown_platform_suggests(bom, tmp_path):
    path = write(tmp_path, GOOD.replace("gb300-nvl72", "gb300-nvl27"))
    check_error(bom("size", path), path, 2, "platform", "Did you mean 'gb300-nvl72'")


def test_unknown_platform_option_suggests(bom):
    r = bom("size", "--platform", "dgx-h10")
    assert r.exit_code == 2 and "Did you mean 'dgx-h100'" in r.stderr


def test_wrong_dimension_option(bom):
    r = bom("size", "--memory-per-gpu", "80 GHz")
    assert r.exit_code == 2 and "--memory-per-gpu" in r.stderr


def test_not_yaml(bom, tmp_path):
    path = write(tmp_path, "name: [unclosed\n")
    r = bom("size", path)
    assert r.exit_code == 2 and path in r.stderr


def test_duplicate_key(bom, tmp_path):
    path = write(tmp_path, GOOD + "name: again\n")
    check_error(bom("size", path), path, 8, "duplicate key 'name'")


def test_missing_file(bom, tmp_path):
    r = bom("size", str(tmp_path / "nope.yaml"))
    assert r.exit_code == 2 and "no such scenario file" in r.stderr


def test_overrides(bom, tmp_path):
    r = bom("size", write(tmp_path, GOOD), "--json", "--flops-per-gpu", "2.25 PFLOP/s",
            "--mfu", "0.4", "--memory-per-gpu", "288 GB")
    assert r.exit_code == 0 and '"gpus_by_time": 1351' in r.stdout


@pytest.mark.slow   # a child process a command: about 1.5 s, too near the fast loop's 2 s on a loaded machine
def test_commands_import_no_writers():
    import subprocess
    import sys

    code = ("import sys, bom.cli; from typer.testing import CliRunner; "
            "CliRunner().invoke(bom.cli.app, ['size']); "
            "print(any(m in sys.modules for m in ('openpyxl', 'jinja2')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("written,ratio", [
    ('"4:3"', (4, 3)), ('"4/3"', (4, 3)), ("1.333", (4, 3)), ("1.3333", (4, 3)), ("3", (3, 1)),
    ('"3:1"', (3, 1)), ("1.5", (3, 2)), ("1.25", (5, 4)), ("1.3", (13, 10)), ("1", (1, 1)),
    ('"1:1.16"', (25, 29)), ("0.5", (1, 2)), ('"1:2"', (1, 2)),   # undersubscribed: more uplinks than downlinks
])
def test_oversubscription_is_an_exact_ratio(written, ratio):
    # Decimals within 0.001 of a ratio with a denominator up to 16 are that ratio (bom.topology.planes.ratio).
    from bom.inputs.scenario import scenario_from_text

    text = f"name: x\nplatform: dgx-h100\nnodes: 4\nfabrics:\n  storage: {{oversubscription: {written}}}\n"
    s = scenario_from_text(text)
    r = s.fabrics["storage"].oversubscription
    assert (r.numerator, r.denominator) == ratio


@pytest.mark.parametrize("written,words", [
    ("0.2", ["below 1:4"]), ('"1:5"', ["below 1:4"]), ('"abc"', ["not a ratio", "4:3"]), ('"4:0"', ["not a ratio"]),
    ("[1, 2]", ["not a ratio"]),
    ('"inf"', ["not a ratio"]), ('"nan"', ["not a ratio"]), ('"4:3:2"', ["not a ratio"]), ("true", ["not a ratio"]),
    ("{leaf: 2, core: 3}", ["core"]), ("{spine: abc}", ["not a ratio"]),
])
def test_bad_oversubscription(bom, tmp_path, written, words):
    path = tmp_path / "s.yaml"
    path.write_text(f"name: x\nplatform: dgx-h100\nnodes: 4\nfabrics:\n  compute:\n    oversubscription: {written}\n")
    r = bom("build", str(path), "--json")
    assert r.exit_code == 2 and "oversubscription" in r.output and "s.yaml:6" in r.output
    for w in words:
        assert w in r.output


def test_a_rule_over_the_whole_file_is_told_without_an_empty_key() -> None:
    from bom.errors import BomError
    from bom.inputs.scenario import scenario_from_text

    with pytest.raises(BomError) as e:
        scenario_from_text('name: x\nplatform: gb300-nvl72\ngpus: 72\nworkload: {kind: pretrain, params: 70e9, '
                           'tokens: 15e12, deadline: "60 d"}\n', "both.yaml")
    assert str(e.value).startswith("both.yaml:1: give exactly one of nodes, gpus or workload")


@pytest.mark.parametrize("written,words", [
    ("atuo", "cannot read 'atuo' as a rate"),
    ('"-3 Tbit/s"', "must be greater than zero"),
    ('"1.6 Tb/s"', "is not a spelling we read"),
])
def test_a_quantity_or_a_word_is_one_error_that_names_both(written: str, words: str) -> None:
    """dci_bandwidth takes a rate or 'auto': a bad value fails both of pydantic's branches; the rate's error
    is the one said, with the word it also takes, not a second "Input should be 'auto'"."""
    from bom.errors import BomError
    from bom.inputs.scenario import scenario_from_text

    with pytest.raises(BomError) as e:
        scenario_from_text('name: x\nplatform: gb300-nvl72\ngpus: 144\n'
                           f'sites: {{count: 2, distance: "4 km", dci_bandwidth: {written}}}\n', "s.yaml")
    said = str(e.value)
    assert said.startswith("s.yaml:4: sites.dci_bandwidth: ") and words in said, said
    assert "; or 'auto'" in said and "Input should be" not in said and said.count("s.yaml") == 1, said


@pytest.mark.parametrize(("phases", "hint", "fix"), [
    # Two sizes typed in each other's place, dates in order: swapping them is the fix.
    ("[{name: a, gpus: 288, date: 2027-01-01}, {name: b, gpus: 144, date: 2027-03-01}, "
     "{name: c, gpus: 432, date: 2027-06-01}]",
     "Swap the two sizes: phase a gpus: 144, phase b gpus: 288",
     {("phases", 0, "gpus"): 144, ("phases", 1, "gpus"): 288}),
    # Swapped, the last phase would no longer be the scenario's size: no single fix.
    ("[{name: a, gpus: 288, date: 2027-01-01}, {name: b, gpus: 144, date: 2027-03-01}]",
     "List the phases smallest first", None),
    # Dates the other way round too: the phases, not two sizes, are out of order.
    ("[{name: a, gpus: 288, date: 2027-03-01}, {name: b, gpus: 144, date: 2027-01-01}, "
     "{name: c, gpus: 432, date: 2027-06-01}]",
     "List the phases smallest first", None),
    # Equal sizes: swapping changes nothing.
    ("[{name: a, gpus: 144, date: 2027-01-01}, {name: b, gpus: 144, date: 2027-03-01}, "
     "{name: c, gpus: 432, date: 2027-06-01}]",
     "List the phases smallest first", None),
])
def test_a_phase_not_larger_than_the_one_before(phases: str, hint: str, fix: dict | None) -> None:
    from bom.errors import BomError
    from bom.inputs.scenario import scenario_from_text

    with pytest.raises(BomError) as e:
        scenario_from_text(f"name: h\nplatform: gb300-nvl72\nphases: {phases}\n")
    err = next(p for p in getattr(e.value, "problems", [e.value]) if "is not larger than" in p.message)
    assert hint in (err.hint or "") and (err.fix or None) == fix
