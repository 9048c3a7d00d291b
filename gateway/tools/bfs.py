"""bfs_query: walk from seeds; topology from the traversal, detail from presentation filters."""

from __future__ import annotations

from collections import defaultdict

from gateway.engine.context import GraphContext
from gateway.engine.plan import make_plan, resolve_presentation
from gateway.engine.presentation import (
    TypeNames,
    derive_label,
    full_edges,
    full_nodes,
    node_types,
)
from gateway.engine.search import normalize, readable_name, suggest_ids
from gateway.engine.walk import EdgeKey, WalkResult, walk
from gateway.ids import local_name
from gateway.models import BfsQueryInput, Edge, Limits, Node, Subgraph, Truncation
from gateway.profiles.base import Hit
from gateway.settings import clamp


def bfs_query(ctx: GraphContext, query: BfsQueryInput) -> Subgraph:
    settings = ctx.settings
    warnings: list[str] = []
    limits = Limits(
        max_hops=clamp(query.max_hops, 1, 0, settings.max_hops, field="max_hops", warnings=warnings),
        max_nodes=clamp(query.max_nodes, settings.default_max_nodes, 1, settings.max_nodes, field="max_nodes",
                        warnings=warnings),
        max_edges=clamp(query.max_edges, settings.default_max_edges, 0, settings.max_edges, field="max_edges",
                        warnings=warnings),
        seeds=min(len(query.seeds), settings.max_seeds),
    )
    traits = frozenset(query.expand_traits)
    plan = make_plan(ctx, query, warnings, traits)
    seeds, unresolved = ctx.resolve_seeds(query.seeds, plan, "seeds", warnings)
    node_filter, edge_filter = resolve_presentation(ctx, query, warnings)
    result = walk(
        ctx.profile, seeds, plan, max_hops=limits.max_hops, max_nodes=limits.max_nodes,
        max_edges=limits.max_edges, traits=traits,
    )
    suggest_ids(ctx, unresolved, "seeds", warnings)
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
        return _compact(nodes, edges, common, _labels(ctx, list(result.hops), nodes))
    return Subgraph(nodes=nodes, edges=edges, **common)  # type: ignore[arg-type]


def _present(
    ctx: GraphContext, result: WalkResult, query: BfsQueryInput,
    node_filter: set[str] | None, edge_filter: set[str] | None,
) -> tuple[list[Node | dict[str, str]], list[Edge | dict[str, str]]]:
    """Nodes and edges in response order: full where the filters ask, stubs (plain dicts,
    validated with the whole response in one pass) elsewhere."""
    to_id = ctx.ids.to_id
    ids = {node: to_id(node) for node in result.hops}
    order = sorted(result.hops, key=lambda n: (result.hops[n], ids[n]))
    types = node_types(ctx, order)
    if query.topology_only:
        full: list[str] = []
    elif node_filter is None:
        full = order
    else:
        full = [n for n in order if node_filter & set(types.get(n, ()))]
    details = full_nodes(ctx, full, types) if full else {}
    kinds = TypeNames(to_id)
    nodes = [details.get(n) or {"id": ids[n], "entity_type": kinds(types.get(n, ()))} for n in order]

    for key in result.edges:  # predicates and statement IDs join the node IDs already made
        for part in (key.predicate, key.statement):
            if part and part not in ids:
                ids[part] = to_id(part)
    keyed = sorted(
        ((ids[key.subject], ids[key.predicate], ids[key.object], ids[key.statement] if key.statement else "",
          key.derived_via or ""), key, hit)
        for key, hit in result.edges.items()
    )
    if query.topology_only:
        wanted: list[tuple[EdgeKey, Hit]] = []
    else:
        wanted = [(key, hit) for _, key, hit in keyed if edge_filter is None or key.predicate in edge_filter]
    detailed = dict(zip((k for k, _ in wanted), full_edges(ctx, wanted))) if wanted else {}
    edges: list[Edge | dict[str, str]] = []
    for (s, p, o, _, derived), key, _ in keyed:
        found = detailed.get(key)
        if found is not None:
            edges.append(found)
            continue
        stub = {"subject": s, "predicate": p, "object": o}
        if derived:
            stub["derived_via"] = derive_label(derived, to_id)
        edges.append(stub)
    return nodes, edges


LABEL_CHARS = 60
"""A compact answer's labels are cut to this length (marked with …): a title is not a name."""


def _labels(ctx: GraphContext, iris: list[str], nodes: list[Node | dict[str, str]]) -> dict[str, str]:
    """Node ID -> label for the nodes a compact answer lists without data, where the label
    says more than the ID does (`DBPedia:Cushing's_disease` needs none)."""
    stubs = {node["id"] for node in nodes if isinstance(node, dict)}
    found = ctx.labels([iri for iri in iris if ctx.ids.to_id(iri) in stubs])
    labels = {}
    for iri, label in found.items():
        node_id = ctx.ids.to_id(iri)
        if normalize(readable_name(local_name(node_id)) or "") != normalize(label):
            labels[node_id] = label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1].rstrip() + "…"
    return labels


def _compact(
    nodes: list[Node | dict[str, str]], edges: list[Edge | dict[str, str]], common: dict[str, object],
    labels: dict[str, str],
) -> Subgraph:
    """Each item once: stub nodes as IDs and labels grouped by type, stub edges as an
    adjacency map (trait-derived ones apart), full items as objects in the details."""
    grouped: dict[str, dict[str, str | None]] = defaultdict(dict)
    node_details: list[Node] = []
    for node in nodes:
        if isinstance(node, dict):
            grouped[node["entity_type"]][node["id"]] = labels.get(node["id"])
        else:
            node_details.append(node)
    adjacency: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    derived: list[list[str]] = []
    edge_details: list[Edge] = []
    for edge in edges:
        if not isinstance(edge, dict):
            edge_details.append(edge)
        elif "derived_via" in edge:
            derived.append([edge["subject"], edge["predicate"], edge["object"], edge["derived_via"]])
        else:
            adjacency[edge["subject"]][edge["predicate"]].append(edge["object"])
    return Subgraph(
        layout="compact", nodes=dict(grouped), edges={s: dict(ps) for s, ps in adjacency.items()},
        derived_edges=derived or None, node_details=node_details or None, edge_details=edge_details or None,
        **common,  # type: ignore[arg-type]
    )
