"""Where the shipped data (catalogs, templates, scenarios) lives, in a checkout or installed."""

from __future__ import annotations

from pathlib import Path

_CHECKOUT = Path(__file__).resolve().parent.parent
_INSTALLED = Path(__file__).resolve().parent / "_data"


def data_dir(name: str) -> Path:
    """``catalogs``, ``templates`` or ``scenarios``: the checkout's folder, else the wheel's copy."""
    if (_CHECKOUT / "pyproject.toml").is_file() and (_CHECKOUT / name).is_dir():
        return _CHECKOUT / name
    if (_INSTALLED / name).is_dir():
        return _INSTALLED / name
    raise FileNotFoundError(f"clusterbom's {name} folder is missing from the installation")
