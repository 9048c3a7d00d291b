"""bfs_query against an independent networkx reference on random graphs."""

from __future__ import annotations

import random

import pytest

from gateway.models import Subgraph
from support.synth import random_graph
from tests.conftest import gateway_from_ntriples, listed_edges, listed_nodes, random_filters
from tests.oracle import existing_nodes, reference_bfs

GRAPHS = 240


def node_hops(result: Subgraph) -> dict[str, int]:
    hops = []
    for hop, count in enumerate(result.hop_counts):
        hops += [hop] * count
    return {node.id: hop for node, hop in zip(listed_nodes(result), hops, strict=True)}


def edge_set(result: Subgraph) -> set[tuple[str, str, str, str | None, str | None]]:
    return {(e.subject, e.predicate, e.object, e.id, e.derived_via) for e in listed_edges(result)}


def random_query(rng: random.Random, nodes: list[str], predicates: list[str] = ()) -> dict[str, object]:  # type: ignore[assignment]
    query: dict[str, object] = {
        "seeds": rng.sample(nodes, k=min(len(nodes), rng.choice([1, 1, 2, 3]))),
        "max_hops": rng.randint(0, 3),
        "direction": rng.choice(["both", "out", "in"]),
        "max_nodes": 10_000,
        "max_edges": 50_000,
    }
    query.update(random_filters(rng))
    if predicates and rng.random() < 0.3:
        query["predicates"] = rng.sample(predicates, k=rng.randint(1, len(predicates)))
    if predicates and rng.random() < 0.2:
        query["exclude_predicates"] = rng.sample(predicates, k=1)
    if rng.random() < 0.4:
        query["expand_traits"] = rng.sample(["Symmetric", "Inverse"], k=rng.randint(1, 2))
    return query


@pytest.mark.parametrize("number", range(GRAPHS))
def test_bfs_matches_networkx(number: int) -> None:
    rng = random.Random(number)
    reified = number % 2 == 1
    graph = random_graph(rng, rng.randint(4, 40), rng.randint(3, 80), reified=reified)
    gateway = gateway_from_ntriples(graph.to_ntriples())
    nodes = sorted(existing_nodes(graph))
    predicates = sorted({st.p for st in graph.statements})
    for _ in range(4):
        query = random_query(rng, nodes, predicates)
        result = gateway.bfs_query(topology_only=True, **query)
        assert isinstance(result, Subgraph)
        hops, edges = reference_bfs(
            graph,
            query["seeds"],  # type: ignore[arg-type]
            query["max_hops"],  # type: ignore[arg-type]
            direction=query["direction"],  # type: ignore[arg-type]
            truth_status=frozenset(query.get("truth_status", ["asserted_true"])),  # type: ignore[arg-type]
            as_of=query.get("as_of"),  # type: ignore[arg-type]
            valid_at=query.get("valid_at"),  # type: ignore[arg-type]
            expand_traits=frozenset(query.get("expand_traits", [])),  # type: ignore[arg-type]
            predicates=set(query["predicates"]) if "predicates" in query else None,  # type: ignore[call-overload]
            exclude_predicates=set(query.get("exclude_predicates", [])),  # type: ignore[call-overload]
        )
        to_id = gateway.context.ids.to_id
        hops = {to_id(n): h for n, h in hops.items()}
        edges = {
            (
                to_id(s),
                to_id(p),
                to_id(o),
                stmt and to_id(stmt),
                d and d.split("(")[0] + f"({to_id(d[len(d.split('(')[0]) + 1 : -1])})",
            )
            for s, p, o, stmt, d in edges
        }
        assert node_hops(result) == hops, query
        stubs = {(s, p, o, None, d) for s, p, o, _, d in edges}
        assert {(s, p, o, None, d) for s, p, o, _, d in edge_set(result)} == stubs, query
        assert not result.truncated
        full = gateway.bfs_query(**query)
        assert edge_set(full) == edges, query


def reference_hidden(graph, query: dict[str, object], hops: dict[str, int]) -> dict[str, int]:  # type: ignore[no-untyped-def]
    """Statements next to expanded nodes that the filters kept the walk from crossing
    (statements of predicates the walk does not take are not counted)."""
    from tests.oracle import is_traversable

    wanted = query.get("predicates")
    unwanted = query.get("exclude_predicates", [])

    max_hops = query["max_hops"]
    direction = query["direction"]
    statuses = frozenset(query.get("truth_status", ["asserted_true"]))  # type: ignore[arg-type]
    expanded = {n for n, h in hops.items() if h < max_hops}  # type: ignore[operator]
    reifiers = {st.id for st in graph.statements if st.id is not None}
    counts: dict[str, int] = {}
    for st in graph.statements:
        if (st.id is None and st.s in reifiers) or (wanted is not None and st.p not in wanted) or st.p in unwanted:  # type: ignore[operator]
            continue
        touches = (
            (direction in ("out", "both") and st.s in expanded)
            or (direction in ("in", "both") and st.o in expanded)
            or (st.id is not None and st.id in expanded)
        )
        if not touches or is_traversable(st, statuses, query.get("as_of"), query.get("valid_at")):  # type: ignore[arg-type]
            continue
        if st.status not in statuses:
            counts["truth_status"] = counts.get("truth_status", 0) + 1
        if not is_traversable(st, frozenset([st.status]), query.get("as_of"), None):  # type: ignore[arg-type]
            counts["as_of"] = counts.get("as_of", 0) + 1
        if not is_traversable(st, frozenset([st.status]), None, query.get("valid_at")):  # type: ignore[arg-type]
            counts["valid_at"] = counts.get("valid_at", 0) + 1
    return dict(sorted(counts.items()))


@pytest.mark.parametrize("number", range(0, GRAPHS, 3))
def test_hidden_counts_match_reference(number: int) -> None:
    rng = random.Random(10_000 + number)
    graph = random_graph(rng, rng.randint(4, 30), rng.randint(3, 60), reified=True)
    gateway = gateway_from_ntriples(graph.to_ntriples())
    nodes = sorted(existing_nodes(graph))
    predicates = sorted({st.p for st in graph.statements})
    for _ in range(4):
        query = random_query(rng, nodes, predicates)
        query.pop("expand_traits", None)
        result = gateway.bfs_query(topology_only=True, **query)
        hops, _ = reference_bfs(
            graph,
            query["seeds"],
            query["max_hops"],
            direction=query["direction"],  # type: ignore[arg-type]
            truth_status=frozenset(query.get("truth_status", ["asserted_true"])),  # type: ignore[arg-type]
            as_of=query.get("as_of"),
            valid_at=query.get("valid_at"),  # type: ignore[arg-type]
            predicates=set(query["predicates"]) if "predicates" in query else None,  # type: ignore[call-overload]
            exclude_predicates=set(query.get("exclude_predicates", [])),  # type: ignore[call-overload]
        )
        assert result.hidden_by_filter == reference_hidden(graph, query, hops), query
