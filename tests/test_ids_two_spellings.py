"""One ID, two spellings in one file (docs/canonical-ids.md, "http and https").

A file may write one entity both `http://www.wikidata.org/entity/Q42` and
`https://www.wikidata.org/entity/Q42`: both are shown as `wd:Q42`. `wd:Q42` reads one of
the two nodes, and its answers name the other with the triples it holds (never dropped
silently); an IRI in angle brackets reads that exact node. The oracle is the same file read
with pyoxigraph, in memory and from a `bfsql load` store directory."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pyoxigraph as ox
import pytest

from gateway import Gateway
from gateway.loading import load_store
from tests.conftest import shared_data

HTTP = "http://www.wikidata.org/entity/Q42"
HTTPS = "https://www.wikidata.org/entity/Q42"
SPELLINGS = (HTTP, HTTPS)
MINI = """@prefix ex: <http://example.org/> .
<http://www.wikidata.org/entity/Q42> ex:wrote ex:B .
<https://www.wikidata.org/entity/Q42> ex:bornIn ex:Cambridge .
ex:Fan ex:likes <https://www.wikidata.org/entity/Q42> .
"""


def respelled(tmp_path: Path) -> Path:
    """Wikidata's export of Q42 with every other triple naming the item (in file order)
    written with `https://`: both spellings hold statements, references and labels."""
    store = ox.Store()
    store.load(path=str(shared_data("wikidata", "Q42.ttl")), format=ox.RdfFormat.TURTLE)
    https = ox.NamedNode(HTTPS)
    touched = 0
    triples: list[ox.Triple] = []
    for quad in store.quads_for_pattern(None, None, None, ox.DefaultGraph()):
        s, p, o = quad.subject, quad.predicate, quad.object
        if HTTP in (getattr(s, "value", None), getattr(o, "value", None)):
            touched += 1
            if touched % 2:
                s = https if getattr(s, "value", None) == HTTP else s
                o = https if getattr(o, "value", None) == HTTP else o
        triples.append(ox.Triple(s, p, o))  # type: ignore[arg-type]
    path = tmp_path / "Q42-both.nt"
    path.write_bytes(ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES) or b"")
    return path


def oracle(path: Path) -> ox.Store:
    store = ox.Store()
    store.load(path=str(path), format=ox.RdfFormat.N_TRIPLES if path.suffix == ".nt" else ox.RdfFormat.TURTLE)
    return store


def degree(store: ox.Store, iri: str) -> int:
    """Triples touching the IRI, as subject or object."""
    rows = store.query(f"SELECT (COUNT(*) AS ?n) {{ {{ <{iri}> ?p ?o }} UNION {{ ?s ?p <{iri}> }} }}")
    return int(next(iter(rows))["n"].value)  # type: ignore[index, union-attr, arg-type]


def relationships(store: ox.Store, iri: str, to_id: Gateway) -> Counter[tuple[str, str]]:
    """The IRI's statements to and from other IRIs, by predicate and direction."""
    out = store.query(f"SELECT ?p {{ <{iri}> ?p ?o FILTER isIRI(?o) }}")
    into = store.query(f"SELECT ?p {{ ?s ?p <{iri}> FILTER isIRI(?s) }}")
    found = Counter((to_id.ids.to_id(str(r["p"].value)), "out") for r in out)  # type: ignore[index, union-attr]
    found.update((to_id.ids.to_id(str(r["p"].value)), "in") for r in into)  # type: ignore[index, union-attr]
    return found


def other_told(warnings: list[str] | None, other: str, triples: int) -> bool:
    return any(f"<{other}> ({triples} triples)" in w for w in warnings or ())


@pytest.fixture(params=["memory", "store"])
def opened(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Gateway, ox.Store]:
    path = tmp_path / "mini.ttl"
    path.write_text(MINI, encoding="utf-8")
    if request.param == "memory":
        return Gateway.open(path), oracle(path)
    load_store([path], tmp_path / "store", show_progress=False)
    return Gateway.open(tmp_path / "store"), oracle(path)


def test_each_spelling_in_brackets_reads_its_own_node(opened: tuple[Gateway, ox.Store]) -> None:
    gateway, store = opened
    for mine, other in (SPELLINGS, SPELLINGS[::-1]):
        described = gateway.describe_entity(f"<{mine}>")
        assert described.id == "wd:Q42"
        got = Counter({(r.predicate, r.direction): r.count for r in described.relationships or []})
        assert got == relationships(store, mine, gateway)
        assert other_told(described.warnings, other, degree(store, other))
        walk = gateway.bfs_query(seeds=[f"<{mine}>"], max_hops=1)
        edges = Counter((e.predicate, "out" if e.subject == "wd:Q42" else "in") for e in walk.edges)
        assert walk.seeds == ["wd:Q42"] and edges == relationships(store, mine, gateway)
        assert other_told(walk.warnings, other, degree(store, other))


def test_the_id_reads_one_spelling_and_names_the_other(opened: tuple[Gateway, ox.Store]) -> None:
    """`wd:Q42` reads the spelling holding most; every other triple is told, with the IRI to ask."""
    gateway, store = opened
    most, fewer = (HTTP, HTTPS) if degree(store, HTTP) >= degree(store, HTTPS) else (HTTPS, HTTP)
    described = gateway.describe_entity("wd:Q42")
    got = Counter({(r.predicate, r.direction): r.count for r in described.relationships or []})
    assert got == relationships(store, most, gateway)
    assert other_told(described.warnings, fewer, degree(store, fewer))
    assert sum(got.values()) == degree(store, most)  # read + told: every triple of the ID
    for tool_warnings in (gateway.bfs_query(seeds=["wd:Q42"], max_hops=1).warnings,
                          gateway.expand_neighbors(entity_ids=["wd:Q42"]).warnings):
        assert other_told(tool_warnings, fewer, degree(store, fewer))


def test_douglas_adams_written_both_ways(tmp_path: Path) -> None:
    """Wikidata's own export, half its triples about the item respelled: each spelling in
    brackets is read, the other named with its triples as the file counts them."""
    path = respelled(tmp_path)
    gateway, store = Gateway.open(path), oracle(path)
    assert degree(store, HTTP) > 100 and degree(store, HTTPS) > 100
    for mine, other in (SPELLINGS, SPELLINGS[::-1]):
        described = gateway.describe_entity(f"<{mine}>")
        assert described.id == "wd:Q42"
        assert other_told(described.warnings, other, degree(store, other))
    # The ID map's spelling is read unless the other holds more (here each holds half).
    fewer = HTTPS if degree(store, HTTP) >= degree(store, HTTPS) else HTTP
    assert other_told(gateway.describe_entity("wd:Q42").warnings, fewer, degree(store, fewer))


def test_one_spelling_alone_is_read_without_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "https.ttl"
    path.write_text(MINI.replace("http://www.wikidata.org/entity/Q42", HTTPS), encoding="utf-8")
    gateway = Gateway.open(path)
    for written in ("wd:Q42", f"<{HTTP}>", f"<{HTTPS}>"):
        described = gateway.describe_entity(written)
        assert len(described.relationships or []) == 3 and not described.warnings
