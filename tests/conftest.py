"""Shared fixtures: the demo graph and graphs built from synthetic statements."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest

from gateway import Gateway

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "data" / "sherlock.trig"
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def demo() -> Gateway:
    return Gateway.open(DEMO)


def gateway_from_ntriples(text: str) -> Gateway:
    store = ox.Store()
    store.load(text.encode(), format=ox.RdfFormat.N_TRIPLES)
    return Gateway.open(store)


def shared_data(*parts: str) -> Path:
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent (the shared data folder is not beside this checkout)")
    return path
