"""Writing the outputs: every file rendered in memory first, then each moved into place.

A failure while rendering writes nothing; each file is written to a temporary name in the
same folder and renamed over the old one, so a reader never sees half a file and a failed
build keeps the previous outputs.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from bom.errors import BomError
from bom.report import Report


def _check_dir(out: Path) -> None:
    probe = out
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir() or not os.access(probe, os.W_OK | os.X_OK):
        raise BomError(f"cannot write to {probe}", key="--output",
                       hint="Choose a folder you can write to with -o DIR.")


def render(report: Report, progress: Callable[[str], None] = lambda _: None) -> dict[str, bytes]:
    from bom.writers import writers

    out = {}
    for suffix, write in writers().items():
        progress(f"writing {suffix[1:]}")
        out[report.name + suffix] = write(report)
    return out


def render_comparison(result: object) -> dict[str, bytes]:
    """The comparison workbook, report and JSON, named after the scenario."""
    from bom.compare import Comparison
    from bom.writers.compare_text import write_compare_html, write_compare_json
    from bom.writers.compare_xlsx import write_compare_xlsx

    assert isinstance(result, Comparison)
    return {f"{result.name}-compare.xlsx": write_compare_xlsx(result),
            f"{result.name}-compare.html": write_compare_html(result),
            f"{result.name}-compare.json": write_compare_json(result)}


def write_all(files: dict[str, bytes], out: Path) -> list[Path]:
    """Write ``files`` into ``out`` atomically (all rendered already); returns the paths."""
    _check_dir(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BomError(f"cannot create {out}: {exc.strerror}", key="--output") from None
    paths = []
    for name, data in files.items():
        target = out / name
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=out)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.chmod(tmp, 0o644)
            os.replace(tmp, target)
        except OSError as exc:
            Path(tmp).unlink(missing_ok=True)
            raise BomError(f"cannot write {target}: {exc.strerror}", key="--output") from None
        paths.append(target)
    return paths
