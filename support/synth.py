"""Synthetic RDF 1.2 graphs for the gateway's tests and benchmarks.

Two generators live here:

* `random_graph` builds small graphs as Python objects (`SynthGraph`), so a
  test can hand the same graph to the gateway (serialized) and to the
  reference oracle (as objects) and compare the answers.
* `power_law_ntriples` streams large N-Triples documents with heavy-tailed
  node degrees for benchmarks; it never holds the graph in memory.

A statement with its own identity is an RDF 1.2 reifier:
``<r> rdf:reifies <<( <s> <p> <o> )>>``, described by the bfs: vocabulary
(vocab/bfsql.ttl).
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace

import numpy as np

ENTITY = "http://synth.example/e/"
PREDICATE = "http://synth.example/p/"
STATEMENT = "http://synth.example/s/"
TYPE = "http://synth.example/t/"
BFS = "https://w3id.org/bfsql#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
OWL = "http://www.w3.org/2002/07/owl#"
XSD = "http://www.w3.org/2001/XMLSchema#"

RDF_TYPE = RDF + "type"
RDF_REIFIES = RDF + "reifies"
OWL_SYMMETRIC = OWL + "SymmetricProperty"
OWL_INVERSE_OF = OWL + "inverseOf"
XSD_INTEGER = XSD + "integer"
BFS_TRUTH_STATUS = BFS + "truthStatus"
BFS_ASSERTED_AT = BFS + "assertedAt"
BFS_VALID_FROM = BFS + "validFrom"
BFS_VALID_UNTIL = BFS + "validUntil"

STATUSES: tuple[str, ...] = (
    "asserted_true",
    "asserted_false",
    "hypothetical",
    "disputed",
    "retracted",
)

# Prefixes for `to_turtle`, longest namespace first is not needed: none of
# these namespaces is a prefix of another.
TURTLE_PREFIXES: dict[str, str] = {
    "e": ENTITY,
    "s": STATEMENT,
    "p": PREDICATE,
    "t": TYPE,
    "bfs": BFS,
    "rdf": RDF,
    "owl": OWL,
    "xsd": XSD,
}

# Local names we may abbreviate; anything else (hand-made test IRIs) is
# written in full so the Turtle output is always valid.
_SAFE_LOCAL = re.compile(r"[A-Za-z0-9_]+")


def entity(i: int) -> str:
    return f"{ENTITY}{i}"


def predicate(k: int) -> str:
    return f"{PREDICATE}{k}"


def statement_iri(n: int) -> str:
    return f"{STATEMENT}{n}"


def type_iri(k: int) -> str:
    return f"{TYPE}{k}"


def default_status(asserted: bool) -> str:
    """The status the model gives a reifier that states none (vocab/bfsql.ttl)."""
    return "asserted_true" if asserted else "hypothetical"


@dataclass(frozen=True)
class Statement:
    """One edge of the model, with full IRIs.

    `id is None` is a plain triple: it has no statement data, so it counts as
    an asserted, timeless `asserted_true`. `asserted=False` is a reifier whose
    triple is absent from the graph. `status` is always the effective status,
    also when the serialization leaves it to the default rule.
    """

    id: str | None
    s: str
    p: str
    o: str
    status: str = "asserted_true"
    asserted: bool = True
    asserted_at: int | None = None
    valid_from: int | None = None
    valid_until: int | None = None

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"unknown truth status {self.status!r}")
        if self.id is None and not self._is_bare():
            raise ValueError("a plain triple (id=None) cannot carry statement data")

    def _is_bare(self) -> bool:
        times = (self.asserted_at, self.valid_from, self.valid_until)
        return self.status == "asserted_true" and self.asserted and times == (None,) * 3

    @property
    def triple(self) -> tuple[str, str, str]:
        return (self.s, self.p, self.o)


@dataclass(frozen=True)
class SynthGraph:
    """A graph as the model sees it, serializable to RDF 1.2.

    `types` maps a node to its rdf:type; `inverses` maps p to q for
    ``p owl:inverseOf q`` as declared (one direction only).
    `implicit_status` lists reifiers written without bfs:truthStatus, so a
    reader must apply `default_status`; the default keeps hand-made graphs
    short.
    """

    statements: list[Statement]
    types: dict[str, str] = field(default_factory=dict)
    symmetric: frozenset[str] = frozenset()
    inverses: dict[str, str] = field(default_factory=dict)
    implicit_status: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        ids = [st.id for st in self.statements if st.id is not None]
        if len(ids) != len(set(ids)):
            raise ValueError("reifier ids must be unique")
        self._check_implicit_statuses()

    def _check_implicit_statuses(self) -> None:
        # An omitted status is only faithful if the default rule yields the
        # status the model holds; otherwise the RDF would say something else.
        for st in self.statements:
            if st.id in self.implicit_status and st.status != default_status(st.asserted):
                raise ValueError(f"{st.id}: omitted status would read as {default_status(st.asserted)}")

    def to_ntriples(self) -> str:
        lines = dict.fromkeys(_nt_lines(self))  # base triples repeat for parallel reifiers
        return "".join(f"{line}\n" for line in lines)

    def to_turtle(self) -> str:
        prefixes = [f"@prefix {name}: <{iri}> ." for name, iri in TURTLE_PREFIXES.items()]
        return "\n".join([*prefixes, "", *_turtle_lines(self)]) + "\n"


# --- N-Triples ---------------------------------------------------------------


def _iri(iri: str) -> str:
    return f"<{iri}>"


def _nt_integer(value: int) -> str:
    return f'"{value}"^^<{XSD_INTEGER}>'


def _nt_triple(s: str, p: str, o: str) -> str:
    return f"{_iri(s)} {_iri(p)} {_iri(o)}"


def _statement_data(st: Statement, implicit: frozenset[str]) -> list[tuple[str, str | int]]:
    """(property, value) pairs written on a reifier; IRIs as str, literals as int."""
    data: list[tuple[str, str | int]] = []
    if st.id not in implicit:
        data.append((BFS_TRUTH_STATUS, BFS + st.status))
    for prop, value in (
        (BFS_ASSERTED_AT, st.asserted_at),
        (BFS_VALID_FROM, st.valid_from),
        (BFS_VALID_UNTIL, st.valid_until),
    ):
        if value is not None:
            data.append((prop, value))
    return data


def _schema_triples(g: SynthGraph) -> Iterator[tuple[str, str, str]]:
    """rdf:type and OWL trait triples, all IRI-valued."""
    for node, node_type in g.types.items():
        yield (node, RDF_TYPE, node_type)
    for p in sorted(g.symmetric):
        yield (p, RDF_TYPE, OWL_SYMMETRIC)
    for p, q in g.inverses.items():
        yield (p, OWL_INVERSE_OF, q)


def _nt_lines(g: SynthGraph) -> Iterator[str]:
    for st in g.statements:
        yield from _nt_statement(st, g.implicit_status)
    for s, p, o in _schema_triples(g):
        yield _nt_triple(s, p, o) + " ."


def _nt_statement(st: Statement, implicit: frozenset[str]) -> Iterator[str]:
    if st.asserted:
        yield _nt_triple(st.s, st.p, st.o) + " ."
    if st.id is None:
        return
    yield f"{_iri(st.id)} {_iri(RDF_REIFIES)} <<( {_nt_triple(st.s, st.p, st.o)} )>> ."
    for prop, value in _statement_data(st, implicit):
        term = _iri(value) if isinstance(value, str) else _nt_integer(value)
        yield f"{_iri(st.id)} {_iri(prop)} {term} ."


# --- Turtle ------------------------------------------------------------------


def _qname(iri: str) -> str:
    if iri == RDF_TYPE:
        return "a"
    for name, namespace in TURTLE_PREFIXES.items():
        if iri.startswith(namespace) and _SAFE_LOCAL.fullmatch(iri[len(namespace) :]):
            return f"{name}:{iri[len(namespace) :]}"
    return _iri(iri)


def _ttl_term(value: str | int) -> str:
    # Bare integers are xsd:integer in Turtle, so both outputs load to the
    # same literals while exercising different syntax.
    return str(value) if isinstance(value, int) else _qname(value)


def _ttl_triple(s: str, p: str, o: str) -> str:
    return f"{_qname(s)} {_qname(p)} {_qname(o)}"


def _ttl_property_list(data: Iterable[tuple[str, str | int]]) -> str:
    return " ; ".join(f"{_qname(prop)} {_ttl_term(value)}" for prop, value in data)


def _turtle_lines(g: SynthGraph) -> Iterator[str]:
    for st in g.statements:
        yield _ttl_statement(st, g.implicit_status)
    for s, p, o in _schema_triples(g):
        yield _ttl_triple(s, p, o) + " ."


def _ttl_statement(st: Statement, implicit: frozenset[str]) -> str:
    """One statement in RDF 1.2 Turtle.

    An asserted reifier uses the annotation syntax (``s p o ~ r {| ... |}``),
    which states the triple and its reifier at once; a reifier-only one uses a
    reified triple as subject (``<< s p o ~ r >> ...``), which does not assert.
    """
    triple = _ttl_triple(st.s, st.p, st.o)
    if st.id is None:
        return f"{triple} ."
    props = _ttl_property_list(_statement_data(st, implicit))
    if st.asserted:
        block = f" {{| {props} |}}" if props else ""
        return f"{triple} ~ {_qname(st.id)}{block} ."
    return f"<< {triple} ~ {_qname(st.id)} >> {props} ." if props else f"<< {triple} ~ {_qname(st.id)} >> ."


# --- Small random graphs -----------------------------------------------------

_N_TYPES = 4
_P_REIFIED = 0.7  # share of reified statements when reified=True
_P_PARALLEL = 0.08  # a second reifier for an existing triple
_P_SELF_LOOP = 0.05
_P_REIFIER_ONLY = 0.2
_P_OMIT_STATUS = 0.1
_P_TYPED = 0.85
_STATUS_WEIGHTS = (0.6, 0.1, 0.1, 0.1, 0.1)  # order of STATUSES
_MAX_TIME = 100


def random_graph(
    rng: random.Random,
    n_nodes: int,
    n_statements: int,
    *,
    reified: bool,
    meta_fraction: float = 0.05,
    n_predicates: int = 4,
    with_traits: bool = True,
) -> SynthGraph:
    """A small random graph for differential tests.

    With `reified=False` every statement is a plain triple (so there are no
    meta-statements either). The result is normalized so that what the RDF
    says and what the objects say cannot differ; see `_normalise`.
    """
    if n_nodes < 1 or n_predicates < 1:
        raise ValueError("need at least one node and one predicate")
    nodes = [entity(i) for i in range(n_nodes)]
    preds = [predicate(k) for k in range(n_predicates)]
    ids = (statement_iri(n) for n in itertools.count())
    statements: list[Statement] = []
    implicit: set[str] = set()
    for _ in range(n_statements):
        st = _random_statement(rng, nodes, preds, statements, ids, reified, meta_fraction)
        if st.id is not None and rng.random() < _P_OMIT_STATUS:
            implicit.add(st.id)
        statements.append(st)
    statements = _normalise(statements, implicit)
    return SynthGraph(
        statements=statements,
        types=_random_types(rng, statements),
        symmetric=frozenset(preds[:1]) if with_traits else frozenset(),
        inverses={preds[1]: preds[2]} if with_traits and n_predicates >= 3 else {},
        implicit_status=frozenset(implicit),
    )


def _random_statement(
    rng: random.Random,
    nodes: list[str],
    preds: list[str],
    earlier: list[Statement],
    ids: Iterator[str],
    reified: bool,
    meta_fraction: float,
) -> Statement:
    earlier_reified = [st for st in earlier if st.id is not None]
    if reified and earlier_reified and rng.random() < _P_PARALLEL:
        twin = rng.choice(earlier_reified)
        # Same asserted flag: the base triple is shared in RDF anyway.
        return _random_reified(rng, next(ids), twin.triple, asserted=twin.asserted)
    reifiers = [st.id for st in earlier_reified if st.id is not None]
    triple = _random_triple(rng, nodes, preds, reifiers, meta_fraction)
    if reified and rng.random() < _P_REIFIED:
        return _random_reified(rng, next(ids), triple, asserted=rng.random() >= _P_REIFIER_ONLY)
    return Statement(None, *triple)


def _random_triple(
    rng: random.Random,
    nodes: list[str],
    preds: list[str],
    reifiers: list[str],
    meta_fraction: float,
) -> tuple[str, str, str]:
    s, o = rng.choice(nodes), rng.choice(nodes)
    if rng.random() < _P_SELF_LOOP:
        o = s
    elif reifiers and rng.random() < meta_fraction:
        # A meta-statement talks about an earlier statement's reifier.
        if rng.random() < 0.5:
            s = rng.choice(reifiers)
        else:
            o = rng.choice(reifiers)
    return (s, rng.choice(preds), o)


def _random_reified(
    rng: random.Random, reifier: str, triple: tuple[str, str, str], *, asserted: bool
) -> Statement:
    valid_from, valid_until = _random_validity(rng)
    return Statement(
        id=reifier,
        s=triple[0],
        p=triple[1],
        o=triple[2],
        status=rng.choices(STATUSES, weights=_STATUS_WEIGHTS)[0],
        asserted=asserted,
        asserted_at=None if rng.random() < 0.3 else rng.randint(0, _MAX_TIME),
        valid_from=valid_from,
        valid_until=valid_until,
    )


def _random_validity(rng: random.Random) -> tuple[int | None, int | None]:
    roll = rng.random()
    a, b = sorted((rng.randint(0, _MAX_TIME), rng.randint(0, _MAX_TIME)))
    if roll < 0.6:
        return (None, None)
    if roll < 0.8:
        return (a, b)
    if roll < 0.9:
        return (a, None)
    return (None, b)


def _normalise(statements: list[Statement], implicit: set[str]) -> list[Statement]:
    """Make the objects agree with what the serialized RDF will say.

    RDF holds a triple at most once, so: a reifier is asserted iff any reifier
    of the same triple is (the base triple is then in the graph); a plain
    triple that some reifier also reifies is not plain but that reifier's base
    triple, so it is dropped; duplicate plain triples collapse. Omitted
    statuses are recomputed because `asserted` may have changed.
    """
    reified = {st.triple for st in statements if st.id is not None}
    asserted = {st.triple for st in statements if st.id is not None and st.asserted}
    seen_plain: set[tuple[str, str, str]] = set()
    result: list[Statement] = []
    for st in statements:
        if st.id is None:
            if st.triple not in reified and st.triple not in seen_plain:
                seen_plain.add(st.triple)
                result.append(st)
            continue
        is_asserted = st.triple in asserted
        status = default_status(is_asserted) if st.id in implicit else st.status
        result.append(replace(st, asserted=is_asserted, status=status))
    return result


def _random_types(rng: random.Random, statements: list[Statement]) -> dict[str, str]:
    # Only entities that occur in a statement get a type: a typed node with no
    # statements would make "does this node exist" depend on whether a reader
    # counts rdf:type, which the oracle deliberately does not.
    used = sorted({n for st in statements for n in (st.s, st.o) if n.startswith(ENTITY)})
    return {n: type_iri(rng.randrange(_N_TYPES)) for n in used if rng.random() < _P_TYPED}


# --- Large power-law streams -------------------------------------------------

_CHUNK = 65_536
_ZIPF_EXPONENT = 1.0  # rank-frequency exponent; degree tail ~ k^-2
_PL_STATUS_WEIGHTS = np.array([0.8, 0.05, 0.05, 0.05, 0.05])
_PL_REIFIER_ONLY = 0.1
_PL_VALIDITY = 0.1


def power_law_ntriples(
    n_triples: int, *, seed: int, reified: bool, n_predicates: int = 20
) -> Iterator[str]:
    """Stream N-Triples lines (each ending in a newline) for benchmarks.

    Endpoints follow a Zipf law over about n_triples/10 nodes, so a few hubs
    carry most edges. The stream stops after the statement that brings the
    line count to n_triples, so it overshoots by at most one statement's
    lines (6). In reified mode bfs:assertedAt is the statement's index, so an
    as_of cutoff of k keeps the first k+1 statements.
    """
    rng = np.random.default_rng(seed)
    n_nodes = max(10, n_triples // 10)
    nodes = _scattered_zipf_sampler(rng, n_nodes, [f"<{entity(i)}>" for i in range(n_nodes)])
    preds = _scattered_zipf_sampler(rng, n_predicates, [f"<{predicate(k)}>" for k in range(n_predicates)])
    write = _reified_lines if reified else _plain_lines
    emitted = 0
    for first in itertools.count(0, _CHUNK):
        chunk = _Chunk.draw(rng, first, nodes, preds)
        for lines in write(chunk):
            yield from lines
            emitted += len(lines)
            if emitted >= n_triples:
                return


@dataclass(frozen=True)
class _Sampler:
    terms: list[str]
    cdf: np.ndarray

    def draw(self, rng: np.random.Generator, size: int) -> list[str]:
        ranks = np.searchsorted(self.cdf, rng.random(size), side="right")
        # Rounding can leave cdf[-1] a hair under 1.0.
        ranks = np.minimum(ranks, len(self.terms) - 1)
        return [self.terms[r] for r in ranks.tolist()]


def _scattered_zipf_sampler(rng: np.random.Generator, n: int, terms: list[str]) -> _Sampler:
    weights = 1.0 / np.arange(1, n + 1, dtype=np.float64) ** _ZIPF_EXPONENT
    # Shuffle which term gets which rank so hubs are not simply the low ids.
    order = rng.permutation(n).tolist()
    return _Sampler(terms=[terms[i] for i in order], cdf=np.cumsum(weights) / weights.sum())


@dataclass(frozen=True)
class _Chunk:
    """Columns for _CHUNK statements, drawn at once because numpy is fast only in bulk."""

    first: int
    s: list[str]
    p: list[str]
    o: list[str]
    status: list[int]
    asserted: list[bool]
    has_validity: list[bool]
    valid_from: list[int]
    valid_until: list[int]

    @classmethod
    def draw(cls, rng: np.random.Generator, first: int, nodes: _Sampler, preds: _Sampler) -> _Chunk:
        valid_from = rng.integers(0, 1000, _CHUNK)
        return cls(
            first=first,
            s=nodes.draw(rng, _CHUNK),
            p=preds.draw(rng, _CHUNK),
            o=nodes.draw(rng, _CHUNK),
            status=rng.choice(len(STATUSES), size=_CHUNK, p=_PL_STATUS_WEIGHTS).tolist(),
            asserted=(rng.random(_CHUNK) >= _PL_REIFIER_ONLY).tolist(),
            has_validity=(rng.random(_CHUNK) < _PL_VALIDITY).tolist(),
            valid_from=valid_from.tolist(),
            valid_until=(valid_from + rng.integers(0, 500, _CHUNK)).tolist(),
        )


def _plain_lines(chunk: _Chunk) -> Iterator[list[str]]:
    for s, p, o in zip(chunk.s, chunk.p, chunk.o):
        yield [f"{s} {p} {o} .\n"]


_NT_REIFIES = f"<{RDF_REIFIES}>"
_NT_STATUS = f"<{BFS_TRUTH_STATUS}>"
_NT_STATUS_VALUES = [f"<{BFS}{status}>" for status in STATUSES]
_NT_ASSERTED_AT = f"<{BFS_ASSERTED_AT}>"
_NT_VALID_FROM = f"<{BFS_VALID_FROM}>"
_NT_VALID_UNTIL = f"<{BFS_VALID_UNTIL}>"
_NT_INT = f"<{XSD_INTEGER}>"


def _reified_lines(chunk: _Chunk) -> Iterator[list[str]]:
    for i in range(_CHUNK):
        n = chunk.first + i
        r = f"<{STATEMENT}{n}>"
        triple = f"{chunk.s[i]} {chunk.p[i]} {chunk.o[i]}"
        lines = [f"{r} {_NT_REIFIES} <<( {triple} )>> .\n"]
        if chunk.asserted[i]:
            lines.append(f"{triple} .\n")
        lines.append(f"{r} {_NT_STATUS} {_NT_STATUS_VALUES[chunk.status[i]]} .\n")
        lines.append(f'{r} {_NT_ASSERTED_AT} "{n}"^^{_NT_INT} .\n')
        if chunk.has_validity[i]:
            lines.append(f'{r} {_NT_VALID_FROM} "{chunk.valid_from[i]}"^^{_NT_INT} .\n')
            lines.append(f'{r} {_NT_VALID_UNTIL} "{chunk.valid_until[i]}"^^{_NT_INT} .\n')
        yield lines
