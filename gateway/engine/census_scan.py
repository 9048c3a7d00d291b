"""The census's pass over every quad, read as text in chunks and counted with numpy.

Making a pyoxigraph term object for each of a quad's three terms, and a Python string for
each value, was most of what the census cost; and each distinct entity then held a
string-keyed entry of its own (~350-440 bytes). Here the store writes its terms as text
in native code (`StoreSource`: a query's TSV results, a predicate at a time; a scope's
quads are written as N-Triples lines here, `QuadSource`), `Scan` cuts each chunk into
terms with one regular expression and counts with numpy over 64-bit hashes of the terms'
text (`census_tables`). What is kept per entity is its hash, its count and its IRI's
bytes (`Tally`), and past `Settings.census_memory` bytes those go to disk in hash buckets.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial

import numpy as np
import numpy.typing as npt
import pyoxigraph as ox

from gateway.backends.base import Quads
from gateway.engine.census_tables import Hashes, Lookup, Members, Pairs, Spool, Tally, hashes
from gateway.terms import BFS, RDF, Literal, from_oxigraph

_XSD_STRING = b"http://www.w3.org/2001/XMLSchema#string"
_LANG_STRING = RDF + "langString"
_DIR_LANG_STRING = RDF + "dirLangString"
_TYPE = ox.NamedNode(RDF + "type")
CHUNK = 4 << 20
"""Bytes of N-Triples cut into lines at a time."""


def token(term: object) -> bytes:
    """A pyoxigraph term's N-Triples bytes, as the store's own N-Triples writes it."""
    return str(term).encode()


@dataclass
class Known:
    """What the passes before this one found, by hash."""

    signature: Lookup
    """Typed entity -> the index of its set of types (0: untyped; a reifier: `signatures`)."""
    reifiers: Members
    statements: Members
    """Reifiers and entities typed rdf:Statement: their own text is no searched value."""
    reified: Lookup
    """An edge triple's `s p o` bytes -> how many reifiers it has."""
    non_edges: frozenset[bytes]
    schema: frozenset[bytes]
    texts: int
    """The longest text value kept (-1: none)."""
    unsearched: frozenset[bytes]
    """Predicates whose values are no searched text (`census.UNSEARCHED`)."""

    def signatures(self, keys: Hashes) -> npt.NDArray[np.int64]:
        """Each entity's index of its set of types; 1 for a reifier without types."""
        found = self.signature.of(keys)
        if len(self.reifiers):
            found[(found == 0) & self.reifiers.of(keys)] = 1
        return found


@dataclass
class Counts:
    """What the pass counts, predicates as their N-Triples bytes."""

    degrees: Tally
    text_values: Spool[tuple[str, str, Literal]]
    """(entity, predicate, short text): `census.Census.text_values`."""
    edges: Counter[tuple[bytes, int, int]] = field(default_factory=Counter)
    literals: Counter[tuple[int, bytes, str]] = field(default_factory=Counter)
    predicates: Counter[bytes] = field(default_factory=Counter)
    plain: int = 0
    schema_predicates: Counter[bytes] = field(default_factory=Counter)
    blank_values: Counter[bytes] = field(default_factory=Counter)
    asserted: list[Hashes] = field(default_factory=list)
    """Hashes of the reified edge triples (`s p o`) the lines assert, a chunk at a time."""
    stated: list[tuple[Hashes, npt.NDArray[np.integer]]] = field(default_factory=list)
    """Where reifiers are held: (subjects' hashes, `status_names` numbers) of the bfs:truthStatus lines."""
    status_names: dict[bytes, int] = field(default_factory=dict)
    timed: list[Hashes] = field(default_factory=list)
    """Where reifiers are held: subjects' hashes of the bfs:assertedAt lines."""


Take = Callable[[bytes], None]
"""What reads lines of text, a chunk of whole lines at a time."""
Row = tuple[bytes, bytes, bytes]
_LINE = re.compile(rb"^(<[^<][^ ]*>) ([^ ]+) (.*) \.$", re.MULTILINE)
"""An N-Triples line whose subject is an IRI: (subject, predicate, object)."""
_PAIR = re.compile(rb"^(<[^<][^\t]*>)\t(.*)$", re.MULTILINE)
"""A (subject, object) TSV line whose subject is an IRI."""
_OTHER_PAIR = re.compile(rb"^_:[^\t\n]*\t(.*)$", re.MULTILINE)
"""A (subject, object) TSV line whose subject is a blank node: its object."""
_STATUS, _ASSERTED_AT = f"<{BFS}truthStatus>".encode(), f"<{BFS}assertedAt>".encode()
_BFS = f"<{BFS}".encode()
_WRITTEN = (b"<", b'"', b"_")
"""How an IRI, a literal in full and a blank node begin (a triple term too: <<)."""


class Lines:
    """A file-like object a store's writer writes into: its text handed on as whole lines,
    a chunk at a time, only a chunk held."""

    def __init__(self, take: Take) -> None:
        self._take = take
        self._held: list[bytes] = []
        self._size = 0

    def write(self, data: bytes) -> int:
        self._held.append(bytes(data))
        self._size += len(data)
        if self._size >= CHUNK:
            text = b"".join(self._held)
            cut = text.rfind(b"\n") + 1
            self._held, self._size = [text[cut:]], len(text) - cut
            self._take(text[:cut])
        return len(data)

    def flush(self) -> None:
        """Nothing: a line may be cut between two writes, so lines go on when whole."""

    def finish(self) -> None:
        self._take(b"".join(self._held))
        self._held, self._size = [], 0


class Scan:
    """Counts N-Triples lines (`Counts`) with what the passes before found (`Known`)."""

    def __init__(self, known: Known, counts: Counts) -> None:
        self.known, self.counts = known, counts

    bare = False
    """Whether a (subject, object) line of the predicate read now held a bare number or
    boolean, as a query's TSV writes one (its datatype then read apart: `datatypes`)."""

    def lines(self, text: bytes) -> None:
        """Count these N-Triples lines (those whose subject is no IRI skipped)."""
        self._rows(_LINE.findall(text))

    def pairs(self, predicate: bytes, text: bytes) -> None:
        """Count these (subject, object) TSV lines of one predicate (its N-Triples bytes)."""
        rows = [(subject, predicate, value) for subject, value in _PAIR.findall(text)]
        self.bare = self.bare or any(row[2][:1] not in _WRITTEN for row in rows)
        self._rows(rows)

    def forget_literals(self, predicate: bytes) -> None:
        """Literal values of this predicate not counted so far (its datatypes are read apart)."""
        literals = self.counts.literals
        for key in [key for key in literals if key[1] == predicate]:
            del literals[key]

    def datatypes(self, predicate: bytes, text: bytes) -> None:
        """Count literal values per datatype from (subject, datatype) TSV lines of one
        predicate (no datatype: no literal)."""
        rows = [(subject, kind[1:-1].decode()) for subject, kind in _PAIR.findall(text) if kind[:1] == b"<"]
        if rows:
            signatures = self.known.signatures(hashes([row[0] for row in rows])).tolist()
            self.counts.literals.update(
                (signature, predicate, _LANG_STRING if kind == _DIR_LANG_STRING else kind)
                for (_, kind), signature in zip(rows, signatures, strict=True))

    def rows(self, rows: list[Row]) -> None:
        """Count these (IRI subject, predicate, object) rows, as their N-Triples text."""
        self._rows(rows)

    def _rows(self, rows: list[Row]) -> None:
        if len(self.known.reifiers) or len(self.known.reified):
            self._statement_rows(rows)
        iri = [row for row in rows if row[2][0] == 60 and row[2][1] != 60]  # <, but no triple term (<<)
        literal = [row for row in rows if row[2][0] == 34]  # "
        if len(iri) + len(literal) < len(rows):  # a blank node or a triple term for a value
            self.counts.blank_values.update(row[1] for row in rows if row[2][0] == 95)  # _:
        if iri:
            self._iris(iri)
        if literal:
            self._literals(literal)

    def _statement_rows(self, rows: list[Row]) -> None:
        """The statuses and times reifiers state (`Reifications.statuses` counts them)."""
        counts, names = self.counts, self.counts.status_names
        if stated := [row for row in rows if row[1] == _STATUS]:
            numbers = [names.setdefault(row[2], len(names)) for row in stated]
            # A line each reifier: its status's number in two bytes, as there are seldom more.
            counts.stated.append((hashes([row[0] for row in stated]),
                                  np.array(numbers, dtype=np.uint16 if len(names) <= 1 << 16 else np.int64)))
        if timed := [row[0] for row in rows if row[1] == _ASSERTED_AT]:
            counts.timed.append(hashes(timed))

    def _iris(self, rows: list[Row]) -> None:
        known, counts = self.known, self.counts
        non_edges = known.non_edges
        edges = [row for row in rows if row[1] not in non_edges]
        schema = [row for row in rows if row[1] in known.schema]
        if schema:
            outside = ~known.reifiers.of(hashes([row[0] for row in schema]))
            counts.schema_predicates.update(row[1] for row, out in zip(schema, outside.tolist(), strict=True) if out)
        if not edges:
            return
        subjects, objects = [row[0] for row in edges], [row[2] for row in edges]
        ends = subjects + objects
        keys = hashes(ends)
        counts.degrees.add(keys, ends)
        half = len(subjects)
        signatures = known.signatures(keys)
        predicates = [row[1] for row in edges]
        counts.edges.update(zip(predicates, signatures[:half].tolist(), signatures[half:].tolist(), strict=True))
        if len(known.reifiers) or len(known.reified):
            self._statements(edges, predicates, keys[:half])

    def _statements(self, edges: list[Row], predicates: list[bytes], subjects: Hashes) -> None:
        """Statements per predicate where the graph holds reifiers: each reifier of an
        asserted edge triple, else the triple itself, unless its subject is a reifier."""
        counts = self.counts
        keys = hashes([b" ".join(row) for row in edges])
        found = self.known.reified.of(keys)
        if found.any():
            counts.asserted.append(keys[found > 0])
        annotated = found.tolist()
        own = self.known.reifiers.of(subjects).tolist()
        for predicate, n, reifier in zip(predicates, annotated, own, strict=True):
            if n:
                counts.predicates[predicate] += n
            elif not reifier:
                counts.predicates[predicate] += 1
                counts.plain += 1

    def _literals(self, rows: list[Row]) -> None:
        known, counts = self.known, self.counts
        keys = hashes([row[0] for row in rows])
        signatures = known.signatures(keys).tolist()
        searched = (~known.statements.of(keys)).tolist() if known.texts >= 0 else [False] * len(rows)
        unsearched = known.unsearched
        for (subject, predicate, value), signature, kept in zip(rows, signatures, searched, strict=True):
            quote = value.rfind(b'"')
            suffix = value[quote + 1:]
            if not suffix:
                datatype = _XSD_STRING.decode()
            elif suffix[:1] == b"@":
                datatype = _LANG_STRING
            else:
                datatype = suffix[3:-1].decode()
            counts.literals[signature, predicate, datatype] += 1
            if kept and (not suffix or suffix[:1] == b"@") and quote - 1 <= 6 * known.texts \
                    and predicate not in unsearched and not predicate.startswith(_BFS):  # \uXXXX is six bytes a character
                text = _text(subject, predicate, value, quote, suffix)
                if len(text.value) <= known.texts:
                    counts.text_values.append((subject[1:-1].decode(), predicate[1:-1].decode(), text))


def _text(subject: bytes, predicate: bytes, value: bytes, quote: int, suffix: bytes) -> Literal:
    """A string literal's term, from its N-Triples text (read by the store's parser where
    it holds an escape)."""
    if b"\\" in value:
        quad = next(iter(ox.parse(b" ".join((subject, predicate, value, b".")), format=ox.RdfFormat.N_TRIPLES)))
        term = from_oxigraph(quad.object)
        assert isinstance(term, Literal)
        return term
    text = value[1:quote].decode()
    if not suffix:
        return Literal(text, _XSD_STRING.decode())
    language, _, direction = suffix[1:].decode().partition("--")
    return Literal(text, _DIR_LANG_STRING if direction else _LANG_STRING, language)


_TYPES = f"SELECT ?s ?t WHERE {{ {{ ?s <{RDF}type> ?t }} UNION {{ GRAPH ?g {{ ?s <{RDF}type> ?t }} }} }}"


class Source:
    """What the census reads, as text: every (subject, type) as tab-separated lines, then
    every quad."""

    distinct_types = False
    """Whether a (subject, type) read twice is one triple (a file's repeated line): else
    each is a graph's own, as the store's union of graphs gives them."""

    reads_types_apart = False
    """Whether `quads` may leave out the rdf:type triples with IRI types, which `types` read."""

    def types(self, types: Types) -> None:
        raise NotImplementedError

    def quads(self, scan: Scan, *, types_read: bool) -> None:
        raise NotImplementedError


_PREDICATES = "SELECT DISTINCT ?p WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }"
_PAIRS = "SELECT ?s ?o WHERE {{ {{ ?s {p} ?o }} UNION {{ GRAPH ?g {{ ?s {p} ?o }} }} }}"
_DATATYPES = "SELECT ?s (DATATYPE(?o) AS ?d) WHERE {{ {{ ?s {p} ?o }} UNION {{ GRAPH ?g {{ ?s {p} ?o }} }} }}"


class StoreSource(Source):
    """A whole store, its terms written as text by its own query results writer, one
    predicate at a time (a predicate then is not read for each triple): the types first,
    and then, where every type is an IRI, no rdf:type triple again."""

    reads_types_apart = True

    def __init__(self, store: ox.Store) -> None:
        self._store = store

    def types(self, types: Types) -> None:
        self._write(_TYPES, types.lines)

    def quads(self, scan: Scan, *, types_read: bool) -> None:
        for (predicate,) in self._store.query(_PREDICATES):  # type: ignore[union-attr]
            if types_read and predicate == _TYPE:
                continue
            written = token(predicate)
            scan.bare = False
            self._write(_PAIRS.format(p=written.decode()), partial(scan.pairs, written))
            if scan.bare:  # a number written bare does not say its datatype: ask it
                scan.forget_literals(written)
                self._write(_DATATYPES.format(p=written.decode()), partial(scan.datatypes, written))

    def _write(self, query: str, take: Take) -> None:
        lines = Lines(take)
        results = self._store.query(query)
        assert isinstance(results, ox.QuerySolutions)
        results.serialize(lines, format=ox.QueryResultsFormat.TSV)  # type: ignore[arg-type]  # what it calls: write
        lines.finish()


class QuadSource(Source):
    """Quads read one at a time (a scope's graphs) and written as text: slower, the same counts."""

    def __init__(self, quads: Quads) -> None:
        self._quads = quads

    def types(self, types: Types) -> None:
        _batches(types.lines, (b"\t".join((token(s), token(t))) for s, _, t, _ in self._quads(None, _TYPE, None)))

    def quads(self, scan: Scan, *, types_read: bool) -> None:
        _batches(scan.lines, (b" ".join((token(s), token(p), token(o), b".")) for s, p, o, _ in self._quads(None, None, None)
                              if type(s) is ox.NamedNode and type(o) is not ox.Triple))


def _batches(take: Take, lines: Iterable[bytes]) -> None:
    batch: list[bytes] = []
    for line in lines:
        batch.append(line)
        if len(batch) >= 100_000:
            take(b"\n".join(batch))
            batch = []
    take(b"\n".join(batch))


class Types:
    """Reads (subject, type) lines: each IRI subject's hash and type number (`pairs`,
    bounded like the `Tally`), and the subject told to the entities' `Tally`."""

    def __init__(self, tally: Tally, rows: int) -> None:
        self.tally = tally
        self.numbers: dict[bytes, int] = {}
        self.pairs = Pairs(rows)
        self.others: set[bytes] = set()
        """The types of subjects that are no IRI: a class of blank nodes is a type too."""

    def lines(self, text: bytes) -> None:
        self.rows(_PAIR.findall(text))
        if b"_:" in text:
            self.others.update(_OTHER_PAIR.findall(text))

    def rows(self, rows: list[tuple[bytes, bytes]]) -> None:
        """(IRI subject, type) pairs, as their N-Triples text."""
        if not rows:
            return
        subjects = [row[0] for row in rows]
        keys = hashes(subjects)
        numbers = self.numbers
        self.pairs.add(keys, np.array([numbers.setdefault(row[1], len(numbers)) for row in rows], dtype=np.int64))
        self.tally.add(keys, subjects, counted=False)


