"""The scenario's JSON Schema (`bom schema`), read from the pydantic models (their types, constraints,
defaults, examples and the docstring under each field), so it cannot drift from what the loader accepts.
The scenario reference built from the same models is :mod:`bom.outputs.reference` (docs/scenarios.md).
"""

from __future__ import annotations

import json
from typing import Any

from bom.inputs.scenario import Scenario


def scenario_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a scenario file, for an editor's YAML language server."""
    schema = Scenario.model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


def schema_text() -> str:
    return json.dumps(scenario_schema(), indent=2, ensure_ascii=False) + "\n"
