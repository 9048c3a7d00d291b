"""bfs_query: walk from seeds; topology from the traversal, detail from presentation filters."""

from __future__ import annotations

from collections import Counter, defaultdict
from itertools import repeat
from typing import Any

from gateway.engine.context import GraphContext
from gateway.engine.name_entries import readable_name
from gateway.engine.plan import make_path, make_plan, resolve_presentation
from gateway.engine.presentation import (
    NodeRow,
    TypeNames,
    TypesAhead,
    derive_label,
    full_edges,
    full_nodes,
    has_rdf_type,
    has_types,
    node_types,
    types_with_data,
)
from gateway.engine.search import normalize, suggest_ids
from gateway.engine.seeds import held_questions, identified_first, present_seeds, seed_iris, walked_entities
from gateway.engine.walk import WalkResult, timeout_warning, unnamed_warning, walk
from gateway.errors import InvalidInput
from gateway.ids import IdMap, local_name
from gateway.models import (
    BfsQueryInput,
    CompactSubgraph,
    Edge,
    EdgeStub,
    Limits,
    Node,
    NodeStub,
    PathEnds,
    Subgraph,
    Text,
    Truncation,
)
from gateway.profiles.base import HopPlan, types_of_rows
from gateway.settings import Settings, clamp
from gateway.sparql import writable

MAX_SEEDS = 256
"""Distinct seeds a walk starts from; the rest are unresolved (the models' description says so)."""


def bfs_query(ctx: GraphContext, query: BfsQueryInput) -> Subgraph | CompactSubgraph:
    settings = ctx.settings
    warnings: list[str] = []
    limits = Limits(
        max_hops=_hops(query, settings, warnings),
        max_nodes=clamp(query.max_nodes, settings.default_max_nodes, 1, settings.max_nodes, field="max_nodes",
                        warnings=warnings),
        max_edges=clamp(query.max_edges, settings.default_max_edges, 0, settings.max_edges, field="max_edges",
                        warnings=warnings),
        seeds=MAX_SEEDS,
    )
    traits = frozenset(query.expand_traits)
    plan = make_plan(ctx, query.traversal(), warnings, traits)
    steps = _steps(ctx, query, plan)
    found = seed_iris(ctx, query.seeds, "seeds", warnings, cap=MAX_SEEDS)
    limits.seeds = min(len(found.iris) + len(found.missing) + len(found.past_cap), MAX_SEEDS)
    candidates, identified, asked = identified_first(ctx, found.iris, warnings)
    node_filter, edge_filter = resolve_presentation(ctx, query, warnings)

    remote = ctx.profile.backend.capabilities.round_trips
    # Where a query is a round trip, a 2-hop walk may read the nodes' types with its hops: one
    # round trip fewer; in process, they are read beside the walk.
    types = remote and limits.max_hops == 2 and steps is None and has_types(ctx)
    ahead = TypesAhead(ctx) if not remote and limits.max_hops > 1 and has_rdf_type(ctx) else None

    def walked(seeds: list[str]) -> WalkResult:
        return walk(ctx.profile, seeds, plan, max_hops=limits.max_hops, max_nodes=limits.max_nodes,
                    max_edges=limits.max_edges, traits=traits, types=types, on_reached=ahead, steps=steps,
                    held=held_questions(ctx, seeds) if remote else ())

    # Walk first: a seed the first hop found statements of is in the graph, so the store
    # is asked about the others only (over HTTP, a round trip fewer per walk).
    try:
        result = walked(candidates)
        seeds = present_seeds(ctx, candidates, plan, found.missing, known=walked_entities(result, identified),
                              warnings=warnings, looked_up_before=asked, held_read=result.held,
                              exact=found.exact)
        if seeds != candidates:
            if result.cut is not None or any(s not in candidates for s in seeds):
                result = walked(seeds)  # a seed not in the graph held a place, or one was a URL synonym
            else:
                _without(result, set(candidates) - set(seeds))
        per_hop = Counter(result.hops.values())
        hop_counts = [per_hop[hop] for hop in range(max(per_hop, default=-1) + 1)]
        nodes, edges = _present(ctx, result, hop_counts, query, node_filter, edge_filter, ahead, plan)
    finally:
        if ahead is not None:
            ahead.close()
    suggest_ids(ctx, found, "seeds", warnings)
    unresolved = found.unresolved("unresolved_seeds", warnings)
    warnings += timeout_warning(result.cut)
    warnings += unnamed_warning(result)
    if result.hidden_capped:
        warnings.append("hidden_by_filter counts are lower bounds (too many hidden statements to count)")
    # Built by the core, not validated again: the surfaces serialize it as it is.
    common: dict[str, Any] = dict(
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
        path_ends=_path_ends(ctx, result, nodes if query.layout == "default" else []),
        warnings=warnings,
    )
    if query.layout == "compact":
        return _compact(nodes, edges, common, _labels(ctx, list(result.hops), nodes))
    return Subgraph.model_construct(nodes=nodes, edges=edges, **common)


def _without(result: WalkResult, absent: set[str]) -> None:
    """The walk without seeds the graph lacks (they reached nothing: no later layer has them)."""
    for seed in absent:
        del result.hops[seed]
    if result.layers:
        result.layers[0] = [s for s in result.layers[0] if s not in absent]


def _hops(query: BfsQueryInput, settings: Settings, warnings: list[str]) -> int:
    """The walk's hops: max_hops clamped, or a path's length (`_path_hops`)."""
    if query.path:
        return _path_hops(query, settings, len(query.path))
    return clamp(query.max_hops, 1, 0, settings.max_hops, field="max_hops", warnings=warnings)


def _path_hops(query: BfsQueryInput, settings: Settings, length: int) -> int:
    """A path walk's hops: one per step. A walk-wide predicate filter beside a path, or a
    max_hops given that is not the path's length, is refused as ambiguous."""
    for name in ("predicates", "exclude_predicates"):
        if getattr(query, name):
            raise InvalidInput(f"{name}: a path names each hop's predicates (path.<i>.predicates); leave {name} out",
                               field=name)
    if "max_hops" in query.model_fields_set and query.max_hops != length:
        raise InvalidInput(f"max_hops: a path walk takes one hop per step ({length} here); leave max_hops out",
                           field="max_hops")
    if length > settings.max_hops:
        raise InvalidInput(f"path: at most {settings.max_hops} steps here (max_hops)", field="path")
    return length


def _steps(ctx: GraphContext, query: BfsQueryInput, plan: HopPlan) -> list[HopPlan] | None:
    """A path walk's plan per hop (None for a walk that is no path); a step without a
    direction walks the walk's own."""
    if not query.path:
        return None
    return make_path(ctx, plan, [(step.predicates, step.direction or query.direction) for step in query.path])


def _path_ends(ctx: GraphContext, result: WalkResult, nodes: list[NodeStub | Node]) -> PathEnds | None:
    """Where the path ends, in ID order; None for a walk that is no path. Every end is a
    node of the answer, so max_nodes bounds them: all are listed, the answer to a path
    question whole. The ends listed among `nodes` as stubs are labelled here, where the
    label says more than the ID (a compact answer's nodes carry their labels, a full node
    its own: `nodes` is then empty)."""
    if result.layers is None:
        return None
    by_id = {ctx.ids.to_id(end): end for end in result.path_ends()}
    listed = sorted(by_id)
    stubs = {node["id"] for node in nodes if isinstance(node, dict)}
    labels = _informative_labels(ctx, [by_id[i] for i in listed if i in stubs])
    return PathEnds.model_construct(ids=listed, total=len(listed), labels=labels or None,
                                    truncated=True if result.cut is not None else None)


def _present(
    ctx: GraphContext, result: WalkResult, hop_counts: list[int], query: BfsQueryInput,
    node_filter: set[str] | None, edge_filter: set[str] | None, ahead: TypesAhead | None, plan: HopPlan,
) -> tuple[list[NodeStub | Node], list[EdgeStub | Edge]]:
    """Nodes and edges in response order: full where the filters ask, stubs elsewhere. The
    edges first: the last nodes' types are read meanwhile (`ahead`)."""
    ids = ctx.ids.id_map(result.hops)
    # The edges' map learns predicates' and statements' IDs: `ids` stays the nodes'.
    edge_ids = IdMap(ids, ids.to_id)
    if result.plain:
        edges = _plain_edges(result.plain, edge_ids, query.topology_only, edge_filter)
    else:
        edges = _statement_edges(ctx, result, edge_ids, query, edge_filter)
    # Every node full, and few: their types read with their data, one query fewer.
    both = (types_with_data(ctx, list(result.hops))
            if not query.topology_only and node_filter is None and ahead is None and not result.types else None)
    if both is not None:
        return _nodes(ctx, result, ids, hop_counts, query, node_filter, both[0], both[1]), edges
    types = _one_hop_types(ctx, result, hop_counts, plan) if ahead is None and result.types is None else None
    if types is None:
        types = node_types(ctx, list(result.hops), ahead.collect() if ahead is not None else result.types)
    return _nodes(ctx, result, ids, hop_counts, query, node_filter, types), edges


JOINED_TYPES = 80
"""Nodes past which `_one_hop_types` joins types from the edges: below, naming the nodes in a
VALUES block costs the store less (~6 nodes: 0.04 against 0.08 ms; ~88: 0.25 against 0.25;
336: 1.04 against 0.87)."""


def _one_hop_types(
    ctx: GraphContext, result: WalkResult, hop_counts: list[int], plan: HopPlan,
) -> dict[str, list[str]] | None:
    """`node_types` of an uncut 1-hop walk, read in one query joined from its seeds' edges
    (`Profile.reached_types`: the store reads them ~15% faster than by the nodes' IRIs);
    None for any other walk, or where that query does not apply or reads more than a few
    types a row."""
    if (len(hop_counts) != 2 or len(result.hops) <= JOINED_TYPES or result.cut is not None
            or result.layers is not None):
        return None
    if not has_types(ctx):
        return defaultdict(list)
    seeds = [node for node, hop in result.hops.items() if hop == 0]
    named = writable(list(result.hops))
    if not has_rdf_type(ctx) or ctx.profile.statement_candidates(named) or writable(seeds) != seeds:
        return None
    written = ctx.profile.reached_types(seeds, plan, 8 * (result.edge_count() + len(seeds)) + 256, result.hops)
    if written is None:
        return None
    read = types_of_rows(written)
    if len(named) < len(result.hops):  # what no query can name is not typed, as `node_types` leaves it
        read = {n: read[n] for n in named if n in read}
    return defaultdict(list, read)


def _nodes(
    ctx: GraphContext, result: WalkResult, ids: IdMap, hop_counts: list[int], query: BfsQueryInput,
    node_filter: set[str] | None, types: dict[str, list[str]], data: dict[str, list[NodeRow]] | None = None,
) -> list[NodeStub | Node]:
    """The nodes by hop, then ID: full where the node filter asks, stubs elsewhere (`data`:
    their node_data.rq rows, read already)."""
    kinds = TypeNames(ctx.ids.to_id)
    untyped = kinds(())
    if query.topology_only and not types:  # stubs of one type: only their IDs need ordering
        return [{"id": node, "entity_type": untyped} for node in _by_hop_then_id(list(ids.values()), hop_counts)]
    # By hop, then ID: two sorts keyed by C-level lookups (no Python call per node).
    order = sorted(result.hops, key=ids.__getitem__)
    order.sort(key=result.hops.__getitem__)
    if query.topology_only:
        full: list[str] = []
    elif node_filter is None:
        full = order
    else:
        full = [n for n in order if node_filter & set(types.get(n, ()))]
    # Nodes of the same types share one list (`node_types`): each list is named once, and a
    # node costs a lookup by its list's identity.
    none: list[str] = []
    lists = types.values()
    named = {key: kinds(listed) for key, listed in dict(zip(map(id, lists), lists)).items()}
    named[id(none)] = untyped
    if not full:
        return [{"id": ids[n], "entity_type": named[id(types.get(n, none))]} for n in order]
    details = full_nodes(ctx, full, types, valid_at=query.valid_at, read=data)
    return [details.get(n) or {"id": ids[n], "entity_type": named[id(types.get(n, none))]} for n in order]


def _statement_edges(
    ctx: GraphContext, result: WalkResult, ids: IdMap, query: BfsQueryInput, edge_filter: set[str] | None,
) -> list[EdgeStub | Edge]:
    """The edges of a walk over statements in response order: full where the edge filter
    asks, stubs elsewhere."""
    to_id = ctx.ids.to_id
    if query.topology_only:
        # A stub shows no statement: two statements of one triple are one stub twice, so
        # their order needs no statement IDs (a lookup per edge).
        rows = sorted((ids[k.subject], ids[k.predicate], ids[k.object], k.derived_via or "") for k in result.edges)
        return [
            {"subject": s, "predicate": p, "object": o, "derived_via": derive_label(derived, to_id)} if derived
            else {"subject": s, "predicate": p, "object": o}
            for s, p, o, derived in rows
        ]
    ids.update(ctx.ids.id_map({key.statement for key in result.edges if key.statement}))
    keyed = sorted(
        ((ids[key.subject], ids[key.predicate], ids[key.object], ids[key.statement] if key.statement else "",
          key.derived_via or ""), key, hit)
        for key, hit in result.edges.items()
    )
    wanted = [(key, hit) for _, key, hit in keyed if edge_filter is None or key.predicate in edge_filter]
    detailed = dict(zip((k for k, _ in wanted), full_edges(ctx, wanted, valid_at=query.valid_at))) if wanted else {}
    edges: list[EdgeStub | Edge] = []
    for (s, p, o, _, derived), key, _ in keyed:
        found = detailed.get(key)
        if found is not None:
            edges.append(found)
            continue
        stub: EdgeStub = {"subject": s, "predicate": p, "object": o}
        if derived:
            stub["derived_via"] = derive_label(derived, to_id)
        edges.append(stub)
    return edges


def _by_hop_then_id(ids: list[str], hop_counts: list[int]) -> list[str]:
    """Node IDs listed as the walk reached them (`WalkResult.hops`) by hop, then ID: each
    hop's run sorted as strings, with no call per node."""
    start = 0
    for count in hop_counts:
        ids[start : start + count] = sorted(ids[start : start + count])
        start += count
    return ids


def _plain_edges(
    lines: dict[str, str], ids: IdMap, topology_only: bool, edge_filter: set[str] | None,
) -> list[EdgeStub | Edge]:
    """The edges of a walk over plain data in response order; each is an asserted_true
    triple without a statement, so a full edge is its stub with that status."""
    # Made in IRI order, which the prefixes mostly keep: the sort into ID order is then a
    # pass over runs, and IRI strings sort faster than tuples of IDs.
    if topology_only:
        # Split, mapped to IDs and grouped in threes in C: no Python code per edge.
        mapped = map(ids.__getitem__, "\t".join(sorted(lines)).split("\t"))
        stubs = list(zip(mapped, mapped, mapped))
        stubs.sort()
        return [{"subject": s, "predicate": p, "object": o} for s, p, o in stubs]
    rows = [(ids[s], ids[p], ids[o], p) for s, p, o in map(str.split, sorted(lines), repeat("\t"))]
    rows.sort()
    return [
        Edge(subject=s, predicate=p, object=o, truth_status="asserted_true")
        if edge_filter is None or iri in edge_filter else {"subject": s, "predicate": p, "object": o}
        for s, p, o, iri in rows
    ]


LABEL_CHARS = 60
"""A compact answer's labels are cut to this length (marked with …): a title is not a name."""


def _labels(ctx: GraphContext, iris: list[str], nodes: list[NodeStub | Node]) -> dict[str, str | Text]:
    """Node ID -> label for the nodes a compact answer lists without data, where the label
    says more than the ID does (`DBPedia:Cushing's_disease` needs none)."""
    stubs = {node["id"] for node in nodes if isinstance(node, dict)}
    return _informative_labels(ctx, [iri for iri in iris if ctx.ids.to_id(iri) in stubs])


def _informative_labels(ctx: GraphContext, iris: list[str]) -> dict[str, str | Text]:
    """ID -> label of these nodes, where the label says more than the ID, cut to LABEL_CHARS;
    one in another language than the reader's as {text, language} (a synonym's form: in a
    map of strings a sibling field would repeat each ID, and text may hold any "@")."""
    found = ctx.label_texts(iris) if iris else {}
    labels: dict[str, str | Text] = {}
    for iri, label in found.items():
        node_id, text = ctx.ids.to_id(iri), label.value
        if normalize(readable_name(local_name(node_id)) or "") != normalize(text):
            text = text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1].rstrip() + "…"
            language = ctx.told_language(label)
            labels[node_id] = text if language is None else {"text": text, "language": language}
    return labels


def _compact(
    nodes: list[NodeStub | Node], edges: list[EdgeStub | Edge], common: dict[str, Any],
    labels: dict[str, str | Text],
) -> CompactSubgraph:
    """Each item once: stub nodes as IDs and labels grouped by type, stub edges as an
    adjacency map (trait-derived ones apart), full items as objects in the details."""
    grouped: dict[str, dict[str, str | Text | None]] = defaultdict(dict)
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
    return CompactSubgraph.model_construct(
        nodes=dict(grouped), edges={s: dict(ps) for s, ps in adjacency.items()},
        derived_edges=derived or None, node_details=node_details or None, edge_details=edge_details or None,
        **common,
    )
