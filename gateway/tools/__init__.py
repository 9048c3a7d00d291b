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
from gateway.tools.intersect import intersect_subgraphs
from gateway.tools.path import shortest_path
from gateway.tools.scan import scan_query
from gateway.tools.describe import describe_entities, describe_entity, search_entities
from gateway.tools.schema import describe_schema


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
            "Orient yourself: the graph's entity types, predicates (with counts, labels, traits), "
            "truth statuses and time ranges. Call it first on an unfamiliar graph.",
        ),
        Tool(
            "search_entities", models.SearchEntitiesInput, models.SearchResult,
            search_entities,
            "Resolve a name to entity IDs, ranked: exact label, synonym, prefix, then full text.",
        ),
        Tool(
            "bfs_query", models.BfsQueryInput, models.Subgraph | models.CompactSubgraph, bfs_query,
            "Walk out from seed IDs to max_hops and return the subgraph.",
        ),
        Tool(
            "describe_entity", models.DescribeEntityInput, models.EntityDetail, describe_entity,
            "Full data for one ID (a stub from a walk): labels, types, properties, relationship counts.",
        ),
        Tool(
            "describe_entities", models.DescribeEntitiesInput, models.EntitiesDetail, describe_entities,
            "Full data for several IDs at once; IDs not in the graph are listed in unresolved.",
        ),
        Tool(
            "intersect_subgraphs", models.IntersectSubgraphsInput, models.Intersection, intersect_subgraphs,
            "What several entities have in common: the nodes within k hops of every seed, each with its "
            "distance to each seed, and the statements among them. Use it instead of bfs_query with "
            "several seeds when you want the overlap, not the union.",
        ),
        Tool(
            "transitive_closure_query", models.TransitiveClosureInput, models.Closure, transitive_closure_query,
            "Everything reachable along ONE predicate, however many steps (e.g. every place a place is "
            "PartOf, every ancestor class): a flat ID list. Use it instead of guessing a large max_hops.",
        ),
        Tool(
            "scan_query", models.ScanQueryInput, models.ScanPage, scan_query,
            "List without a seed: every entity of some types, or every statement with some predicates, "
            "truth statuses or time (e.g. every disputed statement). Paged with next_cursor.",
        ),
        Tool(
            "shortest_path", models.ShortestPathInput, models.ShortestPath, shortest_path,
            "How two entities connect: the fewest-hop path as full statements, with the product of their "
            "confidences and the weakest link. No path within max_hops is an answer, not an error.",
        ),
        Tool(
            "communities", models.CommunitiesInput, models.Communities, communities,
            "Clusters in a neighbourhood (seeds + max_hops) or in the statements a filter selects: a "
            "deterministic Louvain partition, every community connected, levels coarsest first.",
        ),
    )
}
