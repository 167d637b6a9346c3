"""The running NetBox of scripts/netbox-up.sh, for tests/netbox/test_live.py and the benchmark.

Which NetBox: the one given by $NETBOX_URL and $NETBOX_TOKEN, else the one this checkout's
scripts/netbox-up.sh started, named by the state file in this checkout's own folder
(scripts/netbox-dir.sh: $BOM_NETBOX_DIR, else /tmp/clusterbom-netbox-<hash of the checkout's
path>). A state file that another checkout wrote (its NETBOX_CHECKOUT is not this one) is not
read: a run never uses, or empties, a NetBox it did not start (issue 41; a shared default folder
once let a run wipe another run's NetBox). ``BOM_NETBOX=off`` skips the live tests whatever
exists. In CI (CI=true) a NetBox that is not up fails the tests; elsewhere it skips them.

The live tests all live in tests/netbox/test_live.py and are marked slow: pytest-xdist with
``--dist loadfile`` (scripts/test.sh) runs one file in one worker, so they never run two at a time
against one NetBox.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

#: The checkout these tests belong to (physical path, as scripts/netbox-dir.sh takes it with pwd -P).
CHECKOUT = Path(__file__).resolve().parents[2]


def state_dir(checkout: Path = CHECKOUT, env: Mapping[str, str] = os.environ) -> Path:
    """This checkout's NetBox folder: what scripts/netbox-dir.sh prints."""
    if env.get("BOM_NETBOX_DIR"):
        return Path(env["BOM_NETBOX_DIR"])
    return Path(f"/tmp/clusterbom-netbox-{hashlib.sha256(str(checkout).encode()).hexdigest()[:12]}")


def state_file(checkout: Path = CHECKOUT, env: Mapping[str, str] = os.environ) -> Path:
    return state_dir(checkout, env) / "state.env"


#: The state file as the environment names it when this module is imported (for messages).
STATE = state_file()


def read_state(path: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    if path.is_file():
        for line in path.read_text().splitlines():
            k, _, v = line.partition("=")
            out[k.strip()] = v.strip()
    return out


def state(checkout: Path = CHECKOUT, env: Mapping[str, str] = os.environ) -> dict[str, str]:
    """URL, token, user and password of the NetBox to use: $NETBOX_URL/$NETBOX_TOKEN (and
    $NETBOX_USER/$NETBOX_PASSWORD) over this checkout's own state file; empty when neither names one."""
    path = state_file(checkout, env)
    own = read_state(path)
    out = own if own.get("NETBOX_CHECKOUT") == str(checkout) else {}
    for k in ("NETBOX_URL", "NETBOX_TOKEN", "NETBOX_USER", "NETBOX_PASSWORD"):
        if env.get(k):
            out[k] = env[k]
    return out


def skip_reason(st: Mapping[str, str], checkout: Path = CHECKOUT, env: Mapping[str, str] = os.environ) -> str | None:
    """Why the live tests cannot run before any connection is tried, or None when a NetBox is named.

    ``BOM_NETBOX=off`` first: it wins over a state file and over $NETBOX_URL alike, so the fast loop
    (scripts/test.sh --fast) never reaches a NetBox."""
    if env.get("BOM_NETBOX", "on") == "off":
        return "BOM_NETBOX=off: the live NetBox tests are skipped"
    if not st.get("NETBOX_URL") or not st.get("NETBOX_TOKEN"):
        path = state_file(checkout, env)
        other = read_state(path).get("NETBOX_CHECKOUT")
        if path.is_file() and other != str(checkout):
            return (f"no NetBox of this checkout: {path} was written by {other or 'an older or unknown checkout'}, "
                    f"not {checkout}; run scripts/netbox-up.sh here or set NETBOX_URL and NETBOX_TOKEN")
        return f"no NetBox: run scripts/netbox-up.sh (state file {path}) or set NETBOX_URL and NETBOX_TOKEN"
    return None


def require(checkout: Path = CHECKOUT, env: Mapping[str, str] = os.environ) -> dict[str, str]:
    """The NetBox for the live tests, reachable; else a skip (a failure in CI, never under BOM_NETBOX=off)."""
    import pytest

    from bom.netbox import client

    st = state(checkout, env)
    why = skip_reason(st, checkout, env)
    if why is not None and env.get("BOM_NETBOX", "on") == "off":
        pytest.skip(why)
    if why is None:
        try:
            client.connect(st["NETBOX_URL"], st["NETBOX_TOKEN"])
        except Exception as exc:   # noqa: BLE001 - any failure to reach it is "not up"
            why = f"NetBox at {st['NETBOX_URL']} is not usable: {exc}"
    if why is not None:
        if env.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)
    return st


def api(st: dict[str, str]) -> Any:
    import pynetbox

    return pynetbox.api(st["NETBOX_URL"], token=st["NETBOX_TOKEN"])


def purge(nb: Any, site_names: list[str]) -> None:
    """Remove the sites (and everything in them) of an earlier run, so a test starts from nothing."""
    sites = list(nb.dcim.sites.filter(name=site_names))
    if not sites:
        return
    ids = [s.id for s in sites]
    for ep in (nb.dcim.cables, nb.dcim.devices, nb.dcim.racks, nb.dcim.locations):
        objs = list(ep.filter(site_id=ids))
        for i in range(0, len(objs), 500):
            ep.delete([o.id for o in objs[i:i + 500]])
    nb.dcim.sites.delete(ids)


def web_session(st: dict[str, str]) -> Any:
    """A logged-in session on NetBox's web UI (the CSV import is a form there, not a REST endpoint)."""
    import requests

    s = requests.Session()
    url = st["NETBOX_URL"]
    r = s.get(f"{url}/login/", timeout=60)
    r.raise_for_status()
    r = s.post(f"{url}/login/", data={"username": st["NETBOX_USER"], "password": st["NETBOX_PASSWORD"],
                                      "csrfmiddlewaretoken": s.cookies["csrftoken"], "next": "/"},
               headers={"Referer": f"{url}/login/"}, allow_redirects=False, timeout=60)
    assert r.status_code == 302, f"login failed: HTTP {r.status_code}"
    return s


def import_form(s: Any, url: str, path: str, data: str, fmt: str = "csv") -> None:
    """Post ``data`` to NetBox's bulk import form at ``path``; success is a redirect."""
    page = s.get(f"{url}{path}", timeout=60)
    page.raise_for_status()
    m = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
    token = m.group(1) if m else s.cookies["csrftoken"]
    r = s.post(f"{url}{path}", data={"csrfmiddlewaretoken": token, "data": data, "format": fmt,
                                     "csv_delimiter": ","},
               headers={"Referer": f"{url}{path}"}, allow_redirects=False, timeout=3600)
    if r.status_code != 302:
        errors = [" ".join(e.split()) for e in re.findall(r'class="toast-body">([^<]{0,400})<', r.text)]
        raise AssertionError(f"import at {path} failed: HTTP {r.status_code}: {' | '.join(errors[:8])}")



def owned(st: Mapping[str, str], checkout: Path = CHECKOUT, env: Mapping[str, str] = os.environ) -> bool:
    """Whether the NetBox at ``st``'s URL is the one this checkout's scripts/netbox-up.sh started."""
    mine = read_state(state_file(checkout, env))
    return mine.get("NETBOX_CHECKOUT") == str(checkout) and mine.get("NETBOX_URL") == st.get("NETBOX_URL")


def clean(nb: Any, st: dict[str, str]) -> None:
    """Start the tests on an empty NetBox, also when they run again on the same one.

    The NetBox this checkout's scripts/netbox-up.sh started (``owned``) is the tests' own:
    everything of the kinds the tests make goes. Any other NetBox (given by $NETBOX_URL) loses only
    the sites of the scenarios the tests push (``nb-...``) and what carries their tags.
    """
    own = owned(st)
    tags = [t for t in nb.extras.tags.all()
            if own or str(t.description or "").startswith("clusterbom scenario nb-")]
    slugs = [t.slug for t in tags]
    if own:
        purge(nb, [s.name for s in nb.dcim.sites.all()])
    elif slugs:
        purge(nb, [s.name for s in nb.dcim.sites.filter(tag=slugs)])
    # Module types (the exported transceivers) before their manufacturers: NetBox refuses to delete
    # a manufacturer that a module type still names.
    for ep in (nb.dcim.device_types, nb.dcim.module_types, nb.dcim.device_roles, nb.dcim.manufacturers):
        objs = ep.all() if own else (ep.filter(tag=slugs) if slugs else [])
        ids = [o.id for o in objs]
        if ids:
            ep.delete(ids)
    if tags:
        nb.extras.tags.delete([t.id for t in tags])


@contextlib.contextmanager
def rq_worker(st: Mapping[str, str]) -> Iterator[None]:
    """NetBox's RQ worker for the script path: the one netbox-up.sh started (BOM_NETBOX_SERVER=gunicorn),
    else one started here on the server's own configuration and stopped by its PID afterwards (the
    default runserver NetBox has none). Skips when this checkout did not start the NetBox (no venv or
    root to start one from)."""
    import subprocess
    import time

    import pytest

    from bom.netbox import client

    def running() -> int:
        nb = client.connect(st["NETBOX_URL"], st["NETBOX_TOKEN"])
        return int(nb.clusterbom_rq_workers)

    if running():
        yield
        return
    if not st.get("NETBOX_VENV") or not st.get("NETBOX_ROOT"):
        pytest.skip("the NetBox has no RQ worker and this checkout did not start it (no venv to start one from)")
    proc = subprocess.Popen([f"{st['NETBOX_VENV']}/bin/netbox", "rqworker", "high", "default", "low"],
                            env={**os.environ, "NETBOX_ROOT": st["NETBOX_ROOT"]}, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 180   # a Django start: 15-20 s on an idle machine
        while not running():
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail("NetBox's RQ worker did not start (netbox rqworker)")
            time.sleep(2)
        yield
    finally:
        proc.terminate()   # by its PID: only the worker started here
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
