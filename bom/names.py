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
