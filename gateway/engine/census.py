"""The whole-graph counts of `bfsql load`, read in passes over the quads of a store held in process.

The search index and the schema statistics need, for every entity, its degree and types,
and per predicate and type how many triples of each kind there are. Asked as SPARQL
aggregates, each is its own scan of every triple, and Oxigraph evaluates each filter on
each row by decoding its terms: at 2.7M triples eight aggregates took 190 s, at 50M they
ran for over an hour (a GROUP BY with no filter is cheap, ~2 s a million quads on disk,
but every count here needs one). Read here instead: types (the store's own TSV of a
query), reifiers and statuses first (index ranges), then every quad once as the store's
own N-Triples text, counting what each aggregate would (`census_scan`: terms by hash,
counted with numpy, the counts per entity put on disk past `Settings.census_memory`).

Each field gives what its template gives (`queries/native/<name>.rq`, named on the field)
on a store read whole, the default graph the union of all graphs; the oracle tests
compare the two on the test graphs. A reader's scope is counted the same way over its
own graphs' quads, as its SPARQL dataset reads them (read one at a time and written as
the same text: `QuadSource`). Counted so only where the store reads its quads in process
(`Capabilities.quads`) and the profile counts as native's templates do
(`Profile.counts_quads_in_process`); elsewhere they are SPARQL questions, as
reifier-only statements and entity types per class always are (a few index reads).

`bfsql load` of N-Triples into an empty store takes the same counts from the files' own
text while the store loads them (`census_files`, `finish_files`: `census_text`), where
that text is spelt as the store's writer spells it; the statuses are then read from the
store.

What is told per entity (degree and types) is `Census.entities`, read a hash bucket at a
time as its reader goes: the search index keeps only the entities it holds. The types'
own pass puts its (subject, type) rows on disk in hash buckets past a quarter of the
memory setting (`census_tables.Pairs`) and finds each entity's set of types a bucket at a
time; the short text values go, pickled, to a file held in memory up to another quarter
(`census_tables.Spool`). Memory then grows with the entities only by what the pass over
every quad looks their ends up in: 16 bytes a typed entity (its hash and its set of types).
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyoxigraph as ox

from gateway.backends.base import Quads
from gateway.engine.census_reifiers import Reifications
from gateway.engine.census_scan import Counts, Known, QuadSource, Scan, Source, StoreSource, Types, token
from gateway.engine.census_tables import Hashes, Lookup, Members, Spool, Tally, hashes, pairs_for, rows_for, spooled_for
from gateway.engine.census_text import FileSource
from gateway.engine.context import GraphContext
from gateway.engine.presentation import NAME_PREDICATES
from gateway.profiles.base import NON_EDGES, SCHEMA
from gateway.terms import BFS, OWL, RDF, RDFS, Literal, Term, from_oxigraph

_STATEMENT = BFS + "Statement"
_RDF_STATEMENT = RDF + "Statement"
_REIFIES = ox.NamedNode(RDF + "reifies")
_TYPE = RDF + "type"
TERM_CLASSES = frozenset({
    RDF + "Property", RDFS + "Class", *(OWL + name for name in (
        "ObjectProperty", "DatatypeProperty", "AnnotationProperty", "SymmetricProperty", "TransitiveProperty",
        "FunctionalProperty", "InverseFunctionalProperty", "Ontology")),
    "http://rdfs.org/ns/void#Dataset"})
"""The classes of vocabulary terms type_counts.rq leaves out (its NOT IN list; the oracle
tests compare the two)."""
TEXT_LENGTH = 200
"""The longest text value searched (text_values.rq's STRLEN bound)."""
UNSEARCHED = NAME_PREDICATES
"""The predicates whose values are names (read apart, by names.rq), not searched text
values; nor are those of the bfs: vocabulary (text_values.rq's NOT IN and STRSTARTS):
on a labelled graph every entity's label was read into the census only to be dropped."""


class OtherType(str):
    """A type that is no IRI (a literal or a blank node), by its N-Triples text: it counts
    apart, as SPARQL groups it, and is told as no type."""


Key = str | None
"""An end's type in `Census.connects`: an IRI, an `OtherType`, or None for none."""


Entity = tuple[str, int, list[str]]
"""(IRI, degree, IRI types): what the census tells of one entity."""


class Entities:
    """Every entity with an edge triple or an IRI type, read from the census's `Tally` a
    hash bucket at a time (so never all held as Python strings); read again on each walk."""

    def __init__(self, tally: Tally, signature: Lookup, ends: list[tuple[Key, ...]]) -> None:
        self._tally, self._signature = tally, signature
        self._types = [[t for t in kinds if isinstance(t, str) and not isinstance(t, OtherType)] if n > 1 else []
                       for n, kinds in enumerate(ends)]  # a reifier's bfs:Statement is no rdf:type

    def __iter__(self) -> Iterator[Entity]:
        types = self._types
        for keys, counts, tokens in self._tally.items():
            for iri, n, kind in zip(tokens, counts.tolist(), self._signature.of(keys).tolist(), strict=True):
                if n or types[kind]:
                    yield iri[1:-1].decode(), n, types[kind]


@dataclass
class Census:
    entities: Iterable[Entity] = ()
    """degrees.rq and entity_types.rq, entity by entity: its edge triples as subject or
    object, and its IRI types (once per graph that says so)."""
    text_values: Iterable[tuple[str, str, Literal]] = ()
    """text_values.rq: (entity, predicate, short text) of entities that are not statements,
    names and the bfs: vocabulary's values aside (a `census_tables.Spool`: on disk past a
    quarter of the memory setting, for the name index to read)."""
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
    type_counts: Counter[str] = field(default_factory=Counter)
    """type_counts.rq: IRI entities per IRI type, the term classes (`TERM_CLASSES`) and the
    entities that are types themselves left out."""
    namespace_keys: Counter[str] | None = None
    """IRIs per `namespaces.namespace_key`, once for each quad holding them (what
    `NamespaceFinder.add_quads` counts); None where not counted here."""
    maybe_unasserted: Hashes = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """Hashes of the reified triples between IRIs (`s p o` text) no edge triple counted here
    asserts, sorted: `reifiers.in_store` asks the store of these only (none: it need not read)."""
    reifier_namespaces: frozenset[str] = frozenset()
    """`terms.namespace` of every IRI reifier."""

    @property
    def degrees(self) -> Counter[str]:
        """degrees.rq, all held: entity -> edge triples it is the subject or object of."""
        return Counter({x: n for x, n, _ in self.entities if n})

    @property
    def entity_types(self) -> dict[str, list[str]]:
        """entity_types.rq, all held: entity -> its IRI types."""
        return {x: kinds for x, _, kinds in self.entities if kinds}


def census(ctx: GraphContext, *, texts: bool = True) -> Census | None:
    """The counts of `ctx`'s graph (`texts`: with its text values, which only the search
    index reads), or None where they must be asked in SPARQL: a store whose quads are not
    read in process, or a profile that does not count as native's templates do."""
    quads = ctx.backend.capabilities.quads
    if quads is None or not ctx.profile.counts_quads_in_process:
        return None
    local = ctx.backend.capabilities.local_store  # the whole store: written as text by its own writers
    read = quads(None)
    return count(read, StoreSource(local.store) if local is not None else QuadSource(read), texts=texts,
                 memory=ctx.settings.census_memory)


def count(quads: Quads, source: Source, *, texts: bool, memory: int = 64 << 20) -> Census:
    """The census of these quads (`source` writes them as text): types, reifiers and
    statuses first (index ranges), then every quad once, then the counts per type folded
    out of the counts per set of types. `memory`: the bytes the pass may hold of its
    counts per entity before it puts them in temporary files."""
    return _finish(_pass(source, lambda: _reifiers(quads), texts=texts, memory=memory), quads)


@dataclass
class FileCensus:
    """The census of N-Triples files read as text while the store loads them
    (`census_files`), to be finished over the loaded store (`finish_files`)."""

    source: FileSource
    pending: _Pending | None


def census_files(paths: Sequence[Path], *, memory: int, stop: Callable[[], bool] = lambda: False,
                 reading: set[int] | None = None) -> FileCensus:
    """The counts of these N-Triples files (plain or gzip) from their text, meant to run
    beside the store's bulk load of the same files into an empty store; `stop` is asked
    between chunks (the load failed: `Stopped` is raised); `reading` holds the descriptors
    of the files it has open (`FileSource.reading`)."""
    source = FileSource(paths, stop, reading)
    pending = _pass(source, source.reifications.done, texts=True, memory=memory)
    return FileCensus(source, pending if source.canonical else None)


def finish_files(counted: FileCensus, ctx: GraphContext, held: int | None = None) -> Census | None:
    """The census `census(ctx)` would take, from what `census_files` read; None where the
    files' text does not count as the store does (a line not spelt as the store writes it:
    the caller then counts the store). `held`: the quads the store holds, where the caller
    has counted them (counting them is a scan of the store)."""
    quads, local = ctx.backend.capabilities.quads, ctx.backend.capabilities.local_store
    if counted.pending is None or quads is None or local is None or not ctx.profile.counts_quads_in_process \
            or counted.source.lines - counted.source.repeats != (len(local.store) if held is None else held):
        return None
    found = _finish(counted.pending, quads(None))
    found.namespace_keys = counted.source.namespace_keys(counted.pending.tally)
    return found


@dataclass
class _Pending:
    """What the pass over the text counted, before the statuses (read from the store) and
    the folds per type."""

    tally: Tally
    counts: Counts
    signature: Lookup
    ends: list[tuple[Key, ...]]
    reifications: Reifications
    classes: Hashes
    """Every IRI used as a type, once."""


def _pass(source: Source, reifiers_of: Callable[[], Reifications], *, texts: bool, memory: int) -> _Pending:
    tally = Tally(rows_for(memory))
    types = Types(tally, pairs_for(memory))
    source.types(types)
    reifications = reifiers_of()
    ends, signature, statements = _signatures(types, reifications.reifiers, distinct=source.distinct_types)
    known = Known(
        signature=signature, reifiers=reifications.reifiers, statements=statements,
        reified=reifications.reified,
        non_edges=frozenset(_token(p) for p in NON_EDGES), schema=frozenset(_token(p) for p in SCHEMA),
        texts=TEXT_LENGTH if texts else -1, unsearched=frozenset(_token(p) for p in UNSEARCHED),
    )
    classes = np.unique(hashes([t for t in (*types.numbers, *types.others) if t[:1] == b"<" and t[1:2] != b"<"]))
    counts = Counts(tally, Spool(spooled_for(memory)))
    types_read = source.reads_types_apart and all(t[:1] == b"<" for t in types.numbers)
    if types_read and len(types.pairs):  # schema_predicate_counts.rq's rdf:type, from the types read
        counts.schema_predicates[_token(_TYPE)] += sum(
            int(np.count_nonzero(~known.reifiers.of(subjects))) for subjects, _ in types.pairs.buckets())
    del types
    source.quads(Scan(known, counts), types_read=types_read)
    return _Pending(tally, counts, signature, ends, reifications, classes)


def _finish(pending: _Pending, quads: Quads) -> Census:
    found = Census()
    counts, ends = pending.counts, pending.ends
    asserted = np.unique(np.concatenate(counts.asserted)) if counts.asserted else np.zeros(0, dtype=np.int64)
    found.maybe_unasserted = np.setdiff1d(pending.reifications.reified.keys, asserted, assume_unique=True)
    if pending.reifications:
        stated = pending.reifications.statuses(counts.stated, counts.status_names, counts.timed, found.maybe_unasserted)
        if stated is None:
            _count_statuses(quads, found)
        else:
            found.statuses, found.untimed = Counter[Term](stated[0]), Counter[Term](stated[1])
    found.entities = Entities(pending.tally, pending.signature, ends)
    found.text_values = counts.text_values
    found.reifier_namespaces = pending.reifications.namespaces
    found.plain = counts.plain
    found.predicates.update({_iri(p): n for p, n in counts.predicates.items()})
    found.schema_predicates.update({_iri(p): n for p, n in counts.schema_predicates.items()})
    found.blank_values.update({_iri(p): n for p, n in counts.blank_values.items()})
    _fold_edges(found, counts.edges, ends, statements_held=bool(pending.reifications))
    _fold_literals(found, counts.literals, ends)
    found.type_counts = _type_counts(pending.signature, ends, pending.classes)
    return found


def _type_counts(signature: Lookup, ends: list[tuple[Key, ...]], classes: Hashes) -> Counter[str]:
    """type_counts.rq from the entities' sets of types: the entities of each set, but those
    that are a type themselves (a class is no instance), counted once for each IRI type
    in the set (a set read from several graphs may name a type twice)."""
    entities = signature.per_value(len(ends)) - np.bincount(signature.of(classes), minlength=len(ends))
    found: Counter[str] = Counter()
    for kinds, n in zip(ends[2:], entities[2:].tolist(), strict=True):
        for kind in {k for k in kinds if isinstance(k, str) and not isinstance(k, OtherType)} - TERM_CLASSES if n else ():
            found[kind] += n
    return found


def _token(iri: str) -> bytes:
    return f"<{iri}>".encode()


def _iri(token: bytes) -> str:
    return token[1:-1].decode()


def _reifiers(quads: Quads) -> Reifications:
    """The store's rdf:reifies quads, by hash: its IRI reifiers, and each edge triple between
    IRIs (as `s p o`, as an N-Triples line begins) with how many reifiers it has; each quad
    is one (the same statement in two graphs twice)."""
    named = ox.NamedNode
    found = Reifications()
    read = iter(quads(None, _REIFIES, None))
    start = 0
    while batch := list(itertools.islice(read, _BATCH)):  # a batch's terms as text at a time: the rest as hashes
        terms = [type(t) is ox.Triple for _, _, t, _ in batch]
        found.add_rows(np.arange(start, start + len(batch), dtype=np.int64),
                       [token(r) if type(r) is named else b"_:" for r, _, _, _ in batch], terms,
                       [token(t) if term and type(t.subject) is named and type(t.object) is named else None
                        for (_, _, t, _), term in zip(batch, terms, strict=True)])
        start += len(batch)
    return found.done()


_BATCH = 1 << 16
"""rdf:reifies quads `_reifiers` reads into Python at a time."""


def _signatures(types: Types, reifiers: Members, *, distinct: bool = False) -> tuple[list[tuple[Key, ...]], Lookup, Members]:
    """(the distinct sets of types entities have, entity -> the index of its set, the
    statements: reifiers and entities typed rdf:Statement): what the pass over every quad
    looks each triple's ends up in, so that a triple costs one count (most entities share
    a few sets). Index 0 is untyped, 1 an untyped reifier (not held here: 16 bytes each,
    where the reifiers are held already; `Known.signatures`). Read a hash bucket of the
    types at a time: what is held past them is the answer, 16 bytes a typed entity."""
    names: list[Key] = [_iri(t) if t[:1] == b"<" else OtherType(t.decode()) for t in types.numbers]
    statement = types.numbers.get(_token(_RDF_STATEMENT))
    sets: dict[tuple[int, ...], int] = {}
    entities: list[Hashes] = []
    numbers: list[npt.NDArray[np.int64]] = []
    typed: list[Hashes] = []
    for subjects, kinds in types.pairs.buckets():
        found, of_each = _bucket_sets(subjects, kinds, sets, distinct=distinct)
        entities.append(found)
        numbers.append(of_each + 2)
        if statement is not None:
            typed.append(subjects[kinds == statement])
    ends: list[tuple[Key, ...]] = [(None,), (_STATEMENT,), *(tuple(names[k] for k in kinds) for kinds in sets)]
    keys = np.concatenate(entities) if entities else np.zeros(0, dtype=np.int64)  # sorted: see Pairs.buckets
    values = np.concatenate(numbers) if numbers else np.zeros(0, dtype=np.int64)
    del entities, numbers
    typed = [found for found in typed if len(found)]
    statements = Members.of_hashes(np.concatenate([reifiers.hashes, *typed])) if typed else reifiers
    return ends, Lookup(keys, values, ordered=True), statements


def _bucket_sets(subjects: Hashes, kinds: npt.NDArray[np.int64], sets: dict[tuple[int, ...], int], *,
                 distinct: bool) -> tuple[Hashes, npt.NDArray[np.int64]]:
    """(the entities of these (subject, type) rows, sorted, and each one's set of types as
    its number in `sets`, which gains the sets not seen before)."""
    order = np.lexsort((kinds, subjects))
    subjects, kinds = subjects[order], kinds[order]
    if distinct and len(subjects):
        kept = np.r_[True, (subjects[1:] != subjects[:-1]) | (kinds[1:] != kinds[:-1])]
        subjects, kinds = subjects[kept], kinds[kept]
    starts = np.flatnonzero(np.r_[True, subjects[1:] != subjects[:-1]]) if len(subjects) else np.zeros(0, dtype=np.int64)
    local, first = _sets(kinds, starts)
    bounds = np.r_[starts, len(kinds)]
    number = np.array([sets.setdefault(tuple(kinds[bounds[g]:bounds[g + 1]].tolist()), len(sets)) for g in first.tolist()],
                      dtype=np.int64)
    return subjects[starts], number[local] if len(local) else np.zeros(0, dtype=np.int64)


def _sets(kinds: npt.NDArray[np.int64], starts: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(each entity's set of types as a number from 0, the first entity of each set), the
    entities' types being `kinds` from each of `starts` on (sorted within each)."""
    if not len(starts):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    sizes = np.diff(np.r_[starts, len(kinds)])
    bits = (int(kinds.max()) + 2).bit_length()
    if bits * int(sizes.max()) <= 62:  # a set packed into one number, a type in each `bits`
        position = np.arange(len(kinds)) - np.repeat(starts, sizes)
        packed = np.add.reduceat((kinds + 1) << (bits * position), starts)
    else:
        bounds = np.r_[starts, len(kinds)].tolist()
        numbers: dict[tuple[int, ...], int] = {}
        packed = np.array([numbers.setdefault(tuple(kinds[a:b].tolist()), len(numbers))
                           for a, b in itertools.pairwise(bounds)], dtype=np.int64)
    _, first, sets = np.unique(packed, return_index=True, return_inverse=True)
    return sets.astype(np.int64), first.astype(np.int64)


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
