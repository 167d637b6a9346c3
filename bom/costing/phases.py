"""The build-out in phases: what each phase buys, what it re-cables, and what each growth policy costs.

A scenario's ``phases`` list its size at each step (``bom/inputs/scenario.py: Phase``). Two policies
(``fabrics.<name>.growth``), both computed so the outputs set them side by side:

- ``reserve``: the final design is bought in order. Each row of the final cable plan is in service
  from the phase its later end arrives: a node when its site's first nodes up to its place are in
  service (the phase's own design says how many nodes each site has then), a switch that takes nodes
  with its first node, any other device (spines, cores, routers, UFM, management) with its site.
  A line of the final BOM is in service in the share of its driver then in service, rounded up to
  whole units: a link part the share of the rows that carry it (a panel: of its hop's rows), a switch
  the share of its layer's devices, routers, storage, UFM and management servers the share of theirs,
  a GPU system the share of the GPUs, a rack or PDU the share of the racks. This is exact where a
  line's quantity goes with its driver (a module per port, a cable per row) and an apportionment where
  it does not (a cage shared by ports of two phases, a bundle: by their rows, rounded up).
  No installed row is ever taken out (``recabled`` over the in-service rows is 0, which the tests check).
- ``rebuild``: each phase is the design built for its own size (``build_model``). What is held is,
  per part number, the most any phase so far has installed; a phase orders what it holds beyond the
  phase before, and what it holds and does not install is made spare. The links a phase re-cables
  are the earlier design's links whose rows (fabric, hop, both devices and ports, as each design
  names them) the later design does not have, each priced at the TCO's ``install_link`` labour.

Spares (bom/costing/order.py) are apart: the phase orders add up to the final build's installed
quantities per part number under ``reserve``, and to at least them under ``rebuild``.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bom.cableplan.rows import COL, PlacementLocator, Unplaced, rows
from bom.costing.categories import Category, LineTier, asset_class
from bom.costing.lines import Line, all_lines
from bom.costing.order import lead_time_of, quoted
from bom.costing.schedule import Arrival, LateDate, PhaseSchedule, phase_schedule, site_racks, whole_days
from bom.costing.tco import BASIS_NAME, CLASSES, capital_recovery_factor, inputs, levelised
from bom.model.records import PlanRow
from bom.names import switch_role
from bom.roles import SWITCH_LAYERS, FabricRole, Layer, Tier

#: A plan row's link: (fabric, hop, device and port at each end).
LinkKey = tuple[str, ...]

if TYPE_CHECKING:
    from bom.catalog.rows import Catalog
    from bom.inputs.scenario import FabricSpec, Phase
    from bom.model.model import Model

POLICIES = ("reserve", "rebuild")
#: BOM lines bought with the GPUs (the share of GPUs in service).
WITH_GPUS = (LineTier.COMPUTE, Tier.SCALE_UP)
#: Facility lines bought with the racks (the share of racks in service); other facility lines
#: (storage, UFM, management servers) are their site's from its first phase.
WITH_RACKS = ("racks", Layer.PDU)
DAYS_PER_YEAR = 365.0


# --- the result ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Item:
    """One part number a phase orders (or makes spare): its quantity and unit price."""

    fabric: str
    sku: str
    catalog_id: str
    description: str
    category: str
    unit: str
    quantity: float
    unit_price_usd: float

    @property
    def extended_usd(self) -> float:
        return self.quantity * self.unit_price_usd

    def to_json(self) -> dict[str, object]:
        q = int(self.quantity) if self.unit == "each" else round(self.quantity, 6)
        return {"sku": self.sku, "catalog_id": self.catalog_id, "description": self.description,
                "category": self.category, "fabric": self.fabric, "quantity": q, "unit": self.unit,
                "unit_price_usd": self.unit_price_usd, "extended_usd": round(self.extended_usd, 2)}


@dataclass(frozen=True)
class PhaseResult:
    name: str
    date: dt.date
    gpus: int                       # in service once the phase is
    sites: int
    policy: str
    order: list[Item]               # bought in this phase
    made_spare: list[Item]          # held after this phase and not installed (rebuild)
    recabled_links: int             # links of the phase before that this phase moves
    recabling_usd: float
    installation_usd: float = 0.0   # its share of the final build's installation (the links it brings)
    schedule: PhaseSchedule | None = None   # its critical path: the day it can be in service against its date

    @property
    def capex_usd(self) -> float:
        """The hardware bought in the phase, its installation and its re-cabling labour."""
        return sum(i.extended_usd for i in self.order) + self.installation_usd + self.recabling_usd

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "date": self.date.isoformat(), "gpus": self.gpus, "sites": self.sites,
                "policy": self.policy, "capex_usd": round(self.capex_usd, 2),
                "order": [i.to_json() for i in self.order], "made_spare": [i.to_json() for i in self.made_spare],
                "recabled_links": self.recabled_links, "recabling_usd": round(self.recabling_usd, 2),
                "installation_usd": round(self.installation_usd, 2),
                "schedule": self.schedule.to_json() if self.schedule is not None else None}


@dataclass(frozen=True)
class Growth:
    """One policy over every phase, and what it costs over the TCO period."""

    policy: str                     # reserve | rebuild | mixed (the scenario's growth per fabric)
    phases: list[PhaseResult]
    installation_usd: float         # the final build's installation (links and racks), shared by the phases
    opex_per_year_usd: float        # the final build's, scaled by the share of GPU-hours in service
    years: float
    gpu_hours: float                # each phase's GPUs worked from its date to the end of the period
    capex_pv_usd: float = 0.0       # each phase's capex discounted to the first phase's date
    levelised_usd_per_gpu_hour: float = 0.0   # the one basis (bom.costing.tco.GPU_HOUR_BASIS)

    @property
    def capex_usd(self) -> float:
        return sum(p.capex_usd for p in self.phases)

    @property
    def recabling_usd(self) -> float:
        return sum(p.recabling_usd for p in self.phases)

    @property
    def tco_usd(self) -> float:
        return self.capex_usd + self.opex_per_year_usd * self.years

    @property
    def usd_per_gpu_hour(self) -> float:
        """On the one basis every cost per GPU-hour takes: levelised."""
        return self.levelised_usd_per_gpu_hour

    @property
    def undiscounted_usd_per_gpu_hour(self) -> float:
        """The other basis (bom.costing.tco.OTHER_BASIS): the TCO over the GPU-hours worked."""
        return self.tco_usd / self.gpu_hours if self.gpu_hours else 0.0

    def ordered(self) -> dict[str, float]:
        """Every phase's order added up per part number."""
        out: dict[str, float] = defaultdict(float)
        for p in self.phases:
            for i in p.order:
                out[i.sku] += i.quantity
        return dict(out)

    def to_json(self) -> dict[str, object]:
        return {"policy": self.policy, "capex_usd": round(self.capex_usd, 2),
                "recabling_usd": round(self.recabling_usd, 2), "installation_usd": round(self.installation_usd, 2),
                "recabled_links": sum(p.recabled_links for p in self.phases),
                "tco_usd": round(self.tco_usd, 2), "gpu_hours": round(self.gpu_hours, 2),
                "usd_per_gpu_hour": round(self.usd_per_gpu_hour, 6),
                "undiscounted_usd_per_gpu_hour": round(self.undiscounted_usd_per_gpu_hour, 6),
                "capex_pv_usd": round(self.capex_pv_usd, 2)}


@dataclass(frozen=True)
class Charges:
    """What the levelised basis takes from the TCO: each asset class's life, the installation's link
    share, the cost of capital, the deployment ramp's share in service and a yearly charge from day 1."""

    lives: dict[str, float]         # life_<class> [years]
    rate: float                     # the cost of capital
    link_share: float = 1.0         # of the installation, the links' (network); the rest the racks' (facility)
    in_service: float = 1.0         # the TCO's service share (the deployment ramp)
    fixed_per_year: float = 0.0     # from day 1: a built facility's yearly charge (for the final load), the spares'

    def per_year(self, phase: PhaseResult) -> float:
        """The phase's capital charge per year: its capex by asset class x the capital recovery factor."""
        cap = dict.fromkeys(CLASSES, 0.0)
        for i in phase.order:
            cap[asset_class(i.category)] += i.extended_usd
        cap["network"] += phase.installation_usd * self.link_share + phase.recabling_usd
        cap["facility"] += phase.installation_usd * (1.0 - self.link_share)
        return sum(v * capital_recovery_factor(self.rate, self.lives[c]) for c, v in cap.items())


@dataclass(frozen=True)
class Phases:
    """The scenario's growth (each fabric by its ``growth``) and both policies side by side."""

    chosen: Growth
    policies: dict[str, Growth]
    plan_phase: PlanPhase = field(repr=False)   # each row of the final plan's phase

    def to_json(self) -> list[dict[str, object]]:
        return [p.to_json() for p in self.chosen.phases]

    @property
    def late(self) -> list[LateDate]:
        """The phases (under the scenario's growth) dated before their parts can arrive, be installed and
        burnt in."""
        out = [p.schedule.problem(k) for k, p in enumerate(self.chosen.phases) if p.schedule is not None]
        return [x for x in out if x is not None]

    def policies_json(self) -> dict[str, object]:
        return {"chosen": self.chosen.to_json(), **{k: g.to_json() for k, g in self.policies.items()},
                "usd_per_gpu_hour_basis": BASIS_NAME}


# --- which phase each row and device of the final design is in service from ----------------------

class RowPhases:
    """The phase (0-based) each device and row of the final design is in service from (reserve)."""

    def __init__(self, model: Model, site_nodes: Sequence[Sequence[int]], site_phase: Sequence[int],
                 catalog: Catalog) -> None:
        """``site_nodes[k][s]``: nodes of site s+1 in service in phase k; ``site_phase[s]``: the first
        phase site s+1 is in service."""
        self.model, self.catalog = model, catalog
        self.site_phase = list(site_phase)
        loc = PlacementLocator(model.placement) if model.placement is not None else Unplaced()
        self.device: dict[str, int] = {}
        for s, final in enumerate(site_nodes[-1]):
            for i in range(final):
                k = next(k for k, counts in enumerate(site_nodes) if i < counts[s])
                self.device[loc.where(Layer.NODE, s + 1, i)[4]] = k
        # A device that takes nodes comes with its first node; the others with their site.
        self.nodes = set(self.device)
        c = COL
        ad, bd, ar, br = c["a_device"], c["b_device"], c["a_role"], c["b_role"]
        for r in rows(model, catalog=catalog):
            for dev, other, role in ((r[ad], r[bd], r[br]), (r[bd], r[ad], r[ar])):
                if dev in self.nodes and role != Layer.NODE:
                    k = self.device[dev]
                    if self.device.get(other, k + 1) > k:
                        self.device[other] = k

    def of_device(self, device: str, site: str) -> int:
        if device in self.device:
            return self.device[device]
        s = int(site[1:]) if site[1:].isdigit() else 1
        return self.site_phase[s - 1] if s <= len(self.site_phase) else 0

    def of_row(self, r: PlanRow) -> int:
        c = COL
        return max(self.of_device(str(r[c["a_device"]]), str(r[c["a_site"]])),
                   self.of_device(str(r[c["b_device"]]), str(r[c["b_site"]])))

    def plan(self) -> Iterator[tuple[int, PlanRow]]:
        """Every row of the final plan with its phase."""
        for r in rows(self.model, catalog=self.catalog):
            yield self.of_row(r), r


# --- reserve: the final design's lines shared out over the phases ------------------------------

def _cumulative(counts: dict[int, int], phases: int) -> list[float]:
    """Share in service at each phase of a driver counted per phase it arrives in."""
    total = sum(counts.values())
    out, seen = [], 0
    for k in range(phases):
        seen += counts.get(k, 0)
        out.append(seen / total if total else 1.0)
    return out


def reserve_in_service(final: Model, lines: Sequence[Line], rp: RowPhases, gpus: Sequence[int]
                       ) -> list[list[float]]:
    """Per line of the final build, its quantity in service at each phase."""
    c = COL

    n = len(gpus)
    hop_rows: dict[tuple[str, str], dict[int, int]] = defaultdict(lambda: defaultdict(int))
    part_rows: dict[tuple[str, str, str], dict[int, int]] = defaultdict(lambda: defaultdict(int))
    role_devices: dict[str, dict[str, int]] = defaultdict(dict)
    racks: dict[str, int] = {}
    parts = (c["a_module"], c["b_module"], c["cable_part"])
    for k, r in rp.plan():
        fabric, hop = str(r[c["fabric"]]), str(r[c["hop"]])
        hop_rows[fabric, hop][k] += 1
        for part in {r[i] for i in parts if r[i]}:
            part_rows[fabric, hop, str(part)][k] += 1
            part_rows[fabric, "", str(part)][k] += 1   # a line that names another hop (the fibre pairs')
        for side in ("a", "b"):
            dev, role, rack = str(r[c[f"{side}_device"]]), str(r[c[f"{side}_role"]]), str(r[c[f"{side}_rack"]])
            d = rp.of_device(dev, str(r[c[f"{side}_site"]]))
            role_devices[role][dev] = min(d, role_devices[role].get(dev, d))
            if rack:
                racks[rack] = min(d, racks.get(rack, d))
    by_gpus = [g / gpus[-1] for g in gpus]
    rack_counts: dict[int, int] = defaultdict(int)
    for k in racks.values():
        rack_counts[k] += 1
    rack_counts[0] += max(0, final.racks - len(racks))   # racks no row reaches stand from day 1
    by_racks = _cumulative(rack_counts, n)

    def by_devices(role: str) -> list[float]:
        counts: dict[int, int] = defaultdict(int)
        for k in role_devices[role].values():
            counts[k] += 1
        return _cumulative(counts, n)

    out = []
    for line in lines:
        if line.tier in WITH_GPUS:
            share = by_gpus
        elif line.fabric in WITH_RACKS:
            share = by_racks
        elif line.category in SWITCHES and line.hop in SWITCH_LAYERS:   # a switch line's hop: its layer
            share = by_devices(switch_role(line.fabric, line.hop))
        elif (line.fabric, line.hop, line.sku) in part_rows:   # the rows that carry the part
            share = _cumulative(part_rows[line.fabric, line.hop, line.sku], n)
        elif (line.fabric, "", line.sku) in part_rows:
            share = _cumulative(part_rows[line.fabric, "", line.sku], n)
        elif (line.fabric, line.hop) in hop_rows:              # a panel or breakout on the hop's runs
            share = _cumulative(hop_rows[line.fabric, line.hop], n)
        elif line.hop in role_devices:                         # routers, storage, UFM, management servers
            share = by_devices(line.hop)
        else:                                                  # nothing places it: day 1
            share = [1.0] * n
        out.append(_rounded(line.quantity, share, line.unit == "each"))
    return out


#: Switch lines whose hop is their layer (the DCI's own border leaves are DCI switches at its leaf layer).
SWITCHES = (Category.SWITCH, Category.DCI_SWITCH)


def _rounded(quantity: float, share: Sequence[float], whole: bool) -> list[float]:
    """The quantity in service at each phase: its share rounded up to whole units, all of it at the last."""
    got = [math.ceil(quantity * s - 1e-9) if whole else quantity * s for s in share]
    got[-1] = quantity
    return [min(g, quantity) for g in got]


# --- rebuild: each phase's own design -----------------------------------------------------------

def row_keys(model: Model, catalog: Catalog, keep: Iterable[int] | None = None,
             rp: RowPhases | None = None) -> dict[LinkKey, str]:
    """The plan's rows as (fabric, hop, both devices and ports) -> link id; with ``rp`` and ``keep``
    only the rows in service in the phases kept."""
    c = COL
    wanted = set(keep) if keep is not None else None
    out: dict[LinkKey, str] = {}
    for r in rows(model, catalog=catalog):
        if wanted is not None and rp is not None and rp.of_row(r) not in wanted:
            continue
        out[r[c["fabric"]], r[c["hop"]], r[c["a_device"]], r[c["a_port"]], r[c["b_device"]],
            r[c["b_port"]]] = str(r[c["link_id"]])
    return out


def installation_shares(installation_usd: float, in_service: Sequence[dict[LinkKey, str]]) -> list[float]:
    """Each phase's share of the final build's installation: the links of the final plan it puts in
    service (rows by link id), so the phases' capex adds up to the build's and day 1 carries its own
    labour.

    >>> installation_shares(100.0, [{("a",): "1"}, {("a",): "1", ("b",): "2", ("c",): "2"}])
    [50.0, 50.0]
    """
    counts = [len(set(keys.values())) for keys in in_service]
    total = counts[-1] if counts else 0
    if not total:
        return [installation_usd if k == 0 else 0.0 for k in range(len(counts))]
    return [installation_usd * (counts[k] - (counts[k - 1] if k else 0)) / total for k in range(len(counts))]


def recabled(before: dict[LinkKey, str], after: dict[LinkKey, str]) -> int:
    """Links of ``before`` with a row ``after`` does not have: they are taken out or moved."""
    return len({lid for key, lid in before.items() if key not in after})


# --- the policies ------------------------------------------------------------------------------

def _key(line: Line) -> tuple[str, str]:
    return line.fabric, line.sku


def _items(qty: dict[tuple[str, str], float], ref: dict[tuple[str, str], Line]) -> list[Item]:
    out = []
    for key, q in sorted(qty.items()):
        if q > 1e-9:
            x = ref[key]
            out.append(Item(x.fabric, x.sku, x.catalog_id, x.description, str(x.category), x.unit, q,
                            x.unit_price_usd))
    return out


def _lines(model: Model, catalog: Catalog) -> list[Line]:
    return [quoted(x, catalog) for x in all_lines(model, catalog)]


def _always(policy: str) -> Callable[[str], str]:
    """Every fabric grows by ``policy``."""
    return lambda _fabric: policy


def growth_of(fabrics: dict[str, FabricSpec]) -> Callable[[str], str]:
    """A line's fabric -> its growth: a scenario fabric's own, any other line's (the GPUs, racks,
    DCI, storage appliances) the compute fabric's."""
    def pick(fabric: str) -> str:
        spec = fabrics.get(fabric) or fabrics.get(FabricRole.COMPUTE)
        return spec.growth if spec is not None else "reserve"
    return pick


def _arrivals(items: Sequence[Item], catalog: Catalog, order_date: dt.date) -> list[Arrival]:
    """A phase's order as deliveries: each part number's lead time (bom/costing/order.py) from its order date."""
    out: dict[str, Arrival] = {}
    for i in items:
        if i.sku in out:
            continue
        lead = lead_time_of(i.sku, i.catalog_id, catalog)
        out[i.sku] = Arrival(i.sku, i.catalog_id, i.category, i.description, lead.days, lead.low, lead.high,
                             lead.estimate, lead.source,
                             order_date + dt.timedelta(days=whole_days(lead.days)) if lead.days is not None else None)
    return list(out.values())


def added_racks(models: Sequence[Model], sites: int) -> list[list[int]]:
    """Per phase, the racks it adds at each site of the final build (its own design against the one before)."""
    out, before = [], [0] * sites
    for m in models:
        now = site_racks(m) + [0] * (sites - m.cluster.site_count)
        out.append([max(0, a - b) for a, b in zip(now, before, strict=True)])
        before = [max(a, b) for a, b in zip(now, before, strict=True)]
    return out


def grow(phases: Sequence[Phase], models: Sequence[Model], catalog: Catalog, rp: RowPhases,
         install_link_usd: float, installation_usd: float, opex_per_year_usd: float, years: float,
         hours: float, utilisation: float, discount_rate: float = 0.0, order_date: dt.date | None = None,
         charges: Charges | None = None) -> Phases:
    """Both policies and the scenario's (each fabric by its ``growth``) over the phases. Each phase's
    order, from its ``order_date`` (else ``order_date``, else the scenario's, else the day it is priced
    for), gives the day it can be in service (bom/costing/schedule.py); a phase dated earlier earns from
    that day. ``charges``: the TCO's terms for the levelised cost per GPU-hour."""
    final = models[-1]
    sc = final.scenario
    placed = order_date or sc.order_date or sc.date or dt.date.today()
    v = {k: float(i.value) for k, i in inputs(sc.tco).items() if not isinstance(i.value, str)}
    racks = added_racks(models, final.cluster.site_count)
    fabrics = final.scenario.fabric_specs
    n = len(phases)
    gpus = [m.cluster.gpus for m in models]
    sites = [m.cluster.site_count for m in models]
    # reserve: the final lines' quantities in service at each phase
    final_lines = _lines(final, catalog)
    in_service = reserve_in_service(final, final_lines, rp, gpus)
    res_q: list[dict[tuple[str, str], float]] = [defaultdict(float) for _ in range(n)]
    ref: dict[tuple[str, str], Line] = {}
    for line, qs in zip(final_lines, in_service, strict=True):
        ref.setdefault(_key(line), line)
        for k in range(n):
            res_q[k][_key(line)] += qs[k]
    # rebuild: each phase's own lines
    reb_q: list[dict[tuple[str, str], float]] = []
    for m in models:
        q: dict[tuple[str, str], float] = defaultdict(float)
        for line in (final_lines if m is final else _lines(m, catalog)):
            ref.setdefault(_key(line), line)
            q[_key(line)] += line.quantity
        reb_q.append(q)
    reserve_keys = [row_keys(final, catalog, range(k + 1), rp) for k in range(n)]
    rebuild_keys = [row_keys(m, catalog) for m in models]
    install = installation_shares(installation_usd, reserve_keys)

    def policy(name: str, pick: Callable[[str], str]) -> Growth:
        held: dict[tuple[str, str], float] = defaultdict(float)
        out = []
        for k, ph in enumerate(phases):
            installed = {key: (res_q if pick(key[0]) == "reserve" else reb_q)[k].get(key, 0.0) for key in ref}
            now = {key: max(held[key], installed[key]) for key in ref}
            order = {key: now[key] - held[key] for key in ref}
            spare = {key: now[key] - installed[key] for key in ref}
            links = 0
            if k:
                # the links of the phase before that this one takes out or moves, fabric by fabric
                for fab in {key[0] for key in rebuild_keys[k]} | {key[0] for key in reserve_keys[k]}:
                    keys = rebuild_keys if pick(str(fab)) == "rebuild" else reserve_keys
                    links += recabled({x: v for x, v in keys[k - 1].items() if x[0] == fab},
                                      {x: v for x, v in keys[k].items() if x[0] == fab})
            bought = _items(order, ref)
            when = ph.order_date or placed
            plan = phase_schedule(ph.name, when, ph.date, _arrivals(bought, catalog, when), racks[k][:sites[k]],
                                  v["install_racks_per_day"], v["burn_in_days"])
            out.append(PhaseResult(ph.name, ph.date, gpus[k], sites[k], name, bought, _items(spare, ref),
                                   links, links * install_link_usd, install[k], plan))
            held = defaultdict(float, now)
        start = phases[0].date
        # A phase earns from its date, or from the day its parts allow when that is later (never earlier).
        earns = [p.schedule.earns_from if p.schedule is not None else p.date for p in out]
        worked = sum((gpus[k] - (gpus[k - 1] if k else 0)) * hours * utilisation
                     * max(0.0, years - (earns[k] - start).days / DAYS_PER_YEAR) for k in range(n))
        full = gpus[-1] * hours * utilisation * years
        # Buying early costs the capital: each phase's capex at its date, discounted to the first's.
        pv = sum(p.capex_usd / (1.0 + discount_rate) ** ((p.date - start).days / DAYS_PER_YEAR)
                                    for p in out)
        return Growth(name, out, installation_usd, opex_per_year_usd * (worked / full if full else 0.0), years,
                      worked, pv, _levelised(out, gpus, earns, opex_per_year_usd, years, hours * utilisation,
                                             charges or Charges(dict.fromkeys(CLASSES, years), discount_rate)))

    policies = {p: policy(p, _always(p)) for p in POLICIES}
    chosen_of = growth_of(fabrics)
    used = {chosen_of(f) for f in [*fabrics, FabricRole.COMPUTE]}
    chosen = policies[used.pop()] if len(used) == 1 else policy("mixed", chosen_of)
    return Phases(chosen, policies, PlanPhase([p.name for p in phases], rp, chosen_of, rebuild_keys))


def _levelised(out: Sequence[PhaseResult], gpus: Sequence[int], earns: Sequence[dt.date], opex: float,
               years: float, hours: float, ch: Charges) -> float:
    """The phases' cost per GPU-hour on the levelised basis: each phase's capital charge from its date, its
    GPUs' share of the final build's opex and their GPU-hours from the day they earn (``earns``)."""
    start = out[0].date
    steps = [(0.0, ch.fixed_per_year, 0.0)]
    for k, p in enumerate(out):
        added = gpus[k] - (gpus[k - 1] if k else 0)
        steps.append(((p.date - start).days / DAYS_PER_YEAR, ch.per_year(p), 0.0))
        steps.append(((earns[k] - start).days / DAYS_PER_YEAR, opex * added / gpus[-1],
                      added * hours * ch.in_service))
    return levelised(steps, ch.rate, years)


# --- the final plan's rows by phase (bom cables --phase) -----------------------------------------

class PlanPhase:
    """The phase each row of the final plan is installed in (and not moved after): under ``reserve``
    the phase its later end arrives in, under ``rebuild`` the first phase from which every design
    has the row (fabric, hop, both devices and ports)."""

    def __init__(self, names: Sequence[str], rp: RowPhases, pick: Callable[[str], str],
                 own: Sequence[dict[LinkKey, str]] = ()) -> None:
        self.names, self.rp, self.pick = list(names), rp, pick
        self.since: dict[tuple[object, ...], int] = {}
        if own:
            for key in own[-1]:
                k = len(own) - 1
                while k and key in own[k - 1]:
                    k -= 1
                self.since[key] = k

    def __call__(self, r: PlanRow) -> str:
        c = COL
        if self.pick(str(r[c["fabric"]])) == "rebuild":
            key = (r[c["fabric"]], r[c["hop"]], r[c["a_device"]], r[c["a_port"]], r[c["b_device"]], r[c["b_port"]])
            return self.names[self.since.get(key, len(self.names) - 1)]
        return self.names[self.rp.of_row(r)]
