"""The hops: every kind of link the tool counts, and what each joins (one table).

A hop's value is the string the JSON, CSV, workbook and cable plan print (``node-leaf``), so the
outputs keep their bytes. Each hop has one pattern in :mod:`bom.links` (its closed-form count and
its cable-plan rows); the table here says which layer stands at each end (the closed form's
``LinkGroup.lower`` / ``.upper``, and the plan's tally per layer) and which tier it is in.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bom.roles import FabricKind, Layer, Tier


class HopKind(StrEnum):
    GPU_NVSWITCH = "gpu-nvswitch"
    CUBE_OCS = "cube-ocs"
    NVSWITCH_NVSWITCH = "nvswitch-nvswitch"
    NODE_LEAF = "node-leaf"
    LEAF_LEAF = "leaf-leaf"
    MLAG_PEER = "mlag-peer"
    LEAF_SPINE = "leaf-spine"
    SPINE_CORE = "spine-core"
    LEAF_INBAND = "leaf-inband"
    STORAGE_LEAF = "storage-leaf"
    UFM_LEAF = "ufm-leaf"
    UFM_TOP = "ufm-top"
    MGMT_LEAF = "mgmt-leaf"
    PDU_LEAF = "pdu-leaf"
    OOB_LEAF = "oob-leaf"
    FABRIC_DCI = "fabric-dci"
    SITE_SITE = "site-site"
    FIBRE_PAIR = "fibre-pair"
    MUX_AMPLIFIER = "mux-amplifier"
    PDU_SUPPLY = "pdu-supply"


@dataclass(frozen=True)
class HopMeaning:
    lower: Layer    # the layer at the lower end
    upper: Layer    # the layer at the upper end (TOP: the fabric's top layer, whichever it is, or a border leaf)
    tier: Tier | FabricKind   # a link tier, or the power plan's own label (its cords are in no link tier)
    what: str


H, L, T = HopKind, Layer, Tier
#: The table; its order is the order hops are listed in.
HOPS: dict[HopKind, HopMeaning] = {
    H.GPU_NVSWITCH: HopMeaning(L.NODE, L.NVSWITCH, T.SCALE_UP, "a GPU's NVLink to a switch chip"),
    H.CUBE_OCS: HopMeaning(L.NODE, L.OCS, T.SCALE_UP, "a torus cube face's optic to its optical circuit switch"),
    H.NVSWITCH_NVSWITCH: HopMeaning(L.NVSWITCH, L.NVSWITCH, T.SCALE_UP,
                                    "a switch chip's link to its twin in the other rack of a two-rack domain"),
    H.NODE_LEAF: HopMeaning(L.NODE, L.LEAF, T.SCALE_OUT, "a node's NIC port to its leaf"),
    H.LEAF_LEAF: HopMeaning(L.LEAF, L.LEAF, T.SCALE_OUT, "an ISL between a switch pair's two switches"),
    H.MLAG_PEER: HopMeaning(L.LEAF, L.LEAF, T.SCALE_OUT,
                            "an MLAG pair's peer link between its two switches (the inter-chassis bond)"),
    H.LEAF_SPINE: HopMeaning(L.LEAF, L.SPINE, T.SCALE_OUT, "a leaf's uplink to a spine"),
    H.SPINE_CORE: HopMeaning(L.SPINE, L.CORE, T.SCALE_OUT, "a spine's uplink to a core"),
    H.LEAF_INBAND: HopMeaning(L.LEAF, L.INBAND, T.SCALE_OUT,
                              "a management switch's uplink into the in-band fabric"),
    H.STORAGE_LEAF: HopMeaning(L.STORAGE, L.LEAF, T.SCALE_OUT, "a storage appliance's port to its leaf"),
    H.UFM_LEAF: HopMeaning(L.UFM, L.LEAF, T.SCALE_OUT, "a fabric manager's port to a compute leaf"),
    H.UFM_TOP: HopMeaning(L.UFM, L.TOP, T.SCALE_OUT,
                          "a fabric manager's port to the compute fabric's top layer (spine, or core in three "
                          "layers), where no leaf downlink is free"),
    H.MGMT_LEAF: HopMeaning(L.MGMT, L.LEAF, T.SCALE_OUT, "a management server's port to its leaf"),
    H.PDU_LEAF: HopMeaning(L.PDU, L.LEAF, T.SCALE_OUT, "a PDU's management port to its switch"),
    H.OOB_LEAF: HopMeaning(L.OOB, L.LEAF, T.SCALE_OUT, "a management switch's uplink to an in-band leaf"),
    H.FABRIC_DCI: HopMeaning(L.ROUTER, L.TOP, T.SCALE_ACROSS,
                             "a DCI router's client port to an Ethernet fabric: the compute fabric's top layer, "
                             "a border leaf of the in-band or storage fabric, or one of the DCI's own"),
    H.SITE_SITE: HopMeaning(L.ROUTER, L.MUX, T.SCALE_ACROSS, "a router's coherent line port to its mux/demux"),
    H.FIBRE_PAIR: HopMeaning(L.MUX, L.MUX, T.SCALE_ACROSS, "a fibre pair between two sites' mux/demuxes"),
    H.MUX_AMPLIFIER: HopMeaning(L.MUX, L.AMPLIFIER, T.SCALE_ACROSS,
                                "a terminal amplifier's patch cord to its fibre pair's mux/demux line port"),
    H.PDU_SUPPLY: HopMeaning(L.PDU, L.SUPPLY, FabricKind.POWER,
                             "a power cord from a PDU's outlet to a device's supply (or a whip from a rack feed's "
                             "circuit to a power shelf)"),
}
del L, T


def endpoint_hop(role: str) -> HopKind:
    """The hop of an endpoint kind's ports to its leaf (``storage`` -> ``storage-leaf``)."""
    return HopKind(f"{role}-leaf")
