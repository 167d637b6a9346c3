"""The output JSON Schema (`bom schema --output`) holds the real JSON, and docs/output.md is current."""

from __future__ import annotations

import json

import jsonschema
import pytest

from bom.inputs.scenario import load_scenario
from bom.outputs.schema import output_reference, output_schema
from bom.outputs.writers.compare_text import write_compare_json
from bom.outputs.writers.documents import write_json
from bom.pipeline import build_scenario, report_of
from bom.pipeline.compare import compare
from bom.resources import data_dir
from tests.paths import ROOT

DOC = ROOT / "docs" / "output.md"
#: One site and three (a DCI ring), a TPU torus, a switch pair, a workload, NetBox-shaped support fabrics.
SCENARIOS = ("tests/golden/scenarios/ring-three-sites.yaml", "tests/golden/scenarios/tpu-torus.yaml",
             "tests/golden/scenarios/pair.yaml", "tests/golden/scenarios/workload.yaml",
             "tests/netbox/scenarios/pod8.yaml", "tests/reference/b200_16k.yaml")


def _validator(kind: str) -> jsonschema.Draft202012Validator:
    s = output_schema()
    return jsonschema.Draft202012Validator({"$schema": s["$schema"], "$defs": s["$defs"], "$ref": f"#/$defs/{kind}"},
                                           format_checker=jsonschema.FormatChecker())


def _errors(kind: str, doc: object) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in _validator(kind).iter_errors(doc)]


def test_the_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(output_schema())


@pytest.fixture(scope="module")
def builds(catalog):
    out = {}
    for path in (None, *SCENARIOS):
        scenario, src = load_scenario(ROOT / path if path else None)
        out[path or "default"] = json.loads(write_json(report_of(build_scenario(scenario, src, catalog), catalog)))
    return out


def test_every_build_json_validates(builds):
    for name, doc in builds.items():
        assert _errors("build", doc) == [], name
        assert not _validator("compare").is_valid(doc)


def test_the_schema_rejects_what_is_not_written(builds):
    doc = json.loads(json.dumps(builds["default"]))
    doc["tiers"]["scale-out"]["links"] = "many"
    doc["fabrics"]["compute"]["cabels"] = 1
    del doc["tiers"]["scale-up"]["copper_links"]
    errors = _errors("build", doc)
    assert len(errors) == 3, errors


def test_a_comparison_json_validates(catalog):
    scenario, src = load_scenario(data_dir("scenarios") / "compare.yaml")
    doc = json.loads(write_compare_json(compare(scenario, src, catalog, platforms=["dgx-h100", "gb300-nvl72"])))
    assert _errors("compare", doc) == []
    assert _validator("compare").is_valid(doc) and not _validator("build").is_valid(doc)


def test_bom_schema_output_prints_it(bom):
    result = bom("schema", "--output")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == output_schema()


def test_docs_output_md_matches_the_schema():
    assert DOC.read_text(encoding="utf-8") == output_reference(), (
        "docs/output.md is stale: run `python -m bom.outputs.schema > docs/output.md` and commit it")
