"""An answer as RDF: `to_rdflib(gw)` and `to_oxigraph(gw)` on the answers that hold nodes
and statements (bfs_query's subgraph in either layout, describe_entity and
describe_entities, intersect_subgraphs, scan_query, shortest_path).

What an answer says is written back as the data model reads it (docs/data-model.md):

- a relationship without a statement (a stub edge, or a full edge without an `id`) is a
  plain triple;
- a statement (a full edge with its `id`, or a statement node's `statement`) is its
  reifier with its truth status, `assertedAt`, `validFrom`, `validUntil`, `confidence`
  and `extractionMethod` in the bfs: vocabulary, and its provenance and qualifiers
  under their own predicates; its base triple too when it is asserted_true, so code
  that reads plain triples sees what the answer holds true. `to_rdflib` writes the
  reifier as `rdf:Statement` reification (rdflib has no RDF 1.2 triple terms),
  `to_oxigraph` as an RDF 1.2 reifier (`r rdf:reifies <<( s p o )>>`);
- a node: its types (`rdf:type`; none for "Entity", an untyped node) and, when full, its
  label (`rdfs:label`), synonyms (`skos:altLabel`), description (`rdfs:comment`) and
  properties; a label the compact layout cut short (ending in …) is left out. A node
  nothing else mentions (an untyped seed no edge of the answer touches) is written as
  `rdf:type rdfs:Resource`, RDF's way of saying that it exists (it reads back as that
  type).

A trait-derived edge (`derived_via`) is not stated by the data, so it is not written
as such: the statement it mirrors is (a derived edge keeps that statement's ID and
data), and so is the trait (`owl:SymmetricProperty`, `owl:inverseOf`), so
`expand_traits` derives the edge again from the RDF. Left out: a Wikidata statement's
rank and references (a `wikibase:rank` would have the result read as Wikidata's own
statement shape, which it is not), counts, distances and warnings. An answer shows an IRI value and a text alike, so the values
of properties, provenance and qualifiers come back as literals (an ID among them as
its text); a time (`asserted_at`, `valid_from`, `valid_until`) is an `xsd:integer`,
`xsd:date` or `xsd:dateTime` as its value reads, so `as_of` and `valid_at` compare it
as before. IDs go back to IRIs through the ID mapper of the graph that answered
(`Gateway.ids`), in the canonical form of their namespace; `_:label` is a blank node.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol

import pyoxigraph as ox
from pydantic import BaseModel

from gateway.errors import InvalidInput, NotInstalled
from gateway.ids import IdMapper
from gateway.terms import BFS, RDF, RDFS, XSD, Blank, Literal, Term
from gateway.terms import to_oxigraph as oxigraph_term

if TYPE_CHECKING:
    import rdflib

SKOS = "http://www.w3.org/2004/02/skos/core#"
OWL = "http://www.w3.org/2002/07/owl#"
WKT = "http://www.opengis.net/ont/geosparql#wktLiteral"
UNTYPED = frozenset({"Entity", "Statement"})
"""The entity types that name no class: an untyped node, a statement node."""
_STRUCTURAL = frozenset({RDF + "subject", RDF + "object"})
_TIMES = (("asserted_at", "assertedAt"), ("valid_from", "validFrom"), ("valid_until", "validUntil"))


class HasIds(Protocol):
    """What answers a graph's IDs: a `Gateway` (or a tool's graph context)."""

    @property
    def ids(self) -> IdMapper: ...


@dataclass
class Statement:
    """A statement an answer holds: its reifier, triple and data; asserted when true."""

    reifier: str
    subject: str
    predicate: str
    object: str
    data: list[tuple[str, Term]]
    asserted: bool


@dataclass
class AnswerRdf:
    """What an answer says, as terms: plain triples and statements, in answer order."""

    triples: dict[tuple[str, str, Term], None] = field(default_factory=dict)
    statements: dict[str, Statement] = field(default_factory=dict)
    namespaces: dict[str, str] = field(default_factory=dict)
    """Prefix -> namespace of the IDs written, for the serializations' prefix lines."""

    def plain(self) -> Iterator[tuple[str, str, Term]]:
        """The plain triples, less the structural edges (`rdf:subject`/`rdf:object` from a
        statement node to its ends) of statements written whole."""
        for triple in self.triples:
            if not (triple[1] in _STRUCTURAL and triple[0] in self.statements):
                yield triple


def read(answer: BaseModel, graph: IdMapper | HasIds) -> AnswerRdf:
    """The terms of `answer`, its IDs expanded by `graph`'s ID mapper."""
    ids = graph if isinstance(graph, IdMapper) else graph.ids
    return _Reader(ids).read(answer.model_dump())


def to_oxigraph(answer: BaseModel, graph: IdMapper | HasIds) -> list[ox.Quad]:
    """The answer as pyoxigraph quads in the default graph, statements as RDF 1.2 reifiers.

    >>> from gateway import Gateway
    >>> from gateway.resources import demo_path
    >>> gw = Gateway.open(demo_path())
    >>> walk = gw.bfs_query(seeds=["wiki:Irene_Adler"], max_hops=1, truth_status=["hypothetical"])
    >>> [(e.id, e.truth_status) for e in walk.edges]
    [('stmt:s40', 'hypothetical')]
    >>> s40 = ox.NamedNode(gw.ids.resolve("stmt:s40", "id").iri)
    >>> for quad in to_oxigraph(walk, gw):
    ...     if quad.subject == s40:
    ...         print(gw.ids.to_id(quad.predicate.value), quad.object)
    rdf:reifies <https://example.org/wiki/Irene_Adler> <https://example.org/rel/Possesses> <https://example.org/obj/photograph>
    bfs:truthStatus <https://w3id.org/bfsql#hypothetical>
    bfs:assertedAt "485"^^<http://www.w3.org/2001/XMLSchema#integer>
    bfs:confidence "0.6"^^<http://www.w3.org/2001/XMLSchema#decimal>
    bfs:extractionMethod "manual"
    sh:assertingNarrator "wiki:Sherlock_Holmes"
    sh:storyId "sib"

    The triple is not asserted: the statement is hypothetical.
    """
    found = read(answer, graph)
    term = _oxigraph_terms()
    quads = [ox.Quad(term(s), term(p), term(o)) for s, p, o in found.plain()]
    reifies = ox.NamedNode(RDF + "reifies")
    for st in found.statements.values():
        reifier, triple = term(st.reifier), ox.Triple(term(st.subject), term(st.predicate), term(st.object))
        quads.append(ox.Quad(reifier, reifies, triple))
        quads.extend(ox.Quad(reifier, term(p), term(value)) for p, value in st.data)
        if st.asserted:
            quads.append(ox.Quad(triple.subject, triple.predicate, triple.object))
    return list(dict.fromkeys(quads))


def to_rdflib(answer: BaseModel, graph: IdMapper | HasIds) -> rdflib.Graph:
    """The answer as an rdflib Graph, statements as `rdf:Statement` reification."""
    try:
        import rdflib
    except ImportError:
        raise NotInstalled('to_rdflib needs rdflib: pip install "bfsql-gateway[rdflib]"') from None
    found = read(answer, graph)
    result = rdflib.Graph()
    for prefix, namespace in sorted(found.namespaces.items()):
        result.bind(prefix, namespace, override=True, replace=True)
    result.bind("bfs", BFS, override=True, replace=True)
    term = _rdflib_terms(rdflib)
    add = result.add
    for s, p, o in found.plain():
        add((term(s), term(p), term(o)))
    kind, statement = term(RDF + "type"), term(RDF + "Statement")
    parts = [term(RDF + "subject"), term(RDF + "predicate"), term(RDF + "object")]
    for st in found.statements.values():
        reifier, triple = term(st.reifier), (term(st.subject), term(st.predicate), term(st.object))
        add((reifier, kind, statement))
        for part, value in zip(parts, triple):
            add((reifier, part, value))
        for p, value in st.data:
            add((reifier, term(p), term(value)))
        if st.asserted:
            add(triple)
    return result


class _Reader:
    """Walks an answer's JSON form: nodes and edges wherever the answer keeps them."""

    def __init__(self, ids: IdMapper) -> None:
        self.ids = ids
        self.found = AnswerRdf()
        self.nodes: dict[str, None] = {}
        self._iris: dict[str, str] = {}

    def read(self, answer: Mapping[str, Any]) -> AnswerRdf:
        self.read_items(answer)
        found = self.found
        mentioned = {term for triple in found.triples for term in (triple[0], triple[2])}
        mentioned.update(term for st in found.statements.values() for term in (st.reifier, st.subject, st.object))
        for node in self.nodes:
            if node not in mentioned:
                self.triple(node, RDF + "type", RDFS + "Resource")
        return found

    def read_items(self, answer: Mapping[str, Any]) -> None:
        if "id" in answer and "entity_type" in answer:  # describe_entity: the answer is a node
            self.node(answer, "")
        for key in ("nodes", "node_details", "entities"):
            value = answer.get(key)
            if isinstance(value, Mapping):  # compact: entity type -> node ID -> label
                for kind, members in value.items():
                    for node_id, label in members.items():
                        text, language = (label["text"], label["language"]) if isinstance(label, Mapping) else (label, None)
                        self.node({"id": node_id, "entity_type": kind, "label": text, "label_language": language,
                                   "compact": True}, f"{key}.{kind}")
            else:
                for index, item in enumerate(value or ()):
                    if isinstance(item, Mapping):  # shortest_path lists its nodes as bare IDs: its edges name them
                        self.node(item, f"{key}[{index}]")
        for key in ("edges", "edge_details"):
            value = answer.get(key)
            if isinstance(value, Mapping):  # compact: subject -> predicate -> objects
                for s, predicates in value.items():
                    for p, objects in predicates.items():
                        for o in objects:
                            self.edge({"subject": s, "predicate": p, "object": o}, f"{key}.{s}")
            else:
                for index, item in enumerate(value or ()):
                    self.edge(item, f"{key}[{index}]")

    def node(self, node: Mapping[str, Any], where: str) -> None:
        at = f"{where}.id" if where else "id"
        subject = self.iri(node["id"], at)
        self.nodes[subject] = None
        kind = node.get("entity_type")
        types = node.get("types") or ([kind] if kind and kind not in UNTYPED else [])
        for index, type_id in enumerate(types):
            self.triple(subject, RDF + "type", self.iri(type_id, f"{where}.types[{index}]" if where else "types"))
        label = node.get("label")
        if label is not None and not (node.get("compact") and label.endswith("…")):
            self.triple(subject, RDFS + "label", _text(label, node.get("label_language")))
        for alias in node.get("alt_labels") or ():
            text, language = (alias["text"], alias["language"]) if isinstance(alias, Mapping) else (alias, None)
            self.triple(subject, SKOS + "altLabel", _text(text, language))
        if node.get("description") is not None:
            self.triple(subject, RDFS + "comment", _text(node["description"], node.get("description_language")))
        for predicate, values in self.values(node.get("properties"), f"{where}.properties"):
            for value in values:
                self.triple(subject, predicate, value)
        if node.get("statement"):
            self.edge(node["statement"], f"{where}.statement")

    def edge(self, edge: Mapping[str, Any], where: str) -> None:
        s, p, o = (self.iri(edge[part], f"{where}.{part}") for part in ("subject", "predicate", "object"))
        if edge.get("derived_via"):
            s, p, o = self.mirrored(s, p, o, str(edge["derived_via"]), f"{where}.derived_via")
        if edge.get("id") is None:
            self.triple(s, p, o)
            return
        status = edge.get("truth_status") or "asserted_true"
        data: list[tuple[str, Term]] = [(BFS + "truthStatus", BFS + status)]
        for name, term in _TIMES:
            if edge.get(name) is not None:
                data.append((BFS + term, _point(edge[name])))
        if edge.get("confidence") is not None:
            data.append((BFS + "confidence", _decimal(edge["confidence"])))
        if edge.get("extraction_method") is not None:
            data.append((BFS + "extractionMethod", Literal(str(edge["extraction_method"]), XSD + "string")))
        for key in ("qualifiers", "provenance"):
            data.extend((p, value) for p, values in self.values(edge.get(key), f"{where}.{key}") for value in values)
        reifier = self.iri(edge["id"], f"{where}.id")
        self.found.statements[reifier] = Statement(reifier, s, p, o, data, asserted=status == "asserted_true")

    def mirrored(self, s: str, p: str, o: str, derived_via: str, where: str) -> tuple[str, str, str]:
        """The statement a derived edge mirrors, its trait declared: `Symmetric(q)` mirrors
        `o q s` (q symmetric), `Inverse(q)` mirrors `o q s` (p the inverse of q)."""
        kind, _, rest = derived_via.partition("(")
        if kind not in ("Symmetric", "Inverse") or not rest.endswith(")"):
            raise InvalidInput(f"{where}: {derived_via!r} names no trait (Symmetric(...) or Inverse(...))", field=where)
        source = self.iri(rest[:-1], where)
        if kind == "Symmetric":
            self.triple(source, RDF + "type", OWL + "SymmetricProperty")
        else:
            self.triple(p, OWL + "inverseOf", source)
        return o, source, s

    def values(self, groups: Mapping[str, Iterable[Any]] | None, where: str) -> Iterator[tuple[str, list[Term]]]:
        for predicate, values in (groups or {}).items():
            yield self.iri(predicate, f"{where}.{predicate}"), [_datum(v) for v in values]

    def triple(self, s: str, p: str, o: Term) -> None:
        self.found.triples[(s, p, o)] = None

    def iri(self, value: str, where: str) -> str:
        """An answer's ID as its IRI (a `Blank` for `_:label`), through the graph's mapper."""
        known = self._iris.get(value)
        if known is not None:
            return known
        if value.startswith("_:"):  # how an answer writes a blank node (values.datum)
            made: str = Blank(value[2:])
        else:
            # An unknown prefix is no IRI of its own scheme here: most likely the answer
            # came from another gateway, and writing `wiki:X` as an IRI would be wrong.
            resolved = self.ids.resolve(value, where, own_schemes=False)
            if resolved.iri is None:
                raise InvalidInput(f"{where}: {value!r} is not an ID of this graph ({resolved.reason}); "
                                   "pass the gateway that answered", field=where)
            made = resolved.iri
            parsed = self.ids.converter.parse_uri(made)
            namespace = self.ids.namespace(parsed.prefix) if parsed is not None else None
            if parsed is not None and namespace is not None:
                self.found.namespaces[parsed.prefix] = namespace
            elif self.ids.vocabulary and made.startswith(self.ids.vocabulary):
                self.found.namespaces[""] = self.ids.vocabulary
        self._iris[value] = made
        return made


def _text(text: str, language: str | None) -> Term:
    """A name as a literal: tagged where the answer says its language."""
    return Literal(text, RDF + "langString", language) if language else Literal(text, XSD + "string")


def _datum(value: Any) -> Term:
    """A value as an answer shows it (`Datum`, or a Wikidata `Claim`) as a literal."""
    if isinstance(value, bool):
        return Literal("true" if value else "false", XSD + "boolean")
    if isinstance(value, int):
        return Literal(str(value), XSD + "integer")
    if isinstance(value, float):
        return _double(value)
    if isinstance(value, str):
        return Literal(value, XSD + "string")
    if isinstance(value, Mapping):
        if "value" in value and "id" in value:  # a claim: its value (describe its statement for the rest)
            return _datum(value["value"])
        if "text" in value and "language" in value:
            return Literal(value["text"], RDF + "langString", value["language"])
        if "amount" in value:
            return _datum(value["amount"])
        if "time" in value:
            return Literal(str(value["time"]), XSD + "dateTime")
        if "latitude" in value and "longitude" in value:
            return Literal(f"Point({value['longitude']} {value['latitude']})", WKT)
    return Literal(json.dumps(value, sort_keys=True, ensure_ascii=False), RDF + "JSON")


def _point(value: Any) -> Term:
    """A position or time as the literal it was read from: the same value `as_of` and
    `valid_at` compare (an integer, a date, a date-time), else its text."""
    if isinstance(value, str):
        try:
            if dt.date.fromisoformat(value).isoformat() == value:
                return Literal(value, XSD + "date")
        except ValueError:
            pass
        try:
            dt.datetime.fromisoformat(value)
            return Literal(value, XSD + "dateTime")
        except ValueError:
            pass
    return _datum(value)


def _decimal(value: float | int) -> Literal:
    """A confidence as `xsd:decimal` (the vocabulary's range), written without an exponent."""
    return Literal(format(Decimal(repr(value)), "f"), XSD + "decimal")


def _double(value: float) -> Literal:
    if math.isnan(value):
        return Literal("NaN", XSD + "double")
    if math.isinf(value):
        return Literal("INF" if value > 0 else "-INF", XSD + "double")
    return Literal(repr(value), XSD + "double")


def _oxigraph_terms() -> Any:
    made: dict[tuple[type, Term], Any] = {}  # by type too: a blank node's label is a str as an IRI is

    def term(value: Term) -> Any:
        key = (type(value), value)
        found = made.get(key)
        if found is None:
            found = made[key] = oxigraph_term(value, lenient=True)  # a tag a lenient load kept, kept
        return found

    return term


def _rdflib_terms(rdflib: Any) -> Any:
    made: dict[tuple[type, Term], Any] = {}

    def term(value: Term) -> Any:
        key = (type(value), value)
        found = made.get(key)
        if found is None:
            if isinstance(value, Blank):
                found = rdflib.BNode(str(value))
            elif isinstance(value, Literal):
                if value.language:
                    found = rdflib.Literal(value.value, lang=value.language)
                elif value.datatype in (None, XSD + "string"):
                    found = rdflib.Literal(value.value)  # rdflib's plain literal: what its own code writes for text
                else:
                    found = rdflib.Literal(value.value, datatype=rdflib.URIRef(value.datatype))
            else:
                found = rdflib.URIRef(value)
            made[key] = found
        return found

    return term
