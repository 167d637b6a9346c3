"""Which rules are warnings, and that no error-severity rule is broken by the default, a reference
case or a golden scenario (so `bom build` writes every one of them); no rule at all by the default,
a reference case, a `bom init` starter or a built-in compare generation (issue 42).

The warnings are the rules that flag a gap of the model, each said here: an endpoint port with no
catalog part to its leaf's cage is counted as the nodes' port on that fabric
(``endpoint_substitutions``: a 100G QSFP28 management-switch uplink asked into an SN5600 in-band
fabric with ``uplinks: inband``, counted as a 400G QSFP112 one), which ``ends.rate`` and
``ends.cage`` name (and the error ``complete.substitutions`` refuses at build: issue 42); and the
management switches' uplinks asked (``uplinks: inband``) into a site in-band network the scenario
does not build end at a stand-in device with no rack (``placement.unplaced``). The default and the
reference cases break none of them either. Every other rule is an error: the routes across rows, the DCI
routers placed and on Ethernet ports, the coherent line's loss and storage on storage fabrics were
fixed in the model (issue 21).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bom.inputs.scenario import load_scenario
from bom.model.checks import WARNING
from bom.pipeline import build_scenario, catalog_for
from bom.rules.registry import RULES
from bom.rules.run import check
from tests.paths import ROOT

WARNINGS = {"ends.rate", "ends.cage", "placement.unplaced", "power.feed_loss", "power.unknown"}
#: A warning the default and the rack-scale cases below break, on purpose, each a finding of the power
#: plan (issue 48): a rack's published maximum over the four power shelves left with a feed lost is more
#: than a shelf's whip circuit carries (60 A 415 V at 80 %: 34,560 W) and a shelf's 33 kW. GB300 NVL72:
#: 142 kW (the NVL72 Enterprise RA) and two 98 W management switches, 35,549 W a whip; VR NVL144: 190 kW,
#: 47,549 W; Helios MI455X: 200 kW, 50,049 W (their shelves' count and rating are the catalog's estimates,
#: unconfirmed). The makers' power capping on a shelf's or feed's loss is not modelled. A GB200 NVL72
#: (132 kW: 33 kW a shelf) passes.
FINDINGS = {("gb300-nvl72", "power.feed_loss"), ("vr-nvl144", "power.feed_loss"),
            ("helios-mi455x", "power.feed_loss"),
            # Kyber (VR Ultra NVL576): its trays' busbar is fed from outside the rack (800 VDC, NVIDIA's
            # announcement); the catalog places no power shelf there, so its 600 kW is on no rack feed.
            ("vr-ultra-nvl576", "power.unknown")}


def _unexplained(model, checks) -> list[tuple[str, str]]:   # type: ignore[no-untyped-def]
    """The rules a design breaks, less the findings above."""
    return [(r.id, r.kept[0].message) for r in checks.failed if (model.platform.id, r.id) not in FINDINGS]
#: The default, the reference cases and the golden scenarios that build (campus-1m is refused at build).
CASES = [None, *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "reference").glob("*.yaml")),
         *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "golden" / "scenarios").glob("*.yaml")
                 if p.name != "campus-1m.yaml")]
#: Cases whose cable plan the fast tests stream (the others have 40,000 rows to 3 million).
SMALL_PLANS = {None, "tests/reference/superpod_h100_4su.yaml", "tests/reference/superpod_h100_4su_full.yaml",
               "tests/golden/scenarios/pair.yaml", "tests/golden/scenarios/amd.yaml",
               "tests/golden/scenarios/tor-ethernet.yaml", "tests/golden/scenarios/workload.yaml",
               "tests/reference/juniper_jvd_qpp_stripes.yaml", "tests/reference/asterfusion_rail_only.yaml"}


def test_the_warnings_are_the_rules_broken_today():
    assert {r.id for r in RULES if r.severity == WARNING} == WARNINGS


def _build(path: str | None):   # type: ignore[no-untyped-def]
    scenario, src = load_scenario(ROOT / path if path else None)
    catalog = catalog_for(scenario, src)
    return build_scenario(scenario, src, catalog), catalog


@pytest.mark.parametrize("path", CASES, ids=lambda p: Path(p).stem if p else "default")
def test_no_error_rule_is_broken_by_a_known_design(path):
    model, catalog = _build(path)
    checks = check(model, catalog, plan=path in SMALL_PLANS)
    assert [(r.id, r.kept[0].message) for r in checks.failed if r.severity != WARNING] == []


@pytest.mark.slow
@pytest.mark.parametrize("path", sorted(set(CASES) - SMALL_PLANS - {"tests/golden/scenarios/campus-1m-ring.yaml"}))
def test_no_error_rule_is_broken_on_a_known_design_s_plan(path):
    model, catalog = _build(path)
    checks = check(model, catalog, plan=True)
    assert [(r.id, r.kept[0].message) for r in checks.failed if r.severity != WARNING] == []


REFERENCES = [None, *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "reference").glob("*.yaml"))]


@pytest.mark.parametrize("path", REFERENCES, ids=lambda p: Path(p).stem if p else "default")
def test_no_rule_at_all_is_broken_by_the_default_or_a_reference_case(path):
    # Warnings included: the 100G appliance ports take the MCP7Y60 splitter in the rack, and the
    # management switches get spines of their own where no part reaches the in-band leaves.
    model, catalog = _build(path)
    checks = check(model, catalog, plan=path in SMALL_PLANS)
    assert _unexplained(model, checks) == []


# --- every `bom init` starter and every built-in compare generation (issue 42) -----------------

#: Every platform of the built-in catalog (a starter each; the test below keeps the list whole).
PLATFORMS = ("dgx-a100", "hgx-a100", "tpu-v4-pod", "dgx-h100", "hgx-h100", "mi300x-platform", "tpu-v5p-pod",
             "dgx-b200", "gaudi3-hls3", "mi325x-platform", "gb200-nvl72", "gb200-nvl36x2", "tpu-v6e-pod", "dgx-b300",
             "mi355x-platform", "gb300-nvl72", "tpu-ironwood-pod", "helios-mi455x", "vr-nvl144", "vr-ultra-nvl576")
#: The built-in `bom compare` job's generations (scenarios/compare.yaml).
GENERATIONS = ("hgx-h100", "dgx-h100", "dgx-b200", "gb200-nvl72", "dgx-b300", "gb300-nvl72", "vr-nvl144")


def test_the_lists_are_the_catalog_s_platforms_and_the_compare_job_s(catalog):
    from bom.costing.compare import default_platforms
    from bom.resources import data_dir

    assert sorted(PLATFORMS) == sorted(default_platforms(catalog))
    assert tuple(load_scenario(data_dir("scenarios") / "compare.yaml")[0].platforms or ()) == GENERATIONS


@pytest.mark.parametrize("platform", PLATFORMS)
def test_no_rule_at_all_is_broken_by_a_bom_init_starter(platform, catalog):
    from bom.inputs.scenario import parse_scenario
    from bom.inputs.yamlio import load_text
    from bom.starter import starter

    src = load_text(starter(catalog, platform), "<bom init>")
    model = build_scenario(parse_scenario(src), src, catalog)
    assert _unexplained(model, check(model, catalog, plan=True)) == []


def _generation(platform: str, catalog):   # type: ignore[no-untyped-def]
    from bom.costing.compare import variant
    from bom.pipeline.compare import _generation as built
    from bom.resources import data_dir

    job, src = load_scenario(data_dir("scenarios") / "compare.yaml")
    return built(variant(job, platform, job.gpus, None), src, catalog)[0].model


@pytest.mark.parametrize("platform", GENERATIONS)
def test_no_rule_at_all_is_broken_by_a_compare_generation(platform, catalog):
    model = _generation(platform, catalog)
    assert _unexplained(model, check(model, catalog)) == []


@pytest.mark.slow
@pytest.mark.parametrize("platform", GENERATIONS)
def test_no_rule_at_all_is_broken_on_a_compare_generation_s_plan(platform, catalog):
    model = _generation(platform, catalog)
    assert _unexplained(model, check(model, catalog, plan=True)) == []
