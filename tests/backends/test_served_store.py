"""A store directory a server has open is not loaded into: the server's read-only store sees
the data as it was when it opened, so a load beside it would leave it answering from the old
quads and the new search index at once (search finding what describe calls not in the graph)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyoxigraph as ox
import pyshacl

from gateway import Gateway
from gateway.errors import InvalidInput
from gateway.loading import load_store
from tests.conftest import DEMO, ROOT
from tests.surfaces.conftest import start_server

SHACL = Path(pyshacl.__file__).parent / "assets" / "shacl.ttl"  # data the project did not write
NODE_SHAPE = "http://www.w3.org/ns/shacl#NodeShape"


def _load(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gateway.surfaces.cli", "load", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})


def _generation(store: Path) -> str:
    return str(json.loads((store / "meta.json").read_text(encoding="utf-8"))["generation"])


def test_a_served_store_refuses_a_load_and_takes_it_once_the_server_stops(tmp_path: Path) -> None:
    store = tmp_path / "S"
    assert _load(str(DEMO), "--store", str(store)).returncode == 0
    generation = _generation(store)
    served = start_server(tmp_path, str(store), "--on-disk")
    try:
        refused = _load(str(SHACL), "--store", str(store))
        assert refused.returncode == 2  # the CLI's exit for input it refuses
        assert f"being served by pid {served.process.pid}" in refused.stderr
        assert _generation(store) == generation  # nothing of the store was touched
        with served.client() as client:
            found = client.post("/v1/tools/search_entities", json={"query": "NodeShape"})
            assert found.status_code == 200
            assert NODE_SHAPE not in found.text
    finally:
        served.stop()
    assert _load(str(SHACL), "--store", str(store)).returncode == 0
    # The oracle: the quads of both files, as pyoxigraph reads them on its own.
    oracle = ox.Store()
    oracle.load(path=str(DEMO), format=ox.RdfFormat.TRIG)
    oracle.load(path=str(SHACL), format=ox.RdfFormat.TURTLE)
    assert len(ox.Store.read_only(str(store / "store"))) == len(oracle)


def test_the_mark_goes_with_the_backend(tmp_path: Path) -> None:
    """Closed, a gateway no longer holds the store; a load in its own process is not refused
    (one process may open a store and load into it in turn, as the tests do)."""
    store = tmp_path / "S"
    load_store([DEMO], store, show_progress=False)
    gateway = Gateway.open(store)
    load_store([SHACL], store, show_progress=False)  # this process's own mark
    gateway.close()
    assert _load(str(SHACL), "--store", str(store)).returncode == 0


def test_a_load_into_a_store_served_elsewhere_names_the_field(tmp_path: Path) -> None:
    store = tmp_path / "S"
    load_store([DEMO], store, show_progress=False)
    served = start_server(tmp_path, str(store), "--on-disk")
    try:
        try:
            load_store([SHACL], store, show_progress=False)
        except InvalidInput as error:
            assert error.field == "store"
            assert str(served.process.pid) in str(error)
        else:
            raise AssertionError("a load into a served store was not refused")
    finally:
        served.stop()
