"""`/sparql` with real third-party clients (SPARQLWrapper, rdflib's SPARQLStore): the same
solutions as pyoxigraph directly; updates and SERVICE refused; dataset, negotiation and bounds."""

from __future__ import annotations

import json
import time
import urllib.error
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pyoxigraph as ox
import pytest
import rdflib
from rdflib.plugins.stores.sparqlstore import SPARQLStore, SPARQLUpdateStore
from SPARQLWrapper import GET, JSON, POST, POSTDIRECTLY, TURTLE, XML, SPARQLWrapper

from gateway.surfaces.sparql_endpoint import negotiate, syntax_said
from gateway.surfaces.sparql_text import read_query
from tests.surfaces.conftest import CANON, DEMO, Served, start_server
from tests.surfaces.test_http_tools import assert_problem

PREFIXES = """PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX wiki: <https://example.org/wiki/>
PREFIX rel: <https://example.org/rel/>
"""
SELECTS = [
    PREFIXES + "SELECT ?s ?label WHERE { ?s rdfs:label ?label } ORDER BY ?s ?label",
    PREFIXES + "SELECT ?r ?s ?o WHERE { ?r rdf:reifies <<( ?s rel:Possesses ?o )>> } ORDER BY ?r",
    PREFIXES + "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g ORDER BY ?g",
    PREFIXES + 'SELECT ?x WHERE { VALUES ?x { "service" <http://x.example/SERVICE> } } ORDER BY ?x',
]
CONSTRUCT = PREFIXES + "CONSTRUCT { ?s rdfs:label ?l } WHERE { ?s rdfs:label ?l }"
SLOW = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"


@pytest.fixture(scope="module")
def store() -> ox.Store:
    store = ox.Store()
    store.load(path=str(DEMO), format=ox.RdfFormat.TRIG)
    return store


def solutions(store: ox.Store, query: str, **dataset: Any) -> list[tuple[str, ...]]:
    result = store.query(query, **(dataset or {"use_default_graph_as_union": True}))
    return rows(result.serialize(format=ox.QueryResultsFormat.JSON), ox.QueryResultsFormat.JSON)  # type: ignore[union-attr]


def rows(data: bytes, fmt: ox.QueryResultsFormat) -> list[tuple[str, ...]]:
    parsed = ox.parse_query_results(data, format=fmt)
    assert isinstance(parsed, ox.QuerySolutions)
    names = [v.value for v in parsed.variables]
    return [tuple(str(solution[name]) if solution[name] is not None else "" for name in names) for solution in parsed]


def wrapper(served: Served, query: str, fmt: str = JSON, method: str = GET) -> SPARQLWrapper:
    client = SPARQLWrapper(f"{served.url}/sparql")
    client.setQuery(query)
    client.setReturnFormat(fmt)
    if method == POSTDIRECTLY:
        client.setMethod(POST)
        client.setRequestMethod(POSTDIRECTLY)
    else:
        client.setMethod(method)
    return client


# -- SPARQLWrapper --------------------------------------------------------------------------
@pytest.mark.parametrize("method", [GET, POST, POSTDIRECTLY])
@pytest.mark.parametrize("query", SELECTS)
def test_select_with_sparqlwrapper(server: Served, store: ox.Store, query: str, method: str) -> None:
    answer = wrapper(server, query, JSON, method).queryAndConvert()
    assert rows(json.dumps(answer).encode(), ox.QueryResultsFormat.JSON) == solutions(store, query)
    assert answer["results"]["bindings"]


@pytest.mark.parametrize(("query", "expected"), [
    (PREFIXES + "ASK { wiki:Irene_Adler ?p ?o }", True),
    (PREFIXES + "ASK { wiki:Moriarty ?p ?o }", False),
])
def test_ask_with_sparqlwrapper(server: Served, store: ox.Store, query: str, expected: bool) -> None:
    assert bool(store.query(query, use_default_graph_as_union=True)) is expected
    for fmt in (JSON, XML):
        answer = wrapper(server, query, fmt).query()
        assert answer.convert()["boolean"] is expected if fmt == JSON else True
    assert wrapper(server, query, JSON, POST).queryAndConvert()["boolean"] is expected


@pytest.mark.filterwarnings("ignore:ConjunctiveGraph is deprecated")  # inside SPARQLWrapper's rdflib use
def test_construct_with_sparqlwrapper(server: Served, store: ox.Store) -> None:
    expected = {str(t) for t in store.query(CONSTRUCT, use_default_graph_as_union=True)}  # type: ignore[union-attr]
    turtle = wrapper(server, CONSTRUCT, TURTLE).queryAndConvert()
    assert {str(t) for t in ox.parse(turtle, format=ox.RdfFormat.TURTLE)} == expected
    graph = wrapper(server, CONSTRUCT, XML, POST).queryAndConvert()  # RDF/XML, parsed by rdflib
    assert len(graph) == len(expected) > 10


def test_an_update_is_refused_and_nothing_changes(server: Served, store: ox.Store) -> None:
    count = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
    before = wrapper(server, count).queryAndConvert()
    update = wrapper(server, "INSERT DATA { <urn:a> <urn:b> <urn:c> }", JSON, POST)  # sent as update=
    with pytest.raises(urllib.error.HTTPError) as refused:
        update.query()
    assert refused.value.code == 403
    assert json.loads(refused.value.read())["code"] == "read_only"
    assert wrapper(server, count).queryAndConvert() == before


def test_a_service_query_is_refused(server: Served) -> None:
    query = "SELECT * WHERE { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }"
    for method in (GET, POST, POSTDIRECTLY):
        with pytest.raises(urllib.error.HTTPError) as refused:
            wrapper(server, query, JSON, method).query()
        assert refused.value.code == 403
        assert json.loads(refused.value.read())["code"] == "service_refused"


# -- rdflib's SPARQLStore ----------------------------------------------------------------------
# rdflib reads CONSTRUCT answers only as RDF/XML (its default returnFormat "xml" asks for it)
# and cannot read RDF 1.2 triple terms in results; the queries below select around them.
METHODS = ["GET", "POST", "POST_FORM"]


def sparqlstore(served: Served, **options: Any) -> rdflib.Graph:
    return rdflib.Graph(store=SPARQLStore(f"{served.url}/sparql", **options))


def term_key(term: object) -> tuple[str, ...]:
    """A pyoxigraph or rdflib term as (kind, lexical form, language or datatype)."""
    if isinstance(term, (ox.NamedNode, rdflib.URIRef)):
        return ("iri", str(term.value if isinstance(term, ox.NamedNode) else term))
    if isinstance(term, ox.Literal):
        return ("literal", term.value, term.language or term.datatype.value)
    if isinstance(term, rdflib.Literal):
        return ("literal", str(term), term.language or str(term.datatype or rdflib.XSD.string))
    return ("blank",) if isinstance(term, (ox.BlankNode, rdflib.BNode)) else ("unbound",)


def oxigraph_rows(store: ox.Store, query: str, **dataset: Any) -> list[tuple[tuple[str, ...], ...]]:
    result = store.query(query, **(dataset or {"use_default_graph_as_union": True}))
    names = [v.value for v in result.variables]  # type: ignore[union-attr]
    return [tuple(term_key(solution[name]) for name in names) for solution in result]  # type: ignore[union-attr]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("fmt", ["xml", "json", "tsv", "csv"])
@pytest.mark.parametrize("query", SELECTS, ids=range(len(SELECTS)))
def test_select_with_sparqlstore(server: Served, store: ox.Store, query: str, fmt: str, method: str) -> None:
    answer = sparqlstore(server, returnFormat=fmt, method=method).query(query)
    got = [tuple(term_key(term) for term in row) for row in answer]
    expected = oxigraph_rows(store, query)
    assert expected
    if fmt == "csv":  # CSV drops datatypes and languages: compare the lexical forms
        assert [tuple(key[:2] for key in row) for row in got] == [tuple(key[:2] for key in row) for row in expected]
    else:
        assert got == expected


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("fmt", ["xml", "json"])
@pytest.mark.parametrize(("query", "expected"), [
    (PREFIXES + "ASK { wiki:Irene_Adler ?p ?o }", True),
    (PREFIXES + "ASK { wiki:Moriarty ?p ?o }", False),
])
def test_ask_with_sparqlstore(server: Served, store: ox.Store, query: str, expected: bool, fmt: str, method: str) -> None:
    assert bool(store.query(query, use_default_graph_as_union=True)) is expected
    assert sparqlstore(server, returnFormat=fmt, method=method).query(query).askAnswer is expected


@pytest.mark.parametrize("method", METHODS)
def test_construct_with_sparqlstore(server: Served, store: ox.Store, method: str) -> None:
    expected = {tuple(term_key(t) for t in (q.subject, q.predicate, q.object))
                for q in store.query(CONSTRUCT, use_default_graph_as_union=True)}  # type: ignore[union-attr]
    graph = sparqlstore(server, method=method).query(CONSTRUCT).graph
    assert {tuple(term_key(t) for t in triple) for triple in graph} == expected and len(expected) > 10


def test_sparqlstore_reads_the_graph_as_a_graph(server: Served, store: ox.Store) -> None:
    """Graph methods over the store: its size, a subject's triples, the named graphs, and
    a graph named by its identifier (sent as default-graph-uri)."""
    irene = "https://example.org/wiki/Irene_Adler"
    graph = sparqlstore(server)
    assert len(graph) == len({q.triple for q in store})
    triples = {tuple(term_key(t) for t in triple) for triple in graph.triples((rdflib.URIRef(irene), None, None))}
    assert triples == {tuple(term_key(t) for t in (q.subject, q.predicate, q.object))
                       for q in store.quads_for_pattern(ox.NamedNode(irene), None, None)}
    assert set(graph.store.contexts()) == {rdflib.URIRef(g.value) for g in store.named_graphs()}  # type: ignore[attr-defined]
    canon = rdflib.Graph(store=SPARQLStore(f"{server.url}/sparql"), identifier=rdflib.URIRef(CANON))
    count = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
    assert len(canon) == int(next(iter(store.query(count, default_graph=[ox.NamedNode(CANON)])))["n"].value) < len(graph)  # type: ignore[call-overload]


def test_sparqlstore_updates_and_service_are_refused(server: Served, store: ox.Store) -> None:
    endpoint = f"{server.url}/sparql"
    updates = SPARQLUpdateStore(endpoint, endpoint)
    graph = rdflib.Graph(store=updates, identifier=rdflib.URIRef(CANON))
    before = len(graph)
    for send in (lambda: updates.update("INSERT DATA { <urn:a> <urn:b> <urn:c> }"),
                 lambda: graph.add((rdflib.URIRef("urn:a"), rdflib.URIRef("urn:b"), rdflib.URIRef("urn:c")))):
        with pytest.raises(urllib.error.HTTPError) as refused:
            send()
        assert refused.value.code == 403 and json.loads(refused.value.read())["code"] == "read_only"
    assert len(graph) == before == len(list(store.query("SELECT * { ?s ?p ?o }", default_graph=[ox.NamedNode(CANON)])))  # type: ignore[arg-type]
    service = "SELECT * WHERE { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }"
    with pytest.raises(ValueError):  # rdflib's GET hides the status behind its own message
        sparqlstore(server).query(service)
    assert sparqlstore(server, method="POST").query(service)[0] == 403  # type: ignore[index]  # POST hands it back


# -- the protocol over plain HTTP -------------------------------------------------------------
@pytest.mark.parametrize(("accept", "fmt"), [
    ("application/sparql-results+json", ox.QueryResultsFormat.JSON),
    ("application/sparql-results+xml", ox.QueryResultsFormat.XML),
    ("text/tab-separated-values", ox.QueryResultsFormat.TSV),
    ("text/csv;q=0.9, application/json;q=0.1", ox.QueryResultsFormat.CSV),
])
def test_select_results_formats(client: httpx2.Client, store: ox.Store, accept: str, fmt: ox.QueryResultsFormat) -> None:
    response = client.get("/sparql", params={"query": SELECTS[0]}, headers={"Accept": accept})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith(accept.split(";")[0].split(",")[0])
    if fmt == ox.QueryResultsFormat.CSV:  # CSV drops datatypes and languages: compare the lexical values
        assert response.text.splitlines()[0] == "s,label"
        assert len(response.text.strip().splitlines()) == len(solutions(store, SELECTS[0])) + 1
    else:
        assert rows(response.content, fmt) == solutions(store, SELECTS[0])


@pytest.mark.parametrize(("accept", "fmt"), [
    ("text/turtle", ox.RdfFormat.TURTLE), ("application/n-triples", ox.RdfFormat.N_TRIPLES),
    ("application/ld+json", ox.RdfFormat.JSON_LD), ("application/rdf+xml", ox.RdfFormat.RDF_XML),
    ("*/*", ox.RdfFormat.TURTLE),
])
def test_construct_formats(client: httpx2.Client, store: ox.Store, accept: str, fmt: ox.RdfFormat) -> None:
    response = client.post("/sparql", data={"query": CONSTRUCT}, headers={"Accept": accept})
    assert response.status_code == 200, response.text
    expected = {str(t) for t in store.query(CONSTRUCT, use_default_graph_as_union=True)}  # type: ignore[union-attr]
    assert {str(q.triple) for q in ox.parse(response.content, format=fmt)} == expected


def test_the_request_may_choose_the_dataset(client: httpx2.Client, store: ox.Store) -> None:
    count = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
    response = client.get("/sparql", params={"query": count, "default-graph-uri": CANON})
    assert rows(response.content, ox.QueryResultsFormat.JSON) == solutions(store, count, default_graph=[ox.NamedNode(CANON)])
    in_text = client.get("/sparql", params={"query": f"SELECT (COUNT(*) AS ?n) FROM <{CANON}> WHERE {{ ?s ?p ?o }}"})
    assert in_text.json() == response.json()
    everything = client.get("/sparql", params={"query": count}).json()
    assert everything != response.json()


@pytest.mark.parametrize(("params", "status", "code"), [
    ({"query": "SELECT WHERE {"}, 400, "malformed_query"),
    ({}, 400, "malformed_query"),
    ({"query": "INSERT DATA { <urn:a> <urn:b> <urn:c> }"}, 403, "read_only"),
    ({"query": "PREFIX x: <urn:x:> DELETE WHERE { ?s ?p ?o }"}, 403, "read_only"),
    ({"update": "CLEAR ALL"}, 403, "read_only"),
    ({"query": "ASK {}", "default-graph-uri": "not an iri"}, 400, "malformed_request"),
])
def test_refusals_are_problems(client: httpx2.Client, params: dict[str, str], status: int, code: str) -> None:
    assert assert_problem(client.get("/sparql", params=params), status)["code"] == code


def test_post_content_types(client: httpx2.Client) -> None:
    ok = client.post("/sparql", content="ASK {}", headers={"content-type": "application/sparql-query"})
    assert ok.json() == {"head": {}, "boolean": True}
    update = client.post("/sparql", content="CLEAR ALL", headers={"content-type": "application/sparql-update"})
    assert assert_problem(update, 403)["code"] == "read_only"
    assert_problem(client.post("/sparql", content="ASK {}", headers={"content-type": "text/plain"}), 415)


def test_an_unacceptable_accept_is_406(client: httpx2.Client) -> None:
    assert_problem(client.get("/sparql", params={"query": "ASK {}"}, headers={"Accept": "image/png"}), 406)
    assert_problem(client.get("/sparql", params={"query": CONSTRUCT}, headers={"Accept": "image/png"}), 406)


@pytest.mark.parametrize("accept", ["text/csv", "application/sparql-results+xml, application/sparql-results+json;q=0.9"])
def test_a_graph_asked_with_only_result_formats_comes_back_as_turtle(client: httpx2.Client, accept: str) -> None:
    """roqet names only result formats for any query: CONSTRUCT falls back to Turtle."""
    answer = client.get("/sparql", params={"query": CONSTRUCT}, headers={"Accept": accept})
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/turtle")
    assert list(ox.parse(answer.content, format=ox.RdfFormat.TURTLE))


def test_json_ld_over_rdf_1_2_is_406_naming_what_works(client: httpx2.Client) -> None:
    reifies = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies>"
    query = f"CONSTRUCT {{ ?r {reifies} ?t }} WHERE {{ ?r {reifies} ?t }} LIMIT 3"
    problem = assert_problem(client.get("/sparql", params={"query": query}, headers={"Accept": "application/ld+json"}), 406)
    assert "JSON-LD" in problem["detail"] and "text/turtle" in problem["detail"]
    assert client.get("/sparql", params={"query": query}, headers={"Accept": "text/turtle"}).status_code == 200


# -- SERVICE, however it is written (tests/surfaces/test_sparql_text.py checks the reading against pyoxigraph) --
REFUSED = [
    "SELECT * WHERE { SERVICESILENT <http://127.0.0.1:9/x> { ?s ?p ?o } }",
    "SELECT * WHERE { servicesilent <http://127.0.0.1:9/x> { ?s ?p ?o } }",
    "PREFIX ex: <http://127.0.0.1:9/>\nSELECT * WHERE { SERVICEex:pname { ?s ?p ?o } }",
    "SELECT * WHERE { ?s ?p 1SERVICE <http://127.0.0.1:9/x> { ?s ?p ?o } }",
    "SELECT * WHERE { ?s ?p trueSERVICE <http://127.0.0.1:9/x> { ?s ?p ?o } }",
    # A prefix named like the keyword may be read as it (SERVICE + the prefix's rest): refused.
    "PREFIX service: <http://x.example/>\nSELECT * WHERE { ?s service:SERVICE ?o }",
    "SELECT * { SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } }",
    "select * { service silent <http://127.0.0.1:9/> { ?s ?p ?o } }",
    "SELECT * { BIND(<http://127.0.0.1:9/> AS ?e) SERVICE ?e { ?s ?p ?o } }",
    "SELECT * { ?s ?p ?o .SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } }",
    "SELECT * { \\u0053ERVICE <http://127.0.0.1:9/> { ?s ?p ?o } }",
    "SELECT * { \\U00000073ervice <http://127.0.0.1:9/> { ?s ?p ?o } }",
    "PREFIX ex: <http://x.example/>\nSELECT * { ex:a\\'b ?p ?o . SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } }",
    "SELECT * { <http://x.example/#frag> ?p ?o SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } }",
    'SELECT * { ?s ?p "a\\"b" SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } }',
]
ALLOWED = [
    "SELECT ?service WHERE { ?service ?p ?o } LIMIT 1",
    "SELECT * WHERE { ?s ?p ?o FILTER(?o = 'SERVICE <http://x/> {}') } LIMIT 1",
    'SELECT * WHERE { ?s ?p ?o FILTER(?o != """SERVICE""") } LIMIT 1',
    "SELECT * WHERE { ?s ?p <http://x.example/SERVICE> } # SERVICE <http://127.0.0.1:9/> {}",
    "PREFIX ex: <http://x.example/>\nSELECT * WHERE { ?s ex:SERVICE ?o . _:SERVICE ?p ?o }",
    "PREFIX ex: <http://x.example/>\nSELECT * WHERE { ?s ex:xSERVICE ?o }",
    'SELECT * WHERE { ?s ?p "x"@en-service }',
]


@pytest.mark.parametrize("query", REFUSED)
def test_service_is_found_however_it_is_written(client: httpx2.Client, store: ox.Store, query: str) -> None:
    assert read_query(query).service is not None
    assert_problem(client.get("/sparql", params={"query": query}), 403, "query")


def test_the_scanner_is_on_the_safe_side_of_pyoxigraph(store: ox.Store) -> None:
    """SPARQL says code point escapes are decoded before parsing; pyoxigraph 0.5 decodes them
    in strings and IRIs only, so an escaped SERVICE is a syntax error there, while the
    scanner refuses it anyway. A plain SERVICE would really be fetched by pyoxigraph."""
    escaped = next(q for q in REFUSED if q.startswith("SELECT * { \\u0053ERVICE"))
    plain = next(q for q in REFUSED if q.startswith("SELECT * { SERVICE"))
    with pytest.raises(SyntaxError):
        store.query(escaped)
    with pytest.raises(OSError, match="port 9"):
        list(store.query(plain))  # type: ignore[arg-type]


@pytest.mark.parametrize("query", ALLOWED)
def test_the_word_service_elsewhere_is_allowed(client: httpx2.Client, query: str) -> None:
    assert read_query(query).service is None
    response = client.get("/sparql", params={"query": query})
    assert response.status_code == 200, response.text


def test_negotiation() -> None:
    offers = ["application/sparql-results+json", "text/csv", "application/json"]
    assert negotiate(None, offers) == offers[0]
    assert negotiate("text/*", offers) == "text/csv"
    assert negotiate("application/json, */*;q=0.1", offers) == "application/json"
    assert negotiate("text/csv;q=0, */*;q=0.5", offers) == offers[0]
    assert negotiate("image/png", offers) is None


# -- bounds --------------------------------------------------------------------------------------
@pytest.fixture()
def hasty(tmp_path: Path) -> Iterator[Served]:
    served = start_server(tmp_path, "--sparql-timeout", "1", "--max-response-bytes", "20000")
    yield served
    served.stop(timeout=15)


def test_a_slow_query_times_out_and_the_server_stays_responsive(hasty: Served) -> None:
    with hasty.client() as client:
        started = time.monotonic()
        problem = assert_problem(client.get("/sparql", params={"query": SLOW}), 504)
        assert problem["code"] == "endpoint_timeout"
        assert time.monotonic() - started < 10
        assert client.get("/healthz").status_code == 200
        assert client.post("/v1/tools/search_entities", json={"query": "Irene"}).status_code == 200
        # A query past its deadline is stopped, not abandoned: the next ones run at once.
        assert_problem(client.get("/sparql", params={"query": SLOW}), 504)
        for _ in range(3):
            assert client.get("/sparql", params={"query": "ASK {}"}).status_code == 200
    assert hasty.stop(timeout=15) == 0


def test_a_large_answer_is_refused_not_truncated(hasty: Served) -> None:
    with hasty.client() as client:
        response = client.get("/sparql", params={"query": "SELECT * WHERE { ?s ?p ?o }"})
        assert assert_problem(response, 413)["code"] == "too_large"
        small = client.get("/sparql", params={"query": "SELECT * WHERE { ?s ?p ?o } LIMIT 5"})
        assert small.status_code == 200
        assert len(small.json()["results"]["bindings"]) == 5


@pytest.mark.parametrize(("query", "said", "not_said"), [
    # pyoxigraph reads past a misspelt keyword and stops mid-word ("at `HERE`").
    ("SELEC * WHERE { ?s ?p ?o }", "starts with SELECT, CONSTRUCT, ASK or DESCRIBE", "HERE"),
    ("# a comment\nselec * { ?s ?p ?o }", "not `selec`", "column"),
    # The grammar's character classes are not words a reader knows.
    ("PREFIX x: <http://x/>\nSELECT * WHERE { ?s ?p ?o", "line 2 column", "['"),
])
def test_a_syntax_error_in_plain_words(query: str, said: str, not_said: str) -> None:
    with pytest.raises(SyntaxError) as parser:
        ox.Store().query(query)
    words = syntax_said(query, str(parser.value))
    assert said in words and not_said not in words, words
