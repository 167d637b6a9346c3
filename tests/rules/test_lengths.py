"""Lengths and loss: sold length, reach, fibre loss, the coherent span, the route between racks."""

from __future__ import annotations

import dataclasses

from bom.cableplan.rows import COL, rows
from bom.model.hops import HopKind
from bom.rules.context import Context
from bom.rules.lengths import LOSS_MARGIN_DB, Route, db
from bom.topology.dci import line_loss
from tests.rules.cases import PANELS, build, group, messages, run, sink, with_group

LS = HopKind.LEAF_SPINE


def _one_run(model, change):   # type: ignore[no-untyped-def]
    """``model`` with the leaf-spine group's one run given ``change(choice)`` as its parts."""
    g = group(model, "compute", LS)
    (run_, c), = g.runs.items()
    return with_group(model, "compute", LS, runs={run_: change(c)})


def test_a_clean_design_passes_every_lengths_rule(clean, catalog):
    for rule in ("lengths.sold", "lengths.reach", "lengths.loss", "lengths.coherent"):
        assert run(clean, catalog, rule).violations == 0, rule
    assert run(clean, catalog, "lengths.route", plan=True).violations == 0


def test_sold_a_cable_shorter_than_its_run(clean, catalog):
    model = _one_run(clean, lambda c: dataclasses.replace(c, length_m=5.0, part_number="MFP7E10-N005"))
    r = run(model, catalog, "lengths.sold")
    assert r.severity == "error"
    assert messages(r) == ["MFP7E10-N005 is sold 5 m long for a 7.1 m run"]
    assert r.kept[0].where == "compute leaf-spine, cross-row runs (256 links at 400G): the 7.1 m runs"


def test_reach_a_run_past_its_medium(clean, catalog):
    short = lambda c: dataclasses.replace(c, option=dataclasses.replace(c.option, reach_max_m=5.0))  # noqa: E731
    r = run(_one_run(clean, short), catalog, "lengths.reach")
    assert messages(r) == ["mma4z00-ns over mfp7e10-n (multimode) reaches 0 m to 5 m; the run is 7.1 m, its cable 10 m"]


def test_loss_three_patch_panels_on_multimode(catalog):
    r = run(build(PANELS, catalog), catalog, "lengths.loss")
    assert r.severity == "error" and r.violations == 3
    assert messages(r) == ["the run loses 1.78 dB (10 m of OM4, 5 mated pairs, 3 patch panels); the modules' "
                           "budget is 1.8 dB less a 0.3 dB margin"] * 3
    assert [v.where for v in r.kept] == ["compute node-leaf, cross-row runs (64 links at 400G): the 7.1 m runs",
                                         "compute leaf-spine, cross-row runs (512 links at 400G): the 9.5 m runs",
                                         "compute leaf-spine, cross-row runs (512 links at 400G): the 7.1 m runs"]
    # The lookup takes this part (1.78 dB fits its 1.8 dB budget); the rule keeps the margin for repairs.
    assert LOSS_MARGIN_DB == 0.3 and db(1.7800000001) == "1.78 dB"
    # Two panels: 1.43 dB, inside the margin.
    assert run(build(PANELS.replace("patch_panels: 3", "patch_panels: 2"), catalog), catalog,
               "lengths.loss").violations == 0


def test_coherent_40_km_with_a_mux_and_demux_and_no_amplifier(two_sites, catalog):
    d = two_sites.dci
    # A catalog with no DWDM amplifier row: the line is over the 400ZR's unamplified budget and the BOM
    # counts no amplifier.
    bare = dataclasses.replace(two_sites, dci=dataclasses.replace(d, amplifier=None))
    r = run(bare, catalog, "lengths.coherent")
    assert r.severity == "error" and r.violations == 1 and r.affected == d.links == 2
    assert messages(r) == ["fibre 10.00 + mux/demux 12.00 + 6 mated pairs 1.50 = 23.50 dB > the module's "
                           "unamplified budget 11 dB, and no amplifier is counted (the catalog has no DWDM "
                           "amplifier row)"]
    v = r.kept[0]
    assert v.where == "dci site-site (2 wavelengths, 1 routes)"
    assert (v.a.role, v.a.device, v.a.module) == ("router", "cisco-8201-32fh", "QDD-400G-ZR-S")
    assert "booster and a pre-amplifier" in v.fix and "DWDM amplifier row" in v.fix


def test_coherent_an_amplified_line_passes(two_sites, catalog):
    d = two_sites.dci
    # As built the line is over the 400ZR's unamplified budget and a booster and a pre-amplifier per
    # direction are counted on its fibre pair.
    assert d.loss.over and d.amplifier is not None and d.amplifiers == 4
    assert run(two_sites, catalog, "lengths.coherent").violations == 0
    # 40 km of plain fibre, no mux/demux: 10 dB of fibre and its mated pairs fit 400ZR's 11 dB.
    plain = line_loss(d.coherent, None, d.distance_m, d.loss.pair_db)
    assert not plain.over
    no_mux = dataclasses.replace(two_sites, dci=dataclasses.replace(d, mux=None, patch=None, loss=plain,
                                                                     amplifier=None))
    assert run(no_mux, catalog, "lengths.coherent").violations == 0


def test_route_a_run_between_rows_shorter_than_the_route(clean, catalog):
    plan = list(rows(clean, catalog=catalog))
    r = list(plan[0])
    c = COL
    r[c["b_rack"]], r[c["b_row"]] = "s1-r03-rk05", "r03"    # two rows back from the node's rack in row 1
    found, report = sink()
    check = Route(Context(clean, catalog), report)
    check.row(tuple(r))
    check.row(plan[0])
    assert len(found) == 1
    assert found[0].message == ("the run is 4.7 m (in-row, sold 5 m); the route from s1-r01-rk01 to s1-r03-rk05 "
                                "is 9.5 m (2 rows apart and 4 racks along, with the rise at both ends and slack)")
    assert found[0].where == "C00000001 (compute node-leaf)"


def test_route_within_a_rack_and_between_sites(clean, catalog):
    check = Route(Context(clean, catalog), lambda v: None)
    assert check.route("s1-r01-rk01", "s1-r01-rk01") == clean.floor.in_rack_m
    assert check.route("s1-r01-rk01", "s1-r01-rk02") == 2.9    # the floor plan's next rack
    found, report = sink()
    check = Route(Context(clean, catalog), report)
    r = list(next(iter(rows(clean, catalog=catalog))))
    r[COL["b_site"]] = "s2"                                    # a route between sites: not the floor's
    r[COL["length_m"]] = 0.1
    check.row(tuple(r))
    assert found == []
