"""The model of one scenario: sizing -> cluster -> fabrics -> placement -> link groups.

Pure orchestration of the stage modules: each stage is a function from its inputs to a value, and
the :class:`~bom.model.model.Model` (frozen, in :mod:`bom.model`) is made once every stage has
landed. The writers and the BOM read the model.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bom.catalog.media import Media, media_for
from bom.catalog.rows import Catalog, Switch
from bom.errors import BomError, LimitError, keyed
from bom.inputs.scenario import FabricSpec, Scenario, Sites
from bom.inputs.validation import located
from bom.inputs.yamlio import Located
from bom.links import registry
from bom.links.line import DCI_LINE
from bom.links.pooled import UplinksUnjoinedError
from bom.links.power import power_plan
from bom.links.views import UfmLinks
from bom.model.cluster import Cluster
from bom.model.dci import Dci
from bom.model.fabrics import Fabric, OobFabric
from bom.model.linkgroups import LinkGroup
from bom.model.model import Design, Model
from bom.model.placement import Placement
from bom.model.sizing import Sizing
from bom.placement.layout import place
from bom.roles import DEFAULT_TOPOLOGY, FabricKind, FabricRole, Layer
from bom.topology.cluster import build_cluster, scale_up
from bom.topology.dci import line_patch, site_dci
from bom.topology.endpoints import build_endpoints
from bom.topology.fabrics import build_fabric, default_spine, fabric_switch, support_switch
from bom.topology.geometry import floor_plan, nodes_per_rack
from bom.topology.support import build_oob, build_pooled
from bom.topology.ufm import attach_ufm, refuse_explicit, unplaceable

#: The fabrics whose border leaves (leaf groups of their own) take the DCI routers' client links.
POOLED_BORDER = (FabricRole.INBAND, FabricRole.STORAGE)
#: Rounds of OOB switches -> racks -> PDUs -> in-band leaves before the counts must have settled.
SETTLE_ROUNDS = 6


def with_groups(f: Fabric, where: registry.Where, media: Media) -> Fabric:
    """The fabric with every hop's link groups (its family's patterns, :mod:`bom.links.registry`), on
    the runs between where the placement stands their ends, and the endpoint kinds it counted as the
    nodes' ports."""
    if f.spec.media:
        media = media.restricted(tuple(f.spec.media))
    with keyed(("fabrics", f.name), f"fabrics.{f.name}", only=LimitError):
        groups, substitutions = registry.count(registry.view_of(f, where), f.kind, where.fp, media)
    return f.with_groups(groups, substitutions)


def _dci_groups(dci: Dci | None, where: registry.Where, sites: Sites | None, media: Media) -> list[LinkGroup]:
    """Router client ports to the top layer of each site's compute fabric, or to the border leaves
    of the in-band or storage fabric (bom/links/dci.py)."""
    if dci is None:
        return []
    assert sites is not None
    with keyed(("sites", "dci_bandwidth" if sites.dci_bandwidth is not None else "dci_fraction"), only=LimitError):
        return registry.count(registry.dci_view(dci, where), FabricKind.DCI, where.fp, media)[0]


def build_model(scenario: Scenario, src: Located, catalog: Catalog, sizing: Sizing | None,
                power_rounds: int = 0) -> Model:
    """The whole model, made once every stage has landed; an error in a stage gets its file and line in
    ``src`` here, and only here. ``power_rounds``: the builds it took to settle the sites' count from
    their power (:func:`bom.pipeline.build_scenario`)."""
    with located(src):
        parts = _parts(scenario, catalog, sizing)
        return Model(**parts, site_models=_site_models(parts, catalog), power_rounds=power_rounds)


def _site_models(parts: dict[str, Any], catalog: Catalog) -> tuple[tuple[int, Model | None], ...] | None:
    """Each site shape built on its own, with how many sites have it (the order installs parts site
    by site); () for one site, None when a shape cannot stand alone (the order then gives totals)."""
    c: Cluster = parts["cluster"]
    if c.site_count == 1:
        return ()
    if len(c.sites) == 1:   # every site alike: a site is the whole less what sites do not share, over them
        return ((c.sites[0].count, None),)
    out = []
    d: Dci | None = parts["dci"]
    # A site alone keeps the border leaves its DCI routers' client ports take in the whole campus (the
    # DCI's own border leaves are the DCI's lines, shared between the sites as its routers are).
    border = d.busiest([site.count for site in c.sites]) if d is not None and d.attach in POOLED_BORDER else None
    for k, site in enumerate(c.sites):
        one = parts["scenario"].model_copy(update={"nodes": site.nodes, "gpus": None, "workload": None, "sites": None})
        try:
            keep = (d.attach, d.wavelength_gbps, [border[k]]) if d is not None and border else None
            out.append((site.count, Model(**_parts(one, catalog, None, keep), site_models=(), power_rounds=0)))
        except BomError:
            return None
    return tuple(out)


def _design(scenario: Scenario, catalog: Catalog, sizing: Sizing | None, media: Media) -> Design:
    """The cluster, its compute fabric, endpoints and DCI: what stands before the support fabrics."""
    assert scenario.platform is not None   # the preflight's first rule (bom/topology/preflight.py)
    with keyed(("platform",), relocate=True):
        platform = catalog.platform(scenario.platform)
    npr, rack_power = nodes_per_rack(platform, scenario)
    with keyed(("layout",), relocate=True):
        floor = floor_plan(platform, scenario.layout.model_copy(update={"nodes_per_rack": npr}))
    gpus = sizing.gpus if sizing else scenario.gpus
    sites = scenario.sites.count if scenario.sites else 1
    split = tuple(scenario.sites.split) if scenario.sites and scenario.sites.split else None
    cluster = build_cluster(platform, floor, gpus=gpus, nodes=scenario.nodes, sites=sites, split=split)
    spec = _specs(scenario)[FabricRole.COMPUTE]
    protocol = fabric_switch(catalog, spec.switch or platform.default_switch,
                             ("fabrics", FabricRole.COMPUTE, "switch")).protocol
    endpoints = build_endpoints(scenario, catalog, platform, protocol, cluster.site_count,
                                max(s.nodes for s in cluster.sites), cluster.gpus)
    # The fabric managers' ports need a port of the fabric they manage: the compute fabric is sized
    # with room for them where one more top switch makes it (bom/topology/ufm.py).
    ufm = UfmLinks.of(endpoints)
    compute = build_fabric(FabricRole.COMPUTE, spec, cluster, catalog, media, ufm.ports if ufm else 0)
    why = unplaceable(compute, ufm, media) if ufm is not None else None
    if ufm is not None and why is not None:
        if _explicit_ufm(scenario):
            raise refuse_explicit(why)
        endpoints = replace(endpoints, ufm_count=0, warnings=(*endpoints.warnings, (
            f"fabrics.compute: the platform's {ufm.per_site} UFM appliance{'s' * (ufm.per_site != 1)} per site "
            f"(management.ufm_count) are not bought: {why}, and an appliance off the fabric cannot be its subnet "
            "manager. Run the subnet manager on a managed switch, or free a port for each (one node fewer per "
            "UFM port, as the DGX SuperPOD RA does) and set management.ufm_count.")))
    dci = site_dci(scenario, cluster, catalog, media, compute, sizing)
    return Design(scenario, platform, cluster, floor, {FabricRole.COMPUTE: compute}, endpoints, dci, rack_power)


def _specs(scenario: Scenario) -> dict[str, FabricSpec]:
    """The scenario's fabrics, the compute fabric always among them."""
    specs = scenario.fabric_specs or {FabricRole.COMPUTE: FabricSpec()}
    specs.setdefault(FabricRole.COMPUTE, FabricSpec())
    return specs


def _parts(scenario: Scenario, catalog: Catalog, sizing: Sizing | None,
           reserve: tuple[str, float, list[int]] | None = None) -> dict[str, Any]:
    """Every field of the model but the site models. ``reserve``: a site built alone (for the order's
    per-site quantities) keeps the ports its DCI routers' client links take on that fabric's border
    leaves."""
    media = media_for(catalog)
    design = _design(scenario, catalog, sizing, media)
    dci, cluster, floor = design.dci, design.cluster, design.floor
    border = ((dci.attach, dci.wavelength_gbps, dci.busiest([site.count for site in cluster.sites]))
              if dci is not None and dci.attach in POOLED_BORDER else None if dci is not None else reserve)
    # The DCI equipment stands in each site's own racks: the placement needs it.
    design, placement = _support_fabrics(design, _specs(scenario), catalog, media, border)
    compute = design.fabrics[FabricRole.COMPUTE]
    ufm = attach_ufm(compute, UfmLinks.of(design.endpoints), placement, floor, cluster.site_count)
    if ufm is not None:
        design = design.with_fabric(replace(compute, ufm=ufm))
    # The link groups once every device stands somewhere: each run is the route between two racks.
    where = registry.Where(placement, floor, design.fabrics, design.endpoints, catalog)
    fabrics = {name: with_groups(f, where, media) for name, f in design.fabrics.items()}
    if dci is not None and dci.mux is not None:
        # The line ports' patch cords reach the mux/demuxes where the site's own racks stand them.
        dci = replace(dci, patch=line_patch(media, DCI_LINE.patch_m(dci, placement, floor)))
    sup = design.platform.support
    assert sup is not None   # the placement stood every rack with its PDUs
    return dict(scenario=scenario, platform=design.platform, cluster=cluster, floor=floor, fabrics=fabrics,
                endpoints=design.endpoints, dci=dci, rack_power_w=design.rack_power_w, sizing=sizing,
                scale_up=scale_up(cluster), dci_groups=_dci_groups(dci, where, scenario.sites, media),
                placement=placement, power=power_plan(placement, catalog, sup.pdu, scenario.feeds))


def _explicit_ufm(scenario: Scenario) -> bool:
    """Whether the scenario asks for a number of UFM appliances (then no room for them is an error)."""
    return scenario.management is not None and scenario.management.ufm_count is not None


def _support_fabrics(design: Design, specs: dict[str, FabricSpec], catalog: Catalog, media: Media,
                     border: tuple[str, float, list[int]] | None = None) -> tuple[Design, Placement]:
    """Storage and in-band by their ports (``border``: the fabric that takes the DCI routers' client
    links, their rate, and how many a site of each shape brings); then the placement, and
    out-of-band on what it holds."""
    pooled: dict[str, tuple[FabricSpec, Switch, Switch]] = {}
    borders = {border[0]: (border[1], border[2])} if border is not None else {}
    for name in (FabricRole.STORAGE, FabricRole.INBAND):
        if name in specs:
            spec = specs[name]
            if "topology" not in spec.model_fields_set:
                spec = spec.model_copy(update={"topology": DEFAULT_TOPOLOGY[name]})
            leaf = fabric_switch(catalog, spec.switch or support_switch(design.platform, name, catalog),
                                 ("fabrics", name, "switch"))
            spine = fabric_switch(catalog, spec.spine or default_spine(catalog, name, leaf),
                                  ("fabrics", name, Layer.SPINE if spec.spine else "switch"))
            pooled[name] = (spec, leaf, spine)
            design = design.with_fabric(build_pooled(name, spec, design, media, leaf, spine, border=borders.get(name)))
    placement = place(design, catalog)
    if FabricRole.OOB not in specs:
        return design, placement
    spec = specs[FabricRole.OOB]
    leaf = fabric_switch(catalog, spec.switch or support_switch(design.platform, FabricRole.OOB, catalog),
                         ("fabrics", FabricRole.OOB, "switch"))
    if spec.uplinks is None and FabricRole.INBAND not in specs:
        # No in-band network for the uplinks to land on: the management network's own spines join
        # its switches (else they would end at a site network the BOM does not hold).
        built, placement = _settle_oob(design, placement, spec.model_copy(update={"uplinks": Layer.SPINE}), leaf,
                                       catalog, media, pooled, borders)
        oob = built.fabrics[FabricRole.OOB]
        assert isinstance(oob, OobFabric)
        return built.with_fabric(replace(oob, note=(
            f"fabrics.oob: the scenario builds no in-band fabric for the management switches' uplinks, so they "
            f"uplink to OOB spines of their own ({oob.spine_id}). Add fabrics.inband to land them on its leaves, "
            "or set fabrics.oob.uplinks: spine to say so."))), placement
    built, placed = _settle_oob(design, placement, spec, leaf, catalog, media, pooled, borders)
    inband = built.fabrics.get(FabricRole.INBAND)
    oob = built.fabrics[FabricRole.OOB]
    if spec.uplinks is not None or not isinstance(oob, OobFabric) or not oob.into_inband or inband is None:
        return built, placed
    # The uplinks' runs are known once the placement stands the switches: count them to see.
    where = registry.Where(placed, built.floor, built.fabrics, built.endpoints, catalog)
    try:
        cross = with_groups(inband, where, media).substitutions.get(Layer.OOB)
    except UplinksUnjoinedError as exc:   # not even the nodes' part, counted in their place, reaches
        cross = exc.substitution
    if cross is None:
        return built, placed
    # No catalog part joins the management switches' uplinks to the in-band leaves' cages over the
    # runs between them (100G QSFP28 across rows into an 800G OSFP leaf): the OOB network gets its
    # own spines, as `uplinks: spine` asks, rather than a BOM whose uplinks cannot be cabled.
    built, placed = _settle_oob(design, placement, spec.model_copy(update={"uplinks": Layer.SPINE}), leaf, catalog,
                                media, pooled, borders)
    oob = built.fabrics[FabricRole.OOB]
    assert isinstance(oob, OobFabric)
    note = (f"fabrics.oob: the management switches uplink to OOB spines of their own ({oob.spine_id}), not into "
            f"the in-band leaves: no catalog part joins the two ({cross.split('; counted as')[0]}). Set "
            "fabrics.oob.uplinks: inband to count them as the in-band nodes' ports anyway, or add the part to a "
            "catalog overlay.")
    return built.with_fabric(replace(oob, note=note)), placed


def _settle_oob(design: Design, placement: Placement, spec: FabricSpec, leaf: Switch, catalog: Catalog, media: Media,
                pooled: dict[str, tuple[FabricSpec, Switch, Switch]],
                borders: dict[str, tuple[float, list[int]]]) -> tuple[Design, Placement]:
    """The out-of-band fabric on the design's placement, the in-band leaves rebuilt for its uplinks."""
    spine = fabric_switch(catalog, spec.spine or catalog.default(FabricRole.OOB, Layer.SPINE),
                          ("fabrics", FabricRole.OOB, Layer.SPINE)) if spec.uplinks == Layer.SPINE else None
    # Management switches add racks only rarely (and racks add PDUs), and their uplinks add in-band
    # leaf ports (and so perhaps in-band leaves to manage): settle in a few rounds.
    seen: tuple[int, ...] = ()
    last: tuple[Fabric | None, Fabric | None] | None = None
    for _ in range(SETTLE_ROUNDS):
        oob = build_oob(spec, design, placement, media, leaf, spine)
        design = design.with_fabric(oob)
        if oob.into_inband:
            ib_spec, ib_leaf, ib_spine = pooled[FabricRole.INBAND]
            design = design.with_fabric(build_pooled(FabricRole.INBAND, ib_spec, design, media, ib_leaf, ib_spine,
                                                     oob_uplinks=(oob.uplink_ports(leaf), oob.site_leaves),
                                                     border=borders.get(FabricRole.INBAND)))
        inband = design.fabrics.get(FabricRole.INBAND)
        state = (oob.leaves, inband.switches(Layer.LEAF) if inband is not None else 0)
        if (oob, inband) == last and state == seen:
            # The round changed neither fabric a round changes: the last placement is this design's.
            return design, placement
        last = (oob, inband)
        placement = place(design, catalog)
        if state == seen:
            return design, placement
        seen = state
    # Counts that still move after every round would leave a BOM of whichever round came last.
    raise BomError(f"the management switches and the in-band leaves did not settle in {SETTLE_ROUNDS} rounds "
                   f"(last: {seen[0]} management switches, {seen[1]} in-band leaves): a bug, please report the "
                   "scenario", at=("fabrics", "oob"), key="fabrics.oob")
