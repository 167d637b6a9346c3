"""The command line's conventions: -h, --version, flags, closed pipes, widths, sentences."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = [[], ["size"], ["build"], ["compare"], ["lookup"], ["schema"], ["init"], ["catalog"], ["catalog", "list"],
            ["catalog", "show"], ["catalog", "validate"], ["topology"], ["cables"]]


def run(*args: str, env: dict[str, str] | None = None, **kw):  # type: ignore[no-untyped-def]
    return subprocess.run([sys.executable, "-m", "bom.cli", *args], capture_output=True, text=True, cwd=kw.pop(
        "cwd", ROOT), env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}, timeout=120, **kw)


def test_version(bom):
    from bom import __version__

    r = bom("--version")
    assert r.exit_code == 0 and r.stdout.strip() == f"clusterbom {__version__}"


@pytest.mark.parametrize("cmd", COMMANDS)
def test_short_help_and_no_bool_metavars(bom, cmd):
    short, long = bom(*cmd, "-h"), bom(*cmd, "--help")
    assert short.exit_code == 0 and short.stdout == long.stdout
    assert "<bool>" not in short.stdout and "BOOLEAN" not in short.stdout
    assert "list[Path]" not in short.stdout and "<list" not in short.stdout


def test_flags_and_list_options_say_what_they_take(bom):
    out = bom("build", "-h").stdout
    assert "--json  " in out and "--quiet" in out
    assert "--catalog DIR" in out and "--prices CSV" in out and "repeat the option" in out


@pytest.mark.slow   # two pipelines of child processes: about 2.5 s
def test_closed_pipe_ends_quietly_with_exit_0():
    # `bom catalog list | head -3`: the reader goes away after three lines.
    p = subprocess.Popen(f"{sys.executable} -m bom.cli catalog list | head -3", shell=True, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, executable="/bin/bash")
    out, err = p.communicate(timeout=120)
    assert len(out.splitlines()) == 3
    assert err == "", err
    status = subprocess.run(f"set -o pipefail; {sys.executable} -m bom.cli catalog list | head -1 >/dev/null",
                            shell=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            executable="/bin/bash", capture_output=True, text=True, timeout=120)
    assert status.returncode == 0 and status.stderr == ""


@pytest.mark.slow   # a pipeline of child processes: about 1.4 s, too near the fast loop's 2 s on a loaded machine
def test_closed_pipe_on_a_long_output():
    # Larger than the pipe buffer, so the write itself (not the last flush) fails.
    p = subprocess.run(f"set -o pipefail; {sys.executable} -m bom.cli schema | head -c 10 >/dev/null", shell=True,
                       cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, executable="/bin/bash",
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and p.stderr == ""


@pytest.mark.slow
@pytest.mark.parametrize("columns", [80, 100, 140])
def test_tables_fit_the_terminal(columns):
    # Numbers are never clipped (only their headers): the sizing table's twelve columns fit from 100.
    for cmd in (["catalog", "list"], ["size"]) if columns >= 100 else (["catalog", "list"],):
        out = run(*cmd, env={"COLUMNS": str(columns)}).stdout
        widest = max(len(line) for line in out.splitlines()[1:])  # the heading is a sentence
        assert widest <= columns, (cmd, widest)
    table = run("catalog", "list", env={"COLUMNS": "100"}).stdout.splitlines()
    assert max(len(line) for line in table) <= 100 and any("…" in line for line in table)


@pytest.mark.slow   # bom compare in a child process: about 3 s
def test_compare_table_fits_by_clipping_number_headers(tmp_path):
    # A short output folder from the test's own: the "Wrote <path>" lines must fit as well, and a pytest
    # temporary path (longer under pytest-xdist, .../popen-gw0/...) would pass 100 on its own.
    out = run("compare", "-o", "c", "-q", env={"COLUMNS": "100"}, cwd=tmp_path).stdout
    table = [line for line in out.splitlines() if line.strip()]
    assert max(len(line) for line in table) <= 100
    assert any("…" in cell for cell in table[0].split("  "))          # a header clipped
    assert "…" not in "".join(table[2:9])                               # no number clipped


def test_table_clips_text_never_numbers():
    from bom.outputs.terminal import table

    out = table(["name", "USD"], [["a very long description here", "1,234,567"]], [False, True], width=20)
    assert all(len(line) <= 20 for line in out.splitlines())
    assert "1,234,567" in out and "…" in out


def test_catalog_show_prints_quantities_as_people_write_them(bom):
    out = bom("catalog", "show", "q3400").stdout
    assert "port_rate: 800 Gbit/s" in out and "lane_rate: 200 Gbit/s" in out
    assert "breakouts: rate 400 Gbit/s, ports 288" in out
    assert "Quantity" not in out and "gigabit" not in out
    assert out.splitlines()[0].endswith(".")


def test_messages_are_sentences(bom, tmp_path):
    msgs = [bom("catalog", "validate").stdout, bom("lookup", "--rate", "800", "--reach", "3 m").stderr,
            bom("catalog", "list", "--kind", "nope").stderr, bom("size", "--flops-per-gpu", "2.25e15").stderr,
            bom("catalog", "show", "nope").stderr]
    for m in msgs:
        assert m.strip().endswith("."), m
    assert "has no unit" in msgs[3] and "TFLOP/s" in msgs[3]


def test_size_reference_jobs(bom):
    out = bom("size").stdout
    assert "reference example jobs" in out and "seed" not in out
    rows = {line.split("  ")[0]: line for line in out.splitlines()}
    pretrain = rows["pretrain 70B on 15T tokens"]
    assert "no (1,351 > 72)" in pretrain and "2.25 PFLOP/s" in pretrain and "40%" in pretrain
    serve = rows["serve 8B BF16, 32 users × 8k"]
    assert "yes (1 of 72)" in serve
    # A serving job has no deadline: its time, deadline, FLOP/s and MFU columns show "-".
    cells = [c for c in serve.split("  ") if c.strip()]
    assert cells[2].strip() == "-" and cells[6].strip() == "-"


def test_size_json_has_flops_and_mfu(bom):
    j = json.loads(bom("size", "--json", "--mfu", "0.5").stdout)
    pretrain = next(r for r in j if r["job"] == "pretrain 70B on 15T tokens")
    assert pretrain["flops_per_gpu"] == 2.25e15 and pretrain["mfu"] == 0.5 and pretrain["deadline_days"] == 60
    assert pretrain["fits_in_domain"] is False
    assert next(r for r in j if r["job"].startswith("serve 8B"))["deadline_days"] is None


def test_build_without_output_writes_under_the_current_folder(bom, tmp_path):
    (tmp_path / "s.yaml").write_text("name: small\nplatform: dgx-h100\nnodes: 4\n")
    assert bom("build", "s.yaml", "-q").exit_code == 0
    assert (tmp_path / "reports" / "small" / "small.json").is_file()
    assert not (ROOT / "reports" / "small").exists()


@pytest.mark.slow   # twelve commands, each loading the catalog: about 2.5 s
def test_lookup_names_the_standard(bom):
    cases = {("800 Gbit/s", "400 m"): "800G DR4", ("400 Gbit/s", "80 km"): "400ZR",
             ("400 Gbit/s", "5 km"): "400G LR4", ("800 Gbit/s", "30 m"): "800G 2xSR4",
             ("400 Gbit/s", "1500 m"): "400G FR4", ("400 Gbit/s", "300 km"): "OpenZR+"}
    for (rate, reach), standard in cases.items():
        text = bom("lookup", "--rate", rate, "--reach", reach).stdout
        assert f"-> {standard} (" in text.splitlines()[0], text
        j = json.loads(bom("lookup", "--rate", rate, "--reach", reach, "--json").stdout)
        assert j["choice"]["standard"] == standard
        assert all(r["standard"] for r in j["passed_over"])


@pytest.mark.parametrize("args", [["size", "--pue", "abc"], ["size", "--mfu", "40"], ["lookup", "--rate", "800"],
                                  ["nosuch"], ["build", "--nosuch"]])
def test_usage_errors_are_sentences_with_exit_2(args):
    # Click's own messages (a bad option value, a missing option) end with a full stop too.
    r = run(*args)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip().endswith("."), r.stderr
    assert "Traceback" not in r.stderr


def test_no_arguments_prints_the_help_unchanged():
    r = run()
    assert r.returncode == 2 and "Commands:" in r.stderr and not r.stderr.rstrip().endswith("..")


@pytest.mark.slow   # two builds of the default: about 2.5 s
def test_build_summary_agrees_with_its_numbers(bom, tmp_path):
    out = bom("build", "-o", str(tmp_path / "out"), "-q").stdout
    j = json.loads(bom("build", "-o", str(tmp_path / "out2"), "-q", "--json").stdout)
    up = j["tiers"]["scale-up"]
    assert f"scale-up:     {up['links']:,} links in {up['domains']} domains, all copper, " \
           f"{up['modules']} modules" in out
    # One site pair and one fibre pair in the default: the words agree with their numbers.
    assert "on 1 cabled site pair (mesh)" in out and ", 1 fibre pair," in out and "pairs" not in out


def test_unit_less_numbers_are_refused_with_the_unit_to_write(bom, tmp_path):
    # Every quantity, on a flag or in a scenario: a bare number is refused, saying how to write it.
    (tmp_path / "s.yaml").write_text("name: x\nplatform: dgx-h100\nnodes: 8\nsites: {count: 2, distance: 40}\n")
    cases = {("size", "--memory-per-gpu", "80"): '"80 GB"', ("size", "--flops-per-gpu", "2.25e15"): "FLOP/s",
             ("build", str(tmp_path / "s.yaml"), "-o", str(tmp_path / "out")): '"2 km"'}
    for args, example in cases.items():
        r = bom(*args)
        assert r.exit_code == 2 and "has no unit" in r.stderr and example in r.stderr, r.stderr
        assert r.stderr.strip().endswith(".")
    assert not (tmp_path / "out").exists()


def test_catalog_show_by_part_number(bom):
    # The BOM prints MMS4A00-XM-FLT; its row's id is mms4a00-xm-rhs.
    out = bom("catalog", "show", "MMS4A00-XM-FLT").stdout
    assert "id: mms4a00-xm-rhs" in out
    assert "id: mms4a00-xm-rhs" in bom("catalog", "show", "mms4a00-xm-flt").stdout   # any case
    # a sold length's part number shows its row
    out = bom("catalog", "show", "MFP7E10-N030").stdout
    assert out.startswith("MFP7E10-N030 is its 30 m sold length (mfp7e10-n)") and "id: mfp7e10-n" in out
    out = bom("catalog", "show", "MMA4Z00-NS").stdout
    # one part number, three rows (its 400G, 800G and 4 x 200G use): all shown
    assert "3 catalog rows" in out and "id: mma4z00-ns\n" in out and "id: mma4z00-ns-800g" in out
    assert "id: mma4z00-ns-200g" in out
    r = bom("catalog", "show", "MMS4A0-XM")
    assert r.exit_code == 2 and "MMS4A00-XM" in r.stderr


@pytest.mark.parametrize("kind", ["platform", "Platforms", "switch", "module"])
def test_catalog_list_kind_singular(bom, kind):
    r = bom("catalog", "list", "--kind", kind)
    assert r.exit_code == 0, r.stderr
    kinds = {line.split()[0] for line in r.stdout.splitlines()[2:] if line.strip()}
    assert kinds == {kind.lower().rstrip("s") + ("es" if kind.lower().startswith("switch") else "s")}


@pytest.mark.parametrize("command", ["build", "cables", "compare"])
def test_quiet_says_what_it_hides(bom, command):
    out = " ".join(bom(command, "-h").stdout.split())
    assert "still print" in out and "Wrote lines on stdout" in out
