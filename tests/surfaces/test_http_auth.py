"""Bearer tokens over HTTP: the reader a token names gates the walk, as in the Python API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx2
import pyoxigraph as ox
import pytest
import rdflib
from rdflib.plugins.stores.sparqlstore import SPARQLStore

from gateway import Gateway
from gateway.auth import Reader, new_token
from gateway.errors import GatewayError
from tests.surfaces.conftest import CANON, CASEBOOK, DEMO, EXAMPLES, Served, start_server
from tests.surfaces.test_http_tools import assert_problem

TOKEN, TOKEN_SHA256 = new_token()
CANON_READER = Reader("canon", (CANON,))


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The demo graph with a readers file: one token reads the canon graph; no anonymous reader."""
    directory = tmp_path_factory.mktemp("readers")
    readers = directory / "readers.toml"
    readers.write_text(f'[readers.canon]\ntoken_sha256 = "{TOKEN_SHA256}"\ngraphs = ["{CANON}"]\n', encoding="utf-8")
    served = start_server(directory, "--readers", str(readers))
    yield served
    served.stop()


def bearer(token: str = TOKEN) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_no_token_is_401_with_a_bearer_challenge(guarded: Served) -> None:
    response = httpx2.post(f"{guarded.url}/v1/tools/describe_schema")
    assert_problem(response, 401)
    assert response.headers["www-authenticate"] == 'Bearer realm="bfsql"'


@pytest.mark.parametrize("header", ["Bearer not-a-token", "Basic dXNlcjpwYXNz", "Bearer"])
def test_a_bad_token_is_401(guarded: Served, header: str) -> None:
    response = httpx2.post(f"{guarded.url}/v1/tools/describe_schema", headers={"Authorization": header})
    assert_problem(response, 401)
    assert response.headers["www-authenticate"].startswith("Bearer")


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_a_token_reads_its_graphs_only(guarded: Served, demo_gateway: Gateway, name: str) -> None:
    for arguments in EXAMPLES[name]:
        response = httpx2.post(f"{guarded.url}/v1/tools/{name}", json=arguments, headers=bearer(), timeout=60)
        try:
            expected = demo_gateway.call(name, arguments, reader=CANON_READER)
        except GatewayError as error:  # the same refusal, as a problem
            assert response.status_code >= 400 and response.json()["code"] == error.code
            continue
        assert response.status_code == 200, response.text
        assert response.json() == expected.model_dump(mode="json", exclude_none=True)


def test_the_scope_changes_the_answer(guarded: Served, client: httpx2.Client) -> None:
    """A control: the canon reader sees less than everyone, so the comparison above means something."""
    arguments = {"truth_status": ["hypothetical"]}  # Holmes's conjectures sit in the casebook graph
    scoped = httpx2.post(f"{guarded.url}/v1/tools/scan_query", json=arguments, headers=bearer()).json()
    everything = client.post("/v1/tools/scan_query", json=arguments).json()
    assert scoped["count"] < everything["count"]


def test_an_unreadable_graph_is_403_on_sparql(guarded: Served) -> None:
    response = httpx2.get(f"{guarded.url}/sparql", params={"query": "ASK {}", "default-graph-uri": CASEBOOK},
                          headers=bearer())
    assert_problem(response, 403, "default-graph-uri")
    response = httpx2.get(f"{guarded.url}/sparql", params={"query": f"ASK FROM <{CASEBOOK}> {{}}"}, headers=bearer())
    assert_problem(response, 403, "query")
    assert_problem(httpx2.get(f"{guarded.url}/sparql", params={"query": "ASK {}"}), 401)


def test_sparqlstore_reads_as_its_token(guarded: Served) -> None:
    """rdflib's SPARQLStore sends the bearer token in `headers`: the canon graph alone, as
    pyoxigraph reads it; without a token, nothing."""
    store = ox.Store()
    store.load(path=str(DEMO), format=ox.RdfFormat.TRIG)
    count = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
    canon = int(next(iter(store.query(count, default_graph=[ox.NamedNode(CANON)])))["n"].value)  # type: ignore[call-overload]
    assert canon < len(store)
    graph = rdflib.Graph(store=SPARQLStore(f"{guarded.url}/sparql", headers=bearer()))
    assert len(graph) == canon
    with pytest.raises(ValueError):  # rdflib's GET hides the 401 behind its own message
        len(rdflib.Graph(store=SPARQLStore(f"{guarded.url}/sparql")))


def test_an_anonymous_reader_needs_no_token(tmp_path: Path) -> None:
    readers = tmp_path / "readers.toml"
    readers.write_text(f'[anonymous]\ngraphs = ["{CASEBOOK}"]\n', encoding="utf-8")
    served = start_server(tmp_path, "--readers", str(readers))
    try:
        response = httpx2.post(f"{served.url}/v1/tools/describe_schema")
        assert response.status_code == 200
        assert response.json()["named_graphs"] == [CASEBOOK]
    finally:
        assert served.stop() == 0
