"""Bad input around racks and endpoints: exit 2, the limit named, nothing written."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bom.errors import LimitError

CASES = {
    "power": ("name: x\nplatform: dgx-b200\nnodes: 4\nracks: {power_budget: \"10 kW\"}\n",
              ["rack power budget", "below one dgx-b200 node", "Raise racks.power_budget to at least 14.4 kW"]),
    "zero-ports": ("name: x\nplatform: dgx-h100\nnodes: 4\nstorage: {count: 2, ports: 0}\n"
                   "fabrics: {storage: {switch: sn5600}}\n",
                   ["storage.ports", "no storage-fabric ports", "Leave storage.ports out (the appliance's own 8)"]),
    "no-room": ("name: x\nplatform: dgx-b200\nnodes: 4\nracks: {rack_units: 6}\n",
                ["fits no rack", "the height binds (10U in a 6U", "the power fits",
                 "Raise racks.rack_units (a taller rack), or pick a smaller device"]),
    "oob-key": ("name: x\nplatform: dgx-h100\nnodes: 4\nfabrics: {oob: {su_nodes: 8}}\n",
                ["fabrics.oob.su_nodes", "does not apply"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_exit_2_naming_the_limit_and_nothing_written(bom, tmp_path, case):
    text, words = CASES[case]
    f = tmp_path / "s.yaml"
    f.write_text(text)
    out = tmp_path / "out"
    r = bom("build", str(f), "-o", str(out))
    assert r.exit_code == 2, r.output
    for w in words:
        assert w in r.output, (w, r.output)
    assert not out.exists() or not any(out.iterdir())


# --- endpoints and OOB uplinks on the storage / in-band fabrics (bom/topology/support.py) -----------------

H100 = ("name: h\nplatform: dgx-h100\nnodes: 127\nlayout: {nodes_per_rack: 4, racks_per_row: 8}\n"
        "fabrics: {compute: {switch: qm9700, su_nodes: 32}, storage: {switch: qm9700}, inband: {switch: sn4600c}, "
        "oob: {switch: sn2201%s}}\n")


def _build(catalog, text):
    from tests.topology.test_build import build

    return build(catalog, text)


def _hop(f, hop):
    return [g for g in f.groups if g.hop == hop]


def test_endpoints_take_their_own_rows_rate_and_cage(catalog):
    m = _build(catalog, H100 % "" + "storage: {count: 8}\n")
    storage = m.fabrics["storage"]
    # The appliances' own 8 x 400G QSFP112 ports (their catalog row), a hop of their own.
    assert storage.hop_links("storage-leaf") == 8 * 8 and storage.hop_links("node-leaf") == 127 * 2
    assert {g.lower_end.form_factor for g in _hop(storage, "storage-leaf")} == {"qsfp112"}
    # At 200G (the storage block's own rate) they take the leaf's 4 x 200G breakout cage: MMA4Z00-NS
    # at 4 x 200G over MFP7E20 1:2 splitters to MMA1Z00-NS400 in its 200G mode (catalogs/modules.yaml),
    # so no port is counted as another (before: "no part fits an osfp cage serving 4 ports").
    slow = _build(catalog, H100 % "" + "storage: {count: 8, rate: \"200 Gbit/s\", ports: 2}\n").fabrics["storage"]
    assert slow.to_json()["endpoint_substitutions"] == {}
    split = _hop(slow, "storage-leaf")
    assert {(g.rate_gbps, g.choice.option.fibre.part_number, g.upper_end.ports) for g in split} == {
        (200.0, "MFP7E20-N0xx", 4)}
    inband = m.fabrics["inband"]
    # UFM and management servers: their rows' 100G QSFP28 ports, not the node's.
    ufm = _hop(inband, "ufm-leaf")
    assert ufm and {g.lower_end.form_factor for g in ufm} == {"qsfp28"} and {g.rate_gbps for g in ufm} == {100.0}
    assert inband.to_json()["endpoint_substitutions"] == {}


def test_an_endpoint_cage_without_parts_is_counted_as_the_nodes_port_and_said(catalog):
    # 100G QSFP28 into an SN5600 OSFP cage: in the rack the MCP7Y60 splitter's 100GbE ends take the
    # UFM and the servers; across rows (the management switches' uplinks, asked into in-band) the
    # catalog has no part, so the JSON says what was counted.
    text = H100.replace("inband: {switch: sn4600c}", "inband: {switch: sn5600}").replace(
        "platform: dgx-h100", "platform: dgx-b200").replace("nodes_per_rack: 4", "nodes_per_rack: 2")
    j = _build(catalog, text % ", uplinks: inband").fabrics["inband"].to_json()
    assert set(j["endpoint_substitutions"]) == {"oob"}
    assert "qsfp28 at 100G" in j["endpoint_substitutions"]["oob"]
    # Left to the build, the management switches get spines of their own instead.
    m = _build(catalog, text % "")
    assert m.fabrics["inband"].to_json()["endpoint_substitutions"] == {}
    assert m.fabrics["oob"].spine_id == "sn4600c" and m.fabrics["oob"].spines > 0
    assert m.fabrics["inband"].hop_links("oob-leaf") == 0


def test_oob_uplinks_take_in_band_leaf_ports(catalog):
    m = _build(catalog, H100 % "")
    oob, inband = m.fabrics["oob"], m.fabrics["inband"]
    j = inband.to_json()
    # Every management switch's uplink is an in-band leaf port: counted once, in the in-band fabric.
    assert inband.hop_links("oob-leaf") == oob.leaves * oob.uplinks_per_leaf
    assert oob.hop_links("leaf-inband") == 0 and oob.to_json()["uplinks_counted_in"] == "inband"
    assert j["endpoint_ports"] == 4 * 2 + 5 * 2 + oob.leaves
    # The in-band leaves have room for all of it (SN4600C at 1:1: 32 downlinks each).
    assert j["switches"]["leaf"] * 32 >= j["links"]["node-leaf"] + j["endpoint_ports"]
    # Their modules are the in-band fabric's (an oob-leaf group with parts at both ends).
    assert sum(g.links for g in _hop(inband, "oob-leaf")) == oob.leaves


def test_a_separate_oob_spine_layer_takes_no_in_band_port(catalog):
    m = _build(catalog, H100 % ", uplinks: spine")
    oob, inband = m.fabrics["oob"], m.fabrics["inband"]
    assert inband.hop_links("oob-leaf") == 0 and "oob-leaf" not in inband.to_json()["links"]
    assert oob.spines >= 1 and oob.hop_links("leaf-spine") == oob.leaves * oob.uplinks_per_leaf


def test_a_partial_block_shares_its_ports_evenly(catalog):
    # 256 DGX B300 in compute SUs of 72 (the XDR RA): 3 whole SUs and one of 40 nodes. The storage
    # leaves (SN5600 at 400G, 4:3: 72 of 128 ports down) take 36 nodes x 2 ports = 72 ports a group;
    # the partial SU's 80 ports go 40 + 40 over its two leaves, not 72 + 8 (a leaf using 8 + 54 of
    # 128 ports), and no link is gained or lost.
    m = _build(catalog, "name: b\nplatform: dgx-b300\nnodes: 256\nfabrics: {compute: {}, storage: {switch: sn5600}}\n")
    f = m.fabrics["storage"]
    ps, plane = f.pooled[0], f.first
    assert ps.node_fills() == [(72, 6), (40, 2)]
    # 8 leaves for the nodes, and one for the appliances the storage fabric now gets by default (it
    # had none, and 8 leaves): 2,048 GPUs x 40 GB/s per 256-GPU SU (the RA's read guideline,
    # bom/topology/endpoints.py) = 320 GB/s / 90 GB/s = 4 appliances, 32 ports: one group of their own.
    assert plane.leaf_up == 54 and f.switches("leaf") == 8 + 1
    assert f.to_json()["links"]["node-leaf"] == 512
    for fill, _ in ps.node_fills():
        assert 2 * (fill + plane.leaf_up) >= plane.leaf.radix


def test_a_prime_block_splits_its_ports_evenly_not_one_node_a_leaf(catalog):
    # 321 GPUs of DGX B300: 41 nodes, one block of 4 racks in a row (ToR compute), 82 storage ports.
    # 41 is prime: the largest divisor of the block whose ports fit a leaf's 72 downlinks is 1
    # node, which built 41 leaves of 2 ports (and 24 more for 6 appliances' 48 ports, 65 leaves in
    # all). The block's ports split evenly instead: 41 + 41 on two leaves, the appliances on two.
    from tests.cableplan.test_rows import check_closed_form

    text = ("name: p\nplatform: dgx-b300\ngpus: 321\nlayout: {racks_per_row: 4}\nstorage: {count: 6}\n"
            "fabrics: {compute: {}, oob: {switch: sn2201}, storage: {switch: sn5600}}\n")
    m = _build(catalog, text)
    f = m.fabrics["storage"]
    ps, plane = f.pooled[0], f.first
    assert ps.node_fills() == [(41, 2)] and ps.extra_groups == 2
    assert f.switches("leaf") == 4
    assert f.to_json()["links"]["node-leaf"] == 82 and f.to_json()["links"]["storage-leaf"] == 48
    for fill, _ in ps.node_fills():
        assert 2 * (fill + plane.leaf_up) >= plane.leaf.radix
    check_closed_form(m, catalog)   # the plan walks the same groups


# --- a pod whose every port fits one leaf (issue 11: the 8-node DGX H100 pod) --------------------

POD = "name: pod-h100\nplatform: dgx-h100\nnodes: %d\nfabrics: {compute: {%s}, storage: {}, inband: {}, oob: {}}\n"


def _leaf_fills(f):
    """Lower ports on each leaf of a storage / in-band fabric: the leaf ends of its node and endpoint hops."""
    return sum(g.links for g in f.groups if g.upper == "leaf"), f.switches("leaf")


def test_an_8_node_pod_builds_no_support_spine_and_no_near_empty_leaf(catalog):
    m = _build(catalog, POD % (8, ""))
    for name in ("storage", "inband", "oob"):
        j = m.fabrics[name].to_json()
        assert j["switches"]["spine"] == 0 and j["switches"]["core"] == 0, (name, j["switches"])
        assert j["links"]["leaf-spine"] == 0, name
    # In-band: 16 node ports + 10 management-server ports + 1 SN2201 uplink = 27 lower ports: one
    # SN4600C (64 x 100G) holds them, so it is the fabric. No UFM: 8 nodes fill the one QM9700's 64
    # ports, so no port of the compute fabric is free for it and the build buys none (and says so).
    inband = m.fabrics["inband"]
    ports, leaves = _leaf_fills(inband)
    assert (ports, leaves) == (16 + 10 + 1, 1)
    assert m.endpoints.ufm_count == 0 and any("UFM appliances per site" in w for w in m.warnings)
    # Out-of-band: every managed device of the pod on one SN2201 (48 ports), not a block switch
    # plus a nearly empty one for the shared racks.
    oob = m.fabrics["oob"]
    assert oob.leaves == 1 and oob.devices <= 48
    # Every support leaf is used at least half, or is the only leaf of its fabric.
    for name in ("storage", "inband"):
        f = m.fabrics[name]
        ports, leaves = _leaf_fills(f)
        assert leaves == 1 or 2 * ports >= leaves * f.first.leaf.radix, name
    assert oob.leaves == 1 or 2 * oob.devices >= oob.leaves * 48


def test_a_one_leaf_fabric_is_listed_by_the_cable_plan(catalog):
    # The plan (with a ToR compute fabric, which it lists) adds up to the closed form, and every
    # in-band port (nodes, UFM, management servers, the SN2201 uplink) lands on the one leaf; every
    # managed device on the one management switch.
    from tests.cableplan.test_rows import C, check_closed_form

    # (7 nodes: the compute switch keeps ports for the UFM, so the build buys it.)
    m = _build(catalog, POD % (7, "topology: tor"))
    assert m.fabrics["inband"].switches("leaf") == 1 and m.fabrics["inband"].switches("spine") == 0
    rows = check_closed_form(m, catalog)
    for name in ("inband", "oob"):
        mine = [r for r in rows if r[C["fabric"]] == name]
        assert len({r[C["b_device"]] for r in mine}) == 1, name
    hops = {r[C["hop"]] for r in rows if r[C["fabric"]] == "inband"}
    assert hops == {"node-leaf", "ufm-leaf", "mgmt-leaf", "oob-leaf"}


def test_a_fabric_that_does_not_fit_one_leaf_keeps_its_endpoint_leaves_and_spines(catalog):
    # su_nodes states the leaf groups: the scenario's word wins, even for a small pod.
    m = _build(catalog, POD.replace("inband: {}", "inband: {su_nodes: 4}") % (8, ""))
    f = m.fabrics["inband"]
    assert f.pooled[0].extra_groups >= 1 and f.switches("spine") >= 1


@st.composite
def small_pods(draw):
    platform = draw(st.sampled_from(["dgx-h100", "dgx-b200"]))
    fabrics = {"compute": {}, "oob": {}, "inband": {"switch": "sn4600c" if platform == "dgx-h100" else "sn5600"}}
    if draw(st.booleans()):
        fabrics["storage"] = {"switch": "sn5600"}
    text = {"name": "p", "platform": platform, "nodes": draw(st.integers(min_value=1, max_value=40)),
            "fabrics": fabrics}
    if draw(st.booleans()):
        text["storage"] = {"count": draw(st.integers(min_value=1, max_value=12))}
    return json.dumps(text)


@settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(text=small_pods())
def test_a_fabric_whose_ports_fit_one_leaf_is_that_leaf(catalog, text):
    m = _build(catalog, text)
    for name in ("storage", "inband"):
        f = m.fabrics.get(name)
        if f is None:
            continue
        lower = sum(g.links for g in f.groups if g.upper == "leaf")
        plane = f.first
        fits = lower <= plane.leaf.radix and len(f.shapes) == 1 and m.cluster.sites[0].nodes <= 32
        if fits:
            # The whole fabric is one leaf: no spine, no endpoint leaves of their own.
            assert (f.switches("leaf"), f.switches("spine")) == (1, 0), (name, lower)
            assert f.pooled[0].extra_groups == 0
        else:
            # Else the leaves hold every lower port and a spine joins them.
            assert f.switches("leaf") * plane.leaf_down >= lower
            assert f.switches("leaf") == 1 or f.switches("spine") >= 1
    oob = m.fabrics["oob"]
    if oob.devices <= 48 and len(m.cluster.sites) == 1:
        assert oob.leaves == 1, oob.devices


# --- a storage fabric the scenario gives no storage (bom/topology/endpoints.py _ra_storage) ---------------

NO_STORAGE = "name: s\nplatform: gb300-nvl72\ngpus: 2304\nfabrics: {compute: {}, storage: {switch: sn5600}}\n"


def test_a_storage_fabric_without_storage_gets_the_ras_appliances_and_says_so(catalog):
    """It was built and priced with no storage at all (0 USD, no warning). Now the platform RA's
    appliance, sized by the RA's read guideline (RA-11333-001 V11 Table 6, Better: 40 GB/s per
    256-GPU SU): 2,304 GPUs read 360 GB/s / 90 GB/s per appliance = 4 appliances."""
    from bom.costing.categories import Category
    from bom.pipeline import report_of

    m = _build(catalog, NO_STORAGE)
    e = m.endpoints
    assert (e.storage.id, e.storage_count, e.storage_ports.ports) == ("storage-appliance-2u", 4, 8)
    assert "360 GB/s / 90 GB/s per appliance -> 4" in e.why
    assert m.fabrics["storage"].hop_links("storage-leaf") == 4 * 8
    r = report_of(m, catalog)
    (warning,) = [w for w in r.warnings if w.startswith("fabrics.storage")]
    assert "4 x storage-appliance-2u per site defaulted from the platform's reference architecture" in warning
    assert "storage: {count: N}" in warning and r.to_json()["warnings"][0] == warning
    assert sum(x.price_usd for x in r.lines if x.category == Category.STORAGE) == 4 * 400_000


def test_a_storage_block_is_not_overridden_and_no_warning(catalog):
    m = _build(catalog, NO_STORAGE + "storage: {count: 2}\n")
    # (The one warning left says where the UFM ports went: bom/topology/ufm.py.)
    assert m.endpoints.storage_count == 2 and [w for w in m.warnings if "storage" in w] == []


def test_the_default_storage_is_shared_over_the_sites(catalog):
    # 4,608 GPUs over two sites: 720 GB/s / 90 = 8 appliances, 4 a site (as a storage block's count is).
    text = NO_STORAGE.replace("2304", "4608").replace("storage: {switch: sn5600}",
                                                       "storage: {switch: sn5600}, inband: {}") \
        + 'sites: {count: 2, distance: "40 km", dci_bandwidth: "0.8 Tbit/s"}\n'
    assert _build(catalog, text).endpoints.storage_count == 4


def test_refused_when_the_platform_names_no_storage_appliance(bom, tmp_path):
    """A platform whose RA names no storage appliance cannot default one: exit 2 naming the key and
    what to add."""
    import yaml

    from bom.catalog.load import builtin_dir

    rows = yaml.safe_load((builtin_dir() / "platforms.yaml").read_text())["platforms"]
    row = next(r for r in rows if r["id"] == "gb300-nvl72")
    row = {**row, "id": "gb300-no-storage", "support": {k: v for k, v in row["support"].items() if k != "storage"}}
    (tmp_path / "over").mkdir()
    (tmp_path / "over" / "platforms.yaml").write_text(yaml.safe_dump({"platforms": [row]}))
    f = tmp_path / "s.yaml"
    f.write_text(NO_STORAGE.replace("gb300-nvl72", "gb300-no-storage") + "catalogs: [over]\n")
    r = bom("build", str(f), "-o", str(tmp_path / "out"))
    assert r.exit_code == 2, r.output
    for words in ("fabrics.storage carries no storage", "'gb300-no-storage' names no storage appliance",
                  "add a storage block", f"{f}:4"):
        assert words in r.output, (words, r.output)


#: A training job on GB300 with a storage fabric and no storage block (sized by time: about 4,700 GPUs).
JOB_STORAGE = ("name: s\nplatform: gb300-nvl72\nfabrics: {compute: {}, storage: {switch: sn5600}}\n"
               'workload: {kind: pretrain, params: 405B, tokens: 15T, deadline: "90 d", dtype: bf16}\n')


def _sized(catalog, text):
    from bom.inputs.scenario import parse_scenario
    from bom.inputs.yamlio import load_text
    from bom.pipeline import build_scenario

    src = load_text(text, "s.yaml")
    return build_scenario(parse_scenario(src), src, catalog)


def _ra_count(gpus):
    """The RA's Better read guideline: 40 GB/s per 256-GPU SU over 90 GB/s per appliance, whole."""
    return max(1, -(-gpus * 40 // (256 * 90)))


def test_a_training_job_is_weighed_against_the_ra_and_a_storage_block_of_job_keys_sizes_by_it(catalog):
    """Capacity by hand: 5 checkpoints x 405e9 params x 14 B (ZeRO's 16 B of mixed-precision Adam
    less the 2 B of gradients) = 28.35 TB, + 15e12 tokens x 4 B (32-bit token ids) = 60 TB: 88.35 TB,
    one 500 TB appliance; the RA's read guideline for the cluster's GPUs needs more, so it sizes the
    default. A storage block of job keys alone (100 checkpoints kept: 567 + 60 = 627 TB) is sized by
    the job: two appliances."""
    from bom.pipeline import report_of

    m = _sized(catalog, JOB_STORAGE)
    e = m.endpoints
    assert "88.35 TB / 500 TB per appliance -> 1" in e.why and "the larger: the platform's" in e.why
    assert (e.storage_count, e.basis) == (_ra_count(m.cluster.gpus), "ra") and e.storage_count > 1
    m = _sized(catalog, JOB_STORAGE + "storage: {checkpoints: 100}\n")
    e = m.endpoints
    assert (e.storage_count, e.basis) == (2, "job")
    assert "100 checkpoints x 4.05e+11 params x 14 B + 1.5e+13 tokens x 4 B" in e.why and "627 TB" in e.why
    r = report_of(m, catalog)
    assert r.to_json()["endpoints"]["storage"]["basis"] == "job"
    assert r.storage_usd == 2 * 400_000 and r.to_json()["totals"]["storage_usd"] == 2 * 400_000


def test_the_job_outweighs_the_ra_with_no_storage_block(catalog):
    """A 1T-parameter MoE (20B active) on 120T tokens over two years runs on a few hundred GPUs: the
    RA reads for them fit one appliance, while 5 x 1e12 x 14 B + 120e12 x 4 B = 70 + 480 = 550 TB
    needs two; the default takes the job's and says so."""
    from bom.pipeline import report_of

    text = JOB_STORAGE.replace("params: 405B, tokens: 15T", "params: 1T, active_params: 20B, tokens: 120T") \
        .replace("90 d", "730 d")
    m = _sized(catalog, text)
    e = m.endpoints
    assert _ra_count(m.cluster.gpus) == 1
    assert (e.storage_count, e.basis) == (2, "job") and "550 TB / 500 TB per appliance -> 2" in e.why
    (warning,) = [w for w in report_of(m, catalog).warnings if w.startswith("fabrics.storage")]
    assert "defaulted from the training job's capacity" in warning


def test_a_storage_block_with_no_size_and_no_job_is_refused(bom, tmp_path):
    f = tmp_path / "s.yaml"
    f.write_text(NO_STORAGE + "storage: {checkpoints: 5}\n")
    r = bom("build", str(f), "-o", str(tmp_path / "out"))
    assert r.exit_code == 2
    assert "no training job" in r.output and "storage" in r.output
    assert not (tmp_path / "out").exists()


# 1,872 GB300 GPUs (26 NVL72 racks) in a site of two compute blocks and one of one. The trays' 200G
# storage ports (NCP table 'GB200/GB300 Components') are a quarter of an SN5600 cage, and no part joins
# two switches split 1:4, so the leaves and spines join at their own rate (switch_rates): 800G fills
# every leaf-spine pair of the larger site (5 leaves of 27 x 800G over 3 spines: 9 a pair) but not the
# smaller's (4 leaves of 27 x 800G over 2 spines: 13.5 a pair), which takes 400G.
TWO_SHAPES = ("name: t\nplatform: gb300-nvl72\ngpus: 1872\n"
              "fabrics: {compute: {switch: q3400}, storage: {switch: sn5600}}\n"
              "sites: {split: [2, 1], topology: ring, distance: \"2 km\", dci_bandwidth: \"3.2 Tbit/s\"}\n")


def test_a_pooled_fabric_joins_leaves_and_spines_at_one_rate_over_its_sites(catalog):
    # The hops and the rules count a fabric at its first site shape's switch-to-switch rate, so the
    # planner takes one rate for every site: where 800G left the smaller site's links counted as
    # 800G ports on its 400G cages, its spines took 351 of their 320 ports and the plan ran out of cages.
    from bom.pipeline import check_design
    from tests.cableplan.test_rows import check_closed_form

    m = _build(catalog, TWO_SHAPES)
    f = m.fabrics["storage"]
    assert [(n, p.layers, p.up.rate_gbps, p.spine.rate_gbps) for n, p in f.shapes] == [
        (1, 2, 400.0, 400.0), (1, 2, 400.0, 400.0)]
    assert {g.rate_gbps for g in _hop(f, "leaf-spine")} == {400.0}
    assert check_design(m, catalog).errors == 0
    check_closed_form(m, catalog)   # the plan places every link the closed form counts


# 2,304 GB300 GPUs a rack a row: the far management switches' uplinks run 50.3 m to the in-band
# leaves in the shared racks. Their own 100G QSFP28 part fits no SN5600 cage split for the trays'
# 200G in-band ports, and the nodes' 200G part that would be counted in their place reaches 50 m at
# most (multimode: the catalog lists no 200G single-mode part).
LONG_HALL = ("name: s\nplatform: gb300-nvl72\ngpus: 2304\nlayout: {racks_per_row: 1}\n"
             "fabrics: {compute: {switch: q3400}, storage: {}, inband: {}, oob: {%s}}\n")


def test_oob_uplinks_no_part_reaches_get_spines_of_their_own(catalog):
    # Regression: the build's probe of whether a part joins the uplinks to the in-band leaves was
    # refused by the stand-in's reach ("no single-span part reaches 50.3 m at 200 Gbit/s"), so a
    # default scenario failed from about 20,000 GPUs a hall, said at a rate the uplinks never run at.
    from bom.pipeline import check_design

    m = _build(catalog, LONG_HALL % "")
    oob = m.fabrics["oob"]
    assert oob.spine_id == "sn4600c" and oob.spines > 0 and m.fabrics["inband"].hop_links("oob-leaf") == 0
    assert "qsfp28 at 100G" in oob.note and "200" not in oob.note.split("not into")[1]
    assert check_design(m, catalog).errors == 0
    # Asked into the in-band leaves, refused at the key to change; the hint applied as written builds.
    with pytest.raises(LimitError) as e:
        _build(catalog, LONG_HALL % "uplinks: inband")
    assert e.value.key == "fabrics.oob.uplinks"
    assert "qsfp28 uplinks at 100G reach no in-band leaf" in e.value.message
    assert "reaches 50.3 m at 200 Gbit/s" in e.value.message
    assert "set fabrics.oob.uplinks: spine" in e.value.hint
    asked = _build(catalog, LONG_HALL % "uplinks: spine")
    assert asked.fabrics["oob"].spines == oob.spines and check_design(asked, catalog).errors == 0
