"""intersect_subgraphs: the nodes within k hops of every seed, and the statements among them.

Each seed is walked on its own (same traversal filters as bfs_query); a node is in the
answer when every walk reached it, and carries its distance to each seed. The edges are
every traversable statement with both ends in the answer, read with one more hop query
over the answer's nodes, so an edge between two nodes at distance k is not missed.
"""

from __future__ import annotations

from gateway import deadline as deadlines
from gateway.engine.context import GraphContext
from gateway.engine.plan import make_plan, resolve_presentation
from gateway.engine.presentation import (
    entity_type,
    full_edges,
    full_nodes,
    node_types,
    stub_edge,
)
from gateway.engine.search import suggest_ids
from gateway.engine.seeds import resolve_seeds
from gateway.engine.walk import TIMEOUTS, Cut, EdgeKey, candidates, timeout_warning, unnamed_warning, walk
from gateway.errors import EndpointTimeout
from gateway.models import (
    Edge,
    Intersection,
    IntersectSubgraphsInput,
    Limits,
    Node,
    Truncation,
)
from gateway.profiles.base import Hit, HopPlan
from gateway.settings import clamp

MAX_SEEDS = 8
"""Distinct seeds intersected; the rest are unresolved."""
MAX_K = 4


def intersect_subgraphs(ctx: GraphContext, query: IntersectSubgraphsInput) -> Intersection:
    warnings: list[str] = []
    limits = _limits(ctx, query, warnings)
    k = limits.max_hops
    plan = make_plan(ctx, query.traversal(), warnings)
    asked = resolve_seeds(ctx, query.seeds, plan, "seeds", warnings, cap=MAX_SEEDS)
    seeds = asked.iris
    limits.seeds = min(len(asked.iris) + len(asked.missing) + len(asked.past_cap), MAX_SEEDS)
    suggest_ids(ctx, asked, "seeds", warnings)
    unresolved = asked.unresolved("unresolved_seeds", warnings)
    node_filter, edge_filter = resolve_presentation(ctx, query, warnings)
    distances, cut = _distances(ctx, plan, seeds, limits, warnings)
    common = sorted(n for n, d in distances.items() if len(d) == len(seeds)) if len(seeds) >= 2 else []
    if len(seeds) < 2:
        warnings.append("fewer than two seeds are in the graph: nothing to intersect")
    edges, more = _edges_among(ctx, plan, common, limits, warnings)
    if isinstance(more, Cut):
        cut = cut or more
    elif more and cut is None:
        cut = Cut("max_edges", k, len(common))
    to_id = ctx.ids.to_id
    order = sorted(common, key=lambda n: (sum(distances[n].values()), to_id(n)))
    nodes = [
        node.model_copy(update={"distances": {to_id(s): distances[n][s] for s in seeds}})
        for n, node in zip(order, _nodes(ctx, order, query, node_filter))
    ]
    keyed = sorted(edges.items(), key=lambda item: tuple(to_id(x) if x else "" for x in item[0]))
    return Intersection(
        seeds=[to_id(s) for s in seeds], k=k, node_count=len(nodes), edge_count=len(keyed),
        nodes=nodes, edges=_edges(ctx, keyed, query, edge_filter),
        limits=limits, truncated=cut is not None, truncation=Truncation(**vars(cut)) if cut else None,
        unresolved_seeds=unresolved, warnings=warnings,
    )


def _distances(
    ctx: GraphContext, plan: HopPlan, seeds: list[str], limits: Limits, warnings: list[str],
) -> tuple[dict[str, dict[str, int]], Cut | None]:
    """Node -> seed -> hops, from a walk of each seed on its own; and the first walk's cut."""
    distances: dict[str, dict[str, int]] = {}
    cut = None
    for seed in seeds:
        result = walk(ctx.profile, [seed], plan, max_hops=limits.max_hops, max_nodes=limits.max_nodes,
                      max_edges=limits.max_edges, count_hidden=False)
        cut = cut or result.cut
        warnings += timeout_warning(result.cut)
        warnings += unnamed_warning(result)
        for node, hop in result.hops.items():
            distances.setdefault(node, {})[seed] = hop
    return distances, cut


def _edges(
    ctx: GraphContext, keyed: list[tuple[EdgeKey, Hit]], query: IntersectSubgraphsInput, edge_filter: set[str] | None,
) -> list[Edge]:
    """The edges in order: full where the edge filter asks, stubs elsewhere."""
    wanted = [] if query.topology_only else [(key, h) for key, h in keyed if edge_filter is None or key.predicate in edge_filter]
    detailed = dict(zip((key for key, _ in wanted), full_edges(ctx, wanted, valid_at=query.valid_at))) if wanted else {}
    return [detailed.get(key) or stub_edge(ctx, key) for key, _ in keyed]


def _limits(ctx: GraphContext, query: IntersectSubgraphsInput, warnings: list[str]) -> Limits:
    """The call's budgets, clamped (each clamp said in a warning)."""
    settings = ctx.settings
    return Limits(
        max_hops=clamp(query.k, 2, 1, MAX_K, field="k", warnings=warnings),
        max_nodes=clamp(query.max_nodes, settings.default_max_nodes, 1, settings.max_nodes, field="max_nodes",
                        warnings=warnings),
        max_edges=clamp(query.max_edges, settings.default_max_edges, 0, settings.max_edges, field="max_edges",
                        warnings=warnings),
        seeds=MAX_SEEDS,
    )


def _edges_among(
    ctx: GraphContext, plan: HopPlan, common: list[str], limits: Limits, warnings: list[str],
) -> tuple[dict[EdgeKey, Hit], bool | Cut]:
    """Every traversable statement with both ends in `common` (one hop query over them),
    and whether the edge budget cut the read; or none, and the cut, where the read timed
    out after the walks (the nodes and their distances are whole, and are kept)."""
    if not common:
        return {}, False
    inside = set(common)
    edges: dict[EdgeKey, Hit] = {}
    try:
        with deadlines.keeping_reserve():
            hits, more = ctx.profile.hop(common, plan, limits.max_edges + 1)
    except EndpointTimeout:
        cause = deadlines.timeout_cause()
        if cause is None:
            raise
        warnings.append(f"{TIMEOUTS[cause]} reading the statements among the {len(common)} nodes found: the nodes and "
                        "their distances are complete, their edges are not listed; ask again with fewer seeds, a "
                        "smaller k or a longer deadline")
        return {}, Cut(cause, limits.max_hops + 1, len(common))
    for key, hit, other in candidates(hits, plan, None, frozenset()):
        if other in inside and key.subject in inside and key.object in inside:
            edges.setdefault(key, hit)
    return edges, more


def _nodes(ctx: GraphContext, order: list[str], query: IntersectSubgraphsInput, node_filter: set[str] | None) -> list[Node]:
    """The nodes in `order`: full where the node filter asks, stubs elsewhere."""
    to_id = ctx.ids.to_id
    types = node_types(ctx, order)
    full = [] if query.topology_only else [n for n in order if node_filter is None or node_filter & set(types.get(n, ()))]
    details = full_nodes(ctx, full, types, valid_at=query.valid_at) if full else {}
    return [details.get(n) or Node(id=to_id(n), entity_type=entity_type(types.get(n, ()), to_id)) for n in order]
