"""The design rules' test cases: small scenarios, a rule run on its own, and models changed in one
place (a link group's part, a run's sold length) to trip one rule."""

from __future__ import annotations

import dataclasses

from bom.inputs.scenario import scenario_from_text
from bom.inputs.yamlio import load_text
from bom.rules.registry import BY_ID
from bom.rules.run import check
from bom.topology.build import build_model

#: A design every rule passes, closed form and plan (one scalable unit of DGX H100 on QM9700).
CLEAN = "name: clean\nplatform: dgx-h100\nnodes: 32\n"
#: Two sites 40 km apart (a mux/demux at each end, one wavelength): the DCI's rules have a line to look at.
TWO_SITES = ("name: two\nplatform: dgx-h100\nnodes: 32\nfabrics:\n  compute: {oversubscription: 1.25}\n"
             "sites: {count: 2, distance: 40 km, dci_bandwidth: 800 Gbit/s}\n")


def build(text: str, catalog):  # type: ignore[no-untyped-def]
    return build_model(scenario_from_text(text), load_text(text, "t.yaml"), catalog, None)


def run(model, catalog, rule: str, plan: bool = False):  # type: ignore[no-untyped-def]
    """One rule's result on ``model``."""
    return check(model, catalog, plan=plan, rules=[BY_ID[rule]]).results[0]


def messages(result) -> list[str]:  # type: ignore[no-untyped-def]
    return [v.message for v in result.kept]


def with_group(model, fabric: str, hop: str, **changes):  # type: ignore[no-untyped-def]
    """``model`` with the first link group of ``fabric``'s ``hop`` changed (a new group, a new model)."""
    f = model.fabrics[fabric]
    i = next(k for k, g in enumerate(f.groups) if g.hop == hop)
    groups = list(f.groups)
    groups[i] = dataclasses.replace(groups[i], **changes)
    return dataclasses.replace(model, fabrics={**model.fabrics, fabric: dataclasses.replace(f, groups=groups)})


def group(model, fabric: str, hop: str):  # type: ignore[no-untyped-def]
    return next(g for g in model.fabrics[fabric].groups if g.hop == hop)


def sink() -> tuple[list, object]:   # type: ignore[type-arg]
    """A list and the report a plan rule writes into it (a plan rule reports what makes a violation)."""
    found: list = []   # type: ignore[type-arg]

    def report(v) -> None:   # type: ignore[no-untyped-def]
        found.append(v if hasattr(v, "rule") else v())
    return found, report
