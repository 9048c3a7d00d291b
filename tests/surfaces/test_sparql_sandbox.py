"""The /sparql sandbox on its own: real worker processes over a real pyoxigraph store.

These call `Sandbox.run` directly, past the text checks of the endpoint, to show that
the sandbox holds by itself: no network, crashes and runaways contained, memory bounded.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest

from gateway.errors import EndpointTimeout, TooLarge, Unavailable, UpstreamError
from gateway.surfaces.sparql_endpoint import run_query, store_opener
from gateway.surfaces.sparql_sandbox import Sandbox, SandboxLimits
from tests.surfaces.conftest import Listener

EX = "http://example.org/"
CARTESIAN = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"


def _store(size: int = 300) -> ox.Store:
    store = ox.Store()
    store.extend(ox.Quad(ox.NamedNode(f"{EX}s{i}"), ox.NamedNode(f"{EX}p{i % 7}"), ox.Literal(f"value {i}"))
                 for i in range(size))
    return store


def _request(query: str, **fields: Any) -> dict[str, Any]:
    return {"query": query, "dataset": {"use_default_graph_as_union": True}, "accept": None,
            "max_bytes": 1_000_000, **fields}


def _run(sandbox: Sandbox, query: str) -> tuple[dict[str, Any], bytes]:
    return asyncio.run(sandbox.run(_request(query)))


@pytest.fixture()
def sandbox(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    limits = getattr(request, "param", SandboxLimits(workers=1, deadline=3, queue_wait=1, memory_bytes=256 << 20))
    store = _store()
    box = Sandbox(store_opener(store, None), run_query, limits)
    yield box
    box.close()


def _pids(box: Sandbox) -> list[int]:
    queue = box._queue()
    return sorted(w.pid for w in queue._queue if w is not None)  # type: ignore[attr-defined]


def test_answers_come_from_the_store(sandbox: Sandbox) -> None:
    header, body = _run(sandbox, "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
    assert header["media"] == "application/sparql-results+json"
    assert b'"300"' in body


def test_a_worker_reaches_no_network(sandbox: Sandbox, listener: Listener) -> None:
    target = f"{listener.url}/sparql"
    direct = _store(1)
    list(direct.query(f"SELECT * WHERE {{ SERVICE <{target}> {{ ?s ?p ?o }} }}"))  # type: ignore[call-overload]
    assert listener.hits  # outside the sandbox, pyoxigraph does reach the listener
    listener.hits.clear()
    header, _ = _run(sandbox, f"SELECT * WHERE {{ SERVICE <{target}> {{ ?s ?p ?o }} }}")
    assert header["refused"] == "failed" and "unreachable" in header["message"].lower()
    _run(sandbox, f"SELECT * WHERE {{ SERVICE SILENT <{target}> {{ ?s ?p ?o }} }}")
    assert listener.hits == []


def test_a_runaway_query_is_stopped_at_its_deadline(sandbox: Sandbox) -> None:
    before = _pids(sandbox)
    with pytest.raises(EndpointTimeout):
        _run(sandbox, CARTESIAN)
    assert _pids(sandbox) != before  # the worker was killed and replaced
    header, _ = _run(sandbox, "ASK { ?s ?p ?o }")
    assert header["media"] == "application/sparql-results+json"


def test_a_crash_takes_only_the_worker(sandbox: Sandbox) -> None:
    nested = "SELECT * WHERE " + "{" * 5000 + " ?s ?p ?o " + "}" * 5000  # past the endpoint's own check
    with pytest.raises(UpstreamError, match="crashed its sandbox"):
        _run(sandbox, nested)
    header, _ = _run(sandbox, "ASK { ?s ?p ?o }")
    assert header["media"] == "application/sparql-results+json"


@pytest.mark.parametrize("sandbox", [SandboxLimits(workers=1, deadline=20, memory_bytes=64 << 20)], indirect=True)
def test_memory_is_bounded(sandbox: Sandbox) -> None:
    with pytest.raises(TooLarge, match="64 MiB"):
        _run(sandbox, "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i } ORDER BY ?c ?f ?i LIMIT 1")
    header, _ = _run(sandbox, "ASK { ?s ?p ?o }")
    assert header["media"] == "application/sparql-results+json"


@pytest.mark.parametrize("sandbox", [SandboxLimits(workers=1, recycle_bytes=1)], indirect=True)
def test_a_worker_that_grew_is_replaced(sandbox: Sandbox) -> None:
    first = _pids(sandbox)
    _run(sandbox, "SELECT * WHERE { ?s ?p ?o } ORDER BY ?o")
    assert _pids(sandbox) != first


@pytest.mark.parametrize("sandbox", [SandboxLimits(workers=1, deadline=3, queue_wait=0.5)], indirect=True)
def test_a_query_waits_briefly_for_a_worker_then_is_told_when_to_retry(sandbox: Sandbox) -> None:
    async def both() -> list[Any]:
        slow = asyncio.create_task(sandbox.run(_request(CARTESIAN)))
        await asyncio.sleep(0.2)
        quick = asyncio.create_task(sandbox.run(_request("ASK {}")))
        return await asyncio.gather(slow, quick, return_exceptions=True)

    slow, quick = asyncio.run(both())
    assert isinstance(slow, EndpointTimeout)
    assert isinstance(quick, Unavailable) and quick.retry_after is not None and quick.retry_after >= 1


def test_an_on_disk_store_is_opened_read_only_by_each_worker(tmp_path: Path) -> None:
    directory = tmp_path / "store"
    store = ox.Store(str(directory))
    store.extend(_store(50).quads_for_pattern(None, None, None))
    store.flush()
    del store
    box = Sandbox(store_opener(ox.Store.read_only(str(directory)), str(directory)), run_query,
                  SandboxLimits(workers=2, deadline=10))
    try:
        _header, body = _run(box, "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
        assert b'"50"' in body
    finally:
        box.close()
