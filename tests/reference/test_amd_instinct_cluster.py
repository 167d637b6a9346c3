"""Published AMD Instinct clusters: what their documents fix, counted by the tool.

Sources (read at stored copies; each number names its own):
- [Crusoe] MLCommons Inference v6.1 results, closed division, Crusoe system description
  512xMI355X_Crusoe_GPT.json: "Crusoe Cloud 64x8 MI355X (512 GPU)", number_of_nodes 64,
  accelerators_per_node 8, "8x AMD Pollara 400G RoCE per node (3200 Gbps aggregate/node)",
  accelerator_interconnect "XGMI (intra-node)", direct liquid-cooled.
- [ROCm] AMD ROCm documentation, "SGLang distributed inference with MoRI" (2026-01-29),
  Prerequisites: 8 MI355X per node and "8x AMD Pensando Pollara 400 AI NICs per node, providing a
  dedicated 1:1 mapping between GPUs and network interfaces".
- [JVD] Juniper Validated Design "AI Data Center Network with Juniper Apstra, AMD GPUs, and Vast
  Storage": GPU servers Supermicro AS-8125GS-TNMR2 with 8 MI300X 192 GB OAM (Solution
  Architecture, Table 1); GPU backend rail-aligned, GPU n to leaf n of its stripe (the JVD's GPU
  backend sections); the MI300X server end takes a QSFP-400G-DR4 (QSFP112, 400G) module
  (JVD for inference with AMD, Validated Optics Summary, Table 14).
- The AMD data sheets (Infinity Fabric: 7 links per GPU, all-to-all on the baseboard) were not
  read at a stored source; the catalog rows mark them unconfirmed.
No published AMD design with a switch and cable count for the backend fabric was found at a
stored source (the JVD's lab stripes give switch models, not counts for a full cluster), so the
switch counts below are the tool's, checked only for the rail structure the documents fix.
"""

from __future__ import annotations

import pytest

from bom.inputs.scenario import scenario_from_text
from bom.inputs.yamlio import load_text
from bom.pipeline import build_scenario, report_of
from bom.units import magnitude

CRUSOE = "name: crusoe-512-mi355x\nplatform: mi355x-platform\ngpus: 512\nfabrics: {compute: {}}\n"


@pytest.fixture(scope="module")
def crusoe(catalog):
    return report_of(build_scenario(scenario_from_text(CRUSOE), load_text(CRUSOE, "c.yaml"), catalog), catalog)


def test_crusoe_512_mi355x_nodes_and_nics(crusoe):
    m = crusoe.model
    assert m.cluster.nodes == 64 and m.platform.gpus_per_node == 8          # [Crusoe] 64 x 8
    nic = m.platform.scale_out
    assert nic.ports == 8 and nic.ports_per_cage == 1                       # [ROCm] 8 Pollara 400, 1:1
    assert nic.ports * magnitude(nic.rate, "rate") == 3200                  # [Crusoe] 3,200 Gb/s a node
    f = m.to_json()["fabrics"]["compute"]
    assert f["links"]["node-leaf"] == 512                                   # one 400G link per GPU
    assert f["topology"] == "rail-optimized"                                # [JVD] GPU n to leaf n


def test_crusoe_scale_up_is_on_the_baseboard(crusoe):
    up = crusoe.model.tiers()["scale-up"]
    # [Crusoe] XGMI intra-node: 8-GPU domains, all-to-all; 7 links per GPU (data sheet, unconfirmed).
    assert up["domains"] == 64 and up["gpus_per_domain"] == 8
    assert up["links"] == up["copper_links"] == 64 * 8 * 7 // 2 == 1792
    assert up["modules"] == up["fibre_runs"] == up["switch_chips"] == 0
    assert not [x for x in crusoe.lines if x.tier == "scale-up"]           # nothing bought per link


def test_jvd_mi300x_server_end_is_a_qsfp112_400g_part(catalog):
    text = "name: jvd\nplatform: mi300x-platform\nnodes: 32\nfabrics: {compute: {}}\n"
    r = report_of(build_scenario(scenario_from_text(text), load_text(text, "j.yaml"), catalog), catalog)
    p = r.model.platform
    assert p.gpu.startswith("MI300X") and magnitude(p.memory_per_gpu, "information") == 192   # [JVD] Table 1
    node_end = {x.catalog_id for x in r.lines if x.hop == "node-leaf" and x.category == "transceiver"}
    parts = [catalog.get("modules", c) for c in node_end]
    # [JVD] Table 14: the ConnectX-7 end of a server link is a QSFP112 400G module (the tool picks
    # the reach-appropriate one of that cage and rate; the JVD's lab used DR4).
    assert any(m.form_factor == "qsfp112" and magnitude(m.port_rate, "rate") == 400 for m in parts)
