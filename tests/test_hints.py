"""Every refusal's hint, applied as written, builds (issue 42, item 3).

Every place the tool makes an error with a hint (tests/hints.py finds them in the source: a *site*)
is either in :data:`CASES`, a scenario that the tool refuses there, or said why not: a module whose
errors are not about a scenario (:data:`NOT_SCENARIO`: the catalog's files, the price files, NetBox,
the command line's options, ...), or a site of its own (:data:`EXCLUDED`), or work left
(:data:`PENDING`, which only shrinks). A new site with a hint fails
:func:`test_every_site_is_in_the_corpus_or_said_why` until it is one or the other.

For each case the build is refused, the error comes from that site (or names it among its problems),
the error carries its hint as data (``BomError.fix``: key path -> value), the fix's keys and values are
the hint's own words, and the scenario with the fix applied builds as ``bom build`` builds it (the
design rules' closed form included).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from bom import pipeline
from bom.errors import BomError
from bom.inputs.scenario import parse_scenario
from bom.inputs.yamlio import load_text
from tests.hints import BOM, apply_fix, recording, sites

#: Every site with a hint in the package.
SITES = sites(sorted(BOM.rglob("*.py")))
BY_ID = {s.id: s for s in SITES}

#: Modules whose errors are not a scenario's: what their hints change is not a scenario key.
NOT_SCENARIO = {
    "bom/catalog/checks.py": "a catalog row or overlay (bom catalog validate)",
    "bom/catalog/load.py": "a catalog directory or its rows",
    "bom/catalog/prices.py": "a price file (--prices, prices:)",
    "bom/cli/": "a command-line option (tests/test_cli_options.py checks every option a message names)",
    "bom/inputs/yamlio.py": "the file's YAML itself (its syntax, its encoding): no key to set",
    "bom/netbox/": "a NetBox server, its token and its answers",
    "bom/outputs/publish.py": "the output folder (-o)",
    "bom/outputs/writers/topology.py": "bom topology's options (--fabric, --site, --max-links)",
    "bom/outputs/writers/ibsim.py": "bom topology --format ibsim's --fabric and the plan's InfiniBand ports",
    "bom/pipeline/ibsim.py": "bom topology's --format and --fabric",
    "bom/verify/": "bom verify's sources (LLDP, ibnetdiscover)",
    "bom/starter.py": "bom init's options (--platform, --gpus, --workload)",
    "bom/pipeline/compare.py": "bom compare's --platforms",
    "bom/pipeline/diff.py": "bom diff's arguments (a build's JSON, REV:PATH)",
    "bom/pipeline/moves.py": "bom cables --moves' --phase",
    "bom/pipeline/exports.py": "bom export's KIND (another kind, for what the design has)",
    "bom/costing/compare.py": "bom compare's --gpus",
    "bom/inputs/sweep.py": "a sweep file's axes (bom sweep), not a scenario's keys",
    "bom/sweep/": "a sweep file's axes and its results file (bom sweep); a point's own errors are the scenario's",
}

#: Sites of a scenario's errors that no case here reaches or whose hint is not one change of the scenario.
EXCLUDED = {
    "bom/topology/serving.py:split_serving:Add memory_bandwidth to the platform row (an overlay), or drop the "
    "target.": "unreachable with the built-in catalog: every platform row gives memory_bandwidth; an overlay's row "
        "without it reaches it (tests/topology/test_serving_sizing.py: "
        "test_target_needs_serving_the_shape_and_the_bandwidth)",
    "bom/topology/preflight.py:_compute:Use topology: rail-optimized or tor for an odd number of ports.":
        "unreachable with the built-in catalog: no platform row has an odd number of scale-out ports",
    "bom/inputs/scenario.py:_power:Leave split out (or give count).":
        "unreachable: a split gives the count (Sites._count_from_split), so split and power never come without it",
    "bom/topology/preflight.py:_endpoints:Give storage.count: 8 (appliances).":
        "every storage row of the built-in catalog gives capacity and throughput; only a row of another role (a UFM "
        "appliance) reaches it, and the placement then stands none of them (not a storage device): a case needs a "
        "catalog overlay with a storage row without them",
    "bom/topology/parallelism.py:check:Give workload.experts, or ep: 1.":
        "the scenario's validator refuses ep without experts first (Workload: parallelism.ep needs experts)",
    "bom/topology/serving.py:check:Give workload.experts, or ep: 1.":
        "the scenario's validator refuses ep without experts first (Workload: parallelism.ep needs experts)",
    "bom/topology/serving.py:check:Drop cp (or give cp: 1).":
        "the scenario's validator refuses cp on a serving job first (Workload: parallelism.cp splits a training "
        "sequence)",
    "bom/topology/geometry.py:floor_plan:Set layout.racks_per_row and layout.nodes_per_rack >= 1.":
        "the scenario's validators refuse either below 1 first (Field ge=1)",
    'bom/pipeline/sizing.py:size_scenario:Add a workload: {kind: pretrain, params: 70e9, tokens: 15e12, deadline: '
    '"60 d"}.': "bom size's: bom build sizes only a scenario with a workload",
    "bom/pipeline/sizing.py:size_scenario:Give the scenario platform: ID (`bom size --platform ID` in its place).":
        "bom size's: bom build refuses a scenario with no platform first (the preflight's)",
    "bom/inputs/validation.py:cage_option:For example osfp or osfp:2.":
        "a command-line option's (bom lookup --form-factor, --far-form-factor), not a scenario key",
    "bom/pipeline/checks.py:refusal:Run `bom check` on the scenario for every violation and what to change, or "
    "build with --allow-violations for a draft that lists them.":
        "a design that breaks design rules: its fixes are the rules' own, which bom check lists; this hint names "
        "the command and the option (tests/test_cli_options.py checks them), not a key",
    "bom/topology/dci.py:border:Name an Ethernet switch with {}G ports as the DCI border leaf in a catalog overlay's "
    "defaults.yaml (fabric: dci, layer: leaf).":
        "a catalog overlay's: the built-in DCI border leaf (SN5600) takes 400G, the only coherent rate of the "
        "built-in catalog (a wavelength_rate the catalog lacks is refused first, bom/catalog/media.py coherent)",
    "bom/topology/dci.py:line_patch:Add an OS2 LC duplex patch-cord row to the fibre catalog.":
        "a catalog overlay's: the built-in fibre catalog sells the OS2 LC duplex patch cords",
    'bom/topology/endpoints.py:_job_storage:Add count: 8, or capacity: "2 PB" and/or throughput: "400 GB/s".':
        "the scenario's validator refuses a storage block with no size and no training job first "
        "(Scenario._storage_sized: the same condition as job_capacity's None); a site built alone meets it, and "
        "its caller keeps no model of that site",
    'bom/topology/endpoints.py:_storage_count:Add count: 8.':
        "a storage block with no count, capacity or throughput is sized by _job_storage, which gives it the job's "
        "capacity first (or the validator refuses it), so no block reaches here without a size",
}

#: Sites with a hint and no case yet: a scenario that reaches each and a fix its hint says are work left
#: (issue 42, item 3). The set only shrinks: a site added since is not let in here.
PENDING = frozenset({
    'bom/catalog/media.py:_lookup:Rates the catalog has: {} Gbit/s.',
    'bom/catalog/media.py:_nothing_fits:Add the part to a catalog overlay (catalogs/SCHEMA.md), or use '
    'switches a catalog part joins.',
    'bom/catalog/media.py:_nothing_fits:Use fewer patch panels or a shorter route.',
    'bom/catalog/media.py:_too_far:Split the route with a regeneration site or shorten it.',
    'bom/inputs/scenario.py:_phases_grow:Give every phase {}: N.',
    'bom/inputs/scenario.py:_not_larger:List the phases smallest first, each adding to the one before.',
    'bom/links/dci.py:check_client_room:Lower dci_bandwidth, or leave ports free on the top layer for '
    'the routers: a leaf oversubscription above 1:1 (for example 1.25) or a larger spine; or put them on '
    'border leaves of an Ethernet in-band fabric (sites.attach: inband).',
    "bom/links/ports.py:_full:Restrict the fabric's media to one kind (for example media: [smf-parallel]).",
    'bom/pipeline/build.py:_sites_from_power:Give sites.count.',
    'bom/pipeline/phases.py:phase_models:Make each phase at least one system larger than the one before.',
    'bom/placement/racks.py:check_fits:Raise {}, or pick a smaller device.',
    'bom/topology/dci.py:site_dci:Give the workload its shape, or dci_bandwidth: "25.6 Tbit/s".',
    'bom/topology/fabrics.py:_check_system_size:Split the cluster over sites (each site builds its own '
    'fabric), or use an Ethernet or InfiniBand fabric for a cluster this large.',
    'bom/topology/parallelism.py:propose:Check params, layers, hidden and sequence, or give workload.parallelism.',
    "bom/topology/planes.py:switch_ports:Pick a switch whose ports or breakouts run at the NIC's rate.",
    'bom/topology/planes.py:size_plane:Set layers: 3 (or auto), or use a larger switch.#2',
    "bom/topology/planes.py:check_uplink_rate:Use uplink_rate: downlink (links at the nodes' rate), or "
    "another oversubscription or switch.",
    'bom/topology/planes.py:_three_layers:Use a larger switch, more planes, or split the job over sites.',
    'bom/topology/serving.py:propose:Lower the target, use a smaller dtype (fp8), or a platform with '
    'more memory bandwidth or a larger scale-up domain.',
    'bom/topology/serving.py:propose:Check params, dtype and context.',
})


#: A small build of each kind the cases start from.
GB300 = "name: h\nplatform: gb300-nvl72\ngpus: 144\n"
H100 = "name: h\nplatform: dgx-h100\nnodes: 8\n"


#: A training job and a serving job with their shape (tests/topology/test_parallelism.py, test_serving.py).
TRAIN = """name: p70
platform: dgx-b200
workload:
  kind: pretrain
  params: 70B
  tokens: 15T
  deadline: "60 d"
  layers: 80
  hidden: 8192
  heads: 64
  kv_heads: 8
  head_dim: 128
  sequence: 8192
  batch_tokens: 16M
"""
SERVE = """name: s70
platform: dgx-h100
workload:
  kind: serve
  params: 70B
  layers: 80
  hidden: 8192
  heads: 64
  kv_heads: 8
  head_dim: 128
  users: 64
  context: 32768
"""


#: Llama 3 405B's shape (arXiv:2407.21783 Table 3) on DGX H100 at TP 8 and one stage: 318 GB a GPU.
L405 = TRAIN.replace("dgx-b200", "dgx-h100").replace("70B", "405B").replace("layers: 80", "layers: 126") \
    .replace("hidden: 8192", "hidden: 16384").replace("heads: 64", "heads: 128")


def dgx_h100(nodes: int) -> str:
    return f"name: h\nplatform: dgx-h100\nnodes: {nodes}\n"


#: Site id -> a scenario the tool refuses there.
CASES: dict[str, str] = {
    # --- the scenario's validators (bom/inputs/scenario.py) ---------------------------------------
    "bom/inputs/scenario.py:_power:Leave count out (the buildings' power gives it), or give one power per site.":
        GB300 + 'sites: {count: 3, power: ["10 MW", "10 MW"], distance: "4 km", dci_bandwidth: "1.6 Tbit/s"}\n',
    'bom/inputs/scenario.py:check_joined:Add distance: "40 km".':
        GB300 + 'sites: {count: 2, dci_bandwidth: "1.6 Tbit/s"}\n',
    'bom/inputs/scenario.py:check_joined:Add dci_bandwidth: "25.6 Tbit/s" (or dci_fraction: 0.125).':
        GB300 + 'sites: {count: 2, distance: "4 km"}\n',
    "bom/inputs/scenario.py:check_joined:Drop dci_fraction (or dci_bandwidth).":
        GB300 + 'sites: {count: 2, distance: "4 km", dci_bandwidth: "1.6 Tbit/s", dci_fraction: 0.1}\n',
    "bom/inputs/scenario.py:check_joined:Add dci_overlap: 0.5.":
        "name: h\nplatform: gb300-nvl72\nworkload: {kind: pretrain, params: 70e9, tokens: 15e12, deadline: \"60 d\", "
        "layers: 80, hidden: 8192, heads: 64, sequence: 8192, batch_tokens: 16e6}\n"
        'sites: {count: 2, distance: "4 km", dci_bandwidth: auto}\n',
    'bom/inputs/scenario.py:_fabric_keys:Drop it here; fabrics.oob.uplinks: spine gives OOB its own spine layer.':
        GB300 + "fabrics: {compute: {uplinks: spine}}\n",
    "bom/inputs/scenario.py:_fabric_keys:Drop it here; the compute fabric's switch pair is topology: pair.":
        GB300 + "fabrics: {compute: {mlag: 2}}\n",
    "bom/inputs/scenario.py:_fabric_keys:Drop it here.": GB300 + "fabrics: {compute: {}, storage: {planes_by: port}}\n",
    "bom/inputs/scenario.py:_fabric_keys:Add planes: 2 (a NIC's two ports on two planes), or drop planes_by.":
        H100 + "fabrics: {compute: {planes_by: port}}\n",
    "bom/inputs/scenario.py:_fabric_keys:Drop it here.#2":
        GB300 + "fabrics: {compute: {}, storage: {rails_per_leaf: 1}}\n",
    'bom/inputs/scenario.py:_fabric_keys:Use topology: tor, and su_nodes for the nodes per leaf group.':
        GB300 + "fabrics: {compute: {}, storage: {topology: rail-optimized}}\n",
    'bom/inputs/scenario.py:_fabric_keys:Drop the key; use uplinks: spine for a separate OOB spine layer.':
        GB300 + "fabrics: {compute: {}, oob: {planes: 2}}\n",
    "bom/inputs/scenario.py:_fabric_shapes:Set layers: 3 (or auto), or drop oversubscription.spine.":
        GB300 + "fabrics: {compute: {layers: 2, oversubscription: {leaf: 1, spine: 3}}}\n",
    'bom/inputs/scenario.py:_storage_sized:Add count: 8, or capacity: "2 PB" and/or throughput: "400 GB/s".':
        GB300 + "storage: {checkpoints: 5}\n",
    'bom/inputs/scenario.py:_cooling_per_site:Give one word for every hall (cooling: {}), or one for each site.':
        GB300 + "layout: {cooling: [liquid, liquid]}\n",
    "bom/inputs/scenario.py:_dci_attach:Use attach: auto (an Ethernet fabric that takes them, else border leaves "
    "of the DCI's own), or add fabrics.{} (an Ethernet switch, such as {switch: sn5600}).":
        H100 + 'fabrics: {compute: {switch: qm9700}}\n'
        'sites: {count: 2, distance: "4 km", dci_bandwidth: "1.6 Tbit/s", attach: inband}\n',
    "bom/inputs/scenario.py:_phases_grow:Give the scenario {}: {} (the last phase's) instead of a workload.":
        "name: h\nplatform: gb300-nvl72\nworkload: {kind: pretrain, params: 70e9, tokens: 1e12, deadline: \"300 d\"}\n"
        "phases: [{name: a, gpus: 144, date: 2027-01-01}, {name: b, gpus: 288, date: 2027-06-01}]\n",
    "bom/inputs/scenario.py:_phases_grow:Give each phase a name of its own (this one {}-{}).":
        "name: h\nplatform: gb300-nvl72\n"
        "phases: [{name: a, gpus: 144, date: 2027-01-01}, {name: a, gpus: 288, date: 2027-06-01}]\n",
    "bom/inputs/scenario.py:_phases_grow:Give at most {}, or more sites under sites:.":
        "name: h\nplatform: gb300-nvl72\n"
        "phases: [{name: a, gpus: 144, sites: 2, date: 2027-01-01}, {name: b, gpus: 288, date: 2027-06-01}]\n",
    "bom/inputs/scenario.py:_phases_grow:Give it sites: {} (a site once in service stays in service).":
        "name: h\nplatform: gb300-nvl72\ngpus: 576\n"
        'sites: {count: 2, distance: "4 km", dci_bandwidth: "1.6 Tbit/s"}\n'
        "phases: [{name: a, gpus: 288, sites: 2, date: 2027-01-01}, {name: b, gpus: 432, sites: 1, "
        "date: 2027-03-01}, {name: c, gpus: 576, date: 2027-06-01}]\n",
    "bom/inputs/scenario.py:_phases_grow:The last phase is the final build: give it {}: {}, or leave the "
    "scenario's {} out.":
        GB300.replace("144", "288") + "phases: [{name: a, gpus: 72, date: 2027-01-01}, "
                                      "{name: b, gpus: 144, date: 2027-06-01}]\n",
    "bom/inputs/scenario.py:_not_larger:Swap the two sizes: phase {} {}: {}, phase {} {}: {} (each phase adds to the "
    "one before, in date order).":
        "name: h\nplatform: gb300-nvl72\nphases: [{name: a, gpus: 288, date: 2027-01-01}, "
        "{name: b, gpus: 144, date: 2027-03-01}, {name: c, gpus: 432, date: 2027-06-01}]\n",
    "bom/inputs/scenario.py:_phases_grow:List the phases in date order (date: {} or later here).":
        GB300.replace("144", "288") + "phases: [{name: a, gpus: 144, date: 2027-06-01}, "
                                      "{name: b, gpus: 288, date: 2027-01-01}]\n",
    "bom/inputs/scenario.py:_phases_grow:Leave the last phase's sites out.":
        "name: h\nplatform: gb300-nvl72\ngpus: 288\n"
        'sites: {count: 2, distance: "4 km", dci_bandwidth: "1.6 Tbit/s"}\n'
        "phases: [{name: a, gpus: 144, sites: 1, date: 2027-01-01}, {name: b, gpus: 288, sites: 1, "
        "date: 2027-06-01}]\n",
    'bom/inputs/scenario.py:_dci_auto_has_a_job:Give dci_bandwidth: "25.6 Tbit/s", or add those workload keys.':
        GB300 + 'sites: {count: 2, distance: "4 km", dci_bandwidth: auto, dci_overlap: 0.5}\n',
    'bom/inputs/scenario.py:_compute_shape:Drop su_nodes, or use topology: rail-optimized for scalable units.':
        H100 + "fabrics: {compute: {topology: pair, su_nodes: 4}}\n",
    'bom/inputs/scenario.py:_compute_shape:Drop su_nodes, or use topology: rail-optimized for scalable units '
    'and spines.':
        H100 + "fabrics: {compute: {topology: rail-only, su_nodes: 4}}\n",
    'bom/inputs/scenario.py:_compute_shape:Drop min_spines, or use topology: rail-optimized (or tor) with '
    'layers: auto or 2.':
        H100 + "fabrics: {compute: {layers: 1, min_spines: 4}}\n",
    'bom/inputs/scenario.py:_compute_shape:Drop layers, or use topology: rail-optimized for leaves and spines.':
        H100 + "fabrics: {compute: {topology: pair, layers: 2}}\n",
    'bom/inputs/scenario.py:_compute_shape:Drop rails_per_leaf, or use topology: rail-optimized or rail-only.':
        H100 + "fabrics: {compute: {topology: tor, rails_per_leaf: 1}}\n",
    'bom/inputs/scenario.py:_compute_shape:Drop layers, or use topology: rail-optimized for leaves and spines.#2':
        H100 + "fabrics: {compute: {topology: rail-only, layers: 3}}\n",
    # --- the build's stages: the fabrics' planner (bom/topology/planes.py), support fabrics, UFM, DCI -------
    "bom/topology/planes.py:size_plane:Use layers: auto (leaves and spines), or on the compute fabric topology: "
    "rail-only for rail leaves with no spine.": dgx_h100(64) + "fabrics: {compute: {topology: tor, layers: 1}}\n",
    "bom/topology/planes.py:size_plane:Use min_spines of at most {}, or more uplinks per leaf (a lower "
    "oversubscription, or uplink_rate: downlink).": dgx_h100(64) + "fabrics: {compute: {min_spines: 64}}\n",
    "bom/topology/planes.py:size_plane:Set layers: 3 (or auto), or use a larger switch.":
        dgx_h100(2048) + "fabrics: {compute: {layers: 2}}\n",
    "bom/topology/planes.py:_rail_only:Use topology: rail-optimized with layers: auto.":
        GB300 + "fabrics: {compute: {topology: rail-only}}\n",
    "bom/topology/planes.py:_rail_only:Use topology: rail-optimized (leaves and spines), a larger switch, or fewer "
    "nodes.": dgx_h100(128) + "fabrics: {compute: {topology: rail-only}}\n",
    # cisco-8201-32fh at 1:4 keeps 6 of its 32 ports down: 6 rails do not divide a DGX's 8, 4 does.
    "bom/topology/planes.py:_group_leaves:Use rails_per_leaf of at most {} that divides the node's {} rails "
    "(rails_per_leaf: {}).":
        dgx_h100(64) + "fabrics: {compute: {rails_per_leaf: 8, switch: cisco-8201-32fh, oversubscription: 0.25}}\n",
    "bom/topology/planes.py:_pair:Use topology: rail-optimized (leaves and spines) for a larger pod.":
        dgx_h100(64) + "fabrics: {compute: {topology: pair}}\n",
    "bom/topology/planes.py:_rail_only:Use rails_per_leaf of at most {}, or a larger switch.":
        dgx_h100(32) + "fabrics: {compute: {topology: rail-only, rails_per_leaf: 4}}\n",
    "bom/topology/support.py:build_pooled:Leave su_nodes out (one leaf group a block), or use a divisor of {}.":
        GB300 + "fabrics: {compute: {}, storage: {su_nodes: 7}}\n",
    "bom/topology/support.py:build_oob:Use a management switch with uplinks, such as switch: sn2201.":
        GB300 + "fabrics: {compute: {}, oob: {switch: dell-z9864f-on}}\n",
    # The far management switches' 100G uplinks run 50.3 m to the in-band leaves (a rack a row); neither their own
    # part nor the nodes' 200G one in their place reaches (tests/topology/test_support.py).
    "bom/links/pooled.py:unjoined:The management switches' uplinks reach the in-band fabric's leaves in the shared "
    "racks; on a site this large set fabrics.oob.uplinks: spine (each site's own OOB spines, on 100G optics).":
        "name: h\nplatform: gb300-nvl72\ngpus: 2304\nlayout: {racks_per_row: 1}\n"
        "fabrics: {compute: {switch: q3400}, storage: {}, inband: {}, oob: {uplinks: inband}}\n",
    # The RA's 32-node SU of DGX H100 fills every leaf downlink and its spines' ports: no port for the UFM asked for.
    "bom/topology/ufm.py:refuse_explicit:Build one node fewer for each UFM slot (the RA removes a DGX for the UFM), or "
    "set management.ufm_count: 0.": dgx_h100(32) + "management: {ufm_count: 2}\n",
    'bom/topology/dci.py:build_dci:Check the unit of dci_bandwidth: a site pair\'s, such as dci_bandwidth: '
    '"25.6 Tbit/s".': GB300 + 'sites: {count: 2, distance: "4 km", dci_bandwidth: "100 Pbit/s"}\n',
    "bom/topology/dci.py:build_dci:Drop sites.amplifier (shelf amplifiers at the in-line sites), or shorten the "
    "route to one span.":
        GB300 + 'sites: {count: 2, distance: "200 km", dci_bandwidth: "1.6 Tbit/s", amplifier: qdd-ols}\n',
    "bom/topology/dci.py:build_dci:Use amplifiers: both, or a route of one span.":
        GB300 + 'sites: {count: 2, distance: "200 km", dci_bandwidth: "1.6 Tbit/s", amplifiers: booster}\n',
    "bom/topology/preflight.py:_wavelength:Use {} Gbit/s wavelengths (wavelength_rate: {} Gbit/s), the router's "
    "client rate; or give a catalog overlay whose dci-router default has {}G ports.":
        GB300 + 'sites: {count: 2, distance: "40 km", dci_bandwidth: "1.6 Tbit/s", wavelength_rate: "800 Gbit/s"}\n',
    "bom/catalog/media.py:coherent:Use 400 Gbit/s wavelengths (400ZR, ZR+).":
        GB300 + 'sites: {count: 2, distance: "40 km", dci_bandwidth: "1.6 Tbit/s", wavelength_rate: "100 Gbit/s"}\n',
    "bom/topology/dci.py:_attach:Use attach: auto (an Ethernet fabric that takes them, else border leaves of the "
    "DCI's own).": H100 + 'fabrics: {compute: {switch: qm9700}}\n'
                          'sites: {count: 2, distance: "4 km", dci_bandwidth: "1.6 Tbit/s", attach: compute}\n',
    # --- the job's split (bom/topology/parallelism.py, serving.py) -----------------------------------------
    "bom/topology/parallelism.py:check:Give a tp that divides heads (tp: {}).":
        TRAIN.replace("heads: 64", "heads: 60") + "  parallelism: {tp: 8}\n",
    "bom/topology/serving.py:check:Give a tp that divides heads (tp: {}).":
        SERVE.replace("heads: 64", "heads: 60") + "  parallelism: {tp: 8}\n",
    "bom/topology/parallelism.py:check:Give tp x ep dividing {} (tp: {}), and more pp or dp.":
        TRAIN + "  parallelism: {tp: 16}\n",
    "bom/topology/parallelism.py:check:Leave dp out (the split fits it to the batch), lower it, or raise "
    "batch_tokens.": TRAIN + "  parallelism: {tp: 8, pp: 1, dp: 4096}\n",
    "bom/topology/parallelism.py:check:Lower dp (or leave it out to fill each site), or give more GPUs.":
        TRAIN + "  parallelism: {tp: 8, pp: 4, dp: 44}\n"
        'sites: {count: 2, distance: "4 km", dci_bandwidth: "1.6 Tbit/s"}\n',
    "bom/topology/parallelism.py:check:Give dp{} of at least {} (dp: {}).":
        TRAIN + "  parallelism: {tp: 8, pp: 4, dp: 1}\n"
        'sites: {count: 2, distance: "4 km", dci_bandwidth: "1.6 Tbit/s"}\n',
    # dp left out: the 17,774 GPUs the deadline needs make DP 2,222 at TP 8 x PP 1, past 16M / 8,192 = 1,953
    # sequences; PP 5 is the first whose DP fits the batch and whose share fits 68 GB.
    "bom/topology/parallelism.py:check:Raise pp (pp: {}), or raise batch_tokens.":
        L405 + "  parallelism: {tp: 8, pp: 1}\n",
    "bom/topology/parallelism.py:check:Raise pp (pp: {}), or tp within the domain, or cp for long sequences.":
        L405 + "  parallelism: {tp: 8, pp: 1, dp: 64}\n",
    "bom/topology/serving.py:check:Raise dp (more replicas: dp: {}), or tp within the domain, or pp.":
        SERVE + "  tokens_per_s_per_user: 30\n  parallelism: {tp: 8, dp: 1}\n",
    "bom/topology/serving.py:check:Raise dp: a replica keeps {} tokens/s a user up to {} sequences (dp: {}).":
        SERVE.replace("dgx-h100", "gb300-nvl72") + "  tokens_per_s_per_user: 150\n  parallelism: {tp: 8, dp: 1}\n",
    "bom/topology/serving.py:check:Give tp x ep dividing {} (tp: {}); pp takes the rest of a replica.":
        SERVE + "  parallelism: {tp: 16}\n",
    "bom/pipeline/sizing.py:size_scenario:Use dtype: bf16 (or a format the GPU runs), or another platform.":
        'name: h\nplatform: dgx-h100\nworkload: {kind: pretrain, params: 70e9, tokens: 15e12, deadline: "60 d", '
        "dtype: fp4}\n",
    # --- a quantity's spelling (bom/units.py), told at its key --------------------------------------
    'bom/units.py:parse_quantity:Write "{}".':
        GB300 + 'sites: {count: 2, distance: "4 km", dci_bandwidth: "1.6 Tb/s"}\n',
    # --- the sites, the cluster, the racks --------------------------------------------------------------
    "bom/pipeline/build.py:_sites_from_power:Give count: {}, or leave count out and the build takes as many "
    "buildings as it needs (sites.power), or fewer GPUs.":
        GB300.replace("144", "1152")
        + 'sites: {count: 2, power: "1 MW", distance: "4 km", dci_bandwidth: "1.6 Tbit/s"}\n',
    # 1,152 GPUs need 3.0 MW of facility power: two listed buildings of 1 MW hold 2; four of them hold it.
    "bom/pipeline/build.py:_sites_from_power:List more buildings (power: {}), or more power per building, or "
    "fewer GPUs.": GB300.replace("144", "1152")
    + 'sites: {power: ["1 MW", "1 MW"], distance: "4 km", dci_bandwidth: "1.6 Tbit/s"}\n',
    "bom/topology/cluster.py:build_cluster:Use fewer sites (count: {}, a system each) or more GPUs.":
        GB300 + 'sites: {count: 3, distance: "4 km", dci_bandwidth: "1.6 Tbit/s"}\n',
    # The height binds (56U in a 48U rack), not the power: the placement's refusal, not the preflight's.
    "bom/placement/racks.py:_overfull:Leave layout.nodes_per_rack out (the rack's budgets give it), lower it, or "
    "raise {}.": H100 + 'racks: {power_budget: "200 kW"}\nlayout: {nodes_per_rack: 7}\n',
    # --- the costing ------------------------------------------------------------------------------------
    "bom/costing/schedule.py:_in_service:Check tco.install_racks_per_day (racks a day, e.g. 4), order_date (leave "
    "it out: the day the BOM is priced for) and the parts' lead times (catalog overlays and price files).":
        GB300 + "tco: {install_racks_per_day: 1e-6}\n",
    "bom/costing/tco.py:_check_money:Give {} in {}, for example {} {}.": GB300 + 'tco: {electricity: "1e40 USD/kWh"}\n',
    "bom/costing/tco.py:inputs:Give a ramp under {} months (ramp_months: {}), or a longer tco.years.":
        GB300 + "tco: {ramp_months: 120, years: 5}\n",
    # --- the rules that need the catalog (bom/topology/preflight.py) ---------------------------------
    "bom/topology/preflight.py:_scenario:Add platform: {} (or one of {}).": "name: h\ngpus: 144\n",
    "bom/topology/preflight.py:_racks:Raise racks.power_budget to at least {}.":
        GB300 + 'racks: {power_budget: "100 kW"}\n',
    "bom/topology/preflight.py:_racks:Leave layout.nodes_per_rack out (the rack's budgets give it), lower it, or "
    "raise {}.": H100 + "layout: {nodes_per_rack: 8}\n",
    "bom/topology/preflight.py:_racks:Drop layout.nodes_per_rack, or set it to {}.":
        "name: h\nplatform: gb200-nvl36x2\ngpus: 144\nlayout: {nodes_per_rack: 4}\n",
    "bom/topology/preflight.py:_compute:Drop planes_by (each port split over the planes), or use planes: a divisor "
    "of {} (planes: {}).": H100 + "fabrics: {compute: {planes: 3, planes_by: port}}\n",
    "bom/topology/preflight.py:_uplink_rate:Use uplink_rate: native or downlink, or a rate at least the nodes'.":
        H100 + 'fabrics: {compute: {switch: sn5600, uplink_rate: "200G"}}\n',
    "bom/topology/preflight.py:_uplink_rate:Use uplink_rate: native, or one of {}.":
        H100 + 'fabrics: {compute: {switch: sn5600, uplink_rate: "1600G"}}\n',
    "bom/topology/preflight.py:_dci:Drop sites.amplifiers (both), or name a single-stage amplifier such as "
    "ncs1001-edfa.": GB300 + 'sites: {count: 2, distance: "60 km", dci_bandwidth: "1.6 Tbit/s", amplifier: qdd-ols, '
                             "amplifiers: booster}\n",
    "bom/topology/preflight.py:_compute:Drop rails_per_leaf.": GB300 + "fabrics: {compute: {rails_per_leaf: 2}}\n",
    "bom/topology/preflight.py:_compute:Use a divisor of {}: rails_per_leaf: 1 is a leaf per rail.":
        H100 + "fabrics: {compute: {rails_per_leaf: 3}}\n",
    "bom/topology/preflight.py:_check_scheduled:Use it as {}.spine (spine: {}), with its interface node as the "
    "switch (switch: {}).": H100 + "fabrics: {compute: {switch: arista-7720r4-128pe}}\n",
    "bom/topology/preflight.py:_check_scheduled:Drop spine (the switch's own), or name as the switch an interface "
    "node whose fabric element it is.": H100 + "fabrics: {compute: {switch: sn5600, spine: arista-7720r4-128pe}}\n",
    "bom/topology/preflight.py:_check_scheduled:Drop switch here (the platform's own for this fabric), or name an "
    "Ethernet leaf.": GB300 + "fabrics: {compute: {}, storage: {switch: arista-7700r4c-38pe}}\n",
    "bom/topology/preflight.py:_check_scheduled:Drop spine (its own, {}) or name a fabric element row.":
        H100 + "fabrics: {compute: {switch: arista-7700r4c-38pe, spine: sn5600}}\n",
    "bom/topology/preflight.py:_check_scheduled:Drop uplink_rate on this fabric.":
        H100 + "fabrics: {compute: {switch: arista-7700r4c-38pe, uplink_rate: downlink}}\n",
    "bom/topology/preflight.py:_scheduled_shape:Use topology: rail-optimized or tor.":
        H100 + "fabrics: {compute: {switch: arista-7700r4c-38pe, topology: pair}}\n",
    "bom/topology/preflight.py:_scheduled_shape:Drop oversubscription on this fabric.":
        H100 + "fabrics: {compute: {switch: arista-7700r4c-38pe, oversubscription: 2}}\n",
    "bom/topology/preflight.py:_scheduled_shape:Use layers: auto, 2 or 3.":
        H100 + "fabrics: {compute: {switch: arista-7700r4c-38pe, layers: 1}}\n",
    # A TPU pod has no storage ports and its RA no storage appliance: both said, both fixes at once.
    "bom/topology/preflight.py:_pooled:Drop fabrics.{}, or add an {} port entry to the platform row (a catalog "
    "overlay).": "name: h\nplatform: tpu-v4-pod\ngpus: 128\nfabrics: {compute: {}, storage: {}}\n",
    "bom/topology/preflight.py:_ra_storage:Drop fabrics.storage, or add a storage block: storage: {appliance: <an "
    "endpoints row>, count: 8} (or capacity and throughput).":
        "name: h\nplatform: tpu-v4-pod\ngpus: 128\nfabrics: {compute: {}, storage: {}}\n",
    "bom/topology/preflight.py:_endpoints:Leave storage.ports out (the appliance's own {}).":
        GB300 + "fabrics: {compute: {}, storage: {}}\nstorage: {count: 2, ports: 0}\n",
    "bom/topology/preflight.py:_dci:Name a dwdm row of kind amplifier, such as ncs1001-edfa or qdd-ols.":
        GB300 + 'sites: {count: 2, distance: "40 km", dci_bandwidth: "1.6 Tbit/s", amplifier: ncs1k-md-64-c}\n',
}


def build(text: str) -> Any:
    """What ``bom build`` does before it writes: the scenario, its catalog, the model and its design rules'
    closed form (a design that breaks an error rule is refused), the report, the phases."""
    src = load_text(text, "case.yaml")
    sc = parse_scenario(src)
    catalog = pipeline.catalog_for(sc, src)
    model, checks = pipeline.build_checked(sc, src, catalog)
    report = pipeline.report_of(model, catalog, checks)
    if sc.phases:
        pipeline.with_phases(report, sc, src, catalog)
    return model


def refused(text: str) -> tuple[BomError | None, list[str]]:
    """The error ``text`` is refused with (None: it builds) and the sites it comes from."""
    with recording(SITES) as rec:
        try:
            build(text)
        except BomError as exc:
            return exc, [s.id for s in rec.site_of(exc)]
    return None, []


def _excluded(site_id: str) -> bool:
    return site_id in EXCLUDED or any(site_id.startswith(m) for m in NOT_SCENARIO)


def test_every_site_is_in_the_corpus_or_said_why() -> None:
    """No site with a hint is left out: each has a case, or its module or itself says why not; and every
    case and exclusion names a site that exists (a changed hint is re-checked under its new words)."""
    loose = [s.id for s in SITES if not s.passthrough and s.id not in CASES and s.id not in PENDING
             and not _excluded(s.id)]
    assert loose == [], "sites with a hint and no case here (add one to CASES, or to EXCLUDED with why):\n" + \
        "\n".join(loose)
    stale = [k for k in [*CASES, *EXCLUDED, *PENDING] if k not in BY_ID]
    assert stale == [], f"cases of sites that are gone (their hint changed?): {stale}"
    assert not set(CASES) & set(EXCLUDED) and not set(CASES) & PENDING and not set(EXCLUDED) & PENDING


def _words(value: Any) -> str:
    return value if isinstance(value, str) else yaml.safe_dump(value, default_flow_style=True).strip() \
        if isinstance(value, (dict, list)) else f"{value:g}" if isinstance(value, float) else str(value)


def check_fix_is_the_hint(exc: BomError) -> None:
    """Each change of the fix is said in the hint: the key's name, and the value it sets (or that the key
    goes)."""
    problems = getattr(exc, "problems", [exc])
    for e in problems:
        assert e.fix, f"no fix: {e}"
        said = f"{e.key or ''} {e.message} {e.hint}"
        for path, value in e.fix.items():
            assert str(path[-1]) in said, (path, said)
            if value is None:
                assert re.search(r"\b(Drop|drop|Leave|leave|instead of)\b", e.hint or ""), (path, e.hint)
            else:
                assert _words(value) in (e.hint or ""), (path, value, e.hint)


@pytest.mark.parametrize("site_id", list(CASES))
def test_the_hint_applied_builds(site_id: str) -> None:
    text = CASES[site_id]
    exc, came_from = refused(text)
    assert exc is not None, "the case builds: it no longer reaches its site"
    assert site_id in came_from, (came_from, str(exc))
    check_fix_is_the_hint(exc)
    assert exc.fix
    fixed = yaml.safe_dump(apply_fix(yaml.safe_load(text), dict(exc.fix)), sort_keys=False)
    again, where = refused(fixed)
    assert again is None, f"the hint applied does not build:\n{fixed}\n{again} (from {where})"
