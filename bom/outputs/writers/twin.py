"""A simulator twin for SimAI (aliyun/SimAI, its ns-3 back end): the GPUs, NVLink switch chips and the compute
fabric's switches at the plan's link rates, and the sized job's split as a SimAI workload.

The topology file is the one ``SetupNetwork`` reads (astra-sim-alibabacloud/astra-sim/network_frontend/ns3/
common.h): a head line ``nodes gpus_per_server nvswitches switches links gpu_type``, the NVSwitch ids, the
switch ids, then one line a link, ``src dst rate delay error_rate`` (rate and delay as ns-3 reads them,
``800Gbps``, ``12ns``). Ids: the GPUs first, an NVLink domain's GPUs together (SimAI takes ``id //
gpus_per_server`` for a GPU's NVLink domain), then the NVSwitch chips, then the switches. Every link comes
from the cable plan's rows: a GPU's NVLink links to each switch chip (the scale-up rows) at the platform's
per-link rate, its NIC ports to its leaves, the leaves' uplinks to spines and cores, each at the row's rate,
parallel rows between two ends summed into one link (the oversubscription and the planes are the rows').
A link's delay is its run's propagation, :data:`NS_PER_M` a metre; a link inside a system takes none.
A platform whose plan lists no scale-up links (AMD's xGMI mesh inside a node) has no NVSwitch in the twin:
its GPUs meet at their leaves there.

The workload file is the one ``Workload::initialize_workload`` reads (astra-sim/workload/Workload.cc), the
format AICB writes: ``HYBRID_TRANSFORMER_FWD_IN_BCKWD`` with the split's TP (``model_parallel_NPU_group``),
EP, PP, GA (the micro-batches) and GPUs, then one line a layer. One simulator pass is one training step:
its compute (forward a third, the backward's input and weight gradients a third each: 2 of the 6 FLOP per
parameter and token forward), the TP all-reduces and EP all-to-alls (half forward, half backward), DP's
gradient reduce-scatter and parameter all-gather, and PP's send as ``pp_comm``; each collective's size is
the bytes the split's traffic says a GPU sends, turned back into the ring collective's size.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from bom.model.parallelism import Parallelism
from bom.model.records import PlanRow
from bom.roles import Layer, Tier
from bom.topology.parallelism import GRAD_BYTES, WEIGHT_BYTES, dp_group

#: Propagation in a fibre [ns/m]: light at c over the group index of ITU-T G.652 single-mode fibre
#: (about 1.468 at 1310 nm): 1.468 / 0.2998 m/ns = 4.9 ns/m; copper twinax is close (velocity factor 0.7,
#: 4.8 ns/m), so one figure serves every run.
NS_PER_M = 4.9
#: SimAI's GPU types (common.h: A100, A800, H100, H800; any other is NONE), by the platform's GPU.
GPU_TYPES = ("A100", "A800", "H100", "H800")
_SWITCHES = (Layer.LEAF, Layer.SPINE, Layer.CORE)
#: Where a GPU's NVLink ends: a switch chip in its node (HGX, DGX) or in a rack's switch tray (NVL72).
_NVSWITCHES = (Layer.NVSWITCH, Layer.NODE, Layer.NVLINK_SWITCH)


@dataclass
class Net:
    """The twin's nodes and links, keyed by plan device (and chip or GPU)."""

    gpus: list[tuple[str, str]] = field(default_factory=list)          # (node, "gpuN") in id order
    nvswitches: list[tuple[str, str]] = field(default_factory=list)    # (device, "nvsN")
    switches: list[str] = field(default_factory=list)
    links: dict[tuple[object, object], list[float]] = field(default_factory=dict)   # ends -> [Gbit/s, ns]

    def add(self, a: object, b: object, gbps: float, ns: float) -> None:
        link = self.links.setdefault((a, b), [0.0, 0.0])
        link[0] += gbps
        link[1] = max(link[1], ns)


def net_of(rows: Iterable[PlanRow], col: dict[str, int], fabric: str, gpus_per_node: int,
           nvlink_gbps: float) -> Net:
    """The twin of the plan's ``fabric`` and scale-up rows; ``nvlink_gbps`` one NVLink link's rate, one way."""
    c, net = col, Net()
    seen_gpu: set[tuple[str, str]] = set()
    seen_nvs: set[tuple[str, str]] = set()
    seen_sw: set[str] = set()
    ports: dict[str, list[tuple[str, str, float, float]]] = {}   # node -> its compute ports in plan order
    site: dict[str, str] = {}                                     # switch -> its site
    channels: dict[str, float] = {}                               # mux -> its wavelengths' Gbit/s
    lines: list[tuple[str, str, float]] = []                      # (site, site, route ns) per fibre pair
    for r in rows:
        a, b, a_role, b_role = r[c["a_device"]], r[c["b_device"]], r[c["a_role"]], r[c["b_role"]]
        ns = float(r[c["length_m"]] or 0) * NS_PER_M
        if r[c["tier"]] == Tier.SCALE_UP and a_role == Layer.NODE and b_role in _NVSWITCHES:
            gpu, chip = (a, r[c["a_port"]].split("-")[0]), (b, r[c["b_port"]].split("-")[0])
            if gpu not in seen_gpu:
                seen_gpu.add(gpu)
                net.gpus.append(gpu)
            if chip not in seen_nvs:
                seen_nvs.add(chip)
                net.nvswitches.append(chip)
            net.add(gpu, chip, nvlink_gbps, 0.0)
        elif a_role == Layer.ROUTER and b_role == Layer.MUX:
            channels[b] = channels.get(b, 0.0) + float(r[c["rate_gbps"]])
        elif a_role == Layer.MUX and b_role == Layer.MUX:
            lines.append((a, b, ns))
            site[a], site[b] = r[c["a_site"]], r[c["b_site"]]
        elif r[c["fabric"]] == fabric and b_role in _SWITCHES:
            for dev, role, at in ((a, a_role, r[c["a_site"]]), (b, b_role, r[c["b_site"]])):
                if role in _SWITCHES and dev not in seen_sw:
                    seen_sw.add(dev)
                    net.switches.append(dev)
                    site[dev] = at
            if a_role == Layer.NODE:
                ports.setdefault(a, []).append((r[c["link_id"]], b, float(r[c["rate_gbps"]]), ns))
            elif a_role in _SWITCHES:
                net.add(a, b, float(r[c["rate_gbps"]]), ns)
    for node, ps in ports.items():
        links = list({link: (leaf, gbps, ns) for link, leaf, gbps, ns in ps}.values())   # a link's runs once
        for i, (leaf, gbps, ns) in enumerate(links):
            gpu = (node, f"gpu{i * gpus_per_node // len(links) + 1}")
            if gpu not in seen_gpu:   # a platform whose scale-up the plan does not list GPU by GPU
                seen_gpu.add(gpu)
                net.gpus.append(gpu)
            net.add(gpu, leaf, gbps, ns)
    _join_sites(net, site, channels, lines)
    return net


def _join_sites(net: Net, site: dict[str, str], channels: dict[str, float],
                lines: list[tuple[str, str, float]]) -> None:
    """Each fibre pair between two sites as one link between the sites' first top switches, at the
    wavelengths its mux carries and the route's delay: the twin's sites are one network, as the job's
    data-parallel exchange sees them (the routers and their client links are not simulated)."""
    lower = {a for a, _ in net.links if isinstance(a, str)}
    tops: dict[str, str] = {}
    for sw in net.switches:
        if sw not in lower:
            tops[site[sw]] = min(tops.get(site[sw], sw), sw)
    for a, b, ns in lines:
        if site[a] in tops and site[b] in tops and channels.get(a):
            net.add(tops[site[a]], tops[site[b]], channels[a], ns)


def _gbps(x: float) -> str:
    return f"{x:.6g}Gbps"


def simai_topology(net: Net, gpus_per_domain: int, platform: str) -> bytes:
    """The topology file SimAI's ns-3 front end reads."""
    ids: dict[object, int] = {}
    for key in (*net.gpus, *net.nvswitches, *net.switches):
        ids[key] = len(ids)
    gpu_type = next((t for t in GPU_TYPES if t.lower() in platform.lower()), "NONE")
    n_gpu, n_nvs = len(net.gpus), len(net.nvswitches)
    lines = [f"{len(ids)} {min(gpus_per_domain, n_gpu)} {n_nvs} {len(net.switches)} {len(net.links)} {gpu_type}",
             " ".join(str(i) for i in range(n_gpu, n_gpu + n_nvs)),
             " ".join(str(i) for i in range(n_gpu + n_nvs, len(ids)))]
    lines += [f"{ids[a]} {ids[b]} {_gbps(gbps)} {ns:.6g}ns 0" for (a, b), (gbps, ns) in net.links.items()]
    return ("\n".join(lines) + "\n").encode()


def _layer(name: str, fwd: tuple[int, str, int] = (1, "NONE", 0), ig: tuple[int, str, int] = (1, "NONE", 0),
           wg: tuple[int, str, int] = (1, "NONE", 0)) -> str:
    return "\t".join(str(x) for x in (name, -1, *fwd, *ig, *wg, 0))


def simai_workload(p: Parallelism) -> bytes:
    """The sized job's training step as a SimAI workload (one pass = one step)."""
    s, per = p.split, {t.dim: t.bytes_per_gpu for t in p.traffic}
    third = round(p.compute_s * 1e9 / 3)        # SimAI's ticks are ns
    layers = [_layer("step_compute", (third, "NONE", 0), (third, "NONE", 0), (third, "NONE", 0))]
    if "tp" in per:   # all-reduce: a GPU sends 2(d-1)/d of the size
        half = round(per["tp"] * s.tp / (2 * (s.tp - 1)) / 2)
        layers.append(_layer("tp_allreduce", (1, "ALLREDUCE", half), (1, "ALLREDUCE", half)))
    if "ep" in per:   # all-to-all: (d-1)/d of it leaves the GPU
        half = round(per["ep"] * s.ep / (s.ep - 1) / 2)
        layers.append(_layer("ep_alltoall", (1, "ALLTOALL_EP", half), (1, "ALLTOALL_EP", half)))
    if "dp" in per:   # reduce-scatter of the gradients, all-gather of the parameters: (g-1)/g each
        g = dp_group(s, s.ep > 1, max(p.dp_sites) if p.dp_sites else s.dp)
        total = per["dp"] * g / (g - 1)
        grads = round(total * GRAD_BYTES / (GRAD_BYTES + WEIGHT_BYTES))
        layers.append(_layer("dp_grad_reduce_scatter", wg=(1, "REDUCESCATTER", grads)))
        layers.append(_layer("dp_param_all_gather", wg=(1, "ALLGATHER", round(total) - grads)))
    head = (f"HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: {s.tp} ep: {s.ep} pp: {s.pp} vpp: 1 "
            f"ga: {p.microbatches} all_gpus: {s.gpus} checkpoints: 0 checkpoint_initiates: 0")
    if s.pp > 1:   # a stage's activations forward and their gradients back, per micro-batch
        head += f" pp_comm {round(per['pp'] / 2 / p.microbatches)}"
    return "\n".join([head, str(len(layers)), *layers, ""]).encode()
