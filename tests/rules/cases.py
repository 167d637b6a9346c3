"""The design rules' test cases: small scenarios, a rule run on its own, and models changed in one
place (a link group's part, a run's sold length) to trip one rule."""

from __future__ import annotations

import dataclasses

from bom.inputs.scenario import scenario_from_text
from bom.inputs.yamlio import load_text
from bom.pipeline.model import build_model
from bom.rules.registry import BY_ID
from bom.rules.run import check

#: A design every rule passes, closed form and plan (one scalable unit of DGX H100 on QM9700).
CLEAN = "name: clean\nplatform: dgx-h100\nnodes: 32\n"
#: Two sites 40 km apart (a mux/demux at each end, two 400G wavelengths): the DCI's rules have a line to
#: look at. The compute fabric is InfiniBand, so the DCI routers' Ethernet client links land on the
#: border leaves of the Ethernet storage fabric (an SN5600 storage fabric: the DGX H100's 100G in-band
#: ports take no SN5600 part, so an in-band fabric of SN5600 does not build); a multi-site InfiniBand
#: design with no Ethernet fabric is refused at build. No storage block: the platform's default storage.
TWO_SITES = ("name: two\nplatform: dgx-h100\nnodes: 32\nfabrics:\n  compute: {}\n  storage: {switch: sn5600}\n"
             "sites: {count: 2, distance: 40 km, dci_bandwidth: 800 Gbit/s}\n")
#: A design with a warning and no error: management switches whose uplinks go to a site in-band
#: network the scenario does not build (a stand-in device with no rack: placement.unplaced).
#: Management switches asked to uplink into a site in-band network the scenario does not build: they
#: end at a stand-in device with no rack (left to the build, they would get OOB spines of their own).
OOB_ONLY = "name: oob\nplatform: dgx-h100\nnodes: 32\nfabrics:\n  compute: {}\n  oob: {uplinks: inband}\n"
#: Three patch panels on multimode runs: 1.78 dB of a 1.8 dB budget, which the lookup takes and the
#: rule's 0.3 dB repair margin does not (a design that breaks an error rule as built, from the CLI).
PANELS = ("name: panels\nplatform: dgx-h100\nnodes: 64\nfabrics:\n  compute: {switch: qm9700, media: [multimode]}\n"
          "layout: {nodes_per_rack: 4, racks_per_row: 8, patch_panels: 3}\n")


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
