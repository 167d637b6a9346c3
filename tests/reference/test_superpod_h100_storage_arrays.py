"""DGX SuperPOD with DGX H100, 4 SU (127 DGX): the storage fabric with its storage arrays.

Published (NVIDIA DGX SuperPOD RA-11333-001 V11, 2023-09-22, Appendix A, Tables 7 and 8, as issue
22 quotes them from the PDF; the web copies the `search` tool holds end at Table 4, searched
again 2026-12-06):
- storage fabric: 16 QM9700 switches;
- 494 NDR 400G cables, DGX to leaf and leaf to spine;
- 48 "NDR 2x200G" cables to the storage arrays (one leaf port split into two 200G array ports:
  96 array ports);
- 369 switch-side transceivers; 254 DGX-side QSFP112 transceivers (127 x 2 storage ports).

The tool, with the arrays' ports stated (superpod_h100_4su_storage.yaml, 96 ports at 200G): 8 DGX
leaves (32 ports down, 24 up at the RA's 4:3) and 2 array leaves (48 leaf ports: a 400G leaf port
split as 2 x 200G, the RA's cables), 240 uplinks over 4 spines: 254 + 240 = 494 NDR cables and
254 DGX-side modules, as published.

Not reproduced (strict xfails below, each with the arithmetic):
- 16 switches: the tool builds 14 (10 leaves + 4 spines). 494 - 254 = 240 uplinks is what 8 DGX
  leaves x 24 and 48 array-leaf ports x 1:1 give, so the RA's 2 more switches carry no cable of
  these counts: 4 array leaves of 12 + 12 ports, or 6 spines, both fit; the PDF's figure 8 would
  say which, and it could not be read.
- 369 switch-side transceivers: twin-port cages with the cables above are 127 (254 DGX ports) +
  240 (480 leaf-spine ports) + 24 (the arrays' 48 leaf ports) = 391; 369 = 127 + 240 + 2 suggests
  the RA counts the 2x200G cables with no switch-side transceiver (a DAC or AOC splitter) and 2 more
  for something not in these figures (its UFM's 4 storage ports?). The tool gives 416: 128 (a
  leaf's 16 cages for the 15-node group) + 240 + 48, because the catalog has no splitter in its
  media (MFP7E20 is listed but never chosen), so each 200G array link takes the nodes' 400G parts
  (the ends.rate warning, counted as the nodes' port) and a cable of its own (96, not 48 splitters).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bom.inputs.scenario import load_scenario
from bom.rules.core import WARNING
from bom.rules.run import check
from bom.topology.build import build_model

CASE = Path(__file__).with_name("superpod_h100_4su_storage.yaml")


@pytest.fixture(scope="module")
def model(catalog):
    scenario, src = load_scenario(CASE)
    return build_model(scenario, src, catalog, None)


def test_ndr_cables_and_dgx_side_transceivers(model):
    j = model.fabrics["storage"].to_json()
    assert j["links"]["node-leaf"] + j["links"]["leaf-spine"] == 494      # RA: 494 NDR 400G cables
    assert j["links"]["node-leaf"] == 254 and j["modules"]["node"] == 254  # RA: 254 DGX-side QSFP112


def test_array_ports_share_leaf_ports(model):
    # RA: 48 NDR 2x200G cables, each one 400G leaf port to two 200G array ports.
    j = model.fabrics["storage"].to_json()
    assert j["links"]["storage-leaf"] == 96                  # array ports
    assert j["endpoint_ports"] == 48                         # leaf ports they take (2 each)
    assert j["switches"] == {"leaf": 10, "spine": 4, "core": 0}
    # Before the split, each 200G array port took a 400G leaf port of its own: 11 leaves, 264
    # uplinks over 6 spines (494 would have been 518).


@pytest.mark.xfail(strict=True, reason="RA: 16 QM9700; the tool builds 10 leaves + 4 spines (module docstring)")
def test_sixteen_switches(model):
    assert sum(model.fabrics["storage"].to_json()["switches"].values()) == 16


@pytest.mark.xfail(strict=True, reason="RA: 369 switch-side transceivers; twin-port cages of these cables "
                                       "are 391 (module docstring)")
def test_switch_side_transceivers(model):
    assert model.fabrics["storage"].to_json()["modules"]["switch"] == 369


def test_check_clean_with_the_plan(model, catalog):
    checks = check(model, catalog, plan=True)
    assert [r.id for r in checks.failed if r.severity != WARNING] == []
    # The one warning: the 200G array ends have no catalog part into the leaf's split (see above).
    assert {r.id for r in checks.failed} <= {"ends.rate", "ends.cage"}
