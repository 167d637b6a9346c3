"""The plan against what NetBox holds now: devices, rack positions, cables and the transceivers in
the devices' module bays that are missing, extra or different, so an install team can follow progress against the plan.

Scope: the scenario's sites (``<scenario>-s1`` ...). The cables of a missing device are counted
under the device, not listed again one by one (NetBox keeps such a cable with the one end it has
left; a push puts the other end back on the recreated device).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bom.netbox.client import request_error
from bom.netbox.push import plan_objects
from bom.netbox.records import id_of, int_of, name_of, value_of

if TYPE_CHECKING:
    from bom.catalog.rows import Catalog
    from bom.model.model import Model

End = tuple[str, str]   # (device, interface)


@dataclass
class Diff:
    missing_devices: list[str] = field(default_factory=list)
    extra_devices: list[str] = field(default_factory=list)
    moved_devices: list[str] = field(default_factory=list)       # other rack, U or type
    missing_cables: list[str] = field(default_factory=list)
    extra_cables: list[str] = field(default_factory=list)
    different_cables: list[str] = field(default_factory=list)
    missing_modules: list[str] = field(default_factory=list)     # a transceiver the plan puts in a bay
    extra_modules: list[str] = field(default_factory=list)
    different_modules: list[str] = field(default_factory=list)   # another part in the bay
    cables_of_missing: int = 0
    modules_of_missing: int = 0
    plan_devices: int = 0
    plan_cables: int = 0
    plan_modules: int = 0

    @property
    def match(self) -> bool:
        return not (self.missing_devices or self.extra_devices or self.moved_devices or self.missing_cables
                    or self.extra_cables or self.different_cables or self.missing_modules or self.extra_modules
                    or self.different_modules)

    def lines(self, limit: int = 200) -> list[str]:
        out = []
        for title, items in (("missing device", self.missing_devices), ("extra device", self.extra_devices),
                             ("different device", self.moved_devices), ("missing cable", self.missing_cables),
                             ("extra cable", self.extra_cables), ("different cable", self.different_cables),
                             ("missing module", self.missing_modules), ("extra module", self.extra_modules),
                             ("different module", self.different_modules)):
            out += [f"{title}: {x}" for x in items[:limit]]
            if len(items) > limit:
                out.append(f"... and {len(items) - limit:,} more of '{title}'")
        if self.cables_of_missing:
            out.append(f"({self.cables_of_missing:,} cables of the missing devices are missing with them)")
        if self.modules_of_missing:
            out.append(f"({self.modules_of_missing:,} transceivers of the missing devices are missing with them)")
        ok_d = self.plan_devices - len(self.missing_devices) - len(self.moved_devices)
        ok_c = self.plan_cables - len(self.missing_cables) - len(self.different_cables) - self.cables_of_missing
        ok_m = (self.plan_modules - len(self.missing_modules) - len(self.different_modules)
                - self.modules_of_missing)
        out.append(f"{ok_d:,} of {self.plan_devices:,} devices, {ok_c:,} of {self.plan_cables:,} cables and "
                   f"{ok_m:,} of {self.plan_modules:,} transceivers match the plan"
                   + ("; NetBox matches the plan" if self.match else ""))
        return out

    def to_json(self) -> dict[str, object]:
        return {"match": self.match, "missing_devices": self.missing_devices, "extra_devices": self.extra_devices,
                "different_devices": self.moved_devices, "missing_cables": self.missing_cables,
                "extra_cables": self.extra_cables, "different_cables": self.different_cables,
                "missing_modules": self.missing_modules, "extra_modules": self.extra_modules,
                "different_modules": self.different_modules,
                "cables_of_missing_devices": self.cables_of_missing,
                "modules_of_missing_devices": self.modules_of_missing,
                "plan_devices": self.plan_devices, "plan_cables": self.plan_cables, "plan_modules": self.plan_modules}


def _ends(terms: Any) -> list[End]:
    out = []
    for t in terms or []:
        obj = t.get("object") if isinstance(t, dict) else getattr(t, "object", None)
        if obj is None:
            continue
        dev = obj.get("device") if isinstance(obj, dict) else getattr(obj, "device", None)
        name = obj.get("name") if isinstance(obj, dict) else getattr(obj, "name", None)
        out.append((str(name_of(dev) if not isinstance(dev, dict) else dev.get("name")), str(name)))
    return out


def _cable_text(a: End, b: End) -> str:
    return f"{a[0]}:{a[1]} - {b[0]}:{b[1]}"


def diff(nb: Any, model: Model, catalog: Catalog | None) -> Diff:
    import pynetbox  # lazy: the optional netbox extra
    import requests  # lazy: the optional netbox extra

    inv, cables = plan_objects(model, catalog)
    d = Diff(plan_devices=len(inv.devices), plan_cables=len(cables), plan_modules=len(inv.modules))
    try:
        sites = {s.name: int(s.id) for s in nb.dcim.sites.filter(name=inv.sites)} if inv.sites else {}
        ids = list(sites.values())
        # Comprehensions, not list(): list() sizes itself by the listing's len(), which is the count
        # NetBox says (10^9 from a broken or hostile server is a MemoryError before a page is read);
        # the pages themselves are bounded (client.MAX_PAGES, MAX_OBJECTS).
        have_dev = [o for o in nb.dcim.devices.filter(site_id=ids)] if ids else []
        have_cab = [o for o in nb.dcim.cables.filter(site_id=ids)] if ids else []
        have_mod = [o for o in nb.dcim.modules.filter(site_id=ids, fields="id,device,module_bay,module_type")] \
            if ids else []
    except (pynetbox.RequestError, pynetbox.ContentError, requests.exceptions.RequestException) as exc:
        raise request_error(exc, "a read") from None
    by_name = {(id_of(o.site), o.name): o for o in have_dev}
    plan_names = set()
    missing: set[str] = set()
    for dv in inv.devices:
        at = (sites.get(dv.site), dv.name)
        plan_names.add(at)
        o = by_name.get(at)
        if o is None:
            d.missing_devices.append(dv.name)
            missing.add(dv.name)
            continue
        got = (name_of(o.device_type), name_of(o.rack), int_of(o.position))
        want = (dv.device_type, dv.rack, dv.position)
        if got != want:
            d.moved_devices.append(f"{dv.name}: NetBox has {got[0]} in rack {got[1] or '-'} at U {got[2] or '-'}, "
                                   f"the plan {want[0]} in rack {want[1] or '-'} at U {want[2] or '-'}")
    d.extra_devices = sorted(o.name for k, o in by_name.items() if k not in plan_names)
    plan_cab = {c.key: c for c in cables}
    by_end = {e: k for k in plan_cab for e in k}
    seen = set()
    for o in have_cab:
        a, b = _ends(o.a_terminations), _ends(o.b_terminations)
        if len(a) + len(b) == 1 and (a + b)[0] in by_end:
            # a cable left with one end (NetBox keeps it when the device at the other end is deleted)
            key = by_end[(a + b)[0]]
            other = key[1] if key[0] == (a + b)[0] else key[0]
            if other[0] not in missing:
                seen.add(key)
                d.different_cables.append(f"{_cable_text(*key)}: NetBox has only the end at {(a + b)[0][0]}")
            continue
        if len(a) != 1 or len(b) != 1:
            ends = "; ".join(_cable_text(x, y) for x in a for y in b) or "one end only"
            d.extra_cables.append(f"cable {o.id} ({ends})")
            continue
        key = (a[0], b[0]) if a[0] <= b[0] else (b[0], a[0])
        c = plan_cab.get(key)
        if c is None:
            d.extra_cables.append(_cable_text(a[0], b[0]))
            continue
        seen.add(key)
        got_t, got_l = value_of(o.type) or "", None if o.length is None else round(float(o.length), 2)
        if got_t != c.type or got_l != c.length:
            d.different_cables.append(f"{_cable_text(*key)}: NetBox has {got_t or '-'} {got_l or '-'} m, "
                                      f"the plan {c.type} {c.length:g} m")
    for key in plan_cab:
        if key in seen:
            continue
        if key[0][0] in missing or key[1][0] in missing:
            d.cables_of_missing += 1
        else:
            d.missing_cables.append(_cable_text(*key))
    _modules(d, inv.modules, have_mod, missing, {dv.name for dv in inv.devices})
    return d


def _modules(d: Diff, plan: dict[End, str], have: list[Any], missing: set[str], planned: set[str]) -> None:
    """The transceiver in each module bay against the plan's part; a missing device's are counted with it, an
    extra device's go with it."""
    got = {(name_of(o.device), name_of(o.module_bay)): name_of(o.module_type) for o in have}
    for (device, bay), part in plan.items():
        there = got.get((device, bay))
        if device in missing:
            d.modules_of_missing += 1
        elif there is None:
            d.missing_modules.append(f"{device} {bay}: {part}")
        elif there != part:
            d.different_modules.append(f"{device} {bay}: NetBox has {there}, the plan {part}")
    d.extra_modules = sorted(f"{dev} {bay}: {part}" for (dev, bay), part in got.items()
                              if (dev, bay) not in plan and dev in planned)
