"""A walk over HTTP whose third hop the endpoint times out on answers its first two hops.

A real `oxigraph serve` holds the demo graph; a small proxy in front of it forwards every
request, except the hop query whose frontier names a chosen node at hop 2 (so, the third
hop's query): that one it answers 504 (a gateway in front of the endpoint gave up), or
holds past the client's read timeout. The oracle is the same walk with two hops, asked of
the server directly.
"""

from __future__ import annotations

import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

import pytest

from gateway import Gateway
from gateway.backends.endpoint_config import EndpointConfig
from gateway.backends.remote import RemoteBackend
from gateway.backends.resilience import RetryPolicy
from gateway.models import Subgraph
from gateway.profiles.native import NativeProfile
from support.servers import OxigraphServer
from tests.conftest import listed_edges, listed_nodes

HOP = "# One BFS hop"
SEED = "wiki:Sherlock_Holmes"
PREFIXES = {"wiki": "https://example.org/wiki/", "obj": "https://example.org/obj/", "rel": "https://example.org/rel/"}
STALL = 5.0
"""Seconds the proxy holds a stalled answer: well past the client's read timeout."""


class FaultProxy:
    """Forwards to `upstream`; a hop query naming `iri` gets `fault` instead ("504" or "stall")."""

    def __init__(self, upstream: str) -> None:
        self.upstream, self.iri, self.fault = upstream, "", "504"
        self.faults = 0
        self.released = threading.Event()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                query = parse_qs(body.decode("ascii")).get("query", [""])[0]
                if proxy.iri and query.startswith(HOP) and f"<{proxy.iri}>" in query:
                    proxy.faults += 1
                    if proxy.fault == "stall":
                        proxy.released.wait(STALL)
                    self._reply(504, b"upstream timed out", "text/plain")
                    return
                request = urllib.request.Request(proxy.upstream, data=body, method="POST", headers={
                    "Content-Type": self.headers.get("Content-Type", ""), "Accept": self.headers.get("Accept", "")})
                try:
                    with urllib.request.urlopen(request, timeout=30) as answer:
                        self._reply(answer.status, answer.read(), answer.headers.get("Content-Type", ""))
                except urllib.error.HTTPError as error:
                    self._reply(error.code, error.read(), error.headers.get("Content-Type", ""))

            def _reply(self, status: int, body: bytes, kind: str) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", kind)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass  # the client gave up first (the stall): nobody reads this

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/query"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.released.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def proxy(oxigraph_server: OxigraphServer) -> Iterator[FaultProxy]:
    proxy = FaultProxy(oxigraph_server.url)
    yield proxy
    proxy.close()


def remote(url: str, timeout: float = 30.0) -> Gateway:
    # One attempt: a 504 is retried otherwise, and each retry meets the same fault.
    config = EndpointConfig(url, prefixes=PREFIXES, timeout=timeout, retry=RetryPolicy(attempts=1), cache_ttl=0)
    return Gateway(RemoteBackend(config), profile=NativeProfile)


def walked(answer: Subgraph) -> tuple[list[str], list[tuple[str, str, str, str | None]]]:
    return ([n.id for n in listed_nodes(answer)], [(e.subject, e.predicate, e.object, e.id) for e in listed_edges(answer)])


@pytest.mark.parametrize(("fault", "timeout", "deadline", "reason"), [
    ("504", 30.0, None, "endpoint_timeout"),  # a server in front of the endpoint gave up
    ("stall", 1.0, None, "endpoint_timeout"),  # the client's read timeout
    ("stall", 30.0, 3.0, "deadline"),  # the call's deadline, with its reserve left to present the hops
])
def test_the_hops_before_a_timeout_are_answered(
    oxigraph_server: OxigraphServer, proxy: FaultProxy, fault: str, timeout: float, deadline: float | None, reason: str,
) -> None:
    direct = remote(oxigraph_server.url)
    oracle = direct.bfs_query(seeds=[SEED], max_hops=2)
    assert isinstance(oracle, Subgraph) and not oracle.truncated and len(oracle.hop_counts) == 3
    at_hop_2 = listed_nodes(oracle)[-1].id  # nodes are listed by hop: the last is at hop 2
    proxy.iri, proxy.fault, proxy.faults = direct.context.ids.resolve(at_hop_2, "seeds").iri or "", fault, 0
    gateway = remote(proxy.url, timeout=timeout)
    partial = gateway.call("bfs_query", {"seeds": [SEED], "max_hops": 3}, deadline=deadline)
    assert isinstance(partial, Subgraph) and proxy.faults == 1
    assert partial.truncated and partial.truncation is not None
    assert (partial.truncation.reason, partial.truncation.at_hop) == (reason, 3)
    assert partial.truncation.frontier_remaining == oracle.hop_counts[2]
    assert walked(partial) == walked(oracle) and partial.hop_counts == oracle.hop_counts
    cause = "the endpoint timed out" if reason == "endpoint_timeout" else "the call's deadline came"
    assert any(f"{cause} at hop 3: hops 1-2 are complete" in w for w in partial.warnings)
    whole = direct.bfs_query(seeds=[SEED], max_hops=3)
    assert whole.node_count > partial.node_count  # the third hop had more to give
