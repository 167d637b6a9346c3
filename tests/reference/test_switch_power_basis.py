"""Switch power as typical and at maximum (issue 22, item 9): the energy cost takes a switch's
typical draw, facility sizing its maximum less the optics that maximum counts (the BOM counts the
optics on lines of their own, at their maximum), and the build says which figure each total takes.

Sources (the qm9700 and sn5600 rows' notes):
- NVIDIA QM97X0 1U NDR 400Gb/s InfiniBand Switch Systems User Manual, Interfaces
  (docs.nvidia.com/networking/display/QM97X0PUB/Interfaces): "The system offers Class 8 (17W)
  OSFP112 transceivers support"; Specifications (as quoted in the row): 747 W typical with passive
  cables, 1,720 W maximum with active optics. 32 OSFP cages.
- NVIDIA SN5000 Hardware User Manual, Data Interfaces (docs.nvidia.com/networking/display/sn5000/
  data+interfaces), "Maximum High Power Support": "SN5600 with Dual 3KW PSU | Port #1-64 | 18W".

- [AMD] AMD, "Cluster architecture and network design for AMD Instinct MI3XX accelerators"
  (github.com/ROCm/gpu-cluster-networking, docs/design/mi3xx.rst), Power requirements, MI355X:
  "51.2T switch (Dell, Cisco, Arista)", "Estimated typical/load power per switch 540w/1125w"
  (AMD: "These are estimates only"). The Arista 7060X6-64PE and Dell Z9864F-ON rows take them; the
  other Tomahawk 5 rows (Juniper, Edgecore, UfiSpace, vendors AMD does not name) keep their own.
"""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from bom.catalog.rows import Switch
from bom.costing.lines import switch_lines
from bom.costing.tco import POWER_BASIS

QM9700_TYPICAL_W = 747       # QM97X0 manual, Specifications: typical, passive cables
QM9700_MAX_W = 1720          # QM97X0 manual, Specifications: maximum, active optics
QM9700_CAGES = 32
CLASS_8_W = 17               # QM97X0 manual, Interfaces: Class 8 (17 W) OSFP112
SN5600_PORT_W = 18           # SN5000 manual, Data Interfaces: 18 W per port, ports 1-64


def test_a_switch_line_takes_the_typical_and_its_maximum_without_optics(catalog):
    sw = catalog.get("switches", "qm9700")
    line, = switch_lines("compute", "scale-out", {"leaf": 3}, {"leaf": sw})
    assert line.unit_power_w == QM9700_TYPICAL_W
    assert line.unit_power_max_w == QM9700_MAX_W - QM9700_CAGES * CLASS_8_W == 1176
    assert (line.power_w, line.power_max_w) == (3 * 747, 3 * 1176)
    assert "power_max_optics" in sw.unconfirmed   # the max counting every cage at 17 W is inferred


def test_sn5600_max_less_its_optics(catalog):
    sw = catalog.get("switches", "sn5600")
    line, = switch_lines("storage", "scale-out", {"leaf": 1}, {"leaf": sw})
    assert line.unit_power_max_w == 2100 - 64 * SN5600_PORT_W == 948


def test_a_rack_budget_takes_the_switch_at_its_maximum(catalog):
    """Rack power budgets are facility sizing: a placed QM9700 counts 1,176 W, not its 747 W typical."""
    from bom.placement.layout import switch_item

    assert switch_item(catalog, "qm9700", "leaf", "compute").power_w == QM9700_MAX_W - QM9700_CAGES * CLASS_8_W
    assert switch_item(catalog, "juniper-qfx5240-64od", "leaf", "compute").power_w == 900   # typical: not split


def test_a_row_that_does_not_say_takes_the_typical_for_both(catalog):
    sw = catalog.get("switches", "juniper-qfx5240-64od")
    assert sw.power_max_optics is None
    line, = switch_lines("compute", "scale-out", {"spine": 2}, {"spine": sw})
    assert line.unit_power_max_w is None and line.power_max_w == line.power_w


def test_optics_above_the_maximum_are_refused(catalog):
    row = catalog.get("switches", "qm9700").model_dump()
    row["power_max_optics"] = "40 W"             # 1,720 - 32 x 40 = 440 W, below the 747 W typical
    with pytest.raises(ValidationError, match="power_max_optics"):
        Switch.model_validate(row)
    row["power_max_optics"], row["power_typical"] = None, "2000 W"
    with pytest.raises(ValidationError, match="above power_max"):
        Switch.model_validate(row)


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    from typer.testing import CliRunner

    from bom.cli import app

    d = tmp_path_factory.mktemp("h100")
    sc = d / "h100.yaml"
    sc.write_text("name: h100\nplatform: dgx-h100\ngpus: 256\n")
    r = CliRunner().invoke(app, ["build", str(sc), "-o", str(d / "out")])
    assert r.exit_code == 0, r.output
    return json.loads((d / "out" / "h100.json").read_text()), (d / "out" / "h100.md").read_text()


def test_the_build_says_which_figure_each_total_takes(build):
    doc, md = build
    assert doc["power_basis"] == POWER_BASIS
    assert doc["power_basis"]["totals"]["energy_per_year_usd"] == "typical"
    assert doc["power_basis"]["totals"]["facility_power_max_kw"] == "maximum"
    # The DGX H100 publishes one figure, so the two IT totals differ by the QM9700s' optics-free
    # headroom alone: 1,176 - 747 = 429 W per installed switch (spares draw nothing).
    qm = [x for x in doc["lines"] if x["catalog_id"] == "qm9700" and x["quantity"] and x["unit_power_w"]]
    assert qm and all(x["unit_power_max_w"] == 1176 for x in qm)
    t = doc["totals"]
    assert t["it_power_max_kw"] - t["it_power_kw"] == pytest.approx(sum(x["quantity"] for x in qm) * 429 / 1000)
    assert "IT power at maximum (facility sizing" in md and "IT power, typical" in md


@pytest.mark.parametrize("sid", ["arista-7060x6-64pe", "dell-z9864f-on"])
def test_amds_51t_switch_figures_typical_and_at_load(catalog, sid):
    sw = catalog.get("switches", sid)
    line, = switch_lines("compute", "scale-out", {"leaf": 61}, {"leaf": sw})
    assert (line.unit_power_w, line.unit_power_max_w) == (540, 1125)          # [AMD] 540w/1125w
    # [AMD] "≈ 61 switches ... ≈ 32.94kW/68.63kW"
    assert (line.power_w, line.power_max_w) == pytest.approx((32_940, 68_625))

