"""Input files that are not what they claim: pipes, devices, links to them, folders, huge files,
and price files as Excel and others write them."""

from __future__ import annotations

import os

import pytest

from bom.inputs.yamlio import MAX_BYTES
from tests.hostile.conftest import SMALL, check, run, run_process, write

#: Subprocesses, a spreadsheet engine, a browser or generated inputs: left out of the fast loop.
pytestmark = pytest.mark.slow


def _special(tmp_path, kind):
    path = tmp_path / f"special-{kind}"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        return "/dev/zero"
    elif kind == "link-to-dev-zero":
        os.symlink("/dev/zero", path)
    elif kind == "link-to-fifo":
        os.mkfifo(tmp_path / "fifo")
        os.symlink(tmp_path / "fifo", path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "huge":
        with open(path, "wb") as fh:
            fh.truncate(MAX_BYTES + 1)
    elif kind == "missing":
        pass
    return str(path)


KINDS = ["fifo", "dev-zero", "link-to-dev-zero", "link-to-fifo", "folder", "huge", "missing"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("role", ["scenario", "price file", "overlay file", "overlay folder"])
def test_special_files_never_block(tmp_path, kind, role):
    """A FIFO or /dev/zero used to block forever or fill the memory (an alarm stops a hang)."""
    scenario = write(tmp_path, "s.yaml", SMALL)
    out = str(tmp_path / "out")
    if role == "scenario":
        target = _special(tmp_path, kind)
        args = ["build", target, "-o", out, "-q"]
    elif role == "price file":
        target = _special(tmp_path, kind)
        args = ["build", str(scenario), "-o", out, "-q", "--prices", target]
    elif role == "overlay folder":
        target = _special(tmp_path, kind)
        args = ["build", str(scenario), "-o", out, "-q", "--catalog", target]
    else:
        (tmp_path / "over").mkdir()
        target = _special(tmp_path, kind)
        os.rename(target, tmp_path / "over" / "x.yaml") if os.path.lexists(target) and kind != "dev-zero" else (
            os.symlink("/dev/zero", tmp_path / "over" / "x.yaml") if kind == "dev-zero" else None)
        target = str(tmp_path / "over" / "x.yaml")
        if kind == "missing":   # an empty overlay folder
            target = str(tmp_path / "over")
        args = ["build", str(scenario), "-o", out, "-q", "--catalog", str(tmp_path / "over")]
    check(run(*args), where=target)
    assert not os.path.exists(out)


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_special_files_in_a_child_process_within_time_and_memory(tmp_path, kind):
    scenario = write(tmp_path, "s.yaml", SMALL)
    target = _special(tmp_path, kind)
    check(run_process("build", str(scenario), "-o", str(tmp_path / "out"), "-q", "--prices", target,
                      timeout=20), where=target)
    check(run_process("catalog", "validate", "--prices", target, timeout=20), where=target)


PRICES = [
    ("Excel UTF-8 with BOM", b"\xef\xbb\xbfsku,price_usd,price_source,as_of\r\nqm9700,35000,quote,2026-11-01\r\n", 0,
     None, None),
    ("extra known column", b"sku,price_usd,price_source,as_of,quote_ref\nqm9700,35000,quote,2026-11-01,Q-1\n", 0,
     None, None),
    ("columns in another order", b"as_of,sku,price_source,price_usd\n2026-11-01,qm9700,quote,35000\n", 0, None, None),
    # a column the tool does not read is ignored with a note (test_prices: the note); a typo of one it reads is not
    ("unknown column", b"sku,price_usd,price_source,as_of,colour\nqm9700,35000,quote,2026-11-01,red\n", 0, None,
     None),
    ("a typo of a column", b"sku,price_usd,price_sorce,as_of\nqm9700,1,quote,2026-11-01\n", 2, 1, "price_sorce"),
    ("a BOM CSV, not a price file", b"tier,fabric,hop,category,catalog_id,sku\ncompute,,,compute,dgx-h100,x\n", 2,
     1, "header"),
    ("empty", b"", 2, 1, "empty"),
    ("short row", b"sku,price_usd,price_source,as_of\nqm9700,1\n", 2, 2, "fields"),
    ("long row", b"sku,price_usd,price_source,as_of\nqm9700,1,quote,2026-11-01,x\n", 2, 2, "fields"),
    ("negative price", b"sku,price_usd,price_source,as_of\nqm9700,-5,quote,2026-11-01\n", 2, 2, "price_usd"),
    ("inf price", b"sku,price_usd,price_source,as_of\nqm9700,inf,quote,2026-11-01\n", 2, 2, "price_usd"),
    ("nan price", b"sku,price_usd,price_source,as_of\nqm9700,NaN,quote,2026-11-01\n", 2, 2, "price_usd"),
    ("1e308 price", b"sku,price_usd,price_source,as_of\nqm9700,1e308,quote,2026-11-01\n", 2, 2, "price_usd"),
    ("Latin-1", "sku,price_usd,price_source,as_of\nqm9700,1,quote,2026-11-01\n# caf\xe9\n".encode("latin-1"), 2,
     3, "UTF-8"),
    ("NUL", b"sku,price_usd,price_source,as_of\nqm9700,1,quote,2026-11-01\x00\n", 2, 2, "NUL"),
    ("huge field", b"sku,price_usd,price_source,as_of\n\"" + b"x" * 200_000 + b"\",1,quote,2026-11-01\n", 2, None,
     None),
    ("bad date", b"sku,price_usd,price_source,as_of\nqm9700,1,quote,2026-02-30\n", 2, 2, "as_of"),
    ("unknown sku", b"sku,price_usd,price_source,as_of\nqm9700,35000,quote,2026-11-01\nqm9701,1,quote,2026-11-01\n", 0,
     None, None),   # warned about by name, the rest applied; --strict-prices refuses it (test_prices)
    ("line after a quoted line break", b"sku,price_usd,price_source,as_of,notes\nqm9700,1,quote,2026-11-01,\"a\nb\"\n"
     b"qm9700,x,quote,2026-11-01,\n", 2, 4, "price_usd"),
]


@pytest.mark.parametrize("case,data,code,line,key", PRICES, ids=[p[0] for p in PRICES])
def test_price_files(tmp_path, case, data, code, line, key):
    prices = write(tmp_path, "p.csv", data)
    scenario = write(tmp_path, "s.yaml", SMALL)
    r = run("build", str(scenario), "-o", str(tmp_path / "out"), "-q", "--prices", str(prices), "--json")
    check(r, code=code, where=f"{prices}:{line}" if line else str(prices), key=key)
    if code == 0:
        assert '"unit_price_usd": 35000' in r.stdout
