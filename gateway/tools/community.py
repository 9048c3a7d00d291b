"""communities: a deterministic partition of a bounded subgraph (Louvain, then components).

The subgraph is the neighbourhood of the seeds (as bfs_query walks it) or, without
seeds, every statement passing the filters. Over the configured edge bound it is
refused, never sampled. Direction is dropped, self-loops and the structural edges of
statement nodes are left out, and two entities are joined with a weight equal to the
number of distinct (predicate, direction) statements between them, so a relation
asserted by three sources counts once. Louvain runs over integer node numbers given in
ID order with a fixed seed, so the answer does not depend on hashing; after each level,
every community is split into its connected components, which never lowers modularity.
Levels are reported coarsest first.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

import networkx as nx

from gateway.engine.context import GraphContext
from gateway.engine.plan import make_plan
from gateway.engine.statements import statement_rows
from gateway.engine.walk import EdgeKey, walk
from gateway.errors import EndpointTimeout, TooLarge
from gateway.models import (
    Communities,
    CommunitiesInput,
    Community,
    CommunityLevel,
    Member,
)
from gateway.profiles.base import STRUCTURAL_OBJECT, STRUCTURAL_SUBJECT

MAX_HOPS = 4
LOUVAIN_SEED = 0


def communities(ctx: GraphContext, query: CommunitiesInput) -> Communities:
    warnings: list[str] = []
    bound = ctx.settings.communities_max_edges
    plan = make_plan(ctx, query)
    if query.edge_predicates:
        predicates = ctx.resolve_terms(query.edge_predicates, "edge_predicates", kind="predicate", warnings=warnings)
        plan = replace(plan, predicates=tuple(sorted(predicates)))
    unresolved: list[str] = []
    nodes: set[str] = set()
    if query.seeds:
        seeds, unresolved = ctx.resolve_seeds(query.seeds, plan, "seeds", warnings)
        result = walk(ctx.profile, seeds, plan, max_hops=max(1, min(query.max_hops, MAX_HOPS)),
                      max_nodes=2 * bound + len(seeds), max_edges=bound, count_hidden=False)
        if result.cut is not None and result.cut.reason == "deadline":
            raise EndpointTimeout("the neighbourhood could not be read within the call's deadline; "
                                  "use fewer hops, seeds or predicates", field="max_hops")
        if result.cut is not None:
            raise TooLarge(f"the neighbourhood has more than {bound} edges; use fewer hops, seeds or predicates",
                           field="max_hops")
        keys: list[EdgeKey] = list(result.edges)
        nodes.update(result.hops)
    else:
        rows, complete = statement_rows(ctx, plan, None, bound + 1)
        if not complete:
            raise EndpointTimeout("the statements could not be read within the call's deadline; "
                                  "give seeds or edge_predicates", field="edge_predicates")
        if len(rows) > bound:
            raise TooLarge(f"more than {bound} statements match; give seeds or edge_predicates", field="edge_predicates")
        keys = [key for _, key, _ in rows]
    relations: dict[tuple[str, str], set[tuple[str, bool]]] = defaultdict(set)
    for s, p, o, _, _ in keys:
        if p in (STRUCTURAL_SUBJECT, STRUCTURAL_OBJECT) or s == o:
            nodes.update((s, o))
            continue
        a, b = sorted((s, o))
        relations[(a, b)].add((p, s == a))
        nodes.update((s, o))
    to_id = ctx.ids.to_id
    order = sorted(nodes, key=to_id)
    number = {node: i for i, node in enumerate(order)}
    graph = nx.Graph()
    graph.add_nodes_from(range(len(order)))
    for (a, b), kinds in sorted(relations.items(), key=lambda item: (number[item[0][0]], number[item[0][1]])):
        graph.add_edge(number[a], number[b], weight=len(kinds))
    labels = ctx.labels(order)
    levels = [_level(graph, part, query.resolution, order, labels, to_id) for part in _partitions(graph, query.resolution)]
    levels.reverse()
    for depth, level in enumerate(levels):
        level.level = depth
    return Communities(
        node_count=len(order), edge_count=graph.number_of_edges(), levels=levels, max_edges=bound,
        unresolved_seeds=unresolved, warnings=warnings,
    )


def _partitions(graph: nx.Graph, resolution: float) -> list[list[set[int]]]:
    if graph.number_of_edges() == 0:
        return [[{n} for n in graph.nodes]]
    return list(nx.community.louvain_partitions(graph, weight="weight", resolution=resolution, seed=LOUVAIN_SEED))


def _level(
    graph: nx.Graph, partition: list[set[int]], resolution: float, order: list[str], labels: dict[str, str], to_id: object
) -> CommunityLevel:
    parts = [sorted(component) for community in partition for component in nx.connected_components(graph.subgraph(community))]
    parts.sort(key=lambda members: (-len(members), members[0]))
    modularity = (
        nx.community.modularity(graph, [set(p) for p in parts], weight="weight", resolution=resolution)
        if graph.number_of_edges() else 0.0
    )
    communities_ = [
        Community(id=i, size=len(members), members=[Member(id=to_id(order[m]), label=labels.get(order[m])) for m in members])  # type: ignore[operator]
        for i, members in enumerate(parts)
    ]
    return CommunityLevel(level=0, modularity=round(modularity, 6), communities=communities_)
