"""The benchmarks' CSR floor (support/csr.py) answers as networkx does, so its timings
stand for the same work as the gateway's."""

from __future__ import annotations

import random

import networkx as nx
import numpy as np
import pytest

from support.csr import Csr


def _graph(seed: int) -> tuple[np.ndarray, nx.Graph, nx.DiGraph]:
    rng = random.Random(seed)
    n = rng.randint(2, 40)
    edges = np.unique(
        np.array([[rng.randrange(n), rng.randrange(3), rng.randrange(n)] for _ in range(rng.randint(1, 80))]), axis=0
    )
    undirected, directed = nx.Graph(), nx.DiGraph()
    undirected.add_edges_from((s, o) for s, _, o in edges.tolist())
    directed.add_edges_from((s, o) for s, _, o in edges.tolist())
    return edges, undirected, directed


@pytest.mark.parametrize("seed", range(150))
def test_walks_reach_and_distances_equal_networkx(seed: int) -> None:
    edges, undirected, directed = _graph(seed)
    csr = Csr(edges, str, str)
    rng = random.Random(seed)
    a, b = rng.choice(sorted(undirected)), rng.choice(sorted(undirected))
    try:
        expected = nx.shortest_path_length(undirected, a, b)
    except nx.NetworkXNoPath:
        expected = None
    assert csr.distance(a, b, 6) == (expected if expected is not None and expected <= 6 else None)
    assert set(csr.reach(a, inward=False)) == {str(x) for x in nx.descendants(directed, a)}
    assert set(csr.reach(a, inward=True)) == {str(x) for x in nx.ancestors(directed, a)}
    # An unbudgeted 2-hop walk: nodes within 2 hops, edges with an end closer than 2.
    near = nx.single_source_shortest_path_length(undirected, a, cutoff=2)
    nodes, found = csr.bfs(a, 2, 10**6, 10**6)
    assert set(nodes) == {str(x) for x in near}
    assert set(found) == {
        (str(s), str(p), str(o)) for s, p, o in edges.tolist() if s in near and o in near and min(near[s], near[o]) < 2
    }


def test_budgets_cut_the_walk() -> None:
    edges, undirected, _ = _graph(3)
    hub = max(undirected, key=undirected.degree)
    csr = Csr(edges, str, str)
    nodes, found = csr.bfs(hub, 3, 3, 10**6)
    assert len(nodes) == 3
    nodes, found = csr.bfs(hub, 3, 10**6, 2)
    assert len(found) == 2
