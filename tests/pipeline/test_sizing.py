"""bom size with the command line's overrides: the figures it says it sized at are the ones it used."""

from __future__ import annotations

import json
import math

import pytest

from bom.pipeline.sizing import SizeOverrides, accelerator


@pytest.mark.parametrize("platform", [None, "gb300-nvl72"])
def test_memory_per_gpu_is_printed_and_written_as_sized(bom, platform):
    """--memory-per-gpu "80 GB" sizes at 80 GB: the heading and the JSON say 80 GB, never the 288 GB
    of the accelerator before the override (a 70B FP8 server needs 413.6 GB: 7 GPUs at 85 % of 80 GB,
    2 at 85 % of 288 GB)."""
    args = ("--platform", platform) if platform else ()
    r = bom("size", "--memory-per-gpu", "80 GB", *args)
    assert r.exit_code == 0, r.output
    heading = r.stdout.splitlines()[0]
    assert "80 GB" in heading and "288 GB" not in heading
    out = json.loads(bom("size", "--memory-per-gpu", "80 GB", "--json", *args).stdout)
    assert all("80 GB" in j["accelerator"] and "288" not in j["accelerator"] for j in out)
    serve70 = next(j for j in out if j["job"].startswith("serve 70B"))
    assert serve70["gpus_by_memory"] == math.ceil(serve70["memory_gb"] / (80 * 0.85)) == 7


def test_the_name_follows_every_override(catalog):
    seed = accelerator(catalog, None, SizeOverrides(memory_per_gpu_gb=80, flops_per_gpu=1e15))
    assert seed.name == "the reference accelerator (80 GB, 1 PFLOP/s)" and seed.memory_gb == 80
    assert accelerator(catalog, None, SizeOverrides()).name == "the reference accelerator (288 GB, 2.25 PFLOP/s)"
    plat = accelerator(catalog, "gb300-nvl72", SizeOverrides(memory_per_gpu_gb=80))
    assert plat.name == "gb300-nvl72 at 80 GB a GPU" and plat.memory_gb == 80
    assert accelerator(catalog, "gb300-nvl72", SizeOverrides()).name == "gb300-nvl72"
