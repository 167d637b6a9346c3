"""The push's list POSTs, offline (the live NetBox runs them in tests/netbox/test_live.py)."""

from __future__ import annotations

from bom.netbox import push as pu
from bom.netbox.inventory import Inventory
from tests.netbox.test_script import Endpoint


def test_a_list_post_of_devices_stays_inside_gunicorns_worker_timeout():
    """A device with its components costs NetBox about 0.4-0.64 s: a POST of 250 (the batch) would run past
    gunicorn's 120 s timeout, so devices go 50 a POST; other kinds keep the batch, and a smaller --batch wins."""
    ep = Endpoint()
    p = pu.Pusher(None, Inventory(scenario="s"), [], workers=1)  # type: ignore[arg-type]
    p._create("devices", ep, [{}] * 120)
    p._create("cables", ep, [{}] * 300)
    assert [len(c) for c in ep.posts] == [50, 50, 20, pu.BATCH, 300 - pu.BATCH]
    assert max(pu.BATCH_CAP.values()) * 0.64 < 120 / 3   # the slowest device measured, with room for load
    q = pu.Pusher(None, Inventory(scenario="s"), [], batch=10, workers=1)  # type: ignore[arg-type]
    q._create("devices", ep, [{}] * 20)
    assert [len(c) for c in ep.posts[5:]] == [10, 10]
