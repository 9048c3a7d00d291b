"""The tools, each a plain function over a `GraphContext` with pydantic input and output.

`TOOLS` is the registry every surface (Python API, CLI, HTTP, MCP) is generated from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from gateway import models
from gateway.tools.bfs import bfs_query
from gateway.tools.closure import transitive_closure_query
from gateway.tools.community import communities
from gateway.tools.describe import describe_entities, describe_entity, search_entities
from gateway.tools.intersect import intersect_subgraphs
from gateway.tools.path import shortest_path
from gateway.tools.scan import scan_query
from gateway.tools.schema import describe_schema
from gateway.tools.slice import fetch_slice


@dataclass(frozen=True)
class Tool:
    name: str
    input: type[BaseModel]
    output: Any
    run: Callable[..., BaseModel]
    description: str


TOOLS: dict[str, Tool] = {
    tool.name: tool
    for tool in (
        Tool(
            "describe_schema", models.DescribeSchemaInput, models.Schema,
            lambda ctx, q: describe_schema(ctx),
            "Start here: entity types, predicates (counts, types connected, traits), truth statuses, "
            "as_of / valid_at ranges, graphs, ID prefixes: the names to use.",
        ),
        Tool(
            "search_entities", models.SearchEntitiesInput, models.SearchResult,
            search_entities,
            "A name to entity IDs (the other tools take IDs): exact label, synonym, prefix, then full "
            "text; ties by importance. entity_types narrows.",
        ),
        Tool(
            "bfs_query", models.BfsQueryInput, models.Subgraph, bfs_query,
            "Walk max_hops relationships from seed IDs. Survey first (topology_only or layout compact, "
            "max_hops 1-2); predicates walks only those (TREATS + direction in: what treats X); detail "
            "with describe_entities or node_filter / edge_filter. hidden_by_filter counts what "
            "truth_status, as_of, valid_at kept out.",
        ),
        Tool(
            "describe_entity", models.DescribeEntityInput, models.EntityDetail, describe_entity,
            "Full data for one ID or URL: labels, types, properties, relationship counts; for a "
            "statement ID, the statement.",
        ),
        Tool(
            "describe_entities", models.DescribeEntitiesInput, models.EntitiesDetail, describe_entities,
            "describe_entity for up to 100 IDs (a survey's stubs); IDs not in the graph are in "
            "unresolved, with similar ones.",
        ),
        Tool(
            "fetch_slice", models.FetchSliceInput, models.Slice, fetch_slice,
            "A document's passages in order: around a passage ID (an edge's bfs:evidencePassage), or "
            "a document's first. Cite parent_id.",
        ),
        Tool(
            "intersect_subgraphs", models.IntersectSubgraphsInput, models.Intersection, intersect_subgraphs,
            "What 2 to 8 seeds share: nodes within k hops of each (distances) and the statements among "
            "them. Filters as in bfs_query.",
        ),
        Tool(
            "transitive_closure_query", models.TransitiveClosureInput, models.Closure, transitive_closure_query,
            "All IDs reachable along one predicate at any depth, sorted (every ancestor class); in "
            "reverses it. Filters as in bfs_query.",
        ),
        Tool(
            "scan_query", models.ScanQueryInput, models.ScanPage, scan_query,
            "No seed: every entity of node_types, or every statement of edge_predicates or bfs_query's "
            "filters (all disputed claims), paged by next_cursor.",
        ),
        Tool(
            "shortest_path", models.ShortestPathInput, models.ShortestPath, shortest_path,
            "How two IDs connect: the fewest-hop path as full statements, confidence_product, "
            "weakest_edge; none is found=false with a reason. Filters as in bfs_query.",
        ),
        Tool(
            "communities", models.CommunitiesInput, models.Communities, communities,
            "Louvain clusters (deterministic) of the seeds' neighbourhood or the whole graph, coarsest "
            "level first: its 20 largest, most connected members first; community=ID lists one.",
        ),
    )
}
