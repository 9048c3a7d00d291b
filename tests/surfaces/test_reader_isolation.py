"""No reader sees another's graphs, on any deployment path.

Oracle: a server with a readers file answers each reader exactly as a server holding only
that reader's graphs answers everyone. The data is the medlit bundle (the demo graph where
the shared data is absent) spread over named graphs and the default graph, with a planted
secret graph: an entity named "secret thing", a second name and a type on a shared
entity, edges and a disputed statement into the shared data, a prefix declared with
`sh:declare` and one with `vann:preferredNamespacePrefix`, and `@prefix` lines for both in
the file. Each reader's own file holds its graphs' quads and the `@prefix` lines of the
namespaces they use.

On two paths, a TriG file and a `bfsql load` store directory served `--on-disk`, the same
generated calls go to the server with readers and to the reader's own (served from its
file): every tool, with arguments naming IDs, names,
predicates, types, graphs, languages and prefixes, readable or not; pictures; /sparql; MCP.
Answers must be equal (cursors aside, which are sealed for their own deployment: each is
followed on its own side instead), and no answer to a reader without the secret graph
holds a string only that graph holds.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pyoxigraph as ox
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from gateway.auth import new_token
from gateway.backends.embedded import scan_prefixes
from tests.conftest import DEMO, SHARED_DATA
from tests.surfaces.conftest import ROOT, Served, start_server

G = [f"https://graphs.example/part/{i}" for i in range(3)]
SECRET = "https://graphs.example/secret"
VAULT = "http://secret.example/xqvault/"
VOCAB = "http://secret.example/vocab#"
READERS: dict[str, tuple[str, ...]] = {
    "one": (G[0],),
    "two": (G[0], G[1]),
    "secret": (G[1], SECRET),
    "withdefault": ("default", G[2]),
    "anonymous": (G[2],),
}
LEAKS = ("secret thing", "zanzibar", "geheimnis", "secret.example", "xqvault", "xqvoc", "qwzspy", "agent007",
         "qwztarget")
"""Strings only the secret graph holds (compared case-folded)."""
CALLS_PER_READER = 50
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"


# -- the data ---------------------------------------------------------------------------------
def _base(directory: Path) -> Path:
    """The medlit bundle as TriG, or the demo graph where the shared data is absent."""
    medlit = SHARED_DATA / "medlit"
    if not medlit.is_dir():
        return DEMO
    from gateway.importers.bundle import import_bundle

    return import_bundle(medlit, directory / "medlit.trig").out


def _secret(shared: list[str]) -> str:
    first, second = shared[0], shared[1]
    return f"""
@prefix xqvault: <{VAULT}> .
@prefix xqvoc: <{VOCAB}> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix vann: <http://purl.org/vocab/vann/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix bfs: <https://w3id.org/bfsql#> .
GRAPH <{SECRET}> {{
  xqvault:agent007 rdfs:label "secret thing" ; a xqvoc:Qwzspy ; xqvoc:watches <{first}>, <{second}> .
  xqvault:agent008 rdfs:label "secret thing two" ; a xqvoc:Qwzspy ; xqvoc:watches xqvault:agent007 .
  <{first}> skos:altLabel "zanzibar codeword" ; a xqvoc:Qwztarget .
  <{second}> rdfs:label "Geheimnis"@de .
  <{first}> xqvoc:meets <{second}> ~ xqvault:claim1 .
  xqvault:claim1 bfs:truthStatus bfs:disputed .
  xqvault:shapes sh:declare [ sh:prefix "xqvault" ; sh:namespace "{VAULT}"^^xsd:anyURI ] .
  <{VOCAB}> vann:preferredNamespacePrefix "xqvoc" ; vann:preferredNamespaceUri "{VOCAB}" .
}}
"""


@dataclass
class Data:
    quads: list[ox.Quad]
    prefixes: dict[str, str]
    entities: dict[str, list[str]]
    """Graph -> IRIs of subjects it holds."""
    labels: dict[str, list[str]]
    predicates: dict[str, list[str]]
    types: dict[str, list[str]]


def _graph(quad: ox.Quad) -> str:
    return quad.graph_name.value if isinstance(quad.graph_name, ox.NamedNode) else "default"


def build(directory: Path) -> Data:
    base = _base(directory)
    prefixes = scan_prefixes(base)
    rng = random.Random(44)
    home: dict[object, str] = {}
    quads = []
    for quad in ox.parse(path=base, format=ox.RdfFormat.TRIG):
        # An entity's data mostly together, and now and then elsewhere (a statement and its
        # triple may part).
        graph = home.setdefault(quad.subject, rng.choice([*G, *G, *G, "default"]))
        if rng.random() < 0.1:
            graph = rng.choice([*G, "default"])
        quads.append(ox.Quad(quad.subject, quad.predicate, quad.object,
                             ox.DefaultGraph() if graph == "default" else ox.NamedNode(graph)))
    shared = sorted({q.subject.value for q in quads if isinstance(q.subject, ox.NamedNode)
                     and q.predicate.value == RDFS_LABEL and _graph(q) == G[1]})
    secret_text = _secret(shared)
    quads += list(ox.parse(secret_text.encode(), format=ox.RdfFormat.TRIG))
    prefixes.update({"xqvault": VAULT, "xqvoc": VOCAB})
    data = Data(quads, prefixes, {}, {}, {}, {})
    for quad in quads:
        graph = _graph(quad)
        if isinstance(quad.subject, ox.NamedNode):
            data.entities.setdefault(graph, []).append(quad.subject.value)
        if quad.predicate.value == RDFS_LABEL and isinstance(quad.object, ox.Literal):
            data.labels.setdefault(graph, []).append(quad.object.value)
        if quad.predicate.value == "http://www.w3.org/1999/02/22-rdf-syntax-ns#type" and isinstance(quad.object, ox.NamedNode):
            data.types.setdefault(graph, []).append(quad.object.value)
        elif isinstance(quad.object, ox.NamedNode):
            data.predicates.setdefault(graph, []).append(quad.predicate.value)
    for found in (data.entities, data.labels, data.predicates, data.types):
        for graph, values in found.items():
            found[graph] = sorted(set(values))
    return data


def write_trig(path: Path, quads: list[ox.Quad], prefixes: dict[str, str]) -> Path:
    """TriG with `@prefix` lines for the namespaces its quads use (as rdflib writes them)."""
    text = ox.serialize(quads, format=ox.RdfFormat.N_QUADS).decode()
    used = {p: ns for p, ns in prefixes.items() if f"<{ns}" in text or f'"{ns}' in text}
    path.write_bytes(ox.serialize(quads, format=ox.RdfFormat.TRIG, prefixes=used))
    return path


# -- the servers --------------------------------------------------------------------------------
@dataclass
class Side:
    """One reader's view on one path: the full server with its token, and its own server."""

    full: Served
    token: str | None
    alone: Served

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}


def _load(files: Path, store: Path) -> Path:
    subprocess.run([sys.executable, "-m", "gateway.surfaces.cli", "load", str(files), "--store", str(store)],
                   check=True, cwd=ROOT, capture_output=True)
    return store


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Data, dict[str, dict[str, Side]]]]:
    directory = tmp_path_factory.mktemp("isolation")
    data = build(directory)
    full = write_trig(directory / "full.trig", data.quads, data.prefixes)
    tokens = {name: new_token() for name in READERS if name != "anonymous"}
    lines = [f'[anonymous]\ngraphs = {json.dumps(list(READERS["anonymous"]))}\n']
    lines += [f'[readers.{name}]\ntoken_sha256 = "{tokens[name][1]}"\ngraphs = {json.dumps(list(graphs))}\n'
              for name, graphs in READERS.items() if name != "anonymous"]
    readers = directory / "readers.toml"
    readers.write_text("\n".join(lines), encoding="utf-8")
    alone = {name: write_trig(directory / f"{name}.trig", [q for q in data.quads if _graph(q) in graphs], data.prefixes)
             for name, graphs in READERS.items()}
    store = _load(full, directory / "store")
    servers: list[Served] = []
    sides: dict[str, dict[str, Side]] = {}
    try:
        with ThreadPoolExecutor(4) as pool:
            started = {
                "file": pool.submit(start_server, directory, str(full), "--readers", str(readers)),
                "store": pool.submit(start_server, directory, str(store), "--on-disk", "--readers", str(readers)),
                **{name: pool.submit(start_server, directory, str(path)) for name, path in alone.items()},
            }
            ready = {key: future.result() for key, future in started.items()}
        servers = list(ready.values())
        for path in ("file", "store"):
            sides[path] = {name: Side(ready[path], tokens[name][0] if name in tokens else None, ready[name])
                           for name in READERS}
        yield data, sides
    finally:
        for served in servers:
            served.stop()


# -- the calls ----------------------------------------------------------------------------------
def _curie(iri: str, prefixes: dict[str, str]) -> str:
    for prefix, namespace in prefixes.items():
        if iri.startswith(namespace) and re.fullmatch(r"[\w.-]*", iri[len(namespace):]):
            return f"{prefix}:{iri[len(namespace):]}"
    return iri


def calls(data: Data, rng: random.Random, count: int) -> list[tuple[str, dict[str, Any]]]:
    graphs = [*G, SECRET, "default"]

    def pick(found: dict[str, list[str]]) -> str:
        values = found.get(rng.choice([g for g in graphs if found.get(g)]), [])
        return rng.choice(values)

    def an_id() -> str:
        choice = rng.random()
        if choice < 0.1:
            return rng.choice(["xqvault:agent007", f"{VAULT}agent007", "xqvault:nothing", "xqvoc:Qwzspy", "nosuch:thing",
                               "http://nowhere.example/x"])
        iri = pick(data.entities)
        return _curie(iri, data.prefixes) if choice < 0.7 else iri

    def a_name() -> str:
        if rng.random() < 0.2:
            return rng.choice(["secret thing", "zanzibar codeword", "Geheimnis", "secret", "agent007"])
        return " ".join(pick(data.labels).split()[:3]) or "x"

    def a_predicate() -> str:
        if rng.random() < 0.15:
            return rng.choice(["xqvoc:watches", "watches", "meets", f"{VOCAB}meets", "xqvault:x"])
        iri = pick(data.predicates)
        return rng.choice([_curie(iri, data.prefixes), iri.rsplit("/", 1)[-1].rsplit("#", 1)[-1]])

    def a_type() -> str:
        if rng.random() < 0.15:
            return rng.choice(["xqvoc:Qwzspy", "Qwzspy", "Qwztarget", "xqvoc:Qwztarget"])
        return _curie(pick(data.types), data.prefixes)

    def some_graphs() -> dict[str, Any]:
        return {"graphs": rng.sample(graphs, k=rng.randint(1, 2))} if rng.random() < 0.25 else {}

    made: list[tuple[str, dict[str, Any]]] = [("describe_schema", {})]
    while len(made) < count:
        tool = rng.choice(["search_entities", "search_entities", "bfs_query", "bfs_query", "describe_entity",
                           "describe_entities", "expand_neighbors", "intersect_subgraphs", "transitive_closure_query",
                           "scan_query", "shortest_path", "communities", "tabulate", "fetch_slice", "answer"])
        statuses = {"truth_status": ["asserted_true", "disputed"]} if rng.random() < 0.3 else {}
        arguments: dict[str, Any]
        if tool == "search_entities":
            arguments = {"query": a_name(), "limit": rng.choice([3, 10]), **some_graphs()}
            if rng.random() < 0.2:
                arguments["entity_types"] = [a_type()]
        elif tool == "bfs_query":
            arguments = {"seeds": [an_id() for _ in range(rng.randint(1, 2))], "max_hops": rng.randint(1, 2),
                         "direction": rng.choice(["both", "out", "in"]), "topology_only": rng.random() < 0.5,
                         **statuses, **some_graphs()}
            if rng.random() < 0.3:
                arguments["predicates"] = [a_predicate()]
        elif tool == "describe_entity":
            arguments = {"id": an_id(), **some_graphs()}
            if rng.random() < 0.3:
                arguments["languages"] = rng.sample(["en", "de", "fr"], k=2)
        elif tool == "describe_entities":
            arguments = {"ids": [an_id() for _ in range(3)], **some_graphs()}
        elif tool == "expand_neighbors":
            arguments = {"entity_ids": [an_id()], "depth": rng.randint(1, 2), "limit": 20}
            if rng.random() < 0.3:
                arguments["relationship_types"] = [a_predicate()]
        elif tool == "intersect_subgraphs":
            arguments = {"seeds": [an_id(), an_id()], "k": rng.randint(1, 2), **statuses}
        elif tool == "transitive_closure_query":
            arguments = {"start": an_id(), "predicate": a_predicate(), "direction": rng.choice(["out", "in"])}
        elif tool == "scan_query":
            arguments = ({"node_types": [a_type()]} if rng.random() < 0.5 else {"truth_status": ["disputed", "asserted_true"]})
            arguments.update(limit=rng.choice([5, 50]), **some_graphs())
        elif tool == "shortest_path":
            arguments = {"source": an_id(), "target": an_id(), "max_hops": 3}
        elif tool == "communities":
            arguments = {"seeds": [an_id()], "max_hops": 2}
        elif tool == "tabulate":
            arguments = {"type": a_type(), "columns": {"name": "rdfs:label", "x": a_predicate()}, "limit": 10}
            if rng.random() < 0.3:
                arguments.update(group_by=["x"], aggregate={"n": {"fn": "count"}})
                del arguments["columns"]["name"]
        elif tool == "answer":  # the tests' scripted model (tests/conftest.py) reads what the call found
            arguments = {"question": f"What is {a_name()}?"}
        else:
            arguments = {"entity_id": an_id()}
        made.append((tool, arguments))
    return made


def _answer(response: httpx2.Response) -> list[Any]:
    try:
        return [response.status_code, response.json()]
    except ValueError:
        return [response.status_code, response.text]


def _cursorless(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: ("<cursor>" if k == "next_cursor" and v else _cursorless(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_cursorless(v) for v in value]
    return value


def _difference(got: httpx2.Response, expected: httpx2.Response) -> str:
    """Where two answers first differ, for the failure message."""
    a, b = _cursorless(_answer(got)), _cursorless(_answer(expected))
    where = ""
    while isinstance(a, (dict, list)) and type(a) is type(b):
        keys = (sorted(set(a) | set(b)) if isinstance(a, dict) else range(max(len(a), len(b))))  # type: ignore[arg-type]
        key = next((k for k in keys if (a.get(k) if isinstance(a, dict) else a[k] if k < len(a) else None) !=
                    (b.get(k) if isinstance(b, dict) else b[k] if k < len(b) else None)), None)
        if key is None:
            break
        where += f"[{key!r}]"
        a = a.get(key) if isinstance(a, dict) else a[key] if key < len(a) else None
        b = b.get(key) if isinstance(b, dict) else b[key] if key < len(b) else None
    return f"{where}: {json.dumps(a)[:400]} != {json.dumps(b)[:400]}"


def _leaks(answer: Any, request: str) -> list[str]:
    text = json.dumps(answer, ensure_ascii=False).casefold()
    asked = request.casefold()
    return [leak for leak in LEAKS if leak in text and leak not in asked]


def _compare(side: Side, reader: str, tool: str, arguments: dict[str, Any], path: str, **params: str) -> None:
    sent = json.dumps(arguments)
    with side.full.client() as full, side.alone.client() as alone:
        got = full.post(f"/v1/tools/{tool}", json=arguments, params=params, headers=side.headers())
        expected = alone.post(f"/v1/tools/{tool}", json=arguments, params=params)
        where = f"{path} {reader} {tool} {sent} {params}"
        assert _cursorless(_answer(got)) == _cursorless(_answer(expected)), (where, _difference(got, expected))
        if READERS[reader] != READERS["secret"]:
            assert not _leaks(_answer(got), sent), (where, _leaks(_answer(got), sent))
        cursor = got.json().get("next_cursor") if got.status_code == 200 and not params else None
        if cursor:  # each side's own cursor takes it to the same next page
            other = expected.json()["next_cursor"]
            assert _cursorless(_answer(full.post(f"/v1/tools/{tool}", json={**arguments, "cursor": cursor},
                                                 headers=side.headers()))) == \
                _cursorless(_answer(alone.post(f"/v1/tools/{tool}", json={**arguments, "cursor": other}))), where


@pytest.mark.parametrize("path", ["file", "store"])
@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_reader_gets_what_a_server_of_its_graphs_alone_gives(
    world: tuple[Data, dict[str, dict[str, Side]]], path: str, reader: str,
) -> None:
    data, sides = world
    side = sides[path][reader]
    rng = random.Random(f"{path} {reader}")
    for tool, arguments in calls(data, rng, CALLS_PER_READER):
        _compare(side, reader, tool, arguments, path)


@pytest.mark.parametrize("path", ["file", "store"])
@pytest.mark.parametrize("reader", sorted(READERS))
def test_pictures_sparql_and_mcp_too(world: tuple[Data, dict[str, dict[str, Side]]], path: str, reader: str) -> None:
    data, sides = world
    side = sides[path][reader]
    rng = random.Random(f"pictures {path} {reader}")
    walks = [(tool, arguments) for tool, arguments in calls(data, rng, 60) if tool in ("bfs_query", "shortest_path")]
    for tool, arguments in walks[:6]:
        for fmt in ("svg", "mermaid"):
            _compare(side, reader, tool, arguments, path, format=fmt)
    queries = [
        "SELECT ?s ?p ?o WHERE { ?s ?p ?o } ORDER BY ?s ?p ?o LIMIT 200",
        "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g ORDER BY ?g",
        'ASK { ?s ?p "secret thing" }',
        f"SELECT ?p ?o WHERE {{ <{VAULT}agent007> ?p ?o }} ORDER BY ?p ?o",
        "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }",
    ]
    with side.full.client() as full, side.alone.client() as alone:
        for query in queries:
            accept = {"Accept": "application/sparql-results+json"}
            got = full.get("/sparql", params={"query": query}, headers={**side.headers(), **accept})
            expected = alone.get("/sparql", params={"query": query}, headers=accept)
            assert _rows(got) == _rows(expected), (path, reader, query)
    mcp_calls = calls(data, random.Random(f"mcp {path} {reader}"), 12)
    assert asyncio.run(_over_mcp(side.full, side.headers(), mcp_calls)) == asyncio.run(_over_mcp(side.alone, {}, mcp_calls))


def _rows(response: httpx2.Response) -> Any:
    """A SPARQL answer with its blank nodes unnamed (each store names its own) and its rows sorted."""
    body = response.json()
    if response.status_code != 200 or "results" not in body:
        return body
    rows = [{k: (dict(v, value="_") if v["type"] == "bnode" else v) for k, v in row.items()}
            for row in body["results"]["bindings"]]
    return sorted(json.dumps(row, sort_keys=True) for row in rows)


async def _over_mcp(served: Served, headers: dict[str, str], made: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    found = []
    async with httpx2.AsyncClient(headers=headers, timeout=60) as http, \
            Client(streamable_http_client(f"{served.url}/mcp", http_client=http)) as client:
        for tool, arguments in made:
            result = await client.call_tool(tool, arguments)
            found.append((result.is_error, _cursorless(result.structured_content),
                          None if result.structured_content else [c.model_dump() for c in result.content]))
    return found
