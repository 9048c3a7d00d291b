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
            "Start here: the graph's entity types and predicates (counts, labels, traits such as Symmetric "
            "or Inverse), truth statuses, as_of and valid_at ranges, named graphs, ID prefixes. Use these "
            "names in filters; never guess them.",
        ),
        Tool(
            "search_entities", models.SearchEntitiesInput, models.SearchResult,
            search_entities,
            "Turn a name into entity IDs; every other tool takes IDs. Exact label first, then synonym, "
            "prefix, full text; equal matches rank by degree. Narrow with entity_types when a name is "
            "ambiguous.",
        ),
        Tool(
            "bfs_query", models.BfsQueryInput, models.Subgraph, bfs_query,
            "Walk max_hops relationships from seed IDs. First look: topology_only=true, max_hops 1 or 2; "
            "expand stubs with describe_entities, or detail them with node_filter / edge_filter (never "
            "what comes back). Traversal filters change that: truth_status (default asserted_true; add "
            "disputed, hypothetical, retracted to see doubt), as_of, valid_at, direction, expand_traits; "
            "hidden_by_filter counts what they kept out, truncation which budget cut.",
        ),
        Tool(
            "describe_entity", models.DescribeEntityInput, models.EntityDetail, describe_entity,
            "Full data for one ID (a stub from a walk, or its URL): label, description, synonyms, types, "
            "properties, relationship counts per predicate and direction; for a statement ID, the "
            "statement and its provenance.",
        ),
        Tool(
            "describe_entities", models.DescribeEntitiesInput, models.EntitiesDetail, describe_entities,
            "Full data for up to 100 IDs in one call: after a topology survey, instead of many "
            "describe_entity calls. IDs not in the graph come back in unresolved, not as an error.",
        ),
        Tool(
            "intersect_subgraphs", models.IntersectSubgraphsInput, models.Intersection, intersect_subgraphs,
            "What 2 to 8 seeds share: the nodes within k hops of every seed, with their distance to "
            "each, and the statements among them (the overlap; bfs_query gives the union). Filters as in "
            "bfs_query.",
        ),
        Tool(
            "transitive_closure_query", models.TransitiveClosureInput, models.Closure, transitive_closure_query,
            "Everything reachable along one predicate, to any depth, as a sorted ID list (every place "
            "a place is part of, every ancestor class); out follows subject to object, in the reverse. "
            "Cycle-safe; filters as in bfs_query.",
        ),
        Tool(
            "scan_query", models.ScanQueryInput, models.ScanPage, scan_query,
            "List with no starting point: every entity of node_types, or every statement with "
            "edge_predicates or bfs_query's traversal filters (e.g. every disputed claim), a page at a "
            "time: pass next_cursor back as cursor.",
        ),
        Tool(
            "shortest_path", models.ShortestPathInput, models.ShortestPath, shortest_path,
            "How two entities connect: the fewest-hop path as full statements, over given predicates if "
            "asked; ties broken by ID; confidence_product and weakest_edge when every edge has one. No "
            "path is an answer (found=false, reason).",
        ),
        Tool(
            "communities", models.CommunitiesInput, models.Communities, communities,
            "Clusters: a deterministic partition (Louvain, split into connected parts) of the seeds' "
            "neighbourhood, or of the statements a filter selects; levels coarsest first, with modularity "
            "and labelled members. Never sampled.",
        ),
    )
}
