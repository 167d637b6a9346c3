"""The running NetBox of scripts/netbox-up.sh, for tests/netbox/test_live.py and the benchmark.

Where: $NETBOX_URL and $NETBOX_TOKEN, else the state file the script writes
($BOM_NETBOX_DIR/state.env, default /tmp/clusterbom-netbox). In CI (CI=true) a NetBox that is
not up fails the tests; elsewhere it skips them.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

STATE = Path(os.environ.get("BOM_NETBOX_DIR", "/tmp/clusterbom-netbox")) / "state.env"


def state() -> dict[str, str]:
    out: dict[str, str] = {}
    if STATE.is_file():
        for line in STATE.read_text().splitlines():
            k, _, v = line.partition("=")
            out[k.strip()] = v.strip()
    for k in ("NETBOX_URL", "NETBOX_TOKEN", "NETBOX_USER", "NETBOX_PASSWORD"):
        if os.environ.get(k):
            out[k] = os.environ[k]
    return out


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



def clean(nb: Any, st: dict[str, str]) -> None:
    """Start the tests on an empty NetBox, also when they run again on the same one.

    The NetBox of scripts/netbox-up.sh (its state file names the URL in use) is the tests' own:
    everything of the kinds the tests make goes. Any other NetBox loses only the sites of the
    scenarios the tests push (``nb-...``) and what carries their tags.
    """
    own = STATE.is_file() and f"NETBOX_URL={st['NETBOX_URL']}" in STATE.read_text().splitlines()
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
