"""describe_schema: what an agent needs to orient itself in an unfamiliar graph."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gateway.models import PredicateInfo, Range, Schema, StatementCounts, TypeInfo
from gateway.profiles.base import NON_EDGE_PREDICATES
from gateway.sparql import iris
from gateway.terms import BFS, Literal

if TYPE_CHECKING:
    from gateway.context import GraphContext


def _has_reifiers(ctx: GraphContext) -> bool:
    return ctx.profile.has_reifiers


def count_predicates(ctx: GraphContext) -> dict[str, int]:
    """Edge predicate -> number of statements (asserted triples plus reifier-only ones)."""
    flags = ["reified"] if _has_reifiers(ctx) else []
    rows = ctx.select("predicate_counts", flags, excluded=iris(NON_EDGE_PREDICATES, ", "))
    counts = {str(p): _int(n) for p, n in rows if isinstance(p, str)}
    for hit in ctx.profile.unasserted():
        counts[hit.p] = counts.get(hit.p, 0) + 1
    return counts


def count_types(ctx: GraphContext) -> dict[str, int]:
    rows = ctx.select("type_counts")
    return {str(t): _int(n) for t, n in rows if isinstance(t, str)}


def describe_schema(ctx: GraphContext) -> Schema:
    return ctx.memo("schema", lambda: _describe(ctx))


def _describe(ctx: GraphContext) -> Schema:
    predicates, types = ctx.vocabulary
    traits = ctx.profile.traits()
    labels = ctx.labels(sorted({*predicates, *types}))
    to_id = ctx.ids.to_id
    predicate_infos = []
    for p in sorted(predicates, key=to_id):
        kinds = [name for name, members in (("Symmetric", traits.symmetric), ("Transitive", traits.transitive)) if p in members]
        inverse = traits.inverses.get(p)
        if inverse:
            kinds.append(f"Inverse({to_id(inverse)})")
        predicate_infos.append(
            PredicateInfo(id=to_id(p), label=labels.get(p), count=predicates[p], traits=kinds,
                          inverse_of=to_id(inverse) if inverse else None)
        )
    type_infos = [TypeInfo(id=to_id(t), label=labels.get(t), count=n) for t, n in sorted(types.items(), key=lambda kv: to_id(kv[0]))]
    statuses, counts = _statement_counts(ctx, predicates)
    ranges = _ranges(ctx) if _has_reifiers(ctx) else {}
    graphs = [str(g) for (g,) in ctx.select("named_graphs") if isinstance(g, str)]
    shown = [to_id(x) for x in (*predicates, *types)]
    prefixes = {
        prefix: uri
        for prefix, uri in sorted(ctx.ids.converter.bimap.items())
        if uri in ctx.backend.prefixes.values() or any(i.startswith(prefix + ":") for i in shown)
    }
    return Schema(
        graph_description=_description(ctx, counts.total),
        profile=ctx.profile.name,
        entity_types=type_infos,
        predicates=predicate_infos,
        truth_statuses=statuses,
        statements=counts,
        as_of_range=ranges.get("asserted"),
        valid_at_range=ranges.get("valid"),
        named_graphs=[to_id(g) for g in sorted(graphs)],
        prefixes=prefixes,
    )


def _statement_counts(ctx: GraphContext, predicates: dict[str, int]) -> tuple[dict[str, int], StatementCounts]:
    statuses: dict[str, int] = {}
    reified = untimed_reified = 0
    plain = 0
    unasserted = len(ctx.profile.unasserted())
    if _has_reifiers(ctx):
        rows = ctx.select("status_counts")
        for status, n, untimed in rows:
            name = str(status)[len(BFS):] if str(status).startswith(BFS) else str(status)
            statuses[name] = statuses.get(name, 0) + _int(n)
            reified += _int(n)
            untimed_reified += _int(untimed)
        rows = ctx.select("plain_count", excluded=iris(NON_EDGE_PREDICATES, ", "))
        plain = _int(rows[0][0]) if rows else 0
    else:
        plain = sum(predicates.values())
    if plain:
        statuses["asserted_true"] = statuses.get("asserted_true", 0) + plain
    counts = StatementCounts(
        total=reified + plain, reified=reified, plain=plain, unasserted=unasserted,
        without_asserted_at=plain + untimed_reified,
    )
    return dict(sorted(statuses.items())), counts


def _ranges(ctx: GraphContext) -> dict[str, Range]:
    rows = ctx.select("time_ranges")
    found = {}
    for kind, low, high in rows:
        if isinstance(low, Literal) and isinstance(high, Literal):
            found[_text(kind)] = Range(min=low.to_python(), max=high.to_python())
    return found


def _description(ctx: GraphContext, total: int) -> str:
    if ctx.settings.description:
        return ctx.settings.description
    rows = ctx.select("graph_description")  # description first, then comment, title, label
    if rows and isinstance(rows[0][1], Literal):
        return rows[0][1].value
    return f"an RDF graph of {total} statements"


def _int(term: object) -> int:
    return int(term.value) if isinstance(term, Literal) else 0


def _text(term: object) -> str:
    return term.value if isinstance(term, Literal) else str(term)
