"""The push's server-side path: a NetBox custom script that creates a list of objects in one job of
NetBox's RQ worker, as the REST API's list POST would, without HTTP per batch and without serializing
every created object back (the list POST answers with each object in full).

The script (:data:`SOURCE`, module ``clusterbom_bulk``, uploaded through ``/api/extras/scripts/upload/``
by :func:`install`) runs as the user whose token started it: NetBox's script job wraps it in its
change-logging context (``event_tracking``) and one transaction, so every object gets its change record
with that user and request id, and a failure rolls the whole job back. Permissions as the REST API
checks them: the model's ``add`` permission before anything is made, then the object permissions'
constraints on what was made (``restrict(user, "add")``, NetBox's ``_validate_objects``); each object is
validated by NetBox's own REST serializer for the model, so what the script accepts is what a list POST
accepts.

:func:`choose` picks the path from what the server offers: the script when it is installed at this
version, it may be run, and an RQ worker is running (``/api/status/``'s ``rq-workers-running``); else
list POSTs. The choice is a pure function, tested offline.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bom.errors import BomError, redact
from bom.netbox.client import describe, request_error

#: Bumped when SOURCE changes: a server holding another version gets this one (install) or is not used.
VERSION = "2"
MODULE = "clusterbom_bulk"
NAME = f"{MODULE}.BulkCreate"
#: The kinds the push creates and their models (``app_label.model``); the script refuses any other model.
MODELS = {
    "tags": "extras.tag", "sites": "dcim.site", "locations": "dcim.location", "racks": "dcim.rack",
    "manufacturers": "dcim.manufacturer", "device roles": "dcim.devicerole", "device types": "dcim.devicetype",
    "interface templates": "dcim.interfacetemplate", "module bay templates": "dcim.modulebaytemplate",
    "module types": "dcim.moduletype", "devices": "dcim.device", "interfaces": "dcim.interface",
    "module bays": "dcim.modulebay", "modules": "dcim.module", "cables": "dcim.cable",
}
#: Fewer objects than this go by list POST whatever the server offers: a job's round trip (queue, the
#: worker's fork, polling) is about a second, a list POST of a few small objects less.
MIN_OBJECTS = 50
#: Objects per job: one transaction each (a refused object rolls back its job only); about 1,000 cables
#: take NetBox a few minutes, well inside JOB_TIMEOUT.
BATCH = 1000
#: Seconds NetBox gives one job (the script's Meta.job_timeout); between polls of a running job, the first and
#: the longest: each poll is a request NetBox serves while the job runs (a job of 1,000 cables takes minutes),
#: so the wait grows by POLL_GROWTH up to POLL_MAX (at most POLL_MAX late, a few per cent of such a job).
JOB_TIMEOUT = 7200
POLL_S = 0.5
POLL_GROWTH = 1.5
POLL_MAX = 5.0
#: A job of a kind the runner has seen is first polled at this share of the time the last one took per object
#: (its jobs are alike: a batch of the same model), then every 2 % of that time (POLL_S to POLL_MAX): a few
#: polls a job instead of one every POLL_MAX seconds (each poll is a request NetBox serves; polls were 2 % of
#: a push's server CPU in benchmarks/bench_netbox_account.py).
FIRST_POLL_SHARE = 0.9
PATHS = ("auto", "script", "list")

SOURCE = '''"""clusterbom's bulk create (clusterbom VERSION __VERSION__): one list of objects of one model, created
as the REST API's list POST creates them, in this job's one transaction, as the user who ran it.
Uploaded by clusterbom (bom/netbox/script.py); replaced by a newer clusterbom's upload."""
import json

from django.apps import apps
from extras.scripts import Script, StringVar, TextVar
from netbox.api.serializers import BaseModelSerializer
from netbox.api.serializers.generic import GenericObjectSerializer
from rest_framework.serializers import ListSerializer
from utilities.api import get_serializer_for_model
from utilities.exceptions import AbortScript

MODELS = __MODELS__


def _nested(field):
    """The serializer that resolves one reference of this field, or None: a nested model serializer
    (by id), a list of them (tags), a list of generic references (a cable's terminations)."""
    one = field.child if isinstance(field, ListSerializer) else field
    if isinstance(one, GenericObjectSerializer) or (isinstance(one, BaseModelSerializer) and one.nested):
        return one
    return None


def _key(value):
    return json.dumps(value, sort_keys=True) if isinstance(value, dict) else value


def _refs(value):
    return value if isinstance(value, list) else [value]


def prefetch(child, items):
    """Resolve the batch's references once: every id a nested field names is read in one query per model
    (in_bulk, as the serializer's own get(pk=...) reads it), a generic reference's type once; each field
    then answers a repeated reference from its memo. What the memo lacks (a reference by attributes, an
    id that does not exist) goes to the serializer's own lookup, with its own errors."""
    for name, field in child.fields.items():
        one = _nested(field) if not field.read_only else None
        if one is None:
            continue
        memo = {}
        refs = [r for item in items if isinstance(item, dict) and item.get(name) is not None
                for r in _refs(item[name])]
        if isinstance(one, GenericObjectSerializer):
            by_type = {}
            for r in refs:
                if isinstance(r, dict) and isinstance(r.get("object_id"), int):
                    by_type.setdefault(str(r.get("object_type")), []).append(r["object_id"])
            for label, pks in by_type.items():
                try:
                    model = one.fields["object_type"].to_internal_value(label).model_class()
                except Exception:
                    continue   # the serializer says what is wrong with it
                for pk, obj in model.objects.in_bulk(pks).items():
                    memo[_key({"object_type": label, "object_id": pk})] = obj
        else:
            pks = {r for r in refs if isinstance(r, int) and not isinstance(r, bool)}
            memo.update(one.Meta.model.objects.all().in_bulk(pks))
        one.to_internal_value = _memoized(one.to_internal_value, memo)


def _memoized(resolve, memo):
    def to_internal_value(data):
        try:
            return memo[_key(data)]
        except (KeyError, TypeError):
            return resolve(data)
    return to_internal_value


def first_error(errors):
    """The first refused object's index and errors: DRF gives a list's errors as a list, NetBox 4.7 as a
    dict keyed by the index."""
    if isinstance(errors, dict) and errors and all(str(k).isdigit() for k in errors):
        return min((int(k), e) for k, e in errors.items())
    if isinstance(errors, list):
        return next(((i, e) for i, e in enumerate(errors) if e), (0, errors))
    return 0, errors


class BulkCreate(Script):
    class Meta:
        name = "BulkCreate"
        description = "clusterbom bulk create, version __VERSION__"
        job_timeout = __TIMEOUT__
        scheduling_enabled = False
        commit_default = True

    model_label = StringVar(description="app_label.model of the objects")
    items = TextVar(description="a JSON list of objects as the REST API's list POST takes them")
    run_id = StringVar(description="the caller's id of this run, given back with the ids")

    def run(self, data, commit):
        label = data["model_label"]
        if label not in MODELS:
            raise AbortScript(f"model {label!r} is not one clusterbom creates")
        model = apps.get_model(label)
        user = self.request.user
        perm = f"{model._meta.app_label}.add_{model._meta.model_name}"
        if not user.has_perm(perm):
            raise AbortScript(f"user {user} may not add {model._meta.verbose_name_plural} ({perm})")
        items = json.loads(data["items"])
        # many=True as the list POST does: the model serializer's fields are built once, not per object
        s = get_serializer_for_model(model)(data=items, many=True, context={"request": self.request})
        prefetch(s.child, items)
        if not s.is_valid():
            i, err = first_error(s.errors)
            raise AbortScript(f"object {i} of {len(items)}: {json.dumps(err)}")
        ids = [o.pk for o in s.save()]
        if model.objects.restrict(user, "add").filter(pk__in=ids).count() != len(ids):
            raise AbortScript(f"user {user}'s permissions do not allow some of these {model._meta.verbose_name_plural}")
        return json.dumps({"run": data["run_id"], "ids": ids})
'''


def source() -> str:
    return (SOURCE.replace("__VERSION__", VERSION).replace("__MODELS__", repr(sorted(MODELS.values())))
            .replace("__TIMEOUT__", str(JOB_TIMEOUT)))


@dataclass(frozen=True)
class Offer:
    """What the server offers the push: the script's installed version ('' when absent), whether the
    token's user may run it, and the RQ workers running."""

    version: str = ""
    runnable: bool = False
    rq_workers: int = 0
    visible: bool = True   # False: NetBox refused the token's user a look at its scripts (HTTP 403)


def choose(path: str, offer: Offer) -> tuple[str, str]:
    """The push's path, ``script`` or ``list``, and why. ``auto`` takes the script when the server offers it
    whole; ``script`` insists (a BomError saying what is missing); ``list`` never uses it."""
    missing = ("the token's user may not read NetBox's scripts" if not offer.visible else
               "the clusterbom_bulk script is not installed (bom netbox push --install-script uploads it)"
               if not offer.version else
               f"the installed clusterbom_bulk script is version {offer.version}, this clusterbom's is {VERSION} "
               "(--install-script replaces it)" if offer.version != VERSION else
               "the token's user may not run the script" if not offer.runnable else
               "no RQ worker is running (NetBox's rqworker runs scripts)" if offer.rq_workers < 1 else "")
    if path == "list":
        return "list", "list POSTs (--path list)"
    if not missing:
        return "script", f"the clusterbom_bulk script, run by NetBox's RQ worker ({offer.rq_workers} running)"
    if path == "script":
        raise BomError(f"--path script: {missing}", key="--path",
                       hint="Give --install-script (the token's user needs to add script modules), start NetBox's "
                            "RQ worker (netbox rqworker), or push with --path auto to fall back to list POSTs.")
    return "list", f"list POSTs: {missing}"


def version_of(description: str) -> str:
    head, _, v = (description or "").rpartition("version ")
    return v.strip() if head.startswith("clusterbom bulk create") else ""


def _url(nb: Any, path: str) -> str:
    return f"{nb.base_url.rstrip('/')}/{path.lstrip('/')}"


def _headers(nb: Any) -> dict[str, str]:
    token = str(nb.token or "")
    scheme = "Bearer" if token.startswith("nbt_") else "Token"
    return {"Authorization": f"{scheme} {token}", "Accept": "application/json"}


def _json(nb: Any, method: str, path: str, what: str, ok: tuple[int, ...] = (200, 201), **kw: Any) -> Any:
    resp = nb.http_session.request(method, _url(nb, path), headers=_headers(nb), **kw)
    if resp.status_code in (403, 404) and resp.status_code in ok:
        return resp.status_code   # refused a look, or absent: the caller's to read
    if resp.status_code not in ok:
        raise request_error(_RefusedError(resp), what)
    try:
        return resp.json()
    except ValueError:
        raise BomError(f"NetBox's answer to {what} is not JSON ({describe(resp)})", key="netbox",
                       hint="Is --url the NetBox address (not a proxy, a login page or another service)?") from None


class _RefusedError(Exception):
    """An answer that is not a success, as request_error reads pynetbox's errors (its .req)."""

    def __init__(self, resp: Any) -> None:
        super().__init__(resp.status_code)
        self.req = resp


def offer(nb: Any) -> tuple[Offer, Any]:
    """What this server offers, and the script's record (None when it is not installed)."""
    rec = _json(nb, "GET", f"extras/scripts/{NAME}/", "reading the clusterbom_bulk script", ok=(200, 403, 404))
    workers = int(getattr(nb, "clusterbom_rq_workers", 0) or 0)
    if rec == 403:   # the token's user may not see scripts
        return Offer(rq_workers=workers, visible=False), None
    if not isinstance(rec, dict):
        return Offer(rq_workers=workers), None
    return Offer(version_of(str(rec.get("description") or "")), bool(rec.get("is_executable")), workers), rec


def install(nb: Any, rec: Any = None) -> None:
    """Upload the script (or replace an installed one of another version) through the REST API."""
    files = {"file": (f"{MODULE}.py", source().encode(), "text/x-python")}
    module = rec.get("module") if isinstance(rec, dict) else None
    # NetBox 4.7 names the script's module by its id; a nested record ({"id": ...}) is read too
    module = module.get("id") if isinstance(module, dict) else module
    if isinstance(module, int) and not isinstance(module, bool) and module > 0:
        _json(nb, "PUT", f"extras/scripts/upload/{module}/", "replacing the clusterbom_bulk script", files=files)
    else:
        _json(nb, "POST", "extras/scripts/upload/", "uploading the clusterbom_bulk script", files=files)


class Runner:
    """Creates one kind's objects through the script, BATCH at a time, one job after another; their ids in order."""

    def __init__(self, nb: Any, say: Callable[[str], None], sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.nb, self.say, self.sleep, self.clock = nb, say, sleep, clock
        self.rate: dict[str, float] = {}   # kind -> seconds a job of it took per object, the last one

    def create(self, kind: str, payloads: list[dict[str, Any]], done: Callable[[int], None]) -> list[int]:
        ids: list[int] = []
        for i in range(0, len(payloads), BATCH):
            chunk = payloads[i:i + BATCH]
            got = self.job(kind, chunk)
            ids += got
            done(len(got))
        return ids

    def job(self, kind: str, chunk: list[dict[str, Any]]) -> list[int]:
        t0 = self.clock()
        ids = self._job(kind, chunk)
        self.rate[kind] = (self.clock() - t0) / max(1, len(chunk))
        return ids

    def _job(self, kind: str, chunk: list[dict[str, Any]]) -> list[int]:
        run_id = uuid.uuid4().hex
        body = {"data": {"model_label": MODELS[kind], "items": json.dumps(chunk), "run_id": run_id}, "commit": True}
        started = _json(self.nb, "POST", f"extras/scripts/{NAME}/", f"starting the script for {kind}", json=body)
        job = (started or {}).get("result") or {}
        if not isinstance(job, dict) or not job.get("id"):
            raise BomError(f"NetBox's answer to starting the script for {kind} names no job", key="netbox",
                           hint="Push with --path list (list POSTs), and check NetBox's RQ worker.")
        return self.wait(kind, int(job["id"]), run_id, len(chunk))

    def wait(self, kind: str, job_id: int, run_id: str, n: int) -> list[int]:
        what, delay = f"reading the script's job for {kind}", POLL_S
        if kind in self.rate:   # first poll near when the job should end, then every 2 % of its time
            expected = self.rate[kind] * n
            self.sleep(max(POLL_S, FIRST_POLL_SHARE * expected))
            delay = min(POLL_MAX, max(POLL_S, expected / 50))
        # polls ask for the status alone (NetBox's ?fields=); the job's data (log, output) is read once, at the end
        while _status(_json(self.nb, "GET", f"core/jobs/{job_id}/", what, params={"fields": "id,status"})) not in DONE:
            self.sleep(delay)
            delay = min(delay * POLL_GROWTH, POLL_MAX)
        job = _json(self.nb, "GET", f"core/jobs/{job_id}/", what)
        status = _status(job)
        data = job.get("data") or {}
        out = _output(data.get("output") if isinstance(data, dict) else None)
        if status != "completed" or out is None:
            raise BomError(f"NetBox's script refused creating {n:,} {kind} (job {job_id}, {status}): "
                           f"{_failure(data)}", key="netbox",
                           hint="Nothing of this batch was made (one transaction). What was created before stays; "
                                "fix the cause and push again to finish.")
        if out.get("run") != run_id or len(out.get("ids") or []) != n:
            raise BomError(f"NetBox's job {job_id} for {kind} is another run of the script (started at the same "
                           "time by someone else)", key="netbox",
                           hint="Push again: what exists is matched, never created twice.")
        return [int(i) for i in out["ids"]]


DONE = ("completed", "errored", "failed")


def _status(job: Any) -> str:
    return str((job.get("status") or {}).get("value", job.get("status")) if isinstance(job, dict) else "")


def _output(text: Any) -> dict[str, Any] | None:
    try:
        out = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None
    return out if isinstance(out, dict) else None


def _failure(data: Any) -> str:
    log = data.get("log") if isinstance(data, dict) else None
    msgs = [str(e.get("message", "")) for e in log or [] if isinstance(e, dict) and e.get("status") == "failure"]
    return " ".join(redact(" ".join(msgs) or "no message").split())[:600]
