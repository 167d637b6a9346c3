"""A NetBox of our own on 127.0.0.1 (stdlib http.server in a thread) that the hostile tests make
misbehave: slow, HTML, 409, 429 with Retry-After, looping or foreign ``next`` links, error bodies
that echo the request's headers. Healthy, it keeps objects in memory and answers the REST calls
``bom netbox push`` and ``diff`` make (list GETs with filters and pagination, list POSTs), enough
to push a small plan, fail half way and push again."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from bom.netbox import choices

#: Fields of a POSTed object that name another object, and the store they name.
REFS = {"site": "dcim/sites", "location": "dcim/locations", "rack": "dcim/racks", "role": "dcim/device-roles",
        "manufacturer": "dcim/manufacturers", "device_type": "dcim/device-types", "device": "dcim/devices",
        "module_type": "dcim/module-types", "module_bay": "dcim/module-bays"}
CHOICES = ("type", "status", "face", "length_unit")
PAGE = 50
#: Fields NetBox gives every object of a kind, set or not.
DEFAULTS: dict[str, dict[str, Any]] = {"dcim/interfaces": {"cable": None},
                                       "dcim/cables": {"length": None, "type": None},
                                       "dcim/devices": {"rack": None, "position": None, "location": None},
                                       "dcim/device-types": {"tags": []}, "extras/tags": {"description": ""},
                                       "dcim/module-bays": {"installed_module": None}}


@dataclass
class Call:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any
    at: float = field(default_factory=time.monotonic)


@dataclass
class Drip:
    """A body sent a byte at a time, ``every`` seconds apart (each read is quick, the whole is not)."""

    data: bytes
    every: float


#: A hook sees each call first: it returns None (answer as NetBox would) or (status, headers, body).
Hook = Callable[[Call, "FakeNetBox"], "tuple[int, dict[str, str], bytes | str] | None"]


@dataclass
class FakeNetBox:
    hook: Hook | None = None
    store: dict[str, dict[int, dict[str, Any]]] = field(default_factory=dict)
    calls: list[Call] = field(default_factory=list)
    next_id: int = 1
    url: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    # -- objects ------------------------------------------------------------------------------------
    def _ref(self, kind: str, oid: Any) -> Any:
        if not isinstance(oid, int):
            return oid
        o = self.store.get(kind, {}).get(oid, {})
        out = {"id": oid}
        for k in ("name", "model", "slug"):
            if k in o:
                out[k] = o[k]
        if kind == "dcim/devices":
            out["name"] = o.get("name")
        return out

    def create(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        obj: dict[str, Any] = {"id": self.next_id}
        self.next_id += 1
        for k, v in payload.items():
            if k in REFS:
                obj[k] = self._ref(REFS[k], v)
            elif k in CHOICES:
                obj[k] = {"value": v, "label": v}
            elif k == "tags":
                obj[k] = [self._ref("extras/tags", t) for t in v]
            elif k in ("a_terminations", "b_terminations"):
                obj[k] = []
                for t in v:
                    i = self.store["dcim/interfaces"][t["object_id"]]
                    i["cable"] = {"id": obj["id"]}
                    obj[k].append({**t, "object": {"id": i["id"], "name": i["name"], "device": i["device"]}})
            else:
                obj[k] = v
        for k, v in DEFAULTS.get(kind, {}).items():
            obj.setdefault(k, v)
        if kind == "dcim/modules":   # NetBox fills the bay
            self.store["dcim/module-bays"][payload["module_bay"]]["installed_module"] = {"id": obj["id"]}
        self.store.setdefault(kind, {})[obj["id"]] = obj
        return obj

    def matches(self, obj: dict[str, Any], query: dict[str, list[str]]) -> bool:
        for k, values in query.items():
            if k in ("limit", "offset", "fields", "brief", "ordering"):
                continue
            if k.endswith("_id") and k != "object_id":
                got = obj.get(k[:-3])
                got = got.get("id") if isinstance(got, dict) else got
            else:
                got = obj.get(k)
            if isinstance(got, dict):
                got = got.get("value", got.get("name"))
            if str(got) not in values:
                return False
        return True

    def listing(self, call: Call) -> dict[str, Any]:
        kind = call.path.removeprefix("/api/").strip("/")
        objs = [o for o in self.store.get(kind, {}).values() if self.matches(o, call.query)]
        if kind in ("dcim/interfaces", "dcim/module-bays", "dcim/modules") and "site_id" in call.query:
            sites = call.query["site_id"]
            devs = self.store.get("dcim/devices", {})
            objs = [o for o in self.store.get(kind, {}).values()
                    if str(devs[o["device"]["id"]]["site"]["id"]) in sites]
        if kind == "dcim/cables" and "site_id" in call.query:
            objs = list(self.store.get(kind, {}).values())
        limit = int(call.query.get("limit", [PAGE])[0]) or 1000
        offset = int(call.query.get("offset", ["0"])[0])
        page = objs[offset:offset + limit]
        nxt = None
        if offset + limit < len(objs):
            q = {k: v for k, v in call.query.items() if k not in ("limit", "offset")}
            q["limit"], q["offset"] = [str(limit)], [str(offset + limit)]
            nxt = self.url + call.path + "?" + "&".join(f"{k}={x}" for k, v in q.items() for x in v)
        return {"count": len(objs), "next": nxt, "previous": None, "results": page}

    def answer(self, call: Call) -> tuple[int, dict[str, str], bytes | str]:
        if self.hook is not None:
            got = self.hook(call, self)
            if got is not None:
                return got
        if call.path == "/api/status/":
            return 200, {}, json.dumps({"netbox-version": choices.TESTED_VERSION})
        kind = call.path.removeprefix("/api/").strip("/")
        if call.method == "GET":
            return 200, {}, json.dumps(self.listing(call))
        if call.method == "POST":
            with self.lock:
                items = call.body if isinstance(call.body, list) else [call.body]
                made = [self.create(kind, p) for p in items]
            return 201, {}, json.dumps(made if isinstance(call.body, list) else made[0])
        return 405, {}, json.dumps({"detail": "not here"})

    def objects(self, kind: str) -> list[dict[str, Any]]:
        return list(self.store.get(kind, {}).values())


def serve(fake: FakeNetBox) -> tuple[ThreadingHTTPServer, str]:
    """Start ``fake`` on a free port of 127.0.0.1; the caller shuts the server down."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_args: Any) -> None:
            pass

        def _do(self) -> None:
            u = urlsplit(self.path)
            size = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(size) if size else b""
            body = json.loads(raw) if raw else None
            call = Call(self.command, u.path, parse_qs(u.query), dict(self.headers.items()), body)
            fake.calls.append(call)
            status, headers, data = fake.answer(call)
            drip = data if isinstance(data, Drip) else None
            data = drip.data if drip else data.encode() if isinstance(data, str) else data
            try:
                self.send_response(status)
                headers = {"Content-Type": "application/json", **headers}
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if drip is None:
                    self.wfile.write(data)
                for i in range(len(data) if drip else 0):
                    self.wfile.write(data[i:i + 1])
                    self.wfile.flush()
                    time.sleep(drip.every)
            except (BrokenPipeError, ConnectionResetError):
                pass   # the client gave up (a timeout test)

        do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _do   # noqa: N815 - http.server's names

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    return server, fake.url
