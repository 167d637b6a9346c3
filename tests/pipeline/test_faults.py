"""bom faults' build (bom/pipeline/faults.py): dual-plane NICs priced by building the compute fabric on two planes."""

from __future__ import annotations

from pathlib import Path

from bom import pipeline
from bom.inputs.scenario import parse_scenario
from bom.inputs.yamlio import load_text
from bom.pipeline.faults import faults_of

HPN = Path(__file__).resolve().parents[1] / "reference" / "hpn_dual_plane.yaml"


def test_dual_plane_nics_are_priced_by_the_two_plane_build(catalog) -> None:   # type: ignore[no-untyped-def]
    # Alibaba HPN's hosts (two 200G ports a NIC) on one plane: the option puts each NIC port on its own plane.
    text = HPN.read_text().replace("    planes: 2\n", "").replace("    planes_by: port", "").replace(
        "    layers: 2 ", "    layers: auto ").replace("catalogs: [hpn]", f"catalogs: [{HPN.parent / 'hpn'}]")
    src = load_text(text, str(HPN))
    sc = parse_scenario(src)
    one = faults_of(sc, src, pipeline.catalog_for(sc, src))
    plane = next(o for o in one.options if o.name == "dual-plane NICs")
    assert plane.capex_usd is not None and f"capex {plane.capex_usd:+,.0f} USD" in plane.why
    assert plane.loss_avoided is not None and plane.loss_avoided > 0
