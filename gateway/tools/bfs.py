"""bfs_query: walk from seeds; topology from the traversal, detail from presentation filters."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from gateway.models import BfsQueryInput, Edge, Limits, Node, Subgraph, Truncation
from gateway.presentation import entity_type, full_edges, full_nodes, node_types, stub_edge
from gateway.profiles.base import HopPlan
from gateway.walk import EdgeKey, WalkResult, walk

if TYPE_CHECKING:
    from gateway.context import GraphContext


def make_plan(ctx: GraphContext, query: object, traits: frozenset[str] = frozenset()) -> HopPlan:
    """The traversal settings of a query (any input model with the traversal filters)."""
    statuses = getattr(query, "truth_status", None)
    mirror_predicates: tuple[str, ...] = ()
    if traits:
        declared = ctx.profile.traits()
        mirrored = set()
        if "Symmetric" in traits:
            mirrored |= declared.symmetric
        if "Inverse" in traits:
            mirrored |= set(declared.inverses)
        mirror_predicates = tuple(sorted(mirrored))
    return HopPlan(
        direction=getattr(query, "direction", "both"),
        truth_status=frozenset(statuses) if statuses is not None else frozenset({"asserted_true"}),
        as_of=getattr(query, "as_of", None),
        valid_at=getattr(query, "valid_at", None),
        mirror_predicates=mirror_predicates,
    )


def bfs_query(ctx: GraphContext, query: BfsQueryInput) -> Subgraph:
    settings = ctx.settings
    warnings: list[str] = []
    limits = Limits(
        max_hops=max(0, min(query.max_hops, settings.max_hops)),
        max_nodes=max(1, min(query.max_nodes or settings.default_max_nodes, settings.max_nodes)),
        max_edges=max(0, min(settings.default_max_edges if query.max_edges is None else query.max_edges, settings.max_edges)),
        seeds=min(len(query.seeds), settings.max_seeds),
    )
    traits = frozenset(query.expand_traits)
    plan = make_plan(ctx, query, traits)
    seeds, unresolved = ctx.resolve_seeds(query.seeds, plan, "seeds", warnings)
    node_filter, edge_filter = resolve_presentation(ctx, query, warnings)
    result = walk(
        ctx.profile, seeds, plan, max_hops=limits.max_hops, max_nodes=limits.max_nodes,
        max_edges=limits.max_edges, traits=traits,
    )
    _suggest_seeds(ctx, unresolved, warnings)
    if result.hidden_capped:
        warnings.append("hidden_by_filter counts are lower bounds (too many hidden statements to count)")
    nodes, edges = _present(ctx, result, query, node_filter, edge_filter)
    hop_counts = [0] * (max(result.hops.values(), default=-1) + 1)
    for hop in result.hops.values():
        hop_counts[hop] += 1
    common = dict(
        seeds=[ctx.ids.to_id(s) for s in seeds],
        max_hops=limits.max_hops,
        node_count=len(nodes),
        edge_count=len(edges),
        hop_counts=hop_counts,
        limits=limits,
        truncated=result.cut is not None,
        truncation=Truncation(**vars(result.cut)) if result.cut else None,
        unresolved_seeds=unresolved,
        hidden_by_filter=dict(sorted(result.hidden.items())),
        warnings=warnings,
    )
    if query.layout == "compact":
        return _compact(nodes, edges, common)
    return Subgraph(nodes=nodes, edges=edges, **common)  # type: ignore[arg-type]


def resolve_presentation(ctx: GraphContext, query: object, warnings: list[str]) -> tuple[set[str] | None, set[str] | None]:
    """(types whose nodes are full, predicates whose edges are full); None means all."""
    if getattr(query, "topology_only", False):
        return None, None
    node_filter = getattr(query, "node_filter", None)
    edge_filter = getattr(query, "edge_filter", None)
    types = (
        None if node_filter is None
        else ctx.resolve_terms(node_filter.entity_types, "node_filter.entity_types", kind="type", warnings=warnings)
    )
    predicates = (
        None if edge_filter is None
        else ctx.resolve_terms(edge_filter.predicates, "edge_filter.predicates", kind="predicate", warnings=warnings)
    )
    return types, predicates


def _present(
    ctx: GraphContext, result: WalkResult, query: BfsQueryInput,
    node_filter: set[str] | None, edge_filter: set[str] | None,
) -> tuple[list[Node], list[Edge]]:
    to_id = ctx.ids.to_id
    order = sorted(result.hops, key=lambda n: (result.hops[n], to_id(n)))
    types = node_types(ctx, order)
    if query.topology_only:
        full: list[str] = []
    elif node_filter is None:
        full = order
    else:
        full = [n for n in order if node_filter & set(types.get(n, ()))]
    details = full_nodes(ctx, full, types) if full else {}
    nodes = [details.get(n) or Node(id=to_id(n), entity_type=entity_type(types.get(n, ()), to_id)) for n in order]

    keyed = sorted(result.edges.items(), key=lambda item: _edge_order(item[0], to_id))
    if query.topology_only:
        wanted: list[tuple[EdgeKey, object]] = []
    elif edge_filter is None:
        wanted = list(keyed)
    else:
        wanted = [(k, h) for k, h in keyed if k[1] in edge_filter]
    detailed = dict(zip((k for k, _ in wanted), full_edges(ctx, wanted))) if wanted else {}  # type: ignore[arg-type]
    edges = [detailed.get(k) or stub_edge(ctx, k) for k, _ in keyed]
    return nodes, edges


def _edge_order(key: EdgeKey, to_id: object) -> tuple[str, ...]:
    s, p, o, stmt, derived = key
    f = to_id  # type: ignore[assignment]
    return (f(s), f(p), f(o), f(stmt) if stmt else "", derived or "")  # type: ignore[operator]


def _compact(nodes: list[Node], edges: list[Edge], common: dict[str, object]) -> Subgraph:
    grouped: dict[str, list[str]] = defaultdict(list)
    node_details = {}
    for node in nodes:
        grouped[node.entity_type].append(node.id)
        if node.model_dump(exclude_none=True).keys() - {"id", "entity_type"}:
            node_details[node.id] = node
    edge_rows = []
    edge_details = {}
    for index, edge in enumerate(edges):
        row = [edge.subject, edge.predicate, edge.object]
        if edge.derived_via:
            row.append(edge.derived_via)
        edge_rows.append(row)
        if edge.model_dump(exclude_none=True).keys() - {"subject", "predicate", "object", "derived_via"}:
            edge_details[str(index)] = edge
    return Subgraph(
        layout="compact", nodes=dict(grouped), edges=edge_rows,
        node_details=node_details or None, edge_details=edge_details or None, **common,  # type: ignore[arg-type]
    )


def _suggest_seeds(ctx: GraphContext, unresolved: list[str], warnings: list[str]) -> None:
    """For each unresolved seed, the entities whose names look like it."""
    from gateway.ids import local_name

    for seed in unresolved:
        words = local_name(seed).replace("_", " ").strip()
        if not words:
            continue
        hits = ctx.search_index.search(words, None, 3, ctx.ids.to_id) if words else []
        picks = [h.id for h in hits if h.id != seed]
        hint = f"; did you mean {', '.join(picks)}?" if picks else ""
        warnings.append(f"seed {seed!r} is not in this graph{hint}")
