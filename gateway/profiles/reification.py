"""The reification profile: statements as `rdf:Statement` nodes, for stores without RDF 1.2.

    r a rdf:Statement ; rdf:subject s ; rdf:predicate p ; rdf:object o .
    r bfs:truthStatus ... ; bfs:assertedAt ... .       the same bfs: terms as natively
    s p o .                                            present: the statement is asserted

A statement node stands where a native reifier stands (`r rdf:reifies <<( s p o )>>`):
it is asserted iff its base triple is in the graph, and everything else said about it
is its full data. The Python logic is the native profile's; only the templates differ
(`queries/reification/`, plain SPARQL 1.1 that Virtuoso 7 accepts: no LATERAL, no
triple terms). `native_to_reification` writes a native graph in this shape, so the
same data can be served by Virtuoso and by an embedded store.

The plain profile is for stores with no statement model at all (every triple is an
asserted_true statement): it never looks for statement nodes and, like this profile,
sends only SPARQL 1.1.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pyoxigraph as ox

from gateway.backends.embedded import rdf_format
from gateway.errors import InvalidInput
from gateway.profiles.base import HopPlan, StatementHops, TwoHops
from gateway.profiles.native import NativeProfile
from gateway.terms import RDF

_REIFIES = ox.NamedNode(RDF + "reifies")
_PLUMBING = (
    (ox.NamedNode(RDF + "subject"), lambda t: t.subject),
    (ox.NamedNode(RDF + "predicate"), lambda t: t.predicate),
    (ox.NamedNode(RDF + "object"), lambda t: t.object),
)


class ReificationProfile(NativeProfile):
    name = "reification"
    queries = "reification"
    linked_statements = True

    def predicate_probe(self) -> Callable[[str], bool] | None:
        """None: predicate_exists.rq reads reifiers (the vocabulary is counted instead)."""
        return None

    def two_hop_lines(
        self, seeds: Sequence[str], plan: HopPlan, *, limit: int, nodes: int, types: bool,
        held: Sequence[str] = (), identity: Sequence[str] = (),
    ) -> TwoHops | None:
        # Virtuoso 7 plans the query badly: with the types, over 40 s where hop by hop takes
        # well under one (bench/one_trip.py's graph). Its walks go hop by hop.
        return None

    def two_hop_statements(
        self, seeds: Sequence[str], plan: HopPlan, *, limit: int, cap: int, nodes: int, types: bool,
        held: Sequence[str] = (), identity: Sequence[str] = (),
    ) -> StatementHops | None:
        return None  # the same: and its templates have no LATERAL, which the one query needs


class PlainProfile(ReificationProfile):
    """Plain triples only: no statement nodes are looked for (one query fewer per hop)."""

    name = "plain"

    @property
    def has_reifiers(self) -> bool:
        return False


def native_to_reification(source: ox.Store | str | bytes | Path, *, format: ox.RdfFormat | None = None) -> str:
    """N-Quads of a native RDF 1.2 graph with every reifier written as a statement node.

    `source` is a pyoxigraph Store, a file path, or RDF text (N-Quads, which includes
    N-Triples, unless `format` says otherwise). Each `r rdf:reifies <<( s p o )>>` in a
    graph becomes `r a rdf:Statement ; rdf:subject s ; rdf:predicate p ; rdf:object o`
    in that graph; every other quad is kept. A triple term anywhere else has no
    reification form, so it is refused rather than dropped.

    >>> reifies = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies>"
    >>> text = f"<http://e/r> {reifies} <<( <http://e/s> <http://e/p> <http://e/o> )>> ."
    >>> print(native_to_reification(text, format=ox.RdfFormat.N_TRIPLES))
    <http://e/r> <http://www.w3.org/1999/02/22-rdf-syntax-ns#object> <http://e/o> .
    <http://e/r> <http://www.w3.org/1999/02/22-rdf-syntax-ns#predicate> <http://e/p> .
    <http://e/r> <http://www.w3.org/1999/02/22-rdf-syntax-ns#subject> <http://e/s> .
    <http://e/r> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/1999/02/22-rdf-syntax-ns#Statement> .
    <BLANKLINE>
    """
    quads = [converted for quad in _quads(source, format) for converted in _convert(quad)]
    text = (ox.serialize(quads, format=ox.RdfFormat.N_QUADS) or b"").decode("utf-8")
    return "".join(sorted(set(text.splitlines(keepends=True))))


def _quads(source: ox.Store | str | bytes | Path, format: ox.RdfFormat | None) -> list[ox.Quad]:
    if isinstance(source, ox.Store):
        return list(source)
    if isinstance(source, Path):
        return [_as_quad(q) for q in ox.parse(path=str(source), format=format or rdf_format(source))]
    data = source.encode("utf-8") if isinstance(source, str) else source
    return [_as_quad(q) for q in ox.parse(data, format=format or ox.RdfFormat.N_QUADS)]


def _as_quad(item: ox.Quad | ox.Triple) -> ox.Quad:
    if isinstance(item, ox.Quad):
        return item
    return ox.Quad(item.subject, item.predicate, item.object, ox.DefaultGraph())


def _convert(quad: ox.Quad) -> list[ox.Quad]:
    triple = quad.object
    if quad.predicate == _REIFIES and isinstance(triple, ox.Triple):
        parts = [(predicate, part(triple)) for predicate, part in _PLUMBING]
        if any(isinstance(value, ox.Triple) for _, value in parts):
            raise InvalidInput(f"{quad.subject} reifies a nested triple term; reification cannot say that", field="source")
        statement = ox.Quad(quad.subject, ox.NamedNode(RDF + "type"), ox.NamedNode(RDF + "Statement"), quad.graph_name)
        return [statement, *(ox.Quad(quad.subject, p, value, quad.graph_name) for p, value in parts)]
    if isinstance(quad.subject, ox.Triple) or isinstance(triple, ox.Triple):
        raise InvalidInput(f"a triple term outside rdf:reifies has no reification form: {quad}", field="source")
    return [quad]
