"""The hops' table (bom/model/hops.py) is the only place a hop is named, and what it says of each
hop's ends is what the closed form and the cable plan do."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

from bom.cableplan import rows as plan
from bom.inputs.scenario import load_scenario
from bom.model.hops import HOPS, HopKind
from bom.pipeline import build_scenario
from tests.paths import REFERENCE

ROOT = Path(__file__).resolve().parents[2]
QUOTED = re.compile("|".join(rf"['\"]{h.value}['\"]" for h in HopKind))
GOLDEN = ROOT / "tests" / "golden" / "scenarios"
SCENARIOS = [GOLDEN / f"{n}.yaml" for n in ("pair", "tor-ethernet", "tpu-torus", "ring-three-sites", "amd")]
SCENARIOS += [REFERENCE / "superpod_h100_4su.yaml"]


def test_every_hop_has_one_meaning() -> None:
    assert list(HOPS) == list(HopKind)
    # The power cords (bom/links/power.py) are in no link tier: their own label, the power family's.
    assert {m.tier for m in HOPS.values()} == {"scale-up", "scale-out", "scale-across", "power"}


def test_no_hop_string_outside_the_table() -> None:
    """A hop's name is written once: code says HopKind.NODE_LEAF, never "node-leaf" (docstrings and
    comments may name it)."""
    values = {h.value for h in HopKind}
    hits = []
    for p in sorted((ROOT / "bom").rglob("*.py")):
        if p.name == "hops.py":
            continue
        src = p.read_text()
        for t in tokenize.generate_tokens(io.StringIO(src).readline):
            if t.type != tokenize.STRING:
                continue
            # A plain string that is a hop, or a quoted hop inside an f-string's braces.
            if t.string.strip("\"'") in values or (t.string[:1] in "fF" and QUOTED.search(t.string)):
                hits.append(f"{p.relative_to(ROOT)}:{t.start[0]} {t.string}")
    assert hits == []


@pytest.fixture(scope="module", params=SCENARIOS, ids=lambda p: p.stem)
def model(request, catalog):  # type: ignore[no-untyped-def]
    sc, src = load_scenario(request.param)
    return build_scenario(sc, src, catalog)


def test_the_closed_form_ends_are_the_tables(model) -> None:  # type: ignore[no-untyped-def]
    for g in [*model.groups, *model.dci_groups]:
        m = HOPS[HopKind(g.hop)]
        assert g.tier == m.tier, g.hop
        assert g.lower == m.lower, g.hop
        assert g.upper == m.upper or (m.upper == "top" and g.upper in ("leaf", "spine", "core")), g.hop


def test_every_plan_row_names_a_hop_of_its_tier(model) -> None:  # type: ignore[no-untyped-def]
    seen = set()
    for r in plan.rows(model, scale_up=True):
        hop = HopKind(r[plan.COL["hop"]])
        assert r[plan.COL["tier"]] == HOPS[hop].tier
        seen.add(hop)
    assert seen   # every case lists some
