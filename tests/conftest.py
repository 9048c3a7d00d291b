"""Shared fixtures: the demo graph and graphs built from synthetic statements."""

from __future__ import annotations

import os
import random
import shutil
import tempfile
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path

import pyoxigraph as ox
import pytest

from gateway import Gateway
from gateway.models import Edge, Node, Subgraph
from support.servers import OxigraphServer, VirtuosoServer

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "data" / "sherlock.trig"
SHARED_DATA = ROOT.parent / "shared" / "data"


_SCRATCH: list[str] = []


def pytest_sessionfinish(session: pytest.Session) -> None:
    """A test run leaves nothing behind in the temp directory (a thousand runs left a thousand pairs)."""
    for directory in _SCRATCH:
        shutil.rmtree(directory, ignore_errors=True)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Keep the deployment key (scan cursors) and the statistics cache of the gateways and
    servers the tests start out of the user's home: the test run's own, shared by every process."""
    for variable, prefix in (("XDG_DATA_HOME", "bfsql-test-data-"), ("XDG_CACHE_HOME", "bfsql-test-cache-")):
        os.environ[variable] = tempfile.mkdtemp(prefix=prefix)
        _SCRATCH.append(os.environ[variable])
    os.environ.pop("BFSQL_CURSOR_KEY", None)
    # `answer` on every surface: a scripted chat-completions server (tests/llm_server.py) is
    # the configured model of every gateway and server the tests start.
    from tests.llm_server import ChatServer, Script

    chat = ChatServer(Script(wanted=("Irene",)))
    os.environ["BFSQL_LLM_URL"], os.environ["BFSQL_LLM_MODEL"] = chat.url, "scripted"
    os.environ.pop("BFSQL_LLM_API_KEY", None)


@pytest.fixture(scope="session")
def demo() -> Gateway:
    return Gateway.open(DEMO)


def gateway_from_ntriples(text: str) -> Gateway:
    store = ox.Store()
    store.load(text.encode(), format=ox.RdfFormat.N_TRIPLES)
    return Gateway.open(store)


def listed_nodes(result: Subgraph) -> list[Node]:
    """A default-layout walk's nodes, stubs (plain dicts) made into models like the rest."""
    return [n if isinstance(n, Node) else Node(**n) for n in result.nodes]  # type: ignore[union-attr]


def listed_edges(result: Subgraph) -> list[Edge]:
    """A default-layout walk's edges, stubs (plain dicts) made into models like the rest."""
    return [e if isinstance(e, Edge) else Edge(**e) for e in result.edges]  # type: ignore[union-attr]


def random_filters(rng: random.Random) -> dict[str, object]:
    """Traversal filters for a random query: sometimes statuses, a cutoff, a point in time."""
    from support.synth import STATUSES

    chosen: dict[str, object] = {}
    if rng.random() < 0.5:
        chosen["truth_status"] = sorted(rng.sample(STATUSES, k=rng.randint(1, len(STATUSES))))
    if rng.random() < 0.3:
        chosen["as_of"] = rng.randint(0, 100)
    if rng.random() < 0.3:
        chosen["valid_at"] = rng.randint(0, 100)
    return chosen


def shared_data(*parts: str) -> Path:
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent (the shared data folder is not beside this checkout)")
    return path


@pytest.fixture(scope="session")
def medlit_gateway() -> Gateway:
    """The medlit bundle, imported in memory (the book's graph)."""
    from gateway.importers.bundle import open_bundle

    return open_bundle(shared_data("medlit"))


# -- remote endpoints: real servers on 127.0.0.1 (support/servers.py) -----------------------
CANON = "https://example.org/graph/canon"
CASEBOOK = "https://example.org/graph/casebook"
PLAIN_GRAPH = "https://example.org/graph/plain"
DEMO_GRAPHS = (CANON, CASEBOOK)


@cache
def demo_reification() -> str:
    """The demo graph as reification-profile N-Quads (statement nodes, same named graphs)."""
    from gateway.profiles.reification import native_to_reification

    return native_to_reification(DEMO)


@cache
def demo_plain() -> str:
    """The demo's asserted triples with no statement model, as N-Quads in PLAIN_GRAPH."""
    store = ox.Store()
    store.load(path=DEMO, format=ox.RdfFormat.TRIG)
    reifiers = {q.subject for q in store if q.predicate.value.endswith("#reifies")}
    plain = [
        ox.Quad(q.subject, q.predicate, q.object, ox.NamedNode(PLAIN_GRAPH))
        for q in store
        if q.subject not in reifiers and not isinstance(q.object, ox.Triple)
    ]
    return ox.serialize(plain, format=ox.RdfFormat.N_QUADS).decode("utf-8")


@pytest.fixture(scope="session")
def oxigraph_server() -> Iterator[OxigraphServer]:
    """`oxigraph serve` over the demo graph (native RDF 1.2), union default graph."""
    server = OxigraphServer([DEMO])
    yield server
    server.stop()


@pytest.fixture(scope="session")
def virtuoso_server() -> Iterator[VirtuosoServer]:
    """Virtuoso 7 holding the demo converted to the reification profile, and its plain twin."""
    server = VirtuosoServer(demo_reification() + demo_plain())
    yield server
    server.stop()


WIKIDATA_GRAPH = "https://example.org/graph/q42"
"""Where Virtuoso holds a Wikidata export (it keeps no graph-less triples)."""


@pytest.fixture(scope="session")
def wikidata_endpoints() -> Iterator[Callable[[str], tuple[str, list[str] | None]]]:
    """Real Wikidata RDF (Q42.ttl) in `oxigraph serve` and Virtuoso, each started on first
    use (a missing server skips its tests): name -> (endpoint URL, graphs to read)."""
    started: dict[str, OxigraphServer | VirtuosoServer] = {}
    path = shared_data("wikidata", "Q42.ttl")

    def endpoint(name: str) -> tuple[str, list[str] | None]:
        if name not in started:
            if name == "virtuoso":
                store = ox.Store()
                store.load(path=str(path), format=ox.RdfFormat.TURTLE)
                quads = [ox.Quad(q.subject, q.predicate, q.object, ox.NamedNode(WIKIDATA_GRAPH)) for q in store]
                started[name] = VirtuosoServer(ox.serialize(quads, format=ox.RdfFormat.N_QUADS).decode())
            else:
                started[name] = OxigraphServer([path])
        return started[name].url, [WIKIDATA_GRAPH] if name == "virtuoso" else None

    yield endpoint
    for server in started.values():
        server.stop()
