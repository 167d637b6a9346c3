"""200G QSFP112 NIC ports on 800G twin-port OSFP switch cages (storage and in-band fabrics).

HGX H100, MI300X and MI355X platforms have their storage and in-band ports as 200G QSFP112
(ConnectX-7 / BlueField-3); their default leaf, the SN5600, serves 4 x 200G per 800G OSFP cage.
The parts NVIDIA documents for that link (read 2026-12-06):

- NVIDIA MMA1Z00-NS400-T product spec, Overview (docs.nvidia.com/networking/display/MMA1Z00NS400T/
  Overview): "200Gb/s mode: Using 2-channels and 1:2 splitter 50-meter crossover fiber cables
  (MFP7E20), the transceiver operates at 200Gb/E rate and draws 5 Watts maximum ... This case
  creates links to four 200Gb/s ConnectX-7/QSFP112 of BlueField-3/QSFP112 adapter cards" (from
  one twin-port MMA4Z00-NS in the switch).
- NVIDIA MMA4Z00-NS-T product spec, Overview: "Twin-port multimode OSFP transceivers remain at 15
  Watts for all configurations".
- Copper: the 1:4 QSFP112 DAC splitter MCP7Y40 is named in the MCP7Y10 spec (Sep 2024), but the
  LinkX 100G-PAM4 guide (Nov 2025) says the QSFP112 DAC splitters are discontinued (catalogs/
  cables.yaml, mcp7y10-n notes), so no copper row is added: short and long runs take the optics.

So per 200G link: one MMA1Z00-NS400 at the NIC (5 W), a quarter of an MMA4Z00-NS at the switch
(15 / 4 = 3.75 W), half an MFP7E20 1:2 splitter (one splitter per switch MPO, two links); 50 m
reach on OM4 (the splitter's and the SR4 optics' figure).
"""

from __future__ import annotations

import math
from collections import defaultdict

import pytest

from bom.cableplan import rows as plan
from bom.catalog.media import cage, media_for
from bom.errors import LimitError
from bom.inputs.scenario import scenario_from_text
from bom.inputs.yamlio import load_text
from bom.model.checks import WARNING
from bom.pipeline.model import build_model
from bom.rules.run import check
from tests.cableplan.test_rows import check_closed_form

PLATFORMS = ("hgx-h100", "mi300x-platform", "mi355x-platform")
#: Short: 64 nodes, storage and in-band leaves in the blocks' network racks (in-row runs, <= 5 m).
SHORT = "name: t\nplatform: {p}\nnodes: 64\nfabrics: {{compute: {{}}, inband: {{}}, storage: {{}}}}\n"
#: Long: 32 nodes on one leaf in the shared rack, rows 6 m apart and two patch panels on every
#: cross-row run: 9.5-21.5 m runs through 4 mated pairs besides the modules' own.
LONG = ("name: t\nplatform: {p}\nnodes: 32\nlayout: {{racks_per_row: 4, row_pitch: \"6 m\", patch_panels: 2}}\n"
        "fabrics: {{compute: {{}}, inband: {{}}, storage: {{}}}}\n")
C = plan.COL


def _model(catalog, text):
    return build_model(scenario_from_text(text), load_text(text, "t.yaml"), catalog, None)


def _split_groups(model, fabric):
    return [g for g in model.fabrics[fabric].groups if g.rate_gbps == 200.0]


@pytest.fixture(scope="module", params=[(p, k) for p in PLATFORMS for k in ("short", "long")],
                ids=lambda pk: f"{pk[0]}-{pk[1]}")
def case(request, catalog):
    p, kind = request.param
    return kind, _model(catalog, (SHORT if kind == "short" else LONG).format(p=p))


def test_builds_and_checks_clean(case, catalog):
    kind, model = case
    checks = check(model, catalog, plan=True)
    assert [r.id for r in checks.failed if r.severity != WARNING] == []
    for fabric in ("storage", "inband"):
        groups = [g for g in _split_groups(model, fabric) if g.hop == "node-leaf"]
        assert groups, fabric
        for g in groups:
            o = g.choice.option
            assert (g.lower_end.part.part_number, g.lower_end.form_factor, g.lower_end.ports) == (
                "MMA1Z00-NS400", "qsfp112", 1)
            assert (g.upper_end.part.part_number, g.upper_end.form_factor, g.upper_end.ports) == (
                "MMA4Z00-NS", "osfp", 4)
            assert (o.fibre.part_number, o.fibre.kind, o.fibre.splits, o.lane_gbps) == (
                "MFP7E20-N0xx", "splitter", 2, 100.0)
            assert o.fixed_power_w == pytest.approx(15 / 4 + 5)   # the two specs' figures above
            if kind == "short":
                assert g.bucket == "in-row" and g.length_m <= 5 and g.choice.panels == 0
            else:
                assert g.bucket == "cross-row" and g.choice.panels == 2
                assert g.choice.loss_db <= o.loss_budget_db
    if kind == "long":
        assert max(g.length_m for g in _split_groups(model, "storage")) > 20


def test_buyers_counts_closed_form_against_the_plan(case, catalog):
    """Per fabric: a NIC module per 200G port, a twin-port module per 4 ports a leaf takes (per
    leaf, rounded up), a splitter per 2 links; the closed form's counts equal the plan's rows."""
    _, model = case
    check_closed_form(model, catalog)
    rows = list(plan.rows(model, catalog=catalog))
    for fabric in ("storage", "inband"):
        split = [r for r in rows if r[C["fabric"]] == fabric and r[C["cable_part"]].startswith("MFP7E20")]
        per_leaf: dict[str, int] = defaultdict(int)
        for r in split:
            per_leaf[r[C["b_device"]]] += 1
        cages = {(r[C["b_device"]], r[C["b_port"]].split("/")[0]) for r in split}
        bundles = {r[C["bundle"]] for r in split}
        groups = _split_groups(model, fabric)
        links = sum(g.links for g in groups)
        assert len(split) == links                                     # one fibre run per 200G link
        assert sum(g.modules_lower for g in groups) == links == sum(
            r[C["a_module"]] == "MMA1Z00-NS400" for r in split)       # one NIC module per port
        assert sum(g.modules_upper for g in groups) == len(cages) == sum(
            math.ceil(n / 4) for n in per_leaf.values())               # one MMA4Z00-NS per 4 ports
        assert sum(g.cables for g in groups) == len(bundles) == sum(
            math.ceil(g.fibre_runs / 2) for g in groups)               # one MFP7E20 per 2 links


def test_storage_64_nodes_in_numbers(catalog):
    # HGX H100, 64 nodes x 2 storage ports = 128 links, on 3 leaves of whole 4-port cages (48, 48, 32):
    # 128 MMA1Z00-NS400, 32 MMA4Z00-NS, 64 MFP7E20; the appliances' 8 links add 8, 2 and 4.
    model = _model(catalog, SHORT.format(p="hgx-h100"))
    node = [g for g in _split_groups(model, "storage") if g.hop == "node-leaf"]
    assert (sum(g.links for g in node), sum(g.modules_lower for g in node), sum(g.modules_upper for g in node),
            sum(g.cables for g in node)) == (128, 128, 32, 64)
    # The leaves and spine join at 800G (no part joins two 200G quarter-cages): 36 links.
    ls = [g for g in model.fabrics["storage"].groups if g.hop == "leaf-spine"]
    assert {g.rate_gbps for g in ls} == {800.0} and sum(g.links for g in ls) == 36


def test_large_fabric_joins_its_switches_at_400g_where_800g_ports_do_not_divide(catalog):
    # 1,024 HGX H100: 34 storage leaves on 8 spines; the pairs do not take whole 800G ports, so they
    # join at 400G (MMA4Z00-NS twin-port at both ends), not at 200G (no such part).
    model = _model(catalog, SHORT.format(p="hgx-h100").replace("nodes: 64", "nodes: 1024"))
    ls = [g for g in model.fabrics["storage"].groups if g.hop == "leaf-spine"]
    assert {g.rate_gbps for g in ls} == {400.0}
    checks = check(model, catalog)
    assert [r.id for r in checks.failed if r.severity != WARNING] == []


def test_the_lookup_pairs_split_mode_modules_only_over_a_splitter(catalog):
    media = media_for(catalog)
    sw, nic = cage("osfp", 4, True), cage("qsfp112", 1)
    c = media.lookup(200, 20, sw, nic, 100).choice
    assert (c.option.a.part.part_number, c.option.b.part.part_number, c.part_number) == (
        "MMA1Z00-NS400", "MMA4Z00-NS", "MFP7E20-N020")
    # Single-mode where multimode is not allowed: MMS4X00-NS over the MFP7E40 splitter.
    c = media.restricted(("smf-parallel",)).lookup(200, 20, sw, nic, 100).choice
    assert {c.option.a.part.part_number, c.option.b.part.part_number, c.option.fibre.part_number} == {
        "MMS1X00-NS400", "MMS4X00-NS", "MFP7E40-N0xx"}
    # 50 m is the most either reaches (the split single-mode link's cap, catalogs/fibre.yaml mfp7e40-n).
    with pytest.raises(LimitError, match="longest reach available is 50 m"):
        media.lookup(200, 60, sw, nic, 100)
    # A 2-lane port is never fed by a straight trunk, and two split cages are never joined.
    for o in media.by_rate[200.0]:
        mods = [e.part for e in (o.a, o.b) if e.part is not None]
        if any(m.lit_strands == 4 for m in mods):
            assert o.fibre is not None and o.fibre.kind == "splitter" and {o.a.ports, o.b.ports} == {1, 4}
    with pytest.raises(LimitError):
        media.lookup(200, 5, sw, sw, 100)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_the_reported_scenario_checks_clean_from_the_cli(platform, bom, tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(SHORT.format(p=platform))
    r = bom("check", str(path))
    assert r.exit_code == 0 and "no error" in r.stdout, r.stderr


def test_a_run_past_50_m_is_refused_with_the_reach(bom, tmp_path):
    # Rows 20 m apart put the single storage leaf 63.5 m from the farthest node: nothing sold reaches.
    path = tmp_path / "s.yaml"
    path.write_text(LONG.format(p="hgx-h100").replace('"6 m"', '"20 m"'))
    r = bom("check", str(path))
    assert r.exit_code == 2 and "fabrics.storage" in r.stderr and "longest reach available is 50 m" in r.stderr
    assert "Traceback" not in r.stderr
