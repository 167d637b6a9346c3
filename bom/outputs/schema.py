"""The JSON Schema of the outputs (`bom schema --output`) and its reference (docs/output.md).

Two documents are described: a build's JSON (``bom build --json``, the written ``<name>.json``)
and a comparison's (``bom compare --json``, ``<name>-compare.json``). The schema is written here
in one place; the tiers' and fabrics' totals are read from the typed results
(:mod:`bom.model.totals`), so a total added there shows up here. tests/outputs/test_output_schema.py
validates the JSON of several scenarios against it and fails when docs/output.md is stale;
regenerate it with ``python -m bom.outputs.schema > docs/output.md``.
"""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any

from bom.costing.compare import JOB_METRICS, SCOPES
from bom.costing.tco import TCO_FIELDS
from bom.model.checks import ERROR, MODEL, PLAN, WARNING, End, Violation
from bom.model.cluster import ScaleUp
from bom.model.sizing import Sizing
from bom.model.totals import LinkTotals, ScaleAcrossTotals, TierTotals
from bom.roles import SWITCH_LAYERS, FabricRole, Layer, Tier

DRAFT = "https://json-schema.org/draft/2020-12/schema"

Schema = dict[str, Any]

INT: Schema = {"type": "integer", "minimum": 0}
NUM: Schema = {"type": "number"}
STR: Schema = {"type": "string"}
BOOL: Schema = {"type": "boolean"}
COUNT: Schema = {"type": "number", "minimum": 0}          # whole "each" quantities, metres of cable
SHARE: Schema = {"type": "number", "minimum": 0, "maximum": 1}
DATE: Schema = {"type": "string", "format": "date"}


def null(s: Schema) -> Schema:
    return {"anyOf": [s, {"type": "null"}]}


def obj(props: dict[str, Schema], required: tuple[str, ...] | None = None, description: str = "") -> Schema:
    """A closed object: these keys (all required unless ``required`` names some)."""
    out: Schema = {"type": "object", "properties": props,
                   "required": list(props if required is None else required), "additionalProperties": False}
    return {"description": description, **out} if description else out


def mapping(values: Schema, description: str = "") -> Schema:
    out: Schema = {"type": "object", "additionalProperties": values}
    return {"description": description, **out} if description else out


def array(items: Schema) -> Schema:
    return {"type": "array", "items": items}


#: Python annotations of the typed results, as JSON types.
_TYPES: dict[str, Schema] = {"int": INT, "float": NUM, "str": STR, "bool": BOOL, "str | None": null(STR)}


def _fields(cls: type, skip: tuple[str, ...] = ()) -> dict[str, Schema]:
    """The plain fields of a dataclass (ints, floats, strings) as properties."""
    return {f.name: _TYPES[str(f.type)] for f in fields(cls) if f.name not in skip and str(f.type) in _TYPES}


# --- tiers ---------------------------------------------------------------------------------

def _tier_common() -> dict[str, Schema]:
    return {**_fields(TierTotals), "copper_share": SHARE}


def scale_up_schema() -> Schema:
    props = {"kind": {"enum": ["electrical", "switched", "torus-ocs"]}, **_tier_common(), "optical_links": INT,
             **_fields(ScaleUp, skip=("kind", "links", "switch", "ocs_groups")), "switch": STR,
             "ocs_ports_used": INT, "ocs_groups_per_domain": INT}
    torus = ("ocs", "ocs_ports", "ocs_ports_used", "ocs_groups_per_domain", "cubes")
    return obj(props, tuple(k for k in props if k not in (*torus, "switch")),
               "The links inside every scale-up domain (ScaleUpTotals); the torus keys on a TPU torus only.")


def scale_out_schema() -> Schema:
    return obj({"links": INT, "ports": INT, **{k: v for k, v in _tier_common().items() if k != "links"}},
               description="Every scale-out fabric's links (ScaleOutTotals).")


def scale_across_schema() -> Schema:
    totals = {**_tier_common(), **_fields(ScaleAcrossTotals)}
    dci = {"sites": INT, "site_pairs": INT, "topology": {"enum": ["mesh", "ring", "hub"]},
           "pairs": array({"type": "array", "items": {"type": "integer", "minimum": 1}, "minItems": 2,
                           "maxItems": 2}),
           "wavelengths_per_pair": INT, "fibre_pairs_per_pair": INT, "distance_km": NUM,
           "bandwidth_gbps_per_pair": NUM, "coherent": STR, "standard": STR, "mux_demux": INT, "patch_cords": INT,
           "amplifiers": INT, "amplifiers_per_fibre_pair": INT, "inline_amplifier_sites": INT,
           "inline_amplifier_sites_per_route": INT, "dark_fibre_km": NUM, "routers": INT, "router_ports": INT,
           "amplified": BOOL, "client_fabric": {"enum": [FabricRole.COMPUTE, FabricRole.INBAND, FabricRole.STORAGE]},
           "line_loss": null(obj({"fibre_db": NUM, "mux_demux_db": NUM, "mated_pairs": INT, "connectors_db": NUM,
                                  "loss_db": NUM, "budget_db": null(NUM), "over_budget": BOOL, "why": STR},
                                 description="One wavelength's loss from transmitter to receiver without "
                                             "amplifiers (fibre with splices, mux and demux, mated pairs) "
                                             "against the coherent module's unamplified budget; over it, "
                                             "the route takes a booster and a pre-amplifier each way."))}
    one_site = ("links", "modules", "fibre_pairs", "wavelengths", "copper_links", "copper_share", "fibre_runs",
                "fibre_strands")
    return obj({**totals, **dci}, one_site,
               "The wavelengths between sites and the routers' client links (ScaleAcrossTotals); the DCI's "
               "description and the client figures with two or more sites only. copper_links is 0.")


# --- fabrics -------------------------------------------------------------------------------

def fabric_schema() -> Schema:
    counts = {k: v for k, v in _fields(LinkTotals).items() if k not in ("links", "modules")}
    props: dict[str, Schema] = {
        "tier": {"enum": [Tier.SCALE_OUT, Tier.SCALE_ACROSS]}, "switch": STR, "spine_switch": null(STR),
        "topology": STR, "layers": INT, "planes": INT, "rate_gbps": null(NUM), "uplink_rate_gbps": null(NUM),
        "rails_per_leaf": null(INT),
        "switches": obj(dict.fromkeys(SWITCH_LAYERS, INT), description="Switches over every site and plane."),
        "site_switches": array(obj({"sites": INT, **dict.fromkeys(SWITCH_LAYERS, INT)})),
        "links": mapping(INT, "Links of each hop (node-leaf, leaf-spine, ..., site-site)."),
        "media": mapping(mapping(INT), "Links of each hop by medium."),
        "modules": mapping(INT, "Modules: node, switch (and ufm, endpoint; coherent and client on the DCI)."),
        "ends": mapping(mapping(INT), "Link ends by layer and kind (pluggable modules, optical engine ports, none)."),
        **counts, "optical_links": INT,
        # a scheduled (cell) fabric: interface nodes' fabric ports to fabric elements
        "scheduled": obj({"fabric_ports_per_leaf": INT, "fabric_port_rate_gbps": NUM, "links_per_pair": INT,
                          "speedup": NUM},
                         description="A scheduled fabric (Jericho3-AI interface nodes, Ramon fabric elements): each "
                                     "leaf's fabric ports (all cabled), the links joining each leaf-element pair, and "
                                     "the fabric ports' capacity over the host ports' (the speedup)."),
        # the compute fabric's fabric managers
        Layer.UFM: obj({"hop": STR, "ports": INT, "leaves": INT, "leaf_modules": INT, "why": STR}),
        # storage and in-band (pooled) fabrics
        "endpoint_substitutions": mapping(STR), "oversubscription": STR, "group_ports": INT, "endpoint_ports": INT,
        "border_leaves": INT,
        # out-of-band
        "uplinks": {"enum": [Layer.SPINE, FabricRole.INBAND]},
        "uplinks_counted_in": {"enum": [FabricRole.OOB, FabricRole.INBAND]},
        "uplink_ports": INT, "managed_devices": INT,
        # the DCI
        "routers": INT, "coherent": STR, "standard": STR,
    }
    return obj(props, ("tier", "switch", "links", "modules", "copper_links", "optical_links"),
               "One fabric: its description and totals (FabricTotals); the keys after optical_links are the "
               "compute, pooled (storage, in-band), out-of-band and DCI fabrics' own.")


# --- the build -----------------------------------------------------------------------------

def _line() -> Schema:
    return obj({"sku": STR, "catalog_id": STR, "description": STR, "category": STR, "tier": STR, "fabric": STR,
                "hop": STR, "quantity": COUNT, "unit": STR, "unit_price_usd": NUM, "unit_power_w": NUM,
                "unit_power_max_w": NUM, "unit_price_low_usd": null(NUM),
                "unit_price_high_usd": null(NUM), "price_source": STR, "vendor": STR, "asset_class": STR,
                "flags": array(STR)},
               description="One BOM line. unit_power_w is the unit's typical draw (the energy cost's basis), "
                           "unit_power_max_w its maximum (facility sizing); they differ where a catalog row "
                           "publishes both (a platform's power_typical and power_per_system). "
                           "unit_price_low_usd / unit_price_high_usd: the row's published price range (null: none).")


def _order() -> Schema:
    return obj({"sku": STR, "catalog_id": STR, "category": STR, "description": STR, "maker": STR, "unit": STR,
                "installed": COUNT, "per_site": null(array(COUNT)), "spares": COUNT,
                "rounded_up": _said(COUNT, "Units past installed + spares that the quote's minimum order (moq) "
                                           "and pack size add; in total and priced into capex."),
                "total": COUNT, "avl": _said(array(STR), "The catalog row's approved vendors (empty: not stated)."),
                "unit_price_usd": NUM, "extended_usd": NUM, "price_source": STR, "price_date": STR,
                "quote_ref": STR, "vendor": STR, "flags": array(STR), "valid_until": null(DATE),
                "lead_time_days": _said(null(NUM), "Days from order to delivery: the quote's, else the catalog "
                                                   "row's lead_time; null when neither gives one."),
                "lead_time_source": _said(STR, "Where the lead time comes from (a document, \"estimate: ...\" "
                                               "or the quote); empty without one."),
                "spares_basis": null(obj({
                    "method": _said({"enum": ["rule", "failure rate"]},
                                    "rule: fraction, minimum or per site; failure rate: Poisson over the "
                                    "category's afr, resupply and service_level (the largest of those given)."),
                    "expected_failures_per_site": _said(null(NUM), "installed per site x afr x resupply / 365."),
                    "fill_rate": _said(null(NUM), "P(a site's failures during one resupply <= its spares)."),
                    "fraction_rule_spares": _said(null(INT), "What the category's default rule would hold."),
                    "fraction_rule_fill_rate": _said(null(NUM), "That rule's fill rate at the same failure rate.")},
                    description="How the spares were counted (null for a line in metres)."))},
               description="One order line per part number.")


def _quote() -> Schema:
    return obj({"sku": STR, "amount": NUM, "currency": STR, "usd_per_unit": NUM, "price_usd": NUM,
                "price_source": STR, "quoted_on": null(DATE), "valid_until": null(DATE), "quote_ref": STR,
                "vendor": STR, "where": STR, "lead_time_days": null(NUM),
                "moq": _said(null(INT), "The quote's minimum order quantity (null: none)."),
                "pack": _said(null(INT), "Units per pack: the order is whole packs (null: none).")})


def _sizing() -> Schema:
    return {"type": "object", "properties": _fields(Sizing),
            "required": [f.name for f in fields(Sizing) if f.name != "parallelism"],
            "description": "The workload sizing (Sizing); null without a workload."}


def parallelism_schema() -> Schema:
    """A job's split, tiers and traffic per step (bom/topology/parallelism.py: Parallelism; a serving job's
    from bom/topology/serving.py, its step a decode step)."""
    tier = {"enum": [Tier.SCALE_UP, Tier.SCALE_OUT, Tier.SCALE_ACROSS]}
    traffic = obj({"dim": _said({"enum": ["tp", "cp", "ep", "pp", "dp", "dp-across"]},
                                "The parallel dimension; dp-across: the data-parallel exchange between sites."),
                   "collective": STR, "tier": tier,
                   "bytes_per_gpu": _said(NUM, "Bytes one GPU sends per step (dp-across: one site; serving: per "
                                                       "decode step)."),
                   "seconds": _said(NUM, "Their time at the tier's bandwidth per GPU (dp-across: per site pair)."),
                   "exposed_s": _said(NUM, "The part on the step's critical path (0 for DP, which hides under "
                                           "the backward pass; its excess is in exposed_s of the whole).")},
                  description="One dimension's traffic per GPU per step.")
    degrees = {k: _said(INT, text) for k, text in (
        ("tp", "Tensor parallelism."), ("cp", "Context parallelism."),
        ("ep", "Expert parallelism (training: carved out of dp; serving: part of a replica)."),
        ("pp", "Pipeline stages."), ("dp", "Data-parallel replicas (serving: the replicas)."))}
    return obj({"job": STR, "proposed": _said(BOOL, "The tool's split (true) or the workload's own (false)."),
                **degrees, "gpus": _said(INT, "tp x cp x pp x dp (serving: tp x ep x pp x dp)."),
                "tiers": mapping(tier, "The tier each dimension's group spans."),
                "memory_gb": _said(NUM, "Memory a GPU holds (serving: weights and its replica's KV cache)."),
                "memory_limit_gb": NUM,
                "microbatches": _said(INT, "Sequences one pipeline runs per step (serving: sequences a replica "
                                                "serves)."),
                "step_s": _said(NUM, "A step's time at the job's MFU (serving: the decode step, decode.step_s; 0 "
                                     "without the platform's memory bandwidth)."),
                "exposed_s": _said(NUM, "Communication on the critical path per step."),
                "exposed_share": SHARE, "traffic": array(traffic),
                "dci_bytes_per_site": _said(NUM, "Data-parallel bytes a site sends the others per step."),
                "dci_gbps_needed": _said(null(NUM), "Gbit/s per site pair to move them within dci_overlap of the "
                                                    "step; null without sites.dci_overlap."),
                "dci_overlap": null(SHARE), "sites": _said(INT, "Sites the DP group is shared out over."),
                "kind": _said({"enum": ["train", "serve"]}, "A training split or a serving one."),
                "replica_gpus": _said(null(INT), "Serving: a replica's tp x ep x pp GPUs; null in training."),
                "sequences_capacity": _said(null(INT), "Serving: sequences a replica's KV cache holds beside its "
                                                       "weights; null in training."),
                "decode": null(obj({
                    "read_s": _said(NUM, "Reading a GPU's weights and KV cache from HBM, stage after stage [s]."),
                    "compute_s": _said(NUM, "2 FLOP per active parameter and token at the dense peak [s]."),
                    "comm_s": _said(NUM, "The replica's TP and EP collectives and PP sends, stage after stage [s]."),
                    "step_s": _said(NUM, "The decode step: the longest of the three (a lower bound) [s]."),
                    "bound": _said({"enum": ["memory", "compute", "communication"]}, "Which of them sets it."),
                    "tokens_per_s_user": _said(NUM, "Tokens a second each sequence gets (1 / step_s)."),
                    "tokens_per_s_replica": _said(NUM, "Tokens a second a replica gives (its sequences / step_s)."),
                    "hbm_gbps": _said(NUM, "The platform's memory bandwidth per GPU it was worked at [GB/s].")},
                    description="Serving: a replica's decode step (bom/topology/serving.py: decode); null in "
                                "training or without the platform's memory_bandwidth.")),
                "tokens_per_s_target": _said(null(NUM), "Serving: workload.tokens_per_s_per_user, the target the "
                                                        "replicas were sized for; null: none.")},
               description="A job's TP, CP, EP, PP and DP split, the tier each spans, and its traffic per step (a "
                           "serving job: TP, EP and PP per replica, dp the replicas, traffic per decode step); null "
                           "without a workload with its shape.")


def _said(s: Schema, text: str) -> Schema:
    return {"description": text, **s}


def checks_schema() -> Schema:
    """The design rules' checks (bom/model/checks.py: Checks, RuleResult, Violation, End)."""
    end = obj(_fields(End), description="One end: role, device (a plan name or a catalog id), port, module, what.")
    violation = obj({**_fields(Violation), "a": null(end), "b": null(end)},
                    description="One violation: where, a one-line message, what to change, both ends, and the "
                                "links, ports, devices or rows it stands for (count).")
    rule = obj({"id": _said(STR, "family.name: ends.protocol, lengths.route, ..."),
                "severity": _said({"enum": [ERROR, WARNING]}, "An error refuses a build; a warning is listed."),
                "checks": _said(STR, "What the rule checks, in one line."),
                "reads": _said(array({"enum": [MODEL, PLAN]}), "What this run read for it: the closed form "
                               "(model) and/or the streamed cable plan (plan)."),
                "violations": _said(INT, "How many violations it found (all of them, not only those shown)."),
                "affected": _said(INT, "The links, ports, devices, racks or rows they stand for (in unit)."),
                "unit": STR, "shown": _said(array(violation), "The first violations (at most 20).")},
               description="One rule: what it checks and reads, its violations, what they stand for (in unit) "
                           "and the first ones.")
    return obj({"plan": _said(BOOL, "Whether the plan's rules ran (bom check) or the closed form only (a build)."),
                "rules_run": _said(array(STR), "Every rule run, in the registry's order."),
                "errors": _said(INT, "Violations of error-severity rules."),
                "warnings": _said(INT, "Violations of warning-severity rules."),
                "ok": _said(BOOL, "No error-severity violation."), "rules": array(rule)},
               description="The design rules run on the model (a build: the closed form; `bom check`: the cable "
                           "plan too). ok: no error-severity violation.")


def _job() -> Schema:
    said = {"name": "The job's name (or its kind).", "flop": "Total work [FLOP].",
            "flops_per_gpu": "Dense FLOP/s per GPU in the job's dtype (catalog).", "mfu": "Model FLOP utilisation.",
            "gpus": "GPUs built (the job runs on all of them).",
            "gpu_hours": "GPU-hours = flop / (flops_per_gpu x mfu) / 3600.",
            "wall_days": "Wall time = gpu_hours / gpus / 24 [days].",
            "energy_mwh": "Facility energy over the wall time (IT power x PUE) [MWh].",
            "usd_per_gpu_hour": "The TCO's cost per GPU-hour.",
            "marginal_usd_per_gpu_hour": "Energy and support per GPU-hour worked.",
            "cost_usd": "gpu_hours x usd_per_gpu_hour.", "marginal_cost_usd": "gpu_hours x marginal_usd_per_gpu_hour.",
            "deadline_days": "The deadline the job was sized for [days]."}
    props = {k: NUM for k in said} | {"name": STR, "gpus": INT, "deadline_days": null(NUM)}
    return obj({k: _said(v, said[k]) for k, v in props.items()},
               description="The training job priced: GPU-hours, wall time, energy, cost at the TCO and marginal rates.")


def _in_service() -> Schema:
    said = {"site": "The site (1 first).", "gpus": "Its GPUs.", "racks": "Its racks.",
            "order_date": "The day the order is placed.",
            "longest_lead_days": "The longest lead time of the parts the site takes [days].",
            "longest_part": "The part number that arrives last (empty when no part has a lead time).",
            "gpu_lead_days": "The GPU systems' lead time [days] (0 when unknown).",
            "install_days": "ceil(racks / racks installed per day).",
            "date": "The earliest in-service date: order date + longest lead time + install days.",
            "idle_gpu_days": "Days the GPU systems wait for the last part.",
            "idle_gpu_cost_usd": "The GPU systems' capital charge over those days (the site's share).",
            "without_lead_time": "The site's order lines with no lead time (left out of the dates)."}
    props = {"site": INT, "gpus": INT, "racks": INT, "order_date": DATE, "longest_lead_days": NUM,
             "longest_part": STR, "gpu_lead_days": NUM, "install_days": INT, "date": DATE, "idle_gpu_days": NUM,
             "idle_gpu_cost_usd": NUM, "without_lead_time": INT}
    return obj({k: _said(v, said[k]) for k, v in props.items()}, description="One site's earliest in-service date.")


def _phase() -> Schema:
    item = obj({"sku": STR, "catalog_id": STR, "description": STR, "category": STR, "fabric": STR, "quantity": COUNT,
                "unit": STR, "unit_price_usd": NUM, "extended_usd": NUM})
    said = {"name": "The phase's name.", "date": "The day its GPUs are in service.",
            "gpus": "GPUs in service once the phase is.", "sites": "Sites in service once the phase is.",
            "policy": "The growth it follows: reserve, rebuild, or mixed (each fabric its own).",
            "capex_usd": "What the phase buys (spares apart), its installation and its re-cabling labour [USD].",
            "order": "What the phase buys, per fabric and part number (the phases add up to the final build).",
            "made_spare": "Parts held after the phase and not installed (rebuild: an earlier design's).",
            "recabled_links": "Links of the phase before that this phase takes out or moves.",
            "recabling_usd": "recabled_links x the TCO's install_link labour.",
            "installation_usd": "The phase's share of the final build's installation: the share of the final "
                                "plan's links it puts in service [USD]."}
    props = {"name": STR, "date": DATE, "gpus": INT, "sites": INT, "policy": STR, "capex_usd": NUM,
             "order": array(item), "made_spare": array(item), "recabled_links": INT, "recabling_usd": NUM,
             "installation_usd": NUM}
    return obj({k: _said(v, said[k]) for k, v in props.items()}, description="One phase of the build-out.")


def _growth() -> Schema:
    one = obj({"policy": STR, "capex_usd": NUM, "recabling_usd": NUM, "installation_usd": NUM, "recabled_links": INT,
               "tco_usd": NUM, "gpu_hours": NUM, "usd_per_gpu_hour": NUM, "capex_pv_usd": NUM},
              description="One growth policy over every phase: its capex (the phases' capex: orders, "
                          "installation shares, re-cabling), the TCO over the period (capex + the final opex scaled "
                          "by the "
                          "GPU-hours in service), the GPU-hours worked, each phase's GPUs from its date, and "
                          "capex_pv_usd: each phase's capex discounted to the first phase's date at the TCO's "
                          "discount_rate (what buying early costs).")
    return obj({"chosen": one, "reserve": one, "rebuild": one})


def _range() -> Schema:
    pct = obj({"p10": NUM, "p50": NUM, "p90": NUM})
    return obj({"draws": _said(INT, "Monte Carlo draws (scenario uncertainty.draws)."),
                "seed": _said(INT, "The random seed (uncertainty.seed): the same seed, the same figures."),
                "capex_usd": pct, "tco_usd": pct, "usd_per_gpu_hour": pct},
               description="P10 / P50 / P90 of capex, TCO and cost per GPU-hour over prices drawn by their "
                           "price_source (AACE 18R-97 ranges), exchange rates and utilisation "
                           "(bom/costing/uncertainty.py).")


def build_schema() -> Schema:
    endpoint = obj({"id": null(STR), "count": INT})
    totals = {k: NUM for k in ("capex_usd", "hardware_usd", "network_capex_usd", "installation_usd", "spares_usd",
                               "storage_usd",
                               "it_power_kw", "network_power_kw", "facility_power_kw", "opex_per_year_usd",
                               "energy_per_year_usd", "tco_usd", "usd_per_gpu_hour", "it_power_max_kw",
                               "facility_power_max_kw", "budget_low_usd", "budget_high_usd", "placeholder_usd",
                               "cooling_power_kw")}
    totals |= {"network_capex_share": SHARE, "network_power_share": SHARE, "links": INT, "dark_fibre_km": NUM}
    finance = {k: NUM for k in ("capex_gpu_usd", "capex_network_usd", "capex_facility_usd", "support_per_year",
                                "space_per_year", "dark_fibre_per_year", "depreciation_per_year",
                                "capital_charge_per_year", "annual_cost_usd", "npv_usd", "usd_per_pflop_hour",
                                "pflops_per_gpu", "staff_per_year", "licences_per_year", "insurance_tax_per_year",
                                "gpu_hours_per_year", "marginal_usd_per_gpu_hour", "lease_per_year",
                                "building_capex_usd", "grid_connection_usd", "build_per_year")}
    finance["service_share"] = SHARE
    finance["facility"] = _said({"enum": ["lease", "build"]}, "tco.facility: which of lease_per_year (space) and "
                                "building_capex_usd + grid_connection_usd (capex, build_per_year) the totals take.")
    assert set(finance) - {"pflops_per_gpu", "facility"} <= set(TCO_FIELDS)
    site_power = obj({"site": INT, "it_power_max_kw": NUM, "facility_power_max_kw": NUM, "limit_kw": null(NUM),
                      "fits": null({"type": "boolean"})})
    power = obj({"decided_by": {"enum": ["power", "count", "one site"]}, "rounds": INT, "pue": NUM,
                 "facility_power_max_kw": NUM, "sites": array(site_power)},
                description="Each site's IT power at maximum (its nodes' share of the IT gear, an even share of the "
                            "DCI gear) and facility power (IT x PUE + its CDUs), against the building's power "
                            "(sites.power); decided_by: power when sites.power set the number of sites "
                            "(bom/costing/sitepower.py).")
    site_cooling = obj({"site": INT, "liquid_heat_kw": NUM, "air_heat_kw": NUM, "cdus": INT, "cdu_power_kw": NUM,
                        "facility_water_l_per_min": NUM})
    cooling = obj({"cdu": STR, "cdu_capacity_kw": NUM, "cdu_capacity_source": STR, "cdu_power_kw": NUM,
                   "redundancy": STR, "cdus": INT, "cdu_power_total_kw": NUM, "liquid_share": NUM,
                   "liquid_share_source": STR, "loop_dt_k": NUM, "loop_dt_source": STR, "sites": array(site_cooling)},
                  description="The coolant distribution units of a liquid-cooled platform, N+1 per site; the facility "
                              "water flow = heat / (rho c_p dT); the heat left to air (bom/costing/cooling.py).")
    props: dict[str, Schema] = {
        "name": STR, "platform": STR, "gpus": INT, "nodes": INT, "domains": INT, "racks": INT, "sites": INT,
        "site_sizes": array(obj({"site": INT, "nodes": INT, "gpus": INT})),
        "requested_gpus": INT,
        "rounding": obj({"requested": INT, "built": INT, "extra": INT, "why": STR}),
        "rack_counts": mapping(INT, "Racks by kind: compute, network, management, storage."),
        "endpoints": null(obj({Layer.UFM: endpoint, "management_servers": endpoint,
                               Layer.STORAGE: obj({"id": null(STR), "count": INT, "ports": INT, "why": STR,
                                              "basis": _said({"enum": ["scenario", "job", "ra", "none"]},
                                                             "What sized the storage: the scenario's count, "
                                                             "capacity or throughput; the training job's "
                                                             "checkpoints and dataset; the platform RA's read "
                                                             "guideline; none built.")})})),
        "sizing": null(_sizing()),
        "parallelism": null(parallelism_schema()),
        "fabrics": mapping({"$ref": "#/$defs/fabric"}, "Each fabric by name (compute, storage, inband, oob, dci)."),
        "tiers": obj({Tier.SCALE_UP: {"$ref": "#/$defs/scale-up"}, Tier.SCALE_OUT: {"$ref": "#/$defs/scale-out"},
                      Tier.SCALE_ACROSS: {"$ref": "#/$defs/scale-across"}}),
        "lines": array(_line()),
        "totals": obj(totals, description="The cost and power totals (TCO). it_power_kw and facility_power_kw "
                      "are the typical draw (the energy cost's basis); it_power_max_kw and facility_power_max_kw "
                      "the maximum (facility sizing: power and cooling capacity, and space per kW). budget_low_usd and "
                      "budget_high_usd: the hardware with every line at the ends of its catalog row's published "
                      "price range (its price where none is published); placeholder_usd: the part of the hardware "
                      "priced by estimates with no published range."),
        "power_basis": obj({"totals": mapping(STR, "Each power total and the figure it takes: typical "
                                                   "(the energy cost) or maximum (facility sizing)."),
                            "lines": mapping(STR, "What the typical and maximum figures are for each kind "
                                                  "of BOM line.")}),
        "finance": obj(finance),
        "power": null(power),
        "cooling": null(cooling),
        "job": null(_job()),
        "range": null(_range()),
        "sensitivity": array(obj({"input": STR, "label": STR, "low_usd_per_gpu_hour": NUM,
                                  "high_usd_per_gpu_hour": NUM})),
        "order": array(_order()),
        "quotes": array(_quote()),
        "exchange_rates": mapping(NUM),
        "warnings": array(STR),
        "priced_on": DATE,
        "order_date": DATE,
        "in_service": array(_in_service()),
        "inputs": mapping(obj({"value": {"type": ["number", "string"]}, "unit": STR, "source": STR}),
                          "The TCO inputs with their units and sources."),
        "checks": null(checks_schema()),
        "phases": array(_phase()),
        "growth": _growth(),
    }
    for key, text in _BUILD_KEYS.items():
        props[key] = {"description": text, **props[key]}
    return obj(props, tuple(k for k in props if k not in ("phases", "growth")),
               description="A build: `bom build --json`, the written <name>.json.")


_BUILD_KEYS = {
    "name": "The scenario's name.", "platform": "The platform id (catalog).", "gpus": "GPUs built.",
    "nodes": "GPU nodes built.", "domains": "Scale-up domains.", "racks": "Every rack the placement builds.",
    "sites": "Sites (2 or more: a DCI between them).", "site_sizes": "Nodes and GPUs of each site.",
    "requested_gpus": "GPUs asked for (before rounding to whole systems).",
    "rounding": "GPUs asked for, built, and why they differ.", "endpoints": "UFM, management and storage servers.",
    "tiers": "The three tiers' totals (Totals: ScaleUpTotals, ScaleOutTotals, ScaleAcrossTotals).",
    "lines": "The bill of materials, one line per part and place.", "finance": "The TCO's finance figures.",
    "power_basis": "Which power figure each total uses: the typical draw for the energy cost, the maximum for "
                   "facility sizing, and what the two are for each kind of line (bom/costing/tco.py).",
    "sensitivity": "Cost per GPU-hour with each input moved by -20 % and +20 %.",
    "range": "The P10 / P50 / P90 range of capex, TCO and cost per GPU-hour (seeded Monte Carlo).",
    "job": "What the scenario's training job costs on the cluster built for it (bom/costing/job.py); null for "
           "a serving job or a cluster sized by gpus or nodes.",
    "order": "The order: one line per part number, spares included.", "quotes": "Quotes applied to prices.",
    "exchange_rates": "USD per unit of each quoted currency.", "warnings": "What the build warns about.",
    "priced_on": "The day quotes are checked against.",
    "order_date": "The day the order is placed (order_date, else the day the BOM is priced for).",
    "in_service": "Each site's earliest in-service date from the order date, its parts' lead times and its "
                  "racks' installation (bom/costing/schedule.py).",
    "checks": "The design rules' checks: every rule run, its violations with a count, the first ones shown.",
    "phases": "With the scenario's phases: each phase's order, capex, GPUs and re-cabling, each fabric by its "
              "growth (bom/costing/phases.py).",
    "growth": "With the scenario's phases: the scenario's growth and both policies side by side.",
}


# --- the comparison ------------------------------------------------------------------------

def compare_schema() -> Schema:
    metrics = obj({k: NUM for k in SCOPES}, tuple(k for k in SCOPES if k not in JOB_METRICS),
                  description="The compared figures (see scopes); the job's (job_*) when each generation is sized "
                              "from the scenario's training job.")
    opt = {"type": "object", "propertyNames": {"enum": list(SCOPES)}, "additionalProperties": null(NUM)}
    gen = obj({"platform": STR, "label": STR, "switch": STR, "generation": STR, "year": INT, "system": STR,
               "note": null(STR), "kind_note": null(STR),
               "left_out": {**array(STR), "description": "Fabrics the scenario names that this platform could "
                            "not build (the note says why)."},
               "not_comparable": {**array({"enum": list(SCOPES)}), "description": "Metrics that leave out a "
                                  "fabric another column built: not comparable with that column."},
               "metrics": metrics,
               "delta": null({**opt, "description": "Change from the previous generation."}),
               "change": null({**opt, "description": "Relative change (shares: the difference)."})})
    return obj({"name": STR,
                "scopes": {"type": "object", "propertyNames": {"enum": list(SCOPES)}, "additionalProperties": STR},
                "generations": array(gen), "skipped": mapping(STR, "Entries that cannot build the job, and why.")},
               description="A comparison: `bom compare --json`, the written <name>-compare.json.")


def output_schema() -> Schema:
    """Both documents: a build or a comparison (``$defs/build``, ``$defs/compare``)."""
    return {"$schema": DRAFT, "title": "clusterbom output",
            "anyOf": [{"$ref": "#/$defs/build"}, {"$ref": "#/$defs/compare"}],
            "$defs": {"build": build_schema(), "compare": compare_schema(), "fabric": fabric_schema(),
                      Tier.SCALE_UP: scale_up_schema(), Tier.SCALE_OUT: scale_out_schema(),
                      Tier.SCALE_ACROSS: scale_across_schema()}}


def schema_text() -> str:
    return json.dumps(output_schema(), indent=2, ensure_ascii=False) + "\n"


# --- the reference -------------------------------------------------------------------------

def _kind(s: Schema) -> str:
    if "$ref" in s:
        name = s["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{name})"
    if "anyOf" in s:
        return " or ".join(_kind(x) for x in s["anyOf"])
    if "enum" in s:
        return "one of " + ", ".join(f"`{v}`" for v in s["enum"])
    t = s.get("type")
    if t == "array":
        return f"list of {_kind(s.get('items', {}))}"
    if t == "object" and "properties" not in s:
        values = s.get("additionalProperties")
        return f"mapping to {_kind(values)}" if isinstance(values, dict) else "mapping"
    if t == "object":
        return "object"
    if isinstance(t, list):
        return " or ".join(t)
    return {"integer": "integer", "number": "number", "string": "text", "null": "null"}.get(str(t), str(t))


def _rows(s: Schema, prefix: str = "") -> list[str]:
    out = []
    required = set(s.get("required", []))
    for key, p in s.get("properties", {}).items():
        desc = " ".join(p.get("description", "").split())
        out.append(f"| `{prefix}{key}` | {_kind(p)} | {'yes' if key in required else 'no'} | {desc} |")
        if p.get("type") == "object" and "properties" in p:
            out += _rows(p, f"{prefix}{key}.")
        elif p.get("type") == "array" and "properties" in p.get("items", {}):
            out += _rows(p["items"], f"{prefix}{key}[].")
        elif "anyOf" in p:
            inner = [x for x in p["anyOf"] if x.get("type") == "object" and "properties" in x]
            if inner:
                out += _rows(inner[0], f"{prefix}{key}.")
    return out


def output_reference() -> str:
    """docs/output.md: every key of the build and comparison JSON."""
    s = output_schema()
    parts = ["# Output JSON", "",
             "<!-- Generated by `python -m bom.outputs.schema > docs/output.md`; do not edit. -->", "",
             "`bom build --json` prints (and `bom build` writes as `<name>.json`) a build; `bom compare --json` "
             "prints (and `bom compare` writes as `<name>-compare.json`) a comparison. `bom schema --output` "
             "prints the JSON Schema (draft 2020-12) of both; this page is generated from it. Objects are "
             "closed: a key not listed here is not written.", ""]
    for name, d in s["$defs"].items():
        parts += [f"## {name}", "", " ".join(d.get("description", "").split()), "",
                  "| key | type | always | description |", "|---|---|---|---|", *_rows(d), ""]
    return "\n".join(parts)


if __name__ == "__main__":  # python -m bom.outputs.schema > docs/output.md
    import sys

    sys.stdout.write(output_reference())
