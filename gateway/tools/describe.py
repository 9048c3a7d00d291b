"""describe_entity / describe_entities / search_entities: expand stubs, resolve names."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import cast

from gateway.engine.canonical_ids import same_as
from gateway.engine.context import GraphContext
from gateway.engine.names import resolve_terms
from gateway.engine.presentation import bookkeeping, full_nodes, node_types
from gateway.engine.search import search_entities_in, suggest_ids
from gateway.engine.seeds import held_questions, identified_first, present_found, seed_iris
from gateway.engine.statistics import STATISTICS, statistics
from gateway.errors import NotFound
from gateway.models import (
    DescribeEntitiesInput,
    DescribeEntityInput,
    EntitiesDetail,
    EntityDetail,
    RelationshipCount,
    SearchEntitiesInput,
    SearchResult,
    TruthStatus,
)
from gateway.profiles.base import NON_EDGE_PREDICATES, HopPlan
from gateway.settings import clamp
from gateway.sparql import iri, iris
from gateway.terms import Literal, Term, status_name, text_of
from gateway.tools.describe_read import read_entity, unasserted_by_node

MAX_IDS = 100
"""Distinct IDs one describe_entities call describes; the rest are unresolved."""


def describe_entities(ctx: GraphContext, query: DescribeEntitiesInput) -> EntitiesDetail:
    warnings: list[str] = []
    found = seed_iris(ctx, query.ids, "ids", warnings, cap=MAX_IDS)
    # A likely canonical ID is replaced by the entities it identifies before anything is read
    # (as bfs_query does): reading the identifier node first would cost a query for nothing.
    asked, _, looked_up = identified_first(ctx, found.iris, warnings)
    found.iris = asked
    # One entity, as describe_entity asks: its parts in one query where the profile can.
    read = read_entity(ctx, asked[0], held_questions(ctx, asked)) if len(asked) == 1 else None
    present = present_found(ctx, found, HopPlan(), "ids", warnings, cap=MAX_IDS, looked_up_before=looked_up,
                            held_read=(read.asked, read.held) if read is not None else None).iris
    if present != asked:  # the ID named other entities (a canonical ID, another spelling): read those
        read = read_entity(ctx, present[0], present) if len(present) == 1 else None
    suggest_ids(ctx, found, "ids", warnings)
    unresolved = found.unresolved("unresolved", warnings)
    types = node_types(ctx, present) if read is None else {present[0]: read.types}
    links: dict[str, list[tuple[str, Term]]] = {}
    details = full_nodes(ctx, present, types, with_bookkeeping=True, languages=query.languages, warnings=warnings,
                         links=links, read={present[0]: read.rows} if read is not None else None)
    sources = _graphs(ctx, present) if read is None else {present[0]: sorted(ctx.ids.to_id(g) for g in read.graphs)}
    entities = [
        EntityDetail(**details[x].model_dump(exclude_none=True), same_as=_same_as(ctx, x, links, warnings),
                     relationships=_relationship_counts(ctx, x, read.counts if read is not None else None) or None,
                     graphs=sources.get(x) or None)
        for x in present
    ]
    return EntitiesDetail(entities=entities, unresolved=unresolved, warnings=warnings)


def _same_as(ctx: GraphContext, x: str, links: dict[str, list[tuple[str, Term]]], warnings: list[str]) -> list[str] | None:
    """The entity's canonical IDs; those past the bound counted in `warnings`."""
    listed, more = same_as(ctx, x, links.get(x, ()))
    if more:
        warnings.append(f"same_as: {ctx.ids.to_id(x)} has {len(listed) + more} canonical IDs; the first "
                        f"{len(listed)} are listed")
    return listed or None


def describe_entity(ctx: GraphContext, query: DescribeEntityInput) -> EntityDetail:
    result = describe_entities(ctx, DescribeEntitiesInput(ids=[query.id], languages=query.languages))
    if not result.entities:
        raise NotFound("; ".join(w.removeprefix("ids: ").removeprefix("ids[0]: ") for w in result.warnings), field="id")
    return result.entities[0].model_copy(update={"warnings": result.warnings or None})


def _graphs(ctx: GraphContext, entities: list[str]) -> dict[str, list[str]]:
    """Entity -> the named graphs holding its data (as IDs), when the graph read has several."""
    if len(ctx.named_graphs()) < 2 or not entities:
        return {}
    found: dict[str, list[str]] = defaultdict(list)
    for x, g in ctx.select("entity_graphs", ids=iris(entities)):
        if isinstance(g, str):
            found[str(x)].append(ctx.ids.to_id(g))
    return {x: sorted(graphs) for x, graphs in found.items()}


def _relationship_counts(
    ctx: GraphContext, x: str, read: dict[tuple[str, str], Counter[str]] | None = None,
) -> list[RelationshipCount]:
    """Statements per predicate and direction, split as a default walk splits them: those
    it crosses, and per other truth status those it hides. Bookkeeping is no relationship.
    `read`: those relationship_counts.rq counts, read already (`read_entity`)."""
    counts: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    if read is not None:
        counts.update((key, Counter(by_status)) for key, by_status in read.items())
    else:
        skipped = iris((*NON_EDGE_PREDICATES, *bookkeeping(ctx)), ", ")
        for p, d, status, n in ctx.select("relationship_counts", id=iri(x), excluded=skipped):
            if isinstance(p, str) and p not in NON_EDGE_PREDICATES:
                counts[(p, text_of(d))][status_name(status)] += int(n.value) if isinstance(n, Literal) else 0
    hidden = bookkeeping(ctx)
    for p, direction, status in unasserted_by_node(ctx).get(x, ()):
        if p not in hidden:
            counts[(p, direction)][status] += 1
    to_id = ctx.ids.to_id
    default = HopPlan().truth_status
    found = []
    for (p, d), by_status in sorted(counts.items(), key=lambda kv: (to_id(kv[0][0]), kv[0][1])):
        others = {cast(TruthStatus, s): n for s, n in sorted(by_status.items()) if s not in default}
        found.append(RelationshipCount(
            predicate=to_id(p), direction=d,  # type: ignore[arg-type]
            count=sum(n for s, n in by_status.items() if s in default), other_statuses=others or None,
        ))
    return found


def search_entities(ctx: GraphContext, query: SearchEntitiesInput) -> SearchResult:
    warnings: list[str] = []
    types = (
        resolve_terms(ctx, query.entity_types, "entity_types", kind="type", warnings=warnings)
        if query.entity_types else None
    )
    limit = clamp(query.limit, 10, 1, 100, field="limit", warnings=warnings)
    if types is not None and not types:  # every type named is unknown: nothing to search in
        return SearchResult(query=query.query, results=[], warnings=warnings)
    hits = search_entities_in(ctx, query.query, types, limit, warnings)
    if not hits:
        within = " of these types" if types else ""
        warnings.append(f"no entity{within} is named like {query.query!r}; try fewer or other words")
        if ctx.computed(STATISTICS):  # what the profile leaves out, where counted already (no wait)
            warnings += ctx.profile.schema_warnings(statistics(ctx))
    return SearchResult(query=query.query, results=hits, warnings=warnings)
