"""intersect_subgraphs, transitive_closure_query and shortest_path against networkx."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

import networkx as nx
import pytest

from gateway import Gateway
from support.synth import predicate, random_graph
from tests.conftest import gateway_from_ntriples, random_filters
from tests.oracle import (
    existing_nodes,
    navigation_graph,
    reference_bfs,
    reference_closure,
    structural_edges,
    traversable_edges,
)

GRAPHS = 210


def oracle_filters(chosen: dict[str, object]) -> dict[str, object]:
    return {
        "truth_status": frozenset(chosen.get("truth_status", ["asserted_true"])),  # type: ignore[arg-type]
        "as_of": chosen.get("as_of"),
        "valid_at": chosen.get("valid_at"),
    }


def setup(number: int) -> tuple[random.Random, object, Gateway, list[str], Callable[[str], str]]:
    rng = random.Random(number)
    graph = random_graph(rng, rng.randint(4, 35), rng.randint(3, 70), reified=number % 2 == 1)
    gateway = gateway_from_ntriples(graph.to_ntriples())
    return rng, graph, gateway, sorted(existing_nodes(graph)), gateway.context.ids.to_id


@pytest.mark.parametrize("number", range(GRAPHS))
def test_intersection_matches_networkx(number: int) -> None:
    rng, graph, gateway, nodes, to_id = setup(number)
    for _ in range(3):
        seeds = rng.sample(nodes, k=min(len(nodes), rng.randint(2, 3)))
        k = rng.randint(1, 3)
        direction = rng.choice(["both", "out", "in"])
        chosen = random_filters(rng)
        result = gateway.intersect_subgraphs(seeds=seeds, k=k, direction=direction, topology_only=True,
                                             max_nodes=10_000, max_edges=50_000, **chosen)
        per_seed = {s: reference_bfs(graph, [s], k, direction=direction, **oracle_filters(chosen))[0] for s in seeds}  # type: ignore[arg-type]
        common = set.intersection(*(set(h) for h in per_seed.values()))
        expected = {to_id(n): {to_id(s): per_seed[s][n] for s in seeds} for n in common}
        assert {n.id: n.distances for n in result.nodes} == expected, (seeds, k, direction, chosen)
        f = oracle_filters(chosen)
        edges = traversable_edges(graph, f["truth_status"], f["as_of"], f["valid_at"], frozenset())  # type: ignore[arg-type]
        edges |= structural_edges(graph, f["truth_status"], f["as_of"], f["valid_at"])  # type: ignore[arg-type]
        among = {(to_id(s), to_id(p), to_id(o)) for s, p, o, _, _ in edges if s in common and o in common}
        assert {(e.subject, e.predicate, e.object) for e in result.edges} == among


@pytest.mark.parametrize("number", range(GRAPHS))
def test_closure_matches_networkx(number: int) -> None:
    rng, graph, gateway, nodes, to_id = setup(number)
    for _ in range(4):
        start = rng.choice(nodes)
        p = predicate(rng.randint(0, 3))
        direction = rng.choice(["out", "in", "both"])
        chosen = random_filters(rng)
        result = gateway.transitive_closure_query(start=start, predicate=p, direction=direction, **chosen)
        expected = reference_closure(graph, start, p, direction, **oracle_filters(chosen))  # type: ignore[arg-type]
        if not result.warnings:  # a predicate absent from this graph is a warning and an empty answer
            assert set(result.reachable) == {to_id(x) for x in expected}, (start, p, direction, chosen)
        else:
            assert not expected and not result.reachable


def oracle_path(
    graph: object,
    source: str,
    target: str,
    max_hops: int,
    direction: str,
    chosen: dict[str, object],
    predicates: list[str] | None,
    to_id: Callable[[str], str],
) -> list[tuple[str, ...]] | None:
    f = oracle_filters(chosen)
    edges = traversable_edges(graph, f["truth_status"], f["as_of"], f["valid_at"], frozenset())  # type: ignore[arg-type]
    structural = structural_edges(graph, f["truth_status"], f["as_of"], f["valid_at"])  # type: ignore[arg-type]
    if predicates is not None:
        edges = {e for e in edges if e[1] in predicates}
        structural = set()
    nav = navigation_graph(existing_nodes(graph), edges, structural, direction)  # type: ignore[arg-type]
    try:
        paths = list(nx.all_shortest_paths(nav, source, target))
    except nx.NetworkXNoPath:
        return None
    if len(paths[0]) - 1 > max_hops:
        return None

    def step_key(edge: tuple[str, str, str, str | None, str | None], after: str) -> tuple[str, str, str, str]:
        return (to_id(edge[1]), to_id(after), to_id(edge[3]) if edge[3] else "", to_id(edge[0]))

    best = None
    for path in paths:
        steps = []
        for u, v in itertools.pairwise(path):
            edge = min(nav[u][v], key=lambda e: step_key(e, v))
            steps.append(
                (step_key(edge, v), (to_id(edge[0]), to_id(edge[1]), to_id(edge[2]), to_id(edge[3]) if edge[3] else None))
            )
        keyed = tuple(k for k, _ in steps)
        if best is None or keyed < best[0]:
            best = (keyed, [e for _, e in steps])
    return best[1]  # type: ignore[index]


@pytest.mark.parametrize("number", range(GRAPHS))
def test_shortest_path_matches_networkx_and_the_tie_rule(number: int) -> None:
    rng, graph, gateway, nodes, to_id = setup(number)
    for _ in range(4):
        source, target = rng.sample(nodes, k=2) if len(nodes) > 1 else (nodes[0], nodes[0])
        if source == target:
            continue
        max_hops = rng.randint(1, 5)
        direction = rng.choice(["both", "out", "in"])
        chosen = random_filters(rng)
        predicates = sorted({predicate(rng.randint(0, 3)) for _ in range(2)}) if rng.random() < 0.3 else None
        extra = {"predicates": predicates} if predicates else {}
        result = gateway.shortest_path(source=source, target=target, max_hops=max_hops, direction=direction, **chosen, **extra)
        reifiers = {st.id for st in graph.statements if st.id}  # type: ignore[attr-defined]
        known = {st.p for st in graph.statements if st.id or st.s not in reifiers}  # type: ignore[attr-defined]
        usable = None if predicates is None else [p for p in predicates if p in known]
        expected = oracle_path(graph, source, target, max_hops, direction, chosen, usable, to_id)
        if expected is None:
            assert not result.found and result.reason, (source, target, max_hops, direction, chosen)
            continue
        assert result.found and result.hops == len(expected), (source, target, max_hops, direction, chosen)
        assert [(e.subject, e.predicate, e.object, e.id) for e in result.edges] == expected
