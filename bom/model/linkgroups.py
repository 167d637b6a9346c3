"""Link groups: the links of one hop that share their parts, as ports, modules and fibre runs (a data
type; :func:`bom.topology.linkgroups.count_hop` counts them, per device group and run)."""

from __future__ import annotations

from dataclasses import dataclass, field

from bom.catalog.media import Choice, End
from bom.catalog.rows import Panel
from bom.model.floorplan import Run
from bom.roles import Layer, Tier


@dataclass
class LinkGroup:
    """Links of one hop that share their parts (one BOM line per part and place)."""

    fabric: str
    tier: Tier
    hop: str
    bucket: str
    lower: Layer               # the layers at the two ends
    upper: Layer
    rate_gbps: float
    choice: Choice
    lower_end: End
    upper_end: End
    links: int = 0
    length_m: float = 0.0      # longest required run in the group
    modules_lower: int = 0
    modules_upper: int = 0
    cables: int = 0            # copper/AOC assemblies, or fibre cables (trunks)
    fibre_runs: int = 0
    fibre_strands: int = 0
    panel: Panel | None = None
    panels: int = 0            # patch panel units on the runs
    extras: dict[str, int] = field(default_factory=dict)
    #: Every floor-plan run of the group with its parts at that length: the cable plan takes
    #: each link's part and sold length from here instead of looking them up again.
    runs: dict[Run, Choice] = field(default_factory=dict)

    @property
    def medium(self) -> str:
        return self.choice.medium

    @property
    def copper(self) -> bool:
        return self.choice.option.is_copper

    @property
    def modules(self) -> int:
        return self.modules_lower + self.modules_upper


#: What a link end holds (bom.catalog.media.End.kind), in the order reports list them.
END_KINDS = ("pluggable", "optical engine", "none")


def end_kinds(groups: list[LinkGroup]) -> dict[str, dict[str, int]]:
    """Link ends by layer (node, leaf, spine, ...) and kind: ``pluggable`` counts the modules bought
    (a twin-port module serves two ends), ``optical engine`` the co-packaged ports used (nothing to
    buy per port) and ``none`` the copper or AOC cable heads' ports."""
    out: dict[str, dict[str, int]] = {}
    for g in groups:
        for end, modules, layer in ((g.lower_end, g.modules_lower, g.lower), (g.upper_end, g.modules_upper, g.upper)):
            kinds = out.setdefault(layer, dict.fromkeys(END_KINDS, 0))
            kinds[end.kind] += modules if end.kind == "pluggable" else g.links
    return out
