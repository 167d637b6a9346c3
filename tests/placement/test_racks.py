"""Placement: the API other stages read, and properties over random valid scenarios."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bom.errors import LimitError
from bom.inputs.scenario import load_scenario, scenario_from_text
from bom.inputs.yamlio import load_text
from bom.model.fabrics import PooledFabric
from bom.model.placement import Item, RackType
from bom.pipeline.model import build_model
from bom.placement.racks import pack
from bom.roles import RackKind
from tests.paths import REFERENCE as REFERENCE_DIR

H100 = REFERENCE_DIR / "superpod_h100_4su_full.yaml"


def _build(text, catalog):
    return build_model(scenario_from_text(text), load_text(text, "s.yaml"), catalog, None)


def test_locate_agrees_with_the_elevations(catalog):
    scenario, src = load_scenario(H100)
    p = build_model(scenario, src, catalog, None).placement
    seen = {}
    # The racks in numbering order (section by section, copy by copy): the shared racks stand between
    # the halves of the blocks, but their devices are numbered after every block's.
    laid = sorted(p.site_racks(1, p.sites[0]), key=lambda r: r[:2])
    for _, _, _, rack in laid:
        for slot in p.elevation(rack):
            seen.setdefault(slot.role, []).append((rack.id, slot.device))
    # Nodes and block leaves in fabric order: locate(i) is the i-th of its role in that order.
    for role in ("node", "leaf", "spine", "oob-leaf", "ufm"):
        for i in (0, 1, len(seen[role]) // 2, len(seen[role]) - 1):
            rack, slot = p.locate(role, 1, i)
            assert (rack.id, slot.device) == seen[role][i], (role, i)
            # The cable plan's naming, without a rack or slot made, says the same.
            assert p.names_of(role, 1, i) == (rack.row, rack.id, slot.u, slot.device), (role, i)
    # Node 32 is the first node of the second SU (32 nodes per SU).
    assert p.locate("node", 1, 32)[0].id != p.locate("node", 1, 31)[0].id
    # A storage rack for the storage fabric's 2 default appliances (the scenario gives no storage block;
    # before the storage default the fabric carried none and there was no storage rack).
    assert p.counts() == {"compute": 32, "network": 5, "management": 1, "storage": 1}


@pytest.mark.slow   # a 1M-GPU campus: about 3 s of CPU
def test_campus_counts_without_walking_devices(catalog):
    import time

    # The in-band fabric's border leaves take the DCI routers' Ethernet client ports (IB compute fabric).
    # A 500k-GPU building: its management switches uplink to its own OOB spines (into the in-band
    # leaves in the middle of the hall they would be a kilometre of 100G runs).
    text = ("name: big\nplatform: gb300-nvl72\ngpus: 1000000\n"
            "fabrics: {oob: {switch: sn2201, uplinks: spine}, inband: {}}\n"
            "sites: {count: 2, distance: \"10 km\", dci_bandwidth: \"25.6 Tbit/s\"}\n")
    start = time.process_time()   # CPU seconds: the wall clock counts other processes' turns
    p = _build(text, catalog).placement
    assert time.process_time() - start < 10          # closed form: no walk over the 250,002 trays
    assert p.counts()["compute"] == 13889            # ceil(1,000,000 / 72) NVL72 racks
    assert p.devices("node") == 13889 * 18
    rack, slot = p.locate("node", 2, 6944 * 18 - 1)  # the last tray of the smaller site
    assert slot.role == "node" and rack.kind == "compute" and rack.site == 2


PLATFORMS = ["dgx-h100", "dgx-b200", "dgx-b300", "gb200-nvl72", "gb300-nvl72", "hgx-h100"]


@st.composite
def scenarios(draw):
    platform = draw(st.sampled_from(PLATFORMS))
    gpus = draw(st.integers(min_value=8, max_value=6000))
    fabrics = {"compute": {}, "oob": {"switch": "sn2201"}}
    if draw(st.booleans()):
        fabrics["oob"]["uplinks"] = "spine"      # else into the in-band fabric (when there is one)
    # The catalog has 400G parts to an SN5600 and 100G parts to an SN4600C (the DGX H100's in-band
    # ports run at 100G, as in its RA); the HGX's 200G ports have no part to either in the catalog.
    if platform != "hgx-h100" and draw(st.booleans()):
        fabrics["storage"] = {"switch": "sn5600"}
    if platform != "hgx-h100" and draw(st.booleans()):
        fabrics["inband"] = {"switch": "sn4600c" if platform == "dgx-h100" else "sn5600"}
    text = {"name": "p", "platform": platform, "gpus": gpus, "fabrics": fabrics,
            "layout": {"racks_per_row": draw(st.integers(min_value=4, max_value=20))}}
    if draw(st.booleans()):
        text["storage"] = {"count": draw(st.integers(min_value=1, max_value=40))}
    return json.dumps(text)


def _shared_uplinks(plane, catalog):
    """A leaf's uplinks counted in its own ports at the nodes' rate, where they share its cages: at a
    native rate above the nodes' one uplink takes k of them (a GB200 storage leaf's 34 x 400G uplinks
    are 68 of an SN5600's 256 x 200G ports; ``plane.leaf_up`` counts 34). None where the switch row
    has dedicated ``uplinks`` of their own, not among its radix."""
    if plane.leaf_uplink is not None and catalog.get("switches", plane.leaf.id).uplinks is not None:
        return None
    return plane.leaf_up * plane.up.rate_gbps / plane.leaf.rate_gbps


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_properties(catalog, text):
    check_properties(catalog, text)


# Storage leaves whose uplinks run at a native rate above the nodes' 200G (no part splits an 800G cage
# 1:4 switch to switch): 289 GB200 GPUs (90 trays, 180 storage ports on two leaves of 90) with 40
# appliances (34 x 400G uplinks a leaf) and with 10 (17 x 800G); the fill property once read them as
# 34 and 17 of the leaf's 256 ports (124 and 107 of 256, under half) instead of 68 (158 of 256).
# Always checked, as a plain test: as hypothesis @examples they cost 1.5 s of CPU each, hypothesis
# printing every explicit example's arguments, the catalog among them (a 5.8 MB repr).
@pytest.mark.parametrize("racks_per_row, appliances", [(4, 40), (8, 10)])
def test_properties_with_native_rate_uplinks(catalog, racks_per_row, appliances):
    text = {"name": "p", "platform": "gb200-nvl72", "gpus": 289, "layout": {"racks_per_row": racks_per_row},
            "fabrics": {"compute": {}, "oob": {"switch": "sn2201"}, "storage": {"switch": "sn5600"}},
            "storage": {"count": appliances}}
    check_properties(catalog, json.dumps(text))


def check_properties(catalog, text):
    try:
        m = _build(text, catalog)
    except LimitError as exc:
        # A run longer than any part the catalog sells (a long thin hall of 4 racks a row) is
        # refused with what to change, never built short.
        assert "reaches" in str(exc), exc
        assume(False)
    p = m.placement
    # No rack over its U or power budget.
    for rack in p.racks():
        slots = list(p.elevation(rack))
        assert sum(s.height for s in slots) <= rack.u_budget
        assert sum(s.power_w for s in slots) <= rack.power_budget_w + 1e-6
        used = sorted((s.u, s.u + s.height) for s in slots if s.height)
        assert all(a[1] <= b[0] for a, b in zip(used, used[1:], strict=False))   # no overlap
    # by_item walks each layout object once: what a walk of every rack counts, in the order it meets them.
    walk: Counter[object] = Counter()
    for sites, sec in p.all_sections():
        for lay in sec.layouts:
            for item, _ in lay.slots:
                walk[item] += sites * sec.copies
    assert list(p.by_item().items()) == list(walk.items())
    # Every managed device has exactly one OOB port cabled.
    managed = sum(n for item, n in p.by_item().items() if item.managed)
    assert m.fabrics["oob"].to_json()["links"]["node-leaf"] == managed
    # No switch over its radix: per leaf, downlinks + uplinks <= radix.
    for name, f in m.fabrics.items():
        if name == "oob":
            for s in f.sections:
                leaves = s.per_rack * s.racks + s.block
                assert -(-s.devices // leaves) <= catalog.get("switches", f.leaf_id).ports
            continue
        for _, plane in f.shapes:
            shared = _shared_uplinks(plane, catalog)
            if shared is None:
                assert plane.leaf_uplink is not None and plane.leaf_up <= plane.leaf_uplink.radix
            else:
                assert plane.leaf_down + shared <= plane.leaf.radix, (name, plane.leaf_down, plane.leaf_up)
            assert plane.leaves * plane.leaf_up <= plane.spines * plane.spine.radix
        # Every storage / in-band leaf of the nodes uses at least half its ports (its nodes' ports and
        # the uplinks they take) unless its block's nodes are fewer than one leaf holds; a partial
        # compute block's ports are shared evenly over its groups, so none is left nearly empty. (The
        # endpoints' own leaves, as the RAs give the storage appliances, may hold fewer: one appliance
        # is one appliance; and a partial block smaller than a leaf is one small leaf.)
        if isinstance(f, PooledFabric):
            for (_, plane), ps in zip(f.shapes, f.pooled, strict=True):
                rest = ps.node_units % (ps.block_units or ps.node_units)   # the partial block's ports
                shared = _shared_uplinks(plane, catalog)
                up = plane.leaf_up if shared is None else shared
                if ps.node_units <= plane.leaf_down * plane.leaves_per_group:
                    continue                     # all the nodes' ports fit one leaf group
                for fill, _ in ps.node_fills():
                    if fill != ps.group_units and rest <= plane.leaf_down * plane.leaves_per_group:
                        continue
                    down = -(-fill // plane.leaves_per_group)
                    if fill == ps.group_units:
                        assert 2 * (down + up) >= plane.leaf.radix, (name, fill, plane.leaf_up, up)
                    else:
                        # A partial block too big for one leaf group is shared evenly over the fewest groups
                        # that hold it: each leaf then carries at least half its downlinks (865 GB200 GPUs:
                        # 180 in-band ports over two SN5600s, 90 each of 144 down, 117 of 256 ports with
                        # the uplinks; no split does better).
                        assert 2 * down >= plane.leaf_down, (name, fill, plane.leaf_down)
        # Every port on a leaf's lower side (nodes, UFM, appliances, servers, OOB uplinks) fits its downlinks.
        lower = sum(g.links for g in f.groups if g.upper == "leaf")
        assert lower <= sum(n * f.planes * pl.leaves * pl.leaf_down for n, pl in f.shapes), name


# The compute fabrics of the reference tests (their published counts), built again with a random
# mix of storage, in-band, OOB and storage appliances around them: the compute counts never move.
REFERENCE_COMPUTE = [
    # (scenario head, compute leaf/spine/core, node-leaf links): RA-11333-001 V11 Table 4 (4 SU);
    # DGX SuperPOD B200 RA Architecture table (16 SU); RA-11337-001 V01 Table 3 (B300, 2 SU, 2 planes);
    # DGX SuperPOD GB200 RA (1 SU = 8 racks, a leaf per rack per rail group).
    ("platform: dgx-h100\nnodes: 127\nlayout: {nodes_per_rack: 4, racks_per_row: 8}\n",
     {"switch": "qm9700", "su_nodes": 32}, {"leaf": 32, "spine": 16, "core": 0}, 1016),
    ("platform: dgx-b200\nnodes: 512\n", {"switch": "qm9700"}, {"leaf": 128, "spine": 128, "core": 64}, 4096),
    ("platform: dgx-b300\nnodes: 128\n", {"switch": "sn5600", "planes": 2, "su_nodes": 64},
     {"leaf": 32, "spine": 16, "core": 0}, 2048),
]


@st.composite
def support_mixes(draw):
    head, compute, switches, links = draw(st.sampled_from(REFERENCE_COMPUTE))
    fabrics = {"compute": compute}
    platform = head.split()[1]
    if draw(st.booleans()):
        fabrics["storage"] = {"switch": draw(st.sampled_from(["sn5600", "qm9700"]))}
        if draw(st.booleans()):
            fabrics["storage"]["oversubscription"] = draw(st.sampled_from(["1", "4:3", "2:1"]))
    if draw(st.booleans()):
        fabrics["inband"] = {"switch": "sn4600c" if platform == "dgx-h100" else "sn5600"}
    if draw(st.booleans()):
        fabrics["oob"] = {"switch": "sn2201"}
        if draw(st.booleans()):
            fabrics["oob"]["uplinks"] = "spine"
    extra = f"storage: {{count: {draw(st.integers(min_value=1, max_value=24))}}}\n" if draw(st.booleans()) else ""
    text = "name: r\n" + head + "fabrics: " + json.dumps(fabrics) + "\n" + extra
    return text, switches, links


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(support_mixes())
def test_reference_compute_counts_unchanged_by_the_other_fabrics(catalog, case):
    text, switches, links = case
    c = _build(text, catalog).fabrics["compute"].to_json()
    assert c["switches"] == switches, text
    assert c["links"]["node-leaf"] == links, text


def _first_fit(rack, items):
    """First-fit device by device, from U1 up, a new rack when the next device does not fit: what pack's
    closed form (racks an item fills alone made once) must give."""
    empty = [(rack.pdu, 0)] * rack.pdus if rack.pdu is not None else []
    out, slots = [], list(empty)
    used, power = 0, sum(i.power_w for i, _ in slots)
    for item, count in items:
        for _ in range(count):
            if used + item.height > rack.u_budget or power + item.power_w > rack.power_budget_w:
                out.append(tuple(slots))
                slots, used, power = list(empty), 0, sum(i.power_w for i, _ in empty)
            slots.append((item, used + 1 if item.height else 0))
            used, power = used + item.height, power + item.power_w
    if len(slots) > len(empty):
        out.append(tuple(slots))
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.sampled_from([0.0, 150.0, 900.0, 2_500.0]), st.integers(0, 90)),
                min_size=1, max_size=5),
       st.integers(8, 48), st.sampled_from([6_000.0, 20_000.0]), st.integers(0, 2))
def test_pack_is_first_fit_device_by_device_and_racks_alike_share_a_layout(specs, u, budget, pdus):
    pdu = Item("pdu", "pdu-x", 0, 10.0, managed=False)
    rack = RackType("r", u, budget, pdu if pdus else None, pdus)
    items = [(Item("switch", f"sw{k}", h, w), n) for k, (h, w, n) in enumerate(specs)
             if n and h <= u and w + 10.0 * pdus <= budget]
    assume(items)
    got = pack(RackKind.NETWORK, rack, items)
    assert [lay.slots for lay in got] == _first_fit(rack, items)
    # One layout object per distinct rack: the power plan, the PDUs' fit and the roles read each once.
    assert len({id(lay) for lay in got}) == len({lay.slots for lay in got})


def test_a_switch_row_of_many_racks_is_packed_as_one_layout():
    """1,000 spines two to a 2U-budget rack: 500 racks, one layout object, no device walked per rack."""
    spine = Item("spine", "sw", 1, 1_000.0)
    got = pack(RackKind.NETWORK, RackType("r", 2, 100_000.0), [(spine, 1_000)])
    assert len(got) == 500 and len({id(lay) for lay in got}) == 1
    assert got[0].slots == ((spine, 1), (spine, 2))



@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(range(4)), st.integers(1, 30)), min_size=1, max_size=25), st.booleans())
def test_racks_alike_share_one_layout_and_only_they(listed, pdus):
    """A rack's layout object is shared by exactly the racks whose slots hold the same item objects at the
    same U (the runs key against every slot), 0U devices and items listed again between others included."""
    kinds = [Item("spine", "s", 1, 700.0), Item("oob-leaf", "m", 1, 150.0, managed=False),
             Item("core", "c", 2, 1900.0), Item("pdu", "p", 0, 0.0, managed=False)]
    rack = RackType("r", 42, 20_000.0, Item("pdu", "p0", 0, 0.0, managed=False) if pdus else None, 2 if pdus else 0)
    lays = pack(RackKind.NETWORK, rack, [(kinds[k], n) for k, n in listed])

    def slots(lay):
        return tuple((id(item), u) for item, u in lay.slots)
    for a in lays:
        for b in lays:
            assert (a is b) == (slots(a) == slots(b))
