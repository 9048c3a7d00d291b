"""Where the project's data files live (beside the package in a checkout, inside it in a
wheel), and which version of it is installed."""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


@cache
def resource_dir(name: str) -> Path:
    """The directory `vocab`, `queries` or `data`, installed or in a checkout."""
    for candidate in (_PACKAGE / "_resources" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"the gateway's {name}/ directory is missing from this installation")


def package_version() -> str:
    """The installed distribution's version ("0+unknown" in a checkout never installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("bfsql-gateway")
    except PackageNotFoundError:
        return "0+unknown"


def demo_path() -> Path:
    """The demo graph (`data/sherlock.trig`), what every command opens when given no data."""
    return resource_dir("data") / "sherlock.trig"
