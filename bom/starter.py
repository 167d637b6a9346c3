"""`bom init`: a commented starter scenario for a catalog platform that builds as it is.

The size is the platform's scalable unit (one pod) unless ``gpus`` is given; a ``workload``
kind takes the first reference example job of that kind (scenarios/seed-jobs.yaml), so the
starter's numbers come from the same published figures as `bom size`.
"""

from __future__ import annotations

from typing import Any

import yaml

from bom.catalog.rows import DEFAULT_PLATFORM, Catalog, NicPorts, Platform
from bom.errors import BomError
from bom.inputs.scenario import parse_scenario
from bom.inputs.validation import suggest
from bom.inputs.workload import KIND_SPELLINGS, parse_count
from bom.inputs.yamlio import load_text
from bom.outputs.terminal import value
from bom.outputs.writers.documents import environment
from bom.pipeline import build_scenario
from bom.resources import data_dir
from bom.roles import FabricRole

KINDS = ("serve", "finetune", "pretrain")


def _job(kind: str) -> dict[str, Any]:
    """The first reference example job of ``kind``, as written in scenarios/seed-jobs.yaml."""
    jobs = yaml.safe_load((data_dir("scenarios") / "seed-jobs.yaml").read_text(encoding="utf-8"))["jobs"]
    return next(j for j in jobs if j["kind"] == kind)


def _platform(catalog: Catalog, platform_id: str | None) -> Platform:
    pid = platform_id or (DEFAULT_PLATFORM if DEFAULT_PLATFORM in catalog.rows["platforms"]
                          else sorted(catalog.rows["platforms"])[0])
    return catalog.platform(pid)


def starter(catalog: Catalog, platform_id: str | None = None, gpus: int | None = None,
            workload: str | None = None) -> str:
    """The starter scenario's YAML text, with a comment on every key."""
    if gpus is not None and workload is not None:
        raise BomError("give --gpus or --workload, not both.", key="--workload")
    kind = KIND_SPELLINGS.get(workload, workload) if workload else None
    if kind is not None and kind not in KINDS:
        raise BomError(suggest(kind, KINDS, "workload kind"), key="--workload")
    p = _platform(catalog, platform_id)
    pod = p.su_nodes * p.gpus_per_node
    job = _job(kind) if kind else None
    if job is not None:
        job = {k: count_text(v) if k in COUNT_KEYS else v for k, v in job.items()}
    description = (f"the job {job['name']!r} on {p.id}" if job else f"{gpus or pod:,} GPUs on {p.id}")
    fabrics, left_out = _fabrics(p), list[tuple[FabricRole, str]]()
    while True:
        text = environment(False).get_template("starter.yaml.j2").render(
            p=p, gpus=gpus or pod, pod=pod, job=job, description=description + ", from bom init",
            platforms=sorted(catalog.rows["platforms"]), fabrics=fabrics, left_out=left_out)
        failed, why = _failing_fabric(text, catalog)
        if failed == FabricRole.COMPUTE:   # the size or the platform itself: no starter that builds
            raise BomError(f"a starter for {description} does not build: {why.message}", key="--gpus" if gpus else
                           "--platform", hint=why.hint or "Choose another size or platform.")
        if failed is None:
            return "\n".join(_align(line) for line in text.splitlines()) + "\n"
        # A fabric the built-in catalog cannot build (no part for its ports) is left commented.
        left_out.append(next(f for f in fabrics if f[0] == failed))
        fabrics = [f for f in fabrics if f[0] != failed]


def _failing_fabric(text: str, catalog: Catalog) -> tuple[str | None, Any]:
    """The fabric whose build fails for this starter and why, or (None, None) when it builds."""
    src = load_text(text, "<bom init>")
    try:
        build_scenario(parse_scenario(src), src, catalog)
    except BomError as exc:
        key = exc.key or ""
        return (key.split(".")[1] if key.startswith("fabrics.") else FabricRole.COMPUTE), exc
    return None, None


#: Keys written as counts with a suffix ("70B"), as docs/scenarios.md shows them.
COUNT_KEYS = ("params", "active_params", "tokens")
COMMENT_COLUMN = 34


def count_text(value: Any) -> Any:
    """70e9 -> "70B", 15e12 -> "15T" (what people type; bom.inputs.workload.parse_count reads it back)."""
    try:
        value = parse_count(value)
    except ValueError:
        return value
    for suffix, scale in (("T", 1e12), ("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if value >= scale and (value / scale) == round(value / scale, 3):
            return f"{value / scale:g}{suffix}"
    return value


def _align(line: str) -> str:
    """Comments after a key start in one column, so the starter reads as a table."""
    code, sep, comment = line.rpartition("  # ")
    if not sep or not code.strip() or len(code) > COMMENT_COLUMN - 2:
        return line
    return f"{code.ljust(COMMENT_COLUMN - 2)}  # {comment}"


def _fabrics(p: Platform) -> list[tuple[FabricRole, str]]:
    """The fabrics the platform has ports for, with what each carries."""
    def ports(n: NicPorts) -> str:
        return f"{n.ports} x {value(n.rate)} per node"

    out = [(FabricRole.COMPUTE, f"the GPUs' scale-out network, {ports(p.scale_out)}")]
    if p.storage is not None:
        out.append((FabricRole.STORAGE, f"storage, {ports(p.storage)}"))
    if p.oob is not None:
        out.append((FabricRole.OOB, f"out-of-band management, {ports(p.oob)}"))
    return out
