"""expand_neighbors: the seeds' neighbours as a ranked, bounded list, each with a preview.

`bfs_query` answers a subgraph; this answers a list an agent can read in one go: the
entities up to `depth` relationships from the seeds, walked as `bfs_query` walks (the
same traversal filters, reader scopes and budgets), each with the relationship that
reached it from a node one hop closer, ranked, at most `limit` of them, each with a
preview of at most `content_max_chars` characters. `types` narrows the answer, not the
walk: a neighbour of a type asked for two hops out is found through a first hop of any
type. `direction` is the reaching edge seen from the node one hop closer, so at distance
2 an "incoming" row points at its own predecessor, not at the seed.

The score of a neighbour is the most confident chain that reaches it:

    score(seed) = 1
    score(n)    = max over edges e reaching n from m one hop closer of
                  score(m) * confidence(e) * (1 at distance 1, else DECAY)

with confidence 1 for a statement that states none (a plain triple). Neighbours are
ranked by score, highest first, then by distance, then by ID; the reaching edge of a
neighbour is its best one, ties broken by predicate, then the node one hop closer,
then the statement ID. A passage (`bfs:Passage`) carries its place in its document and
`widen_with: "fetch_slice"`; one whose document the reader may not read is left out, as
`fetch_slice` would not show it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gateway.engine.context import GraphContext
from gateway.engine.names import resolve_terms
from gateway.engine.plan import make_plan
from gateway.engine.presentation import PASSAGE_TYPE, STATEMENT_TYPE, full_edges, full_nodes, node_types
from gateway.engine.search import readable_name, suggest_ids
from gateway.engine.seeds import resolve_seeds
from gateway.engine.walk import EdgeKey, WalkResult, timeout_warning, unnamed_warning, walk
from gateway.ids import local_name
from gateway.models import ExpandNeighborsInput, Neighbor, Neighbors
from gateway.profiles.base import HopPlan
from gateway.settings import clamp
from gateway.sparql import iris
from gateway.terms import Literal, text_of

MAX_SEEDS = 8
"""Distinct seeds walked from; the rest are unresolved."""
MAX_DEPTH = 3
MAX_LIMIT = 24
MAX_CONTENT = 4000
DECAY = 0.5
"""A neighbour's score is halved for each hop past the first (the module says how)."""


def expand_neighbors(ctx: GraphContext, query: ExpandNeighborsInput) -> Neighbors:
    warnings: list[str] = []
    depth = clamp(query.depth, 1, 1, MAX_DEPTH, field="depth", warnings=warnings)
    limit = clamp(query.limit, 8, 1, MAX_LIMIT, field="limit", warnings=warnings)
    chars = clamp(query.content_max_chars, 500, 1, MAX_CONTENT, field="content_max_chars", warnings=warnings)
    plan = make_plan(ctx, query.traversal(), warnings)
    wanted = resolve_terms(ctx, query.types, "types", kind="type", warnings=warnings) if query.types else None
    found = resolve_seeds(ctx, query.entity_ids, plan, "entity_ids", warnings, cap=MAX_SEEDS)
    suggest_ids(ctx, found, "entity_ids", warnings)
    to_id = ctx.ids.to_id
    answer: dict[str, Any] = dict(origins=[to_id(s) for s in found.iris], unresolved=found.unresolved("unresolved", warnings),
                                  depth=depth, limit=limit, filters=_filters(ctx, query, plan, wanted), warnings=warnings)
    if not found.iris or (wanted is not None and not wanted):
        return Neighbors(neighbors=[], total=0, truncated=False, **answer)
    result = walk(ctx.profile, found.iris, plan, max_hops=depth, max_nodes=ctx.settings.default_max_nodes,
                  max_edges=ctx.settings.default_max_edges, count_hidden=False)
    if result.cut is not None:
        warnings += timeout_warning(result.cut, fewer="hops (depth)") or [
            f"the walk was cut at hop {result.cut.at_hop} ({result.cut.reason}): neighbours past the cut are not "
            "ranked; narrow it with relationship_types or a smaller depth"]
    warnings += unnamed_warning(result)
    reached, types, places = _listed(ctx, result, wanted)
    ranked = sorted(reached, key=lambda n: (-reached[n].score, result.hops[n], to_id(n)))
    chosen = ranked[:limit]
    details = full_nodes(ctx, chosen, types)
    neighbors = [_neighbor(ctx, n, reached[n], result.hops[n], details[n], places.get(n), chars) for n in chosen]
    return Neighbors(neighbors=neighbors, total=len(ranked), truncated=len(ranked) > limit or result.cut is not None,
                     **answer)


def _filters(ctx: GraphContext, query: ExpandNeighborsInput, plan: HopPlan, wanted: set[str] | None) -> dict[str, Any]:
    """The filters the walk applied, as the answer states them."""
    to_id = ctx.ids.to_id
    filters: dict[str, Any] = {"include_incoming": query.include_incoming, "truth_status": sorted(plan.truth_status)}
    if plan.predicates is not None:
        filters["relationship_types"] = [to_id(p) for p in plan.predicates]
    if wanted is not None:
        filters["types"] = sorted(to_id(t) for t in wanted)
    for name in ("as_of", "valid_at"):
        if getattr(plan, name) is not None:
            filters[name] = str(getattr(plan, name))
    return filters


def _listed(
    ctx: GraphContext, result: WalkResult, wanted: set[str] | None,
) -> tuple[dict[str, _Reach], dict[str, list[str]], dict[str, tuple[str, int | None, str]]]:
    """The neighbours the answer may list, each with its best reaching edge (those of the
    wanted types; a passage only where the reader may read its document), the types of
    every node reached, and the passages' places."""
    reached = _reaching_edges(ctx, result)
    types = node_types(ctx, list(reached))
    if wanted is not None:
        reached = {n: r for n, r in reached.items() if wanted & _types_of(n, types)}
    places = _passages(ctx, [n for n in reached if PASSAGE_TYPE in types.get(n, ())])
    reached = {n: r for n, r in reached.items() if PASSAGE_TYPE not in types.get(n, ()) or n in places}
    return reached, types, places


class _Reach:
    """How a neighbour was reached: its best edge, from which node, and its score."""

    __slots__ = ("confidence", "edge", "origin", "score", "status")

    def __init__(self, edge: EdgeKey, origin: str, score: float, confidence: float | None, status: str | None) -> None:
        self.edge, self.origin, self.score, self.confidence, self.status = edge, origin, score, confidence, status


def _reaching_edges(ctx: GraphContext, result: WalkResult) -> dict[str, _Reach]:
    """Every node past the seeds -> its best reaching edge, scored (the module says how)."""
    hops = result.hops
    keys = result.edge_keys()
    stated = [(key, hit) for key, hit in result.edges.items() if key.statement]
    data = dict(zip((key for key, _ in stated), full_edges(ctx, stated))) if stated else {}
    to_id = ctx.ids.to_id
    score = {node: 1.0 for node, hop in hops.items() if hop == 0}
    best: dict[str, tuple[tuple[float, str, str, str], _Reach]] = {}
    for key in sorted(keys, key=lambda k: hops.get(k.subject, 0) + hops.get(k.object, 0)):
        for origin, node in ((key.subject, key.object), (key.object, key.subject)):
            if origin == node or node not in hops or hops.get(origin) != hops[node] - 1:
                continue
            edge = data.get(key)
            confidence = edge.confidence if edge is not None else None
            value = score.get(origin, 0.0) * (confidence if confidence is not None else 1.0)
            value *= 1.0 if hops[node] == 1 else DECAY
            rank = (-value, to_id(key.predicate), to_id(origin), to_id(key.statement) if key.statement else "")
            if node not in best or rank < best[node][0]:
                best[node] = (rank, _Reach(key, origin, round(value, 6), confidence,
                                           edge.truth_status if edge is not None else None))
                score[node] = max(score.get(node, 0.0), value)
    return {node: reach for node, (_, reach) in best.items()}


def _types_of(node: str, types: dict[str, list[str]]) -> set[str]:
    return set(types.get(node, ()))


def _passages(ctx: GraphContext, nodes: Sequence[str]) -> dict[str, tuple[str, int | None, str]]:
    """Passage -> (its document, its index, its text), for those whose document the
    reader may read (a passage is never more readable than its document)."""
    found: dict[str, tuple[str, int | None, str]] = {}
    for start in range(0, len(nodes), 1000):
        for passage, document, index, text in ctx.select("passage_places", ids=iris(nodes[start : start + 1000])):
            position = int(index.value) if isinstance(index, Literal) and index.value.lstrip("-").isdigit() else None
            found.setdefault(str(passage), (str(document), position, text_of(text)))
    return found


def _neighbor(
    ctx: GraphContext, node: str, reach: _Reach, distance: int, detail: Any, place: tuple[str, int | None, str] | None,
    chars: int,
) -> Neighbor:
    to_id = ctx.ids.to_id
    edge = reach.edge
    name = detail.label or readable_name(local_name(detail.id)) or detail.id
    if detail.statement is not None:  # a statement as a neighbour: its triple is its name
        name = f"{detail.statement.subject} {detail.statement.predicate} {detail.statement.object}"
    text = place[2] if place is not None and place[2] else detail.description or name
    metadata: dict[str, Any] = {"from": to_id(reach.origin)}
    if edge.statement:
        metadata["statement"] = to_id(edge.statement)
    if reach.status is not None:
        metadata["truth_status"] = reach.status
    if reach.confidence is not None:
        metadata["confidence"] = reach.confidence
    if detail.types:
        metadata["types"] = detail.types
    return Neighbor(
        id=detail.id, type=detail.entity_type if STATEMENT_TYPE not in (detail.types or ()) else "Statement",
        name=name, relationship=to_id(edge.predicate),
        direction="outgoing" if edge.subject == reach.origin else "incoming", distance=distance, score=reach.score,
        content=text if len(text) <= chars else text[: max(chars - 1, 0)].rstrip() + "…", metadata=metadata,
        passage_index=place[1] if place else None, parent_entity_id=to_id(place[0]) if place else None,
        widen_with="fetch_slice" if place else None,
    )
