"""`bfsql demo`: a short guided session on the demo graph, each step with what it shows."""

from __future__ import annotations

from gateway.api import Gateway
from gateway.demos import show_step
from gateway.models import Node, Subgraph


def _ids(result: Subgraph) -> set[str]:
    return {node.id for node in result.nodes if isinstance(node, Node)}


def _layers(result: Subgraph) -> dict[str, list[str]]:
    levels = [h for h, count in enumerate(result.hop_counts) for _ in range(count)]
    layers: dict[str, list[str]] = {}
    for node, hop in zip(result.nodes, levels, strict=True):
        layers.setdefault(f"hop {hop}", []).append(node.id if isinstance(node, Node) else str(node))
    return layers


def run_demo(gateway: Gateway) -> None:
    schema = gateway.describe_schema()
    show_step(
        "1. Orient", "describe_schema()",
        "The vocabulary comes from the graph itself: no predicate has to be guessed.",
        {"graph": schema.graph_description, "entity_types": [t.id for t in schema.entity_types],
         "predicates": [f"{p.id} ({p.count})" + (f" {p.traits}" if p.traits else "") for p in schema.predicates],
         "truth_statuses": schema.truth_statuses},
    )
    search = gateway.search_entities("The Woman")
    show_step(
        "2. Resolve a name", 'search_entities("The Woman")',
        "A synonym resolves to the canonical ID; the ID is what every other tool takes.",
        [h.model_dump() for h in search.results[:3]],
    )
    survey = gateway.bfs_query(seeds=["wiki:Irene_Adler"], max_hops=2, topology_only=True)
    assert isinstance(survey, Subgraph)
    show_step(
        "3. Survey the topology", 'bfs_query(seeds=["wiki:Irene_Adler"], max_hops=2, topology_only=True)',
        f"{survey.node_count} nodes, {survey.edge_count} edges as stubs. hidden_by_filter counts the "
        "statements the default truth_status kept the walk from crossing.",
        {"layers": _layers(survey), "hidden_by_filter": survey.hidden_by_filter},
    )
    wide = gateway.bfs_query(
        seeds=["wiki:Irene_Adler"], max_hops=2, topology_only=True,
        truth_status=["asserted_true", "disputed", "hypothetical", "retracted"],
    )
    assert isinstance(wide, Subgraph)
    new = sorted(_ids(wide) - _ids(survey))
    show_step(
        "4. Widen the truth status", "... truth_status=[asserted_true, disputed, hypothetical, retracted]",
        "Uncertain claims are opt-in: widening the traversal filter changes the topology.",
        {"node_count": wide.node_count, "edge_count": wide.edge_count, "new_nodes": new},
    )
    before = gateway.bfs_query(seeds=["wiki:Irene_Adler"], max_hops=1, as_of=485, topology_only=True)
    show_step(
        "5. Go back in time", 'bfs_query(seeds=["wiki:Irene_Adler"], max_hops=1, as_of=485)',
        "Statements asserted after sentence 485 are not reachable: the photograph is not yet hers.",
        {"nodes": [n.id for n in before.nodes], "hidden_by_filter": before.hidden_by_filter},  # type: ignore[union-attr]
    )
    entity = gateway.describe_entity("https://example.org/wiki/Irene_Adler")
    show_step(
        "6. Expand one stub", 'describe_entity("https://example.org/wiki/Irene_Adler")',
        "A URL is canonicalized to its CURIE; full data is paid for only where it is wanted.",
        entity.model_dump(exclude_none=True),
    )
    mirrored = gateway.bfs_query(
        seeds=["wiki:Nonconformist_Clergyman"], max_hops=1, expand_traits=["Inverse"], topology_only=True,
    )
    show_step(
        "7. Traits", 'bfs_query(seeds=["wiki:Nonconformist_Clergyman"], max_hops=1, expand_traits=["Inverse"])',
        "HasTrueIdentity was never asserted; it is derived at query time from DisguisedAs and marked derived_via.",
        [e.model_dump(exclude_none=True) for e in mirrored.edges],  # type: ignore[union-attr]
    )
    meta = gateway.bfs_query(seeds=["stmt:s12"], max_hops=1, edge_filter={"predicates": ["Doubts"]})
    show_step(
        "8. Statements about statements", 'bfs_query(seeds=["stmt:s12"], max_hops=1)',
        "A statement is a node too: Watson doubts that Holmes possesses the cigar case.",
        [e.model_dump(exclude_none=True) for e in meta.edges],  # type: ignore[union-attr]
    )
