"""The index of neighbour pairs: columns of numbers, a far port's own name as bytes, shared port mappings.

What each pair answers must not depend on how it is held (a cell shared, an alias decoded, a mapping
shared with another device and made a device's own again when it is added to).
"""

from __future__ import annotations

from bom.verify.seen import Column, Link, Seen


def _host_pair(seen: Seen, near: str, port: str, far: str, far_port: str, mac: str | None) -> None:
    seen.add((near, (port,)), (far, (far_port,)), (near, port, far, far_port), f"{near}.json", None, mac)


def test_a_pair_reads_back_what_was_added():
    seen = Seen()
    seen.covered |= {"leaf-1"}
    _host_pair(seen, "leaf-1", "p1_1", "node-1", "eth0", "e6:3a:05:71:ad:f8")
    seen.add(("leaf-1", ("p3", "p2_1")), ("spine-1", ("p7", "p4_1")), ("Leaf-1", "[3]", "Spine-1", "[7]"),
             "fabric.txt", 400.0)
    seen.read()
    host, ib = seen.links
    assert (host.near_device, host.near_ports, host.far_device, host.far_ports, host.shown, host.rate_gbps) == \
        ("leaf-1", ("p1_1",), "node-1", ("e6:3a:05:71:ad:f8", "eth0"), "node-1:eth0", None)
    assert (ib.near_shown, ib.far_ports, ib.shown, ib.source, ib.rate_gbps) == \
        ("Leaf-1:[3]", ("p7", "p4_1"), "Spine-1:[7]", "fabric.txt", 400.0)
    # a speed given as a whole number stays one (its cell is not the float's)
    seen2 = Seen()
    seen2.add(("a", ("p1",)), ("b", ("p1",)), ("a", "p1", "b", "p1"), "f", 400.0)
    seen2.add(("a", ("p2",)), ("b", ("p2",)), ("a", "p2", "b", "p2"), "f", 400)
    assert [type(x.rate_gbps) for x in seen2.links] == [float, int]


def test_an_alias_is_any_text_and_an_empty_one_is_a_name():
    """A far port's own name is kept exactly: a lone surrogate (a JSON escape can make one), and "" (a
    port id lldpd sent empty is a name, not no name)."""
    seen = Seen()
    for i, mac in enumerate(("\ud800x", "", None, "é-1")):
        _host_pair(seen, "leaf-1", f"p{i}", "node-1", f"eth{i}", mac)
    assert [x.far_ports for x in seen.links] == [("\ud800x", "eth0"), ("", "eth1"), ("eth2",), ("é-1", "eth3")]


def test_a_mac_is_held_in_seven_bytes_and_reads_back_as_written():
    """A MAC as lldpd writes it (lower case, colons) is packed; any other spelling is kept as text."""
    seen = Seen()
    macs = ("e6:3a:05:71:ad:f8", "E6:3A:05:71:AD:F8", "e6-3a-05-71-ad-f8", "e6:3a:05:71:ad:fg", "e6:3a:05:71:adf8:",
            " e6:3a:05:71:ad:f", "fe:ff:00:00:00:01")
    for i, mac in enumerate(macs):
        _host_pair(seen, "leaf-1", f"p{i}", "node-1", f"eth{i}", mac)
    assert [x.far_ports[0] for x in seen.links] == list(macs)
    assert len(seen.alias_text) == 7 + 17 + 17 + 17 + 17 + 17 + 7


def test_an_uncovered_far_device_is_found_by_each_of_its_names():
    """node-1 has no file of its own: its pairs are found at its end, by its MAC as by its interface name."""
    seen = Seen()
    seen.covered |= {"leaf-1"}
    _host_pair(seen, "leaf-1", "p1_1", "node-1", "eth0", "e6:3a:05:71:ad:f8")
    seen.read()
    assert list(seen.find(("node-1", "eth0"))) == list(seen.find(("node-1", "e6:3a:05:71:ad:f8"))) == [0]
    assert seen.joins(0, ("node-1", "e6:3a:05:71:ad:f8"), ("leaf-1", "p1_1"))
    assert seen.joins(0, ("leaf-1", "p1_1"), ("node-1", "eth0"))
    assert not seen.joins(0, ("leaf-1", "p1_1"), ("node-1", "eth1"))


def test_devices_laid_out_alike_share_one_mapping_and_part_when_one_is_added_to():
    seen = Seen()
    seen.covered |= {"node-1", "node-2"}
    for node in ("node-1", "node-2"):
        for port in ("eth0", "eth1"):
            _host_pair(seen, node, port, "leaf-1", f"p-{node}-{port}", None)
        seen.done(node)
    assert seen.by_end["node-1"] is seen.by_end["node-2"]
    # a second neighbour on node-1's eth0 (a hub), after its file: node-1's own again, node-2's unchanged
    _host_pair(seen, "node-1", "eth0", "leaf-2", "p9", None)
    seen.read()
    assert seen.by_end["node-1"] is not seen.by_end["node-2"]
    assert list(seen.find(("node-1", "eth0"))) == [0, 4] and list(seen.find(("node-2", "eth0"))) == [2]
    assert list(seen.find(("node-2", "eth1"))) == [3] and list(seen.find(("node-1", "eth1"))) == [1]
    # and a third, once node-1's mapping (with its list of two) is shared again
    _host_pair(seen, "node-1", "eth0", "leaf-3", "p9", None)
    assert list(seen.find(("node-1", "eth0"))) == [0, 4, 5]


def test_reading_keeps_no_per_port_table():
    """What reading looked up is dropped once read: the cells' places, the names' keys, the layouts."""
    seen = Seen()
    seen.covered |= {"leaf-1"}
    for i in range(3):
        _host_pair(seen, "leaf-1", f"p{i}", f"node-{i}", "eth0", f"02:00:00:00:00:0{i}")
    seen.read()
    assert not (seen.port_keys or seen.device_keys or seen.port_names or seen.layouts or seen.open or seen.texts)
    assert not any(c.places for c in seen.columns)
    # three pairs: one reporter, three near ports, three far devices, one far port (its MACs are no cells),
    # no speed; each column's table starts with its "no value"
    assert [len(c.cells) - 1 for c in seen.columns] == [1, 3, 3, 1, 0]


def test_a_column_widens_when_a_place_does_not_fit():
    """Places start a byte each and widen to two, then four, keeping every place before."""
    column = Column()
    types = []
    for place in (0, 255, 256, 65_535, 65_536, 3):
        column.append(place)
        types.append(column.at.typecode)
    assert types == ["B", "B", "H", "H", "i", "i"] and list(column.at) == [0, 255, 256, 65_535, 65_536, 3]
    seen = Seen()
    for i in range(300):
        seen.add(("a", ("p",)), (f"d{i}", ("q",)), ("a", "p", f"d{i}", "q"), "f")
    assert (seen.near.at.typecode, seen.far.at.typecode, seen.rates.at.typecode) == ("B", "H", "B")
    assert seen.far.cell("another") == 301 and seen.far.at.typecode == "H"
    big = Column()
    for i in range(65_535):   # places 1 to 65,535 (0 is "no value")
        big.cell(i)
    assert big.at.typecode == "H" and big.cell("one more") == 65_536 and big.at.typecode == "i"
    assert [Link(seen, i).far_device for i in (0, 254, 255, 299)] == ["d0", "d254", "d255", "d299"]


def test_a_device_s_key_is_its_name_where_the_name_is_its_own_key():
    seen = Seen()
    name = "".join(["node", "-1"])
    assert seen.device_key(name) is name
    assert seen.device_key(" Node-1") == "node-1" and seen.device_key(" Node-1") is name
