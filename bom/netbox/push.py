"""Pushing the plan into NetBox through its REST API: what is missing is created in list POSTs
(batched), what is there already is matched by name (by both ends for cables), never created twice.

Order and safety: everything that can refuse the push (a device type that exists with other
interfaces) is checked before anything is created. A device type clusterbom made for another
scenario gets the interface templates this plan adds (its existing devices keep theirs; this
plan's devices get every interface they need). Each list POST is one transaction in NetBox,
so an interrupted push leaves whole batches; the next push matches them and creates the rest
(device types it created get their missing interface templates, devices their missing
interfaces). What exists but differs from the plan (a device in another rack, an interface
cabled elsewhere, a module bay holding another part than the plan's) is reported, never changed.

Transceivers go in as NetBox modules (the export's convention): a module type per part number with
the Transceiver profile, a module bay template per cage on the device types (made before the
devices, which get their bays from them), and one planned module per cage in its bay.

``workers`` list POSTs may be in flight at once (``--workers``); batches still land whole, and after a
refused one no other starts. It helps only where NetBox serves requests in parallel (several
gunicorn workers and a database with cores to spare): the cost of a cable is NetBox's own save and
path tracing, not HTTP (benchmarks/bench_netbox_paths.py).
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bom.errors import BomError
from bom.netbox import choices
from bom.netbox import script as nbscript
from bom.netbox.client import POOL, release_of, request_error
from bom.netbox.inventory import (
    ROLE_COLOURS,
    TRANSCEIVER_PROFILE,
    Cable,
    Inventory,
    bay_fields,
    collect,
    mgmt_only,
    slug,
)
from bom.netbox.records import id_of, int_of, name_of, value_of
from bom.outputs.terminal import table

if TYPE_CHECKING:
    from bom.catalog.rows import Catalog
    from bom.model.model import Model

#: Objects per list POST: a cable takes NetBox about 0.25 s, so a batch is about a minute.
BATCH = 250
#: Kinds whose list POST must be smaller: one POST is one request to one gunicorn worker, killed past its
#: timeout (NetBox's contrib/gunicorn.py: 120 s) with its transaction. A device with its components takes
#: NetBox 0.39-0.64 s (benchmarks/bench_netbox_orm.py, load 11): 250 of them 100-160 s, 50 of them 20-32 s.
BATCH_CAP = {"devices": 50}
#: List POSTs in flight at once (``--workers``), and the most the HTTP session's connection pool holds.
#: 4: the fastest measured (benchmarks/bench_netbox_paths.py: 0.259 s per cable against 0.319 with one).
WORKERS = 4
MAX_WORKERS = POOL
#: Tries of a list POST that PostgreSQL aborted to break a deadlock: with several in flight on a NetBox
#: of several processes (gunicorn), two batches of modules or cables lock rows of the same devices in
#: other orders (measured: modules of one pod, 5 in flight). The aborted batch was one transaction,
#: rolled back whole, so sending it again never makes anything twice.
DEADLOCK_TRIES = 4
KINDS = ("tags", "sites", "locations", "racks", "manufacturers", "device roles", "device types",
         "interface templates", "module bay templates", "module types", "devices", "interfaces", "module bays",
         "modules", "cables", "cable ends")


@dataclass
class Result:
    created: Counter[str] = field(default_factory=Counter)
    matched: Counter[str] = field(default_factory=Counter)
    differs: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    dry_run: bool = False
    #: how the push created its kinds of nbscript.MIN_OBJECTS or more: "list" (list POSTs) or "script"
    #: (bom/netbox/script.py); None when it created none (the server's offer is then never read)
    path: str | None = None

    def differ(self, kind: str, note: str) -> None:
        self.differs[kind] += 1
        if len(self.notes) < 50:
            self.notes.append(f"{kind}: {note}")

    def summary(self) -> str:
        verb = "would create" if self.dry_run else "created"
        rows = [[k, f"{self.created[k]:,}", f"{self.matched[k]:,}", f"{self.differs[k]:,}"]
                for k in KINDS if self.created[k] or self.matched[k] or self.differs[k]]
        out = [table(["object", verb, "already matched", "differs"], rows, [False, True, True, True])]
        out += [f"differs: {n}" for n in self.notes]
        if self.differs and sum(self.differs.values()) > len(self.notes):
            out.append(f"... and {sum(self.differs.values()) - len(self.notes):,} more that differ")
        if not sum(self.created.values()):
            out.append("nothing created: NetBox already holds every object of the plan"
                       + (" (some differ, listed above)" if self.differs else ""))
        return "\n".join(out)

    def to_json(self) -> dict[str, object]:
        return {"dry_run": self.dry_run, "path": self.path, "created": dict(self.created),
                "matched": dict(self.matched), "differs": dict(self.differs), "notes": self.notes,
                "seconds": {k: round(v, 2) for k, v in self.seconds.items()}}


@dataclass(frozen=True)
class Existing:
    """A device type NetBox holds: the record, its interface templates (name -> type) and module bay templates."""

    record: Any
    interfaces: dict[str, str]
    bays: set[str]


class _Ids:
    """NetBox ids of the plan's objects; in a dry run, made-up negative ids for what would be created."""

    def __init__(self) -> None:
        self.next_fake = -1

    def fake(self) -> int:
        self.next_fake -= 1
        return self.next_fake


class Pusher:
    def __init__(self, nb: Any, inv: Inventory, cables: list[Cable], *, dry_run: bool = False, batch: int = BATCH,
                 workers: int = WORKERS, say: Callable[[str], None] | None = None,
                 script: nbscript.Runner | None = None,
                 choose: Callable[[], nbscript.Runner | None] | None = None) -> None:
        self.nb, self.inv, self.cables, self.dry, self.batch = nb, inv, cables, dry_run, max(1, batch)
        self.workers = min(max(1, workers), MAX_WORKERS)
        self.r = Result(dry_run=dry_run)
        self.ids = _Ids()
        self.say = say or (lambda _m: None)
        self.tag_ref: list[Any] = []
        # the server-side path (bom/netbox/script.py), chosen when a kind first has enough objects for it
        self.script = script
        self.choose = choose

    # -- helpers ------------------------------------------------------------------------------------
    def _create(self, kind: str, endpoint: Any, payloads: list[dict[str, Any]]) -> list[int]:
        """Create ``payloads`` in list POSTs of ``batch``, ``workers`` of them in flight at once; their ids in
        order (made up in a dry run). After a refused POST no other starts; those in flight finish, so
        NetBox holds whole batches (each list POST is one transaction) and the count says how many."""
        if not payloads:
            return []
        self.r.created[kind] += len(payloads)
        if self.dry:
            return [self.ids.fake() for _ in payloads]
        if len(payloads) >= nbscript.MIN_OBJECTS and self._runner() is not None:
            return self._by_script(kind, payloads)
        import pynetbox  # lazy: the optional netbox extra
        import requests  # lazy: the optional netbox extra

        errors = (pynetbox.RequestError, pynetbox.ContentError, requests.exceptions.RequestException)
        size = min(self.batch, BATCH_CAP.get(kind, self.batch))
        chunks = [payloads[i:i + size] for i in range(0, len(payloads), size)]
        made: list[list[int] | None] = [None] * len(chunks)
        failed: Exception | None = None
        done_n = 0
        t0 = time.perf_counter()

        def post(chunk: list[dict[str, Any]]) -> list[int]:
            for attempt in range(1, DEADLOCK_TRIES + 1):
                try:
                    got = endpoint.create(chunk if size > 1 else chunk[0])
                    return [m.id for m in (got if isinstance(got, list) else [got])]
                except pynetbox.RequestError as exc:
                    if attempt == DEADLOCK_TRIES or not deadlocked(exc):
                        raise
                    self.say(f"{kind}: PostgreSQL broke a deadlock between two list POSTs; sending the batch again")
                    time.sleep(0.5 * attempt)
            raise AssertionError("unreachable")

        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            queue = iter(range(len(chunks)))
            flight: dict[Future[list[int]], int] = {}

            def start() -> None:
                k = next(queue, None)
                if k is not None:
                    flight[pool.submit(post, chunks[k])] = k

            for _ in range(self.workers):
                start()
            while flight:
                finished, _ = wait(flight, return_when=FIRST_COMPLETED)
                for f in finished:
                    k = flight.pop(f)
                    try:
                        made[k] = f.result()
                    except errors as exc:
                        failed = failed or exc
                        continue
                    done_n += len(made[k] or [])
                    self.say(f"{kind}: {done_n:,} of {len(payloads):,} created")
                    if failed is None:
                        start()
        self.r.seconds[kind] += time.perf_counter() - t0
        if failed is not None:
            self.r.created[kind] -= len(payloads) - done_n
            raise request_error(failed, f"creating {kind}") from None
        return [i for ids in made for i in ids or []]

    def _runner(self) -> nbscript.Runner | None:
        if self.choose is not None:
            self.script, self.choose = self.choose(), None
            self.r.path = "script" if self.script is not None else "list"
        return self.script

    def _by_script(self, kind: str, payloads: list[dict[str, Any]]) -> list[int]:
        """``payloads`` through the server's script, a job of nbscript.BATCH at a time: each job one
        transaction, so NetBox holds whole jobs and the count says how many."""
        assert self.script is not None
        done = [0]

        def progress(n: int) -> None:
            done[0] += n
            self.say(f"{kind}: {done[0]:,} of {len(payloads):,} created (NetBox's RQ worker)")

        t0 = time.perf_counter()
        try:
            return self.script.create(kind, payloads, progress)
        except BomError:
            self.r.created[kind] -= len(payloads) - done[0]
            raise
        finally:
            self.r.seconds[kind] += time.perf_counter() - t0

    def _read(self, endpoint: Any, **filters: Any) -> list[Any]:
        import pynetbox  # lazy: the optional netbox extra
        import requests  # lazy: the optional netbox extra

        if any(isinstance(v, list) and not v for v in filters.values()):
            return []
        try:
            # not list(): it sizes itself by the count NetBox says, 10^9 from a broken server a MemoryError
            return [o for o in endpoint.filter(**filters)]
        except (pynetbox.RequestError, pynetbox.ContentError, requests.exceptions.RequestException) as exc:
            raise request_error(exc, "a read") from None

    # -- the push -------------------------------------------------------------------------------------
    def run(self) -> Result:
        nb, inv = self.nb, self.inv
        dtypes = self.check_device_types()          # may refuse: before anything is created
        tag = self.tag()
        self.tag_ref = [tag] if tag > 0 else []
        sites = self.simple("sites", nb.dcim.sites, "name", inv.sites,
                            lambda s: {"name": s, "slug": slug(s), "status": choices.STATUS})
        site_ids = [i for i in sites.values() if i > 0]
        locs = self.scoped("locations", nb.dcim.locations, site_ids, sites, inv.locations,
                           lambda s, r: {"name": r, "slug": slug(r), "site": sites[s], "status": choices.STATUS})
        racks = self.scoped("racks", nb.dcim.racks, site_ids, sites, [(r.site, r.name) for r in inv.racks],
                            lambda s, n: self._rack(n, sites, locs))
        makers = self.simple("manufacturers", nb.dcim.manufacturers, "name", inv.manufacturers,
                             lambda m: {"name": m, "slug": slug(m)})
        roles = self.simple("device roles", nb.dcim.device_roles, "name", inv.roles,
                            lambda r: {"name": r, "slug": slug(r), "color": ROLE_COLOURS.get(r, "9e9e9e")})
        types = self.device_types(dtypes, makers)
        mtypes = self.module_types(makers)
        devices = self.devices(site_ids, sites, locs, racks, roles, types)
        ifaces = self.interfaces(site_ids, devices)
        self.modules(site_ids, devices, self.module_bays(site_ids, devices), mtypes)
        self.push_cables(sites, devices, ifaces)
        return self.r

    def tag(self) -> int:
        found = self._read(self.nb.extras.tags, slug=slug(self.inv.tag))
        if found:
            self.r.matched["tags"] += 1
            return int(found[0].id)
        tag = {"name": self.inv.tag, "slug": slug(self.inv.tag), "color": "607d8b",
               "description": f"clusterbom scenario {self.inv.scenario}"}
        return self._create("tags", self.nb.extras.tags, [tag])[0]

    def _tagged(self, payload: dict[str, Any]) -> dict[str, Any]:
        if self.tag_ref:
            payload["tags"] = list(self.tag_ref)
        return payload

    def simple(self, kind: str, endpoint: Any, key: str, wanted: Iterable[str],
               make: Callable[[str], dict[str, Any]]) -> dict[str, int]:
        """Objects unique by one field (sites, manufacturers, roles)."""
        wanted = list(wanted)
        have = {getattr(o, key): int(o.id) for o in self._read(endpoint, **{key: wanted})}
        out = {}
        todo = []
        for w in wanted:
            if w in have:
                out[w] = have[w]
                self.r.matched[kind] += 1
            else:
                todo.append(w)
        for w, i in zip(todo, self._create(kind, endpoint, [self._tagged(make(w)) for w in todo]), strict=False):
            out[w] = i
        return out

    def scoped(self, kind: str, endpoint: Any, site_ids: list[int], sites: dict[str, int],
               wanted: list[tuple[str, str]], make: Callable[[str, str], dict[str, Any]]) -> dict[tuple[str, str], int]:
        """Objects unique by name within their site (locations, racks)."""
        have = {(id_of(o.site), o.name): o for o in self._read(endpoint, site_id=site_ids)}
        out: dict[tuple[str, str], int] = {}
        todo = []
        for s, n in wanted:
            o = have.get((sites[s], n))
            if o is not None:
                out[(s, n)] = int(o.id)
                self.r.matched[kind] += 1
            else:
                todo.append((s, n))
        for w, i in zip(todo, self._create(kind, endpoint, [self._tagged(make(*w)) for w in todo]), strict=False):
            out[w] = i
        return out

    def _rack(self, name: str, sites: dict[str, int], locs: dict[tuple[str, str], int]) -> dict[str, Any]:
        r = next(r for r in self.inv.racks if r.name == name)
        return {"name": r.name, "site": sites[r.site], "location": locs[(r.site, r.location)],
                "status": choices.STATUS, "u_height": r.u_height, "width": 19}

    # -- device types ---------------------------------------------------------------------------------
    def check_device_types(self) -> dict[str, Existing]:
        """Existing device types of the plan's models, their interface templates and module bay templates;
        refuses a type that has an interface of the plan's with another type, or lacks some interfaces or
        module bays and is not clusterbom's."""
        nb = self.nb
        models = list(self.inv.device_types)
        existing: dict[str, Existing] = {}
        for dt in self._read(nb.dcim.device_types, model=models):
            want = self.inv.device_types.get(dt.model)
            if want is None or name_of(dt.manufacturer) != want.manufacturer:
                continue
            tpl = {t.name: value_of(t.type) for t in self._read(nb.dcim.interface_templates, device_type_id=dt.id)}
            bays = {t.name for t in self._read(nb.dcim.module_bay_templates, device_type_id=dt.id)} \
                if want.module_bays else set()
            wrong = [f"{n} is {tpl[n]}, the plan needs {ty}" for n, ty in want.interfaces.items()
                     if n in tpl and tpl[n] != ty]
            missing = [n for n in want.interfaces if n not in tpl]
            no_bay = [b for b in want.module_bays if b not in bays]
            ours = self._by_clusterbom(dt)
            if wrong or ((missing or no_bay) and not ours):
                what = ("; ".join(wrong[:5]) if wrong else
                        f"it lacks {len(missing)} of them ({', '.join(missing[:6])})" if missing else
                        f"it lacks {len(no_bay)} of the module bays the plan's transceivers go in "
                        f"({', '.join(no_bay[:6])})")
                raise BomError(
                    f"device type {want.manufacturer} {dt.model} exists in NetBox with other interfaces than the "
                    f"plan's: {what}", key="netbox",
                    hint=f"Nothing was created. Give the type the plan's interfaces and module bays (bom netbox "
                         f"export writes them in 06-device-types.yaml), or delete or rename the device type "
                         f"{dt.model} in NetBox, then push again.")
            existing[dt.model] = Existing(dt, tpl, bays)
        return existing

    def _by_clusterbom(self, dt: Any) -> bool:
        """Whether a push or an import of clusterbom made the type (it carries a scenario's tag): its
        interface templates may then grow by the ones another scenario needs; a type of someone
        else's is never changed."""
        slugs = [getattr(t, "slug", t) for t in (dt.tags or [])]
        return any(str(t.description or "").startswith("clusterbom scenario ")
                   for t in self._read(self.nb.extras.tags, slug=slugs))

    def device_types(self, existing: dict[str, Existing], makers: dict[str, int]) -> dict[str, int]:
        nb = self.nb
        out: dict[str, int] = {}
        todo = []
        for model, t in self.inv.device_types.items():
            if model in existing:
                out[model] = int(existing[model].record.id)
                self.r.matched["device types"] += 1
            else:
                todo.append(t)
        payloads = [self._tagged({"manufacturer": makers[t.manufacturer], "model": t.model, "slug": t.slug,
                                  "u_height": t.u_height, **({"part_number": t.part_number} if t.part_number else {})})
                    for t in todo]
        for t, i in zip(todo, self._create("device types", nb.dcim.device_types, payloads), strict=False):
            out[t.model] = i
        tpls, bays = [], []
        none = Existing(None, {}, set())
        for model, t in self.inv.device_types.items():
            have = existing.get(model, none)
            for n, ty in t.interfaces.items():
                if n in have.interfaces:
                    self.r.matched["interface templates"] += 1
                else:
                    tpls.append({"device_type": out[model], "name": n, "type": ty, "mgmt_only": mgmt_only(n)})
            for b in t.module_bays:
                if b in have.bays:
                    self.r.matched["module bay templates"] += 1
                else:
                    bays.append({"device_type": out[model], **bay_fields(b)})
        self._create("interface templates", nb.dcim.interface_templates, tpls)
        # before the devices: a device gets its module bays from its type's templates when it is created
        self._create("module bay templates", nb.dcim.module_bay_templates, bays)
        return out

    def module_types(self, makers: dict[str, int]) -> dict[str, int]:
        """The transceivers' module types (by maker and part number), with NetBox's Transceiver profile and
        its attributes when NetBox has the profile."""
        nb = self.nb
        want = self.inv.module_types
        if not want:
            return {}
        have = {(name_of(o.manufacturer), o.model): int(o.id) for o in self._read(nb.dcim.module_types,
                                                                                  model=list(want))}
        out: dict[str, int] = {}
        todo = []
        for model, m in want.items():
            i = have.get((m.manufacturer, model))
            if i is None:
                todo.append(m)
            else:
                out[model] = i
                self.r.matched["module types"] += 1
        profile = None
        if todo:
            found = self._read(nb.dcim.module_type_profiles, name=TRANSCEIVER_PROFILE)
            profile = int(found[0].id) if found else None
        payloads = [self._tagged({"manufacturer": makers[m.manufacturer], "model": m.model, "part_number": m.model,
                                  **({"profile": profile, "attributes": m.attributes} if profile else {})})
                    for m in todo]
        for m, i in zip(todo, self._create("module types", nb.dcim.module_types, payloads), strict=False):
            out[m.model] = i
        return out

    # -- devices, interfaces, cables ------------------------------------------------------------------
    def devices(self, site_ids: list[int], sites: dict[str, int], locs: dict[tuple[str, str], int],
                racks: dict[tuple[str, str], int], roles: dict[str, int], types: dict[str, int]
                ) -> dict[tuple[str, str], int]:
        have = {(id_of(o.site), o.name): o for o in self._read(self.nb.dcim.devices, site_id=site_ids)}
        out: dict[tuple[str, str], int] = {}
        todo = []
        for d in self.inv.devices:
            o = have.get((sites[d.site], d.name))
            if o is None:
                todo.append(d)
                continue
            out[(d.site, d.name)] = int(o.id)
            self.r.matched["devices"] += 1
            got = (id_of(o.device_type), id_of(o.rack), int_of(o.position))
            if got != (types[d.device_type], racks.get((d.site, d.rack)), d.position):
                self.r.differ("devices", f"{d.name} is {name_of(o.device_type)} in rack {name_of(o.rack) or '-'} at U "
                                         f"{int_of(o.position) or '-'}; the plan has {d.device_type} in rack "
                                         f"{d.rack or '-'} at U {d.position or '-'}")
        payloads = []
        for d in todo:
            p: dict[str, Any] = {"name": d.name, "role": roles[d.role], "device_type": types[d.device_type],
                                 "site": sites[d.site], "status": choices.STATUS}
            if d.rack:
                p["rack"] = racks[(d.site, d.rack)]
                p["location"] = locs[(d.site, d.location)]
            if d.position is not None:
                p["position"] = d.position
                p["face"] = choices.FACE
            payloads.append(self._tagged(p))
        for d, i in zip(todo, self._create("devices", self.nb.dcim.devices, payloads), strict=False):
            out[(d.site, d.name)] = i
        return out

    def interfaces(self, site_ids: list[int], devices: dict[tuple[str, str], int]) -> dict[tuple[int, str], Any]:
        """Every interface of the plan's devices: (device id, name) -> (id, cable id or None)."""
        have: dict[tuple[int, str], Any] = {}
        for o in self._read(self.nb.dcim.interfaces, site_id=site_ids, fields="id,name,device,cable"):
            have[(id_of(o.device), o.name)] = (int(o.id), id_of(o.cable))
        types = self.inv.device_types
        missing = []
        for d in self.inv.devices:
            dev = devices[(d.site, d.name)]
            if dev < 0:
                continue   # a device a dry run would create: its interfaces come from its type
            for n, ty in types[d.device_type].interfaces.items():
                if (dev, n) in have:
                    continue
                missing.append((dev, n, ty))
        payloads = [{"device": dev, "name": n, "type": ty, "mgmt_only": mgmt_only(n)} for dev, n, ty in missing]
        ids = self._create("interfaces", self.nb.dcim.interfaces, payloads)
        for (dev, n, _), i in zip(missing, ids, strict=False):
            have[(dev, n)] = (i, None)
        return have

    def module_bays(self, site_ids: list[int], devices: dict[tuple[str, str], int]) -> dict[tuple[int, str], Any]:
        """The module bays of the plan's devices: (device id, bay) -> (id, installed module id or None).
        A device made before its type had the bay (a push of an older plan) gets it here."""
        have: dict[tuple[int, str], Any] = {}
        if not self.inv.modules:
            return have
        for o in self._read(self.nb.dcim.module_bays, site_id=site_ids, fields="id,name,device,installed_module"):
            have[(id_of(o.device), o.name)] = (int(o.id), id_of(o.installed_module))
        types = self.inv.device_types
        missing = []
        for d in self.inv.devices:
            dev = devices[(d.site, d.name)]
            if dev < 0:
                continue   # a device a dry run would create: its bays come from its type
            missing += [(dev, b) for b in types[d.device_type].module_bays if (dev, b) not in have]
        ids = self._create("module bays", self.nb.dcim.module_bays,
                           [{"device": dev, **bay_fields(b)} for dev, b in missing])
        for (dev, b), i in zip(missing, ids, strict=False):
            have[(dev, b)] = (i, None)
        return have

    def modules(self, site_ids: list[int], devices: dict[tuple[str, str], int], bays: dict[tuple[int, str], Any],
                mtypes: dict[str, int]) -> None:
        """The plan's transceiver in each module bay: created in an empty bay, matched by its module type in a
        full one, reported when the bay holds another part."""
        if not self.inv.modules:
            return
        site_of = {d.name: d.site for d in self.inv.devices}
        installed = {int(o.id): name_of(o.module_type)
                     for o in self._read(self.nb.dcim.modules, site_id=site_ids, fields="id,module_type")}
        payloads: list[dict[str, Any]] = []
        for (device, bay), part in self.inv.modules.items():
            dev = devices[(site_of[device], device)]
            b = bays.get((dev, bay))
            if dev < 0 or b is None or b[0] < 0:   # dry run: a device or bay to be created
                payloads.append({})
                continue
            if b[1] is None:
                # the ports are the device type's interfaces: the module records the part, and a module type of
                # someone else's with interface templates must not add interfaces that clash with them
                payloads.append(self._tagged({"device": dev, "module_bay": b[0], "module_type": mtypes[part],
                                              "status": choices.STATUS, "replicate_components": False}))
            elif installed.get(b[1]) == part:
                self.r.matched["modules"] += 1
            else:
                self.r.differ("modules", f"{device} {bay} holds {installed.get(b[1]) or 'another module'}; "
                                         f"the plan has {part}")
        self._create("modules", self.nb.dcim.modules, payloads)

    def push_cables(self, sites: dict[str, int], devices: dict[tuple[str, str], int],
                    ifaces: dict[tuple[int, str], Any]) -> None:
        payloads: list[dict[str, Any]] = []
        half: list[tuple[int, Any, Cable]] = []   # (cable id, the free end, plan cable)
        for c in self.cables:
            a_dev, b_dev = devices[(c.a_site, c.a_device)], devices[(c.b_site, c.b_device)]
            if a_dev < 0 or b_dev < 0:   # dry run: a device to be created, so is its cable
                payloads.append({})
                continue
            a, b = ifaces.get((a_dev, c.a_port)), ifaces.get((b_dev, c.b_port))
            if a is None or b is None:   # interfaces() made every one, so NetBox removed it meanwhile
                self.r.differ("cables", f"{c.a_device}:{c.a_port} - {c.b_device}:{c.b_port}: an interface is gone")
                continue
            if a[1] is None and b[1] is None:
                payloads.append(self._tagged({
                    "a_terminations": [{"object_type": "dcim.interface", "object_id": a[0]}],
                    "b_terminations": [{"object_type": "dcim.interface", "object_id": b[0]}],
                    "type": c.type, "status": choices.STATUS, "length": c.length, "length_unit": choices.LENGTH_UNIT,
                    "label": c.label, "description": c.description}))
            elif a[1] is not None and a[1] == b[1]:
                self.r.matched["cables"] += 1
            elif (a[1] is None) != (b[1] is None):
                half.append((a[1] or b[1], a if a[1] is None else b, c))
            else:
                self.r.differ("cables", f"{c.a_device}:{c.a_port} - {c.b_device}:{c.b_port}: "
                                        f"{'both ends are' if a[1] and b[1] else 'one end is'} cabled elsewhere")
        self._create("cables", self.nb.dcim.cables, payloads)
        self.complete(half)

    def complete(self, half: list[tuple[int, Any, Cable]]) -> None:
        """Cables left with one end (NetBox keeps them when the device at the other end is deleted): the
        plan's other end goes back on; a cable whose other side holds something else differs."""
        if not half:
            return
        import pynetbox  # lazy: the optional netbox extra
        import requests  # lazy: the optional netbox extra

        found = {int(o.id): o for o in self._read(self.nb.dcim.cables, id=[h[0] for h in half])}
        for cid, free, c in half:
            o = found.get(cid)
            sides = (list(o.a_terminations or []), list(o.b_terminations or [])) if o is not None else ([], [])
            if o is None or (sides[0] and sides[1]):
                self.r.differ("cables", f"{c.a_device}:{c.a_port} - {c.b_device}:{c.b_port}: one end is cabled "
                                        "elsewhere")
                continue
            self.r.created["cable ends"] += 1
            if self.dry:
                continue
            empty = "a_terminations" if not sides[0] else "b_terminations"
            try:
                o.update({empty: [{"object_type": "dcim.interface", "object_id": free[0]}]})
            except (pynetbox.RequestError, pynetbox.ContentError, requests.exceptions.RequestException) as exc:
                raise request_error(exc, "completing a cable") from None


def deadlocked(exc: Exception) -> bool:
    """Whether NetBox refused a request because PostgreSQL aborted its transaction to break a deadlock."""
    req = getattr(exc, "req", None)
    if req is None or getattr(req, "status_code", None) != 500:
        return False
    try:
        return "deadlock detected" in str(req.text)
    except (AttributeError, UnicodeDecodeError):
        return False


def plan_objects(model: Model, catalog: Catalog | None) -> tuple[Inventory, list[Cable]]:
    cables: list[Cable] = []
    inv = collect(model, catalog, cables.append)
    return inv, cables


def choose_path(nb: Any, path: str, install: bool, say: Callable[[str], None]) -> nbscript.Runner | None:
    """The script's runner when the server offers the script path (and ``path`` allows it), else None:
    list POSTs. With ``install`` the script is uploaded first when the server lacks this version."""
    if path == "list":
        return None
    offer, rec = nbscript.offer(nb)
    if install and offer.version != nbscript.VERSION:
        nbscript.install(nb, rec)
        offer, rec = nbscript.offer(nb)
    how, why = nbscript.choose(path, offer)
    say(f"push path: {why}")
    return nbscript.Runner(nb, say) if how == "script" else None


def push(nb: Any, model: Model, catalog: Catalog | None, *, dry_run: bool = False, batch: int = BATCH,
         workers: int = WORKERS, say: Callable[[str], None] | None = None, path: str = "list",
         install_script: bool = False) -> Result:
    """``path``: ``auto`` (the fastest the server offers), ``script`` or ``list`` (bom/netbox/script.py)."""
    inv, cables = plan_objects(model, catalog)
    inv.for_release(release_of(nb))   # InfiniBand 4X and 2X ports as the server's release names them
    def choose() -> nbscript.Runner | None:
        return choose_path(nb, path, install_script, say or (lambda _m: None))

    return Pusher(nb, inv, cables, dry_run=dry_run, batch=batch, workers=workers, say=say,
                  choose=None if dry_run else choose).run()
