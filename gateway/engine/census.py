"""The whole-graph counts of `bfsql load`, read in passes over the quads of a store held in process.

The search index and the schema statistics need, for every entity, its degree and types,
and per predicate and type how many triples of each kind there are. Asked as SPARQL
aggregates, each is its own scan of every triple, and Oxigraph evaluates each filter on
each row by decoding its terms: at 2.7M triples eight aggregates took 190 s, at 50M they
ran for over an hour. Read here instead: types, reifiers and statuses first (index
ranges), then every quad once, counting what each aggregate would.

Each field gives what its template gives (`queries/native/<name>.rq`, named on the field)
on a store read whole, the default graph the union of all graphs; the oracle tests
compare the two on the test graphs. A reader's scope is counted the same way over its
own graphs' quads, as its SPARQL dataset reads them. Counted so only where the store
reads its quads in process (`Capabilities.quads`) and the profile counts as native's
templates do (`Profile.counts_quads_in_process`); elsewhere they are SPARQL questions, as
reifier-only statements and entity types per class always are (a few index reads).

One function a pass (`count` calls them in turn), each taking what the passes before it
found: a pass can be moved into native code, or made to stream, on its own.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

import pyoxigraph as ox

from gateway.backends.base import Quads
from gateway.engine.context import GraphContext
from gateway.profiles.base import NON_EDGES, SCHEMA
from gateway.terms import BFS, RDF, Literal, Term, from_oxigraph

_STATEMENT = BFS + "Statement"
_RDF_STATEMENT = RDF + "Statement"
_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
_LANG_STRING = RDF + "langString"
_TYPE, _REIFIES = ox.NamedNode(RDF + "type"), ox.NamedNode(RDF + "reifies")
TEXT_LENGTH = 200
"""The longest text value searched (text_values.rq's STRLEN bound)."""


class OtherType(str):
    """A type that is no IRI (a literal or a blank node), by its N-Triples text: it counts
    apart, as SPARQL groups it, and is told as no type."""


Key = str | None
"""An end's type in `Census.connects`: an IRI, an `OtherType`, or None for none."""


@dataclass
class Census:
    degrees: Counter[str] = field(default_factory=Counter)
    """degrees.rq: entity -> edge triples it is the subject or object of."""
    entity_types: dict[str, list[str]] = field(default_factory=dict)
    """entity_types.rq: entity -> its IRI types (once per graph that says so)."""
    text_values: list[tuple[str, str, Literal]] = field(default_factory=list)
    """text_values.rq: (entity, predicate, short text) of entities that are not statements."""
    predicates: Counter[str] = field(default_factory=Counter)
    """predicate_counts.rq: statements per edge predicate (each reifier of an asserted edge
    triple, or the triple itself when it has none; reifier-only ones aside)."""
    plain: int = 0
    """plain_count.rq: asserted edge triples no reifier annotates."""
    statuses: Counter[Term] = field(default_factory=Counter)
    """status_counts.rq: reifiers per truth status (as the store spells it)."""
    untimed: Counter[Term] = field(default_factory=Counter)
    """status_counts.rq's ?untimed: of those, the ones without an assertedAt."""
    blank_values: Counter[str] = field(default_factory=Counter)
    """blank_counts.rq: triples from an IRI to a blank node, per predicate."""
    connects: Counter[tuple[str, Key, Key]] = field(default_factory=Counter)
    """predicate_types.rq: edge triples per (predicate, subject type, object type)."""
    type_literals: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    """type_literals.rq: literal values per (type, predicate, datatype)."""
    schema_predicates: Counter[str] = field(default_factory=Counter)
    """schema_predicate_counts.rq: triples between two IRIs per schema predicate, of
    subjects that are not reifiers."""


def census(ctx: GraphContext, *, texts: bool = True) -> Census | None:
    """The counts of `ctx`'s graph (`texts`: with its text values, which only the search
    index reads), or None where they must be asked in SPARQL: a store whose quads are not
    read in process, or a profile that does not count as native's templates do."""
    quads = ctx.backend.capabilities.quads
    if quads is None or not ctx.profile.counts_quads_in_process:
        return None
    return count(quads(None), texts=texts)


Signatures = tuple[list[tuple[Key, ...]], dict[str, int]]
"""(the distinct sets of types entities have, entity -> the index of its set): what the pass
over every quad looks each triple's ends up in, so that a triple costs one count (most
entities share a few sets). Index 0 is untyped, 1 an untyped reifier."""


def count(quads: Quads, *, texts: bool) -> Census:
    """The census of these quads: types, reifiers and statuses first (index ranges), then
    every quad once, then the counts per type folded out of the counts per set of types."""
    found = Census()
    types = _types(quads)
    reifiers, reified = _reifiers(quads)
    if reified or reifiers:
        _count_statuses(quads, found)
    ends, signature = _signatures(types, reifiers, found)
    del types
    statements = reifiers | {x for x, kinds in found.entity_types.items() if _RDF_STATEMENT in kinds}
    edges, literals = _every_quad(quads, found, signature, reifiers, reified, statements, texts)
    _fold_edges(found, edges, ends, statements_held=bool(reified or reifiers))
    _fold_literals(found, literals, ends)
    return found


def _types(quads: Quads) -> dict[str, list[Key]]:
    """Every type of every IRI subject (an IRI type as one string per type, shared by the
    millions of entities of it)."""
    named = ox.NamedNode
    types: dict[str, list[Key]] = defaultdict(list)
    shared: dict[str, str] = {}
    for s, _, t, _ in quads(None, _TYPE, None):
        if type(s) is named:
            types[s.value].append(shared.setdefault(t.value, t.value) if type(t) is named else OtherType(t))
    return types


def _reifiers(quads: Quads) -> tuple[set[str], Counter[tuple[str, str, str]]]:
    """(the IRI reifiers, each edge triple between IRIs -> how many reifiers it has)."""
    named = ox.NamedNode
    reifiers: set[str] = set()
    reified: Counter[tuple[str, str, str]] = Counter()
    for r, _, t, _ in quads(None, _REIFIES, None):
        if type(r) is named:
            reifiers.add(r.value)
        if type(t) is ox.Triple and type(t.subject) is named and type(t.object) is named:
            reified[t.subject.value, t.predicate.value, t.object.value] += 1
    return reifiers, reified


def _signatures(types: dict[str, list[Key]], reifiers: set[str], found: Census) -> Signatures:
    """`Signatures` of the entities with types and of the reifiers; `found.entity_types` on the way."""
    ends: list[tuple[Key, ...]] = [(None,), (_STATEMENT,)]  # untyped; an untyped reifier
    signatures: dict[tuple[Key, ...], int] = {}
    signature = dict.fromkeys(reifiers, 1)
    for entity, kinds in types.items():
        key = tuple(kinds)
        if key not in signatures:
            signatures[key] = len(ends)
            ends.append(key)
        signature[entity] = signatures[key]
        iris = [t for t in kinds if isinstance(t, str) and not isinstance(t, OtherType)]
        if iris:
            found.entity_types[entity] = iris
    return ends, signature


def _every_quad(
    quads: Quads, found: Census, signature: dict[str, int], reifiers: set[str], reified: Counter[tuple[str, str, str]],
    statements: set[str], texts: bool,
) -> tuple[Counter[tuple[str, int, int]], Counter[tuple[int, str, str]]]:
    """The one pass over every quad: degrees, statements per predicate, plain edges, schema
    predicates, text values and blank values into `found`; and (edge triples per predicate
    and the signatures of their ends, literals per subject signature, predicate and
    datatype), which `_fold_edges` and `_fold_literals` make counts per type of."""
    named, literal = ox.NamedNode, ox.Literal
    edges: Counter[tuple[str, int, int]] = Counter()
    literals: Counter[tuple[int, str, str]] = Counter()
    degrees, per_predicate, kind_of = found.degrees, found.predicates, signature.get
    held = bool(reified or reifiers)
    longest = TEXT_LENGTH if texts else -1  # no text is shorter: none is kept
    for s, p, o, _ in quads(None, None, None):
        if type(s) is not named:
            continue
        kind = type(o)
        if kind is named:
            predicate = p.value
            if predicate not in NON_EDGES:
                subject, value = s.value, o.value
                degrees[subject] += 1
                degrees[value] += 1
                edges[predicate, kind_of(subject, 0), kind_of(value, 0)] += 1
                if held:
                    annotated = reified.get((subject, predicate, value), 0)
                    if annotated:
                        per_predicate[predicate] += annotated
                    elif subject not in reifiers:  # a statement's own data is no statement
                        per_predicate[predicate] += 1
                        found.plain += 1
            elif predicate in SCHEMA and s.value not in reifiers:
                found.schema_predicates[predicate] += 1
        elif kind is literal:
            subject, predicate = s.value, p.value
            datatype = _LANG_STRING if o.language else o.datatype.value
            literals[kind_of(subject, 0), predicate, datatype] += 1
            if (datatype == _XSD_STRING or o.language) and len(o.value) <= longest and subject not in statements:
                term = from_oxigraph(o)
                assert isinstance(term, Literal)
                found.text_values.append((subject, predicate, term))
        elif kind is ox.BlankNode:
            found.blank_values[p.value] += 1
    return edges, literals


def _fold_edges(
    found: Census, edges: Counter[tuple[str, int, int]], ends: list[tuple[Key, ...]], *, statements_held: bool,
) -> None:
    """Edge triples per (predicate, subject type, object type); and, where the graph holds
    no reifiers, statements per predicate (then every edge triple is one)."""
    for (predicate, st, ot), n in edges.items():
        if not statements_held:
            found.predicates[predicate] += n
        for subject_type in ends[st]:
            for object_type in ends[ot]:
                found.connects[predicate, subject_type, object_type] += n


def _fold_literals(found: Census, literals: Counter[tuple[int, str, str]], ends: list[tuple[Key, ...]]) -> None:
    """Literal values per (IRI type, predicate, datatype)."""
    for (st, predicate, datatype), n in literals.items():
        for t in ends[st] if st > 1 else ():  # rdf:type's own (a reifier's bfs:Statement is not)
            if isinstance(t, str) and not isinstance(t, OtherType):
                found.type_literals[t, predicate, datatype] += n


def _count_statuses(quads: Quads, found: Census) -> None:
    """Each reifier's statements per status: one for each status it states (else
    asserted_true where its triple is asserted, hypothetical where not) and each time it
    states (else one, untimed), as status_counts.rq's rows are."""
    statuses: dict[object, list[Term]] = defaultdict(list)
    for r, _, status, _ in quads(None, ox.NamedNode(BFS + "truthStatus"), None):
        term = from_oxigraph(status)
        if term is not None:
            statuses[r].append(term)
    times: Counter[object] = Counter(r for r, _, _, _ in quads(None, ox.NamedNode(BFS + "assertedAt"), None))
    for r, _, t, _ in quads(None, _REIFIES, None):
        stated = statuses.get(r)
        if stated is None:
            # Not a triple term: SPARQL's SUBJECT() fails, and its EXISTS then matches any triple.
            asserted = type(t) is not ox.Triple or next(iter(quads(t.subject, t.predicate, t.object)), None) is not None
            stated = [BFS + ("asserted_true" if asserted else "hypothetical")]
        for status in stated:
            found.statuses[status] += times[r] or 1
            if not times[r]:
                found.untimed[status] += 1
