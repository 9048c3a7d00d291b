"""An rdflib `Graph`, `Dataset` or `ConjunctiveGraph` copied into an embedded store
(`Gateway.open(graph)`).

Every quad is converted term by term: IRIs, blank nodes (their labels kept where
Oxigraph accepts them), literals with their language or datatype and lexical form as
rdflib holds them, and graph names. A `Dataset`'s or `ConjunctiveGraph`'s default graph
becomes the store's default graph and its named graphs stay named, so readers files
scope it as they scope a TriG file; a plain `Graph` is a default graph.

The data's namespace bindings become the store's prefixes, as a file's `@prefix` lines
do. rdflib binds some thirty by itself (its `bind_namespaces` set: `brick`, `schema` for
`https://schema.org/`, ...), which a parsed file's own lines cannot be told from: those
count only for namespaces the data uses, so that rdflib's defaults neither change which
CURIEs an answer shows nor crowd describe_schema's prefixes.

rdflib is an optional extra: nothing here imports it until a caller hands over one of
its graphs, which cannot exist unless rdflib is loaded already.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pyoxigraph as ox
from typing_extensions import TypeIs

from gateway.backends.embedded import EmbeddedBackend
from gateway.backends.load_report import LoadReport, invalid_language_tags
from gateway.errors import InvalidInput
from gateway.terms import Literal, namespace, to_oxigraph

if TYPE_CHECKING:
    import rdflib

Subject = ox.NamedNode | ox.BlankNode
GraphName = ox.NamedNode | ox.BlankNode | ox.DefaultGraph


def is_rdflib_graph(source: object) -> TypeIs[rdflib.Graph]:
    """Whether `source` is an rdflib graph (a `Dataset` and a `ConjunctiveGraph` are), asked
    without importing rdflib."""
    module = sys.modules.get("rdflib")
    return module is not None and isinstance(source, module.Graph)


def from_rdflib(source: rdflib.Graph, *, lenient: bool = False) -> EmbeddedBackend:
    """An in-memory store holding what `source` holds, with its declared prefixes.

    `lenient` keeps what Oxigraph's strict term constructors refuse but its lenient
    parser reads (a language tag over eight characters a subtag, such as `zh-classical`),
    and the load report says so, as for a lenient file load.
    """
    terms = _Terms(lenient)
    store = ox.Store()
    store.bulk_extend(terms.quad(s, p, o, g) for s, p, o, g in _quads(source))
    report = LoadReport(quads=len(store), lenient=lenient)
    if lenient:
        report.invalid_language_tags = invalid_language_tags(store)
    return EmbeddedBackend(store, prefixes=declared_prefixes(source, terms.namespaces), report=report)


def declared_prefixes(source: rdflib.Graph, used: set[str]) -> dict[str, str]:
    """The graph's namespace bindings; of those rdflib makes by itself, the ones whose
    namespace is in `used`."""
    import rdflib

    own = set(rdflib.Graph(bind_namespaces="rdflib").namespace_manager.namespaces())
    return {prefix: str(namespace) for prefix, namespace in source.namespace_manager.namespaces()
            if (prefix, namespace) not in own or str(namespace) in used}


def _quads(source: rdflib.Graph) -> Iterator[tuple[Any, Any, Any, Any]]:
    """(s, p, o, graph name) for every quad; the graph name None for the default graph."""
    import rdflib

    if not isinstance(source, rdflib.ConjunctiveGraph):
        for s, p, o in source:
            yield s, p, o, None
        return
    default = (source.default_graph if isinstance(source, rdflib.Dataset) else source.default_context).identifier
    # ConjunctiveGraph's own quads: each with the graph holding it (Dataset's override
    # renames graphs and is typed for one pattern form only).
    for s, p, o, context in rdflib.ConjunctiveGraph.quads(source, (None, None, None, None)):
        name = context.identifier  # type: ignore[union-attr]
        yield s, p, o, None if name == default else name


class _Terms:
    """rdflib terms to pyoxigraph terms, each distinct IRI and blank node made once (looked up
    by its text: rdflib's own term hashing is Python code, slower than the conversion)."""

    def __init__(self, lenient: bool) -> None:
        import rdflib

        self.lenient = lenient
        self.iris: dict[str, ox.NamedNode] = {}
        self.blanks: dict[str, ox.BlankNode] = {}
        self.namespaces: set[str] = set()
        """The namespace of every IRI converted, datatypes included."""
        self.iri, self.blank, self.literal = rdflib.URIRef, rdflib.BNode, rdflib.Literal

    def quad(self, s: Any, p: Any, o: Any, g: Any) -> ox.Quad:
        subject, predicate, obj = self.term(s, "subject"), self.term(p, "predicate"), self.term(o, "object")
        if isinstance(subject, ox.Literal) or not isinstance(predicate, ox.NamedNode):
            raise InvalidInput(f"source: ({s!r}, {p!r}, {o!r}) is no RDF triple: a literal subject or a predicate "
                               "that is not an IRI", field="source")
        if g is None:  # pyoxigraph reads an explicit DefaultGraph argument ten times slower than none
            return ox.Quad(subject, predicate, obj)
        graph = self.term(g, "graph name")
        if isinstance(graph, ox.Literal):
            raise InvalidInput(f"source: the graph name {g!r} is a literal", field="source")
        return ox.Quad(subject, predicate, obj, graph)

    def term(self, term: Any, place: str) -> ox.NamedNode | ox.BlankNode | ox.Literal:
        kind = type(term)
        # Exact types first: rdflib's term classes check subclasses through the slower ABC machinery.
        if kind is not self.iri and issubclass(kind, self.literal):
            return self._literal(term)
        text = str(term)
        if kind is self.iri or issubclass(kind, self.iri):
            iri = self.iris.get(text)
            if iri is None:
                iri = self.iris[text] = self._converted(text, term)  # type: ignore[assignment]
                self.namespaces.add(namespace(text))
            return iri  # type: ignore[return-value]
        if issubclass(kind, self.blank):
            blank = self.blanks.get(text)
            if blank is None:
                try:
                    blank = ox.BlankNode(text)
                except ValueError:  # a label Oxigraph's syntax has no room for: a fresh node, the same each time
                    blank = ox.BlankNode()
                self.blanks[text] = blank
            return blank
        # a formula or variable of N3 graphs: no RDF term
        raise InvalidInput(f"source: the {place} {term!r} is a {kind.__name__}, not an IRI, blank node or literal",
                           field="source")

    def _literal(self, term: rdflib.Literal) -> ox.Literal:
        language = term.language
        datatype = None if language else str(term.datatype) if term.datatype is not None else None
        if datatype:
            self.namespaces.add(namespace(datatype))
        return self._converted(Literal(str(term), datatype, language or None), term)  # type: ignore[return-value]

    def _converted(self, value: str | Literal, term: Any) -> object:
        try:
            return to_oxigraph(value, lenient=self.lenient)
        except ValueError as error:
            hint = "" if self.lenient else " (lenient=True may accept it)"
            raise InvalidInput(f"source: {term!r} cannot be stored: {error}{hint}", field="source") from None

