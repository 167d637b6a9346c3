"""The Llama 3 configuration's expected unexpected interruptions over 54 days, against the paper's count.

Source: The Llama 3 Herd of Models (Meta, 2024; arXiv:2407.21783), section 3.3.4, Table 5 "Root-cause
categorization of unexpected interruptions during a 54-day period of Llama 3 405B pre-training": 466 job
interruptions on 16,384 H100 80 GB, 47 planned and 419 unexpected, by category (count, share): Faulty GPU
148 (30.1 %), GPU HBM3 Memory 72 (17.2 %), Software Bug 54 (12.9 %), Network Switch/Cable 35 (8.4 %), Host
Maintenance 32 (7.6 %), GPU SRAM Memory 19 (4.5 %), GPU System Processor 17 (4.1 %), NIC 7 (1.7 %), NCCL
Watchdog Timeouts 7 (1.7 %), Silent Data Corruption 6 (1.4 %), GPU Thermal Interface + Sensor 6 (1.4 %), SSD
3, Power Supply 3, Server Chassis 2, IO Expansion Board 2, Dependency 2, CPU 2, System Memory 2 (0.7 and
0.5 %). The table read from a mirror citing the paper (glennklockwood.com/garden/component-reliability,
read 6 December 2026); its four largest counts and shares also in DatacenterDynamics' report (2024-07).

The rates (catalogs/reliability/failure-rates.yaml) are each count over the units of its part in the
paper's cluster and 54 days: per GPU (16,384; the software rows too, an assumption), per server (2,048
Grand Teton servers of 8 GPUs), per 400G NIC (16,384, one a GPU) and per scale-out link (49,152: the
paper's three-layer Clos taken as one link a GPU a layer, an assumption). The tool counts the same units
on its own build of the configuration: 16,384 GPUs, 2,048 DGX H100 nodes, 16,384 node-leaf links and
3 x 16,384 compute links (node-leaf, leaf-spine, spine-core), and every one of these parts stops the job
when it fails (its failure domain cuts a GPU or takes a fabric link). So its expectation per category is
the paper's count when its part counts are the paper's; the check is that each category is within the
paper's count by its Poisson spread (2 sqrt(count), about 95 %), and the total within 419's.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from bom import pipeline
from bom.faults import failure_rates, fault_domains
from bom.faults.interruptions import interruptions
from bom.inputs.scenario import load_scenario

CASE = Path(__file__).with_name("llama3_16k_h100.yaml")
DAYS = 54
#: Table 5, as read (see the module's docstring).
TABLE_5 = {"Faulty GPU": 148, "GPU HBM3 Memory": 72, "Software Bug": 54, "Network Switch/Cable": 35,
           "Host Maintenance": 32, "GPU SRAM Memory": 19, "GPU System Processor": 17, "NIC": 7,
           "NCCL Watchdog Timeouts": 7, "Silent Data Corruption": 6, "GPU Thermal Interface + Sensor": 6, "SSD": 3,
           "Power Supply": 3, "Server Chassis": 2, "IO Expansion Board": 2, "Dependency": 2, "CPU": 2,
           "System Memory": 2}


@pytest.mark.slow   # a 16,384-GPU build: about 3 s
def test_llama3_16k_expected_interruptions_within_the_papers_count(catalog) -> None:   # type: ignore[no-untyped-def]
    sc, src = load_scenario(CASE)
    model = pipeline.build_scenario(sc, src, catalog)
    assert (model.cluster.gpus, model.cluster.nodes) == (16384, 2048)
    rows = interruptions(model, failure_rates(), fault_domains(model))
    expected = {r.rate.category: r.per_day * DAYS for r in rows if r.rate.category in TABLE_5}
    assert set(expected) == set(TABLE_5) and sum(TABLE_5.values()) == 419
    for category, count in TABLE_5.items():
        assert abs(expected[category] - count) <= 2 * math.sqrt(count), category
    assert abs(sum(expected.values()) - 419) <= 2 * math.sqrt(419)
    # The parts the rates are counted per, on the tool's own build.
    units = {r.rate.part: r.units for r in rows}
    assert units["gpu"] == 16384 and units["node"] == 2048 and units["nic"] == 16384 and units["link"] == 49152
    # Rows without a published rate (feeds, PDUs, CDUs, DCI routes) add nothing, and say why.
    assert all(r.per_day == 0 and "no published" in r.rate.source for r in rows if r.rate.per_unit_day is None)
