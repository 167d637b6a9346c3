"""bom diff on the default against the default on co-packaged-optics compute switches (q3450-ld,
catalogs/switches-cpo.yaml: the optical engines in the switch, so the leaves' and spines' pluggable
modules go and the external laser sources come): the module, power and cost deltas are the difference of
the two builds' JSON, from the scenarios and from the written JSON alike; exit 0 same, 1 differ, 2 bad."""

from __future__ import annotations

import json

import pytest

from bom.diff.result import diff_docs
from bom.pipeline.diff import diff_sides, load_side


@pytest.fixture()
def cpo_case(cpo_diff):
    old, new, d, _, folder = cpo_diff   # tests/conftest.py: built once a session
    return old, new, d, folder


def _fig(figs, name):
    return next(f for f in figs if f["name"] == name)


def test_modules_power_and_cost_deltas_are_the_builds_differences(cpo_case):
    old, new, d, _ = cpo_case
    a, b = old.doc, new.doc
    out = _fig(d.optics, "tiers.scale-out.modules")
    assert out["delta"] == b["tiers"]["scale-out"]["modules"] - a["tiers"]["scale-out"]["modules"] < 0
    per_gpu = _fig(d.optics, "tiers.scale-out.modules_per_gpu")
    assert per_gpu["delta"] == pytest.approx(b["tiers"]["scale-out"]["modules"] / b["gpus"]
                                             - a["tiers"]["scale-out"]["modules"] / a["gpus"])
    for name in ("it_power_kw", "facility_power_kw", "network_power_kw"):
        assert _fig(d.power, f"totals.{name}")["delta"] == pytest.approx(b["totals"][name] - a["totals"][name])
    for name in ("capex_usd", "tco_usd", "network_capex_usd"):
        assert _fig(d.tco, f"totals.{name}")["delta"] == pytest.approx(b["totals"][name] - a["totals"][name])
    # the order delta adds up to the difference of the two orders, and says what to buy and return
    assert sum(o["delta_usd"] for o in d.order) == pytest.approx(
        sum(o["extended_usd"] for o in b["order"]) - sum(o["extended_usd"] for o in a["order"]))
    by_id = {o["catalog_id"]: o for o in d.order}
    assert by_id["q3450-ld"]["action"] == "buy" and by_id["q3400"]["action"] == "return"
    cpo = next(o for o in b["order"] if o["catalog_id"] == "q3450-ld")
    assert by_id["q3450-ld"]["delta_quantity"] == cpo["total"]   # spares included
    switches = b["fabrics"]["compute"]["switches"]
    assert cpo["installed"] == switches["leaf"] + switches["spine"]
    assert by_id["q3450-ld"]["lead_time_days"] is not None
    assert sum(c["delta_usd"] for c in d.categories) == pytest.approx(sum(o["delta_usd"] for o in d.order))
    assert not d.same


def test_the_written_json_says_the_same(cpo_case):
    _, _, d, folder = cpo_case
    j = diff_sides(load_side(str(folder / "old.json"), "OLD"), load_side(str(folder / "new.json"), "NEW"))
    assert (j.size, j.order, j.categories, j.tco, j.power, j.optics, j.rules) == \
        (d.size, d.order, d.categories, d.tco, d.power, d.optics, d.rules)
    assert not j.devices.compared and not j.cables.compared


def test_a_design_against_itself_is_the_same(cpo_case):
    old, _, _, _ = cpo_case
    d = diff_docs("a", "b", old.doc, old.doc)
    assert d.same and d.to_json()["same"]


def test_exit_codes(cpo_case, bom, tmp_path):
    _, _, _, folder = cpo_case
    same = bom("diff", str(folder / "old.json"), str(folder / "old.json"), "-q")
    assert same.exit_code == 0, same.output
    assert "the same design" in same.stdout
    differ = bom("diff", str(folder / "old.json"), str(folder / "new.json"), "--json", "-q")
    assert differ.exit_code == 1, differ.output
    doc = json.loads(differ.stdout)
    assert doc["same"] is False and doc["order"]
    (tmp_path / "bad.json").write_text('{"name": "x"}')
    bad = bom("diff", str(tmp_path / "bad.json"), str(folder / "new.json"))
    assert bad.exit_code == 2 and "not a build's JSON" in bad.stderr
    missing = bom("diff", "HEAD:no/such/file.yaml", str(folder / "new.json"))
    assert missing.exit_code == 2 and "error:" in missing.stderr


def test_devices_and_cables_from_the_scenarios(cpo_case):
    _, new, d, _ = cpo_case
    j = d.to_json()
    # the CPO switch's two racks more (network racks) and the moves of the devices after them
    assert j["devices"]["compared"] and j["devices"]["added"] > 0
    c = j["cables"]
    assert c["compared"] and c["moved"] + c["added"] + c["removed"] > 0
    assert d.cables.reentered == 0


def test_the_json_holds_the_output_schema(cpo_case):
    import jsonschema

    from bom.outputs.schema import output_schema

    _, _, d, _ = cpo_case
    s = output_schema()
    v = jsonschema.Draft202012Validator({"$schema": s["$schema"], "$defs": s["$defs"], "$ref": "#/$defs/diff"})
    assert [e.message for e in v.iter_errors(json.loads(json.dumps(d.to_json())))] == []
