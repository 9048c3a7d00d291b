"""describe_entity / describe_entities / search_entities: expand stubs, resolve names."""

from __future__ import annotations

from gateway.engine.context import GraphContext
from gateway.engine.presentation import full_nodes, node_types
from gateway.engine.search import search_index, suggest_ids
from gateway.errors import NotFound
from gateway.models import (
    DescribeEntitiesInput,
    DescribeEntityInput,
    EntitiesDetail,
    EntityDetail,
    RelationshipCount,
    SearchEntitiesInput,
    SearchResult,
)
from gateway.profiles.base import NON_EDGE_PREDICATES, HopPlan
from gateway.settings import clamp
from gateway.sparql import iri, iris
from gateway.terms import Literal


def describe_entities(ctx: GraphContext, query: DescribeEntitiesInput) -> EntitiesDetail:
    warnings: list[str] = []
    ids = query.ids
    cap = ctx.settings.max_describe
    if len(ids) > cap:
        warnings.append(f"ids: only the first {cap} are described; the rest are unresolved")
    plan = HopPlan()
    present, unresolved = ctx.resolve_seeds(ids[:cap], plan, "ids", warnings)
    suggest_ids(ctx, unresolved, "ids", warnings)
    unresolved += [i.strip() for i in ids[cap:]]
    types = node_types(ctx, present)
    details = full_nodes(ctx, present, types, with_bookkeeping=True)
    entities = [
        EntityDetail(**details[x].model_dump(exclude_none=True), relationships=_relationship_counts(ctx, x) or None)
        for x in present
    ]
    return EntitiesDetail(entities=entities, unresolved=unresolved, warnings=warnings)


def describe_entity(ctx: GraphContext, query: DescribeEntityInput) -> EntityDetail:
    result = describe_entities(ctx, DescribeEntitiesInput(ids=[query.id]))
    if not result.entities:
        raise NotFound("; ".join(w.removeprefix("ids: ").removeprefix("ids[0]: ") for w in result.warnings), field="id")
    return result.entities[0]


def _relationship_counts(ctx: GraphContext, x: str) -> list[RelationshipCount]:
    rows = ctx.select("relationship_counts", id=iri(x), excluded=iris(NON_EDGE_PREDICATES, ", "))
    counts: dict[tuple[str, str], int] = {}
    for p, d, n in rows:
        key = (str(p), d.value if isinstance(d, Literal) else str(d))
        counts[key] = counts.get(key, 0) + (int(n.value) if isinstance(n, Literal) else 0)
    for hit in ctx.profile.unasserted():
        for direction, end in (("out", hit.s), ("in", hit.o)):
            if end == x:
                counts[(hit.p, direction)] = counts.get((hit.p, direction), 0) + 1
    to_id = ctx.ids.to_id
    return [
        RelationshipCount(predicate=to_id(p), direction=d, count=n)  # type: ignore[arg-type]
        for (p, d), n in sorted(counts.items(), key=lambda kv: (to_id(kv[0][0]), kv[0][1]))
    ]


def search_entities(ctx: GraphContext, query: SearchEntitiesInput) -> SearchResult:
    warnings: list[str] = []
    types = (
        ctx.resolve_terms(query.entity_types, "entity_types", kind="type", warnings=warnings)
        if query.entity_types else None
    )
    limit = clamp(query.limit, 10, 1, 100, field="limit", warnings=warnings)
    if types is not None and not types:  # every type named is unknown: nothing to search in
        return SearchResult(query=query.query, results=[], warnings=warnings)
    hits = search_index(ctx).search(query.query, types, limit, ctx.ids.to_id)
    if not hits:
        within = " of these types" if types else ""
        warnings.append(f"no entity{within} is named like {query.query!r}; try fewer or other words")
    return SearchResult(query=query.query, results=hits, warnings=warnings)
