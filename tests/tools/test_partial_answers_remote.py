"""A walk over HTTP whose third hop the endpoint times out on answers its first two hops.

A real `oxigraph serve` holds the demo graph; a small proxy in front of it forwards every
request, except the hop query whose frontier names a chosen node at hop 2 (so, the third
hop's query): that one it answers 504 (a gateway in front of the endpoint gave up), or
holds past the client's read timeout. The oracle is the same walk with two hops, asked of
the server directly.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gateway import Gateway
from gateway.backends.endpoint_config import EndpointConfig
from gateway.backends.remote import RemoteBackend
from gateway.backends.resilience import RetryPolicy
from gateway.models import Subgraph
from gateway.profiles.native import NativeProfile
from support.servers import FaultProxy, OxigraphServer
from tests.conftest import listed_edges, listed_nodes

SEED = "wiki:Sherlock_Holmes"
PREFIXES = {"wiki": "https://example.org/wiki/", "obj": "https://example.org/obj/", "rel": "https://example.org/rel/"}


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
