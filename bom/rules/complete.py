"""Completeness: every link group has its cable part and, when it is optical, a module at both ends
(a copper or AOC assembly has neither), the coherent line has its modules and patch cords, every
plan row names the part it is cut from, and a storage fabric has storage on it; every fabric manager
bought is on the fabric it manages, no endpoint port is priced as another kind's, every device with a
management port has it cabled, and every label of the plan is its end's own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from functools import partial

from bom import names
from bom.cableplan.labels import plan_labels
from bom.cableplan.rows import COL, FIELDS
from bom.model.checks import ERROR, End, Report, Rule, Violation
from bom.model.hops import HopKind
from bom.model.linkgroups import LinkGroup
from bom.model.records import PlanRow
from bom.roles import FabricRole, Layer
from bom.rules.context import Context, end, where
from bom.rules.ports import plan_end


def _missing(g: LinkGroup) -> list[str]:
    """What a link group lacks (or holds wrongly) of its parts."""
    o = g.choice.option
    out = []
    if o.assembly is not None:
        if any(e.part is not None for e in (g.lower_end, g.upper_end)):
            out.append("a copper or AOC assembly with a module in a cage (the assembly's heads are its ends)")
    else:
        for side, e in (("lower", g.lower_end), ("upper", g.upper_end)):
            if e.part is None and e.engine is None:
                out.append(f"no module at the {side} end")
    if any(not c.part_number for c in g.runs.values()):
        out.append(f"no {'assembly' if o.assembly is not None else 'fibre'} part at some run's length")
    return out


def parts(ctx: Context) -> Iterator[Violation]:
    for g in ctx.groups:
        wrong = _missing(g)
        if wrong:
            lo, up = ctx.devices(g)
            yield Violation("complete.parts", where(g), "; ".join(wrong),
                            "add the part to the catalog (an overlay) so the lookup can pick it",
                            end(g, True, lo), end(g, False, up), g.links)
    d = ctx.model.dci
    if d is None:
        return
    r = End(Layer.ROUTER, d.router.id, "line", d.coherent.part_number, "coherent line port")
    if d.mux is not None and d.patch is None:
        yield Violation("complete.parts", f"dci {HopKind.SITE_SITE} ({d.links:,} wavelengths)",
                        "no patch cord from the line ports to their mux/demux channels",
                        "add an OS2 LC duplex patch-cord row to the fibre catalog", r,
                        End(Layer.MUX, d.mux.id, "channel"), d.patch_cords)


def storage(ctx: Context) -> Iterator[Violation]:
    f = ctx.model.fabrics.get(FabricRole.STORAGE)
    e = ctx.model.endpoints
    if f is None or (e is not None and e.storage is not None and e.storage_count):
        return
    links = sum(g.links for g in f.groups)
    yield Violation("complete.storage", f"storage fabric ({f.switches(Layer.LEAF):,} leaves, {links:,} links)",
                    "a storage fabric with no storage appliance on it" + (f" ({e.why})" if e is not None else ""),
                    "add a storage: block (appliance with count, or capacity and throughput), or drop "
                    "fabrics.storage", End(names.switch_role(FabricRole.STORAGE, Layer.LEAF), f.switch_id), None, links)


def managers(ctx: Context) -> Iterator[Violation]:
    """Every fabric manager the BOM buys has links on the fabric it manages: the UFM appliances' ports
    on the InfiniBand compute fabric (an appliance whose only links are in-band cannot be its subnet
    manager). The tool models no other fabric manager as a device of its own (NVLink's runs on the
    NVL72 system's own trays)."""
    e = ctx.model.endpoints
    compute = ctx.model.fabrics.get(FabricRole.COMPUTE)
    if e is None or e.ufm is None or not e.ufm_count or e.ufm.ports.compute is None or compute is None:
        return
    sites = ctx.model.cluster.site_count
    want = e.ufm_count * e.ufm.ports.compute.ports * sites
    got = sum(g.links for g in compute.groups if g.lower == Layer.UFM)
    if got < want:
        why = compute.ufm.why if compute.ufm is not None else "the compute fabric places no UFM port"
        yield Violation("complete.managers", f"{e.ufm_count * sites:,} x {e.ufm.id} (compute fabric)",
                        f"the BOM buys {e.ufm_count * sites:,} UFM appliances and {got:,} of their {want:,} compute "
                        f"ports are on the compute fabric they manage ({why})",
                        "free a leaf downlink or a top-layer port for each (one node fewer per UFM port, as the "
                        "DGX SuperPOD RA does), or set management.ufm_count: 0 to run the subnet manager on a "
                        "managed switch", End(Layer.UFM, e.ufm.id),
                        End(names.switch_role(FabricRole.COMPUTE, Layer.LEAF), compute.switch_id), want - got)


def substitutions(ctx: Context) -> Iterator[Violation]:
    """No endpoint port is priced as another kind's: where no catalog part joins an endpoint's own cage
    to its leaf's, the build counts the port as the nodes' (``endpoint_substitutions``), so the BOM
    would buy the nodes' module for a cage it does not fit."""
    for f in ctx.model.fabrics.values():
        for role, why in sorted(f.substitutions.items()):
            links = sum(g.links for g in f.groups if g.lower == role)
            yield Violation("complete.substitutions", f"{f.name} {role} ports ({links:,} links)",
                            f"the {role} ports are priced as the nodes' port on the {f.name} fabric: {why}",
                            "add a part that joins the two cages (a catalog overlay), give the endpoint a port of "
                            "the leaf's kind, or for the management switches' uplinks drop fabrics.oob.uplinks: "
                            "inband (the build then gives them OOB spines of their own)",
                            End(role, role), End(names.switch_role(f.name, Layer.LEAF), f.switch_id), links)


# --- the plan: every row names its part --------------------------------------------------------

_PART = COL["cable_part"]


class Rows:
    """A plan row with no cable part is a cable nobody orders."""

    def __init__(self, ctx: Context, report: Report) -> None:
        def row(r: PlanRow) -> None:
            if not r[_PART]:
                report(lambda: _no_part(r))

        self.row, self.done = row, lambda: None


def _no_part(r: PlanRow) -> Violation:
    c = COL
    return Violation("complete.rows", f"{r[c['cable_id']]} ({r[c['fabric']]} {r[c['hop']]})",
                     f"the row's {r[c['cable_type']] or r[c['medium']]} has no part to order",
                     "add the part to the catalog so the BOM buys it", plan_end(r, "a"), plan_end(r, "b"))


# --- the plan: every managed device's management port is cabled ------------------------------

_FABRIC, _A_PORT, _A_RACK, _A_ROLE, _A_SITE = COL["fabric"], COL["a_port"], COL["a_rack"], COL["a_role"], COL["a_site"]


class Managed:
    """Every device the placement stands with a management port (the placement's managed items: nodes'
    BMCs, switches, NVLink switch trays, PDUs, appliances, servers) has one row on the out-of-band
    fabric from that port, where the scenario builds one (with none, no management port is cabled by
    choice), in every site the plan cables (a phase's plan cables the sites built by then). Counted per
    rack and role against the placement's layouts: memory of one count per rack and role, however
    many rows."""

    def __init__(self, ctx: Context, report: Report) -> None:
        m = ctx.model
        placement = m.placement
        if FabricRole.OOB not in m.fabrics or placement is None:
            self.row, self.done = (lambda r: None), (lambda: None)
            return
        seen: Counter[tuple[str, str]] = Counter()
        sites: set[str] = set()   # the sites the plan cables (a phase's plan: the sites built by then)
        oob, mgmt = FabricRole.OOB, names.MGMT_PORT

        def row(r: PlanRow) -> None:
            sites.add(r[_A_SITE])
            if r[_A_PORT] == mgmt and r[_FABRIC] == oob:
                seen[r[_A_RACK], r[_A_ROLE]] += 1

        def done() -> None:
            for lay, rack in placement.laid_out():
                if names.site(rack.site) not in sites:
                    continue
                want = Counter(item.role for item, _ in lay.slots if item.managed)
                for role in sorted(set(want) | {k[1] for k in seen if k[0] == rack.id}):
                    got = seen.pop((rack.id, role), 0)
                    if got != want[role]:
                        report(_uncabled(rack.id, role, want[role], got))
            seen.clear()
            sites.clear()

        self.row, self.done = row, done


def _uncabled(rack: str, role: str, want: int, got: int) -> Violation:
    return Violation("complete.oob", f"rack {rack}: {role}",
                     f"the rack holds {want} {role} device{'s' * (want != 1)} with a management port and the "
                     f"out-of-band fabric cables {got} of them",
                     "a bug in the management network's pattern (bom/links/oob.py): please report the scenario",
                     End(role, f"{rack} ({want} {role})"), End(names.switch_role(FabricRole.OOB, Layer.LEAF), rack),
                     abs(want - got))


# --- the plan: every label its end's own ----------------------------------------------------------

_A_DEV, _B_DEV, _LINK = COL["a_device"], COL["b_device"], COL["link_id"]


class Labels:
    """Every TIA-606 end label (and so every cable label, its two ends') in the plan once. A label is
    its device's place (rack and U, a 0U device's position index), its port and, on a link of several
    fibre runs, the run's mark: it repeats only where two devices share a place, a port carries two
    links (``ports.unique``'s to find), or two runs of one link share a mark. So the rule labels each
    device's place once, when the plan first names the device, and keeps the place with its device
    (two entries per device the plan names, about 250 bytes: 12 MB for 50,000 devices, whatever the
    number of rows or ports), and the labels of the link being walked."""

    def __init__(self, ctx: Context, report: Report) -> None:
        ends = plan_labels(FIELDS)
        owner: dict[str, str] = {}      # a place's label -> the device there
        known: set[str] = set()         # devices whose place is checked
        link: list[object] = [None, None, []]   # the link walked, its first row, its runs' labels

        def first(r: PlanRow, a_side: bool) -> None:
            device = r[_A_DEV if a_side else _B_DEV]
            known.add(device)
            label = ends(r)[0 if a_side else 1]
            at = label[:label.index(":")]
            if owner.setdefault(at, device) != device:
                report(lambda: _shared(r, a_side, label))

        def runs(r: PlanRow) -> None:
            seen = link[2]
            assert isinstance(seen, list)
            if not seen:
                seen.extend(ends(link[1]))   # type: ignore[arg-type]
            for a_side, label in zip((True, False), ends(r), strict=True):
                if label in seen:
                    report(partial(_shared, r, a_side, label))
                seen.append(label)

        def row(r: PlanRow) -> None:
            if r[_A_DEV] not in known:
                first(r, True)
            if r[_B_DEV] not in known:
                first(r, False)
            lid = r[_LINK]
            if lid and lid == link[0]:   # another fibre run of the link: its labels must be its own
                runs(r)
                return
            link[0], link[1], link[2] = lid, r, []

        def done() -> None:
            owner.clear()
            known.clear()
            link[0], link[1], link[2] = None, None, []

        self.row, self.done = row, done


def _shared(r: PlanRow, a_side: bool, label: str) -> Violation:
    side = "a" if a_side else "b"
    return Violation("complete.labels", label,
                     f"{r[COL['cable_id']]}'s {side} end is labelled {label}, a label another end of the plan has",
                     "a bug in the plan's labels (bom/cableplan/labels.py, bom/names.py unit) or the placement's "
                     "slots: please report the scenario", plan_end(r, "a"), plan_end(r, "b"))


RULES = (
    Rule("complete.parts", ERROR, "links",
         "every link has its cable part and, when optical, both modules (a copper assembly neither); the "
         "coherent line its patch cords",
         closed=parts),
    Rule("complete.storage", ERROR, "links",
         "a storage fabric has storage appliances on it",
         closed=storage),
    Rule("complete.rows", ERROR, "rows",
         "every cable plan row names the part it is ordered as",
         stream=Rows),
    Rule("complete.managers", ERROR, "ports",
         "every fabric manager bought (a UFM appliance) has its ports on the fabric it manages",
         closed=managers),
    Rule("complete.substitutions", ERROR, "links",
         "no endpoint port is priced as another kind's (a module bought for a cage it does not fit)",
         closed=substitutions),
    Rule("complete.oob", ERROR, "devices",
         "every device with a management port has it cabled to the out-of-band fabric (where one is built)",
         stream=Managed),
    Rule("complete.labels", ERROR, "ends",
         "every TIA-606 end label and cable label in the plan is its end's own (0U devices by position, "
         "a link's fibre runs marked)",
         stream=Labels),
)
