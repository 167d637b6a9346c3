"""NetBox's own choice values for what the plan carries (interface types, cable types, statuses).

Every value here is a key of NetBox 4.7's ``dcim/choices.py`` (InterfaceTypeChoices,
CableTypeChoices, LinkStatusChoices, ...); tests/netbox/test_choices.py reads the installed
NetBox source and fails if one is not.
"""

from __future__ import annotations

#: The NetBox release the integration test runs against.
TESTED_VERSION = "4.7.3"
#: Releases the push and diff accept: the v2 tokens and cable terminations API of 4.5 and later.
SUPPORTED = ((4, 5), (5, 0))   # from, below

STATUS = "planned"             # sites, locations, racks, devices and cables alike
LENGTH_UNIT = "m"
#: A power port's (inlet's) type by the catalog's inlet, a power outlet's by its kind (NetBox's
#: PowerPortTypeChoices / PowerOutletTypeChoices values). A whip, and a PDU's own 415 V 60 A input, is
#: IEC 60309 3P+N+E 6h (a wye PDU's five-pin plug).
POWER_PORT_TYPES = {"c14": "iec-60320-c14", "c20": "iec-60320-c20", "whip": "iec-60309-3p-n-e-6h"}
POWER_OUTLET_TYPES = {"c13": "iec-60320-c13", "c19": "iec-60320-c19", "whip": "iec-60309-3p-n-e-6h"}
#: A power feed (NetBox PowerFeed): what a rack feed's circuit is.
FEED_SUPPLY, FEED_PHASE = "ac", "three-phase"
FEED_TYPES = {"A": "primary", "B": "redundant"}
FEED_LEGS = ("A", "B", "C")
FACE = "front"

#: The catalog's cage form factors in NetBox's interface type names.
_FORM = {"osfp": "osfp", "osfp-flat": "osfp", "qsfp112": "qsfp112", "qsfp-dd": "qsfpdd",
         "qsfp56": "qsfp56", "qsfp28": "qsfp28", "sfp28": "sfp28"}

#: Every interface type this module may produce (the test checks each against NetBox).
INTERFACE_TYPES = frozenset({
    "1000base-t", "10gbase-t", "other",
    "25gbase-x-sfp28", "100gbase-x-qsfp28", "100gbase-x-qsfpdd",
    "200gbase-x-qsfp56", "200gbase-x-qsfpdd",
    "400gbase-x-qsfp112", "400gbase-x-qsfpdd", "400gbase-x-osfp",
    "800gbase-x-qsfpdd", "800gbase-x-osfp", "1.6tbase-x-osfp1600",
    *(f"infiniband-{g}-{w}x" for g in ("edr", "hdr", "ndr", "xdr") for w in (4,)),
    "infiniband-hdr-2x", "infiniband-ndr-2x", "infiniband-xdr-2x",
    "infiniband-edr", "infiniband-hdr", "infiniband-ndr", "infiniband-xdr",
})

#: InfiniBand generations by lane rate (Gbit/s), as NetBox names them ("XDR 4X (800 Gbps)").
_IB_GENERATION = {25: "edr", 50: "hdr", 100: "ndr", 200: "xdr"}


def infiniband_type(rate_gbps: float, lane_gbps: float | None) -> str:
    """NetBox's InfiniBand interface type of a port: the generation by its lane rate, the width by its
    lanes (an XDR switch's 800G port is ``infiniband-xdr-4x``, its 400G half ``infiniband-xdr-2x``).
    Without a lane rate the usual 4X port of that rate; ``other`` past what NetBox names.

    >>> infiniband_type(800, 200), infiniband_type(400, 200), infiniband_type(400, 100), infiniband_type(200, None)
    ('infiniband-xdr-4x', 'infiniband-xdr-2x', 'infiniband-ndr-4x', 'infiniband-hdr-4x')
    """
    lane = lane_gbps or rate_gbps / 4
    gen = _IB_GENERATION.get(int(lane))
    width = round(rate_gbps / lane)
    name = f"infiniband-{gen}" + ("" if width == 1 else f"-{width}x")
    return name if gen is not None and name in INTERFACE_TYPES else "other"


def interface_type(rate_gbps: float, form_factor: str | None, protocol: str = "ethernet",
                   lane_gbps: float | None = None) -> str:
    """The NetBox interface type of a port at ``rate_gbps`` in a cage of ``form_factor``; an InfiniBand
    port (``protocol``) takes NetBox's InfiniBand types (:func:`infiniband_type`), not Ethernet's.

    A split port keeps its cage's form factor (a 400G half of an 800G OSFP cage is
    ``400gbase-x-osfp``); what NetBox has no name for is ``other``.

    >>> interface_type(800, "osfp"), interface_type(400, "qsfp112"), interface_type(1, "rj45")
    ('800gbase-x-osfp', '400gbase-x-qsfp112', '1000base-t')
    >>> interface_type(100, None)
    'other'
    """
    if form_factor == "rj45":
        return {1: "1000base-t", 10: "10gbase-t"}.get(int(rate_gbps), "other")
    if protocol == "infiniband":
        return infiniband_type(rate_gbps, lane_gbps)
    ff = _FORM.get(form_factor or "")   # NetBox 4.7 has no 100G or 200G OSFP/QSFP112 type: "other"
    if ff is None:
        return "other"
    name = f"1.6tbase-x-{ff}1600" if rate_gbps == 1600 else f"{int(rate_gbps)}gbase-x-{ff}"
    return name if name in INTERFACE_TYPES else "other"


#: The plan's cable kinds (``CableRow.cable_type``'s first word) as NetBox cable types.
_CABLE = {"dac": "dac-passive", "acc": "dac-active", "lacc": "dac-active", "aec": "dac-active",
          "aoc": "aoc", "rj45": "cat6", "om3": "mmf-om3", "om4": "mmf-om4", "om5": "mmf-om5",
          "os2": "smf-os2"}
CABLE_TYPES = frozenset(_CABLE.values()) | {"smf", "mmf"}


def cable_type(plan_type: str) -> str:
    """NetBox's cable type for the plan's ``cable_type`` (``om4 mpo12-apc trunk`` -> ``mmf-om4``).

    A patch between a router and a mux, which the plan names by its connector only, is single-mode
    (the DWDM side is single-mode throughout).

    >>> cable_type("om4 mpo12-apc trunk"), cable_type("dac"), cable_type("os2 dark fibre pair")
    ('mmf-om4', 'dac-passive', 'smf-os2')
    >>> cable_type("lc-duplex patch")
    'smf'
    """
    first = plan_type.split(" ", 1)[0]
    if first in _CABLE:
        return _CABLE[first]
    return "smf" if "lc-duplex" in plan_type else ""


#: Interface types newer than the oldest release the push accepts (4.5.0), with the first release that
#: has them. 1.6T OSFP: 4.5.6 (netbox-community/netbox #21480, in the v4.5.6 tag's dcim/choices.py,
#: absent from v4.5.5's). InfiniBand 4X: 4.6.9 (release notes v4.6.9, "#21387 - Add InfiniBand 4X
#: interface types"; absent from v4.6.8's and v4.7.0-beta1's choices). InfiniBand 2X: after 4.7.0
#: (#23041, merged 2026-09-11, after 4.7.0's release on 2026-09-02) and in 4.7.3 (the tested
#: release, tests/netbox/test_choices.py); the release between that first had them is not read,
#: so they are taken from 4.7.3.
FIRST_RELEASE: dict[str, tuple[int, int, int]] = {
    "1.6tbase-x-osfp1600": (4, 5, 6),
    **{f"infiniband-{g}-4x": (4, 6, 9) for g in ("edr", "hdr", "ndr", "xdr")},
    **{f"infiniband-{g}-2x": (4, 7, 3) for g in ("hdr", "ndr", "xdr")},
}


def release(version: str) -> tuple[int, int, int] | None:
    """A NetBox release as numbers (``4.7.3-Docker-3.4`` -> (4, 7, 3)); None when it is not one.

    >>> release("4.7.3-Docker-3.4"), release("4.6"), release("garbage")
    ((4, 7, 3), (4, 6, 0), None)
    """
    try:
        parts = [int(x) for x in version.split("-")[0].split(".")[:3]]
    except ValueError:
        return None
    if len(parts) < 2:
        return None
    return (parts + [0])[0], parts[1], (parts + [0, 0])[2]


def for_release(interface: str, version: tuple[int, int, int]) -> str:
    """The interface type a NetBox of ``version`` takes for ``interface``: the type itself where the
    release has it; before that, an InfiniBand 4X or 2X port its generation's own type (NetBox's
    older InfiniBand choices, one per generation) and any other type ``other``.

    >>> for_release("infiniband-ndr-4x", (4, 7, 3)), for_release("infiniband-ndr-4x", (4, 6, 8))
    ('infiniband-ndr-4x', 'infiniband-ndr')
    >>> for_release("infiniband-xdr-2x", (4, 6, 9)), for_release("1.6tbase-x-osfp1600", (4, 5, 0))
    ('infiniband-xdr', 'other')
    """
    first = FIRST_RELEASE.get(interface)
    if first is None or version >= first:
        return interface
    if interface.startswith("infiniband-"):
        return interface.rsplit("-", 1)[0]
    return "other"


def version_ok(version: str) -> bool:
    """Whether a NetBox release (``4.7.3``, ``4.7.3-Docker-3.4``) is one the push supports.

    >>> version_ok("4.7.3"), version_ok("4.4.9"), version_ok("5.0.0"), version_ok("garbage")
    (True, False, False, False)
    """
    try:
        major, minor = (int(x) for x in version.split("-")[0].split(".")[:2])
    except ValueError:
        return False
    return SUPPORTED[0] <= (major, minor) < SUPPORTED[1]
