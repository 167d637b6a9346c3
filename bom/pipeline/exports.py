"""``bom export KIND``: the plan for the tools that test and run the cluster, each file made by its writer
from the cable plan generator's rows (never a wiring of its own). Imported from its module (only
``bom export`` uses it)."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

from bom.cableplan import rows as plan
from bom.errors import BomError
from bom.links.line import DCI_LINE
from bom.outputs.publish import Output
from bom.outputs.writers import acceptance, scheduler, twin
from bom.roles import FabricRole
from bom.rules.lengths import line_window, run_windows
from bom.topology.fabrics import infiniband
from bom.topology.jobs import platform_tiers

if TYPE_CHECKING:
    from bom.catalog.rows import Catalog
    from bom.model.model import Model



def _anta(model: Model, catalog: Catalog, name: str) -> dict[str, bytes]:
    ethernet = (set(model.fabrics) - infiniband(model, catalog)) | ({FabricRole.DCI} if model.dci else set())
    cats = acceptance.anta_catalogs(plan.rows(model, catalog=catalog), plan.COL, ethernet)
    if not cats:
        raise BomError("the design has no Ethernet switch for ANTA to test (every fabric is InfiniBand)",
                       key="KIND", hint="bom export cvt writes the InfiniBand fabrics' cable-validation file.")
    return {f"{name}-{fabric}-anta.yml": text for fabric, text in sorted(cats.items())}


def _cvt(model: Model, catalog: Catalog, name: str) -> Output:
    fname, ib = f"{name}-cvt-p2p.xlsx", infiniband(model, catalog)

    def write(open_: Callable[[str], IO[bytes]]) -> None:
        acceptance.write_cvt(plan.rows(model, catalog=catalog), plan.COL, ib, open_(fname))

    return Output(streams=[((fname,), write)], what="the CVT workbook")


def _expected(model: Model, catalog: Catalog, name: str) -> Output:
    """Streamed into the publisher's stage a link at a time: the plan with its scale-up rows is the
    longest file a design has (82,944 NVLink rows of the default's 98,595)."""
    fname = f"{name}-expected-topology.json"

    def write(open_: Callable[[str], IO[bytes]]) -> None:
        links = acceptance.expected_links(plan.rows(model, catalog=catalog, scale_up=True), plan.COL,
                                          run_windows(model), line_window(model), DCI_LINE.pair_hop)
        acceptance.write_expected(name, links, open_(fname))

    return Output(streams=[((fname,), write)], what="the expected topology")


def _tree(model: Model, catalog: Catalog) -> scheduler.Tree:
    if FabricRole.COMPUTE not in model.fabrics:
        raise BomError("the design has no compute fabric for a scheduler's topology", key="KIND",
                       hint="bom export anta, cvt or expected-topology write the fabrics this design has.")
    return scheduler.tree_of(plan.rows(model, catalog=catalog, scale_up=True), plan.COL, FabricRole.COMPUTE)


def _slurm(model: Model, catalog: Catalog, name: str) -> dict[str, bytes]:
    t = _tree(model, catalog)
    files = {f"{name}-topology-tree.conf": scheduler.slurm_tree(t, name)}
    block = scheduler.slurm_block(t, name)
    if block is not None:
        files[f"{name}-topology-block.conf"] = block
    return files


def _k8s(model: Model, catalog: Catalog, name: str) -> dict[str, bytes]:
    return {f"{name}-k8s-node-labels.yaml": scheduler.k8s_labels(_tree(model, catalog), name)}


def _simai(model: Model, catalog: Catalog, name: str) -> dict[str, bytes]:
    if FabricRole.COMPUTE not in model.fabrics:
        raise BomError("the design has no compute fabric for a simulator's network", key="KIND",
                       hint="bom export anta, cvt or expected-topology write the fabrics this design has.")
    platform = model.cluster.platform
    up = platform.scale_up
    if up.kind == "torus-ocs":
        raise BomError(f"SimAI puts a scale-up domain's GPUs on NVSwitch chips; {platform.id}'s chips form a torus "
                       "through optical circuit switches, which its network cannot hold", key="KIND",
                       hint="bom export expected-topology lists the torus's links.")
    # One NVLink link's rate one way: the GPU's scale-up bandwidth (the parallelism stage's, one direction)
    # over its links.
    nvlink_gbps = platform_tiers(platform).scale_up_bps * 8 / 1e9 / up.links_per_gpu if up.links_per_gpu else 0.0
    net = twin.net_of(plan.rows(model, catalog=catalog, scale_up=True), plan.COL, FabricRole.COMPUTE,
                      platform.gpus_per_node, nvlink_gbps)
    files = {f"{name}-simai-topo.txt": twin.simai_topology(net, platform.gpus_per_domain, platform.id)}
    split = model.sizing.parallelism if model.sizing else None
    if split is not None and split.kind == "train":
        files[f"{name}-simai-workload.txt"] = twin.simai_workload(split)
    return files


#: KIND -> what writes its files from the built model: rendered (name -> bytes) or streamed (an Output).
KINDS: dict[str, Callable[[Model, Catalog, str], Output | dict[str, bytes]]] = {
    "anta": _anta, "cvt": _cvt, "expected-topology": _expected, "slurm": _slurm, "k8s": _k8s,
    "simai": _simai,
}


def check_kind(kind: str) -> None:
    """Refuse an export KIND there is none of (before anything is built)."""
    if kind not in KINDS:
        raise BomError(f"no export named {kind!r}", key="KIND", hint=f"Use one of: {', '.join(KINDS)}.")


def export(kind: str, model: Model, catalog: Catalog, name: str) -> Output:
    """The files of one export KIND, for the one publisher (bom.outputs.publish.write_all)."""
    check_kind(kind)
    out = KINDS[kind](model, catalog, name)
    return out if isinstance(out, Output) else Output(dict(out), what=f"the {kind} export")


def rendered(output: Output) -> dict[str, bytes]:
    """Every file of an output in memory, its streams written into buffers (for a reader that wants bytes)."""
    files = dict(output.files)
    bufs: dict[str, io.BytesIO] = {}
    declared = {n for names, _ in output.streams for n in names}

    def open_(name: str) -> IO[bytes]:
        assert name in declared and name not in bufs
        bufs[name] = io.BytesIO()
        return bufs[name]

    for _, write in output.streams:
        write(open_)
    return files | {n: b.getvalue() for n, b in bufs.items()}

