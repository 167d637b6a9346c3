"""``bom netbox push|diff`` against a NetBox of our own on 127.0.0.1 that misbehaves (issue 24):
slow, HTML and other bodies that are not JSON, 409, 429/503 with Retry-After, looping and foreign
``next`` links, error bodies that echo the request's headers, redirects, objects without their
fields; the token file as an input file; terminal escapes in names from NetBox; a push that fails
half way and a second push that finishes it. Every case: the exit code, one message, the token
nowhere in the output or in a file, nothing left behind. Never a real network."""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bom.cli import app
from bom.netbox import client
from tests.hostile.conftest import leftovers
from tests.hostile.netbox_server import Call, Drip, FakeNetBox, serve

TOKEN = "nbt_Kq7Zr2Lx9Pw4.Hs8Vd3Nf6Tj1Mb5Cy0Ra"
SECRETS = (TOKEN, "Kq7Zr2Lx9Pw4", "Hs8Vd3Nf6Tj1Mb5Cy0Ra")
TINY = "name: tiny\nplatform: dgx-h100\nnodes: 2\n"


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str
    seconds: float


@pytest.fixture
def netbox():
    """Start fake NetBoxes (each with its hook); all are shut down after the test."""
    servers = []

    def start(hook=None) -> FakeNetBox:
        fake = FakeNetBox(hook=hook)
        server, _ = serve(fake)
        servers.append(server)
        return fake

    yield start
    for s in servers:
        s.shutdown()
        s.server_close()


@pytest.fixture
def scenario(tmp_path, monkeypatch):
    monkeypatch.setenv("NETBOX_TOKEN", TOKEN)
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY)
    return path


def nb(*args: str) -> Run:
    start = time.monotonic()
    r = CliRunner().invoke(app, ["netbox", *args])
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    return Run(r.exit_code, r.stdout, r.stderr, time.monotonic() - start)


def refused(r: Run, *words: str, folder: Path | None = None) -> None:
    """Exit 2, one "error:" line that says ``words``, no secret, no escape, nothing left behind."""
    assert r.code == 2, (r.code, r.stdout[-500:], r.stderr[-800:])
    errors = [line for line in r.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, r.stderr
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr
    for w in words:
        assert w in errors[0], (w, errors[0])
    clean(r, folder)


def clean(r: Run, folder: Path | None = None) -> None:
    for s in SECRETS:
        assert s not in r.stdout and s not in r.stderr, "the token is printed"
    assert "\x1b" not in r.stdout + r.stderr and "\x07" not in r.stdout + r.stderr
    if folder is not None:
        assert not leftovers(folder)
        for p in folder.rglob("*"):
            if p.is_file():
                data = p.read_bytes()
                assert not any(s.encode() in data for s in SECRETS if p.name != "token"), p


def push(fake: FakeNetBox, scenario: Path, *more: str) -> Run:
    return nb("push", str(scenario), "--url", fake.url, *more)


def auth(call: Call) -> str:
    return next((v for k, v in call.headers.items() if k.lower() == "authorization"), "")


def lists(call: Call) -> bool:
    return call.method == "GET" and call.path != "/api/status/"


# -- where the token goes ---------------------------------------------------------------------------

def test_a_next_link_to_another_address_is_not_followed(netbox, scenario, tmp_path):
    other = netbox()

    def hook(call, fake):
        if lists(call):
            return 200, {}, json.dumps({"count": 2, "next": f"{other.url}{call.path}?offset=1", "previous": None,
                                        "results": [{"id": 9, "name": "x", "slug": "x", "model": "x"}]})
        return None

    fake = netbox(hook)
    r = push(fake, scenario)
    refused(r, "another address", "the token is not sent there", folder=tmp_path)
    assert other.calls == [], "the other address got a request"
    assert all(c.headers.get("Host", "").endswith(fake.url.rsplit(":", 1)[1]) for c in fake.calls)


def test_an_error_body_that_echoes_the_headers_shows_no_token(netbox, scenario, tmp_path):
    def hook(call, fake):
        if call.method == "POST":
            echo = {"Authorization": auth(call), **call.headers}   # within the part a message quotes
            return 500, {"Content-Type": "text/plain"}, "proxy error; request was " + json.dumps(echo)
        return None

    fake = netbox(hook)
    r = push(fake, scenario)
    refused(r, "HTTP 500", "***", folder=tmp_path)
    assert any(TOKEN in auth(c) for c in fake.calls), "the echo must hold the token"


def test_a_password_in_the_url_is_refused_and_never_shown(netbox, scenario, tmp_path):
    fake = netbox()
    url = fake.url.replace("http://", "http://admin:Pa55-w0rd-zq@")
    for cmd in ("push", "diff"):
        r = nb(cmd, str(scenario), "--url", url)
        refused(r, "user name or password", folder=tmp_path)
        assert "Pa55-w0rd-zq" not in r.stderr + r.stdout
    assert fake.calls == []


def test_a_redirect_is_not_followed(netbox, scenario, tmp_path):
    other = netbox()

    def hook(call, fake):
        if call.path == "/api/status/":
            return 307, {"Location": f"{other.url}/login/?next=/api/status/"}, ""
        return None

    r = push(netbox(hook), scenario)
    refused(r, "redirects", "HTTP 307", folder=tmp_path)
    assert other.calls == []


# -- pagination -------------------------------------------------------------------------------------

def test_a_next_link_to_the_same_page_is_refused(netbox, scenario, tmp_path):
    def hook(call, fake):
        if lists(call):
            page = fake.url + call.path + "?limit=1&offset=1"
            return 200, {}, json.dumps({"count": 5, "next": page, "previous": None,
                                        "results": [{"id": 9, "name": "x", "slug": "x", "model": "x"}]})
        return None

    fake = netbox(hook)
    r = push(fake, scenario)
    refused(r, "names a page it sent before", folder=tmp_path)
    assert len(fake.calls) < 10


def test_pages_that_never_end_are_refused(netbox, scenario, tmp_path, monkeypatch):
    monkeypatch.setattr(client, "MAX_PAGES", 30)

    def hook(call, fake):
        if lists(call):
            n = int(call.query.get("offset", ["0"])[0]) + 1
            return 200, {}, json.dumps({"count": 10 ** 9, "next": f"{fake.url}{call.path}?limit=1&offset={n}",
                                        "previous": None, "results": [{"id": n, "name": f"x{n}", "model": "x"}]})
        return None

    fake = netbox(hook)
    r = push(fake, scenario)
    refused(r, "runs past 30 pages", folder=tmp_path)
    assert len(fake.calls) <= 32

    def empty(call, fake):
        if lists(call):
            n = int(call.query.get("offset", ["0"])[0]) + 1
            return 200, {}, json.dumps({"count": 10 ** 9, "next": f"{fake.url}{call.path}?limit=1&offset={n}",
                                        "previous": None, "results": []})
        return None

    refused(push(netbox(empty), scenario), "has no objects but names a next page", folder=tmp_path)


# -- slow and busy ----------------------------------------------------------------------------------

def test_a_slow_status_probe_times_out_in_seconds(netbox, scenario, tmp_path):
    def hook(call, fake):
        if call.path == "/api/status/":
            time.sleep(3)
        return None

    r = push(netbox(hook), scenario, "--timeout", "1")
    refused(r, "did not answer within 1 s", "--timeout", folder=tmp_path)
    assert r.seconds < 2.8
    assert client.Timeouts.of(None).probe <= 10 < client.Timeouts.of(None).read


@pytest.mark.slow   # two 1 s timeouts: about 2.5 s
def test_a_body_that_drips_or_never_ends_is_cut_off(netbox, scenario, tmp_path, monkeypatch):
    """A byte every 0.3 s never trips a per-read timeout: the whole answer has the read timeout."""
    def drip(call, fake):
        if call.path == "/api/status/":
            return 200, {}, Drip(b'{"netbox-version": "4.7.3"}' + b" " * 100, 0.3)
        return None

    r = push(netbox(drip), scenario, "--timeout", "1")
    refused(r, "did not arrive whole within 1 s", folder=tmp_path)
    assert r.seconds < 8   # 1 s of waiting, on a loaded machine (it was 10 minutes a request)

    def stall(call, fake):   # the headers, then nothing
        return (200, {}, Drip(b"{}" * 10, 5)) if call.path == "/api/status/" else None

    r = push(netbox(stall), scenario, "--timeout", "1")
    refused(r, "did not answer within 1 s", folder=tmp_path)
    assert r.seconds < 8   # 1 s of waiting, on a loaded machine (it was 10 minutes a request)
    monkeypatch.setattr(client, "MAX_BODY", 10_000)

    def huge(call, fake):
        if lists(call):
            return 200, {}, json.dumps({"count": 0, "next": None, "results": [], "pad": "x" * 20_000})
        return None

    refused(push(netbox(huge), scenario), "larger than 10,000 bytes", folder=tmp_path)


def test_a_slow_read_says_it_is_waiting(netbox, scenario, tmp_path, monkeypatch):
    monkeypatch.setattr(client, "PROGRESS_S", 0.1)
    slow = []

    def hook(call, fake):
        if lists(call) and not slow:
            slow.append(call)
            time.sleep(0.5)   # five progress periods: short, as the fast loop's 2 s a test wants
        return None

    r = push(netbox(hook), scenario)
    assert r.code == 0, r.stderr
    assert "waiting for NetBox: GET /api/" in r.stderr, r.stderr
    clean(r, tmp_path)


@pytest.mark.slow   # two 1 s Retry-Afters: about 2.5 s
def test_429_and_503_are_retried_after_retry_after(netbox, scenario, tmp_path):
    busy = []

    def hook(call, fake):
        if lists(call) and len(busy) < 2:
            busy.append(call)
            return (429 if len(busy) == 1 else 503), {"Retry-After": "1"}, json.dumps({"detail": "slow down"})
        return None

    fake = netbox(hook)
    r = push(fake, scenario)
    assert r.code == 0, r.stderr
    assert r.stderr.count("trying again in 1 s") == 2, r.stderr
    later = [c for c in fake.calls if c.at > busy[0].at]
    assert later[0].at - busy[0].at >= 0.9 and later[1].at - busy[1].at >= 0.9, "Retry-After not honoured"
    clean(r, tmp_path)


def test_busy_for_ever_ends_with_a_message(netbox, scenario, tmp_path, monkeypatch):
    monkeypatch.setattr(client, "BACKOFF_S", 0.01)

    def hook(call, fake):
        return (503, {}, "<html><body>Service Unavailable</body></html>") if lists(call) else None

    fake = netbox(hook)
    r = push(fake, scenario)
    refused(r, "HTTP 503", "HTML page", folder=tmp_path)
    assert sum(lists(c) for c in fake.calls) == client.TRIES

    def far(call, fake):
        return (429, {"Retry-After": "86400"}, "") if lists(call) else None

    refused(push(netbox(far), scenario), "asks to wait 86,400 s", folder=tmp_path)


# -- answers that are not NetBox's --------------------------------------------------------------------

@pytest.mark.parametrize("case, answer, words", [
    ("html status", ("/api/status/", 200, {"Content-Type": "text/html"}, "<!DOCTYPE html><html>login</html>"),
     ["not JSON", "HTML page"]),
    ("text list", ("list", 200, {"Content-Type": "text/plain"}, "hello"), ["not JSON", "'hello'"]),
    ("409 on create", ("POST", 409, {}, json.dumps({"detail": "conflict"})), ["HTTP 409", "conflict"]),
    ("no fields", ("list", 200, {}, json.dumps({"count": 1, "next": None, "results": [{"id": 1}]})),
     ["lacks a field"]),
    ("not a list", ("list", 200, {}, json.dumps({"count": 1, "next": None, "results": 7})),
     ["not a page of a list"]),
    ("old release", ("/api/status/", 200, {}, json.dumps({"netbox-version": "\x1b[2J3.0.0"})),
     ["does not support"]),
])
def test_malformed_answers_exit_2_with_what_netbox_sent(netbox, scenario, tmp_path, case, answer, words):
    where, status, headers, body = answer

    def hook(call, fake):
        if where == call.path or (where == "list" and lists(call)) or where == call.method:
            return status, headers, body
        return None

    for cmd in ("push",) if where == "POST" else ("push", "diff"):
        r = nb(cmd, str(scenario), "--url", netbox(hook).url)
        refused(r, *words, folder=tmp_path)


@pytest.mark.parametrize("url, words", [("http://[::1", ["is not a URL"]), ("http://host:99999", ["is not a URL"]),
                                        ("ftp://netbox", ["not an http(s) URL"])])
def test_bad_urls(scenario, tmp_path, url, words):
    refused(nb("push", str(scenario), "--url", url), *words, folder=tmp_path)


def test_bad_timeouts(netbox, scenario, tmp_path):
    refused(nb("push", str(scenario), "--url", netbox().url, "--timeout", "0"), "--timeout", folder=tmp_path)


# -- the token file -----------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "link-to-dev-zero", "huge", "latin-1", "folder", "spaces"])
def test_the_token_file_is_read_as_every_input_file(netbox, scenario, tmp_path, kind):
    path = tmp_path / "token"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path = Path("/dev/zero")
    elif kind == "link-to-dev-zero":
        os.symlink("/dev/zero", path)
    elif kind == "huge":
        path.write_bytes(b"a" * (client.TOKEN_FILE_MAX + 1))
    elif kind == "latin-1":
        path.write_bytes("nbt_caf\xe9.token\n".encode("latin-1"))
    elif kind == "folder":
        path.mkdir()
    else:
        path.write_text("nbt_abc def\n")
    fake = netbox()
    r = nb("push", str(scenario), "--url", fake.url, "--token-file", str(path))
    refused(r, "token file", folder=tmp_path)
    assert r.seconds < 5
    assert fake.calls == []


# -- what is printed ----------------------------------------------------------------------------------

def test_diff_that_differs_exits_1_without_an_internal_error(netbox, scenario, tmp_path):
    fake = netbox()
    assert push(fake, scenario).code == 0
    dev = next(o for o in fake.objects("dcim/devices"))
    del fake.store["dcim/devices"][dev["id"]]
    site = fake.objects("dcim/sites")[0]["id"]
    fake.create("dcim/devices", {"name": "\x1b]0;pwned\x07\x1b[2Jevil\x9b31m", "site": site})
    for more in ([], ["--json"]):
        r = nb("diff", str(scenario), "--url", fake.url, *more)
        assert r.code == 1, r.stderr
        assert r.stderr == "" and "internal error" not in r.stdout, r.stderr
        clean(r, tmp_path)
        text = r.stdout if not more else "\n".join(json.loads(r.stdout)["missing_devices"])
        assert dev["name"] in text
    shown = nb("diff", str(scenario), "--url", fake.url).stdout
    assert "extra device: evil" in shown and "pwned" not in shown   # the title-setting sequence is gone


def _unique(fake: FakeNetBox) -> None:
    """Nothing created twice: names unique in their scope, each interface pair cabled once."""
    for kind, key in (("extras/tags", "slug"), ("dcim/sites", "name"), ("dcim/manufacturers", "name"),
                      ("dcim/device-roles", "name"), ("dcim/device-types", "model")):
        names = [o[key] for o in fake.objects(kind)]
        assert len(names) == len(set(names)), kind
    for kind, scope in (("dcim/locations", "site"), ("dcim/racks", "site"), ("dcim/devices", "site"),
                        ("dcim/interfaces", "device"), ("dcim/interface-templates", "device_type"),
                        ("dcim/module-bays", "device"), ("dcim/module-bay-templates", "device_type")):
        keys = [(o[scope]["id"], o["name"]) for o in fake.objects(kind)]
        assert len(keys) == len(set(keys)), kind
    ends = [t["object_id"] for o in fake.objects("dcim/cables") for t in o["a_terminations"] + o["b_terminations"]]
    assert len(ends) == len(set(ends)), "an interface cabled twice"
    bays = [o["module_bay"]["id"] for o in fake.objects("dcim/modules")]
    assert bays and len(bays) == len(set(bays)), "a module bay filled twice"


@pytest.mark.slow   # three whole pushes to the fake NetBox: 2-3 s of CPU, over the fast loop's budget
@pytest.mark.parametrize(("kind", "what", "workers"), [("dcim/interfaces", "interfaces", "1"),
                                                       ("dcim/modules", "modules", "1"),
                                                       ("dcim/interfaces", "interfaces", "4")])
def test_a_second_push_finishes_what_a_failed_one_started(netbox, scenario, tmp_path, kind, what, workers):
    """Also with four list POSTs in flight: the refused one's batch is not created and the next push
    creates exactly the rest, nothing twice."""
    whole = netbox()
    assert push(whole, scenario).code == 0
    want = {k: len(v) for k, v in whole.store.items()}
    assert want["dcim/modules"] > 10   # the transceivers: more than one batch of 10
    posts = []

    def fail(call, fake):
        if call.method == "POST" and call.path == f"/api/{kind}/":
            posts.append(call)
            if len(posts) == 2:
                return 500, {"Content-Type": "text/html"}, "<html>gateway " + json.dumps(call.headers) + "</html>"
        return None

    fake = netbox(fail)
    r = push(fake, scenario, "--batch", "10", "--workers", workers)
    refused(r, "NetBox refused", "HTTP 500", "push again to finish", folder=tmp_path)
    half = {k: len(v) for k, v in fake.store.items()}
    assert 0 < half[kind] < want[kind] and "dcim/cables" not in half
    fake.hook = None
    r = push(fake, scenario, "--batch", "10", "--workers", workers, "--json")
    assert r.code == 0, r.stderr
    done = json.loads(r.stdout)
    assert done["created"][what] == want[kind] - half[kind]
    if what == "modules":   # the modules of the first push matched by their bay, none made twice
        assert done["matched"][what] == half[kind]
    assert done["matched"]["devices"] == want["dcim/devices"] and "devices" not in done["created"]
    assert {k: len(v) for k, v in fake.store.items()} == want
    _unique(fake)
    assert nb("diff", str(scenario), "--url", fake.url).code == 0
    clean(r, tmp_path)


def test_the_cli_default_is_the_pushs_measured_number_of_workers():
    import inspect

    from bom.cli import netbox as commands
    from bom.netbox.push import WORKERS

    assert inspect.signature(commands.push).parameters["workers"].default == WORKERS
