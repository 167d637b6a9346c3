"""Connecting to NetBox: the token from the environment or a file, the URL checked, the release
checked, and every way the connection fails as one message (a BomError, so exit 2).

The token never comes from the command line (other users can read it in the process list), and
it never leaves for another address: every request goes through :class:`GuardedSession`, which
sends only to ``--url``'s scheme, host and port, follows no redirect, gives each call a connect
and a read timeout, retries 429 and 503 after the wait NetBox asks for, says on stderr that it
is waiting, and refuses pagination that repeats a page or never ends. The token and a password
in ``--url`` are secrets of the run (:func:`bom.errors.secret`): no message, log or file shows them.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any
from urllib.parse import SplitResult, urlsplit, urlunsplit

from bom.errors import BomError, redact, secret
from bom.inputs.yamlio import read_input
from bom.netbox import choices
from bom.outputs.writers.common import terminal_text

TOKEN_ENV = "NETBOX_TOKEN"
#: The largest token file read (a v2 token is about 50 characters).
TOKEN_FILE_MAX = 64 * 1024
#: Seconds to open a connection, and to wait for the status probe's answer.
CONNECT_S = 5.0
PROBE_S = 10.0
#: Seconds to wait for an answer to a read, and to a list POST (a batch of 250 cables takes NetBox about a
#: minute); ``--timeout`` sets both.
READ_S = 120.0
WRITE_S = 300.0
#: Tries of a request NetBox answers 429 or 503, the first wait without Retry-After (doubling),
#: and the longest wait accepted from Retry-After.
TRIES = 5
BACKOFF_S = 1.0
MAX_WAIT_S = 120.0
#: Pages of one listing, and objects in all (the largest plan reads some 10^6 interfaces in pages
#: of up to 1,000): past either the answer is taken as a loop.
MAX_PAGES = 20_000
MAX_OBJECTS = 5_000_000
#: Seconds a request may take before a progress line says that the CLI waits, and between lines.
PROGRESS_S = 5.0
#: The largest answer read (a page of 1,000 interfaces is about 2 MB).
MAX_BODY = 64 * 1024 * 1024
#: Connections kept open to NetBox: the most list POSTs a push has in flight (``--workers``).
POOL = 16
#: Characters of a NetBox answer quoted in a message.
QUOTE = 200


@dataclass
class Timeouts:
    connect: float = CONNECT_S
    probe: float = PROBE_S
    read: float = READ_S
    write: float = WRITE_S

    @classmethod
    def of(cls, seconds: float | None) -> Timeouts:
        """``--timeout S``: reads and writes wait ``S``; the probe and the connection no longer than that."""
        if seconds is None:
            return cls()
        if not 0 < seconds <= 86400:
            raise BomError(f"--timeout {seconds:g} is not a number of seconds between 0 and 86,400", key="--timeout")
        return cls(min(CONNECT_S, seconds), min(PROBE_S, seconds), seconds, seconds)


def read_token(token_file: Path | None) -> str:
    """The API token from ``--token-file`` (read as every input file is) or from $NETBOX_TOKEN."""
    if token_file is not None:
        text = read_input(token_file, "token file", limit=TOKEN_FILE_MAX).strip()
        if not text:
            raise BomError(f"the token file {token_file} is empty", key="--token-file",
                           hint="Put the NetBox API token (nbt_<key>.<token>) on its first line.")
        # its first line ends at LF (or CRLF) only: splitlines() would also end it at U+2028 or NEL and
        # take a token cut there for the whole (refused below as not ASCII instead)
        token, where = text.split("\n", 1)[0].strip(), f"the token file {token_file}"
    else:
        token, where = os.environ.get(TOKEN_ENV, "").strip(), f"${TOKEN_ENV}"
        if not token:
            raise BomError(f"no NetBox API token: set ${TOKEN_ENV} or give --token-file FILE", key="--token-file",
                           hint="The token is never taken from the command line, where other users can read it.")
    secret(token)
    for part in re.split(r"[._]", token):
        if len(part) >= 8:   # a v2 token's key and secret, should a server echo one alone
            secret(part)
    if not re.fullmatch(r"[\x21-\x7e]+", token):
        raise BomError(f"{where} holds a token with spaces or characters other than ASCII letters, digits and "
                       "punctuation", key="--token-file",
                       hint="Copy the token again from NetBox (a v2 token looks like nbt_<key>.<token>).")
    return token


def check_url(url: str) -> str:
    """``http(s)://host[:port][/path]``, without a trailing slash; a password in it is a secret.

    >>> check_url("http://127.0.0.1:8000/")
    'http://127.0.0.1:8000'
    """
    try:
        u = urlsplit(url)
        u.port   # noqa: B018 - parses the port, raises ValueError on a bad one
    except ValueError as exc:
        raise BomError(f"--url {shown(url)!r} is not a URL ({exc})", key="--url",
                       hint="Give the NetBox address, for example --url https://netbox.example.com.") from None
    if u.password:
        secret(u.password)
    if u.scheme not in ("http", "https") or not u.hostname:
        raise BomError(f"--url {shown(url)!r} is not an http(s) URL", key="--url",
                       hint="Give the NetBox address, for example --url https://netbox.example.com.")
    if u.username or u.password:
        raise BomError(f"--url {shown(url)!r} holds a user name or password", key="--url",
                       hint="Give the address without them: NetBox takes the API token (from $NETBOX_TOKEN or "
                            "--token-file), which a password in the URL would replace on every request.")
    if u.query or u.fragment:
        raise BomError(f"--url {shown(url)!r} has a query or fragment", key="--url",
                       hint="Give the NetBox address only, for example --url https://netbox.example.com.")
    return url.rstrip("/")


def shown(url: str) -> str:
    """``url`` as messages show it: no user or password."""
    try:
        u = urlsplit(url)
        host = u.netloc.rpartition("@")[2]
        return redact(urlunsplit(u._replace(netloc=host)))
    except ValueError:
        return redact(url)


def _origin(u: SplitResult) -> tuple[str, str, int | None]:
    default = {"http": 80, "https": 443}.get(u.scheme)
    return u.scheme, (u.hostname or "").lower(), u.port or default


def describe(resp: Any) -> str:
    """What NetBox sent, for a message: the status and a short, safe quote of the body."""
    kind = resp.headers.get("Content-Type", "") if getattr(resp, "headers", None) is not None else ""
    body = getattr(resp, "text", "") or ""
    if "html" in kind.lower() or body.lstrip()[:15].lower().startswith(("<!doctype", "<html")):
        what = "an HTML page"
    elif body.strip():
        what = f"{' '.join(terminal_text(redact(body)).split())[:QUOTE]!r}"
    else:
        what = "an empty body"
    return f"HTTP {resp.status_code} with {what}"


class GuardedSession:
    """The HTTP session pynetbox uses (see the module docstring); ``say`` gets progress lines."""

    def __init__(self, url: str, timeouts: Timeouts, say: Callable[[str], None] | None = None) -> None:
        import requests  # lazy: the optional netbox extra

        self.base = urlsplit(url)
        self.origin = _origin(self.base)
        self.timeouts = timeouts
        self.say = say
        self.session = requests.Session()
        # No .netrc: its password would replace the token's header. The environment's proxy for --url
        # (HTTPS_PROXY, NO_PROXY) still applies, as the user set it.
        self.session.trust_env = False
        self.session.proxies = requests.utils.get_environ_proxies(url)
        for scheme in ("http://", "https://"):   # a connection per POST in flight, none dropped and reopened
            self.session.mount(scheme, requests.adapters.HTTPAdapter(pool_connections=1, pool_maxsize=POOL,
                                                                      max_retries=0))
        self.probe = False
        self.pages = 0
        self.objects = 0
        self.seen: set[str] = set()
        self.expect: str | None = None
        self.path = ""
        self.sleep = time.sleep
        self.last: Any = None   # the last answer (a body pynetbox cannot read as JSON is told from it)

    # pynetbox calls get/post/patch/put/delete and reads .headers
    def __getattr__(self, name: str) -> Any:
        if name in ("get", "post", "patch", "put", "delete"):
            return lambda url, **kw: self.request(name.upper(), url, **kw)
        return getattr(self.session, name)

    def check(self, url: str) -> SplitResult:
        try:
            u = urlsplit(url)
            origin = _origin(u)
        except ValueError:
            origin, u = ("", "", None), urlsplit("")
        if origin != self.origin:
            raise BomError(f"NetBox sent a link to {shown(url)!r}, another address than --url "
                           f"{shown(urlunsplit(self.base))}: the token is not sent there", key="netbox",
                           hint="Nothing was sent to it. Check NetBox's BASE_PATH and proxy settings "
                                "(its links must name the address it is reached at).")
        return u

    def request(self, method: str, url: str, **kw: Any) -> Any:
        import requests  # lazy: the optional netbox extra

        u = self.check(url)
        read = self.timeouts.probe if self.probe else self.timeouts.read if method == "GET" else self.timeouts.write
        kw["timeout"] = (self.timeouts.connect, read)
        kw["allow_redirects"] = False
        where = f"{method} {u.path}"
        for attempt in range(1, TRIES + 1):
            try:
                with self._progress(where):
                    resp = self.session.request(method, url, stream=True, **kw)
                    self._body(resp, where, read)
            except requests.exceptions.Timeout as exc:
                slow = "connect" if isinstance(exc, requests.exceptions.ConnectTimeout) else "answer"
                raise BomError(f"NetBox at {shown(urlunsplit(self.base))} did not {slow} within "
                               f"{kw['timeout'][0 if slow == 'connect' else 1]:g} s ({where})", key="--url",
                               hint="Check that NetBox is up and not overloaded; --timeout S waits longer for "
                                    "reads and writes.") from None
            except requests.exceptions.RequestException as exc:
                raise BomError(f"NetBox at {shown(urlunsplit(self.base))} does not answer: {type(exc).__name__}",
                               key="--url", hint="Check the address and that NetBox is running and reachable "
                                                 "from here.") from None
            if resp.status_code in (429, 503) and attempt < TRIES:
                wait = self._retry_after(resp, attempt)
                if self.say:
                    self.say(f"NetBox answers HTTP {resp.status_code} to {where}; trying again in {wait:g} s "
                             f"({attempt} of {TRIES - 1})")
                self.sleep(wait)
                continue
            break
        if 300 <= resp.status_code < 400:
            to = resp.headers.get("Location", "")
            raise BomError(f"NetBox at {shown(urlunsplit(self.base))} redirects {where} (HTTP {resp.status_code}) "
                           f"to {shown(to)!r}", key="--url",
                           hint="Give --url as the address NetBox is reached at (https:// if it redirects there); "
                                "the token is not sent on a redirect.")
        if method == "GET" and resp.ok:
            self._pagination(u, resp)
        self.last = resp
        return resp

    def _body(self, resp: Any, where: str, seconds: float) -> None:
        """Read the answer's body in chunks: at most MAX_BODY bytes, and all of it within the read
        timeout (a server that sends a byte every few seconds never trips a per-read timeout)."""
        import requests  # lazy: the optional netbox extra
        import urllib3  # lazy: the optional netbox extra

        chunks, size, deadline = [], 0, time.monotonic() + seconds
        try:
            # read1: what has arrived (iter_content would wait for a whole chunk, the deadline unchecked)
            while chunk := resp.raw.read1(1 << 16, decode_content=True):
                chunks.append(chunk)
                size += len(chunk)
                if size > MAX_BODY:
                    raise BomError(f"NetBox's answer to {where} is larger than {MAX_BODY:,} bytes", key="netbox",
                                   hint="Is --url the NetBox address (not a proxy or another service)?")
                if time.monotonic() > deadline:
                    raise BomError(f"NetBox's answer to {where} did not arrive whole within {seconds:g} s",
                                   key="--url", hint="Check that NetBox is not overloaded; --timeout S waits longer.")
        except urllib3.exceptions.ReadTimeoutError:   # raw reads raise urllib3's errors: as requests would
            raise requests.exceptions.ReadTimeout() from None
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            raise requests.exceptions.ConnectionError(str(exc)) from None
        finally:
            resp.close()
        resp._content = b"".join(chunks)   # what resp.content and resp.json() read from now on

    def _retry_after(self, resp: Any, attempt: int) -> float:
        text = resp.headers.get("Retry-After", "").strip()
        wait = BACKOFF_S * 2 ** (attempt - 1)
        if text:
            try:
                wait = float(text)
            except ValueError:
                with contextlib.suppress(TypeError, ValueError, IndexError):   # neither seconds nor a date
                    wait = parsedate_to_datetime(text).timestamp() - time.time()
        wait = max(0.0, wait)
        if wait > MAX_WAIT_S:
            raise BomError(f"NetBox answers HTTP {resp.status_code} and asks to wait {wait:,.0f} s "
                           f"(Retry-After); the longest wait is {MAX_WAIT_S:g} s", key="netbox",
                           hint="Try again later; what was created before this stays, and the next push finishes it.")
        return round(wait, 1)

    def _pagination(self, u: SplitResult, resp: Any) -> None:
        """Count the pages and objects of one listing; refuse a ``next`` seen before, one to another
        address, and a page with no objects that still names a next one."""
        url = resp.url or urlunsplit(u)
        if self.expect is not None and u.path == self.path:
            self.pages += 1
        else:
            self.pages, self.objects, self.seen, self.path = 1, 0, set(), u.path
        self.seen.add(url)
        self.expect = None
        if "json" not in resp.headers.get("Content-Type", "json").lower():
            return
        try:
            body = resp.json()
        except ValueError:
            return   # pynetbox says it is not JSON
        if not isinstance(body, dict) or "results" not in body:
            return
        nxt, results = body.get("next"), body["results"]
        if not isinstance(nxt, (str, type(None))) or not isinstance(results, list) or not all(
                isinstance(r, dict) for r in results):
            raise BomError(f"NetBox's answer to GET {u.path} is not a page of a list of objects (next is "
                           f"{type(nxt).__name__}, results {type(results).__name__})", key="netbox",
                           hint="Is --url a supported NetBox release, not a proxy or another service?")
        if not nxt:
            return
        self.check(nxt)
        self.objects += len(results)
        loop = None
        if nxt in self.seen:
            loop = "names a page it sent before as the next"
        elif not results:
            loop = "has no objects but names a next page"
        elif self.pages >= MAX_PAGES:
            loop = f"runs past {MAX_PAGES:,} pages"
        elif self.objects >= MAX_OBJECTS:
            loop = f"runs past {MAX_OBJECTS:,} objects"
        if loop:
            raise BomError(f"NetBox's listing of {u.path} {loop}: pagination that would not end", key="netbox",
                           hint="Check NetBox and the proxy in front of it (the next links must move on).")
        self.expect = nxt

    @contextlib.contextmanager
    def _progress(self, where: str) -> Iterator[None]:
        """A line on stderr every PROGRESS_S seconds while a request waits for its answer."""
        if self.say is None:
            yield
            return
        done = threading.Event()
        start = time.monotonic()
        say = self.say

        def tick() -> None:
            while not done.wait(PROGRESS_S):
                say(f"waiting for NetBox: {where}, {time.monotonic() - start:.0f} s")

        t = threading.Thread(target=tick, daemon=True)
        t.start()
        try:
            yield
        finally:
            done.set()
            t.join()


def connect(url: str, token: str, timeout: float | None = None, say: Callable[[str], None] | None = None) -> Any:
    """A pynetbox API object for a NetBox that answers, accepts the token and runs a supported release."""
    try:
        import pynetbox  # lazy: the optional netbox extra
    except ImportError:
        raise BomError("the NetBox commands need pynetbox", key="netbox",
                       hint="Install it with: pip install 'clusterbom[netbox]' (or pip install pynetbox).") from None
    url = check_url(url)
    timeouts = Timeouts.of(timeout)
    nb = pynetbox.api(url, token=token)
    session = GuardedSession(url, timeouts, say)
    nb.http_session = session
    session.probe = True
    try:
        with answers("the status probe (/api/status/)", session):
            status = nb.status()
    finally:
        session.probe = False
    version = str(status.get("netbox-version", "")) if isinstance(status, dict) else ""
    if not choices.version_ok(version):
        lo, hi = choices.SUPPORTED
        raise BomError(f"NetBox at {shown(url)} runs release {version[:40] or 'unknown'}, which clusterbom does "
                       "not support", key="--url", hint=f"Use NetBox {lo[0]}.{lo[1]} or later before "
                                                        f"{hi[0]}.{hi[1]} (tested with {choices.TESTED_VERSION}).")
    nb.clusterbom_release = choices.release(version)   # the interface types the push sends follow it
    workers = status.get("rq-workers-running") if isinstance(status, dict) else None
    nb.clusterbom_rq_workers = workers if isinstance(workers, int) else 0   # the script path needs one
    return nb


def release_of(nb: Any) -> tuple[int, int, int]:
    """The release of the NetBox :func:`connect` reached (the tested one for a stand-in without it)."""
    found = getattr(nb, "clusterbom_release", None)
    return found if isinstance(found, tuple) else choices.release(choices.TESTED_VERSION) or (4, 7, 3)


def request_error(exc: Exception, what: str, session: Any = None) -> BomError:
    """A pynetbox or requests error during a push or a read, as one message (exit 2)."""
    req = getattr(exc, "req", None)   # a Response is false when its status is an error: test for None
    if req is None:
        req = getattr(exc, "response", None)
    if req is None and isinstance(exc, ValueError):   # requests' JSON decoding: not NetBox's JSON
        last = getattr(session, "last", None)
        return BomError(f"NetBox's answer to {what} is not JSON" + (f" ({describe(last)})" if last is not None
                                                                   else ""), key="netbox",
                        hint="Is --url the NetBox address (not a proxy, a login page or another service)?")
    if req is not None:
        code = req.status_code
        if code in (401, 403):
            return BomError(f"NetBox refuses the token for {what} ({describe(req)})", key="--token-file",
                            hint=f"Check ${TOKEN_ENV} or the token file: a v2 token looks like nbt_<key>.<token>, "
                                 "and it must be enabled, unexpired and allowed to write.")
        if req.ok:
            return BomError(f"NetBox's answer to {what} is not JSON ({describe(req)})", key="netbox",
                            hint="Is --url the NetBox address (not a proxy, a login page or another service)?")
        hint = ("Someone changed the same objects meanwhile, or NetBox holds one by that name already: "
                if code == 409 else "")
        return BomError(f"NetBox refused {what}: {describe(req)}", key="netbox",
                        hint=hint + "What was created before this stays; fix the cause and push again to finish.")
    detail = getattr(exc, "error", None) or str(exc)
    return BomError(f"NetBox refused {what}: {' '.join(redact(str(detail)).split())[:600]}", key="netbox",
                    hint="What was created before this stays; fix the cause and push again to finish.")


@contextlib.contextmanager
def answers(what: str, session: Any = None) -> Iterator[None]:
    """NetBox's answers to ``what`` as they come: an error, a body that is not JSON, or an object without
    the fields the plan reads, each as one message (exit 2) saying what NetBox sent."""
    import pynetbox  # lazy: the optional netbox extra
    import requests  # lazy: the optional netbox extra

    errors = (pynetbox.RequestError, pynetbox.ContentError, pynetbox.core.query.AllocationError,
              requests.exceptions.RequestException)
    try:
        yield
    except BomError:
        raise
    except errors as exc:
        raise request_error(exc, what, session) from None
    except (AttributeError, KeyError, TypeError, ValueError, IndexError) as exc:
        raise BomError(f"NetBox's answer to {what} lacks a field the plan reads, or holds one of another type "
                       f"({type(exc).__name__}: {' '.join(redact(str(exc)).split())[:QUOTE]})", key="netbox",
                       hint="Is --url a supported NetBox release (not a proxy or another service)? "
                            "What was created before this stays; the next push finishes it.") from None
