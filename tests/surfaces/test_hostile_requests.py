"""Hostile requests against a real `bfsql serve`, one finding of the reliability probe at a
time: each test sends the probe's own request and checks that it can neither reach the
network, crash, stall nor bloat the server (the figures: "Reliability" in bench/RESULTS.md)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, ClassVar

import httpx2
import pytest
import uvicorn

from gateway import Gateway
from gateway.auth import hash_token
from gateway.backends.base import Capabilities
from gateway.profiles.native import NativeProfile
from gateway.surfaces.http import create_app
from support.processes import cpu_seconds, descendants, tree_pss
from tests.backends.test_remote_faults import FakeEndpoint, Reply
from tests.surfaces.conftest import Listener, Served, free_port, start_server
from tests.surfaces.test_http_tools import assert_problem

MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def sparql(client: httpx2.Client, query: str, **headers: str) -> httpx2.Response:
    return client.post("/sparql", data={"query": query}, headers=headers)


# -- 1. SERVICE never reaches the network -------------------------------------------------------
def service_spellings(target: str) -> list[str]:
    return [
        f"SELECT * WHERE {{ SERVICE <{target}> {{ ?s ?p ?o }} }}",
        f"SELECT * WHERE {{ SERVICESILENT <{target}> {{ ?s ?p ?o }} }}",
        f"SELECT * WHERE {{ servicesilent <{target}> {{ ?s ?p ?o }} }}",
        f"PREFIX ex: <{target}/> SELECT * WHERE {{ SERVICEex:pname {{ ?s ?p ?o }} }}",
        f"SELECT * WHERE {{ ?s ?p 1SERVICE <{target}> {{ ?s ?p ?o }} }}",
        f"SELECT * WHERE {{ \\u0053ERVICE <{target}> {{ ?s ?p ?o }} }}",
    ]


def test_service_in_any_spelling_is_refused_and_reaches_nothing(client: httpx2.Client, listener: Listener) -> None:
    for query in service_spellings(listener.url):
        for response in (client.get("/sparql", params={"query": query}), sparql(client, query),
                         client.post("/sparql", content=query, headers={"Content-Type": "application/sparql-query"})):
            assert assert_problem(response, 403, "query")["code"] == "service_refused"
    assert listener.hits == []


# -- 2. nesting and operator chains --------------------------------------------------------------
KILLERS = {
    "nested groups": "SELECT * WHERE " + "{" * 2500 + " ?s ?p ?o " + "}" * 2500,
    "nested parentheses": "SELECT * WHERE { ?s ?p ?o FILTER(" + "(" * 5000 + "true" + ")" * 5000 + ") }",
    "an || chain": "SELECT * WHERE { ?s ?p ?o FILTER(" + " || ".join(["true"] * 20_000) + ") }",
    "an && chain": "SELECT * WHERE { ?s ?p ?o FILTER(" + " && ".join(["true"] * 20_000) + ") }",
    "a UNION chain": "SELECT * WHERE { " + " UNION ".join(["{ ?s ?p ?o }"] * 20_000) + " }",
}


def test_nesting_and_chains_are_refused_and_the_server_lives(server: Served, client: httpx2.Client) -> None:
    for name, query in KILLERS.items():
        problem = assert_problem(sparql(client, query), 400, "query")
        assert problem["code"] == "query_too_complex", name
    assert server.process.poll() is None
    assert client.get("/healthz").status_code == 200
    assert sparql(client, "ASK { ?s ?p ?o }").status_code == 200


# -- 3. runaway queries are stopped ---------------------------------------------------------------
RUNAWAY = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"


@pytest.fixture()
def strict(tmp_path: Path) -> Iterator[Served]:
    served = start_server(tmp_path, "--sparql-timeout", "2", "--request-timeout", "1")
    yield served
    served.stop(timeout=15)


def test_two_runaway_queries_end_at_their_deadline_and_free_their_slots(strict: Served) -> None:
    with strict.client() as client, ThreadPoolExecutor(2) as pool:
        started = time.monotonic()
        answers = list(pool.map(lambda _: sparql(client, RUNAWAY), range(2)))
        assert all(assert_problem(a, 504)["code"] == "endpoint_timeout" for a in answers)
        assert time.monotonic() - started < 8
        after = time.monotonic()
        for _ in range(5):
            assert sparql(client, "ASK { ?s ?p ?o }").status_code == 200
        assert time.monotonic() - after < 3
    cpu = cpu_seconds([strict.process.pid, *descendants(strict.process.pid)])
    time.sleep(1.0)
    # nothing is still computing the runaways
    assert cpu_seconds([strict.process.pid, *descendants(strict.process.pid)]) - cpu < 0.3


def test_small_queries_under_light_load_wait_for_a_worker_instead_of_503(server: Served) -> None:
    def ask(_: int) -> list[int]:
        with server.client() as client:
            return [sparql(client, "ASK { ?s ?p ?o }").status_code for _ in range(25)]

    with ThreadPoolExecutor(4) as pool:
        statuses = [status for answers in pool.map(ask, range(4)) for status in answers]
    assert statuses == [200] * 100


# -- 10. slow clients ------------------------------------------------------------------------------
def test_slow_headers_and_bodies_lose_their_connection(strict: Served) -> None:
    with socket.create_connection(("127.0.0.1", strict.port), timeout=10) as sock:
        sock.sendall(f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{strict.port}\r\n".encode())  # no blank line: unfinished
        started = time.monotonic()
        answer = sock.recv(200)
        assert answer.startswith(b"HTTP/1.1 408") and time.monotonic() - started < 5
    with socket.create_connection(("127.0.0.1", strict.port), timeout=10) as sock:
        sock.sendall(
            f"POST /v1/tools/search_entities HTTP/1.1\r\nHost: 127.0.0.1:{strict.port}\r\n".encode()
            + b'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"query":'
        )
        answer = b""
        while chunk := sock.recv(4096):
            answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 408") and b"connection: close" in head.lower()
        assert json.loads(body)["code"] == "request_timeout"
    assert strict.client().get("/healthz").status_code == 200


# -- 4 and 5. memory -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """200,000 triples in memory, SPARQL queries bounded at 512 MiB each."""
    from support.synth import power_law_ntriples

    directory = tmp_path_factory.mktemp("big")
    data = directory / "big.nt"
    with open(data, "w", encoding="utf-8") as handle:
        handle.writelines(power_law_ntriples(200_000, seed=11, reified=False))
    served = start_server(directory, str(data), "--sparql-memory", "512", "--sparql-timeout", "20")
    yield served
    served.stop()


def test_memory_is_given_back_after_answers_over_the_cap(big: Served) -> None:
    with big.client() as client:
        assert sparql(client, "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }").status_code == 200
        before = tree_pss(big.process.pid)
        for _ in range(6):
            assert_problem(sparql(client, "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f }"), 413)
        after = tree_pss(big.process.pid)
    assert after - before < 300 << 20, (before >> 20, after >> 20)


def test_an_unbounded_sort_is_stopped_at_the_memory_bound(big: Served) -> None:
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, tree_pss(big.process.pid))
            time.sleep(0.05)

    with big.client() as client:
        before = tree_pss(big.process.pid)
        sampler = threading.Thread(target=sample)
        sampler.start()
        try:
            started = time.monotonic()
            response = sparql(client, "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f } ORDER BY ?c ?f LIMIT 1")
        finally:
            done.set()
            sampler.join()
        assert response.status_code in (413, 504), response.text
        assert time.monotonic() - started < 25
        assert sparql(client, "ASK { ?s ?p ?o }").status_code == 200
        after = tree_pss(big.process.pid)
    assert peak - before < (512 + 256) << 20, (before >> 20, peak >> 20)
    assert after - before < 300 << 20, (before >> 20, after >> 20)


# -- 6, 7 and 9: readers, label-less hits, cursors -----------------------------------------------
SCOPED_DATA = """\
@prefix ex: <https://example.org/x/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix schema: <http://schema.org/> .
ex:a rdfs:label "Alpha" ; ex:knows ex:b , ex:d , ex:e .
ex:b rdfs:label "Beta" .
ex:e rdfs:label "Epsilon" .
ex:d schema:description "an unnamed witness" .
<https://example.org/graph/other> {
    ex:a ex:knows ex:c .
    ex:c rdfs:label "Gamma" ; ex:knows ex:f .
}
"""
DEFAULT_TOKEN = "default-graph-reader"
OTHER_TOKEN = "other-graph-reader"


@pytest.fixture(scope="module")
def scoped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    directory = tmp_path_factory.mktemp("scoped")
    data = directory / "scoped.trig"
    data.write_text(SCOPED_DATA, encoding="utf-8")
    readers = directory / "readers.toml"
    readers.write_text(
        '[anonymous]\ngraphs = ["default", "https://example.org/graph/other"]\n'
        f'[readers.plain]\ntoken_sha256 = "{hash_token(DEFAULT_TOKEN)}"\ngraphs = ["default"]\n'
        f'[readers.other]\ntoken_sha256 = "{hash_token(OTHER_TOKEN)}"\ngraphs = ["https://example.org/graph/other"]\n',
        encoding="utf-8",
    )
    served = start_server(directory, str(data), "--readers", str(readers))
    yield served
    served.stop()


def as_reader(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_reader_of_the_default_graph_uses_every_tool(scoped: Served) -> None:
    calls: dict[str, dict[str, Any]] = {
        "describe_schema": {},
        "search_entities": {"query": "Alpha"},
        "bfs_query": {"seeds": ["https://example.org/x/a"], "max_hops": 2},
        "describe_entity": {"id": "https://example.org/x/a"},
        "describe_entities": {"ids": ["https://example.org/x/a", "https://example.org/x/c"]},
        "intersect_subgraphs": {"seeds": ["https://example.org/x/a", "https://example.org/x/b"], "k": 1},
        "transitive_closure_query": {"start": "https://example.org/x/a", "predicate": "https://example.org/x/knows"},
        "scan_query": {"limit": 2},
        "shortest_path": {"source": "https://example.org/x/b", "target": "https://example.org/x/e"},
        "communities": {"seeds": ["https://example.org/x/a"]},
    }
    with scoped.client(headers=as_reader(DEFAULT_TOKEN)) as client:
        for name, arguments in calls.items():
            response = client.post(f"/v1/tools/{name}", json=arguments)
            assert response.status_code == 200, (name, response.text)
        walk = client.post("/v1/tools/bfs_query", json=calls["bfs_query"]).json()
    reached = {node["id"] for node in walk["nodes"]}
    assert reached == {"ex:a", "ex:b", "ex:d", "ex:e"}  # nothing of the other graph: not ex:c, not ex:f


def test_a_hit_without_a_label_over_mcp(scoped: Served) -> None:
    import asyncio

    from mcp import Client

    async def search() -> Any:
        async with Client(f"{scoped.url}/mcp") as client:
            return await client.call_tool("search_entities", {"query": "witness"})

    result = asyncio.run(search())
    assert not result.is_error, result.content
    hits = result.structured_content["results"]
    assert [hit["id"] for hit in hits] == ["ex:d"] and "label" not in hits[0]


def test_cursors_are_opaque_bound_to_the_reader_and_cannot_be_forged(scoped: Served) -> None:
    with scoped.client(headers=as_reader(DEFAULT_TOKEN)) as plain, scoped.client(headers=as_reader(OTHER_TOKEN)) as other:
        page = plain.post("/v1/tools/scan_query", json={"limit": 1}).json()
        cursor = page["next_cursor"]
        assert b"example.org" not in base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        second = plain.post("/v1/tools/scan_query", json={"limit": 1, "cursor": cursor})
        assert second.status_code == 200 and second.json()["edges"] != page["edges"]
        # The same cursor from a reader of other graphs: refused, nothing read.
        assert_problem(other.post("/v1/tools/scan_query", json={"limit": 1, "cursor": cursor}), 422, "cursor")
        # A cursor made the way they used to be (HMAC under a fixed, published key): refused.
        body = json.dumps({"after": "", "query": "x"}, separators=(",", ":")).encode()
        signature = hmac.new(b"bfsql-scan-cursor", body, hashlib.sha256).hexdigest()[:32]
        forged = (
            base64.urlsafe_b64encode(json.dumps({"b": base64.urlsafe_b64encode(body).decode(), "s": signature}).encode())
            .decode()
            .rstrip("=")
        )
        assert_problem(plain.post("/v1/tools/scan_query", json={"limit": 1, "cursor": forged}), 422, "cursor")


# -- 8. deadlines over a stalled, then dripping store; then the open circuit -------------------------------------
def test_a_stalled_or_dripping_store_gets_a_typed_answer_within_the_deadline(tmp_path: Path) -> None:
    deadline = {"BFSQL-Deadline": "3"}
    call = {"seeds": ["http://example.org/a"], "max_hops": 1}
    with FakeEndpoint(Reply(delay=60)) as fake:
        served = start_server(tmp_path, "--endpoint", fake.url)
        try:
            with served.client() as client, ThreadPoolExecutor(4) as pool:
                started = time.monotonic()
                stalled = list(pool.map(lambda _: client.post("/v1/tools/bfs_query", json=call, headers=deadline), range(4)))
                assert time.monotonic() - started < 6
                assert all(assert_problem(r, 504)["code"] == "endpoint_timeout" for r in stalled)
                assert len(fake.bodies) == 1  # calls needing the same value of the graph at once ask once
                assert client.get("/healthz").status_code == 200
                fake.replies = [Reply(body=b"?x\n" + b"<http://example.org/a>\n" * 200, drip=0.2)]
                started = time.monotonic()
                assert_problem(client.post("/v1/tools/bfs_query", json=call, headers=deadline), 504)
                assert time.monotonic() - started < 5
                # Five failures in a row open the circuit: the store is left alone for a while,
                # and callers are told when to come back.
                failed = [client.post("/v1/tools/bfs_query", json=call, headers={"BFSQL-Deadline": "1"}) for _ in range(3)]
                assert [r.status_code for r in failed] == [504, 504, 504]
                asked = len(fake.bodies)
                started = time.monotonic()
                refused = client.post("/v1/tools/bfs_query", json=call)
                assert assert_problem(refused, 503)["code"] == "unavailable"
                assert int(refused.headers["Retry-After"]) > 0 and len(fake.bodies) == asked
                assert time.monotonic() - started < 1
        finally:
            served.stop()


# -- 10. the rest ----------------------------------------------------------------------------------
def test_mcp_get_is_refused_and_an_object_id_gets_an_error(client: httpx2.Client) -> None:
    response = client.get("/mcp", headers={"Accept": "text/event-stream"}, timeout=5)
    assert response.status_code == 405 and set(response.headers["allow"].split(", ")) == {"DELETE", "POST"}
    for bad in ({"a": 1}, [1], True, None):
        response = client.post("/mcp", json={"jsonrpc": "2.0", "id": bad, "method": "tools/list"}, headers=MCP_HEADERS)
        assert response.status_code == 400
        assert response.json()["error"]["code"] == -32600
    good = client.post("/mcp", json={"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {}}, headers=MCP_HEADERS)
    assert good.status_code == 200 and good.json()["id"] == 7


def test_endpoint_prefixes_come_from_a_file(tmp_path: Path, oxigraph_server: Any) -> None:
    prefixes = tmp_path / "prefixes.json"
    prefixes.write_text(json.dumps({"holmes": "https://example.org/wiki/"}), encoding="utf-8")
    call = {"seeds": ["holmes:Irene_Adler"], "max_hops": 1, "topology_only": True}
    served = start_server(tmp_path, "--endpoint", oxigraph_server.url, "--prefixes", str(prefixes))
    try:
        with served.client() as client:
            walk = client.post("/v1/tools/bfs_query", json=call).json()
    finally:
        served.stop()
    assert walk["seeds"] == ["holmes:Irene_Adler"] and walk["unresolved_seeds"] == []
    assert "holmes:Godfrey_Norton" in {node["id"] for node in walk["nodes"]}


class _Failing:
    """A store that fails as no store should: the gateway's own bug path (a fault a real
    store will not produce on demand)."""

    name = "failing"
    prefixes: ClassVar[dict[str, str]] = {}
    capabilities = Capabilities()

    def source(self) -> None:
        return None

    def select(self, query: str, *_: object, **__: object) -> Any:
        raise RuntimeError("a bug")

    def close(self) -> None:
        pass


def test_a_bug_answers_500_and_keeps_the_connection() -> None:
    app = create_app(Gateway(_Failing(), profile=NativeProfile))  # type: ignore[arg-type]
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="critical"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        while not server.started:
            time.sleep(0.05)
        request = (
            f"POST /v1/tools/describe_schema HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode()
            + b"Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
        )
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            for _ in range(2):  # twice on one connection: the first 500 did not close it
                sock.sendall(request)
                head, body = _response(sock)
                assert head.startswith(b"HTTP/1.1 500") and b"connection: close" not in head.lower()
                assert json.loads(body)["code"] == "internal_error"
    finally:
        server.should_exit = True
        thread.join(10)


def _response(sock: socket.socket) -> tuple[bytes, bytes]:
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(4096)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
    while len(body) < length:
        body += sock.recv(4096)
    return head, body
