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

import numpy as np
import pyoxigraph as ox

from gateway.backends.base import Quads
from gateway.engine.census_scan import Counts, Dump, Known, Lookup, Members, Scan, Tally, hashes, quads_dump, rows_for, store_dump, token
from gateway.engine.context import GraphContext
from gateway.profiles.base import NON_EDGES, SCHEMA
from gateway.terms import BFS, RDF, Literal, Term, from_oxigraph

_STATEMENT = BFS + "Statement"
_RDF_STATEMENT = RDF + "Statement"
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
    local = ctx.backend.capabilities.local_store  # the whole store: its graphs written as N-Triples
    read = quads(None)
    dump = store_dump(local.store) if local is not None else quads_dump(read(None, None, None))
    return count(read, dump, texts=texts, memory=ctx.settings.census_memory)


def count(quads: Quads, dump: Dump, *, texts: bool, memory: int = 256 << 20) -> Census:
    """The census of these quads (`dump` writes every one of them as N-Triples): types,
    reifiers and statuses first (index ranges), then every quad once, then the counts per
    type folded out of the counts per set of types. `memory`: the bytes the pass may hold
    of its counts per entity before it puts them on disk."""
    found = Census()
    types = _types(quads)
    reifiers, reified = _reifiers(quads)
    if reified or reifiers:
        _count_statuses(quads, found)
    ends, signature = _signatures(types, reifiers, found)
    del types
    typed_statements = (token(ox.NamedNode(x)) for x, kinds in found.entity_types.items() if _RDF_STATEMENT in kinds)
    known = Known(
        signature=signature, reifiers=Members(reifiers), statements=Members([*reifiers, *typed_statements]),
        reified=Lookup(hashes(list(reified)), np.array(list(reified.values()), dtype=np.int64)),
        non_edges=frozenset(_token(p) for p in NON_EDGES), schema=frozenset(_token(p) for p in SCHEMA),
        texts=TEXT_LENGTH if texts else -1,
    )
    del reifiers, reified
    counts = Counts(Tally(rows_for(memory)))
    dump(Scan(known, counts))
    found.degrees = Counter({iri[1:-1].decode(): n for iri, n in counts.degrees.items()})
    found.text_values = counts.text_values
    found.plain = counts.plain
    found.predicates.update({_iri(p): n for p, n in counts.predicates.items()})
    found.schema_predicates.update({_iri(p): n for p, n in counts.schema_predicates.items()})
    found.blank_values.update({_iri(p): n for p, n in counts.blank_values.items()})
    _fold_edges(found, counts.edges, ends, statements_held=bool(len(known.reifiers) or len(known.reified._keys)))
    _fold_literals(found, counts.literals, ends)
    return found


def _token(iri: str) -> bytes:
    return f"<{iri}>".encode()


def _iri(token: bytes) -> str:
    return token[1:-1].decode()


def _types(quads: Quads) -> list[tuple[bytes, Key]]:
    """(subject, type) of every IRI subject's type (an IRI type as one string per type,
    shared by the millions of entities of it), the subject as its N-Triples bytes."""
    named = ox.NamedNode
    shared: dict[str, str] = {}
    return [(token(s), shared.setdefault(t.value, t.value) if type(t) is named else OtherType(t))
            for s, _, t, _ in quads(None, _TYPE, None) if type(s) is named]


def _reifiers(quads: Quads) -> tuple[list[bytes], Counter[bytes]]:
    """(the IRI reifiers, each edge triple between IRIs -> how many reifiers it has), as
    N-Triples bytes (a triple as `s p o`, as an N-Triples line begins)."""
    named = ox.NamedNode
    reifiers: list[bytes] = []
    reified: Counter[bytes] = Counter()
    for r, _, t, _ in quads(None, _REIFIES, None):
        if type(r) is named:
            reifiers.append(token(r))
        if type(t) is ox.Triple and type(t.subject) is named and type(t.object) is named:
            reified[token(t)] += 1
    return reifiers, reified


def _signatures(types: list[tuple[bytes, Key]], reifiers: list[bytes], found: Census) -> tuple[list[tuple[Key, ...]], Lookup]:
    """(the distinct sets of types entities have, entity -> the index of its set): what the
    pass over every quad looks each triple's ends up in, so that a triple costs one count
    (most entities share a few sets). Index 0 is untyped, 1 an untyped reifier.
    `found.entity_types` on the way."""
    ends: list[tuple[Key, ...]] = [(None,), (_STATEMENT,)]
    signatures: dict[tuple[Key, ...], int] = {}
    kinds: dict[bytes, list[Key]] = defaultdict(list)
    for entity, kind in types:
        kinds[entity].append(kind)
    keys: list[bytes] = list(reifiers)
    values: list[int] = [1] * len(reifiers)
    for entity, held in kinds.items():
        key = tuple(held)
        if key not in signatures:
            signatures[key] = len(ends)
            ends.append(key)
        keys.append(entity)
        values.append(signatures[key])
        iris = [t for t in held if isinstance(t, str) and not isinstance(t, OtherType)]
        if iris:
            found.entity_types[_iri(entity)] = iris
    # A typed reifier's types stand for it: the later of its two entries is kept.
    keys_hashed = hashes(keys)
    unique, last = np.unique(keys_hashed[::-1], return_index=True)
    return ends, Lookup(unique, np.array(values[::-1], dtype=np.int64)[last])


def _fold_edges(
    found: Census, edges: Counter[tuple[bytes, int, int]], ends: list[tuple[Key, ...]], *, statements_held: bool,
) -> None:
    """Edge triples per (predicate, subject type, object type); and, where the graph holds
    no reifiers, statements per predicate (then every edge triple is one)."""
    for (token_, st, ot), n in edges.items():
        predicate = _iri(token_)
        if not statements_held:
            found.predicates[predicate] += n
        for subject_type in ends[st]:
            for object_type in ends[ot]:
                found.connects[predicate, subject_type, object_type] += n


def _fold_literals(found: Census, literals: Counter[tuple[int, bytes, str]], ends: list[tuple[Key, ...]]) -> None:
    """Literal values per (IRI type, predicate, datatype)."""
    for (st, token_, datatype), n in literals.items():
        for t in ends[st] if st > 1 else ():  # rdf:type's own (a reifier's bfs:Statement is not)
            if isinstance(t, str) and not isinstance(t, OtherType):
                found.type_literals[t, _iri(token_), datatype] += n


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
