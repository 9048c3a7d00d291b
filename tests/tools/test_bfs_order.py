"""bfs_query's response order on plain data: nodes by hop then ID, edges by subject,
predicate, object IDs, whether or not the prefixes keep the namespaces' order (edges are
made in IRI order, then sorted by ID: gateway/tools/bfs.py)."""

from __future__ import annotations

import random

import pyoxigraph as ox
import pytest

from gateway import Gateway

NS = ["http://a.example/x/", "http://b.example/", "http://a.example/x/y/", "https://c.example/"]
PREFIX_MAPS = {
    "kept": {"a": NS[0], "b": NS[1], "c": NS[3]},
    "reversed": {"zz": NS[0], "aa": NS[1], "mm": NS[2]},  # "zz:" sorts after "aa:", its IRIs before
    "none": {},
}


def random_store(rng: random.Random) -> ox.Store:
    lines = []
    for _ in range(2000):
        s, o = (f"<{rng.choice(NS)}{rng.randint(0, 200)}>" for _ in range(2))
        lines.append(f"{s} <{rng.choice(NS)}p{rng.randint(0, 5)}> {o} .")
    store = ox.Store()
    store.load("\n".join(lines).encode(), format=ox.RdfFormat.N_TRIPLES)
    return store


@pytest.mark.parametrize("prefixes", list(PREFIX_MAPS), ids=list(PREFIX_MAPS))
def test_edges_and_nodes_come_in_id_order(prefixes: str) -> None:
    rng = random.Random(len(prefixes))
    gateway = Gateway.open(random_store(rng), prefixes=PREFIX_MAPS[prefixes])
    for _ in range(12):
        seed = f"{rng.choice(NS)}{rng.randint(0, 200)}"
        answer = gateway.bfs_query(seeds=[seed], max_hops=rng.choice([1, 2]), topology_only=rng.random() < 0.5,
                                   max_nodes=rng.choice([50, 1000]))
        edges = [(e["subject"], e["predicate"], e["object"]) for e in answer.model_dump()["edges"]]
        assert edges and edges == sorted(set(edges))
        nodes = [n["id"] for n in answer.model_dump()["nodes"]]
        start = 0
        for count in answer.hop_counts:  # hop by hop, each in ID order
            assert nodes[start : start + count] == sorted(nodes[start : start + count])
            start += count
        assert start == len(nodes) == len(set(nodes))
