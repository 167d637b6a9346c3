"""The push's path choice and the script's client, offline (the live NetBox runs both paths in
tests/netbox/test_live.py)."""

from __future__ import annotations

import ast
import json
from typing import Any

import pytest

from bom.errors import BomError
from bom.netbox import script as nbscript
from bom.netbox.inventory import Inventory
from bom.netbox.push import Pusher

WHOLE = nbscript.Offer(version=nbscript.VERSION, runnable=True, rq_workers=1)


@pytest.mark.parametrize(("offer", "why"), [
    (nbscript.Offer(), "not installed"),
    (nbscript.Offer(version="0", runnable=True, rq_workers=1), "version 0"),
    (nbscript.Offer(version=nbscript.VERSION, runnable=False, rq_workers=1), "may not run"),
    (nbscript.Offer(version=nbscript.VERSION, runnable=True, rq_workers=0), "no RQ worker"),
])
def test_auto_falls_back_to_list_posts_and_says_why_and_script_insists(offer, why):
    how, said = nbscript.choose("auto", offer)
    assert how == "list" and why in said
    with pytest.raises(BomError) as e:
        nbscript.choose("script", offer)
    assert why in str(e.value) and e.value.key == "--path"


def test_auto_takes_the_script_when_the_server_offers_it_whole_and_list_never_does():
    assert nbscript.choose("auto", WHOLE)[0] == "script"
    assert nbscript.choose("script", WHOLE)[0] == "script"
    assert nbscript.choose("list", WHOLE)[0] == "list"


def test_the_version_is_read_from_the_scripts_description_only():
    src = nbscript.source()
    desc = next(line for line in src.splitlines() if "description = " in line and "version" in line)
    assert nbscript.version_of(ast.literal_eval(desc.split("=", 1)[1].strip())) == nbscript.VERSION
    assert nbscript.version_of("someone else's script, version 1") == ""
    assert nbscript.version_of("") == ""


def test_the_script_source_is_python_with_every_model_the_push_creates():
    tree = ast.parse(nbscript.source())
    models = next(n.value for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "MODELS")
    assert set(ast.literal_eval(models)) == set(nbscript.MODELS.values())
    assert "__" + "VERSION__" not in nbscript.source()


class Answer:
    def __init__(self, status: int, body: Any) -> None:
        self.status_code, self.body = status, body

    def json(self) -> Any:
        return self.body


class Server:
    """NetBox's script and job endpoints as the runner calls them: each run a job that completes with the ids."""

    def __init__(self, refuse: bool = False) -> None:
        self.jobs: dict[int, dict[str, Any]] = {}
        self.next_id = 100
        self.refuse = refuse
        self.calls: list[tuple[str, str]] = []

    def request(self, method: str, url: str, **kw: Any) -> Answer:
        self.calls.append((method, url))
        if "/scripts/upload/" in url:
            return Answer(201 if method == "POST" else 200, {"id": 7})
        if method == "POST":
            data = kw["json"]["data"]
            items = json.loads(data["items"])
            job = len(self.jobs) + 1
            if self.refuse:
                self.jobs[job] = {"status": {"value": "errored"}, "data": {"log": [
                    {"status": "failure", "message": "object 0 of 1: {\"name\": [\"exists\"]}"}], "output": None}}
            else:
                ids = list(range(self.next_id, self.next_id + len(items)))
                self.next_id += len(items)
                out = json.dumps({"run": data["run_id"], "ids": ids})
                self.jobs[job] = {"status": {"value": "completed"}, "data": {"log": [], "output": out}}
            return Answer(200, {"id": 7, "result": {"id": job, "status": {"value": "pending"}}})
        job = int(url.rstrip("/").rsplit("/", 1)[1])
        return Answer(200, self.jobs[job])


class Api:
    base_url = "http://netbox.invalid/api"
    token = "nbt_abc.def"

    def __init__(self, server: Server) -> None:
        self.http_session = server


def test_the_runner_sends_jobs_of_a_batch_and_returns_the_ids_in_order(monkeypatch):
    monkeypatch.setattr(nbscript, "BATCH", 3)
    server = Server()
    said: list[int] = []
    ids = nbscript.Runner(Api(server), lambda _m: None, sleep=lambda _s: None).create(
        "cables", [{"n": i} for i in range(7)], said.append)
    assert ids == list(range(100, 107)) and said == [3, 3, 1]
    assert [m for m, _ in server.calls].count("POST") == 3


def test_a_refused_job_is_one_message_with_netboxs_reason():
    runner = nbscript.Runner(Api(Server(refuse=True)), lambda _m: None, sleep=lambda _s: None)
    with pytest.raises(BomError) as e:
        runner.create("devices", [{"name": "x"}], lambda _n: None)
    assert "exists" in str(e.value) and "errored" in str(e.value)


class SlowServer(Server):
    """A job that runs ``seconds`` of the caller's clock: polls before then see it running."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.clock, self.seconds = [0.0], seconds
        self.polls: list[dict[str, Any]] = []

    def request(self, method: str, url: str, **kw: Any) -> Answer:
        answer = super().request(method, url, **kw)
        if method == "GET":
            self.polls.append(kw.get("params") or {})
            if self.clock[0] < self.seconds:
                return Answer(200, {"id": 1, "status": {"value": "running"}})
        return answer


def test_a_long_job_is_polled_ever_less_often_for_its_status_alone_and_read_whole_once():
    server = SlowServer(seconds=120.0)
    def sleep(s: float) -> None:
        server.clock[0] += s

    runner = nbscript.Runner(Api(server), lambda _m: None, sleep=sleep)
    assert runner.create("cables", [{"n": i} for i in range(5)], lambda _n: None) == list(range(100, 105))
    # 0.5 s polls would be 240 requests over two minutes; growing by 1.5x to 5 s: under 35, at most 5 s late
    assert len(server.polls) < 35 and server.clock[0] < 120 + nbscript.POLL_MAX
    assert server.polls[:-1] == [{"fields": "id,status"}] * (len(server.polls) - 1) and server.polls[-1] == {}


class TimedServer(Server):
    """Each job runs ``per_object`` seconds of the caller's clock per object, from its start."""

    def __init__(self, per_object: float) -> None:
        super().__init__()
        self.clock, self.per_object = [0.0], per_object
        self.ends: dict[int, float] = {}
        self.polls: list[int] = []

    def request(self, method: str, url: str, **kw: Any) -> Answer:
        answer = super().request(method, url, **kw)
        if method == "POST":
            self.ends[len(self.jobs)] = self.clock[0] + self.per_object * len(json.loads(kw["json"]["data"]["items"]))
        elif kw.get("params"):
            job = int(url.rstrip("/").rsplit("/", 1)[1])
            self.polls.append(job)
            if self.clock[0] < self.ends[job]:
                return Answer(200, {"id": job, "status": {"value": "running"}})
        return answer


def test_a_kinds_next_job_is_first_polled_near_when_the_last_ones_rate_says_it_ends(monkeypatch):
    monkeypatch.setattr(nbscript, "BATCH", 1000)
    server = TimedServer(per_object=0.25)   # 1,000 cables: 250 s a job
    def sleep(s: float) -> None:
        server.clock[0] += s

    runner = nbscript.Runner(Api(server), lambda _m: None, sleep=sleep, clock=lambda: server.clock[0])
    ids = runner.create("cables", [{"n": i} for i in range(3000)], lambda _n: None)
    assert ids == list(range(100, 3100))
    first, later = server.polls.count(1), [server.polls.count(j) for j in (2, 3)]
    # the first job polls every POLL_MAX seconds past its start (about 55 polls); the next ones sleep 90 % of
    # the last job's time first, then poll every 2 % of it (5 s): a handful each, and at most POLL_MAX late
    assert first > 40 and max(later) <= 7
    assert server.clock[0] < 3 * (250 + nbscript.POLL_MAX)


@pytest.mark.parametrize("module", [7, {"id": 7}])
def test_an_installed_script_of_another_version_is_replaced_in_its_module(module):
    """NetBox 4.7's script record names its module by id (``"module": 7``): a POST of the same file name is
    refused ("already exists"), so the upload replaces module 7."""
    server = Server()
    nbscript.install(Api(server), {"id": 1, "module": module, "description": "clusterbom bulk create, version 1"})
    assert server.calls == [("PUT", "http://netbox.invalid/api/extras/scripts/upload/7/")]
    server.calls.clear()
    nbscript.install(Api(server), None)
    assert server.calls == [("POST", "http://netbox.invalid/api/extras/scripts/upload/")]


class Endpoint:
    def __init__(self) -> None:
        self.posts: list[Any] = []

    def create(self, chunk: Any) -> Any:
        self.posts.append(chunk)
        return [type("R", (), {"id": i})() for i in range(len(chunk))]


class FakeRunner:
    def __init__(self) -> None:
        self.kinds: list[tuple[str, int]] = []

    def create(self, kind: str, payloads: list[dict[str, Any]], done: Any) -> list[int]:
        self.kinds.append((kind, len(payloads)))
        done(len(payloads))
        return list(range(len(payloads)))


def test_the_pusher_sends_many_objects_through_the_script_and_a_few_by_list_post():
    runner, ep = FakeRunner(), Endpoint()
    p = Pusher(None, Inventory(scenario="s"), [], script=runner)  # type: ignore[arg-type]
    assert p._create("cables", ep, [{}] * nbscript.MIN_OBJECTS) == list(range(nbscript.MIN_OBJECTS))
    assert p._create("sites", ep, [{}] * 2) == [0, 1]
    assert runner.kinds == [("cables", nbscript.MIN_OBJECTS)] and len(ep.posts) == 1
    assert p.r.path is None   # given a runner, not a choice: the push sets the path when it chooses
    assert p.r.created == {"cables": nbscript.MIN_OBJECTS, "sites": 2}


def test_the_path_is_chosen_once_when_a_kind_first_has_enough_objects():
    asked: list[int] = []
    runner, ep = FakeRunner(), Endpoint()
    p = Pusher(None, Inventory(scenario="s"), [], choose=lambda: asked.append(1) or runner)  # type: ignore[arg-type]
    p._create("sites", ep, [{}] * 2)
    assert asked == [] and p.r.path is None   # a few objects: list POSTs, the offer not read
    p._create("cables", ep, [{}] * nbscript.MIN_OBJECTS)
    p._create("modules", ep, [{}] * nbscript.MIN_OBJECTS)
    assert asked == [1] and p.r.path == "script" and [k for k, _ in runner.kinds] == ["cables", "modules"]
    q = Pusher(None, Inventory(scenario="s"), [], choose=lambda: None)  # type: ignore[arg-type]
    q._create("cables", ep, [{}] * nbscript.MIN_OBJECTS)
    assert q.r.path == "list" and len(ep.posts) == 2


def _refused(status: int, text: str) -> Exception:
    import pynetbox
    import requests

    resp = requests.Response()
    resp.status_code, resp._content, resp.url = status, text.encode(), "http://netbox.invalid/api/dcim/modules/"
    resp.request = requests.Request("POST", resp.url).prepare()
    return pynetbox.RequestError(resp)


class Deadlocking(Endpoint):
    """Aborted to break a deadlock ``times`` times, then answers."""

    def __init__(self, times: int, text: str = '{"error": "deadlock detected\\nDETAIL: Process 1 waits"}') -> None:
        super().__init__()
        self.times, self.text = times, text

    def create(self, chunk: Any) -> Any:
        if self.times:
            self.times -= 1
            raise _refused(500, self.text)
        return super().create(chunk)


def test_a_batch_postgresql_aborted_to_break_a_deadlock_is_sent_again(monkeypatch):
    from bom.netbox import push as pu

    monkeypatch.setattr(pu.time, "sleep", lambda _s: None)
    said: list[str] = []
    p = Pusher(None, Inventory(scenario="s"), [], say=said.append)  # type: ignore[arg-type]
    ep = Deadlocking(times=2)
    assert p._create("modules", ep, [{}] * 3) == [0, 1, 2]
    assert sum("deadlock" in m for m in said) == 2 and p.r.created == {"modules": 3}
    with pytest.raises(BomError):   # not a deadlock: refused at once, never sent again
        Pusher(None, Inventory(scenario="s"), [])._create(  # type: ignore[arg-type]
            "modules", Deadlocking(times=1, text='{"error": "boom"}'), [{}])
    with pytest.raises(BomError):   # a deadlock every time: refused after DEADLOCK_TRIES
        Pusher(None, Inventory(scenario="s"), [])._create(  # type: ignore[arg-type]
            "modules", Deadlocking(times=pu.DEADLOCK_TRIES), [{}])


class Looking:
    """NetBox answering the script's read with ``status``."""

    base_url, token, clusterbom_rq_workers = "http://netbox.invalid/api", "nbt_a.b", 1

    def __init__(self, status: int, body: Any = None) -> None:
        self.http_session = self
        self.status, self.body = status, body

    def request(self, method: str, url: str, **kw: Any) -> Answer:
        return Answer(self.status, self.body)


@pytest.mark.parametrize(("status", "body", "why"), [
    (404, {"detail": "Not found."}, "not installed"),
    (403, {"detail": "no"}, "may not read"),
    (200, {"id": 3, "description": "clusterbom bulk create, version 0", "is_executable": True}, "version 0"),
])
def test_what_the_server_offers_is_read_from_the_script_and_auto_falls_back(status, body, why):
    offer, _ = nbscript.offer(Looking(status, body))
    how, said = nbscript.choose("auto", offer)
    assert how == "list" and why in said


def test_a_current_runnable_script_with_a_worker_is_taken():
    body = {"id": 3, "description": f"clusterbom bulk create, version {nbscript.VERSION}", "is_executable": True}
    offer, rec = nbscript.offer(Looking(200, body))
    assert offer == WHOLE and rec == body and nbscript.choose("auto", offer)[0] == "script"
