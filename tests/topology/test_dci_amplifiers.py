"""Where the coherent line's amplifiers stand (``sites.amplifiers``, issue 42, item 6): both ends' booster and
pre-amplifier, a booster only, a pre-amplifier only; the BOM and the line's loss budget follow.

The route (tests/topology/test_dci.py): 64 x 400ZR through the 64-channel mux/demux, one fibre pair. Its loss
without amplifiers at 40 km: fibre 40 x 0.25 = 10 dB, mux + demux 6 + 6 = 12 dB, 6 mated pairs x 0.25 =
1.5 dB: 23.5 dB; at 80 km 20 + 12 + 1.5 = 33.5 dB. Budgets (catalogs: 400ZR unamplified 11 dB; the
NCS1K-EDFA booster's 20 dB and pre-amplifier's 24 dB): both 11 + 20 + 24 = 55 dB, booster only 31 dB,
pre-amplifier only 35 dB. Amplifiers per fibre pair: a stage per direction at each end it stands at, 2 x 2 =
4 with both, 2 with one.
"""

from __future__ import annotations

import pytest

from bom.costing.categories import Category
from bom.costing.lines import dci_lines
from bom.errors import BomError
from bom.inputs.scenario import scenario_from_text
from bom.inputs.yamlio import load_text
from bom.pipeline.checks import build_checked, check_design
from bom.pipeline.model import build_model
from bom.rules.context import Context
from bom.rules.lengths import coherent

BASE = """\
name: two-sites
platform: gb300-nvl72
gpus: 1152
sites: {count: 2, distance: "DIST", dci_bandwidth: "25.6 Tbit/s"AMPS}
fabrics: {compute: {}, inband: {switch: sn5600}}
"""


def model(catalog, distance: str, amps: str | None = None):  # type: ignore[no-untyped-def]
    text = BASE.replace("DIST", distance).replace("AMPS", f", amplifiers: {amps}" if amps else "")
    return build_model(scenario_from_text(text), load_text(text, "s.yaml"), catalog, None)


def _edfas(m, catalog) -> int:  # type: ignore[no-untyped-def]
    return sum(x.quantity for x in dci_lines(m.dci, catalog)
               if x.category == Category.DWDM and x.catalog_id == "ncs1001-edfa")


def _coherent_violations(m, catalog) -> list[str]:  # type: ignore[no-untyped-def]
    """What the rule ``lengths.coherent`` says of the model's line."""
    return [v.message for v in coherent(Context(m, catalog))]


@pytest.mark.parametrize(("amps", "per_pair", "budget", "stages"), [
    (None, 4, None, ("booster", "pre-amp")),           # not said: both, and the JSON as it was
    ("both", 4, 55.0, ("booster", "pre-amp")),
    ("booster", 2, 31.0, ("booster",)),
    ("pre-amp", 2, 35.0, ("pre-amp",)),
])
def test_placement_sets_the_amplifiers_and_the_budget(catalog, amps, per_pair, budget, stages) -> None:  # type: ignore[no-untyped-def]
    m = model(catalog, "40 km", amps)
    d = m.dci
    assert d.amplified and d.end_stages == stages
    assert (d.amplifiers_per_fibre_pair, d.amplifiers, d.site_amplifiers(1), d.site_amplifiers(2)) == (
        per_pair, per_pair, per_pair // 2, per_pair // 2)
    assert _edfas(m, catalog) == per_pair                 # the BOM's amplifier line: one fibre pair
    loss = m.to_json()["tiers"]["scale-across"]["line_loss"]
    assert loss["loss_db"] == 23.5 and loss["budget_db"] == 11.0
    if amps is None:
        assert "amplifiers" not in loss and "amplified_budget_db" not in loss
    else:
        assert (loss["amplifiers"], loss["amplified_budget_db"], loss["over_amplified_budget"]) == (amps, budget, False)
    assert _coherent_violations(m, catalog) == []


def test_the_plan_names_the_one_stage(catalog) -> None:  # type: ignore[no-untyped-def]
    from bom.cableplan import rows as plan

    m = model(catalog, "40 km", "booster")
    c = plan.COL
    pairs = [r for r in plan.rows(m, catalog=catalog) if r[c["hop"]] == "fibre-pair"]
    assert [r[c["via"]] for r in pairs] == [
        "0 in-line amplifier sites, 1 x NCS1001 + NCS1K-EDFA per pair (booster only at each end)"]


def test_80_km_needs_more_than_a_booster(catalog) -> None:  # type: ignore[no-untyped-def]
    """33.5 dB: over a booster's 31 dB, within a pre-amplifier's 35 dB and both's 55 dB."""
    assert _coherent_violations(model(catalog, "80 km", "pre-amp"), catalog) == []
    assert _coherent_violations(model(catalog, "80 km", "both"), catalog) == []
    m = model(catalog, "80 km", "booster")
    assert m.dci.loss.over_amplified
    said = _coherent_violations(m, catalog)
    assert said == ["fibre 20.00 + mux/demux 12.00 + 6 mated pairs 1.50 = 33.50 dB > 11 dB unamplified + 20 dB of "
                    "a booster = 31 dB: over the budget with a booster at each end"]
    # bom build refuses it (an error rule), and its hint is the placement that closes the budget.
    text = BASE.replace("DIST", "80 km").replace("AMPS", ", amplifiers: booster")
    with pytest.raises(BomError, match="lengths.coherent: dci site-site"):
        build_checked(scenario_from_text(text), load_text(text, "s.yaml"), catalog)
    kept = check_design(m, catalog).failed[0].kept[0]
    assert kept.fix.startswith("stand a booster and a pre-amplifier at each end (sites.amplifiers: both)")


def test_one_stage_only_on_a_single_span(catalog) -> None:  # type: ignore[no-untyped-def]
    """600 km of ZR+ has 7 in-line amplifier sites: its ends take both stages."""
    with pytest.raises(BomError) as e:
        model(catalog, "600 km", "pre-amp")
    assert e.value.key == "sites.amplifiers" and "7 in-line amplifier site(s)" in str(e.value)
    assert model(catalog, "600 km", "both").dci.amplifiers_per_fibre_pair == 18


def test_a_two_stage_line_system_takes_both(catalog) -> None:  # type: ignore[no-untyped-def]
    from bom.topology import preflight

    text = BASE.replace("DIST", "40 km").replace("AMPS", ", amplifiers: booster, amplifier: qdd-ols")
    with pytest.raises(BomError) as e:
        preflight.check(scenario_from_text(text), catalog)
    assert e.value.key == "sites.amplifiers" and "qdd-ols holds the booster and the pre-amplifier" in str(e.value)
