"""Connecting to NetBox: the token from the environment or a file, the URL checked, the release
checked, and every way the connection fails as one message (a BomError, so exit 2).

The token never comes from the command line (other users can read it in the process list).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from bom.errors import BomError
from bom.netbox import choices

TOKEN_ENV = "NETBOX_TOKEN"
#: Requests time out after this many seconds (a list POST of a few hundred cables takes a minute).
TIMEOUT_S = 600


def read_token(token_file: Path | None) -> str:
    """The API token from ``--token-file`` or from $NETBOX_TOKEN."""
    if token_file is not None:
        try:
            text = token_file.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise BomError(f"cannot read the token file {token_file}: {exc.strerror}", key="--token-file") from None
        if not text:
            raise BomError(f"the token file {token_file} is empty", key="--token-file",
                           hint="Put the NetBox API token (nbt_<key>.<token>) on its first line.")
        return text.splitlines()[0].strip()
    text = os.environ.get(TOKEN_ENV, "").strip()
    if not text:
        raise BomError(f"no NetBox API token: set ${TOKEN_ENV} or give --token-file FILE", key="--token-file",
                       hint="The token is never taken from the command line, where other users can read it.")
    return text


def check_url(url: str) -> str:
    """``http(s)://host[:port][/path]``, without a trailing slash.

    >>> check_url("http://127.0.0.1:8000/")
    'http://127.0.0.1:8000'
    """
    u = urlparse(url)
    if u.scheme not in ("http", "https") or not u.netloc:
        raise BomError(f"--url {url!r} is not an http(s) URL", key="--url",
                       hint="Give the NetBox address, for example --url https://netbox.example.com.")
    return url.rstrip("/")


def connect(url: str, token: str) -> Any:
    """A pynetbox API object for a NetBox that answers, accepts the token and runs a supported release."""
    try:
        import pynetbox
        import requests
    except ImportError:
        raise BomError("the NetBox commands need pynetbox", key="netbox",
                       hint="Install it with: pip install 'clusterbom[netbox]' (or pip install pynetbox).") from None
    url = check_url(url)
    nb = pynetbox.api(url, token=token)
    nb.http_session.request = _with_timeout(nb.http_session.request)
    try:
        status = nb.status()
    except requests.exceptions.RequestException as exc:
        raise BomError(f"NetBox at {url} does not answer: {type(exc).__name__}", key="--url",
                       hint="Check the address and that NetBox is running and reachable from here.") from None
    except pynetbox.RequestError as exc:
        code = exc.req.status_code
        if code in (401, 403):
            raise BomError(f"NetBox at {url} refuses the token (HTTP {code})", key="--token-file",
                           hint=f"Check ${TOKEN_ENV} or the token file: a v2 token looks like nbt_<key>.<token>, "
                                "and it must be enabled, unexpired and allowed to write.") from None
        raise BomError(f"NetBox at {url} answers HTTP {code} to /api/status/", key="--url",
                       hint="Is this the NetBox address (not a proxy or another service)?") from None
    except ValueError:
        raise BomError(f"{url} does not answer like NetBox (its /api/status/ is not JSON)", key="--url",
                       hint="Give the NetBox address.") from None
    version = str(status.get("netbox-version", "")) if isinstance(status, dict) else ""
    if not choices.version_ok(version):
        lo, hi = choices.SUPPORTED
        raise BomError(f"NetBox at {url} runs release {version or 'unknown'}, which clusterbom does not support",
                       key="--url", hint=f"Use NetBox {lo[0]}.{lo[1]} or later before {hi[0]}.{hi[1]} "
                                         f"(tested with {choices.TESTED_VERSION}).")
    return nb


def _with_timeout(request: Any) -> Any:
    def call(method: str, url: str, **kw: Any) -> Any:
        kw.setdefault("timeout", TIMEOUT_S)
        return request(method, url, **kw)

    return call


def request_error(exc: Exception, what: str) -> BomError:
    """A pynetbox or requests error during a push, as one message (exit 2)."""
    detail = getattr(exc, "error", None) or str(exc)
    return BomError(f"NetBox refused {what}: {' '.join(str(detail).split())[:600]}", key="netbox",
                    hint="What was created before this stays; fix the cause and push again to finish.")
