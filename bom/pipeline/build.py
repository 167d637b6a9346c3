"""A scenario built: its catalog (built-in, overlays, price files), its sizing, and its model on as many sites
as it names or as its buildings' power needs."""

from __future__ import annotations

import math
from pathlib import Path

from bom.catalog.load import load_catalog
from bom.catalog.rows import Catalog
from bom.costing import cooling
from bom.costing.lines import all_lines
from bom.costing.report import check_spares
from bom.costing.sitepower import MAX_SITES, SitesPower, buildings_needed, site_limits_kw, site_power
from bom.costing.tco import inputs
from bom.errors import BomError, LimitError, MultiError
from bom.inputs.scenario import Scenario
from bom.inputs.validation import MultiRuleError, RuleError, located
from bom.inputs.yamlio import Located
from bom.model.model import Model
from bom.model.sizing import Sizing
from bom.pipeline.model import build_model
from bom.pipeline.sizing import SizeOverrides, size_scenario
from bom.topology import preflight


def catalog_for(scenario: Scenario, src: Located, overlays: list[Path] | None = None,
                prices: list[Path] | None = None, strict_prices: bool = False) -> Catalog:
    """The built-in catalog plus the scenario's overlays and price files (paths relative to
    the scenario file), then the command line's."""
    here = Path(src.file).parent
    dirs = [here / d for d in scenario.catalogs] + list(overlays or [])
    files = [here / f for f in scenario.prices.files] + list(prices or [])
    return load_catalog(dirs, files, rates=dict(scenario.exchange_rates), strict_prices=strict_prices,
                        columns=dict(scenario.prices.columns))


def build_scenario(scenario: Scenario, src: Located, catalog: Catalog) -> Model:
    """Size (when the scenario gives a workload) and build the model of the whole cluster, once the rules
    that need more than the scenario (its validators') have passed."""
    with located(src):
        # Before any work: the scenario against the costing's tables (its money figures within the cap once
        # converted, its spares categories), then against the catalog (every problem found at once).
        inputs(scenario.tco)
        check_spares(scenario)
        preflight.check(scenario, catalog)
        sizing = None
        if scenario.workload is not None:
            sizing = size_scenario(scenario, src, catalog, None, SizeOverrides())
        if scenario.sites is not None and scenario.sites.power is not None:
            return _sites_from_power(scenario, src, catalog, sizing)
        return build_model(scenario, src, catalog, sizing)


#: Builds the number of sites from sites.power may take; it only grows, so it settles well before.
POWER_ROUNDS = 12


def site_power_of(model: Model, catalog: Catalog) -> SitesPower:
    """Each site's IT and facility power at maximum (bom/costing/sitepower.py), from the model's BOM lines."""
    sc = model.scenario
    pue = float(inputs(sc.tco, sc.layout.cooling)["pue"].value)
    limits = site_limits_kw(sc)[:model.cluster.site_count] if sc.sites and sc.sites.power is not None else None
    return site_power(model, all_lines(model, catalog), pue, cooling.size_cooling(model, catalog), limits)


def _sites_from_power(scenario: Scenario, src: Located, catalog: Catalog, sizing: Sizing | None) -> Model:
    """The model on as many buildings as its facility power needs (``sites.power`` with no count), or the
    scenario's count checked against the buildings' power. More sites bring more DCI gear and so more power:
    the count only grows from round to round, until the sites hold the facility (a fixed point)."""
    sites = scenario.sites
    assert sites is not None
    limits = site_limits_kw(scenario)
    if not sites.from_power:
        model = build_model(scenario, src, catalog, sizing)
        power = site_power_of(model, catalog)
        over = [s for s in power.sites if not s.fits]
        if over:
            limit = over[0].limit_kw
            assert limit is not None   # a site over its power has a power
            need = buildings_needed(power.facility_kw, limits)
            raise LimitError(
                f"the cluster needs {power.facility_kw / 1000:,.1f} MW of facility power (IT at its maximum x PUE "
                f"{power.pue:g}, plus the CDUs); {len(over)} of {len(power.sites)} site(s) go over their "
                f"{limit / 1000:,.1f} MW (site {over[0].site}: {over[0].facility_kw / 1000:,.1f} MW), so "
                + (f"it needs {need} buildings of that power" if need is not None else
                   "the buildings listed cannot hold it"),
                at=("sites", "count"), key="sites.count",
                hint=(f"Give count: {need}, or leave count out and the build takes as many buildings as it needs "
                      "(sites.power), or fewer GPUs." if need is not None else
                      "List more buildings in sites.power, or fewer GPUs."),
                fix={("sites", "count"): need} if need is not None else None)
        return model
    n, rounds = 1, 0
    while True:
        rounds += 1
        job = scenario if n == 1 else _with_sites(scenario, n, limits[:n])
        model = build_model(job, src, catalog, sizing, power_rounds=rounds)
        power = site_power_of(model, catalog)
        need = buildings_needed(power.facility_kw, limits)
        if need is None:
            more = _more_buildings(scenario, power.facility_kw, limits)
            listed = "[" + ", ".join(more or ()) + "]"
            raise LimitError(f"the cluster needs {power.facility_kw / 1000:,.1f} MW of facility power, more than "
                            f"the {sum(limits) / 1000:,.1f} MW of the {len(limits)} buildings sites.power lists",
                            at=("sites", "power"), key="sites.power",
                            hint=(f"List more buildings (power: {listed}), or more power per building, or fewer "
                                  "GPUs." if more else "List more buildings (or more power per building), or fewer "
                                  "GPUs."),
                            fix={("sites", "power"): more} if more else None)
        fits = all(s.fits for s in power.sites)
        if need <= n and fits:
            return model
        # More sites bring more DCI gear, never less: the count only grows, so this ends.
        n = max(need, n + (0 if need > n else 1))
        if n > min(len(limits), MAX_SITES) or rounds >= POWER_ROUNDS:
            raise LimitError(f"the number of sites did not settle from sites.power ({n} buildings after {rounds} "
                            f"builds, {power.facility_kw / 1000:,.1f} MW)", at=("sites", "power"), key="sites.power",
                            hint="Give sites.count.")


def _more_buildings(scenario: Scenario, facility_kw: float, limits: list[float]) -> list[str] | None:
    """The listed buildings and as many more of the last one's power as the facility needs past their sum,
    as sites.power would list them (None: one power for every building, or past the most sites)."""
    assert scenario.sites is not None
    if not isinstance(scenario.sites.power, list):
        return None
    extra = math.ceil((facility_kw - sum(limits)) / limits[-1] - 1e-9)
    if len(limits) + extra > MAX_SITES:
        return None
    return [f"{kw / 1000:g} MW" for kw in [*limits, *[limits[-1]] * extra]]


def _with_sites(scenario: Scenario, n: int, limits: list[float]) -> Scenario:
    """The scenario on ``n`` sites, shared in proportion to their power (equal powers: equally)."""
    sites = scenario.sites
    assert sites is not None
    split = None if len(set(limits)) == 1 else list(limits)
    one = sites.model_copy(update={"count": n, "split": split})
    try:
        one.check_joined()   # two or more sites need their distance and DCI bandwidth: the validator's error, if not
    except RuleError as exc:
        told = [BomError(f"sites.power needs {n} buildings here, and {e}", at=("sites", *e.at),
                         key="sites." + ".".join(map(str, e.at)), hint=e.hint,
                         fix={("sites", *k): v for k, v in e.fix.items()} if e.fix else None)
                for e in (exc.problems if isinstance(exc, MultiRuleError) else [exc])]
        raise (told[0] if len(told) == 1 else MultiError(told)) from None
    return scenario.model_copy(update={"sites": one})
