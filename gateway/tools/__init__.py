"""The tools, each a plain function over a `GraphContext` with pydantic input and output.

`TOOLS` is the registry every surface (Python API, CLI, HTTP, MCP) is generated from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from gateway import models
from gateway.tools.answer import answer
from gateway.tools.bfs import bfs_query
from gateway.tools.closure import transitive_closure_query
from gateway.tools.community import communities
from gateway.tools.describe import describe_entities, describe_entity, search_entities
from gateway.tools.describe_schema import describe_schema
from gateway.tools.intersect import intersect_subgraphs
from gateway.tools.neighbors import expand_neighbors
from gateway.tools.path import shortest_path
from gateway.tools.scan import scan_query
from gateway.tools.slice import fetch_slice
from gateway.tools.tabulate import TABLE_BRIEF, tabulate


@dataclass(frozen=True)
class Tool:
    name: str
    input: type[BaseModel]
    output: Any
    run: Callable[..., BaseModel]
    description: str
    brief: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Fields the tool lists show in words rather than in full (OpenAPI has them in full):
    a nested shape an agent reads more cheaply as a sentence."""
    told: tuple[str, ...] = ()
    """Fields the description explains (each named in it, or the one field the tool requires):
    the tool lists give them their type only, the words being read once, in the description
    (OpenAPI keeps each field's own)."""


TOOLS: dict[str, Tool] = {
    tool.name: tool
    for tool in (
        Tool(
            "describe_schema", models.DescribeSchemaInput, models.Schema,
            lambda ctx, q: describe_schema(ctx),
            "Start here: types, predicates (connections, traits), statuses, time ranges, graphs, prefixes.",
        ),
        Tool(
            "search_entities", models.SearchEntitiesInput, models.SearchResult,
            search_entities,
            "A name to entity IDs: label, synonym, prefix, then full text; entity_types narrows.",
            told=("query", "entity_types"),
        ),
        Tool(
            "bfs_query", models.BfsQueryInput, models.Walked, bfs_query,
            "Walk max_hops from seed IDs; survey with topology_only or layout compact at 1-2 hops; "
            "predicates, direction narrow; path: a relation path.",
            told=("predicates",),
        ),
        Tool(
            "expand_neighbors", models.ExpandNeighborsInput, models.Neighbors, expand_neighbors,
            "The seeds' neighbours ranked, with previews (depth 1-3); types narrows the list, not the walk.",
            told=("types", "depth"),
        ),
        Tool(
            "describe_entity", models.DescribeEntityInput, models.EntityDetail, describe_entity,
            "Full data for one ID or URL: labels, types, properties, relationship counts; or a statement.",
            told=("id",),
        ),
        Tool(
            "describe_entities", models.DescribeEntitiesInput, models.EntitiesDetail, describe_entities,
            "describe_entity for up to 100 IDs; unknown ones in unresolved, with similar ones.",
            told=("ids",),
        ),
        Tool(
            "fetch_slice", models.FetchSliceInput, models.Slice, fetch_slice,
            "A document's passages in order, around a passage ID (an edge's bfs:evidencePassage). Cite "
            "parent_id.",
            told=("entity_id",),
        ),
        Tool(
            "intersect_subgraphs", models.IntersectSubgraphsInput, models.Intersection, intersect_subgraphs,
            "What 2 to 8 seeds share: nodes within k hops of each, and the statements among them.",
            told=("seeds",),
        ),
        Tool(
            "transitive_closure_query", models.TransitiveClosureInput, models.Closure, transitive_closure_query,
            "Every ID reachable from start along one predicate (all ancestor classes), sorted; in reverses it.",
            told=("start",),
        ),
        Tool(
            "scan_query", models.ScanQueryInput, models.ScanPage, scan_query,
            "No seed: all entities of node_types, or statements of edge_predicates or filters, paged.",
            told=("node_types", "edge_predicates"),
        ),
        Tool(
            "tabulate", models.TabulateInput, models.Table, tabulate,
            "A table of one type (or ids), columns by path: where, compute, group_by, aggregate, having, "
            "order_by.",
            brief=TABLE_BRIEF, told=("type",),
        ),
        Tool(
            "shortest_path", models.ShortestPathInput, models.ShortestPath, shortest_path,
            "The fewest-hop path between two IDs, as statements (confidence_product, weakest_edge).",
        ),
        Tool(
            "communities", models.CommunitiesInput, models.Communities, communities,
            "Louvain clusters of the seeds' neighbourhood or whole graph; community=ID lists "
            "one.",
            told=("community",),
        ),
        Tool(
            "answer", models.AnswerInput, models.Answer, answer,
            "A question with no starting point: a model reads the communities; citations checked.",
        ),
    )
}
