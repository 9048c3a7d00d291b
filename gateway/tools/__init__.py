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
            "Orient yourself in the graph before anything else: its entity types and predicates "
            "(with counts, labels and traits such as Symmetric, Transitive or Inverse), the truth statuses "
            "present, the range of as_of positions and valid_at times, named graphs and ID prefixes. "
            "Use the names it returns in filters instead of guessing them.",
        ),
        Tool(
            "search_entities", models.SearchEntitiesInput, models.SearchResult,
            search_entities,
            "Turn a name into entity IDs. Ranked: exact label, then exact synonym, then label prefix, "
            "then full-text matches in labels, synonyms and descriptions (BM25). Filter by entity_types "
            "when a name is ambiguous (a drug and a paper both called 'desmopressin'). Call it whenever "
            "you have a name but no ID; other tools take IDs.",
        ),
        Tool(
            "bfs_query", models.BfsQueryInput, models.Subgraph, bfs_query,
            "Walk out from seed IDs and return the subgraph within max_hops relationships. Start with "
            "topology_only=true and max_hops=1 (2 at most on a first look): every node and edge comes back "
            "as a stub ({id, entity_type} / {subject, predicate, object}), cheap to read; stubs are handles "
            "to expand later with describe_entity(ies) or a focused query. node_filter / edge_filter choose "
            "which nodes and edges carry full data (labels, properties, provenance, confidence) and never "
            "change which ones are returned. Traversal filters do change the subgraph: truth_status "
            "(default asserted_true only; widen it to see disputed, hypothetical or retracted claims), "
            "as_of (only what was asserted by then), valid_at (only what held then), direction, "
            "expand_traits (mirror Symmetric / Inverse relations, marked derived_via). hidden_by_filter "
            "counts what the traversal filters kept out; limits, truncated and truncation say which "
            "budget applied. For a single relation to any depth use transitive_closure_query; for what "
            "several seeds share use intersect_subgraphs.",
        ),
        Tool(
            "describe_entity", models.DescribeEntityInput, models.EntityDetail, describe_entity,
            "Full data for one ID, typically a stub from a walk: label, description, synonyms, types, "
            "properties, and how many relationships of each predicate and direction it has (to decide "
            "whether to walk further). For a statement ID, the statement with its provenance. A URL form "
            "of the ID is accepted.",
        ),
        Tool(
            "describe_entities", models.DescribeEntitiesInput, models.EntitiesDetail, describe_entities,
            "Full data for many IDs in one call (up to 100): use it instead of repeated describe_entity "
            "after a topology survey. IDs not in the graph are listed in unresolved, not an error.",
        ),
        Tool(
            "intersect_subgraphs", models.IntersectSubgraphsInput, models.Intersection, intersect_subgraphs,
            "What several entities have in common: the nodes within k hops of EVERY seed (2 to 8 "
            "seeds), each with its distance to each seed, and the statements among them. Use it "
            "instead of bfs_query with several seeds when you want the overlap rather than the union "
            "(co-authored papers, shared targets). Same traversal and presentation filters as bfs_query.",
        ),
        Tool(
            "transitive_closure_query", models.TransitiveClosureInput, models.Closure, transitive_closure_query,
            "Everything reachable along ONE predicate, however many steps it takes: a flat, sorted "
            "list of IDs (every place a place is part of, every ancestor or descendant class). "
            "direction 'out' follows subject to object, 'in' the reverse. Cycles are safe; limit bounds "
            "the list and truncated says when it was hit. Use it instead of a large guessed max_hops; use "
            "bfs_query when you need several predicates or the edges themselves.",
        ),
        Tool(
            "scan_query", models.ScanQueryInput, models.ScanPage, scan_query,
            "List without a starting point: every entity of some node_types, or every statement with "
            "some edge_predicates and/or truth_status / as_of / valid_at (e.g. every disputed claim), "
            "in full, in a stable order, a page at a time: pass next_cursor back as cursor. Narrow it "
            "with predicates or types; a scan of everything is long.",
        ),
        Tool(
            "shortest_path", models.ShortestPathInput, models.ShortestPath, shortest_path,
            "How two entities connect: the fewest-hop path as full statements (with IDs, truth status, "
            "provenance), optionally only over some predicates. Ties are broken by ID, so the same "
            "question gives the same path. confidence_product and weakest_edge summarise it when every "
            "edge states a confidence. 'No path within max_hops' is an answer (found=false, reason), "
            "not an error.",
        ),
        Tool(
            "communities", models.CommunitiesInput, models.Communities, communities,
            "Clusters: a deterministic community partition (Louvain, every community split into its "
            "connected components) of the neighbourhood of some seeds, or of the statements a filter "
            "selects when no seed is given. Levels come coarsest first, each with its modularity and "
            "members (IDs with labels). A subgraph over the edge bound is refused, never sampled.",
        ),
    )
}
