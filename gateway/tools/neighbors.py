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

with confidence 1 for a statement that states none (a plain triple). A seed is a
neighbour too where an edge between seeds reaches it (a self-loop reaches its own seed):
listed with `is_seed`, at distance 1 from the seed the edge leaves, scored by that edge.
Neighbours are ranked by score, highest first, then by distance, then by ID (one row a
node: the order is total); the reaching edge of a neighbour is its best one, ties
broken by predicate, then the node one hop closer, then the statement ID, and always
one the walk crossed that way (with `include_incoming` false, along the edge). Pages past
`limit` follow a keyset: `next_cursor` holds the ranking key of a page's last row,
sealed as scan_query's cursors are (`gateway.tools.scan`) and bound to the call's
arguments and the reader's scope. An answer with no neighbour says why in a warning
(`_why_empty`). A passage (`bfs:Passage`) carries its place in its document and
`widen_with: "fetch_slice"`; one whose document the reader may not read is left out, as
`fetch_slice` would not show it.
"""

from __future__ import annotations

import base64
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidTag

from gateway.engine.context import GraphContext
from gateway.engine.name_entries import readable_name
from gateway.engine.names import resolve_terms
from gateway.engine.plan import make_plan
from gateway.engine.presentation import (
    DESCRIPTIONS,
    LABELS,
    PASSAGE_TYPE,
    STATEMENT_TYPE,
    NodeRow,
    StatementData,
    edge_fields,
    node_types,
    types_with_data,
)
from gateway.engine.previews import Preview, previews
from gateway.engine.search import suggest_ids
from gateway.engine.seeds import (
    Seeds,
    held_questions,
    identified_first,
    present_seeds,
    resolve_seeds,
    seed_iris,
    walked_entities,
)
from gateway.engine.walk import EdgeKey, WalkResult, timeout_warning, unnamed_warning, walk
from gateway.errors import InvalidInput
from gateway.ids import local_name
from gateway.models import TRUTH_STATUSES, ExpandNeighborsInput, Neighbor, Neighbors
from gateway.profiles.base import STRUCTURAL_OBJECT, STRUCTURAL_SUBJECT, Hit, HopPlan, StatementFields
from gateway.settings import clamp
from gateway.sparql import iris, writable
from gateway.terms import BFS, Literal, Term, text_of
from gateway.tools.scan import cursor_sealer

MAX_SEEDS = 8
"""Distinct seeds walked from; the rest are unresolved."""
MAX_DEPTH = 3
MAX_LIMIT = 24
MAX_CONTENT = 4000
DECAY = 0.5
"""A neighbour's score is halved for each hop past the first (the module says how)."""

NAMES = (*LABELS, *DESCRIPTIONS)
"""The names a row shows (`presentation.previews` reads no other of a node's data)."""

Place = tuple[str, int | None, str, str | None]
"""A passage's document, index, text, and the text's language where an answer tells it."""


def expand_neighbors(ctx: GraphContext, query: ExpandNeighborsInput) -> Neighbors:
    warnings: list[str] = []
    depth = clamp(query.depth, 1, 1, MAX_DEPTH, field="depth", warnings=warnings)
    limit = clamp(query.limit, 8, 1, MAX_LIMIT, field="limit", warnings=warnings)
    chars = clamp(query.content_max_chars, 500, 1, MAX_CONTENT, field="content_max_chars", warnings=warnings)
    after = _read_cursor(ctx, query) if query.cursor is not None else None
    plan = make_plan(ctx, query.traversal(), warnings)
    wanted = resolve_terms(ctx, query.types, "types", kind="type", warnings=warnings) if query.types else None
    if wanted is not None and not wanted:  # no type asked for is in the graph: nothing to walk
        found, result = resolve_seeds(ctx, query.entity_ids, plan, "entity_ids", warnings, cap=MAX_SEEDS), None
    else:
        found = seed_iris(ctx, query.entity_ids, "entity_ids", warnings, cap=MAX_SEEDS)
        result = _walk_first(ctx, found, plan, depth, warnings)
    suggest_ids(ctx, found, "entity_ids", warnings)
    to_id = ctx.ids.to_id
    answer: dict[str, Any] = dict(origins=[to_id(s) for s in found.iris], unresolved=found.unresolved("unresolved", warnings),
                                  depth=depth, limit=limit, filters=_filters(ctx, query, plan, wanted), warnings=warnings)
    if result is None:
        return Neighbors(neighbors=[], total=0, truncated=False, **answer)  # the warnings above say why
    if result.cut is not None:
        warnings += timeout_warning(result.cut, fewer="hops (depth)") or [
            f"the walk was cut at hop {result.cut.at_hop} ({result.cut.reason}): neighbours past the cut are not "
            "ranked; narrow it with relationship_types or a smaller depth"]
    warnings += unnamed_warning(result)
    listing = _listed(ctx, result, wanted, outward=not query.include_incoming)
    if not listing.reached:
        warnings += _why_empty(ctx, found.iris, plan, result, listing)
    chosen, cursor = _page(ctx, query, listing.reached, after, limit, warnings)
    details = previews(ctx, chosen, listing.types, read=listing.data)
    neighbors = [_neighbor(ctx, n, listing.reached[n], details[n], listing.places.get(n), chars) for n in chosen]
    return Neighbors(neighbors=neighbors, total=len(listing.reached), truncated=cursor is not None or result.cut is not None,
                     next_cursor=cursor, **answer)


def _walk_first(ctx: GraphContext, found: Seeds, plan: HopPlan, depth: int, warnings: list[str]) -> WalkResult | None:
    """The walk from the seeds present (set in `found`, as `resolve_seeds` sets them); None
    where none is. Walked first, as bfs_query walks: a seed the first hop found statements
    of is in the graph, so the store is asked about the others only (a query fewer)."""
    candidates, identified, asked = identified_first(ctx, found.iris, warnings)
    remote = ctx.profile.backend.capabilities.round_trips

    def walked(seeds: list[str]) -> WalkResult:
        return walk(ctx.profile, seeds, plan, max_hops=depth, max_nodes=ctx.settings.default_max_nodes,
                    max_edges=ctx.settings.default_max_edges, count_hidden=False,
                    held=held_questions(ctx, seeds) if remote else ())

    result = walked(candidates) if candidates else None
    seeds = present_seeds(ctx, candidates, plan, found.missing, warnings=warnings, looked_up_before=asked,
                          known=walked_entities(result, identified) if result is not None else (),
                          held_read=result.held if result is not None else None, exact=found.exact)
    if len(seeds) > MAX_SEEDS:  # a canonical ID naming several entities
        warnings.append(f"entity_ids: the seeds name {len(seeds)} entities; the first {MAX_SEEDS} are used")
        seeds = seeds[:MAX_SEEDS]
    found.iris = seeds
    if not seeds:
        return None
    return result if result is not None and seeds == candidates else walked(seeds)


def _page(
    ctx: GraphContext, query: ExpandNeighborsInput, reached: dict[str, _Reach], after: tuple[float, int, str] | None,
    limit: int, warnings: list[str],
) -> tuple[list[str], str | None]:
    """The neighbours of this page, in rank order (those after the cursor's), and the
    cursor of the next page where more follow."""
    to_id = ctx.ids.to_id
    keys = {n: _key(reach, to_id(n)) for n, reach in reached.items()}
    ranked = sorted(reached, key=keys.__getitem__)
    page = [n for n in ranked if keys[n] > after] if after is not None else ranked
    if after is not None and not page and ranked:
        warnings.append("cursor: no neighbour ranks after it (the graph changed since that page): this is the end")
    chosen = page[:limit]
    return chosen, _make_cursor(ctx, query, keys[chosen[-1]]) if len(page) > limit else None


def _key(reach: _Reach, node_id: str) -> tuple[float, int, str]:
    """A neighbour's place in the ranking: best score first, then nearest, then ID (one row
    per node, so no two keys are equal and pages neither repeat nor skip)."""
    return -reach.score, reach.distance, node_id


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


@dataclass
class _Listing:
    reached: dict[str, _Reach]
    """The neighbours the answer may list, each with its best reaching edge."""
    types: dict[str, list[str]]
    places: dict[str, Place]
    walked: int
    """Neighbours the walk reached, before `types` and unreadable passages were left out."""
    of_types: int
    """Those of the wanted types (all of them where none are wanted)."""
    data: dict[str, list[NodeRow]] | None = None
    """The neighbours' data, read with their types where they are few (`types_with_data`)."""


def _listed(ctx: GraphContext, result: WalkResult, wanted: set[str] | None, *, outward: bool) -> _Listing:
    """The neighbours the answer may list, each with its best reaching edge (those of the
    wanted types; a passage only where the reader may read its document), the types of
    every node reached, and the passages' places."""
    stated = [(key, hit) for key, hit in result.edges.items() if key.statement]
    listable = _listable(result)
    both, read = _nodes_and_statements(ctx, listable, stated)
    fields = edge_fields(ctx, stated, read) if stated else []
    reached = _reaching_edges(ctx, result, outward, dict(zip((key for key, _ in stated), fields)))
    walked = len(reached)
    if both is None or not reached.keys() <= set(listable):
        both = types_with_data(ctx, list(reached))
    types, data = both if both is not None else (node_types(ctx, list(reached)), None)
    if wanted is not None:
        reached = {n: r for n, r in reached.items() if wanted & _types_of(n, types)}
    of_types = len(reached)
    places = _passages(ctx, [n for n in reached if PASSAGE_TYPE in types.get(n, ())])
    reached = {n: r for n, r in reached.items() if PASSAGE_TYPE not in types.get(n, ()) or n in places}
    return _Listing(reached, types, places, walked, of_types, data)


def _listable(result: WalkResult) -> list[str]:
    """The nodes an edge may reach (`_distance`): those past the seeds, and seeds an edge
    between seeds joins (a seed's own data is seldom listed, and often its largest)."""
    hops = result.hops
    joined = {n for key in result.edges for n in (key.subject, key.object) if hops.get(key.subject) == hops.get(key.object) == 0}
    return [n for n, hop in hops.items() if hop or n in joined]


FEW_STATEMENTS = 2000
"""Statements whose data `_nodes_and_statements` reads with the nodes' (a chunk's worth)."""
RANKED_FIELDS = (BFS + "truthStatus", BFS + "confidence")
"""The statement data the ranking and a row read (`truth_status`, `confidence`)."""


def _nodes_and_statements(
    ctx: GraphContext, nodes: list[str], stated: list[tuple[EdgeKey, Hit]],
) -> tuple[tuple[dict[str, list[str]], dict[str, list[NodeRow]]] | None, StatementData | None]:
    """`types_with_data` of every node the walk reached (the neighbours among them), with
    the rows of their names only, and the data of its statements the ranking reads
    (`RANKED_FIELDS`), in one query (node_and_statement_data.rq) where both are few and the
    statements named by IRI: on a small graph a query costs more than its rows, and the
    rows more than the query. (None, None) where not."""
    named = list(dict.fromkeys(key.statement or "" for key, _ in stated))
    if not named or len(named) > FEW_STATEMENTS or writable(named) != named:
        return None, None
    claims: list[tuple[Term | None, ...]] = []

    def rows_of(asked: Sequence[str]) -> dict[str, list[NodeRow]]:
        rows: dict[str, list[NodeRow]] = {}
        for x, statement, p, v in ctx.select("node_and_statement_data", ids=iris(asked), statements=iris(named),
                                             names=iris(NAMES, ", "), fields=iris(RANKED_FIELDS)):
            if statement is not None:
                claims.append((statement, p, v))
            elif v is not None:
                rows.setdefault(str(x), []).append((str(p), v, None))
        return rows

    both = types_with_data(ctx, nodes, rows_of)
    return (both, StatementData.read(ctx, (), rows=claims)) if both is not None else (None, None)


class _Reach:
    """How a neighbour was reached: its best edge, from which node, its score and distance;
    `is_seed` for a seed reached from a seed (itself, by a self-loop)."""

    __slots__ = ("confidence", "distance", "edge", "is_seed", "origin", "score", "status")

    def __init__(self, edge: EdgeKey, origin: str, score: float, confidence: float | None, status: str | None,
                 distance: int, is_seed: bool) -> None:
        self.edge, self.origin, self.score, self.confidence, self.status = edge, origin, score, confidence, status
        self.distance, self.is_seed = distance, is_seed


def _reaching_edges(
    ctx: GraphContext, result: WalkResult, outward: bool, data: dict[EdgeKey, StatementFields],
) -> dict[str, _Reach]:
    """Every node reached -> its best reaching edge, scored (the module says how). A seed
    is listed where an edge between seeds reaches it (a self-loop reaches its own seed), at
    distance 1 from the seed the edge leaves; it keeps score 1 for the chains through it."""
    hops = result.hops
    keys = result.edge_keys()
    to_id = ctx.ids.to_id
    score = {node: 1.0 for node, hop in hops.items() if hop == 0}
    best: dict[str, tuple[tuple[float, str, str, str], _Reach]] = {}
    for key in sorted(keys, key=lambda k: hops.get(k.subject, 0) + hops.get(k.object, 0)):
        for origin, node in _crossed(key, outward):
            distance = _distance(hops, origin, node)
            if distance is None:
                continue
            edge = data.get(key)
            confidence = edge.get("confidence") if edge is not None else None
            value = score.get(origin, 0.0) * (confidence if confidence is not None else 1.0)
            value *= 1.0 if distance == 1 else DECAY
            rank = (-value, to_id(key.predicate), to_id(origin), to_id(key.statement) if key.statement else "")
            if node not in best or rank < best[node][0]:
                best[node] = (rank, _Reach(key, origin, round(value, 6), confidence,
                                           edge["truth_status"] if edge is not None else None, distance, hops[node] == 0))
                if hops[node]:
                    score[node] = max(score.get(node, 0.0), value)
    return {node: reach for node, (_, reach) in best.items()}


def _crossed(key: EdgeKey, outward: bool) -> tuple[tuple[str, str], ...]:
    """(from, to) for each way the walk may have crossed an edge: along it only, where it
    walked outward only or the edge is a statement's own link to its subject or object
    (crossed from the statement, whatever the direction); else both ways (a self-loop once)."""
    along = ((key.subject, key.object),)
    if outward or key.predicate in (STRUCTURAL_SUBJECT, STRUCTURAL_OBJECT) or key.subject == key.object:
        return along
    return (*along, (key.object, key.subject))


def _distance(hops: dict[str, int], origin: str, node: str) -> int | None:
    """The distance an edge from `origin` reaches `node` at: one hop past `origin`, or 1 for
    an edge between seeds; None where the edge does not reach it (a back or level edge)."""
    if origin not in hops or node not in hops:
        return None
    if hops[origin] == hops[node] == 0:
        return 1
    return hops[node] if hops[origin] == hops[node] - 1 else None


def _types_of(node: str, types: dict[str, list[str]]) -> set[str]:
    return set(types.get(node, ()))


def _passages(ctx: GraphContext, nodes: Sequence[str]) -> dict[str, Place]:
    """Passage -> (its document, its index, its text, the text's language where an answer
    tells it), for those whose document the reader may read (a passage is never more
    readable than its document)."""
    found: dict[str, Place] = {}
    for start in range(0, len(nodes), 1000):
        for passage, document, index, text in ctx.select("passage_places", ids=iris(nodes[start : start + 1000])):
            position = int(index.value) if isinstance(index, Literal) and index.value.lstrip("-").isdigit() else None
            language = ctx.told_language(text) if isinstance(text, Literal) else None
            found.setdefault(str(passage), (str(document), position, text_of(text), language))
    return found


def _neighbor(
    ctx: GraphContext, node: str, reach: _Reach, detail: Preview, place: Place | None, chars: int,
) -> Neighbor:
    to_id = ctx.ids.to_id
    edge = reach.edge
    name = detail.label or readable_name(local_name(detail.id)) or detail.id
    name_language = detail.label_language if detail.label else None
    if detail.statement is not None:  # a statement as a neighbour: its triple is its name
        name, name_language = f"{detail.statement.subject} {detail.statement.predicate} {detail.statement.object}", None
    text, text_language = _preview(detail, place, name, name_language)
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
        name=name, name_language=name_language, relationship=to_id(edge.predicate),
        direction="outgoing" if edge.subject == reach.origin else "incoming", distance=reach.distance, score=reach.score,
        content=text if len(text) <= chars else text[: max(chars - 1, 0)].rstrip() + "…", content_language=text_language,
        metadata=metadata,
        passage_index=place[1] if place else None, parent_entity_id=to_id(place[0]) if place else None,
        widen_with="fetch_slice" if place else None, is_seed=reach.is_seed or None,
    )


def _preview(
    detail: Preview, place: Place | None, name: str, name_language: str | None,
) -> tuple[str, str | None]:
    """A neighbour's preview and the language it says it is in (the passage text, else the
    description, else the name)."""
    if place is not None and place[2]:
        return place[2], place[3]
    if detail.description:
        return detail.description, detail.description_language
    return name, name_language


# -- an empty answer says why ------------------------------------------------------------
PROBE = 1000
"""Statements of the seeds read at most to tell why a walk found none it may cross."""


def _why_empty(
    ctx: GraphContext, seeds: list[str], plan: HopPlan, result: WalkResult, listing: _Listing,
) -> list[str]:
    """Why an answer lists no neighbour, truthfully: a walk cut before its first hop and
    relationship_types naming no predicate of the graph are said already; else the walk
    found neighbours the types or the reader's documents leave out, or the seeds have no
    statement it may cross, each seed said why (`_no_crossing`)."""
    if (result.cut is not None and result.cut.at_hop == 1) or plan.predicates == ():
        return []
    if listing.walked and not listing.of_types:
        return [f"no neighbours listed: the walk reached {listing.walked}, none of them of the types asked (types "
                "narrows the list, not the walk)"]
    if listing.walked:
        return [f"no neighbours listed: the walk reached {listing.walked}, each a passage of a document this reader "
                "cannot read"]
    return _no_crossing(ctx, writable(seeds), plan)


def _no_crossing(ctx: GraphContext, seeds: list[str], plan: HopPlan) -> list[str]:
    """For seeds the walk crossed no statement of: the statements of the plan's predicates
    and direction that its truth_status, as_of or valid_at hid (read as bfs_query counts
    `hidden_by_filter`); else the relationships of other predicates or directions each seed
    has; else that it has none."""
    if not seeds:
        return []
    to_id = ctx.ids.to_id
    hidden, more = _hidden(ctx, seeds, plan)
    told = [f"no neighbours: {to_id(s)}: {_hidden_by(plan, hidden[s], more)}" for s in seeds if s in hidden]
    rest = [s for s in seeds if s not in hidden]
    others: dict[str, list[Hit]] = {}
    if rest:
        anything = HopPlan(direction="both", truth_status=frozenset(TRUTH_STATUSES))
        for hit in ctx.profile.hop(rest, anything, PROBE)[0]:
            others.setdefault(hit.x, []).append(hit)
    for seed in rest:
        why = _elsewhere(ctx, plan, others[seed]) if seed in others else (
            "it has no relationships, in either direction (describe_entity shows its properties)")
        told.append(f"no neighbours: {to_id(seed)}: {why}")
    return told


def _hidden(ctx: GraphContext, seeds: list[str], plan: HopPlan) -> tuple[dict[str, list[Hit]], bool]:
    """Seed -> the statements of the plan's predicates and direction its filters hide; and
    whether there may be more than were read."""
    read = ctx.profile.hidden(seeds, plan, PROBE) if ctx.profile.can_hide(plan) else []
    hidden: dict[str, dict[tuple[str | None, ...], Hit]] = {}
    for hit in read:
        if hit.via == "s" or (hit.via == "o" and plan.out) or (hit.via == "i" and plan.inward):
            # A self-loop is read twice (the seed is its subject and its object): counted once.
            hidden.setdefault(hit.x, {})[(hit.stmt,) if hit.stmt else (hit.s, hit.p, hit.o)] = hit
    return {seed: list(hits.values()) for seed, hits in hidden.items()}, len(read) >= PROBE


def _hidden_by(plan: HopPlan, hits: list[Hit], more: bool) -> str:
    """What hid a seed's statements: each filter with how many it hid (a statement may fail several)."""
    failed: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    for hit in hits:
        failed.update(hit.failed)
        if "truth_status" in hit.failed:
            statuses[hit.status] += 1
    said = [f"{name} ({count})" for name, count in sorted(failed.items())]
    of = " of relationship_types" if plan.predicates is not None else ""
    status = f"; their statuses: {', '.join(f'{s} ({n})' for s, n in sorted(statuses.items()))}" if statuses else ""
    count = f"at least {len(hits)}" if more else str(len(hits))
    return f"{count} relationship(s){of} in the walked direction(s), each hidden by the filters: {', '.join(said)}{status}"


def _elsewhere(ctx: GraphContext, plan: HopPlan, hits: list[Hit]) -> str:
    """A seed's relationships the plan's predicates or direction do not walk: which they are."""
    to_id = ctx.ids.to_id
    ways = {"o": "outgoing", "i": "incoming", "s": "its own subject or object"}
    seen = sorted({(to_id(h.p), ways[h.via]) for h in hits if h.via in ways})
    named = [h for h in hits if plan.walks(h.p)]
    shown = ", ".join(f"{p} ({way})" for p, way in seen[:8]) + (f" and {len(seen) - 8} more" if len(seen) > 8 else "")
    if named and not plan.inward:
        what = "relationships of relationship_types" if plan.predicates is not None else "relationships"
        return f"its {what} are incoming only: include_incoming true lists them (it has {shown})"
    if plan.predicates is None:
        return f"its only relationships are walked only when relationship_types names them: {shown}"
    return f"none of its relationships is of relationship_types; it has {shown}"


# -- cursors: scan_query's, sealed with the same key and bound to this call ----------------
def _binding(ctx: GraphContext, query: ExpandNeighborsInput) -> bytes:
    """What a cursor belongs to: the call's arguments but the page's own, and the graphs the reader reads."""
    fields = query.model_dump(mode="json", exclude={"cursor", "limit", "content_max_chars"})
    return json.dumps(["neighbors", fields, ctx.scope], sort_keys=True).encode()


def _make_cursor(ctx: GraphContext, query: ExpandNeighborsInput, last: tuple[float, int, str]) -> str:
    sealed = cursor_sealer(ctx).encrypt(json.dumps(last).encode(), [_binding(ctx, query)])
    return base64.urlsafe_b64encode(sealed).decode().rstrip("=")


def _read_cursor(ctx: GraphContext, query: ExpandNeighborsInput) -> tuple[float, int, str]:
    """The ranking key of the last neighbour of the page before (`_key`)."""
    text = query.cursor or ""
    try:
        sealed = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        score, distance, last = json.loads(cursor_sealer(ctx).decrypt(sealed, [_binding(ctx, query)]))
        return float(score), int(distance), str(last)
    except (InvalidTag, ValueError, TypeError):
        raise InvalidInput("cursor: not a cursor this expand_neighbors call issued to this reader (altered, from "
                           "other arguments, or from another reader or deployment)", field="cursor") from None
