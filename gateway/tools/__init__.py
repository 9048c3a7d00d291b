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
            "Start here: entity types, predicates (counts, the types each connects, traits), truth "
            "statuses, as_of and valid_at ranges, named graphs, ID prefixes. Use these names; never "
            "guess them.",
        ),
        Tool(
            "search_entities", models.SearchEntitiesInput, models.SearchResult,
            search_entities,
            "Turn a name into entity IDs (every other tool takes IDs). Exact label first, then synonym, "
            "prefix, full text; equal matches rank by degree. entity_types narrows.",
        ),
        Tool(
            "bfs_query", models.BfsQueryInput, models.Subgraph, bfs_query,
            "Walk max_hops relationships from seed IDs. Survey first: topology_only, layout compact "
            "(with labels), max_hops 1 or 2; predicates walks only those (TREATS, direction in: what "
            "treats X). Detail with describe_entities or node_filter / edge_filter. truth_status, as_of, "
            "valid_at change what is walked; hidden_by_filter counts what they kept out.",
        ),
        Tool(
            "describe_entity", models.DescribeEntityInput, models.EntityDetail, describe_entity,
            "Full data for one ID (or its URL): label, description, synonyms, types, properties, "
            "relationship counts per predicate and direction; for a statement ID, the statement and "
            "its provenance.",
        ),
        Tool(
            "describe_entities", models.DescribeEntitiesInput, models.EntitiesDetail, describe_entities,
            "describe_entity for up to 100 IDs in one call, e.g. the stubs of a topology survey. IDs "
            "not in the graph are listed in unresolved, with IDs of similar names.",
        ),
        Tool(
            "intersect_subgraphs", models.IntersectSubgraphsInput, models.Intersection, intersect_subgraphs,
            "What 2 to 8 seeds share: the nodes within k hops of every seed (distance to each) and the "
            "statements among them; bfs_query gives the union. Filters as in bfs_query.",
        ),
        Tool(
            "transitive_closure_query", models.TransitiveClosureInput, models.Closure, transitive_closure_query,
            "Everything reachable along one predicate, to any depth, as sorted IDs (every ancestor "
            "class); out follows subject to object, in the reverse. Filters as in bfs_query.",
        ),
        Tool(
            "scan_query", models.ScanQueryInput, models.ScanPage, scan_query,
            "List with no seed: every entity of node_types, or every statement with edge_predicates "
            "or bfs_query's filters (every disputed claim), a page at a time (next_cursor).",
        ),
        Tool(
            "shortest_path", models.ShortestPathInput, models.ShortestPath, shortest_path,
            "How two entities connect: the fewest-hop path as full statements (ties broken by ID), "
            "with confidence_product and weakest_edge. No path is an answer (found=false, reason). "
            "Filters as in bfs_query.",
        ),
        Tool(
            "communities", models.CommunitiesInput, models.Communities, communities,
            "Clusters (Louvain, deterministic, never sampled) of the seeds' neighbourhood or the whole "
            "graph, coarsest level first: a level's 20 largest communities, most connected members "
            "first; community=ID lists one.",
        ),
    )
}
