"""Every NetBox choice value the export and push use is one the tested NetBox release defines.

Reads ``dcim/choices.py`` of the NetBox installed by scripts/netbox-up.sh (its venv); in CI
(CI=true) a missing NetBox is a failure, elsewhere (and always with BOM_NETBOX=off) a skip.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from bom.netbox import choices

VENV = Path(os.environ.get("BOM_NETBOX_VENV", Path.home() / ".cache/clusterbom" / f"netbox-{choices.TESTED_VERSION}"))


def _source() -> str:
    found = sorted(VENV.glob("lib/python3*/site-packages/dcim/choices.py"))
    if not found:
        msg = f"NetBox {choices.TESTED_VERSION} is not installed in {VENV} (scripts/netbox-up.sh installs it)"
        if os.environ.get("CI") == "true" and os.environ.get("BOM_NETBOX", "on") != "off":
            pytest.fail(msg)
        pytest.skip(msg)
    return found[0].read_text(encoding="utf-8")


def _values(source: str, cls: str) -> set[str]:
    start = source.index(f"class {cls}(")
    end = source.find("\nclass ", start + 1)
    return set(re.findall(r"^\s+[A-Z0-9_]+ = '([^']+)'", source[start:end], re.M))


def test_interface_types():
    assert _values(_source(), "InterfaceTypeChoices") >= choices.INTERFACE_TYPES


def test_cable_types():
    assert _values(_source(), "CableTypeChoices") >= choices.CABLE_TYPES


def test_statuses_and_units():
    src = _source()
    for cls in ("SiteStatusChoices", "LocationStatusChoices", "RackStatusChoices", "DeviceStatusChoices",
                "LinkStatusChoices"):
        assert choices.STATUS in _values(src, cls), cls
    assert choices.LENGTH_UNIT in _values(src, "CableLengthUnitChoices")
    assert choices.FACE in _values(src, "DeviceFaceChoices")


def test_the_installed_release_is_the_tested_one():
    _source()   # skips (or fails in CI) as the other tests do when that NetBox is not installed
    version = (VENV / "lib").glob("python3*/site-packages/netbox-*.dist-info")
    assert any(p.name.startswith(f"netbox-{choices.TESTED_VERSION}.") for p in version)
