"""`bfsql demo medlit`: the BFS-QL book's worked session on the medlit bundle."""

from __future__ import annotations

from functools import partial
from typing import Any

from gateway.api import Gateway
from gateway.demos import show_step
from gateway.models import TRUTH_STATUSES, Subgraph

step = partial(show_step, width=2400)

ALL_STATUSES = list(TRUTH_STATUSES)


def run_medlit_demo(gateway: Gateway) -> None:
    """The book's worked session ("Desmopressin in the Medlit Graph"), step by step."""
    schema = gateway.describe_schema()
    step(
        "1. Orient", "describe_schema()",
        "Entity types and predicates come from the graph: nothing to memorize, nothing to guess.",
        {"graph_description": schema.graph_description,
         "entity_types": [f"{t.id} ({t.count})" for t in schema.entity_types],
         "predicates": [f"{p.id} ({p.count})" + (f" {p.traits}" if p.traits else "") for p in schema.predicates],
         "truth_statuses": schema.truth_statuses},
    )
    search = gateway.search_entities("desmopressin", limit=5)
    step(
        "2. Resolve", 'search_entities("desmopressin")',
        "The drug is an exact label match; two papers mention it in their titles. The ID is what the walk takes.",
        [{"id": h.id, "entity_type": h.entity_type, "label": h.label, "match": h.match} for h in search.results],
    )
    survey = gateway.bfs_query(seeds=["RxNorm:3251"], max_hops=2, topology_only=True, truth_status=ALL_STATUSES)
    assert isinstance(survey, Subgraph)
    size = len(survey.model_dump_json(exclude_none=True))
    step(
        "3. Survey the topology",
        'bfs_query(seeds=["RxNorm:3251"], max_hops=2, topology_only=True, truth_status=[all five])',
        f"{survey.node_count} nodes, {survey.edge_count} edges, all stubs: {size:,} characters. "
        "The hubs are the traversal axes the book reads off this survey.",
        {"hop_counts": survey.hop_counts, "hubs": _hubs(gateway, survey), "hidden_by_filter": survey.hidden_by_filter},
    )
    default = gateway.bfs_query(seeds=["RxNorm:3251"], max_hops=2, topology_only=True)
    step(
        "3b. The same walk with the default truth_status",
        'bfs_query(seeds=["RxNorm:3251"], max_hops=2, topology_only=True)',
        "Suggested and speculative claims are hypothetical: crossed only when asked for; hidden_by_filter says how many.",
        {"node_count": default.node_count, "edge_count": default.edge_count, "hidden_by_filter": default.hidden_by_filter},
    )
    entity = gateway.describe_entity("https://dbpedia.org/page/Cushing's_disease")
    step(
        "4. Drill down selectively", "describe_entity(\"https://dbpedia.org/page/Cushing's_disease\")",
        "The canonical URL resolves to the entity's CURIE; full data is paid for only here.",
        entity.model_dump(exclude_none=True),
    )


def _hubs(gateway: Gateway, survey: Any, top: int = 4) -> dict[str, str]:
    """The best-connected nodes of a subgraph (its traversal axes), with their labels."""
    degree: dict[str, int] = {}
    for edge in survey.edges:
        for end in {edge.subject, edge.object}:
            degree[end] = degree.get(end, 0) + 1
    best = sorted(degree.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    labels = {e.id: e.label for e in gateway.describe_entities([node for node, _ in best]).entities}
    return {node: f"{labels.get(node)}: {count} edges" for node, count in best}
