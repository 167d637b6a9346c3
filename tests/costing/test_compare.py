"""Generation comparison: the seed's claims checked against the model, the workbook, bad input."""

from __future__ import annotations

import json

import openpyxl
import pytest

from bom.inputs.scenario import load_scenario
from bom.pipeline.compare import compare
from bom.resources import data_dir
from tests.spreadsheet import errors, recalc


@pytest.fixture(scope="module")
def generations(catalog):
    scenario, src = load_scenario(data_dir("scenarios") / "compare.yaml")
    return compare(scenario, src, catalog)


@pytest.fixture(scope="module")
def by_id(generations):
    return {g.platform.id: (g, m) for g, m in zip(generations.generations, generations.rows(), strict=True)}


def node_leaf_copper_share(g):
    groups = [x for x in g.report.model.groups if x.fabric == "compute" and x.hop == "node-leaf"]
    return sum(x.links for x in groups if x.copper) / sum(x.links for x in groups)


def test_default_generations_run_from_hgx_h100_to_vera_rubin(generations):
    ids = [g.platform.id for g in generations.generations]
    assert ids[0] == "hgx-h100" and ids[-1] == "vr-nvl144" and len(ids) == 7


def test_links_per_gpu_do_not_grow_while_the_domain_grows(by_id):
    chain = ["hgx-h100", "gb200-nvl72", "gb300-nvl72"]
    domains = [by_id[p][1]["gpus_per_domain"] for p in chain]
    links = [by_id[p][1]["scale_out_links_per_gpu"] for p in chain]
    assert domains == sorted(domains) and domains[0] == 8 and domains[-1] == 72
    # Links per GPU follow the layers, and the layers the switch radix, not the domain: HGX H100
    # on SN5600 (128 x 400G, two rails per leaf) and GB300 on Q3400 (144 x 800G) fit 4,608 GPUs
    # in two layers (one node link and one leaf-spine link per GPU); GB200 on the 64-port QM9700
    # needs three, so it has more (the spine-core hop: 1.04 per GPU with a partial last pod).
    # (GB300's InfiniBand adds its UFM appliances' 4 ports, on the spines' free ports: 4 / 4,608.)
    assert links[0] == 2.0 and links[2] == 2.0 + 4 / 4608 and 3.0 < links[1] < 3.1, links
    # Vera Rubin doubles the links per GPU: each 1.6T ConnectX-9 port is two 800G planes
    # (the catalog has no 1.6T switch port). Per Tbit/s of scale-out bandwidth per GPU the
    # links do not grow: the links get fatter, not more numerous.
    per_tbps = {p: m["scale_out_links_per_gpu"] / (m["scale_out_gbps_per_gpu"] / 1000) for p, (_, m) in by_id.items()}
    # (Both add their UFM appliances' 4 ports, one link each whatever the planes.)
    ufm = 4 / 4608
    assert by_id["vr-nvl144"][1]["scale_out_links_per_gpu"] - ufm == pytest.approx(
        2 * (by_id["gb300-nvl72"][1]["scale_out_links_per_gpu"] - ufm))
    assert per_tbps["vr-nvl144"] <= per_tbps["gb300-nvl72"] <= per_tbps["hgx-h100"] <= per_tbps["gb200-nvl72"]


def test_copper_share_of_scale_out_falls_where_the_model_says_why(by_id):
    hgx, gb200, gb300 = (by_id[p] for p in ("hgx-h100", "gb200-nvl72", "gb300-nvl72"))
    # The seed says the copper share falls from HGX H100 to GB200 NVL72. In the model the
    # node-leaf hop has the same copper share in both: each GPU has one 400G port on 100G
    # lanes, an SU is 8 racks around a leaf rack, and the two racks beside it are within the
    # 3 m of a DAC splitter (2.9 m runs), so 2 of 8 racks are copper in both generations.
    assert node_leaf_copper_share(hgx[0]) == pytest.approx(0.25)
    assert node_leaf_copper_share(gb200[0]) == pytest.approx(0.25)
    # Over the whole tier GB200 is higher: its three layers add a spine-core hop (1.04 links per
    # GPU), and its spines and cores stand side by side in the network racks in the middle of the
    # hall, most of them a rack or two apart: short enough for active copper (ACC, 5 m). The
    # leaf-spine hop, from the SUs' network racks to the middle, is optical in both.
    assert 0 < hgx[1]["scale_out_copper_share"] < gb200[1]["scale_out_copper_share"]
    assert all(g.medium == "multimode" for g in gb200[0].report.model.fabrics["compute"].groups
               if g.hop == "leaf-spine")
    # The fall comes with 200G lanes: no passive copper at 200G-PAM4 and active copper
    # splitters reach 2 m, short of the 2.9 m to the next rack, so GB300 has none at all.
    assert gb300[1]["scale_out_copper_share"] == 0 < hgx[1]["scale_out_copper_share"]
    assert by_id["vr-nvl144"][1]["scale_out_copper_share"] == 0
    # DGX H100's twin-port NIC cages each carry two rails to two leaves: no straight copper
    # cable can split like that, so its node links are all optical.
    assert node_leaf_copper_share(by_id["dgx-h100"][0]) == 0
    # By cost copper is a much smaller share than by count (a DAC costs a fraction of two optics).
    assert hgx[1]["scale_out_copper_cost_share"] < hgx[1]["scale_out_copper_share"]


@pytest.mark.slow   # starts LibreOffice
def test_every_comparison_figure_recalculated_equals_the_json(bom, tmp_path):
    out = tmp_path / "c"
    # The last column is the same platform on co-packaged-optics switches (platform@switch).
    r = bom("compare", "-o", str(out), "-q", "--gpus", "1152", "--platforms",
            "hgx-h100,gb200-nvl72,gb300-nvl72,gb300-nvl72@q3450-ld")
    assert r.exit_code == 0, r.stderr
    j = json.loads((out / "generations-compare.json").read_text())
    done = recalc(out / "generations-compare.xlsx", tmp_path)
    assert errors(done) == []
    ws = openpyxl.load_workbook(done, data_only=True)["Comparison"]
    assert [ws.cell(1, 4 + k).value for k in range(4)] == ["hgx-h100", "gb200-nvl72", "gb300-nvl72",
                                                         "gb300-nvl72@q3450-ld"]
    assert ws.cell(1, 3).value == "Scope"
    checked = 0
    for row in range(2, ws.max_row + 1):
        metric = ws.cell(row, 2).value
        if metric is None:
            break
        assert ws.cell(row, 1).value != metric   # a label in words
        assert ws.cell(row, 3).value == j["scopes"][metric]
        for k, g in enumerate(j["generations"]):
            assert ws.cell(row, 4 + k).value == pytest.approx(g["metrics"][metric], rel=1e-4, abs=1e-9), metric
            checked += 1
    assert checked == 4 * len(j["generations"][0]["metrics"])
    cpo = j["generations"][3]["metrics"]
    assert cpo["laser_sources_per_gpu"] > 0 and cpo["engine_ports_per_gpu"] > 0   # checked above as formulas
    wb = openpyxl.load_workbook(out / "generations-compare.xlsx")
    assert wb.sheetnames == ["Comparison", "Inputs", "hgx-h100", "gb200-nvl72", "gb300-nvl72", "gb300-nvl72@q3450-ld"]
    assert len(wb["Comparison"]._charts) == 4   # copper share, pluggables, optics power, network capex per GPU


def test_deltas_against_the_previous_generation(generations):
    j = generations.to_json()["generations"]
    assert j[0]["delta"] is None
    for prev, cur in zip(j, j[1:], strict=False):
        assert cur["delta"]["usd_per_gpu_hour"] == pytest.approx(
            cur["metrics"]["usd_per_gpu_hour"] - prev["metrics"]["usd_per_gpu_hour"], abs=1e-5)


def test_unknown_platform_suggests(bom, tmp_path):
    r = bom("compare", "-o", str(tmp_path / "x"), "--platforms", "hgx-h100,gb200-nvl27")
    assert r.exit_code == 2 and "Did you mean 'gb200-nvl72'" in r.stderr and not (tmp_path / "x").exists()


def test_a_domain_larger_than_the_job_is_built_whole_with_a_note(bom, tmp_path):
    r = bom("compare", "-o", str(tmp_path / "x"), "--platforms", "hgx-h100,gb200-nvl72", "--gpus", "16")
    assert r.exit_code == 0
    said = " ".join(r.stdout.split())
    assert "16 GPUs asked; gb200-nvl72 is bought in whole racks of 72 GPUs, so 72 are built" in said


def test_one_platform_is_a_one_column_comparison(bom, tmp_path):
    r = bom("compare", "-o", str(tmp_path / "x"), "--platforms", "gb300-nvl72", "--json")
    assert r.exit_code == 0 and "no previous generation" not in r.stdout
    assert len(json.loads(r.stdout)["generations"]) == 1


def test_a_node_count_cannot_be_compared(bom, tmp_path):
    path = tmp_path / "n.yaml"
    path.write_text("name: n\nplatform: dgx-h100\nnodes: 16\n")
    r = bom("compare", str(path), "-o", str(tmp_path / "x"))
    assert r.exit_code == 2 and "--gpus" in r.stderr
    assert bom("compare", str(path), "-o", str(tmp_path / "x"), "--gpus", "128", "-q").exit_code == 0


def test_every_generation_builds_the_storage_in_band_and_oob_fabrics(generations):
    for g in generations.generations:
        fabrics = g.report.model.fabrics
        built = {"storage", "inband", "oob"} - set(g.left_out)
        assert built <= set(fabrics), g.platform.id
        assert fabrics["oob"].devices > g.report.model.cluster.nodes     # BMCs and every switch, PDU, server
    # HGX H100's 200G BlueField-3 ports reach a Spectrum-4 cage split 4 x 200G (MMA4Z00-NS over
    # MFP7E20 to MMA1Z00-NS400 at 200G): that generation builds both fabrics too (before, it was
    # compared without them).
    hgx = next(g for g in generations.generations if g.platform.id == "hgx-h100")
    assert hgx.left_out == () and {"storage", "inband"} <= set(hgx.report.model.fabrics)
    dgx = next(g for g in generations.generations if g.platform.id == "dgx-h100")
    assert dgx.left_out == () and dgx.report.model.fabrics["inband"].first.leaf.id == "sn4600c"   # the RA's


def test_each_metric_says_what_it_is_about(by_id, generations):
    scopes = generations.to_json()["scopes"]
    assert set(scopes) == set(generations.rows()[0])
    assert scopes["scale_out_links_per_gpu"] == scopes["scale_out_copper_share"] == "compute fabric"
    assert scopes["modules_per_gpu"] == scopes["switches_per_gpu"] == scopes["network_capex_per_gpu"] == "whole network"
    g, m = by_id["dgx-h100"]
    model = g.report.model
    gpus = model.cluster.gpus
    # Compute fabric: its own links; whole network: every fabric's modules and switches.
    assert m["scale_out_links_per_gpu"] * gpus == pytest.approx(sum(x.links for x in model.fabrics["compute"].groups))
    assert m["modules_per_gpu"] * gpus == pytest.approx(sum(x.modules for x in model.groups))
    support = [x for k in ("storage", "inband", "oob") for x in model.fabrics[k].groups]
    assert sum(x.links for x in support) > 0
    assert m["support_links_per_gpu"] * gpus == pytest.approx(sum(x.links for x in support))
    switches = sum(f.switches(k) for f in model.fabrics.values() for k in ("leaf", "spine", "core"))
    assert m["switches_per_gpu"] * gpus == pytest.approx(switches)
    assert m["support_switches_per_gpu"] * gpus == pytest.approx(
        sum(model.fabrics[f].switches(k) for f in ("storage", "inband", "oob") for k in ("leaf", "spine", "core")))


# --- the same platform on pluggable and co-packaged-optics switches (platform@switch) -----------

@pytest.fixture(scope="module")
def packaging(catalog):
    from bom.inputs.scenario import scenario_from_text
    from bom.inputs.yamlio import load_text
    from bom.pipeline.compare import compare

    text = "name: packaging\ngpus: 576\nfabrics:\n  compute: {}\n"
    return compare(scenario_from_text(text), load_text(text, "packaging.yaml"), catalog,
                   ["gb300-nvl72", "gb300-nvl72@q3450-ld"])


def test_a_row_is_platform_and_switch(packaging):
    plug, cpo = packaging.generations
    assert (plug.label, cpo.label) == ("gb300-nvl72", "gb300-nvl72@q3450-ld")
    assert (plug.compute_switch, cpo.compute_switch) == ("q3400", "q3450-ld")
    j = packaging.to_json()["generations"]
    assert [g["switch"] for g in j] == ["q3400", "q3450-ld"] and j[1]["year"] == j[0]["year"]


def test_cpo_row_has_fewer_pluggables_and_counts_lasers(packaging):
    p, c = packaging.rows()
    # 576 GPUs: pluggable 576 NIC + 864 switch-end modules; CPO only the 576 NIC modules
    # (tests/reference/test_cpo_gb300.py derives the counts).
    assert p["modules_per_gpu"] == pytest.approx(1440 / 576) and c["modules_per_gpu"] == pytest.approx(1.0)
    assert p["engine_ports_per_gpu"] == 0 and c["engine_ports_per_gpu"] == pytest.approx(1728 / 576)
    assert p["laser_sources_per_gpu"] == 0 and c["laser_sources_per_gpu"] == pytest.approx(216 / 576)
    # Optics power: modules at 16 W (NIC) and 25 W (switch twin-port), lasers at 20 W (catalog rows).
    assert p["optics_power_w_per_gpu"] == pytest.approx((576 * 16 + 864 * 25) / 576)
    assert c["optics_power_w_per_gpu"] == pytest.approx((576 * 16 + 216 * 20) / 576)


def test_packaging_workbook_formulas_agree(packaging, tmp_path):
    from bom.outputs.writers.compare_xlsx import workbook
    wb = workbook(packaging)
    ws = wb["Comparison"]
    assert [ws.cell(1, k).value for k in (4, 5)] == ["gb300-nvl72", "gb300-nvl72@q3450-ld"]
    keys = [ws.cell(r, 2).value for r in range(2, ws.max_row + 1)]
    for metric in ("engine_ports_per_gpu", "laser_sources_per_gpu", "optics_power_w_per_gpu"):
        assert metric in keys and str(ws.cell(keys.index(metric) + 2, 5).value).startswith("=")


def test_packaging_html_colours_the_cpo_bar(packaging):
    from bom.outputs.writers.compare_text import COLOURS, write_compare_html
    html = write_compare_html(packaging).decode()
    assert 'data-platform="gb300-nvl72@q3450-ld"' in html and COLOURS["cpo"] in html
    assert "co-packaged optics" in html


def test_unknown_switch_in_an_entry_is_a_clear_error(bom, tmp_path):
    r = bom("compare", "--platforms", "gb300-nvl72@q3451", "--gpus", "576", "-o", str(tmp_path / "o"))
    assert r.exit_code == 2 and "q3450-ld" in r.output and "platform@switch" in r.output


# --- like with like (issue 30) ------------------------------------------------------------------

def test_copper_share_per_tier_side_by_side(by_id, generations, bom, tmp_path):
    """Scale-up, scale-out and whole-cluster copper share, each from the model's own link counts."""
    g, m = by_id["gb300-nvl72"]
    t = g.report.totals
    up, net = t.scale_up, t.network
    assert m["scale_out_copper_share"] == 0.0 and m["scale_up_copper_share"] > 0.9   # NVLink copper, all-optic IB
    assert m["cluster_copper_share"] == pytest.approx((up.copper_links + net.copper_links) / (up.links + net.links))
    assert generations.to_json()["scopes"]["cluster_copper_share"] == "whole cluster"
    out = bom("compare", "-o", str(tmp_path / "c"), "-q").stdout
    header = out.splitlines()[0]
    assert header.index("copper scale-up") < header.index("copper scale-out") < header.index("copper all")
    html = (tmp_path / "c" / "generations-compare.html").read_text()
    assert all(f'data-metric="{k}"' in html for k in ("scale_up_copper_share", "scale_out_copper_share",
                                                       "cluster_copper_share"))


def test_bars_missing_a_fabric_are_marked_not_comparable(generations, bom, tmp_path):
    # Every built-in generation now builds every fabric (HGX H100's 200G ports take the 4 x 200G split):
    # none is marked. TPU v5p builds no storage or in-band fabric beside DGX H100, which does: its
    # whole-network and cost figures are not comparable, its compute ones are.
    assert all(not g["not_comparable"] for g in generations.to_json()["generations"])
    r = bom("compare", "--platforms", "dgx-h100,tpu-v5p-pod", "-o", str(tmp_path / "c"), "-q", "--json")
    marks = {g["platform"]: set(g["not_comparable"]) for g in json.loads(r.stdout)["generations"]}
    assert {"network_capex_per_gpu", "modules_per_gpu", "usd_per_gpu_hour"} <= marks["tpu-v5p-pod"]
    assert "scale_out_copper_share" not in marks["tpu-v5p-pod"] and not marks["dgx-h100"]
    out = bom("compare", "--platforms", "dgx-h100,tpu-v5p-pod", "-o", str(tmp_path / "c"), "-q").stdout
    tpu = next(line for line in out.splitlines() if line.startswith("tpu-v5p-pod"))
    assert tpu.count(" *") == 5 and "not comparable" in out
    assert "usd_per_useful_gpu_hour" in marks["tpu-v5p-pod"] and "goodput" not in marks["tpu-v5p-pod"]
    html = (tmp_path / "c" / "generations-compare.html").read_text()
    assert "not comparable" in html and html.count('fill="#b8bec8"') == 5


def test_columns_that_all_lack_a_fabric_compare_with_each_other(bom, tmp_path):
    r = bom("compare", "--platforms", "tpu-v5p-pod,tpu-ironwood-pod", "-o", str(tmp_path / "t"), "-q", "--json")
    gens = json.loads(r.stdout)["generations"]
    assert all(g["left_out"] and not g["not_comparable"] for g in gens)


def test_equal_network_figures_are_explained(bom, tmp_path):
    """TPU v5p and Ironwood: the catalog rows give the same cube, OCS, optics and host ports, so the
    scale-up, compute-fabric and optics figures are equal; the column says why."""
    r = bom("compare", "--platforms", "tpu-v5p-pod,tpu-ironwood-pod", "-o", str(tmp_path / "t"), "-q", "--json")
    a, b = json.loads(r.stdout)["generations"]
    assert a["metrics"]["modules_per_gpu"] == b["metrics"]["modules_per_gpu"]
    assert "figures equal the previous column's (tpu-v5p-pod)" in b["kind_note"]
    assert "assumed" in b["kind_note"]
    assert a["metrics"]["usd_per_gpu_hour"] != b["metrics"]["usd_per_gpu_hour"]


def test_notes_say_cages_in_words(generations, bom):
    # HGX H100 no longer leaves a fabric out, so its note names none; a cage the catalog has no part
    # for is still said in words (two 200G quarter-cages of 800G OSFP switches: no part joins them).
    hgx = next(g for g in generations.generations if g.platform.id == "hgx-h100")
    assert hgx.left_out == () and "no storage fabric" not in (hgx.note or "")
    r = bom("lookup", "--rate", "200G", "--reach", "5 m", "--form-factor", "osfp:4:spread",
            "--far-form-factor", "osfp:4:spread")
    assert r.exit_code == 2 and "an osfp cage serving 4 ports to 4 devices" in r.stderr
    assert ":spread" not in r.stderr


# --- cost per unit of compute and the Scope column (issue 47) ------------------------------------

def test_cost_per_dense_pflop_hour_per_dtype(generations, packaging):
    """The cost per GPU-hour over the GPU's dense PFLOP/s at each dtype (catalog bf16_dense, fp8_dense,
    fp4_dense); a dtype one column's GPU lacks (HGX H100: no FP4) is left out of the whole comparison."""
    for comparison, dtypes in ((generations, ("bf16", "fp8")), (packaging, ("bf16", "fp8", "fp4"))):
        rows = comparison.rows()
        for g, m in zip(comparison.generations, rows, strict=True):
            for d in dtypes:
                pflops = g.platform.flops_per_gpu(d) / 1e15
                assert m[f"usd_per_pflop_hour_{d}"] == pytest.approx(m["usd_per_gpu_hour"] / pflops), (g.label, d)
        assert ("usd_per_pflop_hour_fp4" in rows[0]) == ("fp4" in dtypes)
        scopes = comparison.to_json()["scopes"]
        assert all(scopes[f"usd_per_pflop_hour_{d}"] == "cluster" for d in dtypes)
    h100 = next(m for g, m in zip(generations.generations, generations.rows(), strict=True)
                if g.platform.id == "hgx-h100")
    assert h100["usd_per_pflop_hour_fp8"] < h100["usd_per_pflop_hour_bf16"]   # FP8 twice BF16's rate


def test_the_comparison_sheet_has_a_scope_column(packaging):
    """The README promises a Scope column in the comparison workbook: what each figure is about."""
    from bom.costing.compare import SCOPES
    from bom.outputs.writers.compare_xlsx import workbook

    ws = workbook(packaging)["Comparison"]
    assert [ws.cell(1, k).value for k in (1, 2, 3)] == ["Metric", "Key", "Scope"]
    keys = {ws.cell(r, 2).value: r for r in range(2, len(packaging.rows()[0]) + 2)}
    assert set(keys) == set(packaging.rows()[0])
    for key, r in keys.items():
        assert ws.cell(r, 3).value == SCOPES[key], key
    assert str(ws.cell(keys["usd_per_pflop_hour_fp4"], 4).value).startswith("=IF(")
