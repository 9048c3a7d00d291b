"""describe_entity / describe_entities / search_entities: expand stubs, resolve names."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import cast

from gateway.engine.canonical_ids import same_as
from gateway.engine.context import GraphContext
from gateway.engine.names import resolve_terms
from gateway.engine.presentation import bookkeeping, full_nodes, node_types
from gateway.engine.search import search_entities_in, suggest_ids
from gateway.engine.seeds import resolve_seeds
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
from gateway.profiles.graph import MemoKey
from gateway.settings import clamp
from gateway.sparql import iri, iris
from gateway.terms import Literal, Term, status_name, text_of

MAX_IDS = 100
"""Distinct IDs one describe_entities call describes; the rest are unresolved."""


def describe_entities(ctx: GraphContext, query: DescribeEntitiesInput) -> EntitiesDetail:
    warnings: list[str] = []
    found = resolve_seeds(ctx, query.ids, HopPlan(), "ids", warnings, cap=MAX_IDS)
    present = found.iris
    suggest_ids(ctx, found, "ids", warnings)
    unresolved = found.unresolved("unresolved", warnings)
    types = node_types(ctx, present)
    links: dict[str, list[tuple[str, Term]]] = {}
    details = full_nodes(ctx, present, types, with_bookkeeping=True, languages=query.languages, warnings=warnings,
                         links=links)
    sources = _graphs(ctx, present)
    entities = [
        EntityDetail(**details[x].model_dump(exclude_none=True), same_as=_same_as(ctx, x, links, warnings),
                     relationships=_relationship_counts(ctx, x) or None, graphs=sources.get(x))
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


def _relationship_counts(ctx: GraphContext, x: str) -> list[RelationshipCount]:
    """Statements per predicate and direction, split as a default walk splits them: those
    it crosses, and per other truth status those it hides. Bookkeeping is no relationship."""
    skipped = iris((*NON_EDGE_PREDICATES, *bookkeeping(ctx)), ", ")
    counts: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for p, d, status, n in ctx.select("relationship_counts", id=iri(x), excluded=skipped):
        if isinstance(p, str) and p not in NON_EDGE_PREDICATES:
            counts[(p, text_of(d))][status_name(status)] += int(n.value) if isinstance(n, Literal) else 0
    hidden = bookkeeping(ctx)
    for p, direction, status in ctx.memo(UNASSERTED_BY_NODE, lambda: _unasserted_by_node(ctx)).get(x, ()):
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


UNASSERTED_BY_NODE: MemoKey[dict[str, list[tuple[str, str, str]]]] = MemoKey("unasserted_by_node")


def _unasserted_by_node(ctx: GraphContext) -> dict[str, list[tuple[str, str, str]]]:
    """Each node's reifier-only statements as (predicate, direction, status), indexed once
    per graph: a description scanned all of them for every entity it described."""
    found: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for hit in ctx.profile.unasserted():
        found[hit.s].append((hit.p, "out", hit.status))
        found[hit.o].append((hit.p, "in", hit.status))
    return dict(found)


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
    return SearchResult(query=query.query, results=hits, warnings=warnings)
