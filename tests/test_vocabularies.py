"""Published vocabularies as found: the tools never deny what the data holds.

The data is third-party: the W3C SHACL vocabulary and schema.org as TopQuadrant publishes
it (`http://schema.org/`, 876 classes), both shipped by the pyshacl package. Every answer
is checked against SPARQL run on pyoxigraph directly, written here by hand.
"""

from __future__ import annotations

import importlib.resources
from functools import cache
from pathlib import Path

import pyoxigraph as ox
import pytest

from gateway import Gateway

SH = "http://www.w3.org/ns/shacl#"
SCHEMA_HTTP = "http://schema.org/"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"


def asset(name: str) -> Path:
    return Path(str(importlib.resources.files("pyshacl") / "assets" / name))


@cache
def store(name: str) -> ox.Store:
    found = ox.Store()
    found.load(path=str(asset(name)), format=ox.RdfFormat.TURTLE)
    return found


def oracle(name: str, query: str) -> list[str]:
    """The first column of a SELECT, as IRIs."""
    return sorted(str(row[0].value) for row in store(name).query(query))


@pytest.fixture(scope="module")
def shacl() -> Gateway:
    return Gateway.open(asset("shacl.ttl"))


@pytest.fixture(scope="module")
def schema_org() -> Gateway:
    return Gateway.open(asset("schema.ttl"))


def walked_ids(gateway: Gateway, **arguments: object) -> set[str]:
    walk = gateway.bfs_query(topology_only=True, **arguments)
    return {node["id"] for node in walk.nodes if isinstance(node, dict)}


def test_a_schema_predicate_named_is_walked(shacl: Gateway) -> None:
    """rdfs:domain is not walked by default (it would crowd every walk through a
    vocabulary), but naming it walks it: the properties whose domain is sh:PropertyShape."""
    expected = oracle("shacl.ttl", f"SELECT ?p WHERE {{ ?p <{RDFS}domain> <{SH}PropertyShape> }}")
    assert len(expected) >= 3
    found = walked_ids(shacl, seeds=["sh:PropertyShape"], predicates=["rdfs:domain"], direction="in")
    assert found == {shacl.ids.to_id(p) for p in expected} | {"sh:PropertyShape"}
    default = walked_ids(shacl, seeds=["sh:PropertyShape"], direction="in")
    assert not default & {shacl.ids.to_id(p) for p in expected}  # by default: not crossed


def test_describe_schema_counts_schema_predicates_as_walked_when_named(shacl: Gateway) -> None:
    listed = {p.id: p for p in shacl.describe_schema().predicates}
    for name, predicate in (("rdfs:domain", RDFS + "domain"), ("rdfs:range", RDFS + "range"),
                            ("rdf:type", "http://www.w3.org/1999/02/22-rdf-syntax-ns#type")):
        count = len(oracle("shacl.ttl", f"SELECT ?s WHERE {{ ?s <{predicate}> ?o FILTER(isIRI(?s) && isIRI(?o)) }}"))
        assert listed[name].count == count and listed[name].walked_when_named


def test_classes_of_classes_are_types_a_scan_accepts(shacl: Gateway) -> None:
    expected = oracle("shacl.ttl", "SELECT ?x WHERE { ?x a <http://www.w3.org/2002/07/owl#Ontology> }")
    page = shacl.scan_query(node_types=["owl:Ontology"])
    assert [n.id for n in page.nodes] == [shacl.ids.to_id(x) for x in expected]
    classes = oracle("shacl.ttl", f"SELECT ?x WHERE {{ ?x a <{RDFS}Class> }}")
    assert shacl.scan_query(node_types=["rdfs:Class"], limit=1000).count == len(classes)


def test_a_literal_valued_predicate_is_said_to_be_there(shacl: Gateway) -> None:
    walk = shacl.bfs_query(seeds=["sh:Shape"], predicates=["rdfs:label"])
    assert any("'rdfs:label': in this graph, but not as a relationship a walk crosses" in w for w in walk.warnings)
    assert not any("no such predicate" in w for w in walk.warnings)


def test_vocabulary_terms_are_found_by_name(shacl: Gateway) -> None:
    hits = shacl.search_entities("Property shape", limit=3).results
    assert hits[0].id == "sh:PropertyShape" and hits[0].match == "exact_label"


def test_http_schema_org_is_reached_by_its_id(schema_org: Gateway, tmp_path: Path) -> None:
    """schema.org as published uses `http://schema.org/`; the project's map says
    `https://`. The data's spelling wins: with its @prefix line, and without one."""
    assert schema_org.describe_entity("schema:Hospital").label == "Hospital"
    expected = oracle("schema.ttl", f"SELECT ?x WHERE {{ <{SCHEMA_HTTP}Hospital> <{RDFS}subClassOf>+ ?x }}")
    closure = schema_org.transitive_closure_query(start="schema:Hospital", predicate="rdfs:subClassOf")
    assert sorted(closure.reachable) == sorted(schema_org.ids.to_id(x) for x in expected)
    plain = tmp_path / "hospital.nt"  # N-Triples: no prefixes to learn the spelling from
    plain.write_text(f"<{SCHEMA_HTTP}Hospital> <{RDFS}subClassOf> <{SCHEMA_HTTP}MedicalOrganization> .\n"
                     f'<{SCHEMA_HTTP}Hospital> <{RDFS}label> "Hospital" .\n', encoding="utf-8")
    bare = Gateway.open(plain)
    assert bare.describe_entity("schema:Hospital").label == "Hospital"
    walk = bare.bfs_query(seeds=["schema:Hospital"], predicates=["rdfs:subClassOf"])
    assert walk.edge_count == 1 and not walk.unresolved_seeds and not walk.warnings


def test_describe_schema_counts_every_term_the_data_defines(shacl: Gateway) -> None:
    """How many classes and properties there are, used or not (classes no entity has are
    listed nowhere else): the counts say so, and a scan lists them."""
    schema = {t.id: t.count for t in shacl.describe_schema().term_types}
    for kind, iri in (("rdfs:Class", RDFS + "Class"), ("rdf:Property", RDF + "Property"),
                      ("owl:Ontology", "http://www.w3.org/2002/07/owl#Ontology")):
        every = oracle("shacl.ttl", f"SELECT DISTINCT ?x WHERE {{ ?x a <{iri}> FILTER(isIRI(?x)) }}")
        assert every and schema[kind] == len(every)
        assert shacl.scan_query(node_types=[kind], limit=1000).count == len(every)


def test_blank_nodes_and_lists_are_shown_inline_in_order(shacl: Gateway, schema_org: Gateway) -> None:
    """An rdf:List (sh:in) comes back whole and in order; a list of blank nodes (sh:or)
    as those nodes, each with what it holds."""
    members = [shacl.ids.to_id(m) for m in _list(store("shacl.ttl"), SH + "NodeKindConstraintComponent-nodeKind",
                                                 SH + "in")]
    assert len(members) == 6
    described = shacl.describe_entity("sh:NodeKindConstraintComponent-nodeKind")
    assert described.properties is not None and described.properties["sh:in"] == [f"( {' '.join(members)} )"]
    shown = schema_org.describe_entity("schema:Accommodation-leaseLength").properties or {}
    assert shown["sh:or"] == ["( [ sh:class schema:QuantitativeValue ] [ sh:datatype xsd:duration ] )"]


def _list(found: ox.Store, subject: str, predicate: str) -> list[str]:
    """An rdf:List's members in order, by following rdf:rest from its head."""
    rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    cell = next(found.quads_for_pattern(ox.NamedNode(subject), ox.NamedNode(predicate), None)).object
    members = []
    while cell != ox.NamedNode(rdf + "nil"):
        members.append(next(found.quads_for_pattern(cell, ox.NamedNode(rdf + "first"), None)).object.value)
        cell = next(found.quads_for_pattern(cell, ox.NamedNode(rdf + "rest"), None)).object
    return members


def test_text_in_many_languages_shows_the_readers_and_names_the_others() -> None:
    """Douglas Adams (Wikidata's own export, read as plain RDF): his labels, aliases and
    descriptions come in dozens of languages; the reader's are shown and the others named,
    compared with the file."""
    from tests.conftest import shared_data

    path = shared_data("wikidata", "Q42.ttl")
    gateway = Gateway.open(path)
    found = ox.Store()
    found.load(path=str(path), format=ox.RdfFormat.TURTLE)
    aliases = [q.object for q in found.quads_for_pattern(
        ox.NamedNode("http://www.wikidata.org/entity/Q42"), ox.NamedNode("http://www.w3.org/2004/02/skos/core#altLabel"),
        None)]
    english = {a for a in aliases if a.language == "en" or a.language.startswith("en-")}  # the reader's (Settings)
    texts = [q.object for q in found.quads_for_pattern(ox.NamedNode("http://www.wikidata.org/entity/Q42"), None, None)
             if isinstance(q.object, ox.Literal) and q.object.language]  # labels, aliases, descriptions...
    others = sorted({t.language for t in texts if t.language not in ("en", "mul") and not t.language.startswith("en-")})
    assert len(others) > 8
    described = gateway.describe_entity("wd:Q42")
    assert described.other_languages == [*others[:8], f"+{len(others) - 8} more"]
    assert sorted(described.alt_labels or []) == sorted({a.value for a in english})


def test_an_id_resolves_to_the_spelling_holding_the_entity(tmp_path: Path) -> None:
    """Merged vocabularies name schema.org both ways: schema.org itself says `http://`,
    another vocabulary `https://schema.org/Person` once. `schema:Person` is the one the
    data says most about."""
    path = tmp_path / "both.ttl"
    path.write_text(asset("schema.ttl").read_text(encoding="utf-8")
                    + "\n<http://xmlns.com/foaf/0.1/Person> <http://www.w3.org/2002/07/owl#equivalentClass> "
                      "<https://schema.org/Person> .\n", encoding="utf-8")
    gateway = Gateway.open(path)
    expected = oracle("schema.ttl", f"SELECT ?l WHERE {{ <{SCHEMA_HTTP}Person> <{RDFS}label> ?l }}")
    assert [gateway.describe_entity("schema:Person").label] == expected
    sent: list[str] = []
    gateway.backend.query_log = lambda text, rows: sent.append(text)  # type: ignore[attr-defined]
    walk = gateway.bfs_query(seeds=["schema:Person"], predicates=["rdfs:subClassOf"], direction="in")
    subclasses = oracle("schema.ttl", f"SELECT ?c WHERE {{ ?c <{RDFS}subClassOf> <{SCHEMA_HTTP}Person> }}")
    assert walk.node_count == len(subclasses) + 1 > 1
    # The seed and its other spelling are one question (a round trip each over HTTP).
    assert sum("Which of these IRIs occur" in text for text in sent) == 1


def test_blank_values_reads_only_what_the_entities_own(shacl: Gateway) -> None:
    """Every blank node the template returns hangs under the entities asked about (a branch
    that lost its anchor would read every triple of the store)."""
    from gateway.engine.context import GraphContext
    from gateway.sparql import iris

    ctx: GraphContext = shacl.context
    store = shacl.backend.store  # type: ignore[attr-defined]
    owner = ox.NamedNode(SH)  # the SHACL ontology header: sh:declare's blank nodes
    rows = ctx.select("blank_values", ids=iris([owner.value]))
    reachable: set[str] = set()
    frontier = [q.object for q in store.quads_for_pattern(owner, None, None) if isinstance(q.object, ox.BlankNode)]
    while frontier:
        node = frontier.pop()
        if node.value not in reachable:
            reachable.add(node.value)
            frontier += [q.object for q in store.quads_for_pattern(node, None, None) if isinstance(q.object, ox.BlankNode)]
    assert rows and reachable and {str(b) for _, _, _, b, _, _ in rows} <= reachable


@pytest.fixture(scope="module")
def three_graphs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Gateway, ox.Store]:
    """SHACL, DASH and schema.org, each in its named graph."""
    from support.questions import pyshacl_file

    path = pyshacl_file(Path(tmp_path_factory.mktemp("graphs")))
    found = ox.Store()
    found.load(path=str(path), format=ox.RdfFormat.N_QUADS)
    return Gateway.open(path), found


def test_a_call_reads_only_the_graphs_it_names(three_graphs: tuple[Gateway, ox.Store]) -> None:
    gateway, found = three_graphs
    listed = gateway.describe_schema().named_graphs
    assert sorted(listed) == sorted(gateway.ids.to_id(g.value) for g in found.named_graphs())
    for graph in found.named_graphs():
        classes = {r[0].value for r in found.query(f"SELECT DISTINCT ?c WHERE {{ GRAPH <{graph.value}> "
                                                   f"{{ ?c a <{RDFS}Class> FILTER(isIRI(?c)) }} }}")}  # type: ignore[union-attr]
        page = gateway.scan_query(node_types=["rdfs:Class"], limit=1000, graphs=[gateway.ids.to_id(graph.value)])
        assert {n.id for n in page.nodes} == {gateway.ids.to_id(c) for c in classes}
    # A walk narrowed to SHACL's graph does not reach schema.org's terms.
    walk = gateway.bfs_query(seeds=["rdfs:Class"], predicates=["rdf:type"], direction="in", topology_only=True,
                             graphs=["sh:"])
    assert walk.node_count > 1 and not any(str(n["id"]).startswith("schema:") for n in walk.nodes)  # type: ignore[index]
    hits = gateway.search_entities("Hospital", graphs=["sh:"]).results
    assert not any(h.id == "schema:Hospital" for h in hits)


def test_a_graph_not_there_or_not_readable_is_refused_alike(three_graphs: tuple[Gateway, ox.Store]) -> None:
    from gateway.auth import Reader
    from gateway.errors import InvalidInput

    gateway, _ = three_graphs
    with pytest.raises(InvalidInput) as missing:
        gateway.describe_entity("schema:Hospital", graphs=["http://nowhere.example/g"])
    assert missing.value.field == "graphs[0]"
    reader = Reader("shacl only", graphs=(SH,))
    with pytest.raises(InvalidInput) as unreadable:  # never widened past the reader's own
        gateway.call("describe_entity", {"id": "schema:Hospital", "graphs": [SCHEMA_HTTP]}, reader=reader)
    assert unreadable.value.field == "graphs[0]" and "the graphs: sh: (" in str(unreadable.value)
    import itertools

    gateway.call("scan_query", {"node_types": ["rdfs:Class"], "limit": 1}, reader=reader)
    graphs = ["sh:", "http://datashapes.org/dash", SCHEMA_HTTP]
    gateway.SCOPES_KEPT = 2  # type: ignore[misc]  # every choice of graphs a context: the oldest are dropped
    choices = [list(c) for n in (1, 2, 3) for c in itertools.combinations(graphs, n)]
    for chosen in choices:
        gateway.scan_query(node_types=["rdfs:Class"], limit=1, graphs=chosen)
    assert len(choices) == 7 and len(gateway._narrowed) == gateway.SCOPES_KEPT
    assert (SH,) in gateway._scoped  # a reader's own scope is never pushed out by callers' choices


def test_a_call_asks_for_its_languages() -> None:
    """Douglas Adams's label in German and in Japanese, as the export has them."""
    from tests.conftest import shared_data

    path = shared_data("wikidata", "Q42.ttl")
    gateway = Gateway.open(path)
    found = ox.Store()
    found.load(path=str(path), format=ox.RdfFormat.TURTLE)
    for tag in ("de", "ja"):
        expected = [r[0].value for r in found.query(  # type: ignore[union-attr]
            f"SELECT ?l WHERE {{ <http://www.wikidata.org/entity/Q42> <{RDFS}label> ?l FILTER(LANG(?l) = '{tag}') }}")]
        assert [gateway.describe_entity("wd:Q42", languages=[tag, "en"]).label] == expected
    assert gateway.describe_entities(["wd:Q42"], languages=["ja"]).entities[0].label != \
        gateway.describe_entity("wd:Q42").label


def test_many_vocabularies_are_described_each_by_its_own_name(three_graphs: tuple[Gateway, ox.Store]) -> None:
    """No one vocabulary's comment speaks for a store of three: each header is named."""
    gateway, found = three_graphs
    headers = {r[0].value for r in found.query(  # type: ignore[union-attr]
        "SELECT DISTINCT ?o WHERE { GRAPH ?g { ?o a <http://www.w3.org/2002/07/owl#Ontology> } }")}
    titles = {r[0].value for r in found.query(  # type: ignore[union-attr]
        "SELECT ?t WHERE { GRAPH ?g { ?o a <http://www.w3.org/2002/07/owl#Ontology> ; "
        f"<{RDFS}label>|<http://purl.org/dc/terms/title> ?t }} }}")}
    description = gateway.describe_schema().graph_description
    assert description.startswith(f"{len(headers)} ontologies and datasets: ")
    assert len(headers) == 3 and all(title in description for title in titles)


def test_describe_names_the_graphs_an_entity_comes_from(three_graphs: tuple[Gateway, ox.Store]) -> None:
    gateway, found = three_graphs
    for entity in ("sh:NodeShape", "schema:Hospital", "dash:ListNodeShape", "sh:path"):
        iri = gateway.ids.resolve(entity, "id").iri
        iri = next(i for i in [iri, *gateway.ids.spellings(iri or "")] if i and
                   any(True for _ in found.quads_for_pattern(ox.NamedNode(i), None, None)))
        expected = sorted({q.graph_name.value for q in found.quads_for_pattern(ox.NamedNode(iri), None, None)})  # type: ignore[union-attr]
        assert gateway.describe_entity(entity).graphs == sorted(gateway.ids.to_id(g) for g in expected)
    assert Gateway.open(asset("shacl.ttl")).describe_entity("sh:NodeShape").graphs is None  # one graph only


def test_a_search_hit_says_which_name_matched() -> None:
    """Douglas Adams found by a name in another language: the hit shows his label and
    names the name and language that matched."""
    from tests.conftest import shared_data

    path = shared_data("wikidata", "Q42.ttl")
    gateway = Gateway.open(path)
    found = ox.Store()
    found.load(path=str(path), format=ox.RdfFormat.TURTLE)
    label = gateway.describe_entity("wd:Q42").label
    names = sorted((r[0].value, r[1]) for r in found.query(  # type: ignore[union-attr]
        "SELECT ?n (LANG(?n) AS ?l) WHERE { <http://www.wikidata.org/entity/Q42> "
        f"<{RDFS}label>|<http://www.w3.org/2004/02/skos/core#altLabel> ?n "
        "FILTER(LANG(?n) IN ('ru', 'ja', 'ar', 'el')) }"))
    assert names
    written = {(q.object.value, q.object.language) for q in found.quads_for_pattern(  # the same text may have many tags
        ox.NamedNode("http://www.wikidata.org/entity/Q42"), None, None) if isinstance(q.object, ox.Literal)}
    for text, _ in names:
        hit = next(h for h in gateway.search_entities(text, limit=20).results if h.id == "wd:Q42")
        assert hit.label == label != text
        assert hit.matched == text and (text, hit.language) in written
    exact = next(h for h in gateway.search_entities(label or "", limit=5).results if h.id == "wd:Q42")
    assert exact.matched is None and exact.language is None  # the label shown is what matched


def test_describe_schema_lists_the_literal_valued_properties(three_graphs: tuple[Gateway, ox.Store]) -> None:
    """Each literal-valued property of the entity types (SHACL's shapes of schema.org: their
    sh:name, sh:minCount...), with its datatypes and values, counted as SPARQL counts them."""
    gateway, found = three_graphs
    schema = gateway.describe_schema()
    listed = schema.literal_predicates or {}
    terms = {t.id for t in schema.term_types}
    names = {"rdfs:label", "rdfs:comment", "skos:prefLabel", "skos:altLabel", "skos:definition", "dcterms:title",
             "dcterms:description", "schema:name", "schema:description"}
    term_classes = " ".join(f"<{gateway.ids.resolve(t, 'x').iri}>" for t in (
        "rdf:Property", "rdfs:Class", "owl:Class", "owl:ObjectProperty", "owl:DatatypeProperty", "owl:AnnotationProperty",
        "owl:SymmetricProperty", "owl:TransitiveProperty", "owl:FunctionalProperty", "owl:InverseFunctionalProperty",
        "owl:Ontology", "void:Dataset"))
    rows = found.query(  # type: ignore[union-attr]
        "SELECT ?p (GROUP_CONCAT(DISTINCT STR(?dt); separator=' ') AS ?dts) (COUNT(*) AS ?n) "
        f"WHERE {{ ?x a ?t . ?x ?p ?v FILTER(isIRI(?x) && isLiteral(?v)) FILTER(?t NOT IN ({term_classes.replace(' ', ', ')})) "
        "BIND(IF(LANG(?v) != '', <http://www.w3.org/1999/02/22-rdf-syntax-ns#langString>, DATATYPE(?v)) AS ?dt) } "
        "GROUP BY ?p", use_default_graph_as_union=True)
    expected = {}
    for p, dts, n in rows:
        pid = gateway.ids.to_id(p.value)
        if pid not in names and not pid.startswith("bfs:"):
            expected[pid] = (sorted(gateway.ids.to_id(d) for d in dts.value.split()), int(n.value))
    assert "sh:name" in expected and not terms & {"sh:PropertyShape", "sh:NodeShape"}
    for pid, (datatypes, n) in expected.items():
        assert listed[pid].startswith(f"{' | '.join(datatypes)} x{n} on "), (pid, listed[pid])
    assert set(listed) == set(expected)


def test_describe_schema_counts_the_values_that_are_blank_nodes(shacl: Gateway) -> None:
    """A restriction, a list or an anonymous agent is a value too: each predicate's triples
    to blank nodes are counted beside its edges, and one with no other values is listed."""
    expected = {shacl.ids.to_id(str(r[0].value)): int(r[1].value) for r in store("shacl.ttl").query(  # type: ignore[union-attr]
        "SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o FILTER(isIRI(?s) && isBlank(?o)) } GROUP BY ?p")}
    listed = {p.id: p for p in shacl.describe_schema().predicates}
    assert expected and {p: i.blank_values for p, i in listed.items() if i.blank_values} == expected
    only_blank = [p for p in expected if listed[p].count == 0]
    assert only_blank  # sh:declare: listed although no edge uses it
