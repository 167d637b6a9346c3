"""Small sweeps over a small base (a few GB300 NVL72 racks, the compute fabric alone: a build in milliseconds)."""

from __future__ import annotations

from pathlib import Path

import pytest

#: The base: 288 GPUs (4 NVL72 racks) on one site, the compute fabric only.
BASE = """\
  name: small
  platform: gb300-nvl72
  gpus: 288
  fabrics: {compute: {}}
  tco: {years: 5, electricity: "0.08 USD/kWh", pue: 1.25}
"""


def sweep_text(axes: str, rest: str = "", name: str = "small") -> str:
    return f"name: {name}\nbase:\n{BASE}axes:\n{axes}{rest}"


#: The 3 x 3 grid: GPUs x oversubscription, capex against GPUs.
GRID = sweep_text("  gpus: [288, 576, 1152]\n  fabrics.compute.oversubscription: [1, 2, 4]\n",
                  "objectives: [capex_usd, gpus]\n")


@pytest.fixture()
def write(tmp_path: Path):  # type: ignore[no-untyped-def]
    def _write(text: str, name: str = "sweep.yaml") -> Path:
        p = tmp_path / name
        p.write_text(text)
        return p

    return _write
