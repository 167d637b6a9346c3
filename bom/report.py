"""Everything the writers need, computed once: the model, its BOM lines, the TCO inputs and result.

The writers only present this; the workbook recomputes the same totals with live formulas,
and the tests hold the two to agree.
"""

from __future__ import annotations

from dataclasses import dataclass

from bom.build import Model
from bom.catalog import Catalog
from bom.lines import NETWORK, Line, all_lines
from bom.tco import Input, Tco, compute_tco, inputs


@dataclass(frozen=True)
class Report:
    model: Model
    lines: list[Line]
    inputs: dict[str, Input]
    tco: Tco

    @property
    def name(self) -> str:
        return self.model.scenario.name

    @property
    def links(self) -> int:
        """Every scale-out and scale-across link (what installation is priced on)."""
        return sum(g.links for g in self.model.groups) + (self.model.dci.links if self.model.dci else 0)

    @property
    def dark_fibre_km(self) -> float:
        return self.model.dci.dark_fibre_km if self.model.dci else 0.0

    def to_json(self) -> dict[str, object]:
        out = self.model.to_json()
        out["lines"] = [line.to_json() for line in self.lines]
        t = self.tco
        out["totals"] = {
            "capex_usd": round(t.capex_usd, 2), "hardware_usd": round(t.hardware_usd, 2),
            "network_capex_usd": round(t.network_usd, 2), "installation_usd": round(t.installation_usd, 2),
            "it_power_kw": round(t.it_power_kw, 4), "network_power_kw": round(t.network_power_kw, 4),
            "facility_power_kw": round(t.facility_power_kw, 4), "opex_per_year_usd": round(t.opex_per_year, 2),
            "energy_per_year_usd": round(t.energy_per_year, 2), "tco_usd": round(t.tco_usd, 2),
            "usd_per_gpu_hour": round(t.usd_per_gpu_hour, 6),
            "network_capex_share": round(t.network_capex_share, 6),
            "network_power_share": round(t.network_power_share, 6),
            "links": self.links, "dark_fibre_km": self.dark_fibre_km,
        }
        out["inputs"] = {k: {"value": i.value, "unit": i.unit, "source": i.source} for k, i in self.inputs.items()}
        return out


def make_report(model: Model, catalog: Catalog) -> Report:
    lines = all_lines(model, catalog)
    ins = inputs(model.scenario.tco)
    network = [line for line in lines if line.category in NETWORK]
    tco = compute_tco(hardware_usd=sum(line.price_usd for line in lines),
                      network_usd=sum(line.price_usd for line in network),
                      it_power_w=sum(line.power_w for line in lines),
                      network_power_w=sum(line.power_w for line in network),
                      links=sum(g.links for g in model.groups) + (model.dci.links if model.dci else 0),
                      racks=model.racks, gpus=model.cluster.gpus,
                      dark_fibre_km=model.dci.dark_fibre_km if model.dci else 0.0, ins=ins)
    return Report(model, lines, ins, tco)
