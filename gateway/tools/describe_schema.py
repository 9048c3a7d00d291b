"""describe_schema: what an agent needs to orient itself in an unfamiliar graph.

The counts come from `gateway.engine.statistics` (counted once, kept on disk for file data);
on a graph too large to count, as its profile reads them instead (`Profile.statistics`:
bounded probes on a remote Wikidata endpoint), and `estimates` says which numbers those are.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from gateway.engine.context import GraphContext
from gateway.engine.names import vocabulary
from gateway.engine.namespaces import NamespaceFinder
from gateway.engine.presentation import NAME_PREDICATES, bookkeeping, declared_subproperties
from gateway.engine.search import normalize
from gateway.engine.statistics import statistics, time_ranges
from gateway.ids import local_name
from gateway.models import PredicateInfo, Range, Schema, StatementCounts, TypeInfo
from gateway.profiles.base import SCHEMA
from gateway.profiles.graph import MemoKey
from gateway.profiles.statistics import Estimates, Statistics
from gateway.terms import XSD, Literal, pick_label

SCHEMA_KEY: MemoKey[Schema] = MemoKey("schema")


def describe_schema(ctx: GraphContext) -> Schema:
    return ctx.memo(SCHEMA_KEY, lambda: _describe(ctx))


def _describe(ctx: GraphContext) -> Schema:
    stats = statistics(ctx)
    estimated = ctx.profile.estimates()
    predicates, types = vocabulary(ctx)
    to_id = ctx.ids.to_id
    labels = _labels(ctx, {*predicates, *types}, estimated)
    warnings: list[str] = ctx.profile.schema_warnings(stats)
    # A predicate whose values are all blank nodes (owl:unionOf, sh:declare) is listed too,
    # with no edges: never "fewer than the data holds".
    listed = _most({p: predicates.get(p, 0) + stats.blank_values.get(p, 0) for p in {*predicates, *stats.blank_values}},
                   "predicates", "statements", warnings)
    # A class of terms (owl:Class...) is counted in full among term_types, not again here by
    # its members without instances.
    entity_types = {t: n for t, n in types.items() if t not in stats.term_types}
    shown_types = _most(entity_types, "entity_types", "entities", warnings)
    literals = _literals(ctx, {t: rows for t, rows in stats.type_literals.items() if t in entity_types}, warnings)
    counts = StatementCounts(total=stats.total, reified=stats.reified, plain=stats.plain,
                             unasserted=stats.unasserted, without_asserted_at=stats.without_asserted_at)
    ranges = _ranges(ctx)
    return Schema(
        graph_description=_description(ctx, counts.total, estimated),
        profile=ctx.profile.name,
        entity_types=[TypeInfo(id=to_id(t), **_named(ctx, labels.get(t)), count=entity_types[t])
                      for t in sorted(shown_types, key=to_id)],
        term_types=_term_types(ctx, stats),
        predicates=_predicates(ctx, stats, predicates, sorted(listed, key=to_id), labels),
        literal_predicates=literals.listed or None,
        truth_statuses=stats.statuses,
        statements=counts,
        as_of_range=ranges.get("asserted"),
        valid_at_range=ranges.get("valid"),
        named_graphs=[to_id(g) for g in sorted(ctx.named_graphs())],
        authorities=stats.authorities or None,
        prefixes=answer_prefixes(ctx, [to_id(x) for x in (*listed, *shown_types, *literals.shown)], stats.namespaces,
                                 warnings),
        estimates=estimated.fields if estimated else None,
        warnings=warnings,
    )


def _labels(ctx: GraphContext, terms: set[str], estimated: Estimates | None) -> dict[str, Literal]:
    """The terms' labels: the data's, else those the profile knows them by (an endpoint
    without property entities); a label that only repeats the ID ("drug" for drug) left out."""
    found = {iri: Literal(label) for iri, label in estimated.labels.items()} if estimated else {}
    found.update(ctx.label_texts(sorted(terms)))
    to_id = ctx.ids.to_id
    return {iri: label for iri, label in found.items()
            if normalize(label.value) != normalize(local_name(to_id(iri)).replace("_", " "))}


def _named(ctx: GraphContext, label: Literal | None) -> dict[str, str | None]:
    """A type's or predicate's label fields: the text, and its language where an answer
    must tell it (`GraphContext.told_language`)."""
    if label is None:
        return {}
    return {"label": label.value, "label_language": ctx.told_language(label)}


def _predicates(
    ctx: GraphContext, stats: Statistics, counts: dict[str, int], listed: list[str], labels: dict[str, Literal],
) -> list[PredicateInfo]:
    """The listed predicates, with their traits and the types they connect."""
    traits = ctx.profile.traits()
    on_request = declared_subproperties(ctx, "walkedWhenNamed") | SCHEMA
    to_id = ctx.ids.to_id
    infos = []
    for p in listed:
        kinds = [name for name, members in (("Symmetric", traits.symmetric), ("Transitive", traits.transitive)) if p in members]
        inverse = traits.inverses.get(p)
        if inverse:
            kinds.append(f"Inverse({to_id(inverse)})")
        connects = [f"{to_id(st) if st else '?'} -> {to_id(ot) if ot else '?'} ({n})" for st, ot, n in stats.connects.get(p, ())]
        infos.append(
            PredicateInfo(id=to_id(p), **_named(ctx, labels.get(p)), count=counts.get(p, 0), traits=kinds or None,
                          blank_values=stats.blank_values.get(p),
                          inverse_of=to_id(inverse) if inverse else None, connects=connects,
                          walked_when_named=True if p in on_request else None)
        )
    return infos


def _term_types(ctx: GraphContext, stats: Statistics) -> list[TypeInfo]:
    """Classes of terms listed where some of their terms are in use nowhere (else they are
    all predicates or types already), with every term counted: how many classes and
    properties there are."""
    to_id = ctx.ids.to_id
    return [TypeInfo(id=to_id(t), count=n) for t, n in sorted(stats.term_types.items(), key=lambda kv: to_id(kv[0]))
            if stats.unused_terms.get(t)]


LISTED = 80
"""Predicates, entity types and literal-valued properties describe_schema lists at most,
those with the most statements, entities or values first: a store of many vocabularies has
hundreds of each, and the first call must stay readable. The rest are counted and named
by every tool all the same."""


def _most(counts: dict[str, int], field: str, what: str, warnings: list[str]) -> set[str]:
    """The `LISTED` keys with the largest counts (all when fewer), the rest said in `warnings`."""
    if len(counts) <= LISTED:
        return set(counts)
    ranked = sorted(counts, key=lambda k: (-counts[k], k))
    kept, rest = ranked[:LISTED], ranked[LISTED:]
    warnings.append(f"{field}: the {LISTED} with the most {what} are listed, of {len(counts)}; the other "
                    f"{len(rest)} have at most {counts[rest[0]]:,} each, and every tool still takes them by name")
    return set(kept)


def answer_prefixes(ctx: GraphContext, shown: list[str], held: Mapping[str, int] | None = None,
                    warnings: list[str] | None = None) -> dict[str, str]:
    """The prefix of every namespace an answer about this graph can hold, so each CURIE an
    agent reads can be expanded to the IRI the data holds: those the data holds IRIs in
    (`held`: the statistics' `namespaces`) and the named graphs, the profile's own
    (Wikidata's statement, qualifier, reference and value namespaces; `bfs:`, `rdf:`), the
    data's declared ones (its `@prefix` lines or the endpoint's configured prefixes), and
    those of the predicates and types shown. Each is given as the data spells it: a
    namespace the project map knows under another URI form (`http://schema.org/` for
    `schema:`) is listed in the form the data holds most, the other said in `warnings`."""
    # xsd: is declared everywhere and in an answer only where the data names a datatype.
    declared = {*ctx.profile.namespaces, *ctx.backend.prefixes.values()} - {XSD}
    finder = NamespaceFinder({uri for r in ctx.ids.converter.records for uri in (r.uri_prefix, *r.uri_prefix_synonyms)})
    for graph in ctx.named_graphs():
        finder.add_iri(graph)
    counts = Counter(held or {})
    counts.update(finder.namespaces())
    used = {i.split(":", 1)[0] for i in shown if ":" in i}
    found: dict[str, str] = {}
    twice: list[str] = []
    for record in ctx.ids.converter.records:
        spellings = (record.uri_prefix, *record.uri_prefix_synonyms)
        holding = sorted((uri for uri in spellings if counts[uri]), key=lambda uri: -counts[uri])
        if holding:
            found[record.prefix] = holding[0]
            twice += [f"{record.prefix}: {uri} ({counts[uri]:,})" for uri in holding[1:]]
        elif record.prefix in used or not declared.isdisjoint(spellings):
            found[record.prefix] = record.uri_prefix
    if twice and warnings is not None:
        warnings.append(f"prefixes: the data also spells {'; '.join(sorted(twice))}: each listed as held most, an ID "
                        "names the IRI the data holds")
    return dict(sorted(found.items()))


def _ranges(ctx: GraphContext) -> dict[str, Range]:
    """Each kind's span (of its numbers where it has numbers and dates)."""
    return {kind: Range(min=spans[0].low, max=spans[0].high) for kind, spans in time_ranges(ctx).items()}


TYPES_NAMED = 3
"""Entity types a literal-valued property is said to be on, most values first; the rest counted."""


@dataclass(frozen=True)
class Literals:
    listed: dict[str, str]
    shown: list[str]
    """The IRIs the listing names (properties, datatypes, types): their prefixes are listed."""


def _literals(ctx: GraphContext, by_type: dict[str, list[tuple[str, str | None, int]]], warnings: list[str]) -> Literals:
    """Each literal-valued property of the entity types as one line, most values first:
    `"xsd:integer x21 on paper"`. Names (label, description) and bookkeeping left out."""
    if not by_type:
        return Literals({}, [])
    hidden = NAME_PREDICATES | bookkeeping(ctx)
    kinds: dict[str, set[str]] = defaultdict(set)
    values: Counter[str] = Counter()
    on: dict[str, Counter[str]] = defaultdict(Counter)
    for t, rows in by_type.items():
        for p, dt, n in rows:
            if p not in hidden:
                kinds[p].add(dt or XSD + "string")
                values[p] += n
                on[p][t] += n
    to_id = ctx.ids.to_id
    listed: dict[str, str] = {}
    shown: list[str] = []
    for p in sorted(_most(dict(values), "literal_predicates", "values", warnings), key=lambda p: (-values[p], to_id(p))):
        types = [t for t, _ in sorted(on[p].items(), key=lambda kv: (-kv[1], to_id(kv[0])))]
        named = types if len(types) <= TYPES_NAMED + 1 else types[:TYPES_NAMED]
        where = ", ".join(to_id(t) for t in named) + (f" +{len(types) - len(named)}" if len(named) < len(types) else "")
        listed[to_id(p)] = f"{' | '.join(sorted(to_id(k) for k in kinds[p]))} x{values[p]} on {where}"
        shown += [p, *kinds[p], *named]
    return Literals(listed, shown)


HEADERS_NAMED = 12
"""Ontology and dataset headers a graph description names (by title) when there are many."""


def _name(header: str, by_rank: dict[int, list[Literal]], ctx: GraphContext) -> str:
    """A header by its title or label, else its description cut short, else its ID."""
    ranks = sorted(by_rank, key=lambda rank: (rank < 2, rank))  # title (2), label (3), description (0), comment (1)
    if not ranks:
        return ctx.ids.to_id(header)
    text = " ".join(pick_label(by_rank[ranks[0]], ctx.settings.languages).split())
    return text if len(text) <= 80 else text[:79] + "…"


def _description(ctx: GraphContext, total: int, estimated: Estimates | None) -> str:
    if ctx.settings.description:
        return ctx.settings.description
    texts: dict[str, dict[int, list[Literal]]] = {}  # header -> rank -> texts: description, comment, title, label
    for header, rank, text in ctx.select("graph_description"):
        found = texts.setdefault(str(header), {})
        if isinstance(rank, Literal) and isinstance(text, Literal):
            found.setdefault(int(rank.value), []).append(text)
    languages = ctx.settings.languages
    if len(texts) == 1 and (only := next(iter(texts.values()))):
        return pick_label(only[min(only)], languages)
    if len(texts) > 1:  # many vocabularies or datasets: each by its own name, none speaking for all
        names = sorted(_name(header, by_rank, ctx) for header, by_rank in texts.items())
        more = f"; and {len(names) - HEADERS_NAMED} more (scan_query node_types owl:Ontology)" \
            if len(names) > HEADERS_NAMED else ""
        return f"{len(names)} ontologies and datasets: {'; '.join(names[:HEADERS_NAMED])}{more}"
    if estimated is not None:
        return estimated.description
    # Said as what it counts: the file's triple count is larger (names, types, values).
    return (f"an RDF graph of {total:,} relationships between entities (each one triple or one statement; names, "
            "types and literal values are not counted)")
