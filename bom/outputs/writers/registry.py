"""The writer registry: one writer per output format of a build's set, suffix -> function(report) -> bytes."""

from __future__ import annotations

from collections.abc import Callable

from bom.costing.report import Report
from bom.outputs.writers.documents import write_cart, write_csv, write_html, write_json, write_markdown
from bom.outputs.writers.xlsx import write_xlsx


def writers() -> dict[str, Callable[[Report], bytes]]:
    return {".xlsx": write_xlsx, ".html": write_html, ".md": write_markdown, ".json": write_json,
            ".csv": write_csv, "-cart.csv": write_cart}
