"""The tools, each a plain function over a `GraphContext` with pydantic input and output.

`TOOLS` is the registry every surface (Python API, CLI, HTTP, MCP) is generated from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from gateway import models
from gateway.tools.answer import answer
from gateway.tools.bfs import bfs_query
from gateway.tools.closure import transitive_closure_query
from gateway.tools.community import communities
from gateway.tools.describe import describe_entities, describe_entity, search_entities
from gateway.tools.intersect import intersect_subgraphs
from gateway.tools.neighbors import expand_neighbors
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
            "Start here: types, predicates (counts, connected types, traits), truth statuses, time "
            "ranges, graphs, prefixes: the names to use.",
        ),
        Tool(
            "search_entities", models.SearchEntitiesInput, models.SearchResult,
            search_entities,
            "A name to entity IDs: exact label, synonym, prefix, then full text; ties by importance. "
            "entity_types narrows.",
        ),
        Tool(
            "bfs_query", models.BfsQueryInput, models.Subgraph, bfs_query,
            "Walk max_hops relationships from seed IDs. Survey with topology_only or layout compact at "
            "1-2 hops; predicates and direction narrow (TREATS, in: what treats X).",
        ),
        Tool(
            "expand_neighbors", models.ExpandNeighborsInput, models.Neighbors, expand_neighbors,
            "The seeds' neighbours as a ranked list (best first) with previews, up to depth 3; types narrows "
            "the list, not the walk.",
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
            "A document's passages in order, around a passage ID (an edge's bfs:evidencePassage) or "
            "from the first. Cite parent_id.",
        ),
        Tool(
            "intersect_subgraphs", models.IntersectSubgraphsInput, models.Intersection, intersect_subgraphs,
            "What 2 to 8 seeds share: nodes within k hops of each (distances) and the statements among "
            "them.",
        ),
        Tool(
            "transitive_closure_query", models.TransitiveClosureInput, models.Closure, transitive_closure_query,
            "All IDs reachable along one predicate at any depth, sorted (every ancestor class); in "
            "reverses it.",
        ),
        Tool(
            "scan_query", models.ScanQueryInput, models.ScanPage, scan_query,
            "No seed: all entities of node_types, or all statements of edge_predicates or filters, "
            "paged by next_cursor.",
        ),
        Tool(
            "shortest_path", models.ShortestPathInput, models.ShortestPath, shortest_path,
            "The fewest-hop path between two IDs, as full statements with confidence_product and "
            "weakest_edge.",
        ),
        Tool(
            "communities", models.CommunitiesInput, models.Communities, communities,
            "Louvain clusters (deterministic) of the seeds' neighbourhood or the whole graph: each "
            "level's 20 largest; community=ID lists one.",
        ),
        Tool(
            "answer", models.AnswerInput, models.Answer, answer,
            "A question with no starting point: a language model reads the graph's communities; "
            "every citation is checked.",
        ),
    )
}
