"""Budgets are clamped and reported; a hub cannot make a hop read more than budget+1 rows."""

from __future__ import annotations

import pyoxigraph as ox
import pytest

from gateway import Gateway
from gateway.engine.walk import HIDDEN_CAP
from gateway.models import Subgraph
from tests.conftest import listed_edges, listed_nodes

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
            lines.append(
                f"<http://example.org/s/{i}> <https://w3id.org/bfsql#truthStatus> <https://w3id.org/bfsql#asserted_true> ."
            )
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
    # A hop reads at most the edges left + 1 traversable rows, plus the hidden count's cap
    # (one query reads both; see NativeProfile.hop_and_hidden).
    assert hop_rows and max(hop_rows) <= 1001 + HIDDEN_CAP


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
    ids = {n.id for n in listed_nodes(result)}
    assert all(e.subject in ids and e.object in ids for e in listed_edges(result))  # type: ignore[union-attr]


def star_of_stars(arms: int, leaves: int) -> Gateway:
    """A centre with `arms` neighbours (a00, a01, ...), each with `leaves` leaves of its own."""
    lines = []
    for a in range(arms):
        lines.append(f"<{HUB}> <http://example.org/links> <http://example.org/a{a:02}> .")
        lines += [
            f"<http://example.org/a{a:02}> <http://example.org/links> <http://example.org/a{a:02}/{n}> ." for n in range(leaves)
        ]
    store = ox.Store()
    store.load("\n".join(lines).encode(), format=ox.RdfFormat.N_TRIPLES)
    return Gateway.open(store)


def test_a_wide_frontier_uncut_is_walked_whole() -> None:
    result = star_of_stars(100, 5).bfs_query(seeds=[HUB], max_hops=2, topology_only=True)
    assert (result.node_count, result.edge_count, result.hop_counts, result.truncated) == (601, 600, [1, 100, 500], False)


def test_a_wide_frontier_stops_at_the_slice_where_the_budget_fills() -> None:
    """Frontier nodes are expanded in IRI order, 16 first: the node budget fills there, and
    the nodes after them are neither expanded nor read."""
    gateway = star_of_stars(100, 5)
    backend = gateway.backend
    result = gateway.bfs_query(seeds=[HUB], max_hops=2, max_nodes=1 + 100 + 30, topology_only=True)
    assert result.node_count == 131 and result.edge_count == 130
    assert result.truncation is not None and result.truncation.reason == "max_nodes"
    assert (result.truncation.at_hop, result.truncation.frontier_remaining) == (2, 100)
    reached = {n.id for n in listed_nodes(result) if n.id.count("/") == 4}  # type: ignore[union-attr]
    assert reached == {f"http://example.org/a{a:02}/{n}" for a in range(6) for n in range(5)}  # the first 6 arms, in order
    before = backend.rows_read  # type: ignore[attr-defined]
    gateway.bfs_query(seeds=[HUB], max_hops=2, max_nodes=131, topology_only=True)
    assert backend.rows_read - before <= 1 + 100 + 16 * 6  # the seed's hop, then one slice of 16 arms


def test_a_hop_cut_by_its_limit_on_rows_it_does_not_cross_says_so() -> None:
    """A statement hop whose LIMIT was reached by rows the walk does not cross (rdf:type)
    admits the few it crosses, and the walk is cut there all the same."""
    rdf_type = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
    lines = [f"<{HUB}> {rdf_type} <http://example.org/class/{i}> ." for i in range(20)]
    triple = f"<{HUB}> <http://example.org/links> <http://example.org/leaf/0>"
    lines += [f"{triple} .", f"<http://example.org/s/0> <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( {triple} )>> ."]
    store = ox.Store()
    store.load("\n".join(lines).encode(), format=ox.RdfFormat.N_TRIPLES)
    result = Gateway.open(store).bfs_query(seeds=[HUB], max_hops=2, max_edges=3, topology_only=True)
    assert isinstance(result, Subgraph)
    assert result.edge_count <= 1
    assert result.truncated and result.truncation is not None and result.truncation.reason == "max_edges"
