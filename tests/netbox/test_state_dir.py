"""The live NetBox tests are hermetic: ``BOM_NETBOX=off`` skips them before any connection, whatever
state file exists; the NetBox state lives in a folder per checkout, which scripts/netbox-up.sh,
netbox-down.sh, test.sh and tests/netbox/live.py agree on; and a state file another checkout wrote
is neither used nor stopped (issue 41: a run on a shared machine wiped another run's NetBox).

No NetBox is started here: the state files are written by hand into temporary folders, the
"server" is a listening socket that counts who connected, and the only process stopped is a
``sleep`` this test started.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bom.netbox import client
from tests.netbox import live

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"
#: The folder every checkout shared before issue 41: nothing may read it any more.
LEGACY = Path("/tmp/clusterbom-netbox")


class Server:
    """A socket where a NetBox would listen: it counts who connects and hangs up on them at once (a
    request that got past a skip fails quickly instead of waiting for an answer)."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.05)
        self.count = 0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.done.is_set():
            try:
                conn, _ = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            self.count += 1
            conn.close()

    def getsockname(self) -> tuple[str, int]:
        return self.sock.getsockname()

    def close(self) -> None:
        self.done.set()
        self.thread.join()
        self.sock.close()


@pytest.fixture()
def server():
    s = Server()
    yield s
    s.close()


def accepted(s: Server) -> int:
    time.sleep(0.1)   # a connection in flight is counted
    return s.count


@pytest.fixture()
def connects(monkeypatch):
    """Every call of bom.netbox.client.connect (the live tests' probe), answered without a network."""
    calls: list[str] = []
    monkeypatch.setattr(client, "connect", lambda url, token, *a, **k: calls.append(url))
    return calls


def write_state(folder: Path, checkout: Path | str, url: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "state.env"
    path.write_text(f"NETBOX_CHECKOUT={checkout}\nNETBOX_URL={url}\nNETBOX_TOKEN=nbt_A.B\n"
                    "NETBOX_USER=bom-admin\nNETBOX_PASSWORD=x\n")
    return path


@pytest.mark.parametrize("ci", ["", "true"], ids=["dev", "ci"])
def test_bom_netbox_off_skips_even_when_this_checkouts_state_file_names_a_netbox(tmp_path, server, connects, ci):
    url = f"http://127.0.0.1:{server.getsockname()[1]}"
    write_state(tmp_path / "nb", live.CHECKOUT, url)
    on = {"BOM_NETBOX_DIR": str(tmp_path / "nb"), "CI": ci}
    # The control: without BOM_NETBOX=off this state file is the one used, and probed.
    assert live.require(env=on)["NETBOX_URL"] == url and connects == [url]
    connects.clear()
    with pytest.raises(pytest.skip.Exception, match="BOM_NETBOX=off"):
        live.require(env={**on, "BOM_NETBOX": "off"})
    assert connects == [] and accepted(server) == 0


def test_bom_netbox_off_skips_a_netbox_given_by_netbox_url_too(tmp_path, server, connects):
    url = f"http://127.0.0.1:{server.getsockname()[1]}"
    env = {"BOM_NETBOX_DIR": str(tmp_path / "none"), "NETBOX_URL": url, "NETBOX_TOKEN": "nbt_A.B"}
    assert live.require(env=env)["NETBOX_URL"] == url and connects == [url]   # explicit: used
    connects.clear()
    with pytest.raises(pytest.skip.Exception, match="BOM_NETBOX=off"):
        live.require(env={**env, "BOM_NETBOX": "off", "CI": "true"})
    assert connects == [] and accepted(server) == 0


@pytest.mark.parametrize("ci", ["", "true"], ids=["dev-skips", "ci-fails"])
def test_a_state_file_another_checkout_wrote_is_not_used(tmp_path, server, connects, ci):
    url = f"http://127.0.0.1:{server.getsockname()[1]}"
    write_state(tmp_path / "nb", "/elsewhere/clusterbom", url)
    env = {"BOM_NETBOX_DIR": str(tmp_path / "nb"), "CI": ci}
    assert live.state(env=env) == {}
    assert not live.owned({"NETBOX_URL": url}, env=env)
    outcome = pytest.fail.Exception if ci else pytest.skip.Exception
    with pytest.raises(outcome, match="written by /elsewhere/clusterbom"):
        live.require(env=env)
    assert connects == [] and accepted(server) == 0


def test_only_this_checkouts_netbox_at_the_url_in_use_is_emptied_whole(tmp_path):
    """``live.clean`` deletes everything only in a NetBox of its own; elsewhere only the nb- scenarios."""
    env = {"BOM_NETBOX_DIR": str(tmp_path / "nb")}
    write_state(tmp_path / "nb", live.CHECKOUT, "http://127.0.0.1:8001")
    assert live.owned({"NETBOX_URL": "http://127.0.0.1:8001"}, env=env)
    assert not live.owned({"NETBOX_URL": "http://127.0.0.1:8002"}, env=env)   # $NETBOX_URL names another
    assert not live.owned({"NETBOX_URL": "http://127.0.0.1:8001"}, checkout=tmp_path, env=env)


def test_the_state_folder_is_per_checkout_and_the_scripts_agree_with_the_tests(tmp_path):
    """Two copies of the repository get two folders, neither the old shared one; the shell's answer
    (scripts/netbox-dir.sh, which netbox-up.sh, netbox-down.sh and test.sh call) is live.py's."""
    env = {k: v for k, v in os.environ.items() if k != "BOM_NETBOX_DIR"}
    folders = {}
    for name in ("a", "b"):
        (tmp_path / name / "scripts").mkdir(parents=True)
        shutil.copy(SCRIPTS / "netbox-dir.sh", tmp_path / name / "scripts")
        out = subprocess.run(["bash", str(tmp_path / name / "scripts" / "netbox-dir.sh")], env=env,
                             capture_output=True, text=True, check=True, timeout=30).stdout.strip()
        assert Path(out) == live.state_dir(checkout=(tmp_path / name).resolve(), env={})
        folders[name] = Path(out)
    assert folders["a"] != folders["b"] and LEGACY not in folders.values()
    this = subprocess.run(["bash", str(SCRIPTS / "netbox-dir.sh")], env=env, capture_output=True, text=True,
                          check=True, timeout=30).stdout.strip()
    assert Path(this) == live.state_dir(env={}) != LEGACY
    given = subprocess.run(["bash", str(SCRIPTS / "netbox-dir.sh")], env={**env, "BOM_NETBOX_DIR": str(tmp_path)},
                           capture_output=True, text=True, check=True, timeout=30).stdout.strip()
    assert Path(given) == live.state_dir(env={"BOM_NETBOX_DIR": str(tmp_path)}) == tmp_path


def test_every_script_takes_the_folder_from_netbox_dir_sh():
    for name in ("netbox-up.sh", "netbox-down.sh", "test.sh"):
        text = (SCRIPTS / name).read_text()
        assert "scripts/netbox-dir.sh" in text, name
        assert "/tmp/clusterbom-netbox" not in text and "BOM_NETBOX_DIR:-" not in text, name


def _sleeper() -> subprocess.Popen[bytes]:
    # In a session of its own, as netbox-up.sh starts the web server (setsid): netbox-down.sh stops its group.
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)


@pytest.mark.parametrize("mine", [False, True], ids=["another-checkouts-left-alone", "this-checkouts-stopped"])
def test_netbox_down_stops_only_this_checkouts_netbox(tmp_path, mine):
    folder = tmp_path / "nb"
    proc, rq = _sleeper(), _sleeper()   # the web server and (BOM_NETBOX_SERVER=gunicorn) the RQ worker
    try:
        path = write_state(folder, live.CHECKOUT if mine else "/elsewhere/clusterbom", "http://127.0.0.1:9")
        path.write_text(path.read_text() + f"WEB_PID={proc.pid}\nREDIS_PID={proc.pid}\nRQ_PID={rq.pid}\n")
        r = subprocess.run(["bash", str(SCRIPTS / "netbox-down.sh")], capture_output=True, text=True, timeout=60,
                           env={**os.environ, "BOM_NETBOX_DIR": str(folder)})
        if mine:
            assert r.returncode == 0, r.stderr
            assert proc.wait(timeout=10) != 0 and rq.wait(timeout=10) != 0 and not folder.exists()
        else:
            assert r.returncode == 1 and "belongs to /elsewhere/clusterbom" in r.stderr, r.stderr
            assert proc.poll() is None and rq.poll() is None and path.is_file()
    finally:
        for p in (proc, rq):
            if p.poll() is None:
                p.kill()
            p.wait()


def test_netbox_up_refuses_a_server_it_does_not_know_before_starting_anything(tmp_path):
    r = subprocess.run(["bash", str(SCRIPTS / "netbox-up.sh")], capture_output=True, text=True, timeout=60,
                       env={**os.environ, "BOM_NETBOX_DIR": str(tmp_path / "nb"), "BOM_NETBOX_SERVER": "uwsgi"})
    assert r.returncode == 2 and "give runserver (the default) or gunicorn" in r.stderr, r.stderr
    assert not (tmp_path / "nb").exists()


@pytest.mark.slow   # a pytest of its own over the live module: about 3 s (the checks above are the fast loop's)
def test_the_live_tests_skip_under_bom_netbox_off_with_a_state_file_in_place(pytester, tmp_path, server, connects,
                                                                                monkeypatch):
    """End to end: tests/netbox/test_live.py itself, in a pytest of its own, with this checkout's state file
    naming a server and $NETBOX_URL too, in CI: every test skips and nobody connects."""
    url = f"http://127.0.0.1:{server.getsockname()[1]}"
    write_state(tmp_path / "nb", live.CHECKOUT, url)
    for k, v in {"BOM_NETBOX_DIR": str(tmp_path / "nb"), "BOM_NETBOX": "off", "CI": "true",
                 "NETBOX_URL": url, "NETBOX_TOKEN": "nbt_A.B"}.items():
        monkeypatch.setenv(k, v)
    result = pytester.runpytest_inprocess(str(ROOT / "tests" / "netbox" / "test_live.py"), "-m", "slow", "-rs",
                                          "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:hypothesispytest",
                                          f"--rootdir={ROOT}")
    outcomes = result.parseoutcomes()
    assert outcomes.get("skipped", 0) >= 6 and "passed" not in outcomes and "failed" not in outcomes, outcomes
    assert "BOM_NETBOX=off" in result.stdout.str()
    assert connects == [] and accepted(server) == 0
