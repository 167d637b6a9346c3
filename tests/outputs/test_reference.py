"""The scenario reference and JSON Schema are read from the models, and kept current."""

from __future__ import annotations

import json

from bom.inputs.schema import scenario_schema
from bom.outputs.reference import scenario_reference, scenario_sections
from tests.paths import ROOT as ROOT_DIR
from tests.paths import TESTS as TESTS_DIR

DOC = ROOT_DIR / "docs" / "scenarios.md"


def test_docs_scenarios_md_matches_the_models():
    assert DOC.read_text(encoding="utf-8") == scenario_reference(), (
        "docs/scenarios.md is stale: run `python -m bom.outputs.reference > docs/scenarios.md` and commit it")


def test_every_scenario_key_is_in_the_reference():
    from bom.inputs.scenario import FabricSpec, Layout, Scenario, Sites, Tco
    from bom.inputs.workload import Workload

    text = scenario_reference()
    for prefix, model in (("", Scenario), ("workload.", Workload), ("fabrics.<name>.", FabricSpec),
                          ("sites.", Sites), ("layout.", Layout), ("tco.", Tco)):
        for name in model.model_fields:
            assert f"| `{prefix}{name}` |" in text, prefix + name
    for s in scenario_sections():
        for k in s.keys:
            assert k.description and k.example and k.type, k
    assert "sku,price,currency,price_source,quoted_on,valid_until" in text and "Catalog kind `switches`" in text
    assert "`mesh` (the default)" in text


def test_reference_shows_units_defaults_and_allowed_values():
    rows = {k.key: k for s in scenario_sections() for k in s.keys}
    assert rows["sites.distance"].unit == "m" and rows["sites.distance"].type == "quantity (length)"
    assert rows["sites.topology"].default == "`mesh`" and "`ring`" in rows["sites.topology"].allowed
    assert rows["tco.electricity"].default == "0.08 USD/kWh"
    assert rows["fabrics.<name>.planes"].allowed == ">= 1, <= 8"


def test_schema_is_json_schema_and_checks_a_scenario(bom):
    r = bom("schema")
    assert r.exit_code == 0
    schema = json.loads(r.stdout)
    assert schema == json.loads(json.dumps(scenario_schema()))
    assert schema["$schema"].startswith("https://json-schema.org/")
    props = schema["properties"]
    assert props["name"]["type"] == "string" and schema["additionalProperties"] is False
    sites = schema["$defs"]["Sites"]["properties"]
    assert sites["topology"]["enum"] == ["mesh", "ring", "hub"]
    assert sites["distance"]["anyOf"][0]["x-unit"] == "m"
    kinds = schema["$defs"]["Workload"]["properties"]["kind"]["enum"]
    assert "fine-tune" in kinds and "finetune" in kinds


def _scenarios():
    from bom.resources import data_dir

    root = TESTS_DIR
    return [data_dir("scenarios") / "default.yaml", data_dir("scenarios") / "compare.yaml",
            root / "reference" / "superpod_h100_4su.yaml"]


def test_schema_accepts_the_shipped_scenarios_and_refuses_bad_ones(bom, tmp_path):
    import jsonschema
    import yaml

    validator = jsonschema.Draft202012Validator(scenario_schema())
    for path in _scenarios():
        errors = list(validator.iter_errors(yaml.safe_load(path.read_text())))
        assert errors == [], (path, [e.message for e in errors])
    for kind in ("pretrain", "serve"):
        text = bom("init", "-", "--workload", kind).stdout
        assert list(validator.iter_errors(yaml.safe_load(text))) == []
    good = yaml.safe_load(_scenarios()[0].read_text())
    for bad in ({**good, "sitez": {}}, {**good, "sites": {**good["sites"], "topology": "star"}},
                {**good, "fabrics": {"compute": {"layers": 4}}}, {**good, "gpus": "many"}):
        assert list(validator.iter_errors(bad)), bad
