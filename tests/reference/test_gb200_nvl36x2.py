"""GB200 NVL36x2: two racks of 36 GPUs, one 72-GPU NVLink domain (issue 42, item 6).

Source: NVIDIA GB200 NVL Multi-Node Tuning Guide, "Understanding Your Grace-Blackwell Systems"
(docs.nvidia.com/multi-node-nvlink-systems/multi-node-tuning-guide/system.html, last updated 2025-04-21),
"The 36x2 Configuration": MGX racks, each with 9 x 2RU compute trays (4 GPUs a tray: 36 GPUs) and 9 x 1RU
NVL36 NVLink switch trays; "The GB200 architecture supports 36x2 and 72x1 configurations".

Hand-checked (bom/topology/scaleup.py; the catalog row's notes say which facts are unconfirmed): a GPU has 18
NVLink 5 links (1.8 TB/s at 100 GB/s a link), one to each of the 18 switch chips of its own rack (9 trays x 2
chips); a chip's 72 ports take 36 GPUs and carry 36 links to the same chip of the other rack. Per domain:

- GPU to switch chip: 72 GPUs x 18 = 1,296 links (as the NVL72), on each rack's cable cartridges;
- between the racks: 18 chips x 36 ports = 648 links = 36 GPUs x 18 (the pair is non-blocking);
- cables between the racks: 648 / 4 links a cable (an NVLink 5 link is 2 lanes of 200G each way, an OSFP
  1.6T cage 8 lanes) = 162, 18 a switch tray (72 links / 4).
"""

from __future__ import annotations

from collections import Counter

import pytest

from bom.cableplan import rows as plan
from bom.catalog.rows import Platform
from bom.costing.lines import scale_up_lines
from bom.errors import BomError
from bom.inputs.scenario import scenario_from_text
from bom.inputs.yamlio import load_text
from bom.outputs.terminal import build_summary
from bom.pipeline.checks import check_design
from bom.pipeline.model import build_model
from bom.placement.elevation import HEADER, elevation_rows
from bom.rules.lengths import rack_place
from bom.topology import preflight
from bom.topology.geometry import route
from bom.topology.scaleup import scale_up

TEXT = """name: nvl36x2
platform: gb200-nvl36x2
gpus: 144
"""


def _model(catalog, text: str = TEXT):  # type: ignore[no-untyped-def]
    return build_model(scenario_from_text(text), load_text(text, "nvl36x2.yaml"), catalog, None)


@pytest.fixture(scope="module")
def model(catalog):  # type: ignore[no-untyped-def]
    return _model(catalog)


def test_one_domain_counted(catalog) -> None:  # type: ignore[no-untyped-def]
    p = catalog.platform("gb200-nvl36x2")
    up = scale_up(p, 72)
    assert (up.domains, up.links, up.switch_chips, up.switch_trays) == (1, 1296, 36, 18)
    assert (up.inter_rack_links, up.inter_rack_cables) == (648, 162)
    j = up.to_json()
    assert (j["links"], j["inter_rack_links"], j["inter_rack_cables"]) == (1296, 648, 162)
    # The NVL72's JSON has no inter-rack keys (its outputs unchanged).
    assert "inter_rack_links" not in scale_up(catalog.platform("gb200-nvl72"), 72).to_json()
    # The BOM buys the cables (the systems hold the rest).
    [line] = scale_up_lines(p, up)
    assert (line.hop, line.quantity, line.sku) == ("nvswitch-nvswitch", 162, p.scale_up.inter_rack.cable.part_number)


def test_racks_and_power(model) -> None:  # type: ignore[no-untyped-def]
    """144 GPUs: 2 systems, 4 compute racks of 9 trays; a rack holds half a system (66 kW of its 132 kW)."""
    p = model.placement
    compute = [r for r in p.racks() if r.kind == "compute"]
    assert len(compute) == 4 and model.floor.nodes_per_rack == 9
    for rack in compute:
        roles = Counter(s.role for s in p.elevation(rack))
        assert (roles["node"], roles["nvlink-switch"], roles["power-shelf"]) == (9, 9, 4)
    assert model.platform.node_power_w * 9 == pytest.approx(66_000)


def test_bom_check_passes(model, catalog) -> None:  # type: ignore[no-untyped-def]
    checks = check_design(model, catalog)
    assert not checks.failed


def test_the_plan_cables_each_domain_rack_to_rack(model, catalog) -> None:  # type: ignore[no-untyped-def]
    rows = list(plan.rows(model, catalog=catalog, scale_up=True))
    c = plan.COL
    gpu = [r for r in rows if r[c["hop"]] == "gpu-nvswitch"]
    across = [r for r in rows if r[c["hop"]] == "nvswitch-nvswitch"]
    assert (len(gpu), len(across)) == (2 * 1296, 2 * 648)
    assert len(rows) == plan.row_count(model, scale_up=True)
    # A GPU's links stay in its rack; the links between racks join a system's two racks, 648 each way.
    assert all(r[c["a_rack"]] == r[c["b_rack"]] for r in gpu)
    pairs = Counter((r[c["a_rack"]], r[c["b_rack"]]) for r in across)
    assert sorted(pairs.values()) == [648, 648] and all(a != b for a, b in pairs)
    # Four links a cable (the rows' bundle), 18 cages a switch tray; no switch port taken twice.
    assert len({r[c["bundle"]] for r in across}) == 2 * 162
    assert plan.tally(iter(rows)).cables["nvlink"] == 2 * 162
    per_tray = Counter(r[c["a_device"]] for r in across)
    assert set(per_tray.values()) == {72}
    ends = Counter((r[c[f"{s}_device"]], r[c[f"{s}_port"]]) for r in across for s in "ab")
    ends.update((r[c["b_device"]], r[c["b_port"]]) for r in gpu)
    assert max(ends.values()) == 1


def test_a_cable_between_the_racks_runs_the_route_between_them(catalog) -> None:  # type: ignore[no-untyped-def]
    """Each row between a system's racks has the floor plan's run between them (bom/topology/geometry.py
    route: the rise at both ends, the racks along the row, the slack): side by side, a rack width apart.
    The generic cable has no published lengths, so no sold length; the plan's route rule passes."""
    m = _model(catalog, TEXT.replace("gpus: 144", "gpus: 1152"))
    c = plan.COL
    across = [r for r in plan.rows(m, catalog=catalog, scale_up=True) if r[c["hop"]] == "nvswitch-nvswitch"]
    assert len(across) == 16 * 648
    fp = m.floor
    for r in across[::97]:
        a, b = rack_place(r[c["a_rack"]]), rack_place(r[c["b_rack"]])
        assert a[0] == b[0] and abs(a[1] - b[1]) == 1   # side by side (test_a_systems_racks_stand_side_by_side)
        assert r[c["length_m"]] == route(a, b, fp).length_m == round(fp.run(0, fp.rack_width_m), 3)
        assert (r[c["bucket"]], r[c["sold_length_m"]]) == ("in-row", "")
    assert not check_design(m, catalog, plan=True).failed


def test_nodes_per_rack_is_half_a_system(catalog) -> None:  # type: ignore[no-untyped-def]
    text = TEXT + "layout: {nodes_per_rack: 18}\n"
    with pytest.raises(BomError) as e:
        preflight.check(scenario_from_text(text), catalog)
    assert e.value.key == "layout.nodes_per_rack" and "Drop layout.nodes_per_rack, or set it to 9" in e.value.hint


def test_two_racks_need_the_cables_between_them(catalog) -> None:  # type: ignore[no-untyped-def]
    p = catalog.platform("gb200-nvl36x2")
    data = p.model_dump()
    data["scale_up"]["inter_rack"] = None
    with pytest.raises(ValueError, match="racks_per_system 2 and scale_up.inter_rack go together"):
        Platform.model_validate(data)


def test_a_systems_racks_stand_side_by_side(catalog) -> None:  # type: ignore[no-untyped-def]
    """16 systems (1,152 GPUs, one SU of 144 trays: 16 racks and the SU's network racks): in every row the
    compute racks between network racks or a row's ends come in whole pairs (a system's racks are cabled)."""
    p = _model(catalog, TEXT.replace("gpus: 144", "gpus: 1152")).placement
    rows: dict[int, list[str]] = {}
    for rack in sorted(p.racks(), key=lambda r: (r.row, r.position)):
        rows.setdefault(rack.row, []).append(rack.kind)
    lines = ["".join("c" if k == "compute" else " " for k in kinds) for kinds in rows.values()]
    runs = [len(run) for line in lines for run in line.split()]
    assert sum(runs) == 32 and all(n % 2 == 0 for n in runs)


def test_the_rack_summary_and_the_terminal_say_it(model) -> None:  # type: ignore[no-untyped-def]
    """A rack holds half a domain: its 36 GPUs' 648 links and half the 5,184 cartridge cables; the summary
    names the links between the racks."""
    at = {name: i for i, name in enumerate(HEADER)}
    compute = {(r[at["rack"]], r[at["scale_up_links"]], r[at["scale_up_cables"]])
               for r in elevation_rows(model) if r[at["kind"]] == "compute"}
    assert {(links, cables) for _, links, cables in compute} == {(648, 2592)} and len(compute) == 4
    assert "+ 1,296 switch-chip links between the domains' rack pairs in 324 cables" in build_summary(model)
