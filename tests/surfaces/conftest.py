"""A real `bfsql serve` in a subprocess on a free loopback port, and what the tests share."""

from __future__ import annotations

import http.server
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest

from gateway import Gateway

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "data" / "sherlock.trig"
CANON = "https://example.org/graph/canon"
CASEBOOK = "https://example.org/graph/casebook"

EXAMPLES: dict[str, list[dict[str, Any]]] = {
    "describe_schema": [{}],
    "search_entities": [
        {"query": "the woman", "limit": 3},
        {"query": "Holmes", "entity_types": ["sh:Person"]},
        {"query": "zzzz nothing"},
    ],
    "bfs_query": [
        # A point is a string in the schemas (one type for every dialect); a JSON integer is taken too.
        {"seeds": ["wiki:Irene_Adler"], "max_hops": 1, "as_of": "485", "topology_only": True, "layout": "compact"},
        {
            "seeds": ["wiki:Sherlock_Holmes"],
            "max_hops": 2,
            "truth_status": ["asserted_true", "disputed", "hypothetical", "retracted"],
        },
        {
            "seeds": ["wiki:Nonconformist_Clergyman"],
            "max_hops": 1,
            "expand_traits": ["Inverse"],
            "edge_filter": {"predicates": ["DisguisedAs"]},
        },
        {
            "seeds": ["wiki:Irene_Adler", "wiki:Moriarty"],
            "direction": "out",
            "node_filter": {"entity_types": ["sh:Person"]},
            "valid_at": "1890-06-01",
            "max_nodes": 5,
        },
    ],
    "expand_neighbors": [
        {"entity_ids": ["wiki:Irene_Adler"]},
        {
            "entity_ids": ["wiki:Irene_Adler", "wiki:Moriarty"],
            "depth": 2,
            "types": ["sh:Object"],
            "relationship_types": ["Knows", "Possesses"],
            "limit": 30,
            "include_incoming": False,
        },
    ],
    "describe_entity": [{"id": "wiki:Irene_Adler"}, {"id": "https://example.org/wiki/Irene_Adler"}, {"id": "stmt:s13"}],
    "describe_entities": [{"ids": ["stmt:s13", "wiki:Moriarty"]}, {"ids": ["wiki:Dr_Watson"]}],
    "intersect_subgraphs": [
        {"seeds": ["wiki:Sherlock_Holmes", "wiki:Irene_Adler"], "k": 1},
        {"seeds": ["wiki:Sherlock_Holmes", "wiki:Dr_Watson"], "k": 2, "topology_only": True},
    ],
    "transitive_closure_query": [
        {"start": "wiki:Briony_Lodge", "predicate": "rel:PartOf"},
        {"start": "wiki:England", "predicate": "PartOf", "direction": "in", "limit": 2},
    ],
    "scan_query": [{"truth_status": ["disputed", "hypothetical"], "limit": 2}, {"node_types": ["sh:Person"], "limit": 3}],
    "shortest_path": [
        {"source": "wiki:Irene_Adler", "target": "wiki:Dr_Watson"},
        {"source": "wiki:Irene_Adler", "target": "wiki:Moriarty", "max_hops": 2},
    ],
    "communities": [{"seeds": ["wiki:Sherlock_Holmes"], "max_hops": 2}, {"resolution": 2}],
    "answer": [
        {"question": "Who is Irene Adler?"},
        {"question": "What did Irene Adler keep?", "truth_status": ["asserted_true", "hypothetical"]},
    ],
    "tabulate": [
        {"type": "sh:Person", "columns": {"name": "rdfs:label", "home": "rel:LivesAt"},
         "where": [{"column": "home", "op": "exists"}], "order_by": [{"column": "name"}], "limit": 5},
        {"type": "sh:Person", "columns": {"home": "rel:LivesAt", "has": "rel:Possesses"}, "group_by": ["home"],
         "aggregate": {"n": {"fn": "count"}, "things": {"fn": "count_distinct", "of": "has"}},
         "having": [{"column": "n", "op": ">=", "value": 1}], "order_by": [{"column": "n", "descending": True}],
         "truth_status": ["asserted_true", "hypothetical"], "as_of": "600"},
    ],
    "fetch_slice": [
        {"entity_id": "wiki:A_Scandal_in_Bohemia"},
        {"entity_id": "wiki:Irene_Adler", "window": 99, "content_max_chars": 5},
    ],
}
"""Requests the Python API accepts, per tool: every tool is called over HTTP with each."""

REFUSED: list[tuple[str, dict[str, Any]]] = [
    ("bfs_query", {}),
    ("bfs_query", {"seeds": []}),
    ("bfs_query", {"seeds": ["wiki:Irene_Adler"], "bogus": 1}),
    ("bfs_query", {"seeds": ["wiki:Irene_Adler"], "direction": "sideways"}),
    ("bfs_query", {"seeds": ["wiki:Irene_Adler"], "truth_status": ["maybe"]}),
    ("search_entities", {"query": ""}),
    ("describe_entities", {"ids": []}),
    ("fetch_slice", {}),
    ("answer", {"question": ""}),
    ("fetch_slice", {"entity_id": "wiki:Irene_Adler", "window": "wide"}),
    ("intersect_subgraphs", {"seeds": ["wiki:Irene_Adler"]}),
    ("communities", {"resolution": 0}),
    ("describe_entity", {}),
    ("expand_neighbors", {"entity_ids": []}),
    ("describe_entity", {"id": 7}),
    ("tabulate", {"type": "sh:Person", "limit": "all"}),
]
"""Requests the Python API refuses: the published schemas refuse them too."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "fuzz: schemathesis against a served API (minutes); CI runs it")
    config.addinivalue_line("markers", "soak: hostile calls against a served store, timed and weighed (minutes); CI runs it")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Served:
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def client(self, **options: Any) -> httpx2.Client:
        return httpx2.Client(base_url=self.url, timeout=60, **options)

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError(f"the server did not stop within {timeout} s:\n{self.log_text()}") from None


def start_server(directory: Path, *args: str, wait: float = 90) -> Served:
    """`bfsql serve ARGS --port FREE` in a subprocess, once /healthz answers."""
    port = free_port()
    log = directory / f"serve-{port}.log"
    with open(log, "wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "gateway.surfaces.cli", "serve", *args, "--port", str(port)],
            stdout=output,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=ROOT,
        )
    served = Served(process, port, log)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"bfsql serve exited with {process.returncode}:\n{served.log_text()}")
        try:
            if httpx2.get(f"{served.url}/healthz", timeout=2).status_code == 200:
                return served
        except httpx2.TransportError:
            pass
        time.sleep(0.1)
    served.stop(signal.SIGKILL)
    raise AssertionError(f"bfsql serve did not answer /healthz within {wait} s:\n{served.log_text()}")


@pytest.fixture(scope="session")
def demo_gateway() -> Gateway:
    return Gateway.open(DEMO)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The demo graph, served with the defaults."""
    served = start_server(tmp_path_factory.mktemp("serve"))
    yield served
    served.stop()


@pytest.fixture()
def client(server: Served) -> Iterator[httpx2.Client]:
    with server.client() as client:
        yield client


class Listener(http.server.ThreadingHTTPServer):
    """A loopback HTTP server that records every request and answers an empty SPARQL result."""

    hits: list[str]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


@pytest.fixture()
def listener() -> Iterator[Listener]:
    class Answer(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            server.hits.append(self.path)
            body = b'{"head":{"vars":[]},"results":{"bindings":[{}]}}'
            self.send_response(200)
            self.send_header("Content-Type", "application/sparql-results+json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST

        def log_message(self, *args: object) -> None:
            pass

    server = Listener(("127.0.0.1", 0), Answer)
    server.daemon_threads = True
    server.hits = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()
