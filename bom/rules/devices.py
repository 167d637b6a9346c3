"""What stands at each end of a link group: the device's protocol, cage, port rates and lanes.

Read from the model's own description of its devices (a fabric's planes, the nodes' and the
endpoints' NICs, the DCI router) and the catalog rows behind them, never from the link the lookup
chose: the ``ends`` rules compare the two. One function per kind of device; :func:`ends` says
which kind stands at each end of a hop (the hop table, :mod:`bom.model.hops`, names the layers).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bom import names
from bom.catalog.rows import GEARBOX_CAGES, Catalog, Endpoint, NicPorts, Switch
from bom.links.ports import OWN_BORDER_ROLE
from bom.model.fabrics import OobFabric
from bom.model.hops import HopKind
from bom.model.plane import SwitchPorts
from bom.roles import FabricRole, Layer
from bom.topology.planes import uplink_ports, uplink_rates
from bom.units import magnitude

if TYPE_CHECKING:
    from bom.model.fabrics import Fabric
    from bom.model.linkgroups import LinkGroup
    from bom.model.model import Model

#: The pool of a switch's ports a link end takes: its own cages, or its dedicated uplink ports.
PORTS, UPLINKS = "ports", "uplinks"
PROTOCOL_NAMES = {"infiniband": "InfiniBand", "ethernet": "Ethernet"}


@dataclass(frozen=True)
class Device:
    """One end's device as the model describes it."""

    role: str                    # node, leaf, spine, core, storage, ufm, mgmt, oob, router
    part: str                    # its catalog id (switch, platform, endpoint row)
    kind: str                    # switch, router, NIC, port
    protocol: str | None         # infiniband / ethernet; None: a VPI NIC or a port that speaks either
    form_factor: str             # the cage
    per_cage: int                # ports one cage holds at the link's rate
    rates: tuple[float, ...]     # the rates its port runs at
    slower: bool = False         # a NIC port also runs slower than its rate
    lane_gbps: float | None = None   # the electrical lane rate where the row publishes it
    population: tuple[str, str, str] | None = None   # (fabric, layer, pool): the ports it draws on
    pool_ports: int = 0          # ports each device has in that pool
    share: float = 1.0           # of one pool port a link end takes (a 400G breakout: half an 800G port)
    note: str = ""               # why it is what it is (an endpoint's port counted as the nodes')

    def runs_at(self, rate: float) -> bool:
        if self.slower:
            return rate <= max(self.rates) + 1e-9
        return any(math.isclose(rate, r) for r in self.rates)

    def describe(self) -> str:
        """For people (after its part): "InfiniBand switch, osfp cage of 2 ports at 400G/800G"."""
        proto = PROTOCOL_NAMES.get(self.protocol or "", "")
        head = f"{proto} {self.kind}".strip() if proto else self.kind
        rates = "/".join(f"{r:g}G" for r in self.rates) + (" or slower" if self.slower else "")
        ports = f"{self.per_cage} port{'s' * (self.per_cage != 1)}"
        return f"{head}, {self.form_factor} cage of {ports} at {rates}"


def switch_device(row: Switch, ports: SwitchPorts, role: str, rate: float, fabric: str, layer: str) -> Device:
    """A switch (or router) end at ``rate``: its own cages, or its dedicated uplink ports when
    ``ports`` is them (an SN2201's QSFP28 uplinks)."""
    up = uplink_ports(row, ports.rate_gbps)
    if up is not None and ports == up:
        return Device(role, row.id, "switch", row.protocol, up.form_factor, up.ports_per_cage, uplink_rates(row),
                      population=(fabric, layer, UPLINKS), pool_ports=up.radix)
    native = magnitude(row.port_rate, "rate")
    radix = {native: row.ports} | {magnitude(b.rate, "rate"): b.ports for b in row.breakouts}
    at = next((n for r, n in radix.items() if math.isclose(r, rate)), None)
    per = at // row.cages if at else ports.ports_per_cage
    # At its native rate a switch runs its SerDes at its lane rate, and a module there must too (NVIDIA
    # names NDR and XDR parts by it). At a breakout rate, or behind a QSFP-DD cage (its modules
    # gearbox 8 x 50G host lanes into 4 x 100G optical ones), the catalog does not say the host lanes.
    native_lane = math.isclose(rate, native) and row.form_factor not in GEARBOX_CAGES
    return Device(role, row.id, Layer.ROUTER if role == Layer.ROUTER else "switch", row.protocol,
                  row.form_factor, max(1, per), tuple(sorted(radix)),
                  lane_gbps=magnitude(row.lane_rate, "rate") if native_lane else None,
                  population=(fabric, layer, PORTS), pool_ports=row.ports, share=row.ports / at if at else 1.0)


def nic_device(nic: NicPorts, role: str, part: str, planes: int = 1, protocol: str | None = None,
               population: tuple[str, str, str] | None = None, note: str = "") -> Device:
    """A NIC or an appliance's port: ``planes`` plane ports per port at the rate split over them (1 where a
    fabric deals whole ports over its planes); it runs at its rate or slower (what the far end offers)."""
    rate = magnitude(nic.rate, "rate") / planes
    return Device(role, part, "NIC" if role == Layer.NODE else "appliance port", protocol, nic.form_factor,
                  nic.ports_per_cage * planes, (rate,), slower=True, population=population,
                  pool_ports=nic.ports * planes, note=note)


class Resolver:
    """The devices at both ends of every link group of one model."""

    def __init__(self, model: Model, catalog: Catalog) -> None:
        self.model, self.catalog = model, catalog
        self._ends: dict[tuple[str, str, float, str, str], tuple[Device | None, Device | None]] = {}

    def switch(self, sid: str) -> Switch:
        row = self.catalog.get("switches", sid)
        assert isinstance(row, Switch)
        return row

    def ends(self, g: LinkGroup) -> tuple[Device | None, Device | None]:
        """(lower, upper) of ``g``; None where the far device is not part of the model (an OOB
        uplink into a site network that is not built). Made once per hop, fabric, rate and layers: all
        the functions below read of a group (a large build has a group per site shape and run length)."""
        key = (g.hop, g.fabric, g.rate_gbps, g.lower, g.upper)
        hit = self._ends.get(key)
        if hit is None:
            hit = self._ends[key] = self._ends_of(g)
        return hit

    def _ends_of(self, g: LinkGroup) -> tuple[Device | None, Device | None]:
        if g.hop == HopKind.FABRIC_DCI:
            return self.router(g.rate_gbps), self.top(g.rate_gbps)
        f = self.model.fabrics[g.fabric]
        if isinstance(f, OobFabric):   # its devices are every managed device, found by their ports' roles
            return self.oob_end(f, g, g.lower, lower=True), self.oob_end(f, g, g.upper, lower=False)
        return self.fabric_end(f, g, lower=True), self.fabric_end(f, g, lower=False)

    # -- switch fabrics (compute, storage, in-band) ------------------------------------------------
    def fabric_end(self, f: Fabric, g: LinkGroup, lower: bool) -> Device | None:
        layer = g.lower if lower else g.upper
        p = f.first
        if layer == Layer.NODE:
            if f.node_ports is None:
                return None
            return nic_device(f.node_ports, Layer.NODE, self.model.platform.id, f.port_split,
                              population=(f.name, Layer.NODE, PORTS))
        if layer in (Layer.LEAF, Layer.SPINE, Layer.CORE):
            # A leaf's links to the layer above leave by its uplink side; every other leaf end is a downlink.
            upward = g.hop in (HopKind.LEAF_SPINE, HopKind.LEAF_LEAF, HopKind.MLAG_PEER)
            ports = {Layer.LEAF: p.up if upward else p.leaf,
                     Layer.SPINE: p.spine, Layer.CORE: p.spine}[layer]
            return switch_device(self.switch(ports.id), ports, layer, g.rate_gbps, f.name, layer)
        return self.endpoint(f, layer)

    def endpoint(self, f: Fabric, role: str) -> Device | None:
        """An endpoint kind's port on ``f``: a fabric manager on the compute leaves, or a storage
        appliance, server or management switch uplink on a storage or in-band leaf."""
        note = f.substitutions.get(role, "")
        if role == Layer.OOB:     # a management switch's uplinks: its own dedicated ports
            oob = self.model.fabrics.get(FabricRole.OOB)
            if isinstance(oob, OobFabric):
                leaf = self.switch(oob.leaf_id)
                up = uplink_ports(leaf)
                if up is not None:
                    return Device(Layer.OOB, leaf.id, "switch", leaf.protocol, up.form_factor, up.ports_per_cage,
                                  (up.rate_gbps,), population=(FabricRole.OOB, Layer.LEAF, UPLINKS),
                                  pool_ports=up.radix, note=note)
        nic = self.endpoint_nic(f, role)
        if nic is None:
            return None
        return nic_device(nic[1], role, nic[0], note=note)

    def endpoint_nic(self, f: Fabric, role: str) -> tuple[str, NicPorts] | None:
        e = self.model.endpoints
        if e is None:
            return None
        rows: dict[str, Endpoint | None] = {Layer.UFM: e.ufm, Layer.MGMT: e.mgmt, Layer.STORAGE: e.storage}
        row = rows.get(role)
        if row is None:
            return None
        own = role == Layer.STORAGE and f.name == FabricRole.STORAGE   # the appliances' ports the build chose
        nic = e.storage_ports if own else getattr(row.ports, f.name, None)
        return (row.id, nic) if nic is not None else None

    # -- out-of-band ----------------------------------------------------------------------------
    def oob_end(self, f: OobFabric, g: LinkGroup, layer: str, lower: bool) -> Device | None:
        if layer == Layer.NODE:   # every managed device's management port: Ethernet, RJ45
            return nic_device(f.node_ports, "managed device", "management port", protocol="ethernet") \
                if f.node_ports is not None else None
        role = names.switch_role(f.name, layer)
        if layer == Layer.LEAF:
            leaf = self.switch(f.leaf_id)
            # Its RJ45 ports take the devices; its uplinks (dedicated ports where it has them) the rest.
            ports = native_ports(leaf) if g.hop == HopKind.NODE_LEAF else uplink_ports(leaf) or native_ports(leaf)
            return switch_device(leaf, ports, role, g.rate_gbps, f.name, layer)
        if layer == Layer.SPINE and f.spine_id:
            spine = self.switch(f.spine_id)
            return switch_device(spine, native_ports(spine), role, g.rate_gbps, f.name, layer)
        return None   # the site's own in-band network: not part of this model

    # -- scale-across ---------------------------------------------------------------------------
    def router(self, rate: float) -> Device | None:
        d = self.model.dci
        if d is None:
            return None
        return switch_device(d.router, native_ports(d.router), Layer.ROUTER, rate, FabricRole.DCI,
                             Layer.ROUTER)

    def top(self, rate: float) -> Device | None:
        """Where the routers' client links land: the compute fabric's top layer, the border leaves
        of the in-band or storage fabric (``Dci.attach``), or the DCI's own border leaves."""
        d = self.model.dci
        if d is not None and d.border is not None:
            row = d.border.switch
            return switch_device(row, native_ports(row), OWN_BORDER_ROLE, rate, FabricRole.DCI, Layer.LEAF)
        attach = d.attach if d is not None else FabricRole.COMPUTE
        f = self.model.fabrics.get(attach)
        if f is None or not f.shapes:
            return None
        p = f.first
        if attach != FabricRole.COMPUTE:   # border leaves: the fabric's leaf switch, its downlink side
            return switch_device(self.switch(p.leaf.id), p.leaf, Layer.LEAF, rate, f.name, Layer.LEAF)
        layer = {3: Layer.CORE, 2: Layer.SPINE}.get(p.layers, Layer.LEAF)
        return switch_device(self.switch(p.spine.id), p.spine, layer, rate, f.name, layer)


def native_ports(row: Switch) -> SwitchPorts:
    """A switch's own ports at its native rate."""
    rate = magnitude(row.port_rate, "rate")
    return SwitchPorts(row.id, row.ports, row.ports_per_cage, row.form_factor, magnitude(row.lane_rate, "rate"), rate)
