"""Authorization gates the walk: a walk as reader R equals the walk on a store holding only R's graphs.

Each triple of a random graph is put in a random named graph (a statement's base
triple and its reifier may land in different graphs). A post-filter implementation
(walk everything, then hide what R may not read) is kept as a negative control and is
shown to fail the same oracle.
"""

from __future__ import annotations

import random
from pathlib import Path

import pyoxigraph as ox
import pytest

from gateway import Gateway
from gateway.auth import Reader, Readers, hash_token, new_token
from gateway.errors import Unauthorized
from support.synth import STATUSES, random_graph
from tests.conftest import DEMO

GRAPHS = [f"http://graphs.example/g{i}" for i in range(4)]
WALKS_PER_GRAPH = 12
RANDOM_GRAPHS = 90  # 90 x 12 = 1,080 walks


def spread(rng: random.Random, ntriples: str) -> list[ox.Quad]:
    quads = []
    for triple in ox.parse(ntriples.encode(), format=ox.RdfFormat.N_TRIPLES):
        quads.append(ox.Quad(triple.subject, triple.predicate, triple.object, ox.NamedNode(rng.choice(GRAPHS))))
    return quads


def store_of(quads: list[ox.Quad], graphs: tuple[str, ...] | None) -> ox.Store:
    store = ox.Store()
    store.extend([q for q in quads if graphs is None or q.graph_name.value in graphs])
    return store


def random_call(rng: random.Random, nodes: list[str]) -> tuple[str, dict[str, object]]:
    filters: dict[str, object] = {}
    if rng.random() < 0.5:
        filters["truth_status"] = rng.sample(STATUSES, k=rng.randint(1, 5))
    tool = rng.choice(["bfs_query", "bfs_query", "intersect_subgraphs", "transitive_closure_query",
                       "shortest_path", "scan_query", "describe_entities", "communities", "expand_neighbors"])
    if tool == "bfs_query":
        return tool, {"seeds": rng.sample(nodes, k=min(2, len(nodes))), "max_hops": rng.randint(1, 3),
                      "direction": rng.choice(["both", "out", "in"]), **filters}
    if tool == "intersect_subgraphs":
        return tool, {
            "seeds": rng.sample(nodes, k=min(2, len(nodes))) * (1 if len(nodes) > 1 else 2),
            "k": rng.randint(1, 2),
            **filters,
        }
    if tool == "transitive_closure_query":
        return tool, {
            "start": rng.choice(nodes),
            "predicate": f"http://synth.example/p/{rng.randint(0, 3)}",
            "direction": rng.choice(["out", "in", "both"]),
            **filters,
        }
    if tool == "shortest_path":
        return tool, {"source": rng.choice(nodes), "target": rng.choice(nodes), "max_hops": 4, **filters}
    if tool == "scan_query":
        return tool, {"limit": 1000, **filters}
    if tool == "expand_neighbors":
        return tool, {
            "entity_ids": rng.sample(nodes, k=min(2, len(nodes))),
            "depth": rng.randint(1, 3),
            "limit": 24,
            "include_incoming": rng.random() < 0.7,
            **filters,
        }
    if tool == "communities":
        return tool, {"seeds": rng.sample(nodes, k=min(2, len(nodes))), "max_hops": 2, **filters}
    return tool, {"ids": rng.sample(nodes, k=min(3, len(nodes)))}


def post_filtered_bfs(full: Gateway, scoped_store: ox.Store, arguments: dict[str, object]) -> dict[str, object]:
    """Negative control: walk everything, then hide what the reader cannot see."""
    result = full.bfs_query(**arguments).model_dump()
    visible = {str(q.subject.value) for q in scoped_store} | {
        str(q.object.value) for q in scoped_store if isinstance(q.object, ox.NamedNode)
    }
    result["nodes"] = [n for n in result["nodes"] if n["id"] in visible]
    keep = {n["id"] for n in result["nodes"]}
    result["edges"] = [e for e in result["edges"] if e["subject"] in keep and e["object"] in keep]
    return result


@pytest.mark.parametrize("number", range(RANDOM_GRAPHS))
def test_reader_walks_equal_walks_on_the_readers_graphs_only(number: int) -> None:
    rng = random.Random(number)
    graph = random_graph(rng, rng.randint(5, 25), rng.randint(10, 50), reified=number % 3 != 0)
    quads = spread(rng, graph.to_ntriples())
    shared = Gateway.open(store_of(quads, None))
    nodes = sorted({st.s for st in graph.statements} | {st.o for st in graph.statements})
    for _ in range(WALKS_PER_GRAPH):
        graphs = tuple(sorted(rng.sample(GRAPHS, k=rng.randint(0, 3))))
        reader = Reader("r", graphs)
        alone = Gateway.open(store_of(quads, graphs))
        tool, arguments = random_call(rng, nodes)
        assert shared.call(tool, arguments, reader=reader) == alone.call(tool, arguments), (tool, arguments, graphs)


def test_post_filtering_fails_the_same_oracle() -> None:
    failures = 0
    for number in range(40):
        rng = random.Random(1000 + number)
        graph = random_graph(rng, 15, 40, reified=True)
        quads = spread(rng, graph.to_ntriples())
        full = Gateway.open(store_of(quads, None))
        nodes = sorted({st.s for st in graph.statements} | {st.o for st in graph.statements})
        graphs = tuple(sorted(rng.sample(GRAPHS, k=2)))
        scoped_store = store_of(quads, graphs)
        alone = Gateway.open(scoped_store)
        arguments = {"seeds": [rng.choice(nodes)], "max_hops": 3}
        truth = alone.bfs_query(**arguments).model_dump()
        control = post_filtered_bfs(full, scoped_store, arguments)
        if (control["nodes"], control["edges"]) != (truth["nodes"], truth["edges"]):
            failures += 1
    assert failures > 0, "the negative control should disagree with the oracle"


def test_absent_and_forbidden_seeds_answer_identically() -> None:
    gateway = Gateway.open(DEMO)
    canon = Reader("canon", ("https://example.org/graph/canon",))
    forbidden = gateway.call("bfs_query", {"seeds": ["stmt:s42"]}, reader=canon)  # exists, in casebook only
    absent = gateway.call("bfs_query", {"seeds": ["stmt:s99"]}, reader=canon)
    assert forbidden.model_dump_json().replace("s42", "sX") == absent.model_dump_json().replace("s99", "sX")
    canon_walk = gateway.call(
        "bfs_query",
        {
            "seeds": ["wiki:Sherlock_Holmes"],
            "max_hops": 2,
            "truth_status": ["asserted_true", "disputed", "hypothetical", "retracted"],
        },
        reader=canon,
    )
    assert (canon_walk.node_count, canon_walk.edge_count) == (26, 35)  # data/README.md: no s40 for canon readers


def test_readers_file(tmp_path: Path) -> None:
    token, digest = new_token()
    assert hash_token(token) == digest
    path = tmp_path / "readers.toml"
    path.write_text(
        f'[anonymous]\ngraphs = ["https://example.org/graph/canon"]\n\n'
        f'[readers.holmes]\ntoken_sha256 = "{digest}"\ngraphs = ["https://example.org/graph/canon", "https://example.org/graph/casebook"]\n'
    )
    readers = Readers.open(path)
    assert readers.authenticate(None).graphs == ("https://example.org/graph/canon",)
    assert readers.authenticate(token).name == "holmes"
    with pytest.raises(Unauthorized):
        readers.authenticate("wrong")
    assert token not in path.read_text()


# -- whole-store artifacts seen through a reader's scope (on every deployment path) ------------
SECRET = "https://example.org/graph/secret"
VAULT = "http://secret.example/xqvault/"
SECRET_GRAPH = f"""
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix vann: <http://purl.org/vocab/vann/> .
@prefix xqvault: <{VAULT}> .
GRAPH <{SECRET}> {{
  xqvault:agent007 rdfs:label "secret thing" ; <{VAULT}watches> <https://example.org/wiki/Irene_Adler> .
  xqvault:shapes sh:declare [ sh:prefix "xqvault" ; sh:namespace "{VAULT}" ] .
  <http://secret.example/vocab#> vann:preferredNamespacePrefix "xqvoc" ;
      vann:preferredNamespaceUri "http://secret.example/vocab#" .
}}
"""
CANON_READER = Reader("canon", ("https://example.org/graph/canon",))


@pytest.fixture(scope="module", params=["file", "store"])
def with_secret(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Gateway:
    """The demo graph and a secret graph, opened from a TriG file or from a `bfsql load` store."""
    from gateway.loading import load_store

    directory = tmp_path_factory.mktemp("secret")
    path = directory / "all.trig"
    path.write_text(DEMO.read_text(encoding="utf-8") + SECRET_GRAPH, encoding="utf-8")
    if request.param == "file":
        return Gateway.open(path)
    load_store([path], directory / "store", show_progress=False)
    return Gateway.open(directory / "store")


def test_search_reads_the_readers_graphs_only(with_secret: Gateway) -> None:
    """On a store directory every scope opened the one index of every graph."""
    found = with_secret.call("search_entities", {"query": "secret thing"}, reader=CANON_READER).model_dump_json()
    assert "agent007" not in found and "secret" not in found.replace('"query":"secret thing"', "")
    assert "agent007" in with_secret.call("search_entities", {"query": "secret thing"}).model_dump_json()


def test_hints_name_no_forbidden_id(with_secret: Gateway) -> None:
    answer = with_secret.call("bfs_query", {"seeds": ["wiki:secret_thing"]}, reader=CANON_READER)
    assert not [w for w in answer.warnings if "agent007" in w or "xqvault" in w], answer.warnings


def test_a_reader_sees_only_prefixes_its_graphs_give(with_secret: Gateway) -> None:
    schema = with_secret.call("describe_schema", {}, reader=CANON_READER).model_dump()
    assert {"xqvault", "xqvoc"}.isdisjoint(schema["prefixes"]), schema["prefixes"]
    assert {"xqvault", "xqvoc"} <= set(with_secret.call("describe_schema", {}).model_dump()["prefixes"])
    # A forbidden IRI does not come back as a CURIE, and a forbidden prefix is as unknown as one never declared.
    as_iri = with_secret.call("describe_entities", {"ids": [f"{VAULT}agent007"]}, reader=CANON_READER)
    assert as_iri.unresolved == [f"{VAULT}agent007"], as_iri.unresolved
    by_prefix = with_secret.call("describe_entities", {"ids": ["xqvault:agent007"]}, reader=CANON_READER)
    never = with_secret.call("describe_entities", {"ids": ["zzvault:agent007"]}, reader=CANON_READER)
    assert by_prefix.model_dump_json().replace("xqvault", "X") == never.model_dump_json().replace("zzvault", "X")


def test_a_reader_granted_the_default_graph_may_name_it(tmp_path: Path) -> None:
    path = tmp_path / "mixed.trig"
    extra = "<https://example.org/x> <https://example.org/p> <https://example.org/y> .\n"
    path.write_text(DEMO.read_text(encoding="utf-8") + extra, encoding="utf-8")
    gateway = Gateway.open(path)
    reader = Reader("both", ("default", "https://example.org/graph/canon"))
    walk = gateway.call("bfs_query", {"seeds": ["https://example.org/x"], "graphs": ["default"]}, reader=reader)
    assert walk.edge_count == 1  # type: ignore[attr-defined]
    assert gateway.call("bfs_query", {"seeds": ["https://example.org/x"], "graphs": ["default"]}).edge_count == 1  # type: ignore[attr-defined]


def test_the_scopes_kept_are_bounded() -> None:
    """Each reader's scope keeps its statistics and search index: a readers file of 200 must not keep 200."""
    gateway = Gateway.open(DEMO)
    graphs = ("https://example.org/graph/canon", "https://example.org/graph/casebook")
    for i in range(200):
        gateway.context_for(Reader(f"r{i}", (*graphs, f"https://example.org/graph/none{i}")))
    assert 0 < len(gateway._scoped) <= 64
