"""Writing the cable plan: the files, and faults (an existing file, an unwritable folder, a full
disk, an interrupt) that leave a clear message, exit 2 (130 for SIGINT) and nothing half-written."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from bom.cableplan import rows as plan
from bom.outputs import planfiles as cabling
from tests.paths import ROOT as ROOT_DIR

ROOT = ROOT_DIR
H100 = ROOT / "tests" / "reference" / "superpod_h100_4su.yaml"


def test_cables_command_writes_plan_elevations_and_workbook(bom, tmp_path):
    r = bom("cables", str(H100), "-o", str(tmp_path), "-q")
    assert r.exit_code == 0, r.output
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["superpod-h100-4su-cables.csv", "superpod-h100-4su-cables.xlsx", "superpod-h100-4su-racks.csv"]
    with (tmp_path / "superpod-h100-4su-cables.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    # 2,044 links and, last, the 876 power cords of the racks' PDUs (issue 48: bom/links/power.py)
    assert len(rows) == 2044 + 876 and list(rows[0]) == [*plan.FIELDS, "a_label", "b_label"]
    assert sum(r["fabric"] == "power" for r in rows) == 876 and rows[-1]["hop"] == "pdu-supply"
    first = rows[0]
    # The first DGX in the SU's first rack at U1; rail 1 to leaf 1 in the network rack in the middle of the row.
    assert (first["a_device"], first["a_u"], first["a_port"]) == ("s1-r01-rk01-node-01", "1", "p1/1")
    assert first["b_device"].startswith("s1-r01-rk05-leaf-") and first["b_port"] == "p1/1"
    assert first["label"] == "s1-r01-rk01-01:p1/1 / s1-r01-rk05-01:p1/1"
    # each end's TIA-606 label: site 1 hall A, row A, rack column 01 / 05, the U, the port
    assert (first["a_label"], first["b_label"]) == ("1A.A01-01:p1/1", "1A.A05-01:p1/1")
    assert len({r["cable_id"] for r in rows}) == 2920
    assert "2,920 rows" in r.stdout and "Wrote" in r.stdout


def test_json_summary_on_stdout_only(bom, tmp_path):
    r = bom("cables", str(H100), "-o", str(tmp_path), "--json")
    j = json.loads(r.stdout)
    assert j["rows"] == 2044 + 876 and j["xlsx"] is True
    assert j["rows_per_hop"] == {"compute/leaf-spine": 1024, "compute/node-leaf": 1016, "compute/ufm-leaf": 4,
                                 "power/pdu-supply": 876}


def test_output_on_an_existing_file(bom, tmp_path):
    target = tmp_path / "taken"
    target.write_text("keep me")
    r = bom("cables", str(H100), "-o", str(target))
    assert r.exit_code == 2 and "is a file, not a folder" in r.output
    assert target.read_text() == "keep me"


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_unwritable_folder(bom, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    r = bom("cables", str(H100), "-o", str(locked / "plan"))
    assert r.exit_code == 2 and "cannot write" in r.output


def test_unwritable_folder_as_root_too(bom, tmp_path):
    r = bom("cables", str(H100), "-o", "/proc/clusterbom-plan")
    assert r.exit_code == 2 and "error:" in r.output and "Traceback" not in r.output


def test_full_disk_leaves_nothing(bom, tmp_path, monkeypatch):
    """Every streamed file of the stage is /dev/full: the write fails with ENOSPC, the stage goes."""
    from bom.outputs import publish

    monkeypatch.setattr(publish, "_open_new", lambda path: os.fdopen(os.open("/dev/full", os.O_WRONLY), "wb"))
    old = tmp_path / "superpod-h100-4su-cables.csv"
    old.write_text("the previous plan")
    r = bom("cables", str(H100), "-o", str(tmp_path))
    assert r.exit_code == 2 and "No space left on device" in r.output and "nothing was written" in r.output
    assert old.read_text() == "the previous plan"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["superpod-h100-4su-cables.csv"]


def test_a_really_full_file_system_leaves_nothing(bom, tmp_path):
    """A 64 KiB tmpfs (where mounting is allowed): ENOSPC mid-stream, exit 2, the folder left empty."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        r = bom("cables", str(H100), "-o", str(mnt))
        assert r.exit_code == 2 and "No space left on device" in r.output and "Traceback" not in r.output
        assert list(mnt.iterdir()) == []
    finally:
        subprocess.run(["umount", str(mnt)], check=True)


def test_a_folder_where_a_plan_file_goes_writes_nothing(bom, tmp_path):
    """A folder in the place of the workbook: found before any file is renamed, so the CSV from an
    earlier plan stays as it was (the rename of one file must not go through when another fails)."""
    (tmp_path / "superpod-h100-4su-cables.xlsx").mkdir()
    old = tmp_path / "superpod-h100-4su-cables.csv"
    old.write_text("the previous plan")
    r = bom("cables", str(H100), "-o", str(tmp_path))
    assert r.exit_code == 2 and "is a folder where the cable plan writes a file" in r.output
    assert "Traceback" not in r.output and old.read_text() == "the previous plan"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["superpod-h100-4su-cables.csv",
                                                          "superpod-h100-4su-cables.xlsx"]


#: Runs ``bom cables`` with the plan's row generator held after its first rows: it touches the file
#: named by $PAUSE_IN_PLAN and waits there, so a signal sent then lands while the plan streams.
#: It waits in short sleeps: the process has a second OS thread (OpenBLAS's, numpy comes in with
#: pint), and a SIGINT the kernel hands to that thread sets Python's flag without waking the main
#: thread from one long sleep (the test once timed out so); a running plan checks the flag between
#: bytecodes, as these short sleeps do.
PAUSE_HARNESS = """\
import os, signal, sys, time
# As a shell starts bom: Ctrl-C is Python's KeyboardInterrupt. A child inherits an ignored SIGINT (and
# Python then installs no handler), so a test runner that ignores it would make this test wait in vain.
inherited = signal.getsignal(signal.SIGINT)
signal.signal(signal.SIGINT, signal.default_int_handler)
import bom.cableplan.rows as plan
rows = plan.rows
def held(*a, **k):
    for i, row in enumerate(rows(*a, **k)):
        if i == 1000:
            open(os.environ["PAUSE_IN_PLAN"], "w").write(f"SIGINT inherited: {inherited}")
            for _ in range(6000):
                time.sleep(0.1)
        yield row
plan.rows = held
sys.argv = ["bom"] + sys.argv[1:]
from bom.cli import main
main()
"""


@pytest.mark.slow   # a campus plan in a child process: about 3 s
def test_sigint_exits_130_and_leaves_no_file(tmp_path):
    """A campus-sized plan interrupted while it streams into its stage: exit 130, no plan, no stage.
    The child holds the stream open until the signal arrives, so load does not matter."""
    scenario = tmp_path / "big.yaml"
    scenario.write_text("name: big\nplatform: gb300-nvl72\ngpus: 200016\nfabrics: {compute: {switch: q3400}}\n")
    out, flag = tmp_path / "out", tmp_path / "streaming"
    proc = subprocess.Popen([sys.executable, "-c", PAUSE_HARNESS, "cables", str(scenario), "-o", str(out), "-q"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=str(ROOT), PAUSE_IN_PLAN=str(flag)))
    try:
        deadline = time.monotonic() + 300
        while not flag.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert flag.exists(), f"the plan never started streaming: {proc.poll()=}"
        staged = [f for st in tmp_path.glob(".out.clusterbom-*") if st.is_dir() for f in st.iterdir()]
        assert staged, "the plan does not stream into a stage"
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            pytest.fail(f"no exit 120 s after SIGINT ({flag.read_text()})")
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert not out.exists() and not list(tmp_path.glob(".out*"))


def test_build_writes_small_plans_and_names_the_threshold(bom, tmp_path):
    big = tmp_path / "big.yaml"
    big.write_text("name: big\nplatform: gb300-nvl72\ngpus: 16416\nfabrics: {compute: {switch: q3400}}\n")
    r = bom("build", str(big), "-o", str(tmp_path / "o"), "-q")
    # 49,828 links and 6,706 power cords: 1,824 whips (228 NVL72 racks' 8 shelves) and 4,882 cords (issue 48)
    assert r.exit_code == 0 and "the cable plan has 56,534 rows" in r.stderr
    assert f"more than bom build writes unasked ({cabling.BUILD_MAX_ROWS:,})" in r.stderr
    assert "--plan" in r.stderr and "bom cables" in r.stderr
    assert not list((tmp_path / "o").glob("*-cables.csv"))
    j = json.loads((tmp_path / "o" / "big.json").read_text())
    assert j["cable_plan"] == {"rows": 56534, "in_build": False, "threshold": cabling.BUILD_MAX_ROWS}
    html = (tmp_path / "o" / "big.html").read_text()
    assert "does not write it unasked: run <code>bom cables</code> or <code>bom build --plan</code>" in html


#: 2,880 GPUs of one compute fabric: 6,614 rows, past BUILD_MAX_ROWS (the build leaves the plan out unasked).
PAST = "name: mid\nplatform: gb300-nvl72\ngpus: 2880\nfabrics: {compute: {switch: q3400}}\n"


def test_build_plan_streams_bom_cables_files_and_no_plan_retires_them(bom, tmp_path):
    """--plan writes a plan past the threshold (streamed into the stage, as bom cables writes it: the same
    bytes); --no-plan into the same folder writes none and retires the earlier build's."""
    path = tmp_path / "mid.yaml"
    path.write_text(PAST)
    assert cabling.BUILD_MAX_ROWS < 6614
    out, cables = tmp_path / "o", tmp_path / "c"
    r = bom("build", str(path), "-o", str(out), "-q", "--plan")
    assert r.exit_code == 0, r.output
    assert "note:" not in r.stderr
    assert bom("cables", str(path), "-o", str(cables), "-q").exit_code == 0
    plan_names = sorted(p.name for p in cables.iterdir())
    assert plan_names == ["mid-cables.csv", "mid-cables.xlsx", "mid-racks.csv"]
    for name in plan_names:
        assert (out / name).read_bytes() == (cables / name).read_bytes(), name
    assert "Written beside this report as mid-cables.csv" in (out / "mid.html").read_text()
    assert json.loads((out / "mid.json").read_text())["cable_plan"]["in_build"] is True
    r = bom("build", str(path), "-o", str(out), "-q", "--no-plan")
    assert r.exit_code == 0 and "note:" not in r.stderr
    assert json.loads((out / "mid.json").read_text())["cable_plan"] == {
        "rows": 6614, "in_build": False, "threshold": cabling.BUILD_MAX_ROWS}
    assert not set(plan_names) & {p.name for p in out.iterdir()}
    assert "Not written by this build (<code>--no-plan</code>)" in (out / "mid.html").read_text()


def test_build_help_and_readme_name_the_threshold(bom):
    r = bom("build", "--help")
    assert f"at most {cabling.BUILD_MAX_ROWS:,} rows" in " ".join(r.output.split())
    readme = (ROOT / "README.md").read_text()
    assert readme.count(f"at most {cabling.BUILD_MAX_ROWS:,} rows") == 2


def test_plan_choice_decides_by_rows():
    t = cabling.BUILD_MAX_ROWS
    assert cabling.in_build(t) and not cabling.in_build(t + 1)
    assert cabling.in_build(t + 1, "always") and not cabling.in_build(1, "never")
    assert not cabling.streams_in_build(t, "always") and cabling.streams_in_build(t + 1, "always")
    assert not cabling.streams_in_build(t + 1)


@pytest.mark.slow
def test_progress_on_stderr_keeps_json_stdout_clean(tmp_path):
    """A plan past PROGRESS_ROWS shows a progress bar on stderr; --json stdout is only the JSON."""
    scenario = tmp_path / "mid.yaml"
    scenario.write_text("name: mid\nplatform: gb300-nvl72\ngpus: 72144\nfabrics: {compute: {switch: q3400}}\n")
    cmd = [sys.executable, "-m", "bom.cli", "cables", str(scenario), "-o", str(tmp_path / "o"), "--json"]
    env = {**os.environ, "COLUMNS": "100", "FORCE_COLOR": "0", "TERM": "xterm"}
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j["rows"] > cabling.PROGRESS_ROWS and j["xlsx"] is True
    quiet = subprocess.run(cmd + ["-q"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert quiet.returncode == 0 and quiet.stderr == "" and json.loads(quiet.stdout)["rows"] == j["rows"]


@pytest.mark.parametrize("compute", ["{}", "{topology: pair}"], ids=["one-switch-pod", "switch-pair"])
def test_build_writes_the_plan_of_small_pods_and_pairs(bom, tmp_path, compute):
    """An 8-node pod (every rail on one switch) and a switch pair joined by ISLs: bom build writes
    their plan beside the BOM, with no note about a missing plan."""
    path = tmp_path / "pod.yaml"
    path.write_text(f"name: pod\nplatform: dgx-h100\nnodes: 8\nfabrics: {{compute: {compute}}}\n")
    r = bom("build", str(path), "-o", str(tmp_path / "o"), "-q")
    assert r.exit_code == 0, r.output
    assert "no cable plan" not in r.stderr
    with (tmp_path / "o" / "pod-cables.csv").open(newline="") as fh:
        hops = {row["hop"] for row in csv.DictReader(fh)}
    # the links, then the racks' power cords (issue 48)
    assert hops == ({"node-leaf", "leaf-leaf"} if "pair" in compute else {"node-leaf"}) | {"pdu-supply"}
    assert (tmp_path / "o" / "pod-racks.csv").is_file()


@pytest.mark.parametrize("profile", ["installer", "procurement"])
def test_cable_plan_profiles(bom, tmp_path, profile):
    """The columns installers and buyers read (issue 30), in the CSV and the workbook alike, each row the
    plan's row: every label names its end's site, hall, row letter, rack column, U and port."""
    import openpyxl

    from bom.cableplan.labels import PROFILES, row_letters
    from bom.names import unit

    full = tmp_path / "full"
    assert bom("cables", str(H100), "-o", str(full), "-q").exit_code == 0
    r = bom("cables", str(H100), "-o", str(tmp_path / profile), "-q", "--profile", profile)
    assert r.exit_code == 0, r.output
    with (tmp_path / profile / "superpod-h100-4su-cables.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    with (full / "superpod-h100-4su-cables.csv").open(newline="") as fh:
        whole = list(csv.DictReader(fh))
    assert list(rows[0]) == list(PROFILES[profile])
    assert [{k: w[k] for k in PROFILES[profile]} for w in whole] == rows
    sheet = openpyxl.load_workbook(tmp_path / profile / "superpod-h100-4su-cables.xlsx", read_only=True)["Cabling"]
    assert [c.value for c in next(sheet.iter_rows(max_row=1))] == list(PROFILES[profile])
    for w in whole:
        for side in ("a", "b"):
            if w[f"{side}_u"]:
                # a 0U device (a vertical PDU, a power cord's near end) is 0U and its place beside the rack
                u = unit(int(w[f"{side}_u"]), w[f"{side}_device"])
                want = (f"{w[f'{side}_site'][1:]}A.{row_letters(int(w[f'{side}_row'][1:]))}"
                        f"{w[f'{side}_rack'].rsplit('-rk', 1)[1]}-{u}:{w[f'{side}_port']}")
                assert w[f"{side}_label"] == want
    # every port end labelled once: no two cable ends share a label
    ends = [w[f"{s}_label"] for w in whole for s in ("a", "b")]
    assert len(set(ends)) == len(ends)


def test_unknown_profile_is_refused_before_building(bom, tmp_path):
    r = bom("cables", str(H100), "-o", str(tmp_path / "o"), "--profile", "buyer")
    assert r.exit_code == 2 and "installer, procurement or full" in r.output and not (tmp_path / "o").exists()


def test_build_plan_that_cannot_be_listed_writes_nothing_and_says_how(bom, tmp_path, monkeypatch):
    """A plan asked for with --plan that runs into a limit half-way (a switch out of cages) stops the build
    before anything is published, saying that without --plan the outputs are written; unasked, the build
    leaves such a plan out and writes the rest (for_build)."""
    from bom.errors import LimitError

    real = plan.rows

    def failing(*args, **kwargs):
        for i, row in enumerate(real(*args, **kwargs)):
            if i == 5000:
                raise LimitError("leaf 3 runs out of cages in the cable plan", key="fabrics",
                                 hint="Restrict the fabric's media to one kind.")
            yield row

    monkeypatch.setattr(plan, "rows", failing)
    path = tmp_path / "mid.yaml"
    path.write_text(PAST)
    out = tmp_path / "o"
    r = bom("build", str(path), "-o", str(out), "-q", "--plan")
    assert r.exit_code == 2
    said = " ".join(r.output.split())
    assert "the cable plan asked for with --plan cannot be listed: leaf 3 runs out of cages" in said
    assert "Restrict the fabric's media to one kind. Without --plan, bom build writes the outputs" in said
    assert not out.exists() and not list(tmp_path.glob(".o*"))
