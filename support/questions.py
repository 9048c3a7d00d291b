"""Questions an agent asks of published vocabularies, answered through the tools and
checked against SPARQL run on the same data by pyoxigraph directly.

The data is third-party and built from packages, never written here:
- `vocabularies`: the ~80 vocabularies of the npm package `@zazuko/rdf-vocabularies`
  (FOAF, PROV-O, DCAT, SKOS, QUDT, SOSA/SSN, vCard, schema.org as published with
  `http://` IRIs, ...), each in its named graph, with the Brick ontology (an engineering
  ontology with SHACL shapes and `rdf:List`s) from the PyPI package `brickschema`;
- `pyshacl`: the W3C SHACL vocabulary, DASH and schema.org as TopQuadrant publishes it,
  shipped by the test dependency `pyshacl`: the slice CI runs (`tests/test_questions.py`);
`python -m bench.questions` runs them all.

Each question is what an agent would do with the tools (search a name, walk a named
predicate, describe an entity, read a count) and the answer it would take from what it
read; `Session` counts the characters it read. An answer is right when it equals the
oracle's, as a set of IDs or values.
"""

from __future__ import annotations

import glob
import importlib.resources
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from gateway import Gateway
from gateway.errors import GatewayError

ZAZUKO = "@zazuko/rdf-vocabularies@2023.1.19"
BRICK = "brickschema==0.8.0"
BRICK_FILE = "brickschema/ontologies/1.4/Brick.ttl"
BRICK_GRAPH = "https://brickschema.org/schema/1.4/Brick"
PREFIXES = """PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX owl: <http://www.w3.org/2002/07/owl#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
PREFIX dcterms: <http://purl.org/dc/terms/>
PREFIX dc: <http://purl.org/dc/elements/1.1/>
PREFIX foaf: <http://xmlns.com/foaf/0.1/>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX schema: <http://schema.org/>
PREFIX sh: <http://www.w3.org/ns/shacl#>
PREFIX qudt: <http://qudt.org/schema/qudt/>
PREFIX unit: <http://qudt.org/vocab/unit/>
PREFIX quantitykind: <http://qudt.org/vocab/quantitykind/>
PREFIX sosa: <http://www.w3.org/ns/sosa/>
PREFIX ssn: <http://www.w3.org/ns/ssn/>
PREFIX dcat: <http://www.w3.org/ns/dcat#>
PREFIX brick: <https://brickschema.org/schema/Brick#>
PREFIX org: <http://www.w3.org/ns/org#>
PREFIX time: <http://www.w3.org/2006/time#>
PREFIX vcard: <http://www.w3.org/2006/vcard/ns#>
"""


# -- data ---------------------------------------------------------------------------------
def cache_dir() -> Path:
    found = Path(os.environ.get("BFSQL_BENCH_CACHE", Path.home() / ".cache" / "bfsql-bench"))
    found.mkdir(parents=True, exist_ok=True)
    return found


def vocabularies_file() -> Path:
    """All the vocabularies as one N-Quads file (each in its named graph), made once from
    the two packages (fetched with `npm pack` and `pip download`)."""
    target = cache_dir() / "vocabularies-2023.1.19-brick-0.8.0.nq"
    if target.exists():
        return target
    store = ox.Store()
    with tempfile.TemporaryDirectory() as work:
        try:
            subprocess.run(["npm", "pack", ZAZUKO, "--silent"], cwd=work, check=True, capture_output=True)
        except FileNotFoundError:
            raise SystemExit(f"bench.questions: `npm` fetches {ZAZUKO}; install Node.js, or run the "
                             "pyshacl slice alone (tests/test_questions.py)") from None
        with tarfile.open(next(Path(work).glob("*.tgz"))) as archive:
            archive.extractall(work, filter="data")
        for path in sorted(glob.glob(f"{work}/package/ontologies/*.nq")):
            if not Path(path).name.startswith("_"):  # _index.nq: the package's own prefix records
                store.bulk_load(path=path, format=ox.RdfFormat.N_QUADS)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-d", work, BRICK], check=True,
                       capture_output=True)
        with zipfile.ZipFile(next(Path(work).glob("brickschema-*.whl"))) as wheel:
            store.bulk_load(wheel.read(BRICK_FILE), format=ox.RdfFormat.TURTLE, to_graph=ox.NamedNode(BRICK_GRAPH))
    partial = target.with_suffix(".part")
    store.dump(output=str(partial), format=ox.RdfFormat.N_QUADS)
    partial.rename(target)
    return target


def pyshacl_file(directory: Path | None = None) -> Path:
    """SHACL, DASH and schema.org as pyshacl ships them, each in its named graph."""
    target = (directory or cache_dir()) / "pyshacl-vocabularies.nq"
    if target.exists():
        return target
    store = ox.Store()
    assets = importlib.resources.files("pyshacl") / "assets"
    for name, graph in (("shacl.ttl", "http://www.w3.org/ns/shacl#"), ("dash.ttl", "http://datashapes.org/dash"),
                        ("schema.ttl", "http://schema.org/")):
        store.load(path=str(assets / name), format=ox.RdfFormat.TURTLE, to_graph=ox.NamedNode(graph))
    partial = target.with_suffix(".part")
    store.dump(output=str(partial), format=ox.RdfFormat.N_QUADS)
    partial.rename(target)
    return target


# -- the agent's side -------------------------------------------------------------------------
class Session:
    """Tool calls as an agent makes them: JSON in, JSON read (counted), errors read as text."""

    def __init__(self, gateway: Gateway) -> None:
        self.gateway = gateway
        self.read = 0
        self.calls = 0

    def __call__(self, tool: str, **arguments: Any) -> dict[str, Any]:
        self.calls += 1
        try:
            text = self.gateway.call(tool, arguments).model_dump_json(exclude_none=True)
        except GatewayError as error:
            text = json.dumps({"error": str(error)})
        self.read += len(text)
        answer: dict[str, Any] = json.loads(text)
        return answer


def walked(s: Session, seed: str, predicate: str, direction: str = "out") -> set[str]:
    """The nodes one hop over `predicate` from `seed` (the seed left out)."""
    walk = s("bfs_query", seeds=[seed], predicates=[predicate], direction=direction, topology_only=True,
             max_nodes=1000)
    return {n["id"] for n in walk.get("nodes", [])} - set(walk.get("seeds", []))


def values(s: Session, entity: str, predicate: str) -> set[str]:
    """What describe_entity shows for one property (a list of values, IDs or text)."""
    found = s("describe_entity", id=entity).get("properties", {}).get(predicate, [])
    return {v if isinstance(v, str) else json.dumps(v) for v in found}


def field(s: Session, entity: str, name: str) -> set[str]:
    return field_in(s, entity, name)


def field_in(s: Session, entity: str, name: str, **arguments: Any) -> set[str]:
    """One field of describe_entity's answer (label, description...), the call narrowed by `arguments`."""
    found = s("describe_entity", id=entity, **arguments).get(name)
    return {found} if isinstance(found, str) else set()


def first_hit(s: Session, query: str, **arguments: Any) -> set[str]:
    hits = s("search_entities", query=query, limit=5, **arguments).get("results", [])
    return {hits[0]["id"]} if hits else set()


def type_count(s: Session, entity_type: str) -> set[str]:
    """An entity type's count, as describe_schema lists it (entity_types, then term_types)."""
    schema = s("describe_schema")
    for kind in ("term_types", "entity_types"):
        for row in schema.get(kind, []):
            if row["id"] == entity_type:
                return {str(row["count"])}
    return set()


def inline_ids(texts: set[str], after: str) -> set[str]:
    """IDs written after `after` in blank nodes shown inline (`[ owl:onProperty x ; ... ]`)."""
    return {m for t in texts for m in re.findall(re.escape(after) + r" ([^\s;\]\)\[\(\"]+)", t)}


def inline_texts(texts: set[str], after: str) -> set[str]:
    """Quoted values written after `after` inline (`[ foaf:name "Dan Brickley" ]`)."""
    return {json.loads(m) for t in texts for m in re.findall(re.escape(after) + r' ("(?:[^"\\]|\\.)*")', t)}


def outermost(text: str, after: str) -> list[str]:
    """Quoted values written after `after` in the outermost `[ ... ]` of one inline blank node."""
    found: list[str] = []
    depth, i = 0, 0
    while i < len(text):
        c = text[i]
        if c == '"':
            end = re.match(r'"(?:[^"\\]|\\.)*"', text[i:])
            i += end.end() if end else 1
            continue
        depth += 1 if c in "[(" else -1 if c in "])" else 0
        if depth == 1 and text.startswith(after + ' "', i):
            found.append(json.loads(re.match(r'"(?:[^"\\]|\\.)*"', text[i + len(after) + 1:]).group()))  # type: ignore[union-attr]
        i += 1
    return found


# -- questions ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Question:
    text: str
    oracle: str
    """SPARQL run on the data directly: its first column is the answer (IRIs as IDs)."""
    agent: Callable[[Session], set[str]]
    data: str = "vocabularies"


QUESTIONS: list[Question] = [
    # Schema predicates, walked when named
    Question("Which properties have foaf:Person as their rdfs:domain?",
      "SELECT ?p WHERE { ?p rdfs:domain foaf:Person }",
      lambda s: walked(s, "foaf:Person", "rdfs:domain", "in")),
    Question("What is the range of prov:wasGeneratedBy?",
      "SELECT ?r WHERE { prov:wasGeneratedBy rdfs:range ?r }",
      lambda s: values(s, "prov:wasGeneratedBy", "rdfs:range")),
    Question("What is the inverse of prov:wasGeneratedBy?",
      "SELECT ?r WHERE { prov:wasGeneratedBy owl:inverseOf ?r }",
      lambda s: values(s, "prov:wasGeneratedBy", "owl:inverseOf")),
    Question("Which property is prov:wasGeneratedBy a sub-property of?",
      "SELECT ?r WHERE { prov:wasGeneratedBy rdfs:subPropertyOf ?r }",
      lambda s: walked(s, "prov:wasGeneratedBy", "rdfs:subPropertyOf")),
    Question("Which classes are declared equivalent to foaf:Person (either way)?",
      "SELECT DISTINCT ?c WHERE { { ?c owl:equivalentClass foaf:Person } UNION { foaf:Person owl:equivalentClass ?c } }",
      lambda s: walked(s, "foaf:Person", "owl:equivalentClass", "both")),
    Question("Which classes are disjoint with foaf:Person (either way)?",
      "SELECT DISTINCT ?c WHERE { { ?c owl:disjointWith foaf:Person } UNION { foaf:Person owl:disjointWith ?c } }",
      lambda s: walked(s, "foaf:Person", "owl:disjointWith", "both")),
    Question("Which schema.org properties list schema:Person in their domainIncludes?",
      "SELECT ?p WHERE { ?p schema:domainIncludes schema:Person }",
      lambda s: walked(s, "schema:Person", "schema:domainIncludes", "in")),
    Question("Which schema.org properties can take a schema:Place as value (rangeIncludes)?",
      "SELECT ?p WHERE { ?p schema:rangeIncludes schema:Place }",
      lambda s: walked(s, "schema:Place", "schema:rangeIncludes", "in")),
    Question("What superseded schema:Taxi?",
      "SELECT ?o WHERE { schema:Taxi schema:supersededBy ?o }",
      lambda s: walked(s, "schema:Taxi", "schema:supersededBy")),
    Question("What are the direct subclasses of skos:Concept?",
      "SELECT ?c WHERE { ?c rdfs:subClassOf skos:Concept FILTER(isIRI(?c)) }",
      lambda s: walked(s, "skos:Concept", "rdfs:subClassOf", "in")),
    Question("What are all the superclasses of schema:Hospital?",
      "SELECT DISTINCT ?c WHERE { schema:Hospital rdfs:subClassOf+ ?c FILTER(isIRI(?c)) }",
      lambda s: set(s("transitive_closure_query", start="schema:Hospital", predicate="rdfs:subClassOf")
                    .get("reachable", []))),
    Question("Which classes are subclasses of prov:Agent?",
      "SELECT ?c WHERE { ?c rdfs:subClassOf prov:Agent }",
      lambda s: walked(s, "prov:Agent", "rdfs:subClassOf", "in")),
    Question("What is the inverse of sosa:madeObservation?",
      "SELECT ?r WHERE { sosa:madeObservation owl:inverseOf ?r }",
      lambda s: walked(s, "sosa:madeObservation", "owl:inverseOf")),
    Question("What is the domain of org:memberOf?",
      "SELECT ?r WHERE { org:memberOf rdfs:domain ?r }",
      lambda s: values(s, "org:memberOf", "rdfs:domain")),
    Question("Which constant is broader (skos:broader) than the reduced Planck constant?",
      "SELECT ?b WHERE { <http://qudt.org/vocab/constant/ReducedPlanckConstant> skos:broader ?b }",
      lambda s: {b for hit in first_hit(s, "Reduced Planck Constant") for b in walked(s, hit, "skos:broader")}),
    # IDs as the data holds them
    Question("What does schema.org say schema:Monday is?",
      "SELECT ?d WHERE { schema:Monday rdfs:comment ?d }",
      lambda s: field(s, "schema:Monday", "description")),
    Question("What is the label of dcat:Dataset in English?",
      "SELECT ?l WHERE { dcat:Dataset rdfs:label ?l FILTER(LANG(?l) = 'en') }",
      lambda s: field(s, "dcat:Dataset", "label")),
    Question("What does sosa:Sensor mean?",
      "SELECT ?d WHERE { sosa:Sensor rdfs:comment ?d }",
      lambda s: field(s, "sosa:Sensor", "description")),
    Question("Which quantity kind does the unit metre (unit:M) measure?",
      "SELECT ?k WHERE { unit:M qudt:hasQuantityKind ?k }",
      lambda s: walked(s, "unit:M", "qudt:hasQuantityKind")),
    Question("How many units measure quantitykind:Length?",
      "SELECT (COUNT(?u) AS ?n) WHERE { ?u qudt:hasQuantityKind quantitykind:Length }",
      lambda s: {str(len(walked(s, kind, "qudt:hasQuantityKind", "in")))
                 for kind in walked(s, "unit:M", "qudt:hasQuantityKind")}),  # the ID unit:M's answer gives
    # Vocabulary terms found by name
    Question("Find DCAT's Dataset class.",
      "SELECT ?c WHERE { VALUES ?c { dcat:Dataset } }",
      lambda s: {h["id"] for h in s("search_entities", query="Dataset", limit=10)["results"]
                 if h["id"].startswith("dcat:") and h.get("entity_type") == "owl:Class"}),
    Question("Find the schema.org class for hospitals.",
      "SELECT ?c WHERE { VALUES ?c { schema:Hospital } }",
      lambda s: {h["id"] for h in s("search_entities", query="Hospital", limit=5)["results"]
                 if h["id"].startswith("schema:")}),
    Question("Which Brick class is called 'Air Handling Unit'?",
      "SELECT ?c WHERE { ?c rdfs:label ?l FILTER(STR(?l) = 'Air Handling Unit' && STRSTARTS(STR(?c), STR(brick:))) }",
      lambda s: first_hit(s, "Air Handling Unit")),
    Question("Which term has the alternative label 'Datasamling'?",
      "SELECT ?c WHERE { ?c skos:altLabel ?l FILTER(STR(?l) = 'Datasamling') }",
      lambda s: first_hit(s, "Datasamling")),
    Question("How many owl:Ontology nodes are there?",
      "SELECT (COUNT(DISTINCT ?o) AS ?n) WHERE { ?o a owl:Ontology }",
      lambda s: type_count(s, "owl:Ontology")),
    Question("List the ontologies (owl:Ontology) in the data.",
      "SELECT DISTINCT ?o WHERE { ?o a owl:Ontology FILTER(isIRI(?o)) }",
      lambda s: {n["id"] for n in s("scan_query", node_types=["owl:Ontology"], limit=200)["nodes"]}),
    Question("How many terms are typed owl:ObjectProperty?",
      "SELECT (COUNT(DISTINCT ?o) AS ?n) WHERE { ?o a owl:ObjectProperty FILTER(isIRI(?o)) }",
      lambda s: type_count(s, "owl:ObjectProperty")),
    # Blank nodes, restrictions and lists
    Question("Which properties do ssn:System's OWL restrictions constrain?",
      "SELECT DISTINCT ?p WHERE { ssn:System rdfs:subClassOf ?r . ?r owl:onProperty ?p FILTER(isBlank(?r) && isIRI(?p)) }",
      lambda s: inline_ids(values(s, "ssn:System", "rdfs:subClassOf"), "owl:onProperty")),
    Question("How many superclasses of ssn:System are OWL restrictions?",
      "SELECT (COUNT(DISTINCT ?r) AS ?n) WHERE { ssn:System rdfs:subClassOf ?r FILTER(isBlank(?r)) }",
      lambda s: {str(sum(1 for v in values(s, "ssn:System", "rdfs:subClassOf") if v.startswith("[")))}),
    Question("Who contributed to DCAT (names of the ontology's dcterms:contributor)?",
      "SELECT DISTINCT ?n WHERE { <http://www.w3.org/ns/dcat> dcterms:contributor ?c . ?c foaf:name ?n }",
      lambda s: {name for v in values(s, "http://www.w3.org/ns/dcat", "dcterms:contributor")
                 for name in outermost(v, "foaf:name")}),  # a person's own name, not their employer's
    Question("Which classes make up time:TemporalEntity (its owl:unionOf)?",
      "SELECT ?m WHERE { time:TemporalEntity owl:unionOf ?l . ?l rdf:rest*/rdf:first ?m }",
      lambda s: {m for t in values(s, "time:TemporalEntity", "owl:unionOf")
                 for m in re.findall(r"[\w.-]+:[\w.-]+", t)}),
    Question("Who created the Brick ontology (names in its dcterms:creator list)?",
      f"SELECT ?n WHERE {{ <{BRICK_GRAPH}> dcterms:creator ?l . ?l rdf:rest*/rdf:first ?c . ?c schema:name ?n }}",
      lambda s: inline_texts(values(s, BRICK_GRAPH, "dcterms:creator"), "schema:name")),
    # Labels and descriptions from more properties
    Question("What is the title of the FOAF vocabulary?",
      "SELECT ?t WHERE { <http://xmlns.com/foaf/0.1/> dc:title ?t }",
      lambda s: field(s, "http://xmlns.com/foaf/0.1/", "label")),
    Question("How does Brick define an Air Handling Unit?",
      "SELECT ?d WHERE { brick:Air_Handling_Unit skos:definition ?d }",
      lambda s: field(s, "brick:Air_Handling_Unit", "description")),
    Question("What does FOAF itself say foaf:Person is?",
      "SELECT ?d WHERE { GRAPH <http://xmlns.com/foaf/0.1/> { foaf:Person rdfs:comment ?d } }",
      lambda s: field(s, "foaf:Person", "description")),
    Question("Which languages is dcat:Dataset labelled in, besides English?",
      "SELECT DISTINCT ?lang WHERE { dcat:Dataset rdfs:label ?l BIND(LANG(?l) AS ?lang) "
      "FILTER(?lang != '' && ?lang != 'en') }",
      lambda s: set(s("describe_entity", id="dcat:Dataset").get("other_languages", []))),
    Question("What is dcat:Dataset's label in Spanish?",
      "SELECT ?l WHERE { dcat:Dataset rdfs:label ?l FILTER(LANG(?l) = 'es') }",
      lambda s: field_in(s, "dcat:Dataset", "label", languages=["es"])),
    # Provenance by graph
    Question("Which named graph defines foaf:Person's comment 'A person.'?",
      "SELECT ?g WHERE { GRAPH ?g { foaf:Person rdfs:comment ?c FILTER(STR(?c) = 'A person.') } }",
      lambda s: {g for g in s("describe_entity", id="foaf:Person").get("graphs", [])  # where its data comes from
                 if field_in(s, "foaf:Person", "description", graphs=[g]) == {"A person."}}),
    Question("How many named graphs does the data have?",
      "SELECT (COUNT(DISTINCT ?g) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }",
      lambda s: {str(len(s("describe_schema").get("named_graphs", [])))}),
    # Literal-valued properties
    Question("Which preferred namespace prefix does the SOSA ontology declare?",
      "SELECT ?p WHERE { <http://www.w3.org/ns/sosa/> <http://purl.org/vocab/vann/preferredNamespacePrefix> ?p }",
      lambda s: {json.loads(v) if v.startswith('"') else v
                 for v in values(s, "http://www.w3.org/ns/sosa/", "vann:preferredNamespacePrefix")}),
    Question("Which vCard term is labelled 'postal code'?",
      "SELECT ?c WHERE { ?c rdfs:label ?l FILTER(LCASE(STR(?l)) = 'postal code' "
      "&& STRSTARTS(STR(?c), STR(vcard:))) }",
      lambda s: {h["id"] for h in s("search_entities", query="postal code", limit=5)["results"]
                 if h["id"].startswith("vcard:")}),
    # The SHACL and schema.org slice (pyshacl's files): run in CI
    Question("Which SHACL properties have sh:PropertyShape as their domain?",
      "SELECT ?p WHERE { ?p rdfs:domain sh:PropertyShape }",
      lambda s: walked(s, "sh:PropertyShape", "rdfs:domain", "in"), data="pyshacl"),
    Question("What are all the superclasses of schema:Hospital (pyshacl's schema.org)?",
      "SELECT DISTINCT ?c WHERE { schema:Hospital rdfs:subClassOf+ ?c FILTER(isIRI(?c)) }",
      lambda s: set(s("transitive_closure_query", start="schema:Hospital", predicate="rdfs:subClassOf")
                    .get("reachable", [])), data="pyshacl"),
    Question("Find the SHACL class for property shapes.",
      "SELECT ?c WHERE { VALUES ?c { sh:PropertyShape } }",
      lambda s: first_hit(s, "Property shape"), data="pyshacl"),
    Question("How many classes (rdfs:Class) does the SHACL vocabulary define?",
      "SELECT (COUNT(DISTINCT ?c) AS ?n) WHERE { GRAPH sh: { ?c a rdfs:Class } }",
      lambda s: {str(s("scan_query", node_types=["rdfs:Class"], limit=1000, graphs=[g])["count"])
                 for g in s("describe_schema")["named_graphs"] if g.startswith("sh")}, data="pyshacl"),
    Question("What does schema.org say schema:Monday is (pyshacl's schema.org)?",
      "SELECT ?d WHERE { schema:Monday rdfs:comment ?d }",
      lambda s: field(s, "schema:Monday", "description"), data="pyshacl"),
    Question("Which paths do the property shapes in dash:ListNodeShape's sh:or alternatives constrain?",
      "SELECT DISTINCT ?p WHERE { <http://datashapes.org/dash#ListNodeShape> sh:or/rdf:rest*/rdf:first ?a . "
      "?a sh:property/sh:path ?p }",
      lambda s: inline_ids(values(s, "dash:ListNodeShape", "sh:or"), "sh:path"), data="pyshacl"),
    Question("What is the range of sh:path?",
      "SELECT ?r WHERE { sh:path rdfs:range ?r }",
      lambda s: values(s, "sh:path", "rdfs:range"), data="pyshacl"),
    Question("Which DASH classes are subclasses of sh:NodeShape?",
      "SELECT ?c WHERE { ?c rdfs:subClassOf sh:NodeShape }",
      lambda s: walked(s, "sh:NodeShape", "rdfs:subClassOf", "in"), data="pyshacl"),
]


# -- running ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Outcome:
    question: Question
    expected: set[str]
    answered: set[str]
    read: int
    calls: int

    @property
    def right(self) -> bool:
        return bool(self.expected) and self.answered == self.expected


def oracle(store: ox.Store, gateway: Gateway, query: str) -> set[str]:
    """The first column of a SELECT over every graph: IRIs as the gateway's IDs, literals as text."""
    found: set[str] = set()
    for row in store.query(PREFIXES + query, use_default_graph_as_union=True):  # type: ignore[union-attr]
        term = row[0]
        if isinstance(term, ox.NamedNode):
            found.add(gateway.ids.to_id(term.value))
        elif isinstance(term, ox.Literal):
            found.add(term.value)
    return found


def ask(questions: list[Question], path: Path) -> list[Outcome]:
    """Every question on the data at `path`, each in a session of its own."""
    store = ox.Store()
    store.bulk_load(path=str(path), format=ox.RdfFormat.N_QUADS)
    gateway = Gateway.open(path)
    outcomes: list[Outcome] = []
    for question in questions:
        session = Session(gateway)
        answered = question.agent(session)
        outcomes.append(Outcome(question, oracle(store, gateway, question.oracle), answered, session.read,
                                session.calls))
    return outcomes


def slice_questions() -> list[Question]:
    """The questions on pyshacl's files: what CI runs."""
    return [x for x in QUESTIONS if x.data == "pyshacl"]
