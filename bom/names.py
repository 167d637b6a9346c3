"""Names for everything the placement and the cable plan list: deterministic and printable.

- site ``s1`` (1-based), row ``r03`` (1-based within its site), rack position ``rk07``
  (1-based along its row); a rack's id is ``s1-r03-rk07``;
- a device is its rack's id, its role and its 1-based index among the devices of that role in
  that rack: ``s1-r03-rk07-leaf-03``;
- a port is ``p17`` (1-based cage number); a breakout lane or the second port of a twin-port
  cage is a sub-port, ``p17/2``;
- a label places a device by rack and U (``s1-r03-rk07-12``), a 0U device by its position index
  (``s1-r03-rk07-0U02``), and a link of several fibre runs marks each run (``p17#2``).

Roles: a fabric's switch layers are ``leaf``, ``spine``, ``core`` on the compute fabric and
``<fabric>-<layer>`` on the others (``storage-leaf``, ``inband-spine``, ``oob-leaf``); endpoints
are ``node``, ``ufm``, ``mgmt`` (management and head nodes), ``storage`` (storage appliances),
``pdu``; scale-across devices are ``router``, ``mux`` and ``amp``.

>>> device(rack(1, 3, 7), switch_role("compute", "leaf"), 3)
's1-r03-rk07-leaf-03'
>>> port(17, 2), switch_role("storage", "leaf")
('p17/2', 'storage-leaf')
"""

from __future__ import annotations

from bom.roles import FabricRole

#: Every managed device's management port (its BMC's or the switch's RJ45), the name the plan gives it.
MGMT_PORT = "mgmt"


def site(s: int) -> str:
    return f"s{s}"


def rack(site_no: int, row: int, position: int) -> str:
    return f"s{site_no}-r{row:02d}-rk{position:02d}"


def device(rack_id: str, role: str, index: int) -> str:
    return f"{rack_id}-{role}-{index:02d}"


def port(cage: int, sub: int | None = None) -> str:
    return f"p{cage}" if sub is None else f"p{cage}/{sub}"


def unit(u: int, device: str) -> str:
    """Where a device stands in its rack, as labels print it: its lowest U in two digits, or for a
    0U device (a vertical PDU in the rack's side channel, every one at U 0) ``0U`` and its position
    index there, the index its name carries (only PDUs stand at 0U in a rack).

    >>> unit(7, "s1-r01-rk01-leaf-01"), unit(0, "s1-r01-rk01-pdu-02")
    ('07', '0U02')
    """
    return f"{u:02d}" if u else f"0U{int(device.rsplit('-', 1)[1]):02d}"


#: What marks the fibre run of a link of several runs on its ends' labels (an 800G port over two
#: MPO-12 trunks: ``p37#1`` and ``p37#2``, the module's two connectors), so every run has labels of its own.
RUN_MARK = "#"


def run_port(port_name: str, run: int) -> str:
    """A port as the label of a link's ``run``-th fibre run (1-based) names it: ``p37#2``."""
    return f"{port_name}{RUN_MARK}{run}"


def switch_role(fabric: str, layer: str) -> str:
    """The role of a switch of ``layer`` (leaf, spine, core) in ``fabric``."""
    return layer if fabric == FabricRole.COMPUTE else f"{fabric}-{layer}"


#: InfiniBand's speed names and the rate of one lane at each [Gbit/s]: the nominal data rate each
#: generation is sold at (ibnetdiscover prints a link's active width and speed as ``4xNDR``).
IB_LANE_GBPS = {"SDR": 2.5, "DDR": 5.0, "QDR": 10.0, "FDR10": 10.0, "FDR": 14.0, "EDR": 25.0, "HDR": 50.0,
                "NDR": 100.0, "XDR": 200.0}


def ib_port_number(name: str, per_cage: int) -> int | None:
    """The port number an InfiniBand switch reports for the plan's port ``name`` (None: not a switch
    port's name): ``p<n>`` on single-port cages, cage and port ``p<c>/<k>`` on cages of ``per_cage``
    ports, numbered cage by cage (``n = per_cage (c-1) + k``: an NDR or XDR switch's twin-port OSFP).

    >>> ib_port_number("p8/2", 2), ib_port_number("p17", 1), ib_port_number("mgmt", 1)
    (16, 17, None)
    """
    cage, _, sub = name[1:].partition("/")
    if not name.startswith("p") or not cage.isdigit() or not (sub.isdigit() or not sub):
        return None
    return per_cage * (int(cage) - 1) + (int(sub) if sub else 1)


def ib_port_names(n: int) -> tuple[str, str]:
    """The plan's names of an InfiniBand switch's port ``n`` (:func:`ib_port_number` read back): ``p<n>``
    on single-port cages, ``p<c>_<k>`` (``p<c>/<k>`` as the verify's port keys write it) on twin-port cages."""
    return f"p{n}", f"p{(n + 1) // 2}_{(n - 1) % 2 + 1}"
