"""Round four's property (issue 45): random names (controls, escape sequences, bidirectional controls,
Unicode line breaks, lone surrogates) from every source (LLDP files, ibnetdiscover output, NetBox's
answers, catalog overlay and scenario text) never reach the terminal or a file raw.

Whatever the name, the command exits 0, 1 or 2 (2: one paragraph naming the file); stdout and stderr
hold nothing a terminal acts on and no line that starts with what followed a line break in a name; the
files written (the work order, a build's outputs) hold no escape, no control but tab and line ends,
no C1 and no lone surrogate, and the workbooks load.
"""

from __future__ import annotations

import io
import json
import re
import tempfile
import zipfile
from pathlib import Path

import openpyxl
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bom.catalog.load import builtin_dir
from tests.hostile.conftest import check, run
from tests.hostile.test_round4 import ETH, IB, IB_FIXTURE, LEAF, TOKEN, lldp, neighbour, shown_clean

pytestmark = pytest.mark.slow

FAST = settings(max_examples=int(__import__("os").environ.get("BOM_HYPOTHESIS_EXAMPLES", "30")), deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
#: What a name may hold: plain text and everything a terminal or a reader could act on.
HOSTILE = ["\x1b[2J", "\x1b]0;TITLE\x07", "\x1bP1$r\x1b\\", "\x9b31m", "\x07", "\x00", "\x08", "\x7f", "\x85",
           "\u2028", "\u2029", "\u202e", "\u2066", "\u200f", "\u061c", "\r", "\x0b", "\x0c", "\x1c", "\t",
           "\ud800", "\udc80", "\ufffe", "\\", "\"", "'", "=1+1", "é", "\u4e2d"]
NAMES = st.lists(st.one_of(st.sampled_from(HOSTILE), st.text(alphabet="abcxyz-_/:0123456789", max_size=6)),
                 min_size=1, max_size=8).map("".join).flatmap(
    lambda base: st.sampled_from([base, base + "\nFORGED", base + "\u2028FORGED", base + "\rFORGED"]))
#: Raw in a file: ESC and other C0 controls but tab and line ends, DEL, C1 (a lone surrogate cannot be
#: encoded at all, so a file that holds one fails to decode).
FILE_RAW = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _folder() -> Path:
    return Path(tempfile.mkdtemp(prefix="hyp4-"))


def files_clean(folder: Path) -> None:
    for path in (p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if path.suffix == ".xlsx":
            openpyxl.load_workbook(io.BytesIO(data))   # every part is XML a parser reads
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                for name in z.namelist():
                    text = z.read(name).decode("utf-8")
                    assert not FILE_RAW.search(text), (path.name, name)
            continue
        text = data.decode("utf-8")   # strict: a lone surrogate cannot have been written
        bad = FILE_RAW.search(text)
        assert bad is None, (path.name, text[max(0, bad.start() - 60):bad.end() + 60])
        if path.suffix == ".json":
            json.loads(text)


def outcome(r, where: str | None = None) -> None:
    assert r.code in (0, 1, 2), r.stderr
    check(r, code=r.code)
    shown_clean(r.stdout, r.stderr)
    if r.code == 2 and where is not None:
        assert where in r.stderr, r.stderr


@FAST
@given(local=NAMES, name=NAMES, port=NAMES, descr=NAMES)
def test_lldp_names(local, name, port, descr):
    folder = _folder()
    entry = neighbour(local, name, port)
    entry["port"][0]["descr"] = [{"value": descr}]
    d = lldp(folder, [entry])
    for more in ([], ["--json"]):
        r = run("verify", str(ETH), "--lldp", str(d), "-o", str(folder / "out"), *more)
        outcome(r, where=str(d / f"{LEAF}.json"))
        if r.code != 2 and more:
            json.loads(r.stdout)
    if (folder / "out").exists():
        files_clean(folder / "out")


@FAST
@given(desc=NAMES)
def test_ibnetdiscover_descriptions(desc):
    folder = _folder()
    text = IB_FIXTURE.read_text()
    head = next(line for line in text.split("\n") if line.startswith("Switch"))
    port = '[40]\t"H-00000000000000ee"[1]\t\t# "x" lid 9 4xNDR'
    node = f'\nCa\t2 "H-00000000000000ee"\t\t# "{desc}"\n[1]\t"S-b83fd20300a1b2c0"[40]\t\t# "leaf" lid 1 4xNDR\n'
    ib = folder / "fabric.txt"
    ib.write_bytes((text.replace(head, head + "\n" + port, 1) + node).encode("utf-8", "surrogatepass"))
    for more in ([], ["--json"]):
        r = run("verify", str(IB), "--ib", str(ib), "-o", str(folder / "out"), *more)
        outcome(r, where=str(ib))
    if (folder / "out").exists():
        files_clean(folder / "out")


@pytest.fixture(scope="module")
def fake_netbox():
    from tests.hostile.netbox_server import FakeNetBox, serve

    fake = FakeNetBox()
    server, _ = serve(fake)
    yield fake
    server.shutdown()
    server.server_close()


@FAST
@given(name=NAMES, model=NAMES)
def test_netbox_answers(fake_netbox, monkeypatch, name, model):
    monkeypatch.setenv("NETBOX_TOKEN", TOKEN)
    fake = fake_netbox
    fake.store.clear()
    site = fake.create("dcim/sites", {"name": "eth-pod-s1", "slug": "eth-pod-s1"})["id"]
    fake.create("dcim/devices", {"name": name, "site": site, "device_type": {"id": 1, "model": model}})
    folder = _folder()
    for args in (["verify", str(ETH), "--netbox", fake.url, "-o", str(folder / "out")],
                 ["verify", str(ETH), "--netbox", fake.url, "-o", str(folder / "out"), "--json"],
                 ["netbox", "diff", str(ETH), "--url", fake.url]):
        outcome(run(*args))


def _rows(kind: str, ids: set[str]) -> list[dict]:
    name = {"fibres": "fibre"}.get(kind, kind)
    return [r for r in yaml.safe_load((builtin_dir() / f"{name}.yaml").read_text())[kind] if r["id"] in ids]


@FAST
@given(part=NAMES, description=NAMES, vendor=NAMES, scenario_name=NAMES)
def test_catalog_and_scenario_text(part, description, vendor, scenario_name):
    folder = _folder()
    over = folder / "evil"
    over.mkdir()
    rows = [{**r, "part_number": part, "description": description, "vendor": vendor, "orderable": False}
            for r in _rows("switches", {"sn5600"})]
    try:
        text = yaml.safe_dump({"switches": rows}, allow_unicode=True)
    except yaml.YAMLError:
        text = yaml.safe_dump({"switches": rows})
    (over / "x.yaml").write_bytes(text.encode("utf-8", "surrogatepass"))
    s = folder / "s.yaml"
    s.write_text(ETH.read_text() + "catalogs: [evil]\n")
    out = folder / "out"
    r = run("build", str(s), "-o", str(out), "-q")
    outcome(r, where=str(over))
    if r.code == 0:
        files_clean(out)
        outcome(run("catalog", "show", "sn5600", "--catalog", str(over)))
        outcome(run("catalog", "list", "--kind", "switches", "--catalog", str(over)))
        outcome(run("build", str(s), "-o", str(folder / "json"), "-q", "--json"))
    named = folder / "n.yaml"
    named.write_bytes(yaml.safe_dump({"name": scenario_name, "platform": "dgx-h100", "nodes": 2}).encode(
        "utf-8", "surrogatepass"))
    outcome(run("build", str(named), "-o", str(folder / "n"), "-q"), where=str(named))
