"""Budgets are clamped and reported; a hub cannot make a hop read more than budget+1 rows."""

from __future__ import annotations

import pyoxigraph as ox
import pytest

from gateway import Gateway
from gateway.models import Subgraph

HUB = "http://example.org/hub"
FANOUT = 100_000


def star(reified: bool) -> str:
    lines = []
    for i in range(FANOUT):
        triple = f"<{HUB}> <http://example.org/links> <http://example.org/leaf/{i}>"
        lines.append(f"{triple} .")
        if reified:
            lines.append(
                f"<http://example.org/s/{i}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( {triple} )>> ."
            )
            lines.append(f"<http://example.org/s/{i}> <https://w3id.org/bfsql#truthStatus> <https://w3id.org/bfsql#asserted_true> .")
    return "\n".join(lines)


@pytest.mark.parametrize("reified", [False, True], ids=["plain", "reified"])
def test_hub_with_100k_edges_is_cut_at_the_edge_budget(reified: bool) -> None:
    store = ox.Store()
    store.load(star(reified).encode(), format=ox.RdfFormat.N_TRIPLES)
    gateway = Gateway.open(store)
    hop_rows: list[int] = []
    gateway.backend.query_log = lambda q, rows: hop_rows.append(rows) if "One BFS hop" in q else None  # type: ignore[attr-defined]
    result = gateway.bfs_query(seeds=[HUB], max_hops=2, max_edges=1000, max_nodes=10_000, topology_only=True)
    assert isinstance(result, Subgraph)
    assert result.edge_count == len(result.edges) <= 1000
    assert result.truncated and result.truncation is not None
    assert result.truncation.reason == "max_edges" and result.truncation.at_hop == 1
    assert result.limits.max_edges == 1000
    assert hop_rows and max(hop_rows) <= 1001


def test_budgets_are_clamped_and_reported(demo: Gateway) -> None:
    result = demo.bfs_query(seeds=["wiki:Sherlock_Holmes"], max_hops=99, max_nodes=10**9, max_edges=-5)
    limits = demo.context.settings
    assert result.limits.max_hops == limits.max_hops
    assert result.limits.max_nodes == limits.max_nodes
    assert result.limits.max_edges == 0
    assert result.truncated and result.truncation and result.truncation.reason == "max_edges"


def test_node_budget_cuts_and_says_so(demo: Gateway) -> None:
    result = demo.bfs_query(seeds=["wiki:Sherlock_Holmes"], max_hops=2, max_nodes=5)
    assert result.node_count == 5
    assert result.truncated and result.truncation and result.truncation.reason == "max_nodes"
    ids = {n.id for n in result.nodes}
    assert all(e.subject in ids and e.object in ids for e in result.edges)  # type: ignore[union-attr]
