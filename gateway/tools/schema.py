"""describe_schema: what an agent needs to orient itself in an unfamiliar graph.

The counts come from `gateway.engine.statistics` (counted once, kept on disk for file data).
"""

from __future__ import annotations

from gateway.engine.context import GraphContext
from gateway.engine.presentation import declared_subproperties
from gateway.engine.search import normalize
from gateway.engine.statistics import statistics
from gateway.ids import local_name
from gateway.models import PredicateInfo, Range, Schema, StatementCounts, TypeInfo
from gateway.terms import OWL, RDF, RDFS, XSD, Literal, text_of

COMMON_VOCABULARIES = frozenset({
    RDF, RDFS, OWL, XSD, "http://www.w3.org/2004/02/skos/core#", "http://purl.org/dc/terms/",
    "http://rdfs.org/ns/void#", "http://www.w3.org/ns/prov#", "http://schema.org/", "https://schema.org/",
})
"""Namespaces every reader knows: listed only when a type or predicate shown uses them."""


def describe_schema(ctx: GraphContext) -> Schema:
    return ctx.memo("schema", lambda: _describe(ctx))


def _describe(ctx: GraphContext) -> Schema:
    stats = statistics(ctx)
    predicates, types = ctx.vocabulary
    traits = ctx.profile.traits()
    on_request = declared_subproperties(ctx, "walkedWhenNamed")
    to_id = ctx.ids.to_id
    labels = {  # a label that only repeats the ID ("drug" for drug) is left out
        iri: label for iri, label in ctx.labels(sorted({*predicates, *types})).items()
        if normalize(label) != normalize(local_name(to_id(iri)).replace("_", " "))
    }
    predicate_infos = []
    for p in sorted(predicates, key=to_id):
        kinds = [name for name, members in (("Symmetric", traits.symmetric), ("Transitive", traits.transitive)) if p in members]
        inverse = traits.inverses.get(p)
        if inverse:
            kinds.append(f"Inverse({to_id(inverse)})")
        connects = [f"{to_id(st) if st else '?'} -> {to_id(ot) if ot else '?'} ({n})" for st, ot, n in stats.connects.get(p, ())]
        predicate_infos.append(
            PredicateInfo(id=to_id(p), label=labels.get(p), count=predicates[p], traits=kinds or None,
                          inverse_of=to_id(inverse) if inverse else None, connects=connects,
                          walked_when_named=True if p in on_request else None)
        )
    type_infos = [
        TypeInfo(id=to_id(t), label=labels.get(t), count=n) for t, n in sorted(types.items(), key=lambda kv: to_id(kv[0]))
    ]
    counts = StatementCounts(total=stats.total, reified=stats.reified, plain=stats.plain,
                             unasserted=stats.unasserted, without_asserted_at=stats.without_asserted_at)
    ranges = _ranges(ctx) if ctx.profile.has_reifiers else {}
    graphs = [str(g) for (g,) in ctx.select("named_graphs") if isinstance(g, str)]
    shown = [to_id(x) for x in (*predicates, *types)]
    prefixes = {  # the data's own prefixes, and common ones (rdfs:, owl:, ...) only where a name uses them
        prefix: uri
        for prefix, uri in sorted(ctx.ids.converter.bimap.items())
        if (uri in ctx.backend.prefixes.values() and uri not in COMMON_VOCABULARIES)
        or any(i.startswith(prefix + ":") for i in shown)
    }
    return Schema(
        graph_description=_description(ctx, counts.total),
        profile=ctx.profile.name,
        entity_types=type_infos,
        predicates=predicate_infos,
        truth_statuses=stats.statuses,
        statements=counts,
        as_of_range=ranges.get("asserted"),
        valid_at_range=ranges.get("valid"),
        named_graphs=[to_id(g) for g in sorted(graphs)],
        prefixes=prefixes,
    )


def _ranges(ctx: GraphContext) -> dict[str, Range]:
    rows = ctx.select("time_ranges")
    found = {}
    for kind, low, high in rows:
        if isinstance(low, Literal) and isinstance(high, Literal):
            found[text_of(kind)] = Range(min=low.to_python(), max=high.to_python())
    return found


def _description(ctx: GraphContext, total: int) -> str:
    if ctx.settings.description:
        return ctx.settings.description
    rows = ctx.select("graph_description")  # description first, then comment, title, label
    if rows and isinstance(rows[0][1], Literal):
        return rows[0][1].value
    return f"an RDF graph of {total} statements"
